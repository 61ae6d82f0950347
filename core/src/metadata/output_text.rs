//! `outputText` (ext): the text a tool's structured result is shown as, from
//! a template whose `{field}` placeholders name its `[[output]]` fields. The
//! build checks each placeholder against the fields and their types; the
//! generated code renders the text from the handler's typed output, beside
//! `structuredContent`.
//!
//! A placeholder is `{field}` (a string as it is, a number or a bool as
//! JSON writes it, an array's items joined by `", "`), `{field:lines}` (an
//! array's items one per line), `{field:count}` (how many items an array
//! has) or `{field:.N}` (a `float` with `N` decimals, 0 to 9). An optional field that is absent shows as nothing. `{{` and `}}`
//! are literal braces.

use std::fmt::Write;

use serde_json::Value;

use super::types::{MessagePart, message_parts};

/// How a placeholder shows its field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shown {
    /// `{field}`: the value.
    Value,
    /// `{field:count}`: how many items an array has.
    Count,
    /// `{field:lines}`: an array's items, one per line.
    Lines,
    /// `{field:.N}`: a float with `N` decimals.
    Decimals(u8),
}

/// One piece of a template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextPart<'a> {
    /// Literal text (braces unescaped).
    Text(&'a str),
    /// A placeholder: the field it names, and how it shows it.
    Field {
        /// The output field's name.
        name: &'a str,
        /// How its value is shown.
        shown: Shown,
    },
}

/// Splits a template into text and placeholders; an error says what is
/// wrong (a brace that pairs with none, an unknown format).
pub fn text_parts(template: &str) -> Result<Vec<TextPart<'_>>, String> {
    message_parts(template)?
        .into_iter()
        .map(|part| match part {
            MessagePart::Text(text) => Ok(TextPart::Text(text)),
            MessagePart::Placeholder(inner) => {
                let (name, format) = match inner.split_once(':') {
                    Some((name, format)) => (name, Some(format)),
                    None => (inner, None),
                };
                let shown = match format {
                    None => Shown::Value,
                    Some("count") => Shown::Count,
                    Some("lines") => Shown::Lines,
                    Some(format) => match format.as_bytes() {
                        [b'.', digit] if digit.is_ascii_digit() => Shown::Decimals(digit - b'0'),
                        _ => {
                            return Err(format!(
                                "`{{{inner}}}` has the format `{format}`, which is none of `count` (an array's length), `lines` (its items one per line) and `.N` (a float's decimals, 0 to 9)"
                            ));
                        }
                    },
                };
                Ok(TextPart::Field { name, shown })
            }
        })
        .collect()
}

/// The text of `structured` (a tool's output object) by `template`. A
/// template the build did not check, which does not parse, shows the JSON.
pub fn render(template: &str, structured: &Value) -> String {
    let Ok(parts) = text_parts(template) else {
        return structured.to_string();
    };
    let mut text = String::with_capacity(template.len() + 32);
    for part in parts {
        match part {
            TextPart::Text(literal) => text.push_str(literal),
            TextPart::Field { name, shown } => show(&mut text, structured.get(name), shown),
        }
    }
    text
}

fn show(text: &mut String, value: Option<&Value>, shown: Shown) {
    match (value, shown) {
        (None | Some(Value::Null), _) => {}
        (Some(Value::Array(items)), Shown::Count) => {
            let _ = write!(text, "{}", items.len());
        }
        (Some(Value::Number(n)), Shown::Decimals(digits)) => {
            let _ = write!(
                text,
                "{:.*}",
                usize::from(digits),
                n.as_f64().unwrap_or_default()
            );
        }
        (Some(Value::Array(items)), _) => {
            let between = if shown == Shown::Lines { "\n" } else { ", " };
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    text.push_str(between);
                }
                scalar(text, item);
            }
        }
        (Some(value), _) => scalar(text, value),
    }
}

fn scalar(text: &mut String, value: &Value) {
    match value {
        Value::String(s) => text.push_str(s),
        other => {
            let _ = write!(text, "{other}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_kind_of_field_is_shown_as_documented() {
        let output = json!({"count": 3, "folder": "inbox", "mean": 2.0 / 3.0,
            "tags": ["a", "b"], "flags": [true, false], "done": true});
        let text = |template| render(template, &output);
        assert_eq!(
            text("Found {count} notes in {folder}"),
            "Found 3 notes in inbox"
        );
        assert_eq!(text("mean {mean:.2}, {mean:.0}"), "mean 0.67, 1");
        assert_eq!(text("tags: {tags} ({tags:count})"), "tags: a, b (2)");
        assert_eq!(text("{tags:lines}"), "a\nb");
        assert_eq!(text("{flags}; {done}"), "true, false; true");
        assert_eq!(text("{{literal}} {missing}."), "{literal} .");
    }

    #[test]
    fn a_bad_format_or_brace_is_an_error() {
        assert!(text_parts("{count:hex}").is_err());
        assert!(text_parts("{count:.10}").is_err());
        assert!(text_parts("{count").is_err());
        assert_eq!(
            text_parts("a {b:count} c").expect("parses"),
            [
                TextPart::Text("a "),
                TextPart::Field {
                    name: "b",
                    shown: Shown::Count
                },
                TextPart::Text(" c")
            ]
        );
    }
}
