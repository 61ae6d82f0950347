//! Gap 4 of `compat`: rmcp's local session manager with caps and an idle
//! reaper.
//!
//! The local manager keeps a session's handle in its map until the client
//! deletes the session; a worker that quits on its idle timeout leaves the
//! handle behind, so abandoned sessions piled up without bound. This wrapper
//! notes when each session was last used, by which client (`ClientKey`, set
//! by the HTTP layer) and how many of its streams are open, and closes
//! sessions idle past the timeout (on every new session and from a periodic
//! task). A new session needs room, made fairly: a client at its own cap,
//! or any client when the server is full, gives up its own least recently
//! used session (its client gets 404 and, as the protocol says, starts a
//! new one); another client's session is closed only when it is inactive
//! (no stream open, unused for a while), and without one the new session is
//! refused: one client can never push out another's active sessions.
//!
//! Each session's transport is `compat`'s, so that a session is served like
//! stdio, with rmcp's gaps filled.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::Duration;

use futures_core::Stream;
use futures_util::StreamExt;
use rmcp::model::{
    ClientJsonRpcMessage, ClientRequest, GetExtensions, JsonRpcMessage, ServerJsonRpcMessage,
};
use rmcp::transport::common::server_side_http::ServerSseMessage;
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError,
};
use rmcp::transport::streamable_http_server::session::{RestoreOutcome, SessionId, SessionManager};
use tokio::time::Instant;
use tokio_stream::wrappers::ReceiverStream;

use super::clients::ClientKey;
use super::polling::{ClosedStreams, OpenStream};
use crate::server::compat::{Compat, Transport};
use tokio_util::sync::CancellationToken;

/// How long another client's session must have gone unused (with no stream
/// open) before a new session may take its place; shorter when the idle
/// timeout is.
const QUIET: Duration = Duration::from_secs(60);

/// The local manager, capped.
#[derive(Debug)]
pub(in crate::server) struct CappedSessions {
    inner: LocalSessionManager,
    max: usize,
    max_per_client: usize,
    idle: Duration,
    table: Mutex<HashMap<SessionId, Entry>>,
    /// Sessions being opened (room made, not yet in `table`), by client:
    /// counted with the table, so that concurrent openings cannot pass the
    /// caps. Locked after `table`, never alone before it.
    opening: Mutex<HashMap<ClientKey, usize>>,
    /// What each session's transport fills in.
    compat: Compat,
    /// The calls' streams their handlers closed (gap 7).
    closed: Arc<ClosedStreams>,
}

/// What the caps know of a session.
#[derive(Debug)]
struct Entry {
    last_used: Instant,
    client: ClientKey,
    /// Its streams open now (requests answered over SSE, the standalone
    /// stream, resumptions).
    streams: Arc<AtomicUsize>,
}

impl Entry {
    fn active(&self, now: Instant, quiet: Duration) -> bool {
        self.streams.load(Ordering::Relaxed) > 0 || now.duration_since(self.last_used) < quiet
    }
}

/// Why a session was not opened or found.
#[derive(Debug)]
pub(in crate::server) enum SessionsError {
    /// rmcp's manager's own.
    Inner(LocalSessionManagerError),
    /// No room for another session (see the module documentation).
    Full,
}

impl std::fmt::Display for SessionsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SessionsError::Inner(e) => e.fmt(f),
            SessionsError::Full => f.write_str(FULL),
        }
    }
}

impl std::error::Error for SessionsError {}

impl From<LocalSessionManagerError> for SessionsError {
    fn from(e: LocalSessionManagerError) -> Self {
        SessionsError::Inner(e)
    }
}

/// Why a new session is refused.
pub(in crate::server) const FULL: &str =
    "the server holds as many sessions as it may, all of them in use; retry later";

impl CappedSessions {
    /// At most `max` sessions (at least one), `max_per_client` of them (at
    /// least one) for one client, each closed after `idle` unused, each
    /// served through `compat`'s transport.
    pub(in crate::server) fn new(
        max: usize,
        max_per_client: usize,
        idle: Duration,
        compat: Compat,
    ) -> Self {
        let mut inner = LocalSessionManager::default();
        inner.session_config.keep_alive = Some(idle);
        CappedSessions {
            inner,
            max: max.max(1),
            max_per_client: max_per_client.max(1),
            idle,
            table: Mutex::new(HashMap::new()),
            opening: Mutex::new(HashMap::new()),
            compat,
            closed: Arc::default(),
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
                sessions.reap().await;
            }
        });
    }

    fn table(&self) -> std::sync::MutexGuard<'_, HashMap<SessionId, Entry>> {
        // Each change is one entry put, touched or removed: a table left by
        // a panicking holder is still valid.
        self.table.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn opening(&self) -> std::sync::MutexGuard<'_, HashMap<ClientKey, usize>> {
        // Counters only: consistent after a panicking holder.
        self.opening.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn touch(&self, id: &SessionId) {
        if let Some(entry) = self.table().get_mut(id) {
            entry.last_used = Instant::now();
        }
    }

    /// `stream`, counted as open on the session `id` until it is dropped.
    fn counted<S: Stream<Item = ServerSseMessage> + Send + Sync + 'static>(
        &self,
        id: &SessionId,
        stream: S,
    ) -> impl Stream<Item = ServerSseMessage> + Send + Sync + 'static {
        let open = self
            .table()
            .get(id)
            .map(|entry| OpenStream::new(entry.streams.clone()));
        stream.map(move |message| {
            let _open = &open;
            message
        })
    }

    fn quiet(&self) -> Duration {
        QUIET.min(self.idle / 4)
    }

    /// How many sessions are open.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.table().len()
    }

    /// Closes the sessions idle past the timeout.
    pub(in crate::server) async fn reap(&self) {
        let doomed = {
            let mut table = self.table();
            self.expired(&mut table)
        };
        self.close(doomed).await;
    }

    /// Whether `client` could open a session now, closing nothing (the HTTP
    /// layer asks before rmcp has accepted the request; the room is made,
    /// and reserved, when the session is really opened).
    pub(in crate::server) fn has_room(&self, client: &ClientKey) -> bool {
        let table = self.table();
        let opening = self.opening();
        self.to_close_for(&table, &opening, client, Instant::now())
            .is_ok()
    }

    /// Makes room for a session of `client` (see the module documentation)
    /// and holds it until the session is in the table: `None` when there is
    /// no room.
    async fn reserve(&self, client: &ClientKey) -> Option<Reservation<'_>> {
        let (doomed, reserved) = {
            let mut table = self.table();
            let mut doomed = self.expired(&mut table);
            let mut opening = self.opening();
            let reserved = match self.to_close_for(&table, &opening, client, Instant::now()) {
                Ok(close) => {
                    if let Some(id) = close {
                        table.remove(&id);
                        doomed.push(id);
                    }
                    *opening.entry(client.clone()).or_default() += 1;
                    true
                }
                Err(()) => false,
            };
            (doomed, reserved)
        };
        self.close(doomed).await;
        reserved.then(|| Reservation {
            sessions: self,
            client: client.clone(),
        })
    }

    /// Takes the sessions idle past the timeout out of `table`.
    fn expired(&self, table: &mut HashMap<SessionId, Entry>) -> Vec<SessionId> {
        let now = Instant::now();
        let doomed: Vec<SessionId> = table
            .iter()
            .filter(|(_, entry)| now.duration_since(entry.last_used) >= self.idle)
            .map(|(id, _)| id.clone())
            .collect();
        for id in &doomed {
            table.remove(id);
        }
        doomed
    }

    async fn close(&self, doomed: Vec<SessionId>) {
        for id in doomed {
            tracing::debug!(session = %id, "closing an idle or least recently used session");
            if let Err(e) = self.inner.close_session(&id).await {
                tracing::debug!(session = %id, "closing the session: {e}");
            }
        }
    }

    /// The session to close so that `client` may open one: none when there
    /// is room, `Err` when no session may go.
    fn to_close_for(
        &self,
        table: &HashMap<SessionId, Entry>,
        opening: &HashMap<ClientKey, usize>,
        client: &ClientKey,
        now: Instant,
    ) -> Result<Option<SessionId>, ()> {
        let mine = table.values().filter(|e| &e.client == client).count()
            + opening.get(client).copied().unwrap_or(0);
        let total = table.len() + opening.values().sum::<usize>();
        if mine < self.max_per_client && total < self.max {
            return Ok(None);
        }
        let least_recent = |of_client: bool| {
            table
                .iter()
                .filter(|(_, e)| {
                    if of_client {
                        &e.client == client
                    } else {
                        !e.active(now, self.quiet())
                    }
                })
                .min_by_key(|(_, e)| e.last_used)
                .map(|(id, _)| id.clone())
        };
        // Its own first; another's only when inactive.
        least_recent(true)
            .or_else(|| least_recent(false))
            .map(Some)
            .ok_or(())
    }
}

/// Room held for a session being opened; given back when dropped (the
/// session is then in the table, or its opening failed).
struct Reservation<'a> {
    sessions: &'a CappedSessions,
    client: ClientKey,
}

impl Drop for Reservation<'_> {
    fn drop(&mut self) {
        let mut opening = self.sessions.opening();
        if let Some(n) = opening.get_mut(&self.client) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                opening.remove(&self.client);
            }
        }
    }
}

impl CappedSessions {
    /// Notes a session opened here or restored, for the current client.
    fn open(&self, id: SessionId) {
        let entry = Entry {
            last_used: Instant::now(),
            client: ClientKey::current(),
            streams: Arc::default(),
        };
        self.table().insert(id, entry);
    }
}

impl SessionManager for CappedSessions {
    type Error = SessionsError;
    type Transport = Transport<<LocalSessionManager as SessionManager>::Transport>;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let Some(_room) = self.reserve(&ClientKey::current()).await else {
            return Err(SessionsError::Full);
        };
        let (id, transport) = self.inner.create_session().await?;
        self.open(id.clone());
        Ok((id, self.compat.transport(transport, None)))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        self.touch(id);
        Ok(self.inner.initialize_session(id, message).await?)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        // A session this wrapper closed is gone, whatever the inner map says
        // while its close is under way.
        if !self.table().contains_key(id) {
            return Ok(false);
        }
        Ok(self.inner.has_session(id).await?)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        self.table().remove(id);
        Ok(self.inner.close_session(id).await?)
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.touch(id);
        // As rmcp's manager does, the stream named in the request for its
        // handler to close (gap 7).
        let handle = self.inner.sessions.read().await.get(id).cloned();
        let handle = handle.ok_or_else(|| LocalSessionManagerError::SessionNotFound(id.clone()))?;
        let receiver = handle
            .establish_request_wise_channel()
            .await
            .map_err(LocalSessionManagerError::from)?;
        let mut message = message;
        if let (Some(http_request_id), JsonRpcMessage::Request(request)) =
            (receiver.http_request_id, &mut message)
            && matches!(request.request, ClientRequest::CallToolRequest(_))
        {
            let streams = self.table().get(id).map(|entry| entry.streams.clone());
            let stream = self.closed.stream(
                handle.clone(),
                id.clone(),
                http_request_id,
                self.idle,
                streams,
            );
            request.request.extensions_mut().insert(stream);
        }
        handle
            .push_message(message, receiver.http_request_id)
            .await
            .map_err(LocalSessionManagerError::from)?;
        Ok(self.counted(id, ReceiverStream::new(receiver.inner)))
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        self.touch(id);
        Ok(self.inner.accept_message(id, message).await?)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.touch(id);
        let stream = self.inner.create_standalone_stream(id).await?;
        Ok(self.counted(id, stream))
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.touch(id);
        let stream = self.inner.resume(id, last_event_id.clone()).await?;
        self.closed.resumed(id, &last_event_id);
        Ok(self.counted(id, stream))
    }

    /// A session another instance opened (rmcp found it in the session
    /// store): counted and capped like one opened here.
    async fn restore_session(
        &self,
        id: SessionId,
    ) -> Result<RestoreOutcome<Self::Transport>, Self::Error> {
        let Some(_room) = self.reserve(&ClientKey::current()).await else {
            return Err(SessionsError::Full);
        };
        let outcome = self.inner.restore_session(id.clone()).await?;
        Ok(match outcome {
            RestoreOutcome::Restored(transport) => {
                self.open(id);
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
        let sessions = CappedSessions::new(2, 2, Duration::from_secs(60), Compat::none());
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

    /// A new session of `client`, or why there is none.
    async fn open_as(
        sessions: &CappedSessions,
        client: &ClientKey,
    ) -> Result<SessionId, SessionsError> {
        let (id, _) = client.clone().scope(sessions.create_session()).await?;
        Ok(id)
    }

    #[tokio::test(start_paused = true)]
    async fn a_client_never_pushes_out_another_clients_active_session() {
        let sessions = CappedSessions::new(3, 2, Duration::from_secs(300), Compat::none());
        let alice = ClientKey::Address([127, 0, 0, 2].into());
        let mallory = ClientKey::Address([127, 0, 0, 3].into());
        let first = open_as(&sessions, &alice).await.expect("alice");
        tokio::time::advance(Duration::from_secs(1)).await;
        // Mallory at its own cap gives up its own sessions, one by one.
        let mut mine = Vec::new();
        for _ in 0..10 {
            mine.push(open_as(&sessions, &mallory).await.expect("mallory"));
            tokio::time::advance(Duration::from_millis(10)).await;
        }
        assert_eq!(sessions.len(), 3);
        assert!(sessions.has_session(&first).await.expect("alice"));
        assert!(sessions.has_session(&mine[9]).await.expect("newest"));
        assert!(!sessions.has_session(&mine[0]).await.expect("oldest"));
        // A third client finds the server full of active sessions: refused.
        let carol = ClientKey::Principal("sub:carol".into());
        assert!(matches!(
            open_as(&sessions, &carol).await,
            Err(SessionsError::Full)
        ));
        // Once Alice's session is quiet, it may go; one with a stream open
        // may not, however long it has been quiet.
        let streaming = sessions.counted(
            &mine[9],
            futures_util::stream::pending::<ServerSseMessage>(),
        );
        tokio::time::advance(QUIET).await;
        sessions.touch(&mine[8]);
        open_as(&sessions, &carol).await.expect("room made");
        assert!(!sessions.has_session(&first).await.expect("alice"));
        assert!(sessions.has_session(&mine[9]).await.expect("streaming"));
        let dave = ClientKey::Principal("sub:dave".into());
        tokio::time::advance(Duration::from_secs(1)).await;
        sessions.touch(&mine[8]);
        assert!(matches!(
            open_as(&sessions, &dave).await,
            Err(SessionsError::Full)
        ));
        drop(streaming);
        open_as(&sessions, &dave)
            .await
            .expect("the stream closed, its session is quiet");
        assert!(!sessions.has_session(&mine[9]).await.expect("quiet now"));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn concurrent_openings_cannot_pass_the_caps() {
        let sessions = Arc::new(CappedSessions::new(
            4,
            2,
            Duration::from_secs(300),
            Compat::none(),
        ));
        let mallory = ClientKey::Address([127, 0, 0, 3].into());
        let opened: Vec<_> = (0..32)
            .map(|_| {
                let (sessions, mallory) = (sessions.clone(), mallory.clone());
                tokio::spawn(async move { open_as(&sessions, &mallory).await.is_ok() })
            })
            .collect();
        for task in opened {
            task.await.expect("joined");
        }
        assert!(
            sessions.len() <= 2,
            "{} sessions for one client",
            sessions.len()
        );
        assert!(
            sessions.opening().is_empty(),
            "every reservation given back"
        );
        // The HTTP layer's question closes nothing.
        let alice = ClientKey::Address([127, 0, 0, 2].into());
        let before = sessions.len();
        assert!(sessions.has_room(&alice));
        assert_eq!(sessions.len(), before);
    }
}
