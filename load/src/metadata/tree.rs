//! The document tree both formats are read into: values with the span of every
//! key and value, keys in source order, duplicates kept (so they can be reported).

use super::format_float;
use crate::diagnostic::Span;

/// A value and where it is.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Node {
    pub(crate) span: Span,
    pub(crate) value: Value,
}

/// A key of a table and where it is.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Entry {
    pub(crate) key: String,
    pub(crate) key_span: Span,
    pub(crate) node: Node,
}

/// A TOML or JSON value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    /// JSON `null`.
    Null,
    Bool(bool),
    Integer(i64),
    Float(f64),
    String(String),
    Array(Vec<Node>),
    /// Entries in source order; JSON may repeat a key.
    Table(Vec<Entry>),
    /// A TOML date or time, which the format never uses.
    Datetime(String),
}

/// Whether a file is TOML, JSON or YAML, which decides some words in diagnostics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Syntax {
    Toml,
    Json,
    #[cfg(feature = "yaml")]
    Yaml,
}

impl Value {
    /// What the value is, with the value itself for scalars: `integer 5`,
    /// `string "yes"`, `table`.
    pub(crate) fn describe(&self, syntax: Syntax) -> String {
        match self {
            Value::Null => "null".to_owned(),
            Value::Bool(b) => format!("boolean {b}"),
            Value::Integer(i) => format!("integer {i}"),
            Value::Float(x) => format!("float {}", format_float(*x)),
            Value::String(s) => format!("string {}", quote(s)),
            Value::Array(_) => format!("array {}", self.literal(120)),
            Value::Table(_) => match syntax {
                Syntax::Toml => "table".to_owned(),
                Syntax::Json => "object".to_owned(),
                #[cfg(feature = "yaml")]
                Syntax::Yaml => "mapping".to_owned(),
            },
            Value::Datetime(d) => format!("datetime {d}"),
        }
    }

    /// The value written as a short literal, shortened past `limit` characters.
    pub(crate) fn literal(&self, limit: usize) -> String {
        let mut out = String::new();
        self.write_literal(&mut out);
        toolmetadata_core::shorten(&out, limit)
    }

    fn write_literal(&self, out: &mut String) {
        match self {
            Value::Null => out.push_str("null"),
            Value::Bool(b) => out.push_str(&b.to_string()),
            Value::Integer(i) => out.push_str(&i.to_string()),
            Value::Float(x) => out.push_str(&format_float(*x)),
            Value::String(s) => out.push_str(&quote(s)),
            Value::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    item.value.write_literal(out);
                }
                out.push(']');
            }
            Value::Table(_) => out.push_str("{…}"),
            Value::Datetime(d) => out.push_str(d),
        }
    }
}

/// A string quoted and escaped as Rust's `Debug` does, so control characters and
/// invisible characters show.
pub(crate) fn quote(s: &str) -> String {
    format!("{s:?}")
}
