//! Where the server keeps what outlives one request, and what several
//! instances behind one load balancer must share:
//!
//! - [`TaskStore`]: tasks, from the call that starts one to the `tasks/get`
//!   that collects its result;
//! - [`ReplayStore`]: the `requestState`s already used, so that an accepted
//!   confirmation runs its call once;
//! - [`SessionStore`] (rmcp's): what a 2025-11-25 HTTP session needs to be
//!   picked up by another instance;
//! - [`LimitStore`]: `[limits]`' rates and slots of concurrency, so that a
//!   limit is the fleet's;
//! - [`ChangeBus`] (feature `resources`): the changes instances tell each
//!   other, so that a resource's subscriber hears of a change made through
//!   any instance.
//!
//! Each but the last has a bounded in-memory implementation, the default,
//! enough for one instance (without a [`LimitStore`], each instance holds
//! the limits itself). The `toolmetadata-store` crate implements all four
//! on Redis and on PostgreSQL.

#[cfg(feature = "resources")]
mod bus;
mod error;
#[cfg(feature = "limits")]
mod limits;
#[cfg(feature = "ask")]
mod replay;
#[cfg(feature = "http")]
mod shared;
#[cfg(feature = "tasks")]
mod tasks;

#[cfg(feature = "resources")]
pub use bus::{Change, ChangeBus, InMemoryBus, LISTEN_BACKLOG, MAX_MESSAGE_BYTES, Published};
pub use error::StoreError;
#[cfg(any(feature = "ask", feature = "limits"))]
pub(super) use error::unix_ms;
#[cfg(feature = "limits")]
pub use limits::LimitStore;
#[cfg(feature = "ask")]
pub use replay::{InMemoryReplayStore, ReplayStore};
#[cfg(feature = "http")]
pub use rmcp::transport::streamable_http_server::session::store::{
    SessionState, SessionStore, SessionStoreError,
};
#[cfg(feature = "http")]
pub use shared::SharedStore;
#[cfg(feature = "tasks")]
pub use tasks::{InMemoryTaskStore, TaskChange, TaskRecord, TaskState, TaskStore};
