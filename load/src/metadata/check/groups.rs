//! `toolGroups`: each a name a server can serve at `<endpoint>/<group>`,
//! none twice; and `[lints]`, each a level.

use super::Checker;
use crate::diagnostic::Rule;
use crate::metadata::LintLevel;
use crate::metadata::group::{GROUP_NAME_RULE, group_name_problem};
use crate::metadata::read::{Item, Sp};
use crate::metadata::tree::quote;

impl Checker<'_> {
    /// The groups, in the order written, leaving out the ones reported.
    pub(super) fn check_groups(&mut self, raw: &Sp<Vec<Item>>) -> Vec<String> {
        let mut groups: Vec<String> = Vec::new();
        for (group, span) in &raw.value {
            if let Some(why) = group_name_problem(group) {
                self.report.push(
                    self.report
                        .error(
                            Rule::BadGroup,
                            format!("group {} cannot name an endpoint: {why}", quote(group)),
                        )
                        .with_primary(*span, why)
                        .with_help(format!(
                            "a group is served at `<endpoint>/<group>`: its name is {GROUP_NAME_RULE}, such as \"read-only\""
                        )),
                );
                continue;
            }
            if groups.contains(group) {
                self.report.push(
                    self.report
                        .error(
                            Rule::BadGroup,
                            format!("group {} is listed twice", quote(group)),
                        )
                        .with_primary(*span, "listed again here")
                        .with_help("remove the second one"),
                );
                continue;
            }
            groups.push(group.clone());
        }
        groups
    }

    /// The levels of `[lints]`, leaving out the ones reported.
    pub(super) fn check_lints(
        &mut self,
        raw: &[(&'static str, Sp<String>)],
    ) -> Vec<(String, LintLevel)> {
        let mut lints = Vec::new();
        for (rule, level) in raw {
            match LintLevel::ALL.into_iter().find(|l| l.as_str() == level.value) {
                Some(found) => lints.push(((*rule).to_owned(), found)),
                None => self.report.push(
                    self.report
                        .error(
                            Rule::BadLint,
                            format!(
                                "`{rule}` in [lints] is {}, which is not a level",
                                quote(&level.value)
                            ),
                        )
                        .with_primary(level.span, "not allow, warn or deny")
                        .with_help("a lint's level is \"allow\", \"warn\" or \"deny\", as in Cargo's [lints]"),
                ),
            }
        }
        lints
    }
}
