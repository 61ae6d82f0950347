//! The `tools/list` entry of a checked tool, as Go's package renders it plus the
//! extensions (title, hints, constraints, defaults, enums, output schema).
//!
//! Serialization goes through borrowed views with a fixed field order, so the
//! compact string is deterministic and lists properties in declaration order
//! whatever `serde_json` features the build enables.

use serde::ser::{Serialize, SerializeMap, Serializer};

use super::group::GROUPS_META;

use super::types::{
    Constraints, Icon, Literal, Number, ParamType, TaskSupport, ToolMetadata, ToolParameter,
};

impl ToolMetadata {
    /// The `tools/list` entry as a JSON value.
    pub fn to_tools_list_entry(&self) -> serde_json::Value {
        serde_json::to_value(Entry(self)).unwrap_or(serde_json::Value::Null)
    }

    /// The `tools/list` entry as compact JSON text, properties in declaration order.
    pub fn to_tools_list_json(&self) -> String {
        serde_json::to_string(&Entry(self)).unwrap_or_default()
    }

    /// The `inputSchema` of the entry.
    pub fn input_schema(&self) -> serde_json::Value {
        serde_json::to_value(ObjectSchema(&self.parameters)).unwrap_or(serde_json::Value::Null)
    }

    /// The `outputSchema` of the entry, when the tool declares an output.
    pub fn output_schema(&self) -> Option<serde_json::Value> {
        self.output
            .as_deref()
            .map(|o| serde_json::to_value(ObjectSchema(o)).unwrap_or(serde_json::Value::Null))
    }
}

struct Entry<'a>(&'a ToolMetadata);

impl Serialize for Entry<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let tool = self.0;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("name", &tool.name)?;
        if let Some(title) = &tool.title {
            map.serialize_entry("title", title)?;
        }
        map.serialize_entry("description", &tool.listed_description())?;
        map.serialize_entry("inputSchema", &ObjectSchema(&tool.parameters))?;
        if let Some(output) = &tool.output {
            map.serialize_entry("outputSchema", &ObjectSchema(output))?;
        }
        if !tool.hints.is_empty() {
            map.serialize_entry("annotations", &Annotations(tool))?;
        }
        if tool.ui.is_some() || tool.output_text.is_some() || !tool.groups.is_empty() {
            map.serialize_entry("_meta", &MetaView(tool))?;
        }
        if !tool.icons.is_empty() {
            map.serialize_entry(
                "icons",
                &tool.icons.iter().map(IconView).collect::<Vec<_>>(),
            )?;
        }
        // 2025-11-25 (SEP-1686): only a tool that can run as a task says so;
        // "forbidden" is the spec's default and left out, as Go renders nothing.
        if tool.task != TaskSupport::Forbidden {
            map.serialize_entry("execution", &Execution(tool.task))?;
        }
        map.end()
    }
}

/// `{"taskSupport": "optional"}`.
struct Execution(TaskSupport);

impl Serialize for Execution {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(1))?;
        map.serialize_entry("taskSupport", self.0.as_str())?;
        map.end()
    }
}

struct Annotations<'a>(&'a ToolMetadata);

impl Serialize for Annotations<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let h = &self.0.hints;
        let mut map = serializer.serialize_map(None)?;
        for (key, value) in [
            ("readOnlyHint", h.read_only),
            ("destructiveHint", h.destructive),
            ("idempotentHint", h.idempotent),
            ("openWorldHint", h.open_world),
        ] {
            if let Some(value) = value {
                map.serialize_entry(key, &value)?;
            }
        }
        map.end()
    }
}

/// The entry's `_meta`: the MCP Apps link, `outputText` (so that a change
/// of wording shows in the catalog lock, and a client can see how the text
/// of a result is made) and `toolGroups`, sorted (so that the lock sees a
/// tool join or leave a group, and a client sees where else it is served).
struct MetaView<'a>(&'a ToolMetadata);

impl Serialize for MetaView<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        struct Ui<'a>(&'a super::types::UiMeta);
        impl Serialize for Ui<'_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut map = serializer.serialize_map(None)?;
                if let Some(uri) = &self.0.resource_uri {
                    map.serialize_entry("resourceUri", uri)?;
                }
                if !self.0.visibility.is_empty() {
                    let v: Vec<&str> = self.0.visibility.iter().map(|v| v.as_str()).collect();
                    map.serialize_entry("visibility", &v)?;
                }
                map.end()
            }
        }
        let mut map = serializer.serialize_map(None)?;
        if let Some(template) = &self.0.output_text {
            map.serialize_entry("io.toolmetadata/outputText", template)?;
        }
        if !self.0.groups.is_empty() {
            let mut groups: Vec<&str> = self.0.groups.iter().map(String::as_str).collect();
            groups.sort_unstable();
            map.serialize_entry(GROUPS_META, &groups)?;
        }
        if let Some(ui) = &self.0.ui {
            map.serialize_entry("ui", &Ui(ui))?;
        }
        map.end()
    }
}

struct IconView<'a>(&'a Icon);

impl Serialize for IconView<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let icon = self.0;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("src", &icon.src)?;
        if let Some(mime) = &icon.mime_type {
            map.serialize_entry("mimeType", mime)?;
        }
        if !icon.sizes.is_empty() {
            map.serialize_entry("sizes", &icon.sizes)?;
        }
        if let Some(theme) = icon.theme {
            map.serialize_entry("theme", theme.as_str())?;
        }
        map.end()
    }
}

/// `{"type":"object","properties":…,"required":…,"additionalProperties":false}`.
struct ObjectSchema<'a>(&'a [ToolParameter]);

impl Serialize for ObjectSchema<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        struct Properties<'a>(&'a [ToolParameter]);
        impl Serialize for Properties<'_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut map = serializer.serialize_map(None)?;
                for p in self.0.iter().filter(|p| p.from.is_none()) {
                    map.serialize_entry(&p.name, &Property(p))?;
                }
                map.end()
            }
        }
        // Bound parameters are the server's to fill in: the model never
        // sees them.
        let required: Vec<&str> = self
            .0
            .iter()
            .filter(|p| p.required && p.from.is_none())
            .map(|p| p.name.as_str())
            .collect();
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("type", "object")?;
        map.serialize_entry("properties", &Properties(self.0))?;
        if !required.is_empty() {
            map.serialize_entry("required", &required)?;
        }
        map.serialize_entry("additionalProperties", &false)?;
        map.end()
    }
}

struct Property<'a>(&'a ToolParameter);

impl Serialize for Property<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let p = self.0;
        let c = &p.constraints;
        let mut map = serializer.serialize_map(None)?;
        match p.ty {
            ParamType::Scalar(s) => {
                map.serialize_entry("type", s.json_type())?;
                serialize_item_rules(&mut map, p.enum_values.as_deref(), c)?;
            }
            ParamType::Array(s) => {
                map.serialize_entry("type", "array")?;
                map.serialize_entry("items", &Items(s.json_type(), p))?;
            }
        }
        if !p.description.is_empty() {
            map.serialize_entry("description", &p.description)?;
        }
        if let Some(min) = c.min_length {
            map.serialize_entry("minLength", &min)?;
        }
        if let Some(max) = c.max_length {
            map.serialize_entry("maxLength", &max)?;
        }
        if let Some(pattern) = &c.pattern {
            map.serialize_entry("pattern", pattern)?;
        }
        if let Some(min) = c.min_items {
            map.serialize_entry("minItems", &min)?;
        }
        if let Some(max) = c.max_items {
            map.serialize_entry("maxItems", &max)?;
        }
        if let Some(default) = &p.default {
            map.serialize_entry("default", &LiteralView(default))?;
        }
        if let Some(header) = &p.header {
            map.serialize_entry("x-mcp-header", header)?;
        }
        map.end()
    }
}

/// `enum`, `minimum` and `maximum` apply to the value, or to each item of an array.
fn serialize_item_rules<M: SerializeMap>(
    map: &mut M,
    enum_values: Option<&[String]>,
    c: &Constraints,
) -> Result<(), M::Error> {
    if let Some(values) = enum_values {
        map.serialize_entry("enum", values)?;
    }
    if let Some(min) = c.minimum {
        map.serialize_entry("minimum", &NumberView(min))?;
    }
    if let Some(max) = c.maximum {
        map.serialize_entry("maximum", &NumberView(max))?;
    }
    Ok(())
}

struct Items<'a>(&'static str, &'a ToolParameter);

impl Serialize for Items<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("type", self.0)?;
        serialize_item_rules(&mut map, self.1.enum_values.as_deref(), &self.1.constraints)?;
        map.end()
    }
}

struct NumberView(Number);

impl Serialize for NumberView {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Number::Integer(i) => serializer.serialize_i64(i),
            Number::Float(x) => serializer.serialize_f64(x),
        }
    }
}

struct LiteralView<'a>(&'a Literal);

impl Serialize for LiteralView<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Literal::String(s) => serializer.serialize_str(s),
            Literal::Integer(i) => serializer.serialize_i64(*i),
            Literal::Number(x) => serializer.serialize_f64(*x),
            Literal::Boolean(b) => serializer.serialize_bool(*b),
            Literal::Array(items) => serializer.collect_seq(items.iter().map(LiteralView)),
        }
    }
}
