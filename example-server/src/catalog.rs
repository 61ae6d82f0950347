//! `--list`: the tool catalog as a table.

use serde_json::Value;

use crate::tools::TOOL_ENTRIES;

/// One row per tool: name, title, hints, parameters (`*` marks required ones).
pub(crate) fn table(read_only: bool) -> String {
    let mut rows = vec![[
        "NAME".to_owned(),
        "TITLE".to_owned(),
        "HINTS".to_owned(),
        "PARAMETERS".to_owned(),
    ]];
    for entry in TOOL_ENTRIES {
        let tool: Value = serde_json::from_str(entry.entry_json).unwrap_or(Value::Null);
        let hints = &tool["annotations"];
        if read_only && hints["readOnlyHint"] != Value::Bool(true) {
            continue;
        }
        let mut flags: Vec<&str> = Vec::new();
        for (key, yes, no) in [
            ("readOnlyHint", "read-only", "writes"),
            ("destructiveHint", "destructive", "non-destructive"),
            ("idempotentHint", "idempotent", ""),
            ("openWorldHint", "open-world", "local"),
        ] {
            match hints[key].as_bool() {
                Some(true) => flags.push(yes),
                Some(false) if !no.is_empty() => flags.push(no),
                _ => {}
            }
        }
        if entry.discoverable {
            flags.push("discoverable");
        }
        let schema = &tool["inputSchema"];
        let required: Vec<&str> = schema["required"]
            .as_array()
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let params: Vec<String> = schema["properties"]
            .as_object()
            .map(|props| {
                props
                    .iter()
                    .map(|(name, p)| {
                        let ty = match p["type"].as_str() {
                            Some("array") => {
                                format!("{}[]", p["items"]["type"].as_str().unwrap_or("?"))
                            }
                            Some(t) => t.to_owned(),
                            None => "?".to_owned(),
                        };
                        let star = if required.contains(&name.as_str()) {
                            "*"
                        } else {
                            ""
                        };
                        format!("{name}{star}:{ty}")
                    })
                    .collect()
            })
            .unwrap_or_default();
        rows.push([
            entry.name.to_owned(),
            tool["title"].as_str().unwrap_or("").to_owned(),
            flags.join(", "),
            params.join(" "),
        ]);
    }
    let widths: Vec<usize> = (0..3)
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for row in &rows {
        for (c, width) in widths.iter().enumerate() {
            out.push_str(&format!("{:<width$}  ", row[c], width = width));
        }
        out.push_str(&row[3]);
        out.push('\n');
    }
    out
}
