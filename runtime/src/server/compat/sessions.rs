//! Gap 4 of `compat`: rmcp's local session manager with a cap and an idle
//! reaper.
//!
//! The local manager keeps a session's handle in its map until the client
//! deletes the session; a worker that quits on its idle timeout leaves the
//! handle behind, so abandoned sessions piled up without bound. This wrapper
//! notes when each session was last used, closes sessions idle past the
//! timeout (on every new session and from a periodic task), and when the cap
//! is reached closes the least recently used one: its client gets 404 and,
//! as the protocol says, starts a new session.
//!
//! Each session's transport is `compat`'s, so that a session is served like
//! stdio, with rmcp's gaps filled.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::Duration;

use futures_core::Stream;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::common::server_side_http::ServerSseMessage;
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError,
};
use rmcp::transport::streamable_http_server::session::{RestoreOutcome, SessionId, SessionManager};
use tokio::time::Instant;

use super::{Compat, Transport};
use tokio_util::sync::CancellationToken;

/// The local manager, capped.
#[derive(Debug)]
pub(in crate::server) struct CappedSessions {
    inner: LocalSessionManager,
    max: usize,
    idle: Duration,
    last_used: Mutex<HashMap<SessionId, Instant>>,
    /// What each session's transport fills in.
    compat: Compat,
}

impl CappedSessions {
    /// At most `max` sessions (at least one), each closed after `idle`
    /// unused, each served through `compat`'s transport.
    pub(in crate::server) fn new(max: usize, idle: Duration, compat: Compat) -> Self {
        let mut inner = LocalSessionManager::default();
        inner.session_config.keep_alive = Some(idle);
        CappedSessions {
            inner,
            max: max.max(1),
            idle,
            last_used: Mutex::new(HashMap::new()),
            compat,
        }
    }

    /// Closes idle sessions every quarter of the idle timeout until `cancel`
    /// or until the manager is dropped, so memory comes back after a burst
    /// even when no new session arrives.
    pub(in crate::server) fn spawn_reaper(self: &Arc<Self>, cancel: CancellationToken) {
        let weak: Weak<Self> = Arc::downgrade(self);
        let period = (self.idle / 4).max(Duration::from_millis(100));
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    () = cancel.cancelled() => return,
                    () = tokio::time::sleep(period) => {}
                }
                let Some(sessions) = weak.upgrade() else {
                    return;
                };
                sessions.reap(None).await;
            }
        });
    }

    fn table(&self) -> std::sync::MutexGuard<'_, HashMap<SessionId, Instant>> {
        // The table holds only instants: one left by a panicking holder is
        // still valid.
        self.last_used
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn touch(&self, id: &SessionId) {
        if let Some(t) = self.table().get_mut(id) {
            *t = Instant::now();
        }
    }

    /// How many sessions are open.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.table().len()
    }

    /// Closes the sessions idle past the timeout, and, when `room_for` is
    /// given, the least recently used ones until a new session fits.
    async fn reap(&self, room_for: Option<usize>) {
        let doomed: Vec<SessionId> = {
            let mut table = self.table();
            let now = Instant::now();
            let mut doomed: Vec<SessionId> = table
                .iter()
                .filter(|(_, t)| now.duration_since(**t) >= self.idle)
                .map(|(id, _)| id.clone())
                .collect();
            for id in &doomed {
                table.remove(id);
            }
            if let Some(new) = room_for {
                let excess = (table.len() + new).saturating_sub(self.max);
                if excess > 0 {
                    let mut by_age: Vec<(Instant, SessionId)> =
                        table.iter().map(|(id, t)| (*t, id.clone())).collect();
                    by_age.sort();
                    for (_, id) in by_age.into_iter().take(excess) {
                        table.remove(&id);
                        doomed.push(id);
                    }
                }
            }
            doomed
        };
        for id in doomed {
            tracing::debug!(session = %id, "closing an idle or least recently used session");
            if let Err(e) = self.inner.close_session(&id).await {
                tracing::debug!(session = %id, "closing the session: {e}");
            }
        }
    }
}

impl SessionManager for CappedSessions {
    type Error = LocalSessionManagerError;
    type Transport = Transport<<LocalSessionManager as SessionManager>::Transport>;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        self.reap(Some(1)).await;
        let (id, transport) = self.inner.create_session().await?;
        self.table().insert(id.clone(), Instant::now());
        Ok((id, self.compat.transport(transport, None)))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        self.touch(id);
        self.inner.initialize_session(id, message).await
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        // A session this wrapper closed is gone, whatever the inner map says
        // while its close is under way.
        if !self.table().contains_key(id) {
            return Ok(false);
        }
        self.inner.has_session(id).await
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        self.table().remove(id);
        self.inner.close_session(id).await
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.touch(id);
        self.inner.create_stream(id, message).await
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        self.touch(id);
        self.inner.accept_message(id, message).await
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.touch(id);
        self.inner.create_standalone_stream(id).await
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.touch(id);
        self.inner.resume(id, last_event_id).await
    }

    /// A session another instance opened (rmcp found it in the session
    /// store): counted and capped like one opened here.
    async fn restore_session(
        &self,
        id: SessionId,
    ) -> Result<RestoreOutcome<Self::Transport>, Self::Error> {
        self.reap(Some(1)).await;
        let outcome = self.inner.restore_session(id.clone()).await?;
        Ok(match outcome {
            RestoreOutcome::Restored(transport) => {
                self.table().insert(id, Instant::now());
                RestoreOutcome::Restored(self.compat.transport(transport, None))
            }
            RestoreOutcome::AlreadyPresent => RestoreOutcome::AlreadyPresent,
            // `NotSupported`, and whatever a later rmcp adds: a 404.
            _ => RestoreOutcome::NotSupported,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_cap_closes_the_least_recently_used_session() {
        let sessions = CappedSessions::new(2, Duration::from_secs(60), Compat::none());
        let (a, _ta) = sessions.create_session().await.expect("a");
        tokio::time::sleep(Duration::from_millis(5)).await;
        let (b, _tb) = sessions.create_session().await.expect("b");
        tokio::time::sleep(Duration::from_millis(5)).await;
        sessions.touch(&a);
        let (c, _tc) = sessions.create_session().await.expect("c");
        assert_eq!(sessions.len(), 2);
        assert!(sessions.has_session(&a).await.expect("a"));
        assert!(
            !sessions.has_session(&b).await.expect("b"),
            "b was least recently used"
        );
        assert!(sessions.has_session(&c).await.expect("c"));
    }

    #[tokio::test]
    async fn idle_sessions_are_closed_by_the_reaper() {
        let sessions = Arc::new(CappedSessions::new(
            10,
            Duration::from_millis(200),
            Compat::none(),
        ));
        let cancel = CancellationToken::new();
        sessions.spawn_reaper(cancel.clone());
        for _ in 0..5 {
            let _ = sessions.create_session().await.expect("session");
        }
        assert_eq!(sessions.len(), 5);
        tokio::time::sleep(Duration::from_millis(600)).await;
        assert_eq!(sessions.len(), 0);
        assert_eq!(sessions.inner.sessions.read().await.len(), 0);
        cancel.cancel();
    }
}
