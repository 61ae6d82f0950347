//! What both stores need: bounded waits, names that hide passwords, and the
//! records as JSON.

use std::future::Future;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use toolmetadata::server::store::{
    EventStoreError, MAX_STREAM_ID_LEN, ServerSseMessage, StoreError, TaskRecord, encode_event,
};

/// How many times an update retries when another instance changed the same
/// task in between (Redis's compare-and-set).
#[cfg(feature = "redis")]
pub(crate) const MAX_UPDATE_TRIES: usize = 16;

/// Ids longer than this are none a server ever issued (task ids are UUIDs,
/// session ids rmcp's): answered as unknown without asking the store.
pub(crate) const MAX_ID_LEN: usize = 200;

/// Whether a store can hold the id `id` at all: not too long (see
/// [`MAX_ID_LEN`]) and without U+0000, which PostgreSQL's text refuses. Any
/// other id is unknown, never an error of the store.
pub(crate) fn storable(id: &str) -> bool {
    id.len() <= MAX_ID_LEN && !id.contains('\0')
}

/// `future`, or [`StoreError::Unavailable`] naming `store` once `timeout`
/// has passed.
pub(crate) async fn bounded<T, E: std::fmt::Display>(
    store: &str,
    timeout: Duration,
    future: impl Future<Output = Result<T, E>>,
) -> Result<T, StoreError> {
    match tokio::time::timeout(timeout, future).await {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(e)) => Err(StoreError::Unavailable(format!("{store}: {e}"))),
        Err(_) => Err(StoreError::Unavailable(format!(
            "{store}: no answer within {} ms",
            timeout.as_millis()
        ))),
    }
}

/// The URL with its password replaced, fit for logs and errors.
pub(crate) fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.chars().take(200).collect();
    };
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let authority = match authority.rsplit_once('@') {
        Some((user, host)) => {
            let user = user.split_once(':').map_or(user, |(name, _)| name);
            format!("{user}:***@{host}")
        }
        None => authority.to_owned(),
    };
    format!("{scheme}://{authority}{path}")
        .chars()
        .take(200)
        .collect()
}

/// Where a store is, for its errors: `redis at host:port`.
pub(crate) fn name(kind: &str, url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = &rest[..rest.find('/').unwrap_or(rest.len())];
    let host = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    let host: String = host.chars().take(100).collect();
    format!(
        "{kind} at {}",
        if host.is_empty() { "localhost" } else { &host }
    )
}

/// The refusal of an owner's task beyond its quota.
pub(crate) fn owner_full(options: &crate::Options) -> StoreError {
    StoreError::Full {
        of: "tasks for one principal",
        max: options.max_tasks_per_owner,
    }
}

/// The refusal of a task beyond the store's bound.
pub(crate) fn store_full(options: &crate::Options) -> StoreError {
    StoreError::Full {
        of: "tasks",
        max: options.max_tasks,
    }
}

pub(crate) fn to_json(record: &TaskRecord) -> Result<String, StoreError> {
    serde_json::to_string(record)
        .map_err(|e| StoreError::Unavailable(format!("a task could not be written: {e}")))
}

pub(crate) fn from_json(store: &str, json: &str) -> Result<TaskRecord, StoreError> {
    serde_json::from_str(json).map_err(|e| {
        StoreError::Unavailable(format!("{store}: a stored task could not be read: {e}"))
    })
}

pub(crate) fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// The event to keep, as JSON (a gap marker for one too large), or the
/// error of a stream id no server issued.
pub(crate) fn keepable(
    store: &str,
    stream: &str,
    event: &ServerSseMessage,
) -> Result<String, EventStoreError> {
    if !storable(stream) || stream.len() > MAX_STREAM_ID_LEN {
        return Err(format!("{store}: a stream id no server issued").into());
    }
    Ok(encode_event(event))
}

pub(crate) fn boxed(e: StoreError) -> Box<dyn std::error::Error + Send + Sync> {
    Box::new(e)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_never_reach_an_error() {
        assert_eq!(
            redact("redis://:hunter2@cache:6379/0"),
            "redis://:***@cache:6379/0"
        );
        assert_eq!(
            redact("postgres://app:hunter2@db/test"),
            "postgres://app:***@db/test"
        );
        assert_eq!(
            name("redis", "redis://:hunter2@cache:6379/0"),
            "redis at cache:6379"
        );
        assert_eq!(
            name("postgres", "postgres:///test"),
            "postgres at localhost"
        );
    }
}
