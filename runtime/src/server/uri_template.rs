//! URI templates of resource templates (RFC 6570, the two forms resource URIs
//! use): `{name}` matches one path segment, `{+name}` any text including `/`.
//! Matching a URI gives the variables, percent-decoded.

use std::collections::BTreeMap;

/// Longest URI matched: beyond it a read is "not found" before any matching,
/// so a hostile URI cannot make matching slow.
const MAX_URI: usize = 8 * 1024;

#[derive(Debug, Clone, PartialEq)]
enum Part {
    Literal(String),
    /// `{name}`, or `{+name}` when `reserved`.
    Var {
        name: String,
        reserved: bool,
    },
}

/// A parsed URI template.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct UriTemplate {
    parts: Vec<Part>,
}

impl UriTemplate {
    /// Parses `{name}` and `{+name}` expressions; anything else in braces is an
    /// error that says what is supported.
    pub(crate) fn parse(template: &str) -> Result<Self, String> {
        let mut parts = Vec::new();
        let mut rest = template;
        while let Some(open) = rest.find('{') {
            if open > 0 {
                parts.push(Part::Literal(rest[..open].to_owned()));
            }
            let Some(close) = rest[open..].find('}') else {
                return Err(format!("`{template}`: a `{{` is not closed"));
            };
            let expression = &rest[open + 1..open + close];
            let (name, reserved) = match expression.strip_prefix('+') {
                Some(name) => (name, true),
                None => (expression, false),
            };
            if name.is_empty()
                || !name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
            {
                return Err(format!(
                    "`{template}`: `{{{expression}}}` is not supported; use `{{name}}` for one path segment or `{{+name}}` for the rest of the URI"
                ));
            }
            if matches!(parts.last(), Some(Part::Var { .. })) {
                return Err(format!(
                    "`{template}`: two variables side by side cannot be told apart; put text between them"
                ));
            }
            parts.push(Part::Var {
                name: name.to_owned(),
                reserved,
            });
            rest = &rest[open + close + 1..];
        }
        if rest.contains('}') {
            return Err(format!("`{template}`: a `}}` closes no `{{`"));
        }
        if !rest.is_empty() {
            parts.push(Part::Literal(rest.to_owned()));
        }
        Ok(UriTemplate { parts })
    }

    /// The variable names, in order.
    pub(crate) fn variables(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|p| match p {
            Part::Var { name, .. } => Some(name.as_str()),
            Part::Literal(_) => None,
        })
    }

    /// The variables of `uri`, when it matches.
    pub(crate) fn matches(&self, uri: &str) -> Option<BTreeMap<String, String>> {
        if uri.len() > MAX_URI {
            return None;
        }
        let mut values = BTreeMap::new();
        match_parts(&self.parts, uri, &mut values).then_some(values)
    }
}

/// Literals match exactly; a variable takes as little text as lets the rest
/// match. Variables are never adjacent (parsing refuses it), so each choice is
/// fixed by the next literal's position: at most one scan per literal.
fn match_parts(parts: &[Part], uri: &str, values: &mut BTreeMap<String, String>) -> bool {
    match parts.split_first() {
        None => uri.is_empty(),
        Some((Part::Literal(text), rest)) => uri
            .strip_prefix(text.as_str())
            .is_some_and(|after| match_parts(rest, after, values)),
        Some((Part::Var { name, reserved }, rest)) => {
            let allowed = |c: char| *reserved || !matches!(c, '/' | '?' | '#');
            let end = match rest.first() {
                // The variable ends where the next literal starts.
                Some(Part::Literal(next)) => {
                    let Some(at) = uri.find(next.as_str()) else {
                        return false;
                    };
                    // `{+x}` before a literal that recurs takes the longest
                    // match, as a path is meant to.
                    if *reserved {
                        uri.rfind(next.as_str()).unwrap_or(at)
                    } else {
                        at
                    }
                }
                _ => uri.len(),
            };
            let raw = &uri[..end];
            if raw.is_empty() || !raw.chars().all(allowed) {
                return false;
            }
            let Some(value) = percent_decode(raw) else {
                return false;
            };
            values.insert(name.clone(), value);
            match_parts(rest, &uri[end..], values)
        }
    }
}

/// `%XX` escapes decoded; `None` for a broken escape or text that is not
/// UTF-8 once decoded.
fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes.get(i + 1..i + 3)?;
            let hex = std::str::from_utf8(hex).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(template: &str, uri: &str) -> Option<Vec<(String, String)>> {
        UriTemplate::parse(template)
            .expect("template")
            .matches(uri)
            .map(|m| m.into_iter().collect())
    }

    #[test]
    fn segments_and_paths() {
        assert_eq!(
            vars("file:///{+path}", "file:///src/main.rs"),
            Some(vec![("path".into(), "src/main.rs".into())])
        );
        assert_eq!(
            vars("users://{id}/profile", "users://42/profile"),
            Some(vec![("id".into(), "42".into())])
        );
        assert_eq!(vars("users://{id}/profile", "users://4/2/profile"), None);
        assert_eq!(vars("users://{id}/profile", "users:///profile"), None);
        assert_eq!(
            vars("notes://{name}", "notes://a%20b%C3%A9"),
            Some(vec![("name".into(), "a bé".into())])
        );
        assert_eq!(vars("notes://{name}", "notes://bad%zz"), None);
        assert_eq!(vars("notes://{name}", "other://x"), None);
        assert_eq!(
            vars("repo://{owner}/{+path}.md", "repo://me/docs/a.md/b.md"),
            Some(vec![
                ("owner".into(), "me".into()),
                ("path".into(), "docs/a.md/b".into())
            ])
        );
    }

    #[test]
    fn unsupported_templates_say_what_is_supported() {
        for bad in ["x://{/path}", "x://{a}{b}", "x://{a", "x://a}", "x://{}"] {
            assert!(UriTemplate::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_huge_uri_is_refused_before_matching() {
        let template = UriTemplate::parse("x://{+a}/y").expect("template");
        assert!(
            template
                .matches(&format!("x://{}", "a/".repeat(10_000)))
                .is_none()
        );
    }
}
