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

mod error;
#[cfg(feature = "limits")]
mod limits;
mod replay;
mod tasks;

pub use error::StoreError;
pub(super) use error::unix_ms;
#[cfg(feature = "limits")]
pub use limits::LimitStore;
pub use replay::{InMemoryReplayStore, ReplayStore};
#[cfg(feature = "http")]
pub use rmcp::transport::streamable_http_server::session::store::{
    SessionState, SessionStore, SessionStoreError,
};
pub use tasks::{InMemoryTaskStore, TaskChange, TaskRecord, TaskState, TaskStore};

/// A store that backs all four kinds of state (what `toolmetadata-store`'s
/// stores are), for [`ServerBuilder::store`](super::ServerBuilder::store);
/// without the feature `limits`, the three others.
#[cfg(all(feature = "http", feature = "limits"))]
pub trait SharedStore: TaskStore + ReplayStore + SessionStore + LimitStore {}

#[cfg(all(feature = "http", feature = "limits"))]
impl<T: TaskStore + ReplayStore + SessionStore + LimitStore> SharedStore for T {}

/// A store that backs all four kinds of state (what `toolmetadata-store`'s
/// stores are), for [`ServerBuilder::store`](super::ServerBuilder::store);
/// without the feature `limits`, the three others.
#[cfg(all(feature = "http", not(feature = "limits")))]
pub trait SharedStore: TaskStore + ReplayStore + SessionStore {}

#[cfg(all(feature = "http", not(feature = "limits")))]
impl<T: TaskStore + ReplayStore + SessionStore> SharedStore for T {}
