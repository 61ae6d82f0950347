//! What a handler logs for the client ([`Context::log`](crate::Context::log)):
//! `notifications/message`, sent only from the level the client asked for on,
//! by `logging/setLevel` (a session's) or a 2026-07-28 request's `_meta`
//! `io.modelcontextprotocol/logLevel` (that request's). Until it asks, none.
// Logging is deprecated by SEP-2577 and still served by both generations.
#![expect(
    deprecated,
    reason = "logging is deprecated by SEP-2577 and still served"
)]

#[cfg(feature = "sessions")]
use std::sync::atomic::{AtomicU8, Ordering};

use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam};
use rmcp::service::{RequestContext, RoleServer};

use crate::LogLevel;

/// How long sending one log message may take.
const SEND_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(2);

/// The level a session's client set; none until it does.
#[cfg(feature = "sessions")]
#[derive(Debug, Default)]
pub(super) struct SessionLogLevel(AtomicU8);

/// Without sessions no client sets a level but per request.
#[cfg(not(feature = "sessions"))]
#[derive(Debug, Default)]
pub(super) struct SessionLogLevel;

#[cfg(feature = "sessions")]
impl SessionLogLevel {
    pub(super) fn set(&self, level: LoggingLevel) {
        self.0.store(rank(ours(level)) + 1, Ordering::Relaxed);
    }

    fn get(&self) -> Option<LogLevel> {
        match self.0.load(Ordering::Relaxed) {
            0 => None,
            n => LEVELS.get(usize::from(n - 1)).copied(),
        }
    }
}

/// The levels, least severe first.
#[cfg(any(test, feature = "sessions"))]
const LEVELS: [LogLevel; 8] = [
    LogLevel::Debug,
    LogLevel::Info,
    LogLevel::Notice,
    LogLevel::Warning,
    LogLevel::Error,
    LogLevel::Critical,
    LogLevel::Alert,
    LogLevel::Emergency,
];

#[cfg(feature = "sessions")]
fn rank(level: LogLevel) -> u8 {
    LEVELS
        .iter()
        .position(|l| *l == level)
        .and_then(|i| u8::try_from(i).ok())
        .unwrap_or(0)
}

fn ours(level: LoggingLevel) -> LogLevel {
    match level {
        LoggingLevel::Debug => LogLevel::Debug,
        LoggingLevel::Info => LogLevel::Info,
        LoggingLevel::Notice => LogLevel::Notice,
        LoggingLevel::Warning => LogLevel::Warning,
        LoggingLevel::Error => LogLevel::Error,
        LoggingLevel::Critical => LogLevel::Critical,
        LoggingLevel::Alert => LogLevel::Alert,
        LoggingLevel::Emergency => LogLevel::Emergency,
    }
}

fn theirs(level: LogLevel) -> LoggingLevel {
    match level {
        LogLevel::Debug => LoggingLevel::Debug,
        LogLevel::Info => LoggingLevel::Info,
        LogLevel::Notice => LoggingLevel::Notice,
        LogLevel::Warning => LoggingLevel::Warning,
        LogLevel::Error => LoggingLevel::Error,
        LogLevel::Critical => LoggingLevel::Critical,
        LogLevel::Alert => LoggingLevel::Alert,
        LogLevel::Emergency => LoggingLevel::Emergency,
    }
}

/// Sends `data` at `level`, logged by `tool`, when the request's client
/// wants it: the request's own level first, else its session's.
pub(super) async fn send(
    request: &RequestContext<RoleServer>,
    session: &SessionLogLevel,
    tool: &str,
    level: LogLevel,
    data: serde_json::Value,
) {
    // A 2026-07-28 request says its own level or wants none; a session's
    // requests use the session's.
    #[cfg(not(feature = "sessions"))]
    let _ = session;
    let wanted = match request.meta.log_level() {
        Some(level) => Some(ours(level)),
        #[cfg(feature = "sessions")]
        None if super::generation::Generation::of(request).is_session() => session.get(),
        None => None,
    };
    if wanted.is_none_or(|from| level < from) {
        return;
    }
    let message = LoggingMessageNotificationParam::new(theirs(level), data).with_logger(tool);
    // A client that stops reading does not hold the handler: the message
    // is dropped after a while.
    match tokio::time::timeout(SEND_TIMEOUT, request.peer.notify_logging_message(message)).await {
        Ok(Ok(())) => {}
        Ok(Err(e)) => tracing::debug!("log message not sent: {e}"),
        Err(_) => tracing::debug!("log message dropped: the client is not reading"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(feature = "sessions")]
    fn a_session_level_is_kept_and_ordered() {
        let session = SessionLogLevel::default();
        assert_eq!(session.get(), None);
        session.set(LoggingLevel::Warning);
        assert_eq!(session.get(), Some(LogLevel::Warning));
        assert!(LogLevel::Error > LogLevel::Warning && LogLevel::Info < LogLevel::Warning);
    }

    #[test]
    fn levels_convert_both_ways() {
        for level in LEVELS {
            assert_eq!(ours(theirs(level)), level);
        }
    }
}
