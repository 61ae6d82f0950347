//! Tools enabled and disabled while the server runs: the state kept in the
//! tool state store (shared by the instances of a fleet), applied to the
//! catalog, told to this instance's clients and, on the change bus, to the
//! other instances, which read the store and tell theirs.

use std::fmt;
use std::sync::Weak;
use std::time::Duration;

use crate::server::fleet::Hears;
use crate::server::store::{Change, StoreError};
#[cfg(feature = "sessions")]
use crate::server::subscriptions::Target;
use crate::server::subscriptions::Topic;
use crate::server::{Inner, Server};
#[cfg(feature = "sessions")]
use rmcp::service::{Peer, RoleServer};

/// How often a server whose tools change reads their states again, besides
/// what the change bus tells it: a change whose message was lost (the bus
/// out of reach, a publish that failed) reaches every instance within this.
const READ_AGAIN: Duration = Duration::from_secs(30);
/// How soon a read that failed is tried again.
const READ_RETRY: Duration = Duration::from_secs(5);

/// Why a tool could not be enabled or disabled.
#[derive(Debug)]
#[non_exhaustive]
pub enum ToolChangeError {
    /// The server was built without
    /// [`ServerBuilder::changing_tools`](crate::server::ServerBuilder::changing_tools):
    /// its clients were not told its list may change.
    NotChanging,
    /// The server has no tool of this name.
    UnknownTool(String),
    /// The tool state store did not take the change; nothing changed.
    Store(StoreError),
}

impl fmt::Display for ToolChangeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolChangeError::NotChanging => f.write_str(
                "tools cannot be enabled or disabled on this server: build it with `ServerBuilder::changing_tools`",
            ),
            ToolChangeError::UnknownTool(name) => {
                let name = toolmetadata_core::seam::shorten(name, 200);
                write!(f, "the server has no tool `{name}` to enable or disable")
            }
            ToolChangeError::Store(e) => write!(f, "the tool's state was not kept: {e}"),
        }
    }
}

impl std::error::Error for ToolChangeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ToolChangeError::Store(e) => Some(e),
            _ => None,
        }
    }
}

impl Server {
    /// Enables the tool `name` (see
    /// [`ServerBuilder::changing_tools`](crate::server::ServerBuilder::changing_tools)):
    /// kept in the tool state store, so that every instance sharing it lists
    /// the tool (at once through the change bus, within 30 seconds
    /// without), and each tells its clients
    /// (`notifications/tools/list_changed`) when its list changed. An error,
    /// and nothing changed, when the server's tools do not change, it has no
    /// such tool, or the store does not take the change; enabling an enabled
    /// tool is no error.
    pub async fn enable_tool(&self, name: &str) -> Result<(), ToolChangeError> {
        self.set_tool_state(name, true).await
    }

    /// Disables the tool `name`, as [`Server::enable_tool`] enables one: it
    /// is no longer listed, and a call to it gets "unknown tool" (a call
    /// already running finishes).
    pub async fn disable_tool(&self, name: &str) -> Result<(), ToolChangeError> {
        self.set_tool_state(name, false).await
    }

    async fn set_tool_state(&self, name: &str, enabled: bool) -> Result<(), ToolChangeError> {
        let inner = &self.inner;
        if !inner.catalog.changing() {
            return Err(ToolChangeError::NotChanging);
        }
        if !inner.catalog.knows(name) {
            return Err(ToolChangeError::UnknownTool(name.to_owned()));
        }
        inner
            .tool_states
            .set_tool_state(name, enabled)
            .await
            .map_err(ToolChangeError::Store)?;
        inner.reload_tool_states().await;
        if let Some(fleet) = &inner.fleet {
            fleet.publish(Change::ToolsChanged).await;
        }
        Ok(())
    }

    /// Registers a 2025-11-25 session's client to hear of list changes,
    /// when the server's tools change.
    #[cfg(feature = "sessions")]
    pub(in crate::server) fn watch_tool_list(&self, peer: &Peer<RoleServer>) {
        if !self.inner.catalog.changing() {
            return;
        }
        if let Err(e) = self.inner.subscriptions.add(
            self.subscriber,
            &[Topic::ToolList],
            &Target::Session(peer.clone()),
        ) {
            tracing::debug!("a session not told of tool list changes: {}", e.message);
        }
    }
}

impl Inner {
    /// Reads which tools are enabled from the store and applies it; tells
    /// this instance's clients when that changed the list. A store that
    /// does not answer changes nothing (a WARN says so).
    /// Whether the store answered.
    pub(in crate::server) async fn reload_tool_states(&self) -> bool {
        if !self.catalog.changing() {
            return true;
        }
        let (read, changed) = {
            let _one_at_a_time = self.applying.lock().await;
            match self.tool_states.tool_states().await {
                Ok(states) => (true, self.catalog.apply(&states)),
                Err(e) => {
                    tracing::warn!("which tools are enabled could not be read: {e}");
                    (false, false)
                }
            }
        };
        if changed {
            self.subscriptions.notify(&Topic::ToolList).await;
        }
        read
    }
}

/// Reads the tools' states from the store now, then every [`READ_AGAIN`]
/// (every [`READ_RETRY`] after a read that failed), for as long as the
/// server lives. Needs a Tokio runtime.
pub(in crate::server) fn keep_reading(server: Weak<Inner>) {
    tokio::spawn(async move {
        loop {
            let read = match server.upgrade() {
                Some(inner) => inner.reload_tool_states().await,
                None => return,
            };
            tokio::time::sleep(if read { READ_AGAIN } else { READ_RETRY }).await;
        }
    });
}

impl Hears for Inner {
    fn heard(&self, change: Change) -> toolmetadata_core::BoxFuture<'_, ()> {
        Box::pin(async move {
            match change {
                Change::ResourceUpdated { uri } => {
                    self.subscriptions.notify(&Topic::Resource(uri)).await;
                }
                Change::ToolsChanged => {
                    self.reload_tool_states().await;
                }
            }
        })
    }

    fn listening(&self) -> toolmetadata_core::BoxFuture<'_, ()> {
        Box::pin(async move {
            self.reload_tool_states().await;
        })
    }
}
