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

    /// True when `ident` is a Rust keyword of the 2024 edition (strict or
    /// reserved): what the escaping tables must cover.
    fn is_keyword(ident: &str) -> bool {
        RAW_KEYWORDS.contains(&ident) || NON_RAW_KEYWORDS.contains(&ident)
    }

    /// Every strict and reserved keyword of the 2024 edition.
    const KEYWORDS_2024: &[&str] = &[
        "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum",
        "extern", "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move",
        "mut", "pub", "ref", "return", "self", "Self", "static", "struct", "super", "trait",
        "true", "type", "unsafe", "use", "where", "while", "abstract", "become", "box", "do",
        "final", "gen", "macro", "override", "priv", "try", "typeof", "unsized", "virtual",
        "yield",
    ];

    /// The identifier must parse as one Rust identifier (syn refuses keywords
    /// unless raw) and, for fields, be the escaped snake case of the name.
    fn assert_ident(ident: &str) {
        let parsed = syn::parse_str::<syn::Ident>(ident);
        assert!(parsed.is_ok(), "`{ident}` is not an identifier");
    }

    #[test]
    fn every_keyword_is_escaped() {
        for &keyword in KEYWORDS_2024 {
            assert!(is_keyword(keyword), "{keyword}");
            let field = field_name(keyword);
            assert_ident(&field);
            let expected = match keyword {
                "self" | "Self" => "self_".to_owned(),
                "super" | "crate" => format!("{keyword}_"),
                _ => format!("r#{keyword}"),
            };
            assert_eq!(field, expected, "{keyword}");
            assert_eq!(method_name(keyword), expected, "{keyword}");
            assert_ident(&variant_name(keyword));
            assert_ident(&format!("{}Args", type_stem(keyword)));
        }
        assert!(!is_keyword("union"), "weak keywords are identifiers");
        assert!(!is_keyword("raw"));
    }

    #[test]
    fn field_names() {
        let table = [
            // camelCase, PascalCase and acronyms
            ("userId", "user_id"),
            ("UserId", "user_id"),
            ("user_id", "user_id"),
            ("HTTPServer", "http_server"),
            ("getHTTPResponseCode", "get_http_response_code"),
            ("XMLHttpRequest", "xml_http_request"),
            ("ID", "id"),
            ("maxResults", "max_results"),
            // dashes and dots
            ("user-name", "user_name"),
            ("dotted.name", "dotted_name"),
            ("a.b-c_d", "a_b_c_d"),
            // leading digits
            ("9lives", "_9lives"),
            ("2fa_code", "_2fa_code"),
            ("3D", "_3d"),
            // keywords and the identifiers that cannot be raw
            ("type", "r#type"),
            ("Type", "r#type"),
            ("self", "self_"),
            ("Self", "self_"),
            ("super", "super_"),
            ("crate", "crate_"),
            ("_", "_"),
            ("gen", "r#gen"),
            ("try", "r#try"),
            ("async", "r#async"),
            ("union", "union"),
            // plain
            ("Z", "z"),
            ("_private", "private"),
        ];
        for (name, field) in table {
            assert_eq!(field_name(name), field, "{name}");
            if name != "_" {
                assert_ident(field);
            }
        }
    }

    #[test]
    fn type_stems_and_variants() {
        let stems = [
            ("get-user", "GetUser"),
            ("api.v1.get-user", "ApiV1GetUser"),
            ("getHTTPStatus", "GetHttpStatus"),
            ("clone", "Clone"),
            ("Option", "Option"),
            ("9lives", "_9lives"),
        ];
        for (tool, stem) in stems {
            assert_eq!(type_stem(tool), stem, "{tool}");
            assert_ident(&format!("{stem}Args"));
        }
        let variants = [
            ("in-progress", "InProgress"),
            ("in_progress", "InProgress"),
            ("self", "Self_"),
            ("Self", "Self_"),
            ("super", "Super"),
            ("GET", "Get"),
            ("x-y", "XY"),
            ("2x", "_2x"),
        ];
        for (value, variant) in variants {
            assert_eq!(variant_name(value), variant, "{value}");
            assert_ident(variant);
        }
    }
}
