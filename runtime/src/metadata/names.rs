//! The Rust names of tools, parameters and enum values (FORMAT.md "Rust names").
//!
//! The JSON names stay as written for decoding and the schema; these are the
//! identifiers the generated code uses. Each function returns identifier text ready
//! to paste into Rust source (`r#type`, `self_`, `_9lives`).

use heck::{ToSnakeCase, ToUpperCamelCase};

/// Keywords of the 2024 edition, strict and reserved, that may be written as raw
/// identifiers (`r#type`).
const RAW_KEYWORDS: &[&str] = &[
    // strict
    "as", "async", "await", "break", "const", "continue", "else", "enum", "extern", "false", "fn",
    "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref",
    "return", "static", "struct", "trait", "true", "type", "unsafe", "use", "where", "while",
    "dyn", // reserved
    "abstract", "become", "box", "do", "final", "gen", "macro", "override", "priv", "try",
    "typeof", "unsized", "virtual", "yield",
];

/// Keywords that cannot be raw identifiers; they get a trailing `_` instead.
const NON_RAW_KEYWORDS: &[&str] = &["self", "Self", "super", "crate", "_"];

/// Turns a name into an identifier: keywords escaped, a leading digit prefixed.
fn escape(ident: String) -> String {
    if NON_RAW_KEYWORDS.contains(&ident.as_str()) {
        format!("{ident}_")
    } else if RAW_KEYWORDS.contains(&ident.as_str()) {
        format!("r#{ident}")
    } else if ident.is_empty() || ident.starts_with(|c: char| c.is_ascii_digit()) {
        format!("_{ident}")
    } else {
        ident
    }
}

/// True when `ident` is a Rust keyword of the 2024 edition (strict or reserved).
pub fn is_keyword(ident: &str) -> bool {
    RAW_KEYWORDS.contains(&ident) || NON_RAW_KEYWORDS.contains(&ident)
}

/// The snake-case form of a name before escaping: heck's `to_snake_case`, the key
/// for finding collisions (`userId` and `user_id` are both `user_id`).
pub fn snake(name: &str) -> String {
    name.to_snake_case()
}

/// The UpperCamel form of a name before escaping: heck's `to_upper_camel_case`.
pub fn upper_camel(name: &str) -> String {
    name.to_upper_camel_case()
}

/// The struct field of a parameter: `userId` → `user_id`, `type` → `r#type`,
/// `Self` → `self_`, `9lives` → `_9lives`.
pub fn field_name(param: &str) -> String {
    escape(snake(param))
}

/// The trait method of a tool: `get-user` → `get_user`, `match` → `r#match`.
pub fn method_name(tool: &str) -> String {
    escape(snake(tool))
}

/// The type-name stem of a tool: `get-user` → `GetUser`, used for `GetUserArgs`
/// and `GetUserOutput`. A leading digit is prefixed with `_`.
pub fn type_stem(tool: &str) -> String {
    let camel = upper_camel(tool);
    if camel.starts_with(|c: char| c.is_ascii_digit()) {
        format!("_{camel}")
    } else {
        camel
    }
}

/// The enum variant of an enum value: `in-progress` → `InProgress`, `self` →
/// `Self_`, `2x` → `_2x`.
pub fn variant_name(value: &str) -> String {
    escape(upper_camel(value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_names() {
        let table = [
            ("userId", "user_id"),
            ("user_id", "user_id"),
            ("user-name", "user_name"),
            ("dotted.name", "dotted_name"),
            ("HTTPServer", "http_server"),
            ("getHTTPResponseCode", "get_http_response_code"),
            ("type", "r#type"),
            ("self", "self_"),
            ("Self", "self_"),
            ("super", "super_"),
            ("crate", "crate_"),
            ("9lives", "_9lives"),
            ("2fa_code", "_2fa_code"),
            ("Z", "z"),
            ("gen", "r#gen"),
            ("try", "r#try"),
            ("union", "union"),
            ("async", "r#async"),
        ];
        for (name, field) in table {
            assert_eq!(field_name(name), field, "{name}");
        }
    }

    #[test]
    fn type_stems_and_variants() {
        assert_eq!(type_stem("get-user"), "GetUser");
        assert_eq!(type_stem("api.v1.get-user"), "ApiV1GetUser");
        assert_eq!(type_stem("9lives"), "_9lives");
        assert_eq!(variant_name("in-progress"), "InProgress");
        assert_eq!(variant_name("self"), "Self_");
        assert_eq!(variant_name("GET"), "Get");
        assert_eq!(variant_name("2x"), "_2x");
    }
}
