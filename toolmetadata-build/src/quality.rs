//! The quality check (`Builder::quality`, `toolmetadata check --quality`):
//! what registries grade a tool on and what makes a model pick the wrong one
//! or call it wrongly, found in the metadata, each located in its file.
//!
//! | rule | finds |
//! |---|---|
//! | `quality-description` | a tool or parameter with no description, or one that only repeats its name |
//! | `quality-enum` | an `enum` parameter with no description: its values are explained nowhere |
//! | `quality-hints` | a tool that says neither `readOnly = true` nor whether it is `destructive` |
//! | `quality-confirm` | a `destructive = true` tool with no `[confirm]`: it asks no one |
//! | `quality-duplicate` | two tools whose descriptions are nearly the same |

use std::sync::Arc;

use toolmetadata_core::metadata::ToolMetadata;
use toolmetadata_core::{Diagnostic, Rule, Severity, SourceFile};

use crate::load::{LoadedTool, source};
use crate::locate::{find_key, find_param};

/// How alike two descriptions are (normalized Levenshtein similarity, of
/// their lower-cased words) before a model cannot tell the tools apart.
const NEAR_DUPLICATE: f64 = 0.85;

/// Every finding for `tools`, at `severity`.
pub(crate) fn check(tools: &[LoadedTool], severity: Severity) -> Vec<Diagnostic> {
    let files: Vec<Arc<SourceFile>> = tools.iter().map(source).collect();
    let mut found = Vec::new();
    for (tool, file) in tools.iter().zip(&files) {
        let mut finding = |rule: Rule, message: String, help: &str, at: Option<&str>| {
            let mut diagnostic = Diagnostic::error(rule, file.clone(), message)
                .with_help(help)
                .with_severity(severity);
            let span = match at {
                Some(param) => find_param(file.text(), param),
                None => find_key(file.text(), "description"),
            };
            if let Some(span) = span {
                diagnostic = diagnostic.with_primary(span, "here");
            }
            found.extend(crate::lints::leveled(&tool.tool, diagnostic));
        };
        let meta = &tool.tool;
        described(meta, &mut finding);
        hinted(meta, &mut finding);
    }
    duplicates(tools, &files, severity, &mut found);
    found
}

type Finding<'a> = dyn FnMut(Rule, String, &str, Option<&str>) + 'a;

/// `quality-description` and `quality-enum`.
fn described(tool: &ToolMetadata, finding: &mut Finding<'_>) {
    let name = &tool.name;
    let description = tool.listed_description();
    if description.is_empty() {
        finding(
            Rule::QualityDescription,
            format!("tool `{name}` has no description"),
            "say what it does, when to use it and what it returns: the description is what a model chooses by",
            None,
        );
    } else if repeats(&description, name) {
        finding(
            Rule::QualityDescription,
            format!("the description of `{name}` only repeats its name"),
            "say what it does, when to use it and what it returns",
            None,
        );
    }
    for param in tool.parameters.iter().filter(|p| p.from.is_none()) {
        let pname = &param.name;
        if param.description.trim().is_empty() {
            let (rule, help) = match &param.enum_values {
                Some(values) => (
                    Rule::QualityEnum,
                    format!(
                        "its values ({}) are explained nowhere: say what each one does",
                        values.join(", ")
                    ),
                ),
                None => (
                    Rule::QualityDescription,
                    "say what the value is and its form (units, format, examples)".to_owned(),
                ),
            };
            finding(
                rule,
                format!("parameter `{pname}` of `{name}` has no description"),
                &help,
                Some(pname),
            );
        } else if repeats(&param.description, pname) {
            finding(
                Rule::QualityDescription,
                format!("the description of parameter `{pname}` of `{name}` only repeats its name"),
                "say what the value is and its form (units, format, examples)",
                Some(pname),
            );
        }
    }
}

/// `quality-hints` and `quality-confirm`.
fn hinted(tool: &ToolMetadata, finding: &mut Finding<'_>) {
    let name = &tool.name;
    if tool.hints.read_only != Some(true) && tool.hints.destructive.is_none() {
        finding(
            Rule::QualityHints,
            format!("tool `{name}` says neither `readOnly = true` nor whether it is `destructive`"),
            "hosts ask before a tool that may destroy, and skip asking for one that only reads: say which this is",
            None,
        );
    }
    if tool.hints.destructive == Some(true) && tool.confirm.is_none() {
        finding(
            Rule::QualityConfirm,
            format!("destructive tool `{name}` asks no one before it runs"),
            "add `[confirm]` with a `message` naming what it will destroy",
            None,
        );
    }
}

/// `quality-duplicate`: each pair once, reported at the later tool.
fn duplicates(
    tools: &[LoadedTool],
    files: &[Arc<SourceFile>],
    severity: Severity,
    found: &mut Vec<Diagnostic>,
) {
    let words: Vec<String> = tools
        .iter()
        .map(|t| t.tool.listed_description().to_lowercase())
        .collect();
    for (j, later) in tools.iter().enumerate() {
        for (i, earlier) in tools.iter().enumerate().take(j) {
            if words[i].is_empty() || words[j].is_empty() {
                continue;
            }
            let alike = strsim::normalized_levenshtein(&words[i], &words[j]);
            if alike < NEAR_DUPLICATE {
                continue;
            }
            let mut diagnostic = Diagnostic::error(
                Rule::QualityDuplicate,
                files[j].clone(),
                format!(
                    "the descriptions of `{}` and `{}` are nearly the same ({:.0}% alike)",
                    earlier.tool.name,
                    later.tool.name,
                    alike * 100.0
                ),
            )
            .with_help("a model cannot tell them apart: say what each does that the other does not")
            .with_severity(severity);
            if let Some(span) = find_key(files[j].text(), "description") {
                diagnostic = diagnostic.with_primary(span, "here");
            }
            found.extend(crate::lints::leveled(&later.tool, diagnostic));
        }
    }
}

/// Whether `description` says nothing but the words of `name`
/// (`search_files`: "Search files.").
fn repeats(description: &str, name: &str) -> bool {
    let words = |text: &str| -> Vec<String> {
        text.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect()
    };
    let named = words(name);
    let said = words(description);
    !said.is_empty() && said.iter().all(|w| named.contains(w))
}

#[cfg(test)]
mod tests {
    use super::repeats;

    #[test]
    fn a_description_of_only_the_names_words_repeats_it() {
        assert!(repeats("Search files.", "search_files"));
        assert!(repeats("files", "search_files"));
        assert!(!repeats(
            "Search file contents for a pattern",
            "search_files"
        ));
        assert!(!repeats("", "search_files"));
    }
}
