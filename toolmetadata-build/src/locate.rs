//! Where a key or a parameter is written in a tool file's text, in any of
//! the formats: for diagnostics about a tool as a whole (its lock, its
//! provider profiles) rather than about one value the reader saw.

use toolmetadata_load::diagnostic::Span;

/// The line of `key` (TOML `key = …` or a `[key]` table, YAML `key: …`,
/// JSON `"key": …`), matched without regard to case as the reader matches
/// keys: of the lines that start with it as a key (followed by `=` or `:`),
/// the least indented one, which is the tool's own rather than a nested
/// table's; or else, in JSON on one line, the first `"key"` followed by `:`.
/// The span runs from the key (or its table's `[`) to the end of its line.
pub(crate) fn find_key(text: &str, key: &str) -> Option<Span> {
    let mut best: Option<(usize, usize, usize)> = None;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let body = line.trim_start();
        let indent = line.len() - body.len();
        if let Some(skip) = key_starting(body, key)
            && best.is_none_or(|(least, _, _)| indent < least)
        {
            let end = offset + line.trim_end().len();
            best = Some((indent, offset + indent + skip, end));
        }
        offset += line.len();
    }
    if let Some((_, at, end)) = best {
        return Some(Span::new(at, end.max(at + key.len())));
    }
    let lower = text.to_ascii_lowercase();
    let quoted = format!("\"{}\"", key.to_ascii_lowercase());
    let at = lower
        .match_indices(&quoted)
        .map(|(at, _)| at)
        .find(|&at| text[at + quoted.len()..].trim_start().starts_with(':'))?
        + 1;
    let end = text[at..].find('\n').map_or(text.len(), |n| at + n);
    Some(Span::new(
        at,
        text[..end].trim_end().len().max(at + key.len()),
    ))
}

/// Where the span of `key` starts in `line` (its text after the
/// indentation) when the line writes it as a key: `key =`, `key:`,
/// `"key":` (then past the quote) or the table `[key]` (then at the `[`).
fn key_starting(line: &str, key: &str) -> Option<usize> {
    let is_key = |s: &str| {
        s.get(..key.len())
            .is_some_and(|k| k.eq_ignore_ascii_case(key))
    };
    if let Some(inside) = line.strip_prefix('[') {
        return (is_key(inside) && inside[key.len()..].starts_with(']')).then_some(0);
    }
    let (skip, name) = match line.strip_prefix('"') {
        Some(name) => (1, name),
        None => (0, line),
    };
    if !is_key(name) {
        return None;
    }
    let after = &name[key.len()..];
    let after = if skip == 1 {
        after.strip_prefix('"')?
    } else {
        after
    };
    after.trim_start().starts_with(['=', ':']).then_some(skip)
}

/// The quoted name of parameter `name` where it is declared (after a
/// `name` key), in any of the formats.
pub(crate) fn find_param(text: &str, name: &str) -> Option<Span> {
    let quoted = format!("\"{name}\"");
    let mut from = 0;
    while let Some(found) = text[from..].find(&quoted) {
        let at = from + found;
        let before = text[..at].trim_end();
        let before = before
            .strip_suffix('=')
            .or_else(|| before.strip_suffix(':'))
            .map(str::trim_end);
        if before.is_some_and(|b| b.ends_with("name") || b.ends_with("\"name\"")) {
            return Some(Span::new(at, at + quoted.len()));
        }
        from = at + quoted.len();
    }
    None
}

/// Where `item` is written in the list of `key` (`toolGroups = ["read"]`,
/// `"toolGroups": [...]`, or a YAML list of one item a line): the item as a
/// whole token (quoted or not) within the list's own text, never a longer
/// name that holds it nor a value further down the file.
pub(crate) fn find_item(text: &str, key: &str, item: &str) -> Option<Span> {
    let key_at = find_key(text, key)?.start;
    let after_key = key_at
        + text[key_at..]
            .to_ascii_lowercase()
            .find(&key.to_ascii_lowercase())?
        + key.len();
    let value = after_key + text[after_key..].find(['=', ':'])? + 1;
    let rest = &text[value..];
    let list_len = match rest.trim_start().strip_prefix('[') {
        Some(inside) => rest.len() - inside.len() + inside.find(']')?,
        // YAML's block list: the lines that are items (or blank).
        None => {
            let mut len = rest.find('\n').map_or(rest.len(), |n| n + 1);
            for line in rest[len..].split_inclusive('\n') {
                let trimmed = line.trim_start();
                if !(trimmed.is_empty() || trimmed.starts_with('-')) {
                    break;
                }
                len += line.len();
            }
            len
        }
    };
    let list = &rest[..list_len];
    let name_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '~');
    let mut from = 0;
    while let Some(found) = list[from..].find(item) {
        let at = from + found;
        let end = at + item.len();
        let before = list[..at].chars().next_back();
        let after = list[end..].chars().next();
        if !before.is_some_and(name_char) && !after.is_some_and(name_char) {
            let quoted = before == Some('"') && after == Some('"')
                || before == Some('\'') && after == Some('\'');
            let (start, stop) = if quoted { (at - 1, end + 1) } else { (at, end) };
            return Some(Span::new(value + start, value + stop));
        }
        from = end;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_are_found_where_they_are_named() {
        let toml = "description = \"the \\\"q\\\" tool\"\n[[parameters]]\nname = \"q\"\n";
        let span = find_param(toml, "q").expect("found");
        assert_eq!(&toml[span.start..span.end], "\"q\"");
        assert!(span.start > 20, "not the description's");
        let json = r#"{"parameters":[{"name": "q", "type":"string"}]}"#;
        let span = find_param(json, "q").expect("found");
        assert_eq!(&json[span.start..span.end], "\"q\"");
        assert_eq!(find_param(json, "r"), None);
    }

    /// The key itself, in each format, whatever its case, and not a line
    /// that only starts with its letters, a longer key, a nested table's key
    /// or the same word as a value.
    #[test]
    fn keys_are_found_where_they_are_keys() {
        let shown = |text: &'static str, key: &str| {
            find_key(text, key).map(|span| &text[span.start..span.end])
        };
        let toml = "description = \"\"\"\nscopes are checked\n\"\"\"\ntasks = 1\nScopes = [\"a\"]\r\n[limits]\nrate = 1\n";
        assert_eq!(shown(toml, "scopes"), Some("Scopes = [\"a\"]"));
        assert_eq!(shown(toml, "limits"), Some("[limits]"));
        assert_eq!(shown(toml, "task"), None);
        let yaml = "parameters:\n  - name: q\n    description: nested\ndescription: top\n";
        assert_eq!(shown(yaml, "description"), Some("description: top"));
        let json = "{\n  \"parameters\": [\n    {\"name\": \"scopes\", \"description\": \"d\"}\n  ],\n  \"scopes\": [\"a\"]\n}\n";
        assert_eq!(shown(json, "scopes"), Some("scopes\": [\"a\"]"));
        let minified = r#"{"parameters":[{"name":"scopes"}],"SCOPES" : ["a"]}"#;
        assert_eq!(shown(minified, "scopes"), Some(r#"SCOPES" : ["a"]}"#));
        assert_eq!(shown(r#"{"keywords":["scopes"]}"#, "scopes"), None);
    }

    /// Hostile text never panics the search: a multi-byte character where
    /// the key or its quote would end, a key cut off at the end of the text,
    /// an unclosed table or quote.
    #[test]
    fn odd_text_is_searched_without_panicking() {
        for text in [
            "",
            "scopes",
            "scopeś = 1",
            "scopé",
            "[scopes",
            "[scopesé]",
            "\"scopes",
            "\"scopesé\": 1",
            "\"scopes\"",
            "{\"scopes\"",
            "{\"scopesé\":1}",
            "é\"scopes\" :",
            "\u{feff}scopes = 1",
            "\n\n  \t",
            "\r\nscopes:\r\n",
        ] {
            let _ = find_key(text, "scopes");
            let _ = find_item(text, "scopes", "a");
        }
        assert_eq!(
            find_key("\r\nscopes:\r\n", "scopes").map(|s| s.start),
            Some(2)
        );
        // A megabyte on one line, the key at its end: found, in one pass.
        let huge = format!(
            "{{\"description\":\"{}\",\"Scopes\":[\"a\"]}}",
            "é \\\"".repeat(1 << 18)
        );
        let span = find_key(&huge, "scopes").expect("found");
        assert_eq!(&huge[span.start..span.start + 6], "Scopes");
    }

    #[test]
    fn list_items_are_found_after_their_key() {
        let toml = "description = \"read\"\ntoolGroups = [\"write\", \"read\"]\n";
        let span = find_item(toml, "toolGroups", "read").expect("found");
        assert_eq!(&toml[span.start..span.end], "\"read\"");
        assert!(span.start > 30, "not the description's");
        let yaml = "description: read\ntoolGroups:\n  - tool\n  - read\nname: x\n";
        let span = find_item(yaml, "toolGroups", "read").expect("found");
        assert_eq!(&yaml[span.start..span.end], "read");
        assert!(span.start > 30, "not the description's");
        // Not inside the key, not in a longer name, not past the list.
        assert_eq!(
            find_item(yaml, "toolGroups", "tool").map(|s| &yaml[s.start..s.end]),
            Some("tool")
        );
        let flow = "toolGroups: [reader, read]\n";
        let span = find_item(flow, "toolGroups", "read").expect("found");
        assert_eq!(span.start, 21);
        let later = "toolGroups = ['read']\n\n[[parameters]]\nname = \"read\"\n";
        let span = find_item(later, "toolGroups", "read").expect("found");
        assert_eq!(&later[span.start..span.end], "'read'");
        assert_eq!(find_item(later, "toolGroups", "write"), None);
    }
}
