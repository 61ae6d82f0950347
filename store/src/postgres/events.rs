//! Streams' events in PostgreSQL: the table `{ns}_events`, a row per event
//! numbered in its stream's epoch (a stream whose rows are all gone comes
//! back as a new epoch), trimmed to the stream's newest
//! [`Options::events_per_stream`] as each is kept, and each expiring
//! [`Options::event_ttl`] after it was kept (purged with the rest).
//!
//! [`Options::events_per_stream`]: crate::Options::events_per_stream
//! [`Options::event_ttl`]: crate::Options::event_ttl

use toolmetadata::server::store::{
    EventPosition, EventStore, EventStoreError, EventStream, KeptStream, ServerSseMessage,
    new_epoch, replay_kept,
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
        let keep = i64::try_from(self.options.events_per_stream.max(1)).unwrap_or(i64::MAX);
        let epoch = i64::try_from(new_epoch()).unwrap_or(1);
        let (seq, epoch): (i64, i64) = bounded(&self.name, self.options.timeout, async {
            let client = self.pool.get().await.map_err(|e| e.to_string())?;
            self.maybe_purge(&client).await?;
            for _ in 0..MAX_KEEP_TRIES {
                let row = client
                    .query_opt(
                        &self.sql.keep_event,
                        &[&stream_id, &json, &expires, &keep, &epoch],
                    )
                    .await
                    .map_err(|e| e.to_string())?;
                if let Some(row) = row {
                    return Ok((row.get(0), row.get(1)));
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
            epoch: u64::try_from(epoch).unwrap_or(0),
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
        let after = i64::try_from(last.seq).unwrap_or(i64::MAX);
        let now = ms(unix_ms());
        let (bounds, rows) = bounded(&self.name, self.options.timeout, async {
            let client = self.pool.get().await.map_err(|e| e.to_string())?;
            let bounds = client
                .query_one(&self.sql.stream_bounds, &[&stream, &now])
                .await
                .map_err(|e| e.to_string())?;
            let rows = client
                .query(&self.sql.replay_events, &[&stream, &now, &after])
                .await
                .map_err(|e| e.to_string())?;
            Ok::<_, String>((bounds, rows))
        })
        .await
        .map_err(shared::boxed)?;
        let number = |n: i64| u64::try_from(n).unwrap_or(0);
        let oldest: Option<i64> = bounds.get(0);
        let kept = oldest.map(|oldest| KeptStream {
            epoch: number(bounds.get::<_, Option<i64>>(2).unwrap_or(0)),
            oldest: number(oldest),
            newest: number(bounds.get::<_, Option<i64>>(1).unwrap_or(0)),
            after: rows
                .iter()
                .map(|row| (number(row.get(0)), row.get::<_, String>(1)))
                .collect(),
        });
        replay_kept(&self.name, last, kept)
    }
}
