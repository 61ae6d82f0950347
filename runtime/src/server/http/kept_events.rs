//! The operator's [`EventStore`] as the sessions use it: a store that
//! fails or does not answer never holds a message back. The event is sent
//! unkept, with an id of this instance's that no store knows (a resumption
//! past it finds nothing, and the client starts again), the server says so
//! once (a WARN) and again when the store is back (INFO).
//!
//! And a resumption reads only its own session's stream: the id of another
//! session's stream is unknown (a request's stream is a random UUID, known
//! only to the client it was sent to).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use rmcp::transport::streamable_http_server::session::SessionId;

use crate::server::store::{
    EventPosition, EventStore, EventStoreError, EventStream, MAX_STREAM_ID_LEN, ServerSseMessage,
};

/// The longest a store may take to keep or replay events before the event
/// goes unkept (or the resumption finds nothing): the stores bound
/// themselves, a store of the operator's may not.
const STORE_WAIT: Duration = Duration::from_secs(5);

/// rmcp's id of the priming event of a session's own (`GET`) stream, sent
/// before any event is kept: a resumption from it replays the stream from
/// its start.
const SESSION_STREAM_PRIMING_ID: &str = "0";

/// The store, with the fallback and the once-per-outage WARN.
pub(super) struct KeptEvents {
    store: Arc<dyn EventStore>,
    /// This instance's prefix of the ids of unkept events.
    origin: String,
    unkept: AtomicU64,
    down: AtomicBool,
}

impl KeptEvents {
    pub(super) fn new(store: Arc<dyn EventStore>) -> Self {
        KeptEvents {
            store,
            origin: uuid::Uuid::new_v4().simple().to_string(),
            unkept: AtomicU64::new(0),
            down: AtomicBool::new(false),
        }
    }

    /// An id for an event sent unkept: unique, and of no stream (it has no
    /// `/`), so a resumption from it finds nothing.
    fn unkept(&self, why: &str) -> String {
        if !self.down.swap(true, Ordering::Relaxed) {
            tracing::warn!(
                "the event store does not keep events ({why}): streams are sent unkept, and cannot be resumed past them, until it does"
            );
        }
        let n = self.unkept.fetch_add(1, Ordering::Relaxed);
        format!("unkept-{}-{n}", self.origin)
    }

    fn kept(&self) {
        if self.down.swap(false, Ordering::Relaxed) {
            tracing::info!("the event store keeps events again");
        }
    }
}

/// The `Last-Event-ID` a resumption of `session` reads from, or `None`
/// when it names another session's stream. rmcp's priming id of the
/// session's own stream reads that stream from its start.
pub(super) fn own_event_id(session: &SessionId, last_event_id: &str) -> Option<String> {
    let common = format!("{session}:common");
    if last_event_id == SESSION_STREAM_PRIMING_ID {
        return Some(
            EventPosition {
                stream: &common,
                seq: 0,
            }
            .to_string(),
        );
    }
    match EventPosition::parse(last_event_id) {
        Some(position) if position.stream.ends_with(":common") && position.stream != common => None,
        _ => Some(last_event_id.to_owned()),
    }
}

#[async_trait::async_trait]
impl EventStore for KeptEvents {
    async fn store_event(
        &self,
        stream_id: &str,
        event: &ServerSseMessage,
    ) -> Result<String, EventStoreError> {
        if stream_id.len() > MAX_STREAM_ID_LEN {
            return Ok(self.unkept("a stream id too long"));
        }
        match tokio::time::timeout(STORE_WAIT, self.store.store_event(stream_id, event)).await {
            Ok(Ok(id)) => {
                self.kept();
                Ok(id)
            }
            Ok(Err(e)) => Ok(self.unkept(&e.to_string())),
            Err(_) => Ok(self.unkept(&format!("no answer within {} s", STORE_WAIT.as_secs()))),
        }
    }

    async fn replay_events_after(
        &self,
        last_event_id: &str,
    ) -> Result<EventStream, EventStoreError> {
        match tokio::time::timeout(STORE_WAIT, self.store.replay_events_after(last_event_id)).await
        {
            Ok(replayed) => replayed,
            Err(_) => Err(format!(
                "the event store did not answer within {} s",
                STORE_WAIT.as_secs()
            )
            .into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_resumption_reads_its_own_session_stream_only() {
        let mine: SessionId = "s1".to_owned().into();
        assert_eq!(own_event_id(&mine, "0").as_deref(), Some("s1:common/0"));
        assert_eq!(
            own_event_id(&mine, "s1:common/4").as_deref(),
            Some("s1:common/4")
        );
        assert_eq!(own_event_id(&mine, "s2:common/4"), None);
        // A request's stream: its random id is the client's own.
        assert_eq!(
            own_event_id(&mine, "9c1e5d0c-2f1e-4a4e-8f5a-0d8a2b1c3e4f/2").as_deref(),
            Some("9c1e5d0c-2f1e-4a4e-8f5a-0d8a2b1c3e4f/2")
        );
    }

    /// A store that never keeps anything.
    struct Broken;

    #[async_trait::async_trait]
    impl EventStore for Broken {
        async fn store_event(
            &self,
            _: &str,
            _: &ServerSseMessage,
        ) -> Result<String, EventStoreError> {
            Err("down".into())
        }
        async fn replay_events_after(&self, _: &str) -> Result<EventStream, EventStoreError> {
            Err("down".into())
        }
    }

    #[tokio::test]
    async fn a_failing_store_never_holds_an_event_back() {
        let kept = KeptEvents::new(Arc::new(Broken));
        let event = ServerSseMessage::retry(Duration::from_secs(1));
        let first = kept.store_event("s", &event).await.expect("an id");
        let second = kept.store_event("s", &event).await.expect("an id");
        assert_ne!(first, second);
        assert!(EventPosition::parse(&first).is_none(), "{first}");
        assert!(kept.replay_events_after(&first).await.is_err());
    }
}
