//! Discovery mode (FORMAT.md "Discovery"): the two meta-tools' entries and
//! Go's scoring table that `tool_search` ranks tools by. The catalog
//! searches; `execute_tool` runs a tool like `tools/call` (`requests`).

use serde_json::{Value, json};

/// A tool as the search sees it.
pub(crate) struct Candidate<'a> {
    pub(crate) name: &'a str,
    pub(crate) description: &'a str,
    pub(crate) keywords: &'a [String],
}

/// The meta-tools' names.
pub(crate) const TOOL_SEARCH: &str = "tool_search";
pub(crate) const EXECUTE_TOOL: &str = "execute_tool";

/// The `tools/list` entries of the two meta-tools.
pub(crate) fn meta_tool_entries() -> [Value; 2] {
    [
        json!({
            "name": TOOL_SEARCH,
            "description": "Search the available tools by name, keyword or description. Returns the best matches with their input schemas; call one with execute_tool.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "Words to look for; empty lists every tool"},
                    "max_results": {"type": "number", "description": "How many tools to return (1 to 100)", "default": 5}
                },
                "additionalProperties": false
            },
            "annotations": {"readOnlyHint": true, "openWorldHint": false}
        }),
        json!({
            "name": EXECUTE_TOOL,
            "description": "Call a tool found with tool_search, by name, with its parameters.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "The tool's name"},
                    "parameters": {"type": "object", "description": "The tool's arguments, as its input schema describes"}
                },
                "required": ["name"],
                "additionalProperties": false
            }
        }),
    ]
}

/// The sentence the server's instructions gain when discoverable tools exist.
pub(crate) const INSTRUCTIONS: &str = "More tools are available than are listed: find them with tool_search (by name, keyword or description) and call them with execute_tool.";

/// The scores of the candidates for a query, from 0 (no match) to 1, by Go's
/// table; when no candidate matches at all, by fuzzy matching instead.
pub(crate) fn scores(query: &str, tools: &[Candidate<'_>]) -> Vec<f64> {
    let query = query.trim().to_lowercase();
    if query.is_empty() {
        return vec![1.0; tools.len()];
    }
    let words: Vec<&str> = query.split_whitespace().collect();
    let exact: Vec<f64> = tools
        .iter()
        .map(|t| exact_score(&query, &words, t))
        .collect();
    if exact.iter().any(|s| *s > 0.0) {
        exact
    } else {
        tools.iter().map(|t| fuzzy_score(&words, t)).collect()
    }
}

fn exact_score(query: &str, words: &[&str], tool: &Candidate<'_>) -> f64 {
    let whole = term_score(query, tool);
    if words.len() > 1 {
        let average = words.iter().map(|w| term_score(w, tool)).sum::<f64>() / words.len() as f64;
        whole.max(average)
    } else {
        whole
    }
}

/// Go's table, for one term (already lower case).
fn term_score(term: &str, tool: &Candidate<'_>) -> f64 {
    let name = tool.name.to_lowercase();
    let tokens: Vec<&str> = name.split(['_', '-']).filter(|t| !t.is_empty()).collect();
    let keywords: Vec<String> = tool.keywords.iter().map(|k| k.to_lowercase()).collect();
    let description = tool.description.to_lowercase();
    if name == term {
        1.0
    } else if name.starts_with(term) {
        0.95
    } else if tokens.contains(&term) {
        0.92
    } else if tokens.iter().any(|t| t.starts_with(term)) {
        0.90
    } else if keywords.iter().any(|k| k == term) {
        0.85
    } else if name.contains(term) {
        0.80
    } else if keywords.iter().any(|k| k.contains(term)) {
        0.70
    } else if description
        .split(|c: char| !c.is_alphanumeric())
        .any(|w| w == term)
    {
        0.60
    } else if description.contains(term) {
        0.50
    } else {
        0.0
    }
}

/// When nothing matches exactly: a misspelt word close to a name token or
/// keyword (Jaro-Winkler ≥ 0.85, from `strsim`) scores below every exact rule.
fn fuzzy_score(words: &[&str], tool: &Candidate<'_>) -> f64 {
    let name = tool.name.to_lowercase();
    let mut targets: Vec<String> = name.split(['_', '-']).map(str::to_owned).collect();
    targets.extend(tool.keywords.iter().map(|k| k.to_lowercase()));
    let best = words
        .iter()
        .flat_map(|w| targets.iter().map(move |t| strsim::jaro_winkler(w, t)))
        .fold(0.0, f64::max);
    if best >= 0.85 {
        (0.4 * best * 100.0).round() / 100.0
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn candidate<'a>(name: &'a str, description: &'a str, keywords: &'a [String]) -> Candidate<'a> {
        Candidate {
            name,
            description,
            keywords,
        }
    }

    #[test]
    fn the_scoring_table() {
        let kw = vec!["shell".to_owned(), "filesystem".to_owned()];
        let t = candidate("read_file", "Read a text file from disk", &kw);
        let score = |q: &str, t: &Candidate<'_>| scores(q, std::slice::from_ref(t))[0];
        for (query, expected) in [
            ("read_file", 1.0),
            ("READ_FILE", 1.0),
            ("read_f", 0.95),
            ("file", 0.92),
            ("fil", 0.90),
            ("shell", 0.85),
            ("d_fi", 0.80),
            ("system", 0.70),
            ("disk", 0.60),
            ("tex", 0.50),
            ("", 1.0),
            ("zzz", 0.0),
        ] {
            assert_eq!(score(query, &t), expected, "{query}");
        }
        // Two words: the average of their scores.
        assert!((score("file disk", &t) - (0.92 + 0.60) / 2.0).abs() < 1e-9);
        // A misspelling matches fuzzily, below every exact rule, but only when
        // nothing matches exactly.
        let other = candidate("fail", "", &[]);
        let both = [
            candidate("read_file", "Read a text file from disk", &kw),
            other,
        ];
        let fuzzy = scores("fiel", &both);
        assert!(fuzzy[0] > 0.0 && fuzzy[0] < 0.5, "{fuzzy:?}");
        assert_eq!(
            scores("file", &both)[1],
            0.0,
            "no fuzzy match beside exact ones"
        );
    }
}
