//! A `tools/list` entry → the definition one provider accepts.

use serde_json::{Map, Value, json};

use super::keywords::{
    ANNOTATIONS, ANTHROPIC_STRICT_REFUSED, GEMINI_KEYWORDS, OPENAI_STRICT_FORMATS,
    OPENAI_STRICT_REFUSED,
};
use super::rules::{self, Rule};
use super::{Export, Moved, Profile};

pub(super) fn export(profile: Profile, entry: &Value) -> Export {
    let mcp_name = entry["name"].as_str().unwrap_or_default().to_owned();
    let description = entry["description"].as_str().unwrap_or_default().to_owned();
    let mut schema = entry
        .get("inputSchema")
        .filter(|s| s.is_object())
        .cloned()
        .unwrap_or_else(|| json!({"type": "object", "properties": {}}));
    let mut moved = Vec::new();
    let mut strict = false;
    let parameters = match profile {
        Profile::OpenAiStrict => {
            let mut cx = Walk::new(&mut moved);
            openai_strict(&mut schema, "", &mut cx);
            strict = cx.strict;
            Some(schema)
        }
        Profile::OpenAi | Profile::Anthropic => {
            plain(&mut schema);
            Some(schema)
        }
        Profile::GeminiJson => {
            strip_extensions(&mut schema);
            Some(schema)
        }
        Profile::AnthropicStrict => {
            let mut cx = Walk::new(&mut moved);
            anthropic_strict(&mut schema, "", &mut cx);
            strict = cx.strict;
            Some(schema)
        }
        Profile::Gemini => {
            let mut cx = Walk::new(&mut moved);
            gemini(&mut schema, "", &mut cx);
            let empty = schema["properties"].as_object().is_none_or(Map::is_empty);
            (!empty).then_some(schema)
        }
        Profile::McpHosts => Some(schema),
    };
    Export {
        name: legal_name(profile, &mcp_name),
        mcp_name,
        description,
        parameters,
        strict,
        moved,
    }
}

/// The exports of a whole set: as [`export`], with names that two tools
/// would share told apart. A name a provider takes stays as it is; a mapped
/// name that meets another takes its MCP name's digest (and a number, in
/// the unlikely case that meets one too): so a mapped name changes only when
/// a tool of that very name joins the set.
pub(super) fn export_set(profile: Profile, entries: &[Value]) -> Vec<Export> {
    let mut exports: Vec<Export> = entries.iter().map(|e| export(profile, e)).collect();
    let mut taken: std::collections::HashSet<String> = exports
        .iter()
        .filter(|e| e.name == e.mcp_name)
        .map(|e| e.name.clone())
        .collect();
    for e in exports.iter_mut().filter(|e| e.name != e.mcp_name) {
        if taken.contains(&e.name) {
            let mut name = with_digest(&e.name, &e.mcp_name);
            let mut n = 1;
            while taken.contains(&name) {
                name = with_digest(&e.name, &format!("{}#{n}", e.mcp_name));
                n += 1;
            }
            e.name = name;
        }
        taken.insert(e.name.clone());
    }
    exports
}

/// The longest name a provider takes.
const NAME_LIMIT: usize = 64;

/// `name` as `profile`'s provider takes it: characters it refuses as `_`,
/// a digest of the MCP name when it is too long.
fn legal_name(profile: Profile, name: &str) -> String {
    let gemini = matches!(profile, Profile::Gemini | Profile::GeminiJson);
    if profile == Profile::McpHosts {
        return name.to_owned();
    }
    let allowed = |c: char| {
        c.is_ascii_alphanumeric() || c == '_' || c == '-' || (gemini && (c == '.' || c == ':'))
    };
    let mut legal: String = name
        .chars()
        .map(|c| if allowed(c) { c } else { '_' })
        .collect();
    if legal.is_empty() {
        legal.push_str("tool");
    }
    if gemini && !legal.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        legal.insert(0, '_');
    }
    if legal.len() > NAME_LIMIT {
        legal = with_digest(&legal, name);
    }
    legal
}

/// `name` cut to leave room for `_` and 8 hex digits of `of`'s digest.
fn with_digest(name: &str, of: &str) -> String {
    // FNV-1a: stable across builds and machines, no dependency.
    let digest = of.bytes().fold(0x811c_9dc5_u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    });
    let keep = NAME_LIMIT - 9;
    let cut: String = name.chars().take(keep).collect();
    format!("{cut}_{digest:08x}")
}

/// What a walk of a schema records.
struct Walk<'a> {
    moved: &'a mut Vec<Moved>,
    /// What the node being walked lost, for its description.
    pending: Vec<String>,
    /// Whether the schema can still be given as strict.
    strict: bool,
}

impl<'a> Walk<'a> {
    fn new(moved: &'a mut Vec<Moved>) -> Self {
        Walk {
            moved,
            pending: Vec::new(),
            strict: true,
        }
    }

    /// Says `text` in the node's description, losing nothing (a default,
    /// which the server applies to an absent value anyway).
    fn say(&mut self, text: String) {
        self.pending.push(text);
    }

    /// The schema cannot be strict: the tool is given without `strict`, and
    /// the provider does not hold the model to its schema.
    fn not_strict(&mut self, parameter: &str, rule: &'static Rule, why: &str) {
        if self.strict {
            self.moved.push(Moved {
                rule,
                parameter: parameter.to_owned(),
                what: format!("not strict: {why}"),
            });
        }
        self.strict = false;
    }

    /// Notes that `what` leaves the schema of `parameter` under `rule`;
    /// [`Walk::describe`] puts it in the description.
    fn move_out(&mut self, parameter: &str, rule: &'static Rule, what: String) {
        self.pending.push(what.clone());
        self.moved.push(Moved {
            rule,
            parameter: parameter.to_owned(),
            what,
        });
    }

    /// `node`'s description, with what it lost said in parentheses.
    fn describe(&mut self, node: &mut Map<String, Value>) {
        if self.pending.is_empty() {
            return;
        }
        let lost = std::mem::take(&mut self.pending).join("; ");
        let description = node
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .trim_end();
        let text = if description.is_empty() {
            lost
        } else {
            format!("{description} ({lost})")
        };
        node.insert("description".into(), Value::String(text));
    }
}

/// `key` of `node` as it reads in a description.
fn shown(key: &str, value: &Value) -> String {
    let value = match value {
        Value::String(s) => format!("\"{s}\""),
        other => other.to_string(),
    };
    match key {
        "exclusiveMinimum" => format!("greater than {value}"),
        "exclusiveMaximum" => format!("less than {value}"),
        "multipleOf" => format!("a multiple of {value}"),
        "minLength" => format!("at least {value} characters"),
        "maxLength" => format!("at most {value} characters"),
        "minItems" => format!("at least {value} items"),
        "maxItems" => format!("at most {value} items"),
        "uniqueItems" => "items unique".to_owned(),
        "contains" => "at least one item of the kind the schema gave".to_owned(),
        "minContains" => format!("at least {value} matching items"),
        "maxContains" => format!("at most {value} matching items"),
        other => format!("{other} {value}"),
    }
}

/// The sub-schemas of `node`, with the parameter path each belongs to.
fn children<'n>(node: &'n mut Map<String, Value>, parameter: &str) -> Vec<(&'n mut Value, String)> {
    let mut out = Vec::new();
    for (key, value) in node.iter_mut() {
        match key.as_str() {
            "properties" => {
                if let Some(props) = value.as_object_mut() {
                    for (name, child) in props.iter_mut() {
                        let path = if parameter.is_empty() {
                            name.clone()
                        } else {
                            format!("{parameter}.{name}")
                        };
                        out.push((child, path));
                    }
                }
            }
            "items" | "prefixItems" => match value {
                Value::Array(items) => {
                    out.extend(items.iter_mut().map(|v| (v, format!("{parameter}[]"))));
                }
                _ => out.push((value, format!("{parameter}[]"))),
            },
            "additionalProperties" if value.is_object() => {
                out.push((value, format!("{parameter}{{}}")));
            }
            "anyOf" | "oneOf" | "allOf" => {
                if let Some(items) = value.as_array_mut() {
                    out.extend(items.iter_mut().map(|v| (v, parameter.to_owned())));
                }
            }
            "not" | "if" | "then" | "else" => out.push((value, parameter.to_owned())),
            "$defs" | "definitions" => {
                if let Some(defs) = value.as_object_mut() {
                    out.extend(defs.values_mut().map(|v| (v, parameter.to_owned())));
                }
            }
            _ => {}
        }
    }
    out
}

/// Drops MCP's own keywords (`x-…`) and `$schema`, everywhere.
fn strip_extensions(schema: &mut Value) {
    let Some(node) = schema.as_object_mut() else {
        return;
    };
    node.retain(|k, _| !(k.starts_with("x-") || k == "$schema"));
    for (child, _) in children(node, "") {
        strip_extensions(child);
    }
}

/// [`strip_extensions`], and an object's `properties` and an array's
/// `items` given where they are missing (OpenAI refuses either without).
fn plain(schema: &mut Value) {
    let Some(node) = schema.as_object_mut() else {
        return;
    };
    node.retain(|k, _| !(k.starts_with("x-") || k == "$schema"));
    if is_type(node, "object") {
        node.entry("properties").or_insert_with(|| json!({}));
    }
    if is_type(node, "array") {
        node.entry("items").or_insert_with(|| json!({}));
    }
    for (child, _) in children(node, "") {
        plain(child);
    }
}

/// Whether `node`'s `type` is `name`, or a union holding it.
pub(super) fn is_type(node: &Map<String, Value>, name: &str) -> bool {
    match node.get("type") {
        Some(Value::String(t)) => t == name,
        Some(Value::Array(types)) => types.iter().any(|t| t == name),
        _ => false,
    }
}

fn is_object(node: &Map<String, Value>) -> bool {
    is_type(node, "object") || node.contains_key("properties")
}

/// An object of any keys (`additionalProperties` a schema, no properties):
/// what a strict grammar cannot say.
fn is_map(node: &Map<String, Value>) -> bool {
    node.get("additionalProperties")
        .is_some_and(Value::is_object)
        && node
            .get("properties")
            .and_then(Value::as_object)
            .is_none_or(Map::is_empty)
}

/// Whether `node` says what its value is (strict grammars need one of these).
fn is_typed(node: &Map<String, Value>) -> bool {
    ["type", "anyOf", "enum", "const", "$ref"]
        .iter()
        .any(|k| node.contains_key(*k))
}

fn openai_strict(schema: &mut Value, parameter: &str, cx: &mut Walk<'_>) {
    let Some(node) = schema.as_object_mut() else {
        return;
    };
    node.retain(|k, _| !k.starts_with("x-") && k != "$schema");
    // One schema in `allOf` is that schema (schemars writes references so).
    if let Some(Value::Array(all)) = node.get("allOf")
        && let [Value::Object(only)] = all.as_slice()
    {
        let only = only.clone();
        node.remove("allOf");
        for (key, value) in only {
            node.entry(key).or_insert(value);
        }
    }
    if let Some(one_of) = node.remove("oneOf") {
        node.insert("anyOf".into(), one_of);
        cx.move_out(
            parameter,
            &rules::STRICT_KEYWORDS,
            "exactly one of these".to_owned(),
        );
    }
    for key in OPENAI_STRICT_REFUSED {
        if let Some(value) = node.remove(*key) {
            cx.move_out(parameter, &rules::STRICT_KEYWORDS, shown(key, &value));
        }
    }
    if let Some(default) = node.remove("default") {
        cx.say(shown("default", &default));
    }
    if let Some(format) = node.get("format").cloned()
        && !format
            .as_str()
            .is_some_and(|f| OPENAI_STRICT_FORMATS.contains(&f))
    {
        node.remove("format");
        cx.move_out(parameter, &rules::STRICT_KEYWORDS, shown("format", &format));
    }
    if is_map(node) {
        map_not_strict(node, parameter, cx);
    } else if is_object(node) {
        strict_object(node);
    }
    if is_type(node, "array") && !node.contains_key("items") {
        node.insert("items".into(), json!({}));
        cx.not_strict(parameter, &rules::STRICT_KEYWORDS, "an array of anything");
    }
    if !is_typed(node) {
        cx.not_strict(parameter, &rules::STRICT_KEYWORDS, "a value of any type");
    }
    cx.describe(node);
    for (child, path) in children(node, parameter) {
        openai_strict(child, &path, cx);
    }
}

/// An object of any keys, which no strict grammar says: `properties` given
/// as empty, and the tool not strict.
fn map_not_strict(node: &mut Map<String, Value>, parameter: &str, cx: &mut Walk<'_>) {
    node.entry("properties").or_insert_with(|| json!({}));
    cx.not_strict(
        parameter,
        &rules::STRICT_NO_ADDITIONAL,
        "an object of any keys",
    );
}

/// An object as strict mode takes it: every property required (optional
/// ones nullable), no other keys; `required` names only its properties.
fn strict_object(node: &mut Map<String, Value>) {
    let required: Vec<String> = node
        .get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    let props = node
        .entry("properties")
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .map(|p| p.keys().cloned().collect::<Vec<_>>())
        .unwrap_or_default();
    if let Some(map) = node.get_mut("properties").and_then(Value::as_object_mut) {
        for key in &props {
            if !required.contains(key)
                && let Some(child) = map.get_mut(key)
            {
                nullable(child);
            }
        }
    }
    node.insert("required".into(), json!(props));
    node.insert("additionalProperties".into(), json!(false));
}

/// `schema` also taking `null`, as strict mode says an optional value.
fn nullable(schema: &mut Value) {
    let Some(node) = schema.as_object_mut() else {
        return;
    };
    if let Some(value) = node.remove("const") {
        node.insert("enum".into(), json!([value]));
    }
    match node.get_mut("type") {
        Some(Value::String(t)) if t == "null" => {}
        Some(Value::String(t)) => {
            let t = std::mem::take(t);
            node.insert("type".into(), json!([t, "null"]));
        }
        Some(Value::Array(types)) => {
            if !types.iter().any(|t| t == "null") {
                types.push(json!("null"));
            }
        }
        _ => {
            let takes_null = node
                .get("anyOf")
                .and_then(Value::as_array)
                .is_some_and(|a| a.iter().any(|s| s["type"] == "null"));
            if let Some(Value::Array(values)) = node.get_mut("enum") {
                if !values.iter().any(Value::is_null) {
                    values.push(Value::Null);
                }
                return;
            }
            if !takes_null {
                let inner = Value::Object(std::mem::take(node));
                node.insert("anyOf".into(), json!([inner, {"type": "null"}]));
            }
            return;
        }
    }
    if let Some(Value::Array(values)) = node.get_mut("enum")
        && !values.iter().any(Value::is_null)
    {
        values.push(Value::Null);
    }
}

fn anthropic_strict(schema: &mut Value, parameter: &str, cx: &mut Walk<'_>) {
    let Some(node) = schema.as_object_mut() else {
        return;
    };
    node.retain(|k, _| !k.starts_with("x-") && k != "$schema");
    // It asks nothing: nothing to say in words.
    if node.get("uniqueItems") == Some(&Value::Bool(false)) {
        node.remove("uniqueItems");
    }
    for key in ANTHROPIC_STRICT_REFUSED {
        if let Some(value) = node.remove(*key) {
            cx.move_out(
                parameter,
                &rules::ANTHROPIC_STRICT_BOUNDS,
                shown(key, &value),
            );
        }
    }
    if let Some(min) = node.get("minItems").cloned()
        && min.as_u64().is_none_or(|n| n > 1)
    {
        node.remove("minItems");
        cx.move_out(
            parameter,
            &rules::ANTHROPIC_STRICT_BOUNDS,
            shown("minItems", &min),
        );
    }
    if is_map(node) {
        map_not_strict(node, parameter, cx);
    } else if is_object(node) {
        node.entry("properties").or_insert_with(|| json!({}));
        node.insert("additionalProperties".into(), json!(false));
    }
    cx.describe(node);
    for (child, path) in children(node, parameter) {
        anthropic_strict(child, &path, cx);
    }
}

fn gemini(schema: &mut Value, parameter: &str, cx: &mut Walk<'_>) {
    let Some(node) = schema.as_object_mut() else {
        return;
    };
    // A type union is one type, nullable, or `anyOf` of single types.
    if let Some(Value::Array(types)) = node.get("type").cloned() {
        let named: Vec<&Value> = types.iter().filter(|t| *t != "null").collect();
        if named.len() < types.len() {
            node.insert("nullable".into(), json!(true));
        }
        match named.as_slice() {
            [one] => {
                node.insert("type".into(), (*one).clone());
            }
            several => {
                node.remove("type");
                let any: Vec<Value> = several.iter().map(|t| json!({"type": t})).collect();
                node.insert("anyOf".into(), Value::Array(any));
            }
        }
    }
    if let Some(value) = node.remove("const") {
        node.insert("enum".into(), json!([value]));
    }
    if let Some(values) = node.get("enum").and_then(Value::as_array)
        && (!is_type(node, "string") || !values.iter().all(Value::is_string))
    {
        let values = node.remove("enum").unwrap_or_default();
        cx.move_out(
            parameter,
            &rules::GEMINI_STRING_ENUM,
            format!("one of {values}"),
        );
    }
    let refused: Vec<String> = node
        .keys()
        .filter(|k| !GEMINI_KEYWORDS.contains(&k.as_str()))
        .cloned()
        .collect();
    for key in refused {
        let Some(value) = node.remove(&key) else {
            continue;
        };
        let constrains = match key.as_str() {
            "additionalProperties" => value.is_object(),
            other => !other.starts_with("x-") && !ANNOTATIONS.contains(&other),
        };
        if constrains {
            cx.move_out(parameter, &rules::GEMINI_KEYWORDS, shown(&key, &value));
        }
    }
    if let Some(format) = node.get("format").cloned()
        && !matches!(format.as_str(), Some("enum" | "date-time"))
    {
        node.remove("format");
        cx.move_out(parameter, &rules::GEMINI_FORMAT, shown("format", &format));
    }
    // Gemini refuses a `required` that names no property.
    let names: Vec<String> = node
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default();
    if let Some(Value::Array(required)) = node.get_mut("required") {
        required.retain(|r| r.as_str().is_some_and(|r| names.iter().any(|n| n == r)));
    }
    cx.describe(node);
    for (child, path) in children(node, parameter) {
        gemini(child, &path, cx);
    }
}
