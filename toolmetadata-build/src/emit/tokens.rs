//! The small pieces every generated item is made with: identifiers, doc
//! attributes and the lints the user is spared.

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

/// On every generated item: in a binary crate, generated items the program
/// does not use (a tool's argument it ignores, `tool_set` when it never serves
/// the set) are not the user's dead code to fix.
pub(super) fn allow() -> TokenStream {
    quote!(#[allow(dead_code, unreachable_pub)])
}

pub(super) fn ident(text: &str) -> Ident {
    match text.strip_prefix("r#") {
        Some(raw) => Ident::new_raw(raw, Span::call_site()),
        None => Ident::new(text, Span::call_site()),
    }
}

/// Text for a `#[doc]`: one line, and nothing rustdoc would read as a link, an
/// HTML tag or the start of a code block (which `cargo test --doc` would run).
/// Code spans (between backticks) are left as written: rustdoc shows them
/// literally, escapes included.
pub(super) fn doc(text: &str) -> TokenStream {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut escaped = String::with_capacity(line.len() + 1);
    escaped.push(' ');
    if line.starts_with("```") || line.starts_with("~~~") || line.starts_with('#') {
        escaped.push('\\');
    }
    let mut in_code = false;
    for c in line.chars() {
        match c {
            '`' => {
                in_code = !in_code;
                escaped.push(c);
            }
            _ if in_code => escaped.push(c),
            '\\' => escaped.push_str("\\\\"),
            '[' => escaped.push_str("\\["),
            ']' => escaped.push_str("\\]"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            _ => escaped.push(c),
        }
    }
    quote!(#[doc = #escaped])
}
