//! [`Store`]: whichever store a URL names, for a server that lets its
//! operator choose (`--store redis://…` or `--store postgres://…`).

use std::collections::BTreeMap;
use std::sync::Arc;

use tokio::sync::mpsc;
use toolmetadata::server::BoxFuture;
use toolmetadata::server::store::{
    ChangeBus, EventStore, EventStoreError, EventStream, LimitStore, Published, ReplayStore,
    ServerSseMessage, SessionState, SessionStore, SessionStoreError, StoreError, TaskChange,
    TaskRecord, TaskStore, ToolStateStore,
};

#[cfg(feature = "postgres")]
use crate::PostgresStore;
#[cfg(feature = "redis")]
use crate::RedisStore;
use crate::{ConnectError, Options, shared};

/// A store picked by its URL's scheme (see [`connect`]).
// Built once and kept in an `Arc`: the variants' sizes do not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
#[non_exhaustive]
pub enum Store {
    /// `redis://` or `rediss://`.
    #[cfg(feature = "redis")]
    Redis(RedisStore),
    /// `postgres://` or `postgresql://`.
    #[cfg(feature = "postgres")]
    Postgres(PostgresStore),
}

/// Opens the store at `url`: `redis://…` (feature `redis`) or
/// `postgres://…` (feature `postgres`).
///
/// # Errors
///
/// A scheme this build does not know, a malformed URL, or a store that does
/// not answer within [`Options::timeout`].
pub async fn connect(url: &str, options: Options) -> Result<Arc<Store>, ConnectError> {
    let scheme = url.split_once("://").map_or("", |(scheme, _)| scheme);
    let store = match scheme {
        #[cfg(feature = "redis")]
        "redis" | "rediss" => Store::Redis(RedisStore::connect(url, options).await?),
        #[cfg(feature = "postgres")]
        "postgres" | "postgresql" => Store::Postgres(PostgresStore::connect(url, options).await?),
        _ => {
            let mut known: Vec<&str> = Vec::new();
            if cfg!(feature = "redis") {
                known.push("redis://");
            }
            if cfg!(feature = "postgres") {
                known.push("postgres://");
            }
            return Err(ConnectError::Invalid(format!(
                "store URL `{}`: expected {}",
                shared::redact(url),
                known.join(" or ")
            )));
        }
    };
    Ok(Arc::new(store))
}

/// Calls `$method` on whichever store `$self` is.
macro_rules! each {
    ($self:ident, $store:ident => $call:expr) => {
        match $self {
            #[cfg(feature = "redis")]
            Store::Redis($store) => $call,
            #[cfg(feature = "postgres")]
            Store::Postgres($store) => $call,
        }
    };
}

impl TaskStore for Store {
    fn insert(&self, record: TaskRecord) -> BoxFuture<'_, Result<(), StoreError>> {
        each!(self, s => s.insert(record))
    }

    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        each!(self, s => s.get(id))
    }

    fn update<'a>(
        &'a self,
        id: &'a str,
        change: TaskChange,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        each!(self, s => s.update(id, change))
    }
}

impl ReplayStore for Store {
    fn first_use<'a>(
        &'a self,
        fingerprint: &'a str,
        expires_at_ms: u64,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        each!(self, s => s.first_use(fingerprint, expires_at_ms))
    }
}

impl LimitStore for Store {
    fn take_rate<'a>(
        &'a self,
        key: &'a str,
        calls: u32,
        window_ms: u64,
    ) -> BoxFuture<'a, Result<Option<u64>, StoreError>> {
        each!(self, s => s.take_rate(key, calls, window_ms))
    }

    fn acquire<'a>(
        &'a self,
        key: &'a str,
        holder: &'a str,
        max: u32,
        lease_ms: u64,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        each!(self, s => s.acquire(key, holder, max, lease_ms))
    }

    fn release<'a>(
        &'a self,
        key: &'a str,
        holder: &'a str,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        each!(self, s => s.release(key, holder))
    }
}

impl ChangeBus for Store {
    fn publish<'a>(&'a self, message: &'a Published) -> BoxFuture<'a, Result<(), StoreError>> {
        each!(self, s => s.publish(message))
    }

    fn listen(&self) -> BoxFuture<'_, Result<mpsc::Receiver<Published>, StoreError>> {
        each!(self, s => s.listen())
    }
}

impl ToolStateStore for Store {
    fn tool_states(&self) -> BoxFuture<'_, Result<BTreeMap<String, bool>, StoreError>> {
        each!(self, s => s.tool_states())
    }

    fn set_tool_state<'a>(
        &'a self,
        tool: &'a str,
        enabled: bool,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        each!(self, s => s.set_tool_state(tool, enabled))
    }
}

#[async_trait::async_trait]
impl SessionStore for Store {
    async fn load(&self, session_id: &str) -> Result<Option<SessionState>, SessionStoreError> {
        each!(self, s => s.load(session_id).await)
    }

    async fn store(&self, session_id: &str, state: &SessionState) -> Result<(), SessionStoreError> {
        each!(self, s => s.store(session_id, state).await)
    }

    async fn delete(&self, session_id: &str) -> Result<(), SessionStoreError> {
        each!(self, s => s.delete(session_id).await)
    }
}

#[async_trait::async_trait]
impl EventStore for Store {
    async fn store_event(
        &self,
        stream_id: &str,
        event: &ServerSseMessage,
    ) -> Result<String, EventStoreError> {
        each!(self, s => s.store_event(stream_id, event).await)
    }

    async fn replay_events_after(
        &self,
        last_event_id: &str,
    ) -> Result<EventStream, EventStoreError> {
        each!(self, s => s.replay_events_after(last_event_id).await)
    }
}
