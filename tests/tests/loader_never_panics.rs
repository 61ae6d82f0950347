//! No input makes the loader panic: corpus files mutated (bytes flipped, deleted
//! and inserted, truncated, lines duplicated, keys renamed, values swapped for
//! other types) load to a tool or to diagnostics, and both render.

use proptest::prelude::*;
use toolmetadata::metadata::{Format, Loader, tool_name};
use toolmetadata_tests::conformance;

struct Corpus {
    files: Vec<(String, Format, Vec<u8>)>,
}

fn corpus() -> Corpus {
    let dir = conformance::dir().join("corpus");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("corpus")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    Corpus {
        files: files
            .into_iter()
            .map(|p| {
                let format = Format::from_path(&p).expect("toml or json");
                (tool_name(&p), format, std::fs::read(&p).expect("read"))
            })
            .collect(),
    }
}

/// Keys of the format in several spellings, and other words, for renaming.
const KEYS: &[&str] = &[
    "description",
    "Description",
    "DESCRIPTION",
    "parameters",
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
    "output",
    "ui",
    "resourceUri",
    "visibility",
    "icons",
    "src",
    "theme",
    "sizes",
    "mimeType",
    "keywords",
    "discoverable",
    "title",
    "readOnly",
    "requried",
    "x",
    "",
];

/// Values of every type, valid and not, in both syntaxes.
const VALUES: &[&str] = &[
    "\"string\"",
    "\"int\"",
    "\"array:string\"",
    "\"\"",
    "\"ui://a/b\"",
    "\"https://e.com/i\"",
    "0",
    "-1",
    "1.5",
    "1e308",
    "99999999999999999999",
    "true",
    "false",
    "null",
    "[]",
    "[1, \"a\"]",
    "[\"a\", \"a\"]",
    "{}",
    "{\"name\": \"x\"}",
    "{ name = \"x\" }",
    "\"\\ud800\"",
    "\"(?=a)\"",
    "inf",
    "nan",
    "1979-05-27",
    "[[1]]",
    "\"\\u0000\"",
];

/// Fragments to insert: brackets, quotes, headers, escapes, invalid UTF-8.
const FRAGMENTS: &[&[u8]] = &[
    b"\"",
    b"{",
    b"}",
    b"[",
    b"]",
    b",",
    b":",
    b"=",
    b"\n",
    b"[[parameters]]\n",
    b"[ui]\n",
    b"[[icons]]\n",
    b"[[output]]\n",
    b"\xff",
    b"\xef\xbb\xbf",
    b"\\u",
    b"\\",
    b"#",
    b"'''",
    b"\"\"\"",
    b"\x00",
    b"\r\n",
    b"name = \"p\"\ntype = \"string\"\n",
    b"\"default\": 1,",
];

#[derive(Debug, Clone)]
enum Mutation {
    Flip { at: usize, mask: u8 },
    Delete { at: usize, len: usize },
    Truncate { at: usize },
    Insert { at: usize, fragment: usize },
    DuplicateLine { line: usize },
    RenameKey { nth: usize, key: usize },
    SwapValue { nth: usize, value: usize },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 1u8..=255).prop_map(|(at, mask)| Mutation::Flip { at, mask }),
        (any::<usize>(), 1usize..16).prop_map(|(at, len)| Mutation::Delete { at, len }),
        any::<usize>().prop_map(|at| Mutation::Truncate { at }),
        (any::<usize>(), 0..FRAGMENTS.len())
            .prop_map(|(at, fragment)| Mutation::Insert { at, fragment }),
        any::<usize>().prop_map(|line| Mutation::DuplicateLine { line }),
        (any::<usize>(), 0..KEYS.len()).prop_map(|(nth, key)| Mutation::RenameKey { nth, key }),
        (any::<usize>(), 0..VALUES.len())
            .prop_map(|(nth, value)| Mutation::SwapValue { nth, value }),
    ]
}

/// Byte ranges of quoted words (keys and string values) and of bare words and
/// numbers: the places a rename or a swap can hit.
fn tokens(bytes: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'"' {
            let start = i;
            i += 1;
            while i < bytes.len() && bytes[i] != b'"' && bytes[i] != b'\n' {
                i += 1;
            }
            out.push((start, (i + 1).min(bytes.len())));
        } else if b.is_ascii_alphanumeric() || b == b'-' {
            let start = i;
            while i < bytes.len()
                && (bytes[i].is_ascii_alphanumeric() || b"-_.".contains(&bytes[i]))
            {
                i += 1;
            }
            out.push((start, i));
            continue;
        }
        i += 1;
    }
    out
}

fn apply(mut bytes: Vec<u8>, m: &Mutation) -> Vec<u8> {
    let len = bytes.len();
    match *m {
        Mutation::Flip { at, mask } if len > 0 => bytes[at % len] ^= mask,
        Mutation::Delete { at, len: n } if len > 0 => {
            let start = at % len;
            bytes.drain(start..(start + n).min(len));
        }
        Mutation::Truncate { at } => bytes.truncate(at % (len + 1)),
        Mutation::Insert { at, fragment } => {
            let at = at % (len + 1);
            bytes.splice(at..at, FRAGMENTS[fragment].iter().copied());
        }
        Mutation::DuplicateLine { line } => {
            let lines: Vec<&[u8]> = bytes.split_inclusive(|&b| b == b'\n').collect();
            if !lines.is_empty() {
                let i = line % lines.len();
                let mut out = Vec::with_capacity(len * 2);
                for (j, l) in lines.iter().enumerate() {
                    out.extend_from_slice(l);
                    if j == i {
                        out.extend_from_slice(l);
                    }
                }
                bytes = out;
            }
        }
        Mutation::RenameKey { nth, key } | Mutation::SwapValue { nth, value: key } => {
            let quoted = matches!(m, Mutation::RenameKey { .. });
            let tokens = tokens(&bytes);
            if !tokens.is_empty() {
                let (start, end) = tokens[nth % tokens.len()];
                let replacement = if quoted {
                    let was_quoted = bytes[start] == b'"';
                    if was_quoted {
                        format!("\"{}\"", KEYS[key])
                    } else {
                        KEYS[key].to_owned()
                    }
                } else {
                    VALUES[key].to_owned()
                };
                bytes.splice(start..end, replacement.into_bytes());
            }
        }
        _ => {}
    }
    bytes
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 10_000,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn mutated_corpus_files_never_panic(
        file in any::<prop::sample::Index>(),
        mutations in prop::collection::vec(mutation(), 1..4),
    ) {
        let corpus = CORPUS.with(|c| c.files.len());
        let (name, format, original) = CORPUS.with(|c| c.files[file.index(corpus)].clone());
        let bytes = mutations.iter().fold(original, apply);
        match Loader::new().load_bytes("mutated", &name, format, &bytes) {
            Ok(loaded) => {
                let entry = loaded.tool.to_tools_list_entry();
                prop_assert_eq!(&entry["name"], &serde_json::Value::from(name));
                let text = loaded.tool.to_tools_list_json();
                let reparsed: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
                prop_assert_eq!(reparsed, entry);
            }
            Err(diagnostics) => {
                prop_assert!(!diagnostics.is_empty());
                for d in &diagnostics {
                    if let Some(span) = d.span() {
                        prop_assert!(span.start <= span.end && span.end <= bytes.len() + 3);
                    }
                    prop_assert!(!d.message().is_empty());
                }
                prop_assert!(diagnostics.render(false).contains("error["));
            }
        }
    }
}

thread_local! {
    static CORPUS: Corpus = corpus();
}
