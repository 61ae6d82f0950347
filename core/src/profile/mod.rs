//! Provider profiles: what each model provider's tool API (and the major
//! MCP hosts) accepts of a tool definition, checked and met.
//!
//! An MCP `tools/list` entry is one JSON Schema per tool, but the models
//! behind the hosts accept different subsets of JSON Schema and of names.
//! A [`Profile`] is one such subset, as data: its [`Rule`]s, each citing
//! where the provider publishes it. For each profile,
//!
//! - [`Profile::export`] writes a tool's definition as that provider needs
//!   it, from its entry: for strict profiles every property required and
//!   optional ones nullable; what the provider cannot carry (a `default`,
//!   bounds a strict grammar refuses) moved into the description; for
//!   `gemini` the OpenAPI subset; a name the provider refuses mapped to a
//!   legal one ([`Export::name`], with [`Export::mcp_name`] to map back).
//!   What it had to move is listed in [`Export::moved`]: the model is no
//!   longer held to it, though the server still checks every call;
//! - [`Profile::validate`] checks a definition against the rules, and names
//!   each one it breaks;
//! - [`ToolSet::for_provider`](crate::ToolSet::for_provider) gives a
//!   generated tool set's definitions in a provider's request shape, and
//!   runs a call in its response shape with the same decoding, checks and
//!   handlers as an MCP call: function calling without MCP.
//!
//! ```
//! use toolmetadata_core::profile::Profile;
//! use serde_json::json;
//!
//! let entry = json!({
//!     "name": "search",
//!     "description": "Search the notes",
//!     "inputSchema": {
//!         "type": "object",
//!         "properties": {
//!             "query": {"type": "string", "minLength": 1},
//!             "limit": {"type": "integer", "minimum": 1, "default": 10}
//!         },
//!         "required": ["query"],
//!         "additionalProperties": false
//!     }
//! });
//! let export = Profile::OpenAiStrict.export(&entry);
//! let limit = &export.parameters.as_ref().unwrap()["properties"]["limit"];
//! assert_eq!(limit["type"], json!(["integer", "null"]));
//! assert!(Profile::OpenAiStrict.validate(&export).is_empty());
//! ```

mod call;
mod definition;
mod export;
mod keywords;
mod kind;
pub mod rules;
mod validate;

pub use call::ProviderTools;
pub use definition::{Export, Moved, Violation};
pub use kind::Profile;
pub use rules::Rule;

use serde_json::Value;

impl Profile {
    /// The definition of the tool of `entry` (a `tools/list` entry) as
    /// this provider needs it. For [`Profile::McpHosts`], the name a host
    /// shows (without its server prefix) and the schema as it is.
    pub fn export(self, entry: &Value) -> Export {
        export::export(self, entry)
    }

    /// The definitions of a whole tool set ([`Profile::export`] of each
    /// entry), with mapped names that two tools would share told apart.
    pub fn export_set(self, entries: &[Value]) -> Vec<Export> {
        export::export_set(self, entries)
    }

    /// The rules `definition` breaks; none for a definition this profile's
    /// provider accepts. [`Profile::McpHosts`] checks the name alone, with
    /// no server prefix: see [`Profile::validate_for_server`].
    pub fn validate(self, definition: &Export) -> Vec<Violation> {
        validate::validate(self, definition, None)
    }

    /// [`Profile::validate`], with the server's name for the hosts'
    /// prefixed names (`mcp__<server>__<tool>`).
    pub fn validate_for_server(self, definition: &Export, server: &str) -> Vec<Violation> {
        validate::validate(self, definition, Some(server))
    }

    /// `export` in the provider's request shape: OpenAI's Chat Completions
    /// tool (`{"type": "function", "function": {…, "strict"}}`), Anthropic's
    /// (`{"name", "description", "input_schema"}`, `strict` when strict),
    /// Gemini's function declaration (`parameters` or
    /// `parametersJsonSchema`), or for the hosts the MCP entry.
    pub fn definition(self, export: &Export) -> Value {
        let mut definition = serde_json::Map::new();
        definition.insert("name".into(), Value::from(export.name.clone()));
        definition.insert(
            "description".into(),
            Value::from(export.description.clone()),
        );
        let key = match self {
            Profile::OpenAi | Profile::OpenAiStrict => "parameters",
            Profile::Anthropic | Profile::AnthropicStrict => "input_schema",
            Profile::Gemini => "parameters",
            Profile::GeminiJson => "parametersJsonSchema",
            Profile::McpHosts => "inputSchema",
        };
        if let Some(parameters) = &export.parameters {
            definition.insert(key.into(), parameters.clone());
        }
        match self {
            Profile::OpenAi | Profile::OpenAiStrict => {
                definition.insert("strict".into(), Value::Bool(export.strict));
                serde_json::json!({"type": "function", "function": definition})
            }
            Profile::AnthropicStrict => {
                definition.insert("strict".into(), Value::Bool(true));
                Value::Object(definition)
            }
            _ => Value::Object(definition),
        }
    }

    /// A request's `tools` for `exports`: their [`Profile::definition`]s, in
    /// one `functionDeclarations` entry for Gemini.
    pub fn tools(self, exports: &[Export]) -> Value {
        let definitions: Vec<Value> = exports.iter().map(|e| self.definition(e)).collect();
        match self {
            Profile::Gemini | Profile::GeminiJson => {
                serde_json::json!([{"functionDeclarations": definitions}])
            }
            _ => Value::Array(definitions),
        }
    }

    /// The rules a whole tool set breaks (the hosts' count of tools).
    pub fn validate_set(self, tools: usize) -> Vec<Violation> {
        validate::validate_set(self, tools)
    }
}

#[cfg(test)]
mod tests;
