//! What parsing a message will cost, known before it is parsed.
//!
//! A size limit alone does not bound memory: a parsed JSON value takes far
//! more room than its text when the values are tiny (`[0,0,0,…]` is two bytes
//! a value, and each costs rmcp's tree, the arguments' copy and the decoded
//! struct), so a 16 MiB body of them once peaked at 1.6 GB. Each body and each
//! stdio line is therefore counted first, by a scan that allocates nothing,
//! and refused when it holds more values than its size pays for: at most
//! [`FREE_VALUES`], or one per [`BYTES_PER_VALUE`] bytes of text, whichever
//! is more. Real messages (text, paths, edits, a few hundred numbers) are far
//! inside it; what it refuses is text made of tiny values.

use rmcp::model::RequestId;

/// Values any message may hold, whatever its size: small bodies stay free
/// of the ratio below (their parse costs a few megabytes at most).
pub(in crate::server) const FREE_VALUES: u64 = 64 * 1024;

/// Bytes of text each value beyond [`FREE_VALUES`] must come with, so that
/// the parsed message stays within a small multiple of its text: a parsed
/// value costs a few hundred bytes on its way to a handler, through rmcp's
/// parse (measured in `example-server/tests/parse_cost.rs`, which holds a
/// request's peak to 10 times its body).
pub(in crate::server) const BYTES_PER_VALUE: u64 = 48;

/// What an object costs, in values: each is a map (a tree node of a dozen
/// slots, and serde's buffered copy of it on the way), where a scalar is one
/// slot. Measured, as [`BYTES_PER_VALUE`] is.
const OBJECT_WEIGHT: u64 = 12;

/// What an array costs, in values: its own allocation besides its elements.
const ARRAY_WEIGHT: u64 = 2;

/// How many values a message of `len` bytes may hold.
pub(in crate::server) fn allowed_values(len: usize) -> u64 {
    FREE_VALUES.max(len as u64 / BYTES_PER_VALUE)
}

/// A count of the JSON values in a text, fed in pieces (a stdio line arrives
/// in reads of any size). It counts the tokens that start a value or an
/// entry (`[`, `{`, `,`, `:`) outside strings, an object or an array weighed
/// by what it costs beyond a scalar: close to what a parse allocates, known
/// without parsing. Invalid JSON is counted too; the parser refuses it after.
#[derive(Debug, Default, Clone)]
pub(in crate::server) struct ValueCount {
    values: u64,
    in_string: bool,
    escaped: bool,
}

impl ValueCount {
    /// Counts the next piece of the text.
    pub(in crate::server) fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if self.in_string {
                if self.escaped {
                    self.escaped = false;
                } else if b == b'\\' {
                    self.escaped = true;
                } else if b == b'"' {
                    self.in_string = false;
                }
            } else {
                match b {
                    b'"' => self.in_string = true,
                    b'{' => self.values += OBJECT_WEIGHT,
                    b'[' => self.values += ARRAY_WEIGHT,
                    b',' | b':' => self.values += 1,
                    _ => {}
                }
            }
        }
    }

    /// The values counted so far (one more than the tokens: the first value
    /// of the text has none).
    pub(in crate::server) fn values(&self) -> u64 {
        self.values + 1
    }

    /// Why a text of `len` bytes with these values is refused, if it is.
    pub(in crate::server) fn excess(&self, len: usize) -> Option<String> {
        let allowed = allowed_values(len);
        (self.values() > allowed).then(|| {
            format!(
                "the message holds about {} JSON values in {len} bytes, more than the server parses \
                 at once (at most {allowed} for a message of this size: {FREE_VALUES}, or one per \
                 {BYTES_PER_VALUE} bytes)",
                self.values()
            )
        })
    }
}

/// The values in `text` (a whole HTTP body; stdio lines are counted as they
/// come, with [`ValueCount::feed`]).
#[cfg(any(test, feature = "http"))]
pub(in crate::server) fn count(text: &[u8]) -> ValueCount {
    let mut count = ValueCount::default();
    count.feed(text);
    count
}

/// The top-level `id` of a JSON-RPC message read from the start of its text
/// (which may be cut anywhere), without parsing the rest: what an error about
/// a message too large or too costly to parse can still answer to.
pub(in crate::server) fn request_id(head: &[u8]) -> Option<RequestId> {
    let mut depth = 0u32;
    let mut i = 0;
    // Whether the string that ends next is a key of the top-level object.
    let mut key_start: Option<usize> = None;
    let mut last_key: Option<(usize, usize)> = None;
    while i < head.len() {
        match head[i] {
            b'"' => {
                let start = i;
                let end = string_end(head, i)?;
                if depth == 1 && key_start.take().is_some() {
                    last_key = Some((start, end));
                }
                i = end;
                continue;
            }
            b'{' | b'[' => {
                depth += 1;
                if depth == 1 {
                    key_start = Some(i);
                }
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            b',' if depth == 1 => key_start = Some(i),
            b':' if depth == 1 => {
                if let Some((start, end)) = last_key.take()
                    && &head[start..end] == b"\"id\""
                {
                    return id_value(&head[i + 1..]);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Where the string starting at `head[start]` (a `"`) ends: the index just
/// past its closing quote.
fn string_end(head: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 1;
    while i < head.len() {
        match head[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// The id value at the start of `rest` (after the `:`), if it is one a
/// JSON-RPC id may be: a string or an integer.
fn id_value(rest: &[u8]) -> Option<RequestId> {
    let start = rest.iter().position(|b| !b.is_ascii_whitespace())?;
    let rest = &rest[start..];
    let end = if rest.first() == Some(&b'"') {
        string_end(rest, 0)?
    } else {
        rest.iter()
            .position(|b| !(b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E')))
            .unwrap_or(rest.len())
    };
    serde_json::from_slice(&rest[..end]).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_counted_outside_strings_only() {
        assert_eq!(count(b"1").values(), 1);
        assert_eq!(count(b"[1,2,3]").values(), 2 + 2 + 1);
        assert_eq!(count(br#"{"a":1,"b":[2]}"#).values(), 12 + 3 + 2 + 1);
        assert_eq!(count(br#""[,{:\" ,""#).values(), 1);
        let mut pieces = ValueCount::default();
        for piece in [&b"[\"a\\"[..], b"\",", b"1]"] {
            pieces.feed(piece);
        }
        assert_eq!(pieces.values(), count(br#"["a\",1]"#).values());
    }

    #[test]
    fn text_of_tiny_values_is_refused_and_real_messages_are_not() {
        let tiny = format!("[{}0]", "0,".repeat(1_000_000));
        let refused = count(tiny.as_bytes()).excess(tiny.len()).expect("refused");
        assert!(refused.contains("1000003 JSON values"), "{refused}");
        let file = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"write_file","arguments":{{"path":"a","content":"{}"}}}}}}"#,
            "x, y: [z] {w}\\n".repeat(1_000_000)
        );
        assert_eq!(count(file.as_bytes()).excess(file.len()), None);
        let numbers = format!("[{}1]", "12345,".repeat(60_000));
        assert_eq!(count(numbers.as_bytes()).excess(numbers.len()), None);
    }

    #[test]
    fn the_id_is_read_from_the_head_of_a_message() {
        let id = |text: &str| request_id(text.as_bytes());
        assert_eq!(
            id(r#"{"jsonrpc":"2.0","id":7,"params":[1,2"#),
            Some(RequestId::Number(7))
        );
        assert_eq!(
            id(r#"{"params":{"id":1,"x":"\"id\":2"},"id" : "a\"b","#),
            Some(RequestId::String("a\"b".into()))
        );
        assert_eq!(id(r#"{"method":"x","params":{"id":3}}"#), None);
        assert_eq!(id(r#"{"id":null}"#), None);
        assert_eq!(id(r#"{"id":1.5}"#), None);
        assert_eq!(id(r#"["id",{"id":4}]"#), None);
        assert_eq!(id(r#"{"jsonrpc":"2.0","method":"x","params":[0,0"#), None);
    }
}
