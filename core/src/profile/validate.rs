//! A definition against its profile's rules.

use serde_json::{Map, Value};

use super::export::is_type;
use super::keywords::{
    ANTHROPIC_STRICT_REFUSED, GEMINI_KEYWORDS, OPENAI_STRICT_FORMATS, OPENAI_STRICT_REFUSED,
};
use super::rules::{self, Rule};
use super::{Export, Profile, Violation};

pub(super) fn validate(
    profile: Profile,
    definition: &Export,
    server: Option<&str>,
) -> Vec<Violation> {
    let mut found = Found::default();
    for rule in profile.rules() {
        // A definition given without `strict` is not held to the strict
        // grammar's rules (the provider takes it as it takes any).
        let strict_only = rule.id.starts_with("openai-strict/")
            || rule.id.starts_with("strict/")
            || rule.id.starts_with("anthropic-strict/");
        if strict_only && !definition.strict {
            continue;
        }
        check(rule, definition, server, &mut found);
    }
    found.0
}

pub(super) fn validate_set(profile: Profile, tools: usize) -> Vec<Violation> {
    let mut found = Found::default();
    if profile.rules().contains(&rules::HOST_TOOL_COUNT) && tools > 128 {
        found.add(&rules::HOST_TOOL_COUNT, "", format!("{tools} tools"));
    }
    found.0
}

#[derive(Default)]
struct Found(Vec<Violation>);

impl Found {
    fn add(&mut self, rule: &'static Rule, at: &str, detail: String) {
        self.0.push(Violation {
            rule,
            at: at.to_owned(),
            detail,
        });
    }
}

fn ascii_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

fn check(rule: &'static Rule, definition: &Export, server: Option<&str>, found: &mut Found) {
    let name = definition.name.as_str();
    let schema = definition.parameters.as_ref();
    match rule.id {
        "name/ascii-64" => {
            if !ascii_name(name) {
                found.add(rule, "name", format!("`{name}`"));
            }
        }
        "gemini/name" => {
            let valid = name.len() <= 64
                && name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_.:-".contains(c));
            if !valid {
                found.add(rule, "name", format!("`{name}`"));
            }
        }
        "schema/root-object" => {
            if schema.is_none_or(|s| s["type"] != "object") {
                found.add(rule, "", "the root is not `type: object`".to_owned());
            }
        }
        "gemini-json/object" => {
            if let Some(s) = schema
                && (s["type"] != "object" || s.get("$schema").is_some())
            {
                found.add(rule, "", "not an object without `$schema`".to_owned());
            }
        }
        "mcp-hosts/prefixed-name" => {
            let prefixed = format!("mcp__{}__{name}", server.unwrap_or_default());
            let shown = if server.is_some() { &prefixed } else { name };
            if !ascii_name(shown) {
                found.add(
                    rule,
                    "name",
                    format!("`{shown}` ({} characters)", shown.chars().count()),
                );
            }
        }
        "mcp-hosts/tool-count" => {}
        _ => {
            if let Some(schema) = schema {
                let mut limits = Limits::default();
                walk(schema, "", 1, &mut |node, at, depth| {
                    check_node(rule, node, at, depth, found, &mut limits);
                });
                if rule.id == "openai-strict/limits" {
                    limits.report(rule, found);
                }
            }
        }
    }
}

#[derive(Default)]
struct Limits {
    properties: usize,
    depth: usize,
    enum_values: usize,
    text: usize,
}

impl Limits {
    fn report(&self, rule: &'static Rule, found: &mut Found) {
        for (what, n, max) in [
            ("properties", self.properties, 5_000),
            ("levels of nesting", self.depth, 10),
            ("enum values", self.enum_values, 1_000),
            ("characters of names and enum values", self.text, 120_000),
        ] {
            if n > max {
                found.add(rule, "", format!("{n} {what}, over {max}"));
            }
        }
    }
}

/// Calls `f` on every schema node with its JSON pointer and how many
/// objects deep it is.
fn walk(
    node: &Value,
    at: &str,
    depth: usize,
    f: &mut impl FnMut(&Map<String, Value>, &str, usize),
) {
    let Some(map) = node.as_object() else {
        return;
    };
    f(map, at, depth);
    let inner = if is_type(map, "object") || map.contains_key("properties") {
        depth + 1
    } else {
        depth
    };
    if let Some(props) = map.get("properties").and_then(Value::as_object) {
        for (name, child) in props {
            walk(child, &format!("{at}/properties/{name}"), inner, f);
        }
    }
    for key in ["$defs", "definitions"] {
        if let Some(defs) = map.get(key).and_then(Value::as_object) {
            for (name, child) in defs {
                walk(child, &format!("{at}/{key}/{name}"), depth, f);
            }
        }
    }
    for key in ["items", "additionalProperties", "not", "if", "then", "else"] {
        match map.get(key) {
            Some(child @ Value::Object(_)) => walk(child, &format!("{at}/{key}"), inner, f),
            Some(Value::Array(list)) if key == "items" => {
                for (i, child) in list.iter().enumerate() {
                    walk(child, &format!("{at}/items/{i}"), inner, f);
                }
            }
            _ => {}
        }
    }
    for key in ["anyOf", "oneOf", "allOf", "prefixItems"] {
        if let Some(list) = map.get(key).and_then(Value::as_array) {
            for (i, child) in list.iter().enumerate() {
                walk(child, &format!("{at}/{key}/{i}"), depth, f);
            }
        }
    }
}

fn check_node(
    rule: &'static Rule,
    node: &Map<String, Value>,
    at: &str,
    depth: usize,
    found: &mut Found,
    limits: &mut Limits,
) {
    let object = is_type(node, "object");
    match rule.id {
        "schema/object-properties" if object && !node.contains_key("properties") => {
            found.add(rule, at, "an object without `properties`".to_owned());
        }
        "schema/array-items" if is_type(node, "array") && !node.contains_key("items") => {
            found.add(rule, at, "an array without `items`".to_owned());
        }
        "openai-strict/all-required" => {
            if let Some(props) = node.get("properties").and_then(Value::as_object) {
                let required: Vec<&str> = node
                    .get("required")
                    .and_then(Value::as_array)
                    .map(|r| r.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                for key in props.keys() {
                    if !required.contains(&key.as_str()) {
                        found.add(rule, at, format!("`{key}` is not required"));
                    }
                }
            }
        }
        "strict/additional-properties-false"
            if (object || node.contains_key("properties"))
                && node.get("additionalProperties") != Some(&Value::Bool(false)) =>
        {
            found.add(
                rule,
                at,
                "an object without `additionalProperties: false`".to_owned(),
            );
        }
        "openai-strict/keywords" => {
            for key in OPENAI_STRICT_REFUSED.iter().chain(&["default"]).copied() {
                if node.contains_key(key) {
                    found.add(rule, at, format!("`{key}`"));
                }
            }
            if let Some(format) = node.get("format")
                && !format
                    .as_str()
                    .is_some_and(|f| OPENAI_STRICT_FORMATS.contains(&f))
            {
                found.add(rule, at, format!("format {format}"));
            }
            if node.contains_key("oneOf") {
                found.add(rule, at, "`oneOf` (strict mode takes `anyOf`)".to_owned());
            }
            if !["type", "anyOf", "enum", "const", "$ref"]
                .iter()
                .any(|k| node.contains_key(*k))
            {
                found.add(rule, at, "a schema without a type".to_owned());
            }
        }
        "openai-strict/limits" => {
            if let Some(props) = node.get("properties").and_then(Value::as_object) {
                limits.properties += props.len();
                limits.text += props.keys().map(String::len).sum::<usize>();
            }
            if let Some(value) = node.get("const").and_then(Value::as_str) {
                limits.text += value.len();
            }
            if let Some(values) = node.get("enum").and_then(Value::as_array) {
                limits.enum_values += values.len();
                limits.text += values
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::len)
                    .sum::<usize>();
            }
            if is_type(node, "object") || node.contains_key("properties") {
                limits.depth = limits.depth.max(depth);
            }
        }
        "anthropic-strict/bounds" => {
            for key in ANTHROPIC_STRICT_REFUSED {
                if node.contains_key(*key) {
                    found.add(rule, at, format!("`{key}`"));
                }
            }
            if node
                .get("minItems")
                .is_some_and(|n| n.as_u64().is_none_or(|n| n > 1))
            {
                found.add(rule, at, "`minItems` above 1".to_owned());
            }
        }
        "gemini/openapi-subset" => {
            for key in node.keys() {
                if !GEMINI_KEYWORDS.contains(&key.as_str()) {
                    found.add(rule, at, format!("`{key}`"));
                }
            }
        }
        "gemini/single-type" if node.get("type").is_some_and(|t| !t.is_string()) => {
            found.add(rule, at, format!("type {}", node["type"]));
        }
        "gemini/nonempty-properties"
            if object
                && node
                    .get("properties")
                    .and_then(Value::as_object)
                    .is_none_or(Map::is_empty) =>
        {
            found.add(rule, at, "an object without properties".to_owned());
        }
        "gemini/string-enum"
            if node.contains_key("enum")
                && (!is_type(node, "string")
                    || !node["enum"]
                        .as_array()
                        .is_some_and(|v| v.iter().all(Value::is_string))) =>
        {
            found.add(rule, at, format!("enum {}", node["enum"]));
        }
        "gemini/format" => {
            if let Some(format) = node.get("format")
                && !matches!(format.as_str(), Some("enum" | "date-time"))
            {
                found.add(rule, at, format!("format {format}"));
            }
        }
        _ => {}
    }
}
