//! A tool's `[lints]` applied to the build's findings about it, as Cargo's
//! `[lints]` are to rustc's: a rule allowed is not reported, warned is a
//! warning, denied an error.

use toolmetadata_load::metadata::{LintLevel, ToolMetadata};
use toolmetadata_load::{Diagnostic, Severity};

/// `finding` about `tool` at the level the tool's `[lints]` gives its
/// rule; `None` when it allows it.
pub(crate) fn leveled(tool: &ToolMetadata, finding: Diagnostic) -> Option<Diagnostic> {
    match tool.lint(finding.rule().code()) {
        None => Some(finding),
        Some(LintLevel::Allow) => None,
        Some(LintLevel::Warn) => Some(finding.with_severity(Severity::Warning)),
        Some(LintLevel::Deny) => Some(finding.with_severity(Severity::Error)),
    }
}
