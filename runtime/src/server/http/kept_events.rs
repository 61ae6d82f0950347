//! The operator's [`EventStore`] as the sessions use it: a store that
//! fails or does not answer never holds a message back. The event is sent
//! unkept, with an id of this instance's that no store knows (a resumption
//! from it fails), the server says so once (a WARN) and again when the
//! store is back (INFO), and meanwhile does not ask the store more than
//! once every [`RETRY`]. A stream that sent events unkept gets a [gap
//! marker](crate::server::store::gap_marker) before its next kept event,
//! so that a resumption from before them fails rather than skip them.
//!
//! And a resumption reads only its own session's stream (`sessions::resume`):
//! the id of another session's stream is unknown (a request's stream is a
//! random UUID, known only to the client it was sent to).

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use tokio::time::Instant;

use crate::server::store::{
    EventStore, EventStoreError, EventStream, MAX_STREAM_ID_LEN, ServerSseMessage, gap_marker,
};

/// The longest a store may take to keep or replay events before the event
/// goes unkept (or the resumption fails): the stores bound
/// themselves, a store of the operator's may not.
const STORE_WAIT: Duration = Duration::from_secs(5);

/// How long events go unkept, without asking the store, after it failed.
const RETRY: Duration = Duration::from_secs(2);

/// The most streams remembered as owing a gap marker: past it, a stream's
/// unkept events may be skipped by a resumption (an outage across more
/// streams than this at once).
const MAX_GAPPED: usize = 10_000;

/// The store, with the fallback, the once-per-outage WARN and the gaps.
pub(super) struct KeptEvents {
    store: Arc<dyn EventStore>,
    /// This instance's prefix of the ids of unkept events.
    origin: String,
    unkept: AtomicU64,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// While the store is failing: when to ask it again.
    down: Option<Instant>,
    /// The streams that sent events unkept, owing a gap marker.
    gapped: HashSet<String>,
}

impl KeptEvents {
    pub(super) fn new(store: Arc<dyn EventStore>) -> Self {
        KeptEvents {
            store,
            origin: uuid::Uuid::new_v4().simple().to_string(),
            unkept: AtomicU64::new(0),
            state: Mutex::default(),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// An id for an event of `stream` sent unkept: unique, and of no
    /// stream (it has no `/`), so a resumption from it fails.
    fn unkept(&self, stream: &str, why: Option<&str>) -> String {
        let mut state = self.state();
        if let Some(why) = why {
            if state.down.is_none() {
                tracing::warn!(
                    "the event store does not keep events ({why}): streams are sent unkept, and cannot be resumed across them, until it does"
                );
            }
            state.down = Some(Instant::now() + RETRY);
        }
        if state.gapped.len() < MAX_GAPPED && stream.len() <= MAX_STREAM_ID_LEN {
            state.gapped.insert(stream.to_owned());
        }
        drop(state);
        let n = self.unkept.fetch_add(1, Ordering::Relaxed);
        format!("unkept-{}-{n}", self.origin)
    }

    /// Keeps `event`, bounded by [`STORE_WAIT`]; the error says why not.
    async fn keep(&self, stream: &str, event: &ServerSseMessage) -> Result<String, String> {
        match tokio::time::timeout(STORE_WAIT, self.store.store_event(stream, event)).await {
            Ok(Ok(id)) => Ok(id),
            Ok(Err(e)) => Err(e.to_string()),
            Err(_) => Err(format!("no answer within {} s", STORE_WAIT.as_secs())),
        }
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
            return Ok(self.unkept(stream_id, None));
        }
        let (retry_later, owes_gap) = {
            let state = self.state();
            (
                state.down.is_some_and(|at| Instant::now() < at),
                state.gapped.contains(stream_id),
            )
        };
        if retry_later {
            return Ok(self.unkept(stream_id, None));
        }
        let kept = match owes_gap {
            true => match self.keep(stream_id, &gap_marker()).await {
                Ok(_) => self.keep(stream_id, event).await,
                Err(e) => Err(e),
            },
            false => self.keep(stream_id, event).await,
        };
        match kept {
            Ok(id) => {
                let mut state = self.state();
                if owes_gap {
                    state.gapped.remove(stream_id);
                }
                if state.down.take().is_some() {
                    tracing::info!("the event store keeps events again");
                }
                Ok(id)
            }
            Err(why) => Ok(self.unkept(stream_id, Some(&why))),
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
    use crate::server::store::EventPosition;

    /// A store that keeps nothing.
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

    /// A store that fails while `down` is set.
    struct Flaky {
        down: std::sync::atomic::AtomicBool,
        inner: crate::server::store::InMemoryEventStore,
    }

    #[async_trait::async_trait]
    impl EventStore for Flaky {
        async fn store_event(
            &self,
            stream: &str,
            event: &ServerSseMessage,
        ) -> Result<String, EventStoreError> {
            if self.down.load(Ordering::Relaxed) {
                return Err("down".into());
            }
            self.inner.store_event(stream, event).await
        }
        async fn replay_events_after(&self, id: &str) -> Result<EventStream, EventStoreError> {
            self.inner.replay_events_after(id).await
        }
    }

    #[tokio::test(start_paused = true)]
    async fn events_sent_unkept_are_never_skipped_by_a_resumption() {
        let flaky = Arc::new(Flaky {
            down: false.into(),
            inner: crate::server::store::InMemoryEventStore::new(16),
        });
        let kept = KeptEvents::new(flaky.clone());
        let event = ServerSseMessage::retry(Duration::from_secs(1));
        let before = kept.store_event("s", &event).await.expect("an id");
        flaky.down.store(true, Ordering::Relaxed);
        let lost = kept.store_event("s", &event).await.expect("an id");
        assert!(EventPosition::parse(&lost).is_none(), "{lost}");
        flaky.down.store(false, Ordering::Relaxed);
        // Within RETRY the store is not asked again.
        let skipped = kept.store_event("s", &event).await.expect("an id");
        assert!(EventPosition::parse(&skipped).is_none(), "{skipped}");
        tokio::time::advance(RETRY + Duration::from_millis(1)).await;
        let after = kept.store_event("s", &event).await.expect("an id");
        assert!(EventPosition::parse(&after).is_some(), "{after}");
        // From before the unkept events: an error, not a replay without them.
        let resumed = kept.replay_events_after(&before).await;
        assert!(resumed.is_err(), "a resumption skipped the unkept events");
        // From the event kept after them: what follows.
        assert!(kept.replay_events_after(&after).await.is_ok());
    }
}
