//! A resumption of a 2025-11-25 session's stream with its events kept in
//! the operator's store (see `kept_events`): a resumption reads only its
//! own session's stream; the id of another session's stream is unknown.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use futures_core::Stream;
use futures_util::StreamExt;
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError,
};
use rmcp::transport::streamable_http_server::session::{SessionId, SessionManager};

use crate::server::store::{EventPosition, ServerSseMessage};

/// rmcp's id of the priming event of a session's own (`GET`) stream, sent
/// before any event is kept: a resumption from it replays the stream from
/// its start.
const SESSION_STREAM_PRIMING_ID: &str = "0";

/// The `Last-Event-ID` a resumption of `session` reads from, or `None`
/// when it names another session's stream. rmcp's priming id of the
/// session's own stream reads that stream from its start.
fn own_event_id(session: &SessionId, last_event_id: &str) -> Option<String> {
    let common = common_stream(session);
    if last_event_id == SESSION_STREAM_PRIMING_ID {
        return Some(EventPosition::start(&common).to_string());
    }
    match EventPosition::parse(last_event_id) {
        Some(position) if position.stream.ends_with(":common") && position.stream != common => None,
        _ => Some(last_event_id.to_owned()),
    }
}

/// The id of `session`'s own stream (rmcp's).
fn common_stream(session: &SessionId) -> String {
    format!("{session}:common")
}

/// A stream of events, as a resumption answers.
pub(super) type Events = Pin<Box<dyn Stream<Item = ServerSseMessage> + Send + Sync>>;

/// A resumption of `session` from `last_event_id`, with events kept:
/// `None` when the id names another session's stream. A request's stream
/// is replayed from the store. The session's own stream is replayed and
/// then goes on live (each event once: those the replay gave are dropped
/// from the live stream, attached first so that none falls between); when
/// it cannot be replayed whole, it goes on live alone (the client misses
/// what it missed, rather than reconnecting to the same failure forever).
pub(super) async fn resume(
    sessions: &LocalSessionManager,
    session: &SessionId,
    last_event_id: &str,
) -> Result<Option<Events>, LocalSessionManagerError> {
    let Some(last) = own_event_id(session, last_event_id) else {
        return Ok(None);
    };
    let common = common_stream(session);
    if EventPosition::parse(&last).is_none_or(|p| p.stream != common) {
        return Ok(Some(Box::pin(sessions.resume(session, last).await?)));
    }
    let live = sessions.create_standalone_stream(session).await?;
    let replay = match sessions.resume(session, last).await {
        Ok(replay) => replay,
        Err(e) => {
            tracing::debug!("a session's stream resumed live only: {e}");
            return Ok(Some(Box::pin(live)));
        }
    };
    let newest = Arc::new(AtomicU64::new(0));
    let seen = newest.clone();
    let seq = |event: &ServerSseMessage| {
        event
            .event_id
            .as_deref()
            .and_then(EventPosition::parse)
            .map(|p| p.seq)
    };
    let replay = replay.inspect(move |event| {
        if let Some(seq) = seq(event) {
            seen.fetch_max(seq, Ordering::Relaxed);
        }
    });
    let live = live.filter(move |event| {
        let fresh = seq(event).is_none_or(|seq| seq > newest.load(Ordering::Relaxed));
        std::future::ready(fresh)
    });
    Ok(Some(Box::pin(replay.chain(live))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_resumption_reads_its_own_session_stream_only() {
        let mine: SessionId = "s1".to_owned().into();
        assert_eq!(own_event_id(&mine, "0").as_deref(), Some("s1:common/0.0"));
        assert_eq!(
            own_event_id(&mine, "s1:common/9.4").as_deref(),
            Some("s1:common/9.4")
        );
        assert_eq!(own_event_id(&mine, "s2:common/9.4"), None);
        // A request's stream: its random id is the client's own.
        assert_eq!(
            own_event_id(&mine, "9c1e5d0c-2f1e-4a4e-8f5a-0d8a2b1c3e4f/9.2").as_deref(),
            Some("9c1e5d0c-2f1e-4a4e-8f5a-0d8a2b1c3e4f/9.2")
        );
    }
}
