//! Streams' events on Redis: a stream is the list `{ns}:events:{stream}` of
//! `"{seq} {event}"` and the hash `{ns}:events:{stream}:meta` of its epoch
//! (`e`) and newest number (`s`), the list trimmed to its newest
//! [`Options::events_per_stream`], both expiring [`Options::event_ttl`]
//! after the stream's last event (a stream that comes back then is a new
//! epoch); each event kept in one script, each resumption read in one.
//!
//! [`Options::events_per_stream`]: crate::Options::events_per_stream
//! [`Options::event_ttl`]: crate::Options::event_ttl

use std::sync::LazyLock;

use redis::Script;
use toolmetadata::server::store::{
    EventPosition, EventStore, EventStoreError, EventStream, KeptStream, ServerSseMessage,
    new_epoch, replay_kept,
};

use crate::redis::RedisStore;
use crate::shared::{self, bounded};

/// Numbers the event in the stream's epoch (`ARGV[4]` for a new stream),
/// appends it, trims the list and sets both keys' expiry: `{epoch, seq}`.
/// KEYS: list, meta. ARGV: event, events per stream, ttl ms, new epoch.
static KEEP: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
redis.call('HSETNX', KEYS[2], 'e', ARGV[4])
local seq = redis.call('HINCRBY', KEYS[2], 's', 1)
local epoch = redis.call('HGET', KEYS[2], 'e')
redis.call('RPUSH', KEYS[1], seq .. ' ' .. ARGV[1])
redis.call('LTRIM', KEYS[1], -tonumber(ARGV[2]), -1)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return {epoch, seq}
",
    )
});

/// The stream's epoch, oldest and newest numbers, and its events after
/// number `ARGV[1]`; nil for a stream not kept.
/// KEYS: list, meta. ARGV: the resumption's number.
static READ: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
local epoch = redis.call('HGET', KEYS[2], 'e')
local newest = redis.call('HGET', KEYS[2], 's')
local first = redis.call('LINDEX', KEYS[1], 0)
if not epoch or not newest or not first then return false end
local oldest = tonumber(string.match(first, '^(%d+) '))
if not oldest then return false end
local start = tonumber(ARGV[1]) + 1 - oldest
if start < 0 then start = 0 end
return {epoch, oldest, tonumber(newest), redis.call('LRANGE', KEYS[1], start, -1)}
",
    )
});

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
        let (epoch, seq): (u64, u64) = bounded(
            &self.name,
            self.options.timeout,
            KEEP.key(&key)
                .key(format!("{key}:meta"))
                .arg(json)
                .arg(self.options.events_per_stream.max(1))
                .arg(self.ttl_ms())
                .arg(new_epoch())
                .invoke_async(&mut connection),
        )
        .await
        .map_err(shared::boxed)?;
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
        let Some(last) = EventPosition::parse(last_event_id) else {
            return Err(format!("{}: no event has the id given", self.name).into());
        };
        let key = self.events_key(last.stream);
        let mut connection = self.connection.clone();
        let read: Option<(u64, u64, u64, Vec<String>)> = bounded(
            &self.name,
            self.options.timeout,
            READ.key(&key)
                .key(format!("{key}:meta"))
                .arg(last.seq)
                .invoke_async(&mut connection),
        )
        .await
        .map_err(shared::boxed)?;
        let kept = match read {
            None => None,
            Some((epoch, oldest, newest, lines)) => {
                let mut after = Vec::with_capacity(lines.len());
                for line in lines {
                    let parsed = line
                        .split_once(' ')
                        .and_then(|(seq, json)| Some((seq.parse().ok()?, json.to_owned())));
                    after.push(parsed.ok_or_else(|| {
                        format!(
                            "{}: a kept event of `{}` could not be read",
                            self.name, last.stream
                        )
                    })?);
                }
                Some(KeptStream {
                    epoch,
                    oldest,
                    newest,
                    after,
                })
            }
        };
        replay_kept(&self.name, last, kept)
    }
}
