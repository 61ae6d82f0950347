//! Fingerprints of what a catalog serves: a tool's rendered entry, or any
//! JSON value, hashed in a canonical form, so that the same content gives the
//! same fingerprint however the file that produced it was written (key
//! order, spacing, TOML or JSON) and whatever instance computes it.
//!
//! The canonical form is JSON with object keys sorted by their UTF-16 code
//! units (as RFC 8785 orders them), no insignificant whitespace, strings
//! escaped as `serde_json` escapes them, and numbers as `serde_json` writes
//! them; a JSON Schema's `required` list, a set whose order says nothing,
//! sorted too (so that parameters written in another order change no
//! fingerprint). A fingerprint is `sha256:` and the hex digest of that text.

use std::fmt::Write;

use serde_json::Value;
use sha2::Digest;

/// `value` as canonical JSON text (see the module documentation).
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

/// The fingerprint of `value`: `sha256:` and the hex digest of its
/// [`canonical_json`].
///
/// ```
/// use serde_json::json;
/// let a = toolmetadata_core::fingerprint::fingerprint(&json!({"b": 1, "a": [true, null]}));
/// let b = toolmetadata_core::fingerprint::fingerprint(&json!({"a": [true, null], "b": 1}));
/// assert_eq!(a, b);
/// assert!(a.starts_with("sha256:"));
/// ```
pub fn fingerprint(value: &Value) -> String {
    let digest = sha2::Sha256::digest(canonical_json(value).as_bytes());
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for byte in digest {
        let _ = write!(out, "{byte:02x}");
    }
    out
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|(a, _), (b, _)| a.encode_utf16().cmp(b.encode_utf16()));
            out.push('{');
            for (i, (key, value)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_scalar(&Value::String(key.clone()), out);
                out.push(':');
                match value {
                    Value::Array(names)
                        if key == "required" && names.iter().all(Value::is_string) =>
                    {
                        let mut names = names.clone();
                        names.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
                        write_canonical(&Value::Array(names), out);
                    }
                    value => write_canonical(value, out),
                }
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        scalar => write_scalar(scalar, out),
    }
}

fn write_scalar(value: &Value, out: &mut String) {
    // A scalar always serializes.
    out.push_str(&serde_json::to_string(value).unwrap_or_default());
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn key_order_and_spacing_do_not_matter() {
        let a: Value =
            serde_json::from_str(r#"{ "z": {"y": 1, "x": [1, 2.5, "é\n"]}, "a": null }"#)
                .expect("json");
        let b = json!({"a": null, "z": {"x": [1, 2.5, "é\n"], "y": 1}});
        assert_eq!(
            canonical_json(&a),
            r#"{"a":null,"z":{"x":[1,2.5,"é\n"],"y":1}}"#
        );
        assert_eq!(fingerprint(&a), fingerprint(&b));
        assert_ne!(fingerprint(&a), fingerprint(&json!({"a": null})));
        assert_eq!(fingerprint(&a).len(), 7 + 64);
    }

    #[test]
    fn required_is_a_set() {
        let a = json!({"type": "object", "required": ["b", "a"], "properties": {}});
        let b = json!({"type": "object", "required": ["a", "b"], "properties": {}});
        assert_eq!(fingerprint(&a), fingerprint(&b));
        let order = json!({"enum": ["b", "a"]});
        assert_ne!(
            fingerprint(&order),
            fingerprint(&json!({"enum": ["a", "b"]}))
        );
    }

    #[test]
    fn keys_sort_by_utf16_code_units() {
        // U+1F600 sorts after U+FF61 in UTF-8 (and `str`) order, before it
        // in UTF-16's.
        let value = json!({"\u{1F600}": 1, "\u{FF61}": 2, "a": 3});
        assert_eq!(
            canonical_json(&value),
            "{\"a\":3,\"\u{1F600}\":1,\"\u{FF61}\":2}"
        );
    }
}
