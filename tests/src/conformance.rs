//! The conformance corpus (`tests/conformance/`, or the directory named by
//! `TOOLMETADATA_CONFORMANCE_DIR`) and the check of one result against its line
//! of `expected.jsonl`, as the corpus README says.
//!
//! Results are compared in the shape of `toolmetadata list --format json-lines`,
//! so the library and the command-line tool are held to the same expectations.

use std::path::{Path, PathBuf};

use serde_json::Value;
use toolmetadata::metadata::Loader;

/// The corpus directory: `$TOOLMETADATA_CONFORMANCE_DIR`, or the copy in this crate.
pub fn dir() -> PathBuf {
    match std::env::var_os("TOOLMETADATA_CONFORMANCE_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => own_dir(),
    }
}

/// The copy of the corpus in this crate, whatever the override: for tests
/// whose expectations are written against its files (snapshots).
pub fn own_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance")
}

/// Every line of `expected.jsonl`, parsed.
pub fn expectations(dir: &Path) -> Vec<Value> {
    let path = dir.join("expected.jsonl");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad line {l}: {e}")))
        .collect()
}

/// Loads one file through the library and returns its result as a json-lines record.
pub fn library_record(path: &Path, shown: &str) -> Value {
    match Loader::new().load_file(path) {
        Ok(loaded) => toolmetadata_build::json_lines_record(shown, Ok::<_, Vec<_>>(&loaded.tool)),
        Err(diagnostics) => toolmetadata_build::json_lines_record(shown, Err(&diagnostics)),
    }
}

/// Checks a record against its expected line; the error says what differs.
pub fn check(expected: &Value, record: &Value) -> Result<(), String> {
    match expected["outcome"].as_str() {
        Some("tool") => check_tool(expected, record),
        Some("error") => check_errors(expected, record),
        other => Err(format!("unknown outcome {other:?}")),
    }
}

fn check_tool(expected: &Value, record: &Value) -> Result<(), String> {
    if let Some(errors) = record.get("errors") {
        return Err(format!("expected a tool, got errors {errors}"));
    }
    if !json_eq(&expected["tool"], &record["tool"]) {
        return Err(format!(
            "entry differs\n  expected {}\n  got      {}",
            expected["tool"], record["tool"]
        ));
    }
    if expected["discoverable"] != record["discoverable"] {
        return Err(format!(
            "discoverable: expected {}, got {}",
            expected["discoverable"], record["discoverable"]
        ));
    }
    let scopes = |v: &Value| v.get("scopes").cloned().unwrap_or(Value::Array(Vec::new()));
    if scopes(expected) != scopes(record) {
        return Err(format!(
            "scopes: expected {}, got {}",
            scopes(expected),
            scopes(record)
        ));
    }
    if expected["keywords"] != record["keywords"] {
        return Err(format!(
            "keywords: expected {}, got {}",
            expected["keywords"], record["keywords"]
        ));
    }
    Ok(())
}

fn check_errors(expected: &Value, record: &Value) -> Result<(), String> {
    let Some(errors) = record["errors"].as_array() else {
        return Err(format!("expected an error, got {record}"));
    };
    let mut wanted = vec![expected];
    if let Some(also) = expected["also"].as_array() {
        wanted.extend(also);
    }
    if errors.len() != wanted.len() {
        return Err(format!(
            "expected {} errors, got {}: {}",
            wanted.len(),
            errors.len(),
            serde_json::to_string_pretty(errors).unwrap_or_default()
        ));
    }
    for (i, (want, got)) in wanted.iter().zip(errors).enumerate() {
        if want["rule"] != got["code"] {
            return Err(format!(
                "error {i}: expected rule {}, got {got}",
                want["rule"]
            ));
        }
        if want["line"] != got["line"] {
            return Err(format!(
                "error {i}: expected line {}, got {got}",
                want["line"]
            ));
        }
        let message = got["message"].as_str().unwrap_or_default();
        for name in want["names"].as_array().into_iter().flatten() {
            let name = name.as_str().unwrap_or_default();
            if !mentions(message, name) {
                return Err(format!(
                    "error {i}: message {message:?} does not mention {name:?}"
                ));
            }
        }
    }
    Ok(())
}

/// Whether a diagnostic's message names `name` the way diagnostics quote:
/// as written (between backticks), or escaped as Rust's `Debug` escapes a
/// string (`{:?}`, which shows control characters and combining marks).
fn mentions(message: &str, name: &str) -> bool {
    let debug = format!("{name:?}");
    let escaped = &debug[1..debug.len() - 1];
    message.contains(name) || message.contains(escaped)
}

/// JSON equality where numbers compare by value (`2` equals `2.0`).
pub fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(x), Some(y)) => x == y,
            _ => x.as_f64() == y.as_f64(),
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_eq(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error_named(name: &str, message: String) -> Result<(), String> {
        let expected = serde_json::json!({
            "outcome": "error", "rule": "bad-param-name", "line": 3, "names": [name],
        });
        let record = serde_json::json!({
            "errors": [{"code": "bad-param-name", "line": 3, "message": message}],
        });
        check(&expected, &record)
    }

    /// `str::escape_debug` leaves a combining mark after the first character
    /// as it is, `{:?}` escapes it: the harness must take what diagnostics
    /// print.
    #[test]
    fn names_match_as_written_or_as_debug_quotes_them() {
        let name = "ae\u{301}\t";
        assert_eq!(
            error_named(name, format!("parameter name {name:?} is bad")),
            Ok(())
        );
        assert_eq!(
            error_named("ab", "parameter `ab` is bad".to_owned()),
            Ok(())
        );
        assert!(error_named(name, "parameter name \"ae\" is bad".to_owned()).is_err());
        assert!(error_named("ab", "parameter `a b` is bad".to_owned()).is_err());
    }
}
