//! What each fuzz target does with its bytes. Nothing here may panic on any
//! input; the assertions are invariants of the library, not of the input.
//!
//! This file is also compiled into the replay test in `tests/` (by path), so
//! it uses only `toolmetadata`, `serde_json` and `arbitrary`.

use arbitrary::{Arbitrary, Unstructured};
use serde_json::Value;
use toolmetadata::Severity;
use toolmetadata::args::{Conversion, DynamicParams, Map};
use toolmetadata::metadata::Load as _;
use toolmetadata::metadata::{Format, Loader, ToolMetadata};

/// The JSON reader, through the whole loader.
pub fn json_reader(data: &[u8]) {
    load(Format::Json, data);
}

/// The TOML loader.
pub fn toml_loader(data: &[u8]) {
    load(Format::Toml, data);
}

/// The YAML loader.
pub fn yaml_loader(data: &[u8]) {
    load(Format::Yaml, data);
}

/// Loads `data` with unknown keys as errors and as warnings; renders what
/// comes out, as the build and the server would.
fn load(format: Format, data: &[u8]) -> Option<ToolMetadata> {
    let mut tool = None;
    for severity in [Severity::Error, Severity::Warning] {
        match Loader::new()
            .unknown_keys(severity)
            .load_bytes("fuzz", "fuzz", format, data)
        {
            Ok(loaded) => {
                let entry = loaded.tool.to_tools_list_json();
                assert!(serde_json::from_str::<Value>(&entry).is_ok(), "{entry}");
                let _ = loaded.warnings.render(false);
                tool = Some(loaded.tool);
            }
            Err(diagnostics) => {
                assert!(diagnostics.has_errors(), "a failed load has an error");
                let _ = diagnostics.render(false);
                for d in diagnostics.iter() {
                    let _ = d.line_column();
                }
            }
        }
    }
    tool
}

/// Words the format knows, so that generated documents reach the checks
/// rather than stopping at the first unknown key.
const KEYS: &[&str] = &[
    "description",
    "title",
    "keywords",
    "discoverable",
    "parameters",
    "readOnly",
    "destructive",
    "idempotent",
    "openWorld",
    "ui",
    "icons",
    "output",
    "name",
    "type",
    "required",
    "enum",
    "default",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "resourceUri",
    "visibility",
    "src",
    "mimeType",
    "sizes",
    "theme",
    "header",
    "task",
    "confirm",
    "message",
    "unsupported",
    "scopes",
    "Description",
    "NAME",
];

const WORDS: &[&str] = &[
    "string",
    "int",
    "integer",
    "float",
    "number",
    "bool",
    "boolean",
    "array:string",
    "array:int",
    "array:integer",
    "array:float",
    "array:number",
    "array:bool",
    "array:boolean",
    "strin",
    "ui://app/view",
    "ui://",
    "https://example.com/i.png",
    "data:image/png;base64,AA",
    "model",
    "app",
    "light",
    "dark",
    "a",
    "b",
    "self",
    "Self",
    "type",
    "^[a-z]+$",
    "(?=x)",
    "user-name",
    "userName",
    "user_name",
    "9lives",
    "_",
    "",
    " ",
    "é",
];

/// A JSON value built from the fuzzer's bytes, keys and strings mostly from
/// the format's vocabulary. Objects may repeat a key.
#[derive(Debug)]
enum Doc {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Array(Vec<Doc>),
    Object(Vec<(String, Doc)>),
}

/// Past this depth only scalars are made, so a document stays small.
const MAX_DEPTH: usize = 4;

fn word(u: &mut Unstructured<'_>, words: &[&str]) -> arbitrary::Result<String> {
    if u.ratio(7, 8)? {
        Ok((*u.choose(words)?).to_owned())
    } else {
        String::arbitrary(u)
    }
}

fn doc(u: &mut Unstructured<'_>, depth: usize) -> arbitrary::Result<Doc> {
    let kinds = if depth >= MAX_DEPTH { 5 } else { 7 };
    Ok(match u.choose_index(kinds)? {
        0 => Doc::Null,
        1 => Doc::Bool(bool::arbitrary(u)?),
        2 => Doc::Int(i64::from(i8::arbitrary(u)?)),
        3 => Doc::Float(f64::arbitrary(u)?),
        4 => Doc::Str(word(u, WORDS)?),
        5 => Doc::Array(
            (0..u.choose_index(4)?)
                .map(|_| doc(u, depth + 1))
                .collect::<arbitrary::Result<_>>()?,
        ),
        _ => Doc::Object(
            (0..u.choose_index(6)?)
                .map(|_| Ok((word(u, KEYS)?, doc(u, depth + 1)?)))
                .collect::<arbitrary::Result<_>>()?,
        ),
    })
}

impl Doc {
    /// JSON text; duplicate keys kept, as a hand-written file may have them.
    fn write(&self, out: &mut String) {
        match self {
            Doc::Null => out.push_str("null"),
            Doc::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Doc::Int(i) => out.push_str(&i.to_string()),
            Doc::Float(x) => match serde_json::Number::from_f64(*x) {
                Some(n) => out.push_str(&n.to_string()),
                None => out.push_str("0.5"),
            },
            Doc::Str(s) => out.push_str(&Value::from(s.as_str()).to_string()),
            Doc::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write(out);
                }
                out.push(']');
            }
            Doc::Object(entries) => {
                out.push('{');
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&Value::from(k.as_str()).to_string());
                    out.push(':');
                    v.write(out);
                }
                out.push('}');
            }
        }
    }

    fn to_json(&self) -> Value {
        let mut text = String::new();
        self.write(&mut text);
        serde_json::from_str(&text).unwrap_or(Value::Null)
    }
}

/// The checks: a document of the format's keys and words, as JSON, loaded.
pub fn check(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(entries) = (0..u.choose_index(8).unwrap_or(0))
        .map(|_| Ok((word(&mut u, KEYS)?, doc(&mut u, 0)?)))
        .collect::<arbitrary::Result<Vec<_>>>()
    else {
        return;
    };
    let mut text = String::new();
    Doc::Object(entries).write(&mut text);
    load(Format::Json, text.as_bytes());
}

/// One generated parameter: the keys a valid parameter has, with values
/// that are often in range.
fn param(u: &mut Unstructured<'_>, index: usize) -> arbitrary::Result<Value> {
    let ty = *u.choose(&WORDS[..14])?;
    let mut p = serde_json::Map::new();
    p.insert("name".into(), Value::from(format!("p{index}")));
    p.insert("type".into(), Value::from(ty));
    let required = bool::arbitrary(u)?;
    p.insert("required".into(), Value::from(required));
    let mut maybe = |u: &mut Unstructured<'_>, key: &str, value: Value| -> arbitrary::Result<()> {
        if u.ratio(1, 3)? {
            p.insert(key.into(), value);
        }
        Ok(())
    };
    let small =
        |u: &mut Unstructured<'_>| -> arbitrary::Result<i64> { Ok(i64::from(i8::arbitrary(u)?)) };
    let n = small(u)?;
    maybe(u, "minimum", Value::from(n))?;
    let n = small(u)?;
    maybe(u, "maximum", Value::from(n))?;
    let n = u.choose_index(8)?;
    maybe(u, "minLength", Value::from(n))?;
    let n = u.choose_index(8)?;
    maybe(u, "maxLength", Value::from(n))?;
    let n = u.choose_index(4)?;
    maybe(u, "minItems", Value::from(n))?;
    let n = u.choose_index(4)?;
    maybe(u, "maxItems", Value::from(n))?;
    let pattern = *u.choose(&["^[a-z]+$", "x", "^$", "[0-9]"])?;
    maybe(u, "pattern", Value::from(pattern))?;
    let values: Vec<Value> = ["a", "b", "self", "A-B"]
        .iter()
        .map(|&s| Value::from(s))
        .collect();
    maybe(u, "enum", Value::from(values))?;
    if !required {
        let default = doc(u, MAX_DEPTH - 1)?.to_json();
        maybe(u, "default", default)?;
    }
    Ok(Value::Object(p))
}

/// The argument decoder: arbitrary arguments against arbitrary valid
/// metadata, lenient and strict.
pub fn decode_args(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(params) = (0..u.choose_index(5).unwrap_or(0))
        .map(|i| param(&mut u, i))
        .collect::<arbitrary::Result<Vec<_>>>()
    else {
        return;
    };
    let metadata = serde_json::json!({ "description": "fuzz", "parameters": params });
    let Ok(tool) = ToolMetadata::from_json_str("fuzz", &metadata.to_string()) else {
        return;
    };
    let Ok(entries) = (0..u.choose_index(6).unwrap_or(0))
        .map(|_| {
            let key = if u.ratio(3, 4)? {
                format!("p{}", u.choose_index(5)?)
            } else {
                String::arbitrary(&mut u)?
            };
            Ok((key, doc(&mut u, 1)?.to_json()))
        })
        .collect::<arbitrary::Result<Vec<_>>>()
    else {
        return;
    };
    let args: Map = entries.into_iter().collect();
    let params = DynamicParams::new(&tool);
    for conversion in [Conversion::Lenient, Conversion::Strict] {
        match params.decode(args.clone(), conversion) {
            Ok(values) => {
                for p in &tool.parameters {
                    let value = values.get(&p.name);
                    assert!(
                        value.is_some() || !p.required,
                        "required `{}` decoded without a value",
                        p.name
                    );
                    assert!(
                        value.is_some() || p.default.is_none(),
                        "`{}` has a default but no value",
                        p.name
                    );
                }
                assert!(
                    values.keys().all(|k| tool.parameter(k).is_some()),
                    "only parameters are decoded"
                );
            }
            Err(errors) => {
                let _ = errors.to_string();
            }
        }
    }
}
