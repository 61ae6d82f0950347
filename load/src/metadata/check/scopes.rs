//! `scopes`: each an OAuth scope token (RFC 6749 §3.3), none twice; and
//! `toolVersion`, a semantic version.

use super::Checker;
use crate::diagnostic::Rule;
use crate::metadata::read::{Item, Sp};
use crate::metadata::tree::quote;

impl Checker<'_> {
    /// `toolVersion`: a semantic version, or an error and none.
    pub(super) fn check_version(&mut self, raw: &Sp<String>) -> Option<String> {
        match crate::metadata::Version::parse(&raw.value) {
            Ok(_) => Some(raw.value.clone()),
            Err(why) => {
                self.report.push(
                    self.report
                        .error(Rule::BadVersion, format!("`toolVersion` {why}"))
                        .with_primary(raw.span, "not MAJOR.MINOR.PATCH")
                        .with_help("write it as semver, such as \"1.0.0\" or \"2.1.0-rc.1\""),
                );
                None
            }
        }
    }

    /// The scopes, in the order written, leaving out the ones reported.
    pub(super) fn check_scopes(&mut self, raw: &Sp<Vec<Item>>) -> Vec<String> {
        let mut scopes: Vec<String> = Vec::new();
        for (scope, span) in &raw.value {
            if let Some(why) = scope_problem(scope) {
                self.report.push(
                    self.report
                        .error(
                            Rule::BadScope,
                            format!("scope {} is not an OAuth scope: {why}", quote(scope)),
                        )
                        .with_primary(*span, why)
                        .with_help(
                            "a scope is one or more visible ASCII characters other than a space, `\"` and `\\` (RFC 6749), such as \"workspace:write\"",
                        ),
                );
                continue;
            }
            if scopes.contains(scope) {
                self.report.push(
                    self.report
                        .error(
                            Rule::DuplicateScope,
                            format!("scope {} is listed twice", quote(scope)),
                        )
                        .with_primary(*span, "listed again here")
                        .with_help("remove the second one"),
                );
                continue;
            }
            scopes.push(scope.clone());
        }
        scopes
    }
}

/// Why `scope` is not a `scope-token`: `%x21 / %x23-5B / %x5D-7E`, one or more.
fn scope_problem(scope: &str) -> Option<&'static str> {
    if scope.is_empty() {
        return Some("it is empty");
    }
    scope.chars().find_map(|c| match c {
        ' ' => Some("it holds a space (give each scope as its own string)"),
        '"' | '\\' => Some("it holds a quote or a backslash"),
        c if c.is_ascii_graphic() => None,
        _ => Some("it holds a character outside visible ASCII"),
    })
}

#[cfg(test)]
mod tests {
    use super::scope_problem;

    #[test]
    fn scope_tokens() {
        for good in ["workspace:write", "a", "https://api.example/read", "!#[]~"] {
            assert_eq!(scope_problem(good), None, "{good}");
        }
        for bad in ["", "a b", "a\"b", "a\\b", "é", "a\tb"] {
            assert!(scope_problem(bad).is_some(), "{bad:?}");
        }
    }
}
