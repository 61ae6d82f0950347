//! Streams' events in PostgreSQL: the table `{ns}_events`, a row per event
//! numbered in its stream, trimmed to the stream's newest
//! [`Options::events_per_stream`] as each is kept, and each expiring
//! [`Options::event_ttl`] after it was kept (purged with the rest).
//!
//! [`Options::events_per_stream`]: crate::Options::events_per_stream
//! [`Options::event_ttl`]: crate::Options::event_ttl

use toolmetadata::server::store::{
    EventPosition, EventStore, EventStoreError, EventStream, ServerSseMessage, replay_kept,
};

use super::{PostgresStore, ms};
use crate::shared::{self, bounded, unix_ms};

/// How many times keeping an event tries when other instances number
/// events of the same stream at once.
const MAX_KEEP_TRIES: usize = 8;

#[async_trait::async_trait]
impl EventStore for PostgresStore {
    async fn store_event(
        &self,
        stream_id: &str,
        event: &ServerSseMessage,
    ) -> Result<String, EventStoreError> {
        let json = shared::keepable(&self.name, stream_id, event)?;
        let ttl = u64::try_from(self.options.event_ttl.as_millis()).unwrap_or(u64::MAX);
        let expires = ms(unix_ms().saturating_add(ttl));
        let keep = i64::try_from(self.options.events_per_stream).unwrap_or(i64::MAX);
        let seq: i64 = bounded(&self.name, self.options.timeout, async {
            let client = self.pool.get().await.map_err(|e| e.to_string())?;
            self.maybe_purge(&client).await?;
            for _ in 0..MAX_KEEP_TRIES {
                let row = client
                    .query_opt(&self.sql.keep_event, &[&stream_id, &json, &expires, &keep])
                    .await
                    .map_err(|e| e.to_string())?;
                if let Some(row) = row {
                    return Ok(row.get(0));
                }
            }
            Err(format!(
                "the stream's events were numbered by others {MAX_KEEP_TRIES} times in a row"
            ))
        })
        .await
        .map_err(shared::boxed)?;
        Ok(EventPosition {
            stream: stream_id,
            seq: u64::try_from(seq).unwrap_or(0),
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
        let stream = last.stream;
        let rows = bounded(&self.name, self.options.timeout, async {
            let client = self.pool.get().await.map_err(|e| e.to_string())?;
            client
                .query(&self.sql.replay_events, &[&stream, &ms(unix_ms())])
                .await
                .map_err(|e| e.to_string())
        })
        .await
        .map_err(shared::boxed)?;
        let kept = rows
            .iter()
            .map(|row| {
                let seq: i64 = row.get(0);
                (u64::try_from(seq).unwrap_or(0), row.get::<_, String>(1))
            })
            .collect();
        replay_kept(&self.name, last, kept)
    }
}
