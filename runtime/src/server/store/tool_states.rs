//! [`ToolStateStore`]: which tools are enabled, as the instances sharing
//! the store last set them ([`Server::enable_tool`] and
//! [`Server::disable_tool`]), so that every instance lists the same tools.
//!
//! [`Server::enable_tool`]: crate::server::Server::enable_tool
//! [`Server::disable_tool`]: crate::server::Server::disable_tool

use std::collections::BTreeMap;
use std::sync::Mutex;

use super::error::StoreError;
use toolmetadata_core::BoxFuture;

/// The most tools a store's answer may name: a server writes only the
/// names of its own tools, so more is another program's data.
pub const MAX_TOOL_STATES: usize = 10_000;

/// What a store answers when it holds more than [`MAX_TOOL_STATES`] names.
pub const TOO_MANY_TOOL_STATES: StoreError = StoreError::Full {
    of: "tool states",
    max: MAX_TOOL_STATES,
};

/// Where the instances of one server keep which tools are enabled.
///
/// It holds the tools enabled or disabled at run time, by name, each with
/// whether it is enabled now (the last write wins); a tool never written
/// keeps the state the server was built with. Entries do not expire: they
/// are the fleet's configuration. Every method returns within a few
/// seconds, with [`StoreError::Unavailable`] naming the store when it
/// cannot; [`tool_states`](Self::tool_states) answers
/// [`StoreError::Full`] past [`MAX_TOOL_STATES`] names.
pub trait ToolStateStore: Send + Sync + 'static {
    /// Every tool enabled or disabled at run time: whether it is enabled now.
    fn tool_states(&self) -> BoxFuture<'_, Result<BTreeMap<String, bool>, StoreError>>;

    /// Records that `tool` is enabled (`true`) or disabled.
    fn set_tool_state<'a>(
        &'a self,
        tool: &'a str,
        enabled: bool,
    ) -> BoxFuture<'a, Result<(), StoreError>>;
}

impl<T: ToolStateStore + ?Sized> ToolStateStore for std::sync::Arc<T> {
    fn tool_states(&self) -> BoxFuture<'_, Result<BTreeMap<String, bool>, StoreError>> {
        (**self).tool_states()
    }

    fn set_tool_state<'a>(
        &'a self,
        tool: &'a str,
        enabled: bool,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        (**self).set_tool_state(tool, enabled)
    }
}

/// Tool states in this process's memory: the server's own when no store is
/// shared, so a tool enabled on one instance is enabled there only.
#[derive(Debug, Default)]
pub struct InMemoryToolStates {
    states: Mutex<BTreeMap<String, bool>>,
}

impl ToolStateStore for InMemoryToolStates {
    fn tool_states(&self) -> BoxFuture<'_, Result<BTreeMap<String, bool>, StoreError>> {
        let states = self
            .states
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        Box::pin(async move { Ok(states) })
    }

    fn set_tool_state<'a>(
        &'a self,
        tool: &'a str,
        enabled: bool,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        let mut states = self
            .states
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let outcome = if states.len() >= MAX_TOOL_STATES && !states.contains_key(tool) {
            Err(TOO_MANY_TOOL_STATES)
        } else {
            states.insert(tool.to_owned(), enabled);
            Ok(())
        };
        Box::pin(async move { outcome })
    }
}
