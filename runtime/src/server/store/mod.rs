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
//!   limit is the fleet's.
//!
//! Each but the last has a bounded in-memory implementation, the default,
//! enough for one instance (without a [`LimitStore`], each instance holds
//! the limits itself). The `toolmetadata-store` crate implements all four
//! on Redis and on PostgreSQL.

mod limits;
mod replay;
mod tasks;

use std::fmt;
use std::sync::Arc;

pub use limits::LimitStore;
pub use replay::{InMemoryReplayStore, ReplayStore};
#[cfg(feature = "http")]
pub use rmcp::transport::streamable_http_server::session::store::{
    SessionState, SessionStore, SessionStoreError,
};
pub use tasks::{InMemoryTaskStore, TaskChange, TaskRecord, TaskState, TaskStore};

/// Why a store could not do what was asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreError {
    /// The store holds as many entries as it may; try again once some expire.
    Full {
        /// What is full, in the plural ("tasks").
        of: &'static str,
        /// The store's limit.
        max: usize,
    },
    /// The store could not be reached, did not answer in time, or failed.
    /// The message names the store (`"redis at 10.0.0.5:6379: …"`).
    Unavailable(String),
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::Full { of, max } => write!(
                f,
                "the server holds its maximum of {max} {of}; try again once some finish and expire"
            ),
            StoreError::Unavailable(why) => write!(f, "store unavailable: {why}"),
        }
    }
}

impl std::error::Error for StoreError {}

/// A store that backs all four kinds of state (what `toolmetadata-store`'s
/// stores are), for [`ServerBuilder::store`](super::ServerBuilder::store).
#[cfg(feature = "http")]
pub trait SharedStore: TaskStore + ReplayStore + SessionStore + LimitStore {}

#[cfg(feature = "http")]
impl<T: TaskStore + ReplayStore + SessionStore + LimitStore> SharedStore for T {}

/// The server's stores, shared by every session of one server.
pub(super) struct Stores {
    pub(super) replay: Arc<dyn ReplayStore>,
    /// Where `[limits]` are counted; `None`: on each instance.
    pub(super) limits: Option<super::limits::SharedLimits>,
    #[cfg(feature = "http")]
    pub(super) sessions: Option<Arc<dyn SessionStore>>,
}

/// Unix time in milliseconds.
pub(super) fn unix_ms() -> u64 {
    use std::time::{SystemTime, UNIX_EPOCH};
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}
