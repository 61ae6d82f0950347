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

use toolmetadata_load::metadata::ToolMetadata;
use toolmetadata_load::{Diagnostic, Rule, Severity, SourceFile};

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

/// `quality-duplicate`: once per tool that is nearly the same as an earlier
/// one, at the later tool, naming the first such (200 tools described alike
/// are 199 findings, not 19,900, and a tool is compared with the earlier
/// ones only until one is alike).
fn duplicates(
    tools: &[LoadedTool],
    files: &[Arc<SourceFile>],
    severity: Severity,
    found: &mut Vec<Diagnostic>,
) {
    let words: Vec<Vec<char>> = tools
        .iter()
        .map(|t| t.tool.listed_description().to_lowercase().chars().collect())
        .collect();
    for (j, later) in tools.iter().enumerate() {
        let Some((earlier, alike)) =
            (0..j).find_map(|i| Some((&tools[i], similarity(&words[i], &words[j])?)))
        else {
            continue;
        };
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

/// How alike two non-empty descriptions are, as strsim's
/// `normalized_levenshtein` says, when it is at least [`NEAR_DUPLICATE`].
fn similarity(a: &[char], b: &[char]) -> Option<f64> {
    if a.is_empty() || b.is_empty() {
        return None;
    }
    let longest = a.len().max(b.len()) as f64;
    // The most edits that can still be alike enough (rounded up; the exact
    // test is below), so that the distance is computed only near the diagonal.
    let limit = ((1.0 - NEAR_DUPLICATE) * longest).ceil() as usize;
    let alike = 1.0 - distance_within(a, b, limit)? as f64 / longest;
    (alike >= NEAR_DUPLICATE).then_some(alike)
}

/// The Levenshtein distance of `a` and `b` when it is at most `limit`.
/// Only the cells within `limit` of the diagonal are computed, and it stops
/// once a whole row is past `limit`: each description is compared with every
/// other one, and build scripts run unoptimised in debug builds, where
/// strsim's full table for 200 tools took seconds.
fn distance_within(a: &[char], b: &[char], limit: usize) -> Option<usize> {
    let (a, b) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if b.len() - a.len() > limit {
        return None;
    }
    // Any value over `limit` is as good as infinite: capped, nothing overflows.
    let far = limit + 1;
    // `row[j]`: the distance between `a[..i]` and `b[..j]`, for the `j`
    // within the band; cells past the band's right end still hold `far`.
    let mut row: Vec<usize> = (0..=b.len()).map(|j| j.min(far)).collect();
    for (i, &ca) in (1usize..).zip(a) {
        let low = i.saturating_sub(limit).max(1);
        let high = (i + limit).min(b.len());
        let mut diagonal = row[low - 1];
        let mut left = if low == 1 { i.min(far) } else { far };
        row[low - 1] = left;
        let mut best = left;
        // Plain comparisons, not `min`: unoptimised, each call is a call.
        for (cell, &cb) in row[low..=high].iter_mut().zip(&b[low - 1..high]) {
            let above = *cell;
            let mut value = if ca == cb { diagonal } else { diagonal + 1 };
            if above + 1 < value {
                value = above + 1;
            }
            if left + 1 < value {
                value = left + 1;
            }
            if value > far {
                value = far;
            }
            if value < best {
                best = value;
            }
            diagonal = above;
            *cell = value;
            left = value;
        }
        if best > limit {
            return None;
        }
    }
    let distance = row[b.len()];
    (distance <= limit).then_some(distance)
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
    use super::{distance_within, repeats, similarity};

    /// Strings of `a`, `b` and `é` from a fixed pseudo-random sequence.
    fn strings() -> Vec<Vec<char>> {
        let mut state = 0x2545_f491_u32;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state
        };
        (0..120)
            .map(|_| {
                let len = (next() % 14) as usize;
                (0..len)
                    .map(|_| ['a', 'b', 'é'][(next() % 3) as usize])
                    .collect()
            })
            .collect()
    }

    #[test]
    fn the_banded_distance_is_strsims_wherever_it_is_within_the_limit() {
        let strings = strings();
        for a in &strings {
            for b in &strings {
                let (sa, sb): (String, String) = (a.iter().collect(), b.iter().collect());
                let full = strsim::levenshtein(&sa, &sb);
                for limit in 0..8 {
                    let banded = distance_within(a, b, limit);
                    assert_eq!(
                        banded,
                        (full <= limit).then_some(full),
                        "{sa:?} {sb:?} {limit}"
                    );
                }
                let alike = strsim::normalized_levenshtein(&sa, &sb);
                let wanted = (!a.is_empty() && !b.is_empty() && alike >= super::NEAR_DUPLICATE)
                    .then_some(alike);
                assert_eq!(similarity(a, b), wanted, "{sa:?} {sb:?}");
            }
        }
    }

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
