//! A tool's definition for one provider, and what a profile finds wrong
//! with one.

use serde_json::Value;

use super::rules::Rule;

/// A tool's definition for one provider.
#[derive(Debug, Clone, PartialEq)]
pub struct Export {
    /// The name the provider sees: the MCP name, or a legal one mapped from
    /// it.
    pub name: String,
    /// The MCP tool name, for a call that comes back under [`Export::name`].
    pub mcp_name: String,
    /// The description, with what the provider cannot carry added.
    pub description: String,
    /// The parameters' schema; `None` where the provider takes none (a
    /// Gemini function without parameters).
    pub parameters: Option<Value>,
    /// Whether the provider is asked to hold the model to the schema
    /// exactly (`strict`).
    pub strict: bool,
    /// What could not be carried as a constraint and went into the
    /// description instead: the model is no longer held to it (the server
    /// still refuses a call that breaks it).
    pub moved: Vec<Moved>,
}

/// A constraint moved out of the schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Moved {
    /// The rule that refuses it.
    pub rule: &'static Rule,
    /// The parameter it belonged to (`limit`, `filter.kind`); empty for the
    /// tool itself.
    pub parameter: String,
    /// What was moved, as the description now says it (`minimum 1`).
    pub what: String,
}

/// A rule a definition breaks, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// The rule.
    pub rule: &'static Rule,
    /// Where: a JSON pointer into the parameters' schema, or `name`.
    pub at: String,
    /// What is wrong there.
    pub detail: String,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} at {}: {} ({})",
            self.rule.id, self.at, self.detail, self.rule.says
        )
    }
}
