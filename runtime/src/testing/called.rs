//! A tool call's result, as a test reads it.

use rmcp::model::CallToolResult;
use serde_json::Value;

use super::error::Error;

/// A tool call's result: rmcp's `CallToolResult`, with the reads a test
/// makes of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Called(pub CallToolResult);

impl Called {
    /// The text of its text blocks, joined by newlines.
    pub fn text(&self) -> String {
        self.0
            .content
            .iter()
            .filter_map(|block| block.as_text().map(|text| text.text.as_str()))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Whether the tool ended with an error (`isError`).
    pub fn is_error(&self) -> bool {
        self.0.is_error == Some(true)
    }

    /// Its `structuredContent`, if it has one.
    pub fn structured(&self) -> Option<&Value> {
        self.0.structured_content.as_ref()
    }
}

/// A call's result from its JSON.
pub(super) fn called_from(value: Value) -> Result<Called, Error> {
    serde_json::from_value::<CallToolResult>(value.clone())
        .map(Called)
        .map_err(|e| Error::Connection(format!("not a tool call's result ({e}): {value}")))
}
