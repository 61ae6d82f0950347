//! Redis and PostgreSQL stores for [`toolmetadata`] servers, so that several
//! instances behind one load balancer share their state:
//!
//! - tasks ([`TaskStore`]): a task started on one instance is read, and
//!   cancelled, through any other; a task whose instance died reads as
//!   failed once its lease has lapsed;
//! - single use of a `requestState` ([`ReplayStore`]): an accepted
//!   confirmation runs its call once, whichever instances the retry reaches;
//! - 2025-11-25 sessions (rmcp's [`SessionStore`]): a session outlives the
//!   instance that opened it;
//! - `[limits]` ([`LimitStore`]): a caller's rate and a tool's calls at once
//!   are counted for every instance;
//! - changes ([`ChangeBus`]): a resource's change reported on one instance
//!   reaches its subscribers on every instance (Redis pub/sub, PostgreSQL
//!   `LISTEN`/`NOTIFY`);
//! - the events of 2025-11-25 streams (rmcp's [`EventStore`]): a stream
//!   broken on one instance is resumed with `Last-Event-ID` on any other,
//!   each stream's newest [`Options::events_per_stream`] for
//!   [`Options::event_ttl`].
//!
//! Each store is behind a feature (`redis`, `postgres`), so a server compiles
//! only the client it uses (and without either, only [`Options`]). `connect`
//! picks one by the URL's scheme:
//!
//! ```no_run
//! # async fn run(builder: toolmetadata::server::ServerBuilder) -> Result<(), Box<dyn std::error::Error>> {
//! let store = toolmetadata_store::connect("redis://10.0.0.5:6379", Default::default()).await?;
//! let server = builder.store(store).build()?;
//! # Ok(()) }
//! ```
//!
//! Redis 7 or later (its scripts read the server's clock) and PostgreSQL 11
//! or later.
//!
//! Every operation is bounded by [`Options::timeout`]: a store out of reach
//! fails the requests that need it with [`StoreError::Unavailable`] naming
//! it, plain tool calls go on, and the clients reconnect by themselves when
//! the store is back.
//!
//! [`TaskStore`]: toolmetadata::server::store::TaskStore
//! [`ReplayStore`]: toolmetadata::server::store::ReplayStore
//! [`SessionStore`]: toolmetadata::server::store::SessionStore
//! [`LimitStore`]: toolmetadata::server::store::LimitStore
//! [`ChangeBus`]: toolmetadata::server::store::ChangeBus
//! [`EventStore`]: toolmetadata::server::store::EventStore
//! [`StoreError::Unavailable`]: toolmetadata::server::store::StoreError::Unavailable

#[cfg(any(feature = "redis", feature = "postgres"))]
mod any;
#[cfg(feature = "postgres")]
mod postgres;
#[cfg(feature = "redis")]
mod redis;
#[cfg(feature = "redis")]
mod redis_bus;
#[cfg(feature = "redis")]
mod redis_events;
#[cfg(feature = "redis")]
mod redis_tools;
#[cfg(any(feature = "redis", feature = "postgres"))]
mod shared;
#[cfg(feature = "testing")]
pub mod testing;

use std::fmt;
use std::time::Duration;

#[cfg(any(feature = "redis", feature = "postgres"))]
pub use any::{Store, connect};
#[cfg(feature = "postgres")]
pub use postgres::PostgresStore;
#[cfg(feature = "redis")]
pub use redis::RedisStore;

/// What every store is configured with.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Options {
    /// What the store's keys (Redis) or tables (PostgreSQL) start with, so
    /// that several servers share one store without meeting: ASCII letters,
    /// digits and `_`, starting with a letter (default `toolmetadata`).
    pub namespace: String,
    /// The most tasks held at once (default 1000).
    pub max_tasks: usize,
    /// The most live tasks of one owner (default 100): one principal cannot
    /// fill the store for everyone. Anonymous HTTP callers each have their
    /// address's ([`TaskRecord::quota_key`](toolmetadata::server::store::TaskRecord::quota_key)).
    pub max_tasks_per_owner: usize,
    /// How long a session is kept after it is opened (default 24 hours).
    pub session_ttl: Duration,
    /// The longest any one operation may take, connecting included
    /// (default 2 seconds).
    pub timeout: Duration,
    /// How many of a stream's newest events are kept for its resumption
    /// (default 100, at least 1): a client that missed more starts again.
    pub events_per_stream: usize,
    /// How long an event is kept for a resumption (default 10 minutes).
    pub event_ttl: Duration,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            namespace: "toolmetadata".to_owned(),
            max_tasks: 1000,
            max_tasks_per_owner: 100,
            session_ttl: Duration::from_secs(24 * 3600),
            timeout: Duration::from_secs(2),
            events_per_stream: 100,
            event_ttl: Duration::from_secs(600),
        }
    }
}

impl Options {
    /// The namespace (see [`Options::namespace`]).
    #[must_use]
    pub fn namespace(mut self, namespace: impl Into<String>) -> Self {
        self.namespace = namespace.into();
        self
    }

    /// The most tasks held at once.
    #[must_use]
    pub fn max_tasks(mut self, max: usize) -> Self {
        self.max_tasks = max.max(1);
        self
    }

    /// The most live tasks of one owner.
    #[must_use]
    pub fn max_tasks_per_owner(mut self, max: usize) -> Self {
        self.max_tasks_per_owner = max.max(1);
        self
    }

    /// How long a session is kept.
    #[must_use]
    pub fn session_ttl(mut self, ttl: Duration) -> Self {
        self.session_ttl = ttl;
        self
    }

    /// The longest any one operation may take.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// How many of a stream's newest events are kept.
    #[must_use]
    pub fn events_per_stream(mut self, max: usize) -> Self {
        self.events_per_stream = max.max(1);
        self
    }

    /// How long an event is kept.
    #[must_use]
    pub fn event_ttl(mut self, ttl: Duration) -> Self {
        self.event_ttl = ttl;
        self
    }

    #[cfg_attr(not(any(feature = "redis", feature = "postgres")), allow(dead_code))]
    fn check(&self) -> Result<(), ConnectError> {
        let mut chars = self.namespace.chars();
        let starts = chars.next().is_some_and(|c| c.is_ascii_alphabetic());
        if !starts
            || self.namespace.len() > 40
            || !chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            return Err(ConnectError::Invalid(format!(
                "namespace `{}`: expected ASCII letters, digits and `_`, starting with a letter, at most 40",
                self.namespace.escape_debug()
            )));
        }
        Ok(())
    }
}

/// Why a store could not be opened. `Display` is the message, which names
/// the store with its password left out.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConnectError {
    /// The URL or the options cannot be used as given: a malformed URL, a
    /// scheme this build has no client for, a bad namespace.
    Invalid(String),
    /// The store did not answer within the timeout, refused the
    /// connection, or failed creating its tables.
    Unreachable(String),
}

impl fmt::Display for ConnectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConnectError::Invalid(message) | ConnectError::Unreachable(message) => {
                f.write_str(message)
            }
        }
    }
}

impl std::error::Error for ConnectError {}
