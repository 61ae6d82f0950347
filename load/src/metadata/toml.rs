//! TOML text to the document tree, through the `toml` crate's spanned parser.

use toml::de::{DeTable, DeValue};

use super::tree::{Entry, Node, Value};
use crate::diagnostic::Span;

/// A parse error: what is wrong, and the byte offset it is at.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SyntaxError {
    pub(crate) message: String,
    pub(crate) span: Span,
}

/// Parses a TOML document.
pub(crate) fn parse(text: &str) -> Result<Node, SyntaxError> {
    let table = DeTable::parse(text).map_err(|e| SyntaxError {
        message: e.message().to_owned(),
        span: e
            .span()
            .map_or(Span::new(0, 0), |r| Span::new(r.start, r.end)),
    })?;
    let span = Span::new(0, text.len());
    Ok(Node {
        span,
        value: convert_table(table.get_ref())?,
    })
}

fn convert_table(table: &DeTable<'_>) -> Result<Value, SyntaxError> {
    let mut entries = Vec::with_capacity(table.len());
    for (key, value) in table.iter() {
        entries.push(Entry {
            key: key.get_ref().to_string(),
            key_span: span_of(key.span()),
            node: convert(value.get_ref(), span_of(value.span()))?,
        });
    }
    // The crate's map is sorted by key; diagnostics want source order.
    entries.sort_by_key(|e| e.key_span.start);
    Ok(Value::Table(entries))
}

fn convert(value: &DeValue<'_>, span: Span) -> Result<Node, SyntaxError> {
    let value = match value {
        DeValue::String(s) => Value::String(s.to_string()),
        DeValue::Integer(i) => match i64::from_str_radix(i.as_str(), i.radix()) {
            Ok(n) => Value::Integer(n),
            Err(_) => {
                return Err(SyntaxError {
                    message: format!("integer {i} does not fit in 64 bits"),
                    span,
                });
            }
        },
        DeValue::Float(x) => match x.as_str().parse::<f64>() {
            Ok(f) => Value::Float(f),
            Err(_) => {
                return Err(SyntaxError {
                    message: format!("invalid float {x}"),
                    span,
                });
            }
        },
        DeValue::Boolean(b) => Value::Bool(*b),
        DeValue::Datetime(d) => Value::Datetime(d.to_string()),
        DeValue::Array(items) => Value::Array(
            items
                .iter()
                .map(|item| convert(item.get_ref(), span_of(item.span())))
                .collect::<Result<_, _>>()?,
        ),
        DeValue::Table(table) => convert_table(table)?,
    };
    Ok(Node { span, value })
}

fn span_of(range: std::ops::Range<usize>) -> Span {
    Span::new(range.start, range.end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_come_in_source_order_with_spans() {
        let node = parse("b = 1\na = \"x\"\n").unwrap();
        let Value::Table(entries) = node.value else {
            panic!("not a table")
        };
        let keys: Vec<_> = entries.iter().map(|e| e.key.as_str()).collect();
        assert_eq!(keys, ["b", "a"]);
        assert_eq!(entries[1].key_span, Span::new(6, 7));
        assert_eq!(entries[1].node.span, Span::new(10, 13));
    }

    #[test]
    fn toml_1_1_escapes_and_big_integers() {
        let node = parse("d = \"\\x41\\e\"").unwrap();
        let Value::Table(entries) = node.value else {
            panic!("not a table")
        };
        assert_eq!(entries[0].node.value, Value::String("A\u{1b}".into()));
        let err = parse("n = 99999999999999999999").unwrap_err();
        assert!(err.message.contains("64 bits"), "{err:?}");
    }
}
