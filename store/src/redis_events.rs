//! Streams' events on Redis: a stream is the list `{ns}:events:{stream}` of
//! `"{seq} {event}"`, numbered by the counter `{ns}:events:{stream}:seq`,
//! trimmed to its newest [`Options::events_per_stream`] and expiring
//! [`Options::event_ttl`] after its last event; both written in one script.
//!
//! [`Options::events_per_stream`]: crate::Options::events_per_stream
//! [`Options::event_ttl`]: crate::Options::event_ttl

use toolmetadata::server::store::{
    EventPosition, EventStore, EventStoreError, EventStream, ServerSseMessage, replay_kept,
};

use crate::redis::RedisStore;
use crate::shared::{self, bounded};

/// Numbers the event, appends it, trims the list and sets both keys' expiry.
/// KEYS: list, counter. ARGV: event, events per stream, ttl ms.
const KEEP: &str = r"
local seq = redis.call('INCR', KEYS[2])
redis.call('RPUSH', KEYS[1], seq .. ' ' .. ARGV[1])
redis.call('LTRIM', KEYS[1], -tonumber(ARGV[2]), -1)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return seq
";

/// [`KEEP`], its digest computed once.
static KEEP_SCRIPT: std::sync::LazyLock<redis::Script> =
    std::sync::LazyLock::new(|| redis::Script::new(KEEP));

impl RedisStore {
    fn events_key(&self, stream: &str) -> String {
        format!("{}:events:{stream}", self.options.namespace)
    }

    fn ttl_ms(&self) -> u64 {
        u64::try_from(self.options.event_ttl.as_millis())
            .unwrap_or(u64::MAX)
            .max(1)
    }
}

#[async_trait::async_trait]
impl EventStore for RedisStore {
    async fn store_event(
        &self,
        stream_id: &str,
        event: &ServerSseMessage,
    ) -> Result<String, EventStoreError> {
        let json = shared::keepable(&self.name, stream_id, event)?;
        let key = self.events_key(stream_id);
        let mut connection = self.connection.clone();
        let seq: u64 = bounded(
            &self.name,
            self.options.timeout,
            KEEP_SCRIPT
                .key(&key)
                .key(format!("{key}:seq"))
                .arg(json)
                .arg(self.options.events_per_stream)
                .arg(self.ttl_ms())
                .invoke_async(&mut connection),
        )
        .await
        .map_err(shared::boxed)?;
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
        let Some(last) = EventPosition::parse(last_event_id) else {
            return Err(format!("{}: no event has the id given", self.name).into());
        };
        let lines: Vec<String> = self
            .run(
                redis::cmd("LRANGE")
                    .arg(self.events_key(last.stream))
                    .arg(0)
                    .arg(-1),
            )
            .await
            .map_err(shared::boxed)?;
        let mut kept = Vec::with_capacity(lines.len());
        for line in lines {
            let parsed = line
                .split_once(' ')
                .and_then(|(seq, json)| Some((seq.parse().ok()?, json.to_owned())));
            kept.push(parsed.ok_or_else(|| {
                format!(
                    "{}: a kept event of `{}` could not be read",
                    self.name, last.stream
                )
            })?);
        }
        replay_kept(&self.name, last, kept)
    }
}
