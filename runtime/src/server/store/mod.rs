//! Where the server keeps what outlives one request, and what several
//! instances behind one load balancer must share:
//!
//! - [`TaskStore`]: tasks, from the call that starts one to the `tasks/get`
//!   that collects its result;
//! - [`ReplayStore`]: the `requestState`s already used, so that an accepted
//!   confirmation runs its call once;
//! - [`SessionStore`] (rmcp's, feature `sessions`): what a 2025-11-25 HTTP
//!   session needs to be picked up by another instance;
//! - [`LimitStore`]: `[limits]`' rates and slots of concurrency, so that a
//!   limit is the fleet's;
//! - [`ChangeBus`] (feature `subscriptions`): the changes instances tell
//!   each other, so that a resource's subscriber hears of a change made
//!   through any instance, and every client of a tool enabled or disabled
//!   on one;
//! - [`ToolStateStore`] (feature `subscriptions`): which tools are enabled,
//!   so that every instance lists the same;
//! - [`EventStore`] (rmcp's, feature `sessions`): the events of 2025-11-25
//!   SSE streams, so that a stream broken on one instance is resumed on any
//!   other.
//!
//! Each but the last two has a bounded in-memory implementation, the default,
//! enough for one instance (without a [`LimitStore`], each instance holds
//! the limits itself; without an [`EventStore`], each instance keeps the
//! last events of its own streams). The `toolmetadata-store` crate
//! implements them all on Redis and on PostgreSQL.

// These pages (this module's and `SharedStore`'s) are written for the full
// build (docs.rs documents every feature): a build without some stores lacks
// what they link to.
#![cfg_attr(
    not(all(
        feature = "tasks",
        feature = "ask",
        feature = "limits",
        feature = "subscriptions",
        feature = "http",
        feature = "sessions"
    )),
    allow(rustdoc::broken_intra_doc_links)
)]

#[cfg(feature = "subscriptions")]
mod bus;
mod error;
#[cfg(all(feature = "http", feature = "sessions"))]
mod events;
#[cfg(feature = "limits")]
mod limits;
#[cfg(all(feature = "http", feature = "sessions"))]
mod memory_events;
#[cfg(feature = "ask")]
mod replay;
#[cfg(feature = "http")]
mod shared;
#[cfg(feature = "tasks")]
mod tasks;
#[cfg(feature = "subscriptions")]
mod tool_states;

#[cfg(feature = "subscriptions")]
pub use bus::{Change, ChangeBus, InMemoryBus, LISTEN_BACKLOG, MAX_MESSAGE_BYTES, Published};
pub use error::StoreError;
#[cfg(any(feature = "ask", feature = "limits"))]
pub(super) use error::unix_ms;
#[cfg(all(feature = "http", feature = "sessions"))]
pub use events::{
    EventPosition, EventStore, EventStoreError, EventStream, KeptStream, MAX_EVENT_BYTES,
    MAX_STREAM_ID_LEN, ServerSseMessage, decode_event, encode_event, gap_marker, is_gap_marker,
    new_epoch, replay_kept,
};
#[cfg(feature = "limits")]
pub use limits::LimitStore;
#[cfg(all(feature = "http", feature = "sessions"))]
pub use memory_events::InMemoryEventStore;
#[cfg(feature = "ask")]
pub use replay::{InMemoryReplayStore, ReplayStore};
#[cfg(all(feature = "http", feature = "sessions"))]
pub use rmcp::transport::streamable_http_server::session::store::{
    SessionState, SessionStore, SessionStoreError,
};
#[cfg(feature = "http")]
pub use shared::SharedStore;
#[cfg(feature = "tasks")]
pub use tasks::{InMemoryTaskStore, TaskChange, TaskRecord, TaskState, TaskStore};
#[cfg(feature = "subscriptions")]
pub use tool_states::{InMemoryToolStates, MAX_TOOL_STATES, TOO_MANY_TOOL_STATES, ToolStateStore};
