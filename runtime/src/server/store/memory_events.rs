//! [`InMemoryEventStore`]: streams' events in this process's memory.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use super::events::{
    EventPosition, EventStore, EventStoreError, EventStream, KeptStream, ServerSseMessage,
    encode_event, new_epoch, replay_kept,
};

/// The most streams kept at once: past it, the one written least recently
/// goes.
const MAX_STREAMS: usize = 10_000;
/// The most bytes of events kept in all: past it, the streams written least
/// recently go.
const MAX_BYTES: usize = 64 << 20;

/// Streams' events in this process's memory, each stream's newest few, at
/// most 10,000 streams and 64 MiB: for several servers in one process (and
/// tests). Instances in other processes need a shared store
/// (`toolmetadata-store`'s Redis and PostgreSQL stores are); one server
/// alone needs none (rmcp keeps its streams' last events).
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
    bytes: usize,
}

#[derive(Debug)]
struct Kept {
    epoch: u64,
    last_seq: u64,
    last_write: u64,
    events: VecDeque<(u64, String)>,
}

impl Streams {
    /// Removes the stream written least recently; false when none is left.
    fn evict_oldest(&mut self) -> bool {
        while let Some((oldest, at)) = self.written.pop_front() {
            if self.by_id.get(&oldest).is_some_and(|s| s.last_write == at) {
                if let Some(gone) = self.by_id.remove(&oldest) {
                    self.bytes -= gone.events.iter().map(|(_, e)| e.len()).sum::<usize>();
                }
                return true;
            }
        }
        false
    }
}

impl InMemoryEventStore {
    /// A store keeping the newest `per_stream` events (at least 1) of each
    /// stream.
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
        let json = encode_event(event);
        let mut streams = self.streams();
        streams.writes += 1;
        let write = streams.writes;
        while (streams.by_id.len() >= MAX_STREAMS && !streams.by_id.contains_key(stream_id))
            || streams.bytes + json.len() > MAX_BYTES
        {
            if !streams.evict_oldest() {
                break;
            }
        }
        streams.bytes += json.len();
        let kept = streams
            .by_id
            .entry(stream_id.to_owned())
            .or_insert_with(|| Kept {
                epoch: new_epoch(),
                last_seq: 0,
                last_write: 0,
                events: VecDeque::new(),
            });
        kept.last_seq += 1;
        kept.last_write = write;
        let (epoch, seq) = (kept.epoch, kept.last_seq);
        kept.events.push_back((seq, json));
        let mut freed = 0;
        while kept.events.len() > self.per_stream {
            freed += kept.events.pop_front().map_or(0, |(_, e)| e.len());
        }
        streams.bytes -= freed;
        streams.written.push_back((stream_id.to_owned(), write));
        // Stale entries are dropped once they outnumber the streams.
        if streams.written.len() > 2 * MAX_STREAMS {
            let Streams { by_id, written, .. } = &mut *streams;
            written.retain(|(id, at)| by_id.get(id).is_some_and(|s| s.last_write == *at));
        }
        Ok(EventPosition {
            stream: stream_id,
            epoch,
            seq,
        }
        .to_string())
    }

    async fn replay_events_after(
        &self,
        last_event_id: &str,
    ) -> Result<EventStream, EventStoreError> {
        let last = EventPosition::parse(last_event_id).ok_or("no event has the id given")?;
        let kept = self
            .streams()
            .by_id
            .get(last.stream)
            .map(|kept| KeptStream {
                epoch: kept.epoch,
                oldest: kept.events.front().map_or(0, |(seq, _)| *seq),
                newest: kept.last_seq,
                after: kept
                    .events
                    .iter()
                    .filter(|(seq, _)| *seq > last.seq)
                    .cloned()
                    .collect(),
            });
        replay_kept("the events in memory", last, kept)
    }
}
