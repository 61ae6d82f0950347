//! [`InMemoryEventStore`]: streams' events in this process's memory.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use super::events::{
    EventPosition, EventStore, EventStoreError, EventStream, ServerSseMessage, encode_event,
    replay_kept,
};

/// The most streams kept at once: past it, the one written least recently
/// goes.
const MAX_STREAMS: usize = 10_000;

/// Streams' events in this process's memory, each stream's newest few: for
/// several servers in one process (and tests). Instances in other processes
/// need a shared store (`toolmetadata-store`'s Redis and PostgreSQL stores
/// are); one server alone needs none (rmcp keeps its streams' last events).
#[derive(Debug)]
pub struct InMemoryEventStore {
    per_stream: usize,
    streams: Mutex<Streams>,
}

#[derive(Debug, Default)]
struct Streams {
    by_id: HashMap<String, Kept>,
    /// Streams by their last write, oldest first (with stale entries, which
    /// eviction skips).
    written: VecDeque<(String, u64)>,
    writes: u64,
}

#[derive(Debug, Default)]
struct Kept {
    last_seq: u64,
    last_write: u64,
    events: VecDeque<(u64, String)>,
}

impl InMemoryEventStore {
    /// A store keeping the newest `per_stream` events (at least 1) of each
    /// of at most 10,000 streams.
    pub fn new(per_stream: usize) -> Self {
        InMemoryEventStore {
            per_stream: per_stream.max(1),
            streams: Mutex::default(),
        }
    }

    fn streams(&self) -> std::sync::MutexGuard<'_, Streams> {
        self.streams.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[async_trait::async_trait]
impl EventStore for InMemoryEventStore {
    async fn store_event(
        &self,
        stream_id: &str,
        event: &ServerSseMessage,
    ) -> Result<String, EventStoreError> {
        let json = encode_event(event).ok_or("an event too large to keep")?;
        let mut streams = self.streams();
        streams.writes += 1;
        let write = streams.writes;
        while streams.by_id.len() >= MAX_STREAMS && !streams.by_id.contains_key(stream_id) {
            let Some((oldest, at)) = streams.written.pop_front() else {
                break;
            };
            if streams
                .by_id
                .get(&oldest)
                .is_some_and(|s| s.last_write == at)
            {
                streams.by_id.remove(&oldest);
            }
        }
        let kept = streams.by_id.entry(stream_id.to_owned()).or_default();
        kept.last_seq += 1;
        kept.last_write = write;
        let seq = kept.last_seq;
        kept.events.push_back((seq, json));
        while kept.events.len() > self.per_stream {
            kept.events.pop_front();
        }
        streams.written.push_back((stream_id.to_owned(), write));
        // Stale entries are dropped once they outnumber the streams.
        if streams.written.len() > 2 * MAX_STREAMS {
            let Streams { by_id, written, .. } = &mut *streams;
            written.retain(|(id, at)| by_id.get(id).is_some_and(|s| s.last_write == *at));
        }
        Ok(EventPosition {
            stream: stream_id,
            seq,
        }
        .to_string())
    }

    async fn replay_events_after(
        &self,
        last_event_id: &str,
    ) -> Result<EventStream, EventStoreError> {
        let last = EventPosition::parse(last_event_id).ok_or("no event has the id given")?;
        let kept: Vec<(u64, String)> = self
            .streams()
            .by_id
            .get(last.stream)
            .map(|kept| kept.events.iter().cloned().collect())
            .unwrap_or_default();
        replay_kept("the events in memory", last, kept)
    }
}
