//! `[[failures]]`: each a `snake_case` code, declared once, with a class
//! and a description.

use std::collections::HashMap;

use super::{Checker, two_places};
use crate::diagnostic::Rule;
use crate::metadata::read::RawFailure;
use crate::metadata::tree::quote;
use crate::metadata::{DeclaredFailure, FailureClass};

/// The codes the server gives the failures it reports itself.
const RESERVED: &[&str] = &["timeout", "busy", "rate_limited", "internal_error"];

impl Checker<'_> {
    pub(super) fn check_failures(&mut self, raw: &[RawFailure]) -> Vec<DeclaredFailure> {
        let mut seen = HashMap::new();
        let mut failures = Vec::with_capacity(raw.len());
        for f in raw {
            let Some(code) = &f.code else {
                self.report.push(
                    self.report
                        .error(Rule::BadFailure, "a `[[failures]]` entry has no `code`")
                        .with_primary(f.span, "this failure")
                        .with_help("give it `code = \"not_allowed\"`: what handlers return and clients branch on"),
                );
                continue;
            };
            let valid = code.value.len() <= 64
                && code.value.starts_with(|c: char| c.is_ascii_lowercase())
                && code
                    .value
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
            if !valid {
                self.report.push(
                    self.report
                        .error(Rule::BadFailure, format!("failure code {} is not snake_case", quote(&code.value)))
                        .with_primary(code.span, "not a code")
                        .with_help("lower-case letters, digits and `_`, starting with a letter, at most 64: `not_allowed`"),
                );
                continue;
            }
            if RESERVED.contains(&code.value.as_str()) {
                self.report.push(
                    self.report
                        .error(Rule::BadFailure, format!("failure code {} is the server's own", quote(&code.value)))
                        .with_primary(code.span, "reserved")
                        .with_help(format!("the server reports {} itself (limits, panics): name the tool's failure otherwise", RESERVED.join(", "))),
                );
                continue;
            }
            // Two codes of one variant name would be one variant.
            let variant = crate::metadata::names::variant_name(&code.value);
            if let Some(first) = seen.insert(variant, code.span) {
                let d = self.report.error(
                    Rule::DuplicateFailure,
                    format!(
                        "failure code {} is declared twice (codes that differ only in `_` name one variant)",
                        quote(&code.value)
                    ),
                );
                self.report.push(
                    two_places(
                        d,
                        (code.span, "declared again".to_owned()),
                        (first, "first declared here".to_owned()),
                    )
                    .with_help("each code names one failure; remove one, or rename it"),
                );
                continue;
            }
            let class = match &f.class {
                None => None,
                Some(class) => {
                    let parsed = FailureClass::from_name(&class.value);
                    if parsed.is_none() {
                        self.report.push(
                            self.report
                                .error(Rule::BadFailure, format!("failure class {} is not one of capability, reliability, governance", quote(&class.value)))
                                .with_primary(class.span, "not a class")
                                .with_help("capability: the tool cannot do this; reliability: something it needs failed; governance: policy refused it"),
                        );
                    }
                    parsed
                }
            };
            let Some(class) = class else {
                if f.class.is_none() {
                    self.report.push(
                        self.report
                            .error(Rule::BadFailure, format!("failure {} has no `class`", quote(&code.value)))
                            .with_primary(code.span, "this failure")
                            .with_help("add `class = \"capability\"`, `\"reliability\"` or `\"governance\"`"),
                    );
                }
                continue;
            };
            let Some(description) = f
                .description
                .as_ref()
                .filter(|d| !d.value.trim().is_empty())
            else {
                self.report.push(
                    self.report
                        .error(
                            Rule::BadFailure,
                            format!("failure {} has no `description`", quote(&code.value)),
                        )
                        .with_primary(code.span, "this failure")
                        .with_help("say what it means, for the operator and the client"),
                );
                continue;
            };
            failures.push(DeclaredFailure {
                code: code.value.clone(),
                class,
                retryable: f.retryable.as_ref().is_some_and(|r| r.value),
                description: description.value.clone(),
            });
        }
        failures
    }
}

#[cfg(test)]
mod tests {
    use crate::metadata::{FailureClass, Load, ToolMetadata};

    const TOOL: &str = "description = \"d\"\n\n[[failures]]\ncode = \"not_allowed\"\nclass = \"governance\"\ndescription = \"Not on the allow list\"\n\n[[failures]]\ncode = \"directory_down\"\nclass = \"reliability\"\nretryable = true\ndescription = \"Try again\"\n";

    #[test]
    fn failures_are_read_with_their_class() {
        let tool = ToolMetadata::from_toml_str("t", TOOL).expect("loads");
        assert_eq!(tool.failures.len(), 2);
        assert_eq!(tool.failures[0].class, FailureClass::Governance);
        assert!(!tool.failures[0].retryable && tool.failures[1].retryable);
    }

    #[test]
    fn bad_and_twice_declared_failures_are_located() {
        for (from, to, code, line) in [
            (
                "code = \"directory_down\"",
                "code = \"not_allowed\"",
                "duplicate-failure",
                9,
            ),
            (
                "code = \"directory_down\"",
                "code = \"Down!\"",
                "bad-failure",
                9,
            ),
            (
                "code = \"directory_down\"",
                "code = \"timeout\"",
                "bad-failure",
                9,
            ),
            (
                "code = \"directory_down\"",
                "code = \"not__allowed\"",
                "duplicate-failure",
                9,
            ),
            (
                "class = \"reliability\"",
                "class = \"transient\"",
                "bad-failure",
                10,
            ),
            (
                "description = \"Try again\"",
                "description = \"\"",
                "bad-failure",
                9,
            ),
        ] {
            let text = TOOL.replace(from, to);
            let errors = ToolMetadata::from_toml_str("t", &text).expect_err(to);
            let found = errors.iter().find(|d| d.rule().code() == code);
            assert_eq!(
                found.and_then(|d| d.line_column()).map(|(l, _)| l),
                Some(line),
                "{to}: {}",
                errors.render(false)
            );
        }
    }
}
