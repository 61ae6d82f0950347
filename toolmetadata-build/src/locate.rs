//! Where a key or a parameter is written in a tool file's text, in any of
//! the formats: for diagnostics about a tool as a whole (its lock, its
//! provider profiles) rather than about one value the reader saw.

use toolmetadata_load::diagnostic::Span;

/// The line of `key` (TOML `key = …` or a `[key]` table, YAML `key: …`,
/// JSON `"key": …`): the first place it starts a line, or else is quoted as
/// a key.
pub(crate) fn find_key(text: &str, key: &str) -> Option<Span> {
    let table = format!("[{key}]");
    let at_line_start = text
        .match_indices(key)
        .map(|(at, _)| at)
        .chain(text.match_indices(&table).map(|(at, _)| at))
        .filter(|&at| text[..at].ends_with('\n') || at == 0)
        .min();
    let quoted = format!("\"{key}\"");
    let at = at_line_start.or_else(|| text.find(&quoted).map(|at| at + 1))?;
    let end = text[at..].find('\n').map_or(text.len(), |n| at + n);
    Some(Span::new(at, end.max(at + key.len())))
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
    let after_key = key_at + text[key_at..].find(key)? + key.len();
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
