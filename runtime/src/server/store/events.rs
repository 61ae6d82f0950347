//! Resumable 2025-11-25 streams across instances: rmcp's [`EventStore`]
//! keeps each SSE event a session's streams send, so that a `GET` with
//! `Last-Event-ID` on any instance replays what the client missed.
//!
//! What a store shares with every other is here: the event as it is kept
//! ([`encode_event`], [`decode_event`]), where it sits ([`EventPosition`],
//! which is its id), and the answer to a resumption ([`replay_kept`]). A
//! store keeps each stream's newest events only (a bound per stream and an
//! age), numbers them from 1 in an epoch of the stream (a stream that
//! expired and comes back is a new epoch: its numbers never meet the old
//! ones), and says so when a replay cannot be whole: it would start before
//! the oldest event kept, in an epoch gone, past the newest, or across an
//! event that was not kept (a [gap marker](gap_marker)) rather than skip.
//!
//! The 2026-07-28 generation has no resumable streams (a broken stream
//! loses its request, which the client sends again): the server keeps no
//! events of it.

use std::time::Duration;

use serde::{Deserialize, Serialize};

pub use rmcp::transport::streamable_http_server::session::ServerSseMessage;
pub use rmcp::transport::streamable_http_server::session::store::{
    EventStore, EventStoreError, EventStream,
};

/// The most bytes one kept event may take: past that, a [gap
/// marker](gap_marker) is kept in its place (the event is sent with the
/// marker's id; a resumption from before it fails, from it goes on).
pub const MAX_EVENT_BYTES: usize = 256 << 10;

/// The method of the notification that stands for events that were sent
/// but not kept (see [`gap_marker`]); never sent to a client.
const GAP_METHOD: &str = "notifications/io.toolmetadata/unkept";

/// Where an event sits: its stream, the stream's epoch, and its place in it
/// (from 1). Its text (`{stream}/{epoch}.{seq}`) is the event's id, the
/// `Last-Event-ID` a client sends back. Stream ids are rmcp's: random UUIDs
/// for a request's stream, and `{session id}:common` for the session's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventPosition<'a> {
    /// The stream.
    pub stream: &'a str,
    /// The stream's epoch: chosen when it keeps its first event, new when
    /// it comes back after expiring.
    pub epoch: u64,
    /// The event's place in its stream, from 1 (0: before the first, in
    /// whatever epoch).
    pub seq: u64,
}

impl<'a> EventPosition<'a> {
    /// The position an event id names, or `None` for an id no store of
    /// this crate issued.
    pub fn parse(id: &'a str) -> Option<EventPosition<'a>> {
        let (stream, place) = id.rsplit_once('/')?;
        let (epoch, seq) = place.split_once('.')?;
        let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        let valid = !stream.is_empty()
            && stream.len() <= MAX_STREAM_ID_LEN
            && !stream.contains('\0')
            && digits(epoch)
            && digits(seq);
        if !valid {
            return None;
        }
        Some(EventPosition {
            stream,
            epoch: epoch.parse().ok()?,
            seq: seq.parse().ok()?,
        })
    }

    /// The position before the first event of `stream`, whatever its
    /// epoch: a resumption from it replays the stream from its start.
    pub fn start(stream: &'a str) -> EventPosition<'a> {
        EventPosition {
            stream,
            epoch: 0,
            seq: 0,
        }
    }
}

impl std::fmt::Display for EventPosition<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}.{}", self.stream, self.epoch, self.seq)
    }
}

/// The longest stream id a store keeps events for (rmcp's are a UUID, or a
/// session id and `:common`).
pub const MAX_STREAM_ID_LEN: usize = 200;

/// A new epoch for a stream: random, so that two instances starting one
/// stream at once, or one stream starting again, never share one.
pub fn new_epoch() -> u64 {
    u64::from_le_bytes(
        uuid::Uuid::new_v4().as_bytes()[..8]
            .try_into()
            .unwrap_or([1; 8]),
    ) >> 12
        | 1
}

/// An event as a store keeps it: the message, and the retry hint of a
/// priming event; or the mark of events not kept.
#[derive(Serialize, Deserialize)]
struct Kept {
    #[serde(rename = "m", default, skip_serializing_if = "Option::is_none")]
    message: Option<serde_json::Value>,
    #[serde(rename = "r", default, skip_serializing_if = "Option::is_none")]
    retry_ms: Option<u64>,
    #[serde(rename = "g", default, skip_serializing_if = "std::ops::Not::not")]
    gap: bool,
}

/// The event that stands, in a stream, for events sent but not kept (the
/// store was out of reach, or an event too large): a store keeps it as any
/// event, and a resumption from before it fails rather than skip them.
pub fn gap_marker() -> ServerSseMessage {
    let notification = serde_json::json!({"jsonrpc": "2.0", "method": GAP_METHOD});
    match serde_json::from_value(notification) {
        Ok(message) => ServerSseMessage::from_message(message),
        Err(_) => ServerSseMessage::default(),
    }
}

/// Whether `event` is a [gap marker](gap_marker).
pub fn is_gap_marker(event: &ServerSseMessage) -> bool {
    event.message.as_deref().is_some_and(|message| {
        serde_json::to_value(message)
            .ok()
            .is_some_and(|m| m["method"] == GAP_METHOD)
    })
}

/// `event` as a store keeps it (its id aside: the store gives it one): a
/// [gap marker](gap_marker) in its place past [`MAX_EVENT_BYTES`].
pub fn encode_event(event: &ServerSseMessage) -> String {
    const MARKER: &str = r#"{"g":true}"#;
    if is_gap_marker(event) {
        return MARKER.to_owned();
    }
    let message = match &event.message {
        Some(message) => match serde_json::to_value(message.as_ref()) {
            Ok(message) => Some(message),
            Err(_) => return MARKER.to_owned(),
        },
        None => None,
    };
    let kept = Kept {
        message,
        retry_ms: event
            .retry
            .map(|retry| u64::try_from(retry.as_millis()).unwrap_or(u64::MAX)),
        gap: false,
    };
    serde_json::to_string(&kept)
        .ok()
        .filter(|json| json.len() <= MAX_EVENT_BYTES)
        .unwrap_or_else(|| MARKER.to_owned())
}

/// What a kept event holds.
enum Decoded {
    Event(ServerSseMessage),
    Gap,
}

fn decode(json: &str, id: String) -> Option<Decoded> {
    let kept: Kept = serde_json::from_str(json).ok()?;
    if kept.gap {
        return Some(Decoded::Gap);
    }
    let mut event = match kept.message {
        Some(message) => ServerSseMessage::from_message(serde_json::from_value(message).ok()?),
        None => ServerSseMessage::default(),
    };
    event.retry = kept.retry_ms.map(Duration::from_millis);
    event.event_id = Some(id);
    Some(Decoded::Event(event))
}

/// The event a store kept as `json`, with its id; `None` for anything that
/// is not one, a [gap marker](gap_marker) included.
pub fn decode_event(json: &str, id: String) -> Option<ServerSseMessage> {
    match decode(json, id)? {
        Decoded::Event(event) => Some(event),
        Decoded::Gap => None,
    }
}

/// What a store holds of one stream, for a resumption: its epoch, the
/// numbers of the oldest and newest events it keeps, and the events after
/// the resumption's (`(seq, event)` as [`encode_event`] wrote them, oldest
/// first; a store may give more, the older are skipped).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptStream {
    /// The stream's epoch.
    pub epoch: u64,
    /// The number of the oldest event kept.
    pub oldest: u64,
    /// The number of the newest event kept.
    pub newest: u64,
    /// The events after the resumption's, oldest first.
    pub after: Vec<(u64, String)>,
}

/// A store's answer to a resumption after `last`, from what it holds of
/// that stream (`None`: nothing): the events after `last`, or an error
/// (naming `store`) when the replay could not be whole: `last` is of an
/// epoch gone or past the newest, some events after it are no longer kept
/// or were never kept (a [gap marker](gap_marker)), or a kept event cannot
/// be read. Without an error, a client misses nothing.
pub fn replay_kept(
    store: &str,
    last: EventPosition<'_>,
    kept: Option<KeptStream>,
) -> Result<EventStream, EventStoreError> {
    let from_start = last.seq == 0;
    let Some(kept) = kept else {
        return match from_start {
            // A stream that has kept nothing yet (a session's own before
            // its first event) has nothing to replay.
            true => Ok(Box::pin(futures_util::stream::empty())),
            false => Err(format!("{store}: no events are kept of the stream of `{last}`").into()),
        };
    };
    let lost = |why: String| -> Result<EventStream, EventStoreError> {
        Err(format!("{store}: cannot replay the events after `{last}`: {why}").into())
    };
    if !from_start && last.epoch != kept.epoch {
        return lost("the stream expired and started again since".to_owned());
    }
    if last.seq > kept.newest {
        return lost(format!("the newest event kept is number {}", kept.newest));
    }
    if kept.oldest > last.seq.saturating_add(1) {
        return lost(format!("the oldest event kept is number {}", kept.oldest));
    }
    let mut events = Vec::with_capacity(kept.after.len());
    for (seq, json) in kept.after.into_iter().filter(|(seq, _)| *seq > last.seq) {
        let id = EventPosition {
            stream: last.stream,
            epoch: kept.epoch,
            seq,
        };
        match decode(&json, id.to_string()) {
            Some(Decoded::Event(event)) => events.push(event),
            Some(Decoded::Gap) => return lost(format!("the events before `{id}` were not kept")),
            None => return lost(format!("the kept event `{id}` could not be read")),
        }
    }
    Ok(Box::pin(futures_util::stream::iter(events)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::StreamExt;

    #[test]
    fn an_id_names_its_stream_epoch_and_place() {
        let id = EventPosition {
            stream: "0b6f:common",
            epoch: 42,
            seq: 7,
        }
        .to_string();
        assert_eq!(id, "0b6f:common/42.7");
        assert_eq!(
            EventPosition::parse(&id),
            Some(EventPosition {
                stream: "0b6f:common",
                epoch: 42,
                seq: 7
            })
        );
        for other in [
            "0",
            "",
            "/1.1",
            "a/",
            "a/1",
            "a/+1.1",
            "a/1.-1",
            "a/x.1",
            "a/1.99999999999999999999",
            "a/1.1.1",
            "a/.1",
            "a/1.",
        ] {
            assert_eq!(EventPosition::parse(other), None, "{other}");
        }
        let long = format!("{}/1.1", "s".repeat(MAX_STREAM_ID_LEN + 1));
        assert_eq!(EventPosition::parse(&long), None);
        assert_ne!(new_epoch(), 0);
    }

    fn message(uri: &str) -> rmcp::model::ServerJsonRpcMessage {
        serde_json::from_value(serde_json::json!({"jsonrpc": "2.0",
            "method": "notifications/resources/updated", "params": {"uri": uri}}))
        .expect("a notification")
    }

    #[test]
    fn an_event_is_kept_whole_and_one_too_large_as_a_gap() {
        let message = message("file:///a");
        let event = ServerSseMessage::from_message(message.clone());
        let back = decode_event(&encode_event(&event), "s/1.1".to_owned()).expect("read back");
        assert_eq!(back.event_id.as_deref(), Some("s/1.1"));
        assert_eq!(
            serde_json::to_value(back.message.as_deref()).ok(),
            serde_json::to_value(&message).ok()
        );
        let priming = ServerSseMessage::retry(Duration::from_secs(3));
        let back = decode_event(&encode_event(&priming), "s/1.2".to_owned()).expect("read back");
        assert_eq!(back.retry, Some(Duration::from_secs(3)));
        assert!(back.message.is_none());
        assert!(decode_event("{\"m\": 1}", "s/1.3".to_owned()).is_none());
        assert!(decode_event("not json", "s/1.3".to_owned()).is_none());
        let huge = ServerSseMessage::from_message(self::message(&"x".repeat(MAX_EVENT_BYTES)));
        assert_eq!(encode_event(&huge), encode_event(&gap_marker()));
        assert!(decode_event(&encode_event(&gap_marker()), "s/1.4".to_owned()).is_none());
    }

    async fn replayed(last: &str, kept: Option<KeptStream>) -> Result<Vec<String>, String> {
        let last = EventPosition::parse(last).expect("an id");
        let stream = replay_kept("the store", last, kept).map_err(|e| e.to_string())?;
        Ok(stream
            .map(|e| e.event_id.unwrap_or_default())
            .collect()
            .await)
    }

    fn kept(epoch: u64, seqs: std::ops::RangeInclusive<u64>) -> Option<KeptStream> {
        let event = encode_event(&ServerSseMessage::from_message(message("file:///a")));
        Some(KeptStream {
            epoch,
            oldest: *seqs.start(),
            newest: *seqs.end(),
            after: seqs.map(|seq| (seq, event.clone())).collect(),
        })
    }

    #[tokio::test]
    async fn a_replay_is_whole_or_an_error() {
        assert_eq!(
            replayed("s/5.2", kept(5, 1..=4)).await,
            Ok(vec!["s/5.3".to_owned(), "s/5.4".to_owned()])
        );
        assert_eq!(replayed("s/5.4", kept(5, 1..=4)).await, Ok(vec![]));
        assert_eq!(
            replayed("s/0.0", kept(5, 1..=2)).await.map(|e| e.len()),
            Ok(2)
        );
        assert_eq!(replayed("s/0.0", None).await, Ok(vec![]));
        // Trimmed past the resumption, another epoch, past the newest,
        // nothing kept: errors, never a replay that skips.
        for (last, kept) in [
            ("s/5.1", kept(5, 3..=4)),
            ("s/0.0", kept(5, 3..=4)),
            ("s/4.2", kept(5, 1..=4)),
            ("s/5.9", kept(5, 1..=4)),
            ("s/5.1", None),
        ] {
            let got = replayed(last, kept).await;
            assert!(got.is_err(), "{last}: {got:?}");
        }
        let mut gapped = kept(5, 1..=4).expect("kept");
        gapped.after[2].1 = encode_event(&gap_marker());
        let got = replayed("s/5.1", Some(gapped.clone())).await;
        assert!(
            got.as_ref().is_err_and(|e| e.contains("not kept")),
            "{got:?}"
        );
        assert_eq!(
            replayed("s/5.3", Some(gapped)).await,
            Ok(vec!["s/5.4".to_owned()])
        );
    }
}
