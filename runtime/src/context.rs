//! [`Context`]: what a handler knows of the call it serves.

use std::sync::Arc;

/// The call a handler serves. The server gives each call its own.
#[derive(Debug, Clone)]
pub struct Context {
    tool: Arc<str>,
}

impl Context {
    /// A context for a call of `tool` (servers and tests make these).
    pub fn new(tool: &str) -> Self {
        Context { tool: tool.into() }
    }

    /// The name of the tool called.
    pub fn tool(&self) -> &str {
        &self.tool
    }
}
