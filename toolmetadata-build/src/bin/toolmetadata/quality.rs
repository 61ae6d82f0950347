//! What `check --quality` adds to the report: the token counts against
//! their limits, on stderr or in the JSON report.

use toolmetadata_build::Severity;
use toolmetadata_build::tokens::{Budget, Counts, ENCODING};

/// The check as one JSON object: every finding, located; with a budget, the
/// token counts against it. Whether a count went past its limit.
pub(crate) fn json_report(
    checked: &toolmetadata_build::Checked,
    budget: Option<Budget>,
) -> (serde_json::Value, bool) {
    use serde_json::json;
    let findings: Vec<serde_json::Value> = checked
        .diagnostics()
        .iter()
        .map(|d| {
            let (line, column) = d
                .line_column()
                .map_or((None, None), |(l, c)| (Some(l), Some(c)));
            json!({
                "rule": d.rule().code(),
                "severity": if d.severity() == Severity::Error { "error" } else { "warning" },
                "file": d.file().path(),
                "line": line,
                "column": column,
                "message": d.message(),
                "help": d.help(),
            })
        })
        .collect();
    let mut report = json!({ "findings": findings });
    let mut over_any = false;
    if let Some(budget) = budget {
        let counts = Counts::of(checked);
        let over = counts.over(budget);
        over_any = !over.is_empty();
        report["tokens"] = json!({
            "encoding": ENCODING,
            "tools": counts.tools.iter().map(|(name, n)| json!({"tool": name, "tokens": n})).collect::<Vec<_>>(),
            "catalog": counts.catalog,
            "groups": counts.groups.iter().map(|(group, tools, n)| json!({"group": group, "tools": tools, "tokens": n})).collect::<Vec<_>>(),
            "limits": {"tool": budget.per_tool, "catalog": budget.catalog},
            "over": over,
        });
    }
    (report, over_any)
}

/// Prints each tool's token count and the catalog's against `budget` on
/// stderr, and an error for each past it; whether any was.
pub(crate) fn token_report(checked: &toolmetadata_build::Checked, budget: Budget) -> bool {
    let counts = Counts::of(checked);
    for (name, n) in &counts.tools {
        eprintln!(
            "tokens ({ENCODING}): {name} {n} (at most {})",
            budget.per_tool
        );
    }
    eprintln!(
        "tokens ({ENCODING}): the catalog of {} tools {} (at most {})",
        counts.tools.len(),
        counts.catalog,
        budget.catalog
    );
    for (group, tools, n) in &counts.groups {
        eprintln!("tokens ({ENCODING}): the group {group} of {tools} tools {n}");
    }
    let over = counts.over(budget);
    for sentence in &over {
        eprintln!("error: {sentence}");
    }
    !over.is_empty()
}
