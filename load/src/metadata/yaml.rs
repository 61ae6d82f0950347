//! YAML text to the document tree (FORMAT.md "YAML"), from `saphyr-parser`'s
//! events, which carry a position for every key and value.
//!
//! Only what the format needs is accepted: one document, the YAML 1.2 core
//! schema (`yes` is a string), string keys, anchors and aliases expanded up to
//! [`MAX_NODES`] nodes. Tags, merge keys (`<<`) and a second document are
//! errors, so a file means one thing whichever YAML library reads it.

use std::collections::HashMap;

use saphyr_parser::{Event, Parser, ScalarStyle, ScanError};

use super::toml::SyntaxError;
use super::tree::{Entry, Node, Value};
use crate::diagnostic::Span;

/// Nodes a document may have once its aliases are expanded: far above any tool
/// file, far below what an alias bomb would allocate.
pub(crate) const MAX_NODES: usize = 10_000;

/// Deeper nesting is refused, as in JSON, rather than risking the stack.
const MAX_DEPTH: usize = 128;

/// Parses one YAML document. An empty stream (nothing but comments) is an
/// empty mapping, as an empty TOML file is an empty table.
pub(crate) fn parse(text: &str) -> Result<Node, SyntaxError> {
    let mut reader = Reader {
        events: Parser::new_from_str(text),
        offsets: CharOffsets::new(text),
        anchors: HashMap::new(),
        nodes: 0,
    };
    let (event, span) = reader.next()?;
    if !matches!(event, Event::StreamStart) {
        return Err(reader.error("expected the start of the stream", span));
    }
    let (event, span) = reader.next()?;
    let root = match event {
        Event::StreamEnd => {
            return Ok(Node {
                span: Span::new(0, 0),
                value: Value::Table(Vec::new()),
            });
        }
        Event::DocumentStart(_) => {
            let (event, span) = reader.next()?;
            reader.node(event, span, 0)?.0
        }
        _ => return Err(reader.error("expected a document", span)),
    };
    // Then the end of the document, and of the stream: one document per file.
    loop {
        let (event, span) = reader.next()?;
        match event {
            Event::DocumentEnd => {}
            Event::StreamEnd => return Ok(root),
            Event::DocumentStart(_) => {
                return Err(reader.error(
                    "a second document (`---`): a tool file holds one document",
                    span,
                ));
            }
            _ => return Err(reader.error("expected the end of the document", span)),
        }
    }
}

/// Byte offsets of character indices: the parser counts characters, spans
/// are bytes.
struct CharOffsets(Vec<usize>);

impl CharOffsets {
    fn new(text: &str) -> Self {
        let mut offsets: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
        offsets.push(text.len());
        CharOffsets(offsets)
    }

    fn byte(&self, char_index: usize) -> usize {
        let last = self.0.len() - 1;
        self.0[char_index.min(last)]
    }
}

struct Reader<'a> {
    events: Parser<'a, saphyr_parser::StrInput<'a>>,
    offsets: CharOffsets,
    /// Each anchored node, with its size in nodes.
    anchors: HashMap<usize, (Node, usize)>,
    /// Nodes made so far, aliases expanded.
    nodes: usize,
}

type Spanned<'a> = (Event<'a>, saphyr_parser::Span);

impl<'a> Reader<'a> {
    fn next(&mut self) -> Result<Spanned<'a>, SyntaxError> {
        match self.events.next_event() {
            Some(Ok(event)) => Ok(event),
            Some(Err(e)) => Err(self.scan_error(&e)),
            None => Err(SyntaxError {
                message: "unexpected end of the stream".to_owned(),
                span: self.span_of_end(),
            }),
        }
    }

    fn scan_error(&self, e: &ScanError) -> SyntaxError {
        let at = self.offsets.byte(e.marker().index());
        SyntaxError {
            message: e.info().to_owned(),
            span: Span::new(at, at),
        }
    }

    fn span_of_end(&self) -> Span {
        let end = self.offsets.byte(usize::MAX);
        Span::new(end, end)
    }

    fn span(&self, span: saphyr_parser::Span) -> Span {
        let start = self.offsets.byte(span.start.index());
        let end = self.offsets.byte(span.end.index()).max(start);
        Span::new(start, end)
    }

    fn error(&self, message: &str, span: saphyr_parser::Span) -> SyntaxError {
        SyntaxError {
            message: message.to_owned(),
            span: self.span(span),
        }
    }

    /// Counts `n` more nodes, refusing past [`MAX_NODES`].
    fn count(&mut self, n: usize, span: saphyr_parser::Span) -> Result<(), SyntaxError> {
        self.nodes = self.nodes.saturating_add(n);
        if self.nodes > MAX_NODES {
            return Err(self.error(
                "the document has more than 10000 nodes once its aliases are expanded (an alias bomb?)",
                span,
            ));
        }
        Ok(())
    }

    /// The node that starts with `event`, and its size in nodes.
    fn node(
        &mut self,
        event: Event<'a>,
        span: saphyr_parser::Span,
        depth: usize,
    ) -> Result<(Node, usize), SyntaxError> {
        if depth > MAX_DEPTH {
            return Err(self.error("nesting deeper than 128 levels", span));
        }
        self.count(1, span)?;
        let (node, size, anchor) = match event {
            Event::Scalar(text, style, anchor, tag) => {
                if tag.is_some() {
                    return Err(self.tag_error(span));
                }
                let value = scalar(&text, style).map_err(|m| self.error(&m, span))?;
                let node = Node {
                    span: self.span(span),
                    value,
                };
                (node, 1, anchor)
            }
            Event::SequenceStart(anchor, tag) => {
                if tag.is_some() {
                    return Err(self.tag_error(span));
                }
                let (items, size, end) = self.sequence(depth)?;
                let node = Node {
                    span: Span::new(self.span(span).start, self.span(end).end),
                    value: Value::Array(items),
                };
                (node, size, anchor)
            }
            Event::MappingStart(anchor, tag) => {
                if tag.is_some() {
                    return Err(self.tag_error(span));
                }
                let (entries, size, end) = self.mapping(depth)?;
                let node = Node {
                    span: Span::new(self.span(span).start, self.span(end).end),
                    value: Value::Table(entries),
                };
                (node, size, anchor)
            }
            Event::Alias(id) => {
                let Some((node, size)) = self.anchors.get(&id) else {
                    return Err(self.error("an alias of an unknown anchor", span));
                };
                let (mut node, size) = (node.clone(), *size);
                // The node itself was counted above.
                self.count(size - 1, span)?;
                // Diagnostics about the value point at the alias; its parts
                // keep the places they were written.
                node.span = self.span(span);
                return Ok((node, size));
            }
            _ => return Err(self.error("expected a value", span)),
        };
        if anchor != 0 {
            self.anchors.insert(anchor, (node.clone(), size));
        }
        Ok((node, size))
    }

    fn tag_error(&self, span: saphyr_parser::Span) -> SyntaxError {
        self.error(
            "tags (`!!str`, `!name`) are not allowed: write the value plainly",
            span,
        )
    }

    /// The items up to the end of a sequence, their size, and the end's span.
    fn sequence(
        &mut self,
        depth: usize,
    ) -> Result<(Vec<Node>, usize, saphyr_parser::Span), SyntaxError> {
        let mut items = Vec::new();
        let mut size = 1;
        loop {
            let (event, span) = self.next()?;
            if matches!(event, Event::SequenceEnd) {
                return Ok((items, size, span));
            }
            let (item, n) = self.node(event, span, depth + 1)?;
            size += n;
            items.push(item);
        }
    }

    /// The entries up to the end of a mapping, their size, and the end's span.
    fn mapping(
        &mut self,
        depth: usize,
    ) -> Result<(Vec<Entry>, usize, saphyr_parser::Span), SyntaxError> {
        let mut entries = Vec::new();
        let mut size = 1;
        loop {
            let (event, span) = self.next()?;
            let key = match event {
                Event::MappingEnd => return Ok((entries, size, span)),
                Event::Scalar(_, _, _, Some(_)) => return Err(self.tag_error(span)),
                Event::Scalar(key, style, _, None) => {
                    if style == ScalarStyle::Plain && key == "<<" {
                        return Err(self.error(
                            "merge keys (`<<`) are not allowed: write the keys out",
                            span,
                        ));
                    }
                    key.into_owned()
                }
                Event::Alias(_) => {
                    return Err(self.error("an alias cannot be a key: write the key", span));
                }
                _ => return Err(self.error("a key must be a string", span)),
            };
            self.count(1, span)?;
            let key_span = self.span(span);
            let (event, value_span) = self.next()?;
            let (node, n) = self.node(event, value_span, depth + 1)?;
            size += n + 1;
            entries.push(Entry {
                key,
                key_span,
                node,
            });
        }
    }
}

/// A scalar by the YAML 1.2 core schema: only plain scalars are resolved;
/// quoted and block scalars are strings.
fn scalar(text: &str, style: ScalarStyle) -> Result<Value, String> {
    if style != ScalarStyle::Plain {
        return Ok(Value::String(text.to_owned()));
    }
    Ok(match text {
        "" | "~" | "null" | "Null" | "NULL" => Value::Null,
        "true" | "True" | "TRUE" => Value::Bool(true),
        "false" | "False" | "FALSE" => Value::Bool(false),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => Value::Float(f64::INFINITY),
        "-.inf" | "-.Inf" | "-.INF" => Value::Float(f64::NEG_INFINITY),
        ".nan" | ".NaN" | ".NAN" => Value::Float(f64::NAN),
        _ => match number(text) {
            Some(Number::Integer(digits, radix)) => match i64::from_str_radix(digits, radix) {
                Ok(i) => Value::Integer(i),
                Err(_) => return Err(format!("integer {text} does not fit in 64 bits")),
            },
            Some(Number::Float) => match text.parse::<f64>() {
                Ok(x) => Value::Float(x),
                Err(_) => return Err(format!("invalid float {text}")),
            },
            None => Value::String(text.to_owned()),
        },
    })
}

enum Number<'a> {
    /// The digits (with their sign, for decimal) and the radix.
    Integer(&'a str, u32),
    Float,
}

/// Which number a plain scalar is by the core schema's patterns, if any:
/// `[-+]?[0-9]+`, `0o[0-7]+`, `0x[0-9a-fA-F]+`, and
/// `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`.
fn number(text: &str) -> Option<Number<'_>> {
    if let Some(octal) = text.strip_prefix("0o") {
        return (!octal.is_empty() && octal.bytes().all(|b| matches!(b, b'0'..=b'7')))
            .then_some(Number::Integer(octal, 8));
    }
    if let Some(hex) = text.strip_prefix("0x") {
        return (!hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()))
            .then_some(Number::Integer(hex, 16));
    }
    let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(i) => (&unsigned[..i], Some(&unsigned[i + 1..])),
        None => (unsigned, None),
    };
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let (whole, fraction) = match mantissa.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (mantissa, None),
    };
    // `.5` and `5.` are floats, `.` is not.
    let mantissa_ok = match fraction {
        None => !whole.is_empty() && digits(whole),
        Some(f) => digits(whole) && digits(f) && !(whole.is_empty() && f.is_empty()),
    };
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['-', '+']).unwrap_or(e);
        !e.is_empty() && digits(e)
    });
    if !mantissa_ok || !exponent_ok {
        return None;
    }
    if fraction.is_none() && exponent.is_none() {
        // The sign stays: `from_str_radix` takes it.
        Some(Number::Integer(text.strip_prefix('+').unwrap_or(text), 10))
    } else {
        Some(Number::Float)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(text: &str) -> Value {
        parse(&format!("v: {text}\n"))
            .map(|node| match node.value {
                Value::Table(mut entries) => entries.remove(0).node.value,
                other => other,
            })
            .unwrap_or_else(|e| panic!("{text}: {}", e.message))
    }

    fn error(text: &str) -> String {
        match parse(text) {
            Ok(node) => panic!("{text:?} parsed to {node:?}"),
            Err(e) => e.message,
        }
    }

    #[test]
    fn the_core_schema_not_yaml_1_1() {
        for (text, expected) in [
            ("yes", Value::String("yes".into())),
            ("no", Value::String("no".into())),
            ("on", Value::String("on".into())),
            ("True", Value::Bool(true)),
            ("false", Value::Bool(false)),
            ("~", Value::Null),
            ("", Value::Null),
            ("12", Value::Integer(12)),
            ("-12", Value::Integer(-12)),
            ("+12", Value::Integer(12)),
            ("0o17", Value::Integer(15)),
            ("0x1F", Value::Integer(31)),
            ("017", Value::Integer(17)),
            ("1.5", Value::Float(1.5)),
            ("5.", Value::Float(5.0)),
            (".5", Value::Float(0.5)),
            ("1e3", Value::Float(1000.0)),
            ("-.inf", Value::Float(f64::NEG_INFINITY)),
            ("'12'", Value::String("12".into())),
            ("\"true\"", Value::String("true".into())),
            ("0b101", Value::String("0b101".into())),
            ("1_000", Value::String("1_000".into())),
            ("2024-01-01", Value::String("2024-01-01".into())),
            (".", Value::String(".".into())),
            ("e5", Value::String("e5".into())),
        ] {
            assert_eq!(value(text), expected, "{text}");
        }
        assert!(matches!(value(".nan"), Value::Float(x) if x.is_nan()));
        assert!(error("v: 99999999999999999999\n").contains("does not fit in 64 bits"));
    }

    #[test]
    fn spans_are_bytes_of_keys_and_values() {
        let text = "é: 1\nname: \"ü\"\n";
        let node = parse(text).expect("parses");
        let Value::Table(entries) = node.value else {
            panic!("a table")
        };
        let name = &entries[1];
        assert_eq!(&text[name.key_span.start..name.key_span.end], "name");
        assert_eq!(&text[name.node.span.start..name.node.span.end], "\"ü\"");
    }

    #[test]
    fn what_the_format_refuses() {
        assert!(error("a: !!str 1\n").contains("tags"));
        assert!(error("a: !custom x\n").contains("tags"));
        assert!(error("a: 1\n---\nb: 2\n").contains("second document"));
        assert!(error("base: &b {x: 1}\nc:\n  <<: *b\n").contains("merge keys"));
        assert!(error("? [a]\n: 1\n").contains("key must be a string"));
        assert!(error("a: [1\n").len() > 3);
        let bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n\
                    b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n\
                    c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n\
                    d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n\
                    e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n";
        assert!(error(bomb).contains("more than 10000 nodes"));
    }

    #[test]
    fn aliases_expand_and_empty_streams_are_empty_tables() {
        let node = parse("a: &x [1, 2]\nb: *x\n").expect("parses");
        let Value::Table(entries) = node.value else {
            panic!("a table")
        };
        assert_eq!(entries[0].node.value, entries[1].node.value);
        assert_eq!(
            parse("# nothing\n").expect("parses").value,
            Value::Table(Vec::new())
        );
        assert_eq!(parse("---\n").expect("parses").value, Value::Null);
    }
}
