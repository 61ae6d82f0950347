//! Resumable 2025-11-25 streams across instances: rmcp's [`EventStore`]
//! keeps each SSE event a session's streams send, so that a `GET` with
//! `Last-Event-ID` on any instance replays what the client missed.
//!
//! What a store shares with every other is here: the event as it is kept
//! ([`encode_event`], [`decode_event`]) and where it sits
//! ([`EventPosition`], which is its id). A store keeps each stream's
//! newest events only (a bound per stream and an age), and says so when a
//! replay would start before the oldest it kept rather than skip the gap.
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

/// The most bytes one kept event may take: past that, the event is sent
/// but not kept (a resumption past it starts after it; the server logs it).
pub const MAX_EVENT_BYTES: usize = 4 << 20;

/// Where an event sits: its stream, and its place in it (from 1). Its text
/// (`{stream}/{seq}`) is the event's id, the `Last-Event-ID` a client sends
/// back. Stream ids are rmcp's: random UUIDs for a request's stream, and
/// `{session id}:common` for the session's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventPosition<'a> {
    /// The stream.
    pub stream: &'a str,
    /// The event's place in its stream, from 1 (0: before the first).
    pub seq: u64,
}

impl<'a> EventPosition<'a> {
    /// The position an event id names, or `None` for an id no store of
    /// this crate issued.
    pub fn parse(id: &'a str) -> Option<EventPosition<'a>> {
        let (stream, seq) = id.rsplit_once('/')?;
        let valid = !stream.is_empty()
            && stream.len() <= MAX_STREAM_ID_LEN
            && !stream.contains('\0')
            && !seq.starts_with('+');
        valid
            .then(|| seq.parse().ok())
            .flatten()
            .map(|seq| EventPosition { stream, seq })
    }
}

impl std::fmt::Display for EventPosition<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.stream, self.seq)
    }
}

/// The longest stream id a store keeps events for (rmcp's are a UUID, or a
/// session id and `:common`).
pub const MAX_STREAM_ID_LEN: usize = 200;

/// An event as a store keeps it: the message, and the retry hint of a
/// priming event.
#[derive(Serialize, Deserialize)]
struct Kept {
    #[serde(rename = "m", default, skip_serializing_if = "Option::is_none")]
    message: Option<serde_json::Value>,
    #[serde(rename = "r", default, skip_serializing_if = "Option::is_none")]
    retry_ms: Option<u64>,
}

/// `event` as a store keeps it (its id aside: the store gives it one), or
/// `None` past [`MAX_EVENT_BYTES`].
pub fn encode_event(event: &ServerSseMessage) -> Option<String> {
    let kept = Kept {
        message: match &event.message {
            Some(message) => Some(serde_json::to_value(message.as_ref()).ok()?),
            None => None,
        },
        retry_ms: event
            .retry
            .map(|retry| u64::try_from(retry.as_millis()).unwrap_or(u64::MAX)),
    };
    serde_json::to_string(&kept)
        .ok()
        .filter(|json| json.len() <= MAX_EVENT_BYTES)
}

/// The event a store kept as `json`, with its id; `None` for anything that
/// is not one.
pub fn decode_event(json: &str, id: String) -> Option<ServerSseMessage> {
    let kept: Kept = serde_json::from_str(json).ok()?;
    let mut event = match kept.message {
        Some(message) => ServerSseMessage::from_message(serde_json::from_value(message).ok()?),
        None => ServerSseMessage::default(),
    };
    event.retry = kept.retry_ms.map(Duration::from_millis);
    event.event_id = Some(id);
    Some(event)
}

/// A store's answer to a resumption after `last`, from the events it kept
/// of that stream as [`encode_event`] wrote them (`(seq, event)`, oldest
/// first): those after `last`, or an error (naming `store`) when some
/// after it are no longer kept (the client would miss them without
/// knowing), `last` is of no stream kept, or a kept event cannot be read.
pub fn replay_kept(
    store: &str,
    last: EventPosition<'_>,
    kept: Vec<(u64, String)>,
) -> Result<EventStream, EventStoreError> {
    let Some(oldest) = kept.first().map(|(seq, _)| *seq) else {
        return match last.seq {
            // A stream that has kept nothing yet (a session's own before
            // its first event) has nothing to replay.
            0 => Ok(Box::pin(futures_util::stream::empty())),
            _ => Err(format!("{store}: no events are kept of the stream of `{last}`").into()),
        };
    };
    if oldest > last.seq.saturating_add(1) {
        return Err(format!(
            "{store}: the events after `{last}` are no longer kept (the oldest kept is number {oldest})"
        )
        .into());
    }
    let mut events = Vec::with_capacity(kept.len());
    for (seq, json) in kept.into_iter().filter(|(seq, _)| *seq > last.seq) {
        let id = EventPosition {
            stream: last.stream,
            seq,
        };
        let event = decode_event(&json, id.to_string())
            .ok_or_else(|| format!("{store}: the kept event `{id}` could not be read"))?;
        events.push(event);
    }
    Ok(Box::pin(futures_util::stream::iter(events)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_names_its_stream_and_place() {
        let id = EventPosition {
            stream: "0b6f:common",
            seq: 7,
        }
        .to_string();
        assert_eq!(id, "0b6f:common/7");
        assert_eq!(
            EventPosition::parse(&id),
            Some(EventPosition {
                stream: "0b6f:common",
                seq: 7
            })
        );
        for other in [
            "0",
            "",
            "/1",
            "a/",
            "a/+1",
            "a/-1",
            "a/x",
            "a/99999999999999999999",
        ] {
            assert_eq!(EventPosition::parse(other), None, "{other}");
        }
        let long = format!("{}/1", "s".repeat(MAX_STREAM_ID_LEN + 1));
        assert_eq!(EventPosition::parse(&long), None);
    }

    #[test]
    fn an_event_is_kept_whole() {
        let message: rmcp::model::ServerJsonRpcMessage = serde_json::from_value(
            serde_json::json!({"jsonrpc": "2.0", "method": "notifications/resources/updated",
                               "params": {"uri": "file:///a"}}),
        )
        .expect("a notification");
        let event = ServerSseMessage::from_message(message.clone());
        let back = decode_event(&encode_event(&event).expect("kept"), "s/1".to_owned())
            .expect("read back");
        assert_eq!(back.event_id.as_deref(), Some("s/1"));
        assert_eq!(
            serde_json::to_value(back.message.as_deref()).ok(),
            serde_json::to_value(&message).ok()
        );
        let priming = ServerSseMessage::retry(Duration::from_secs(3));
        let back = decode_event(&encode_event(&priming).expect("kept"), "s/2".to_owned())
            .expect("read back");
        assert_eq!(back.retry, Some(Duration::from_secs(3)));
        assert!(back.message.is_none());
        assert!(decode_event("{\"m\": 1}", "s/3".to_owned()).is_none());
        assert!(decode_event("not json", "s/3".to_owned()).is_none());
    }
}
