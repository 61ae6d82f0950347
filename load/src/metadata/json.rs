//! A strict JSON (RFC 8259) reader that keeps the span of every key and value.
//!
//! `serde_json` gives no positions for values and merges repeated keys, and the
//! format needs both: a diagnostic must point at the bad value, and a key given
//! twice is an error. Strings, numbers and nesting follow RFC 8259 exactly; a lone
//! surrogate escape is an error, as is nesting deeper than [`MAX_DEPTH`].

use super::toml::SyntaxError;
use super::tree::{Entry, Node, Value};
use crate::diagnostic::Span;

/// Deeper nesting is refused rather than risking the stack.
pub(crate) const MAX_DEPTH: usize = 128;

/// Parses one JSON document starting at byte `start` of `text`; spans are offsets
/// into `text`.
pub(crate) fn parse(text: &str, start: usize) -> Result<Node, SyntaxError> {
    let mut parser = Parser {
        text,
        bytes: text.as_bytes(),
        pos: start,
    };
    parser.skip_whitespace();
    let node = parser.value(0)?;
    parser.skip_whitespace();
    if parser.pos < parser.bytes.len() {
        return Err(parser.error_here("after top-level value"));
    }
    Ok(node)
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
}

impl Parser<'_> {
    fn skip_whitespace(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn fail(&self, message: impl Into<String>, start: usize) -> SyntaxError {
        let end = self.text[start..]
            .chars()
            .next()
            .map_or(start, |c| start + c.len_utf8());
        SyntaxError {
            message: message.into(),
            span: Span::new(start, end),
        }
    }

    /// "unexpected end of JSON input", or "invalid character 'x' {context}".
    fn error_here(&self, context: &str) -> SyntaxError {
        match self.text[self.pos..].chars().next() {
            None => self.fail("unexpected end of JSON input", self.pos),
            Some(c) => self.fail(format!("invalid character {c:?} {context}"), self.pos),
        }
    }

    fn value(&mut self, depth: usize) -> Result<Node, SyntaxError> {
        if depth > MAX_DEPTH {
            return Err(self.fail(format!("nesting deeper than {MAX_DEPTH} levels"), self.pos));
        }
        let start = self.pos;
        let value = match self.peek() {
            Some(b'{') => self.object(depth)?,
            Some(b'[') => self.array(depth)?,
            Some(b'"') => Value::String(self.string()?),
            Some(b'-' | b'0'..=b'9') => self.number()?,
            Some(b't') => self.literal("true", Value::Bool(true))?,
            Some(b'f') => self.literal("false", Value::Bool(false))?,
            Some(b'n') => self.literal("null", Value::Null)?,
            _ => return Err(self.error_here("looking for beginning of value")),
        };
        Ok(Node {
            span: Span::new(start, self.pos),
            value,
        })
    }

    fn literal(&mut self, word: &str, value: Value) -> Result<Value, SyntaxError> {
        for expected in word.bytes() {
            if self.peek() != Some(expected) {
                return Err(self.error_here(&format!("in literal {word}")));
            }
            self.pos += 1;
        }
        Ok(value)
    }

    fn object(&mut self, depth: usize) -> Result<Value, SyntaxError> {
        self.pos += 1; // '{'
        let mut entries = Vec::new();
        self.skip_whitespace();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(Value::Table(entries));
        }
        loop {
            self.skip_whitespace();
            if self.peek() != Some(b'"') {
                return Err(self.error_here("looking for beginning of object key string"));
            }
            let key_start = self.pos;
            let key = self.string()?;
            let key_span = Span::new(key_start, self.pos);
            self.skip_whitespace();
            if self.peek() != Some(b':') {
                return Err(self.error_here("after object key"));
            }
            self.pos += 1;
            self.skip_whitespace();
            let node = self.value(depth + 1)?;
            entries.push(Entry {
                key,
                key_span,
                node,
            });
            self.skip_whitespace();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Value::Table(entries));
                }
                _ => return Err(self.error_here("after object key:value pair")),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Value, SyntaxError> {
        self.pos += 1; // '['
        let mut items = Vec::new();
        self.skip_whitespace();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(Value::Array(items));
        }
        loop {
            self.skip_whitespace();
            items.push(self.value(depth + 1)?);
            self.skip_whitespace();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Value::Array(items));
                }
                _ => return Err(self.error_here("after array element")),
            }
        }
    }

    fn string(&mut self) -> Result<String, SyntaxError> {
        self.pos += 1; // opening quote
        let mut out = String::new();
        loop {
            let run_start = self.pos;
            while let Some(b) = self.peek() {
                if b == b'"' || b == b'\\' || b < 0x20 {
                    break;
                }
                self.pos += 1;
            }
            out.push_str(&self.text[run_start..self.pos]);
            match self.peek() {
                None => return Err(self.error_here("in string literal")),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some(b'\\') => out.push(self.escape()?),
                Some(_) => return Err(self.error_here("in string literal")),
            }
        }
    }

    fn escape(&mut self) -> Result<char, SyntaxError> {
        let start = self.pos;
        self.pos += 1; // backslash
        let c = match self.peek() {
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'/') => '/',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{c}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(b'u') => {
                self.pos += 1;
                let high = self.hex4()?;
                return match high {
                    0xD800..=0xDBFF => {
                        if self.bytes[self.pos..].starts_with(b"\\u") {
                            self.pos += 2;
                            let low = self.hex4()?;
                            if (0xDC00..=0xDFFF).contains(&low) {
                                let c = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
                                return char::from_u32(c)
                                    .ok_or_else(|| self.fail("invalid escape", start));
                            }
                        }
                        Err(self.lone_surrogate(start, high))
                    }
                    0xDC00..=0xDFFF => Err(self.lone_surrogate(start, high)),
                    _ => char::from_u32(high).ok_or_else(|| self.fail("invalid escape", start)),
                };
            }
            _ => return Err(self.error_here("in string escape code")),
        };
        self.pos += 1;
        Ok(c)
    }

    fn lone_surrogate(&self, start: usize, unit: u32) -> SyntaxError {
        SyntaxError {
            message: format!("lone surrogate escape \\u{unit:04x} in a string"),
            span: Span::new(start, start + 6),
        }
    }

    fn hex4(&mut self) -> Result<u32, SyntaxError> {
        let mut value = 0;
        for _ in 0..4 {
            let digit = match self.peek() {
                Some(b) => (b as char).to_digit(16),
                None => None,
            };
            match digit {
                Some(d) => value = value * 16 + d,
                None => return Err(self.error_here("in \\u hexadecimal character escape")),
            }
            self.pos += 1;
        }
        Ok(value)
    }

    fn number(&mut self) -> Result<Value, SyntaxError> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => self.digits(),
            _ => return Err(self.error_here("in numeric literal")),
        }
        let mut integral = true;
        if self.peek() == Some(b'.') {
            integral = false;
            self.pos += 1;
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.error_here("after decimal point in numeric literal"));
            }
            self.digits();
        }
        if let Some(b'e' | b'E') = self.peek() {
            integral = false;
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            if !matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.error_here("in exponent of numeric literal"));
            }
            self.digits();
        }
        let literal = &self.text[start..self.pos];
        if integral && let Ok(i) = literal.parse::<i64>() {
            return Ok(Value::Integer(i));
        }
        match literal.parse::<f64>() {
            Ok(f) if f.is_finite() => Ok(Value::Float(f)),
            _ => Err(SyntaxError {
                message: format!("number {literal} is out of range"),
                span: Span::new(start, self.pos),
            }),
        }
    }

    fn digits(&mut self) {
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(text: &str) -> Value {
        parse(text, 0).unwrap().value
    }

    fn err(text: &str) -> String {
        parse(text, 0).unwrap_err().message
    }

    #[test]
    fn values_and_spans() {
        let node = parse(
            r#" {"a": [1, -2.5e1, "x\u00e9\ud83d\ude80", true, null]} "#,
            0,
        )
        .unwrap();
        assert_eq!(node.span, Span::new(1, 54));
        let Value::Table(entries) = node.value else {
            panic!()
        };
        assert_eq!(entries[0].key, "a");
        assert_eq!(entries[0].key_span, Span::new(2, 5));
        let Value::Array(items) = &entries[0].node.value else {
            panic!()
        };
        assert_eq!(items[0].value, Value::Integer(1));
        assert_eq!(items[1].value, Value::Float(-25.0));
        assert_eq!(items[2].value, Value::String("xé🚀".into()));
        assert_eq!(items[3].value, Value::Bool(true));
        assert_eq!(items[4].value, Value::Null);
        assert_eq!(items[1].span, Span::new(11, 17));
    }

    #[test]
    fn repeated_keys_are_kept() {
        let Value::Table(entries) = ok(r#"{"a":1,"a":2}"#) else {
            panic!()
        };
        assert_eq!(entries.len(), 2);
    }

    #[test]
    fn big_integers_become_floats() {
        assert_eq!(
            ok("18446744073709551616"),
            Value::Float(18446744073709551616.0)
        );
        assert_eq!(ok("-9223372036854775808"), Value::Integer(i64::MIN));
    }

    #[test]
    fn rejects_what_rfc_8259_rejects() {
        assert_eq!(err(""), "unexpected end of JSON input");
        assert_eq!(
            err("{'a':1}"),
            "invalid character '\\'' looking for beginning of object key string"
        );
        assert_eq!(
            err("{\"a\":1,}"),
            "invalid character '}' looking for beginning of object key string"
        );
        assert_eq!(err("{} x"), "invalid character 'x' after top-level value");
        assert!(err("01").contains("after top-level value"));
        assert!(err("1.x").contains("decimal point"));
        assert_eq!(err("1."), "unexpected end of JSON input");
        assert!(err("\"\t\"").contains("in string literal"));
        assert!(err("\"\\x\"").contains("escape"));
        assert!(err("1e999").contains("out of range"));
        assert!(err("\"\\ud800\"").contains("lone surrogate"));
        assert!(err("\"\\udc00\\ud800\"").contains("lone surrogate"));
        assert!(err("\"\\ud800\\u0041\"").contains("lone surrogate"));
        assert!(err("nulx").contains("in literal null"));
        assert!(err(&"[".repeat(10_000)).contains("nesting"));
    }
}
