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
use rmcp::transport::streamable_http_server::session::store::SessionStore;
use rmcp::transport::streamable_http_server::session::{RestoreOutcome, SessionId, SessionManager};
use tokio::time::Instant;
use tokio_stream::wrappers::ReceiverStream;

use super::clients::ClientKey;
use super::polling::{ClosedStreams, OpenStream};
use crate::server::compat::{Compat, Transport};
use tokio_util::sync::CancellationToken;
use tombstones::{RECHECK, Rechecks};

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
    /// The fleet's record of its sessions (each under its owner's key), when
    /// there is one: a session a client closed through another instance is
    /// closed here too, within about [`RECHECK`].
    store: Option<Arc<dyn SessionStore>>,
    /// The looks at the store under way, and what they found closed.
    rechecks: Arc<Rechecks>,
    /// Whether the streams' events are kept in the fleet's store (so that a
    /// resumption reads them there, from any instance).
    events_kept: bool,
}

/// What the caps know of a session.
#[derive(Debug)]
struct Entry {
    last_used: Instant,
    /// When the store last said the session exists (or it was opened).
    confirmed: Instant,
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
    /// A resumption from another session's stream.
    OtherStream,
}

impl std::fmt::Display for SessionsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SessionsError::Inner(e) => e.fmt(f),
            SessionsError::Full => f.write_str(FULL),
            SessionsError::OtherStream => {
                f.write_str("Last-Event-ID names another session's stream")
            }
        }
    }
}

impl std::error::Error for SessionsError {}

impl From<LocalSessionManagerError> for SessionsError {
    fn from(e: LocalSessionManagerError) -> Self {
        SessionsError::Inner(e)
    }
}

/// What logs and spans say of a session: 16 bytes of its id's SHA-256, in
/// hex. The id itself is what lets a client act in the session, so it never
/// leaves the process (an OTLP backend is read by more people than the
/// server's clients); the digest still ties a session's spans together.
pub(in crate::server) fn digest(id: &str) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(id.as_bytes())[..16]
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
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
            store: None,
            rechecks: Arc::default(),
            events_kept: false,
        }
    }

    /// The streams' events kept in `events` (see `kept_events`), when
    /// there is one: a broken stream resumes on any instance.
    pub(in crate::server) fn with_events(
        mut self,
        events: Option<Arc<dyn crate::server::store::EventStore>>,
    ) -> Self {
        if let Some(events) = events {
            let kept = Arc::new(super::kept_events::KeptEvents::new(events));
            self.inner = std::mem::take(&mut self.inner).with_event_store(kept);
            self.events_kept = true;
            self.closed.answers_kept();
        }
        self
    }

    /// Sessions recorded in `store` too: one its client closed through
    /// another instance is closed here.
    pub(in crate::server) fn with_store(mut self, store: Option<Arc<dyn SessionStore>>) -> Self {
        self.store = store;
        self
    }

    /// Closes idle sessions every quarter of the idle timeout until `cancel`
    /// or until the manager is dropped, so memory comes back after a burst
    /// even when no new session arrives.
    pub(in crate::server) fn spawn_reaper(self: &Arc<Self>, cancel: CancellationToken) {
        let weak: Weak<Self> = Arc::downgrade(self);
        let period = (self.idle / 4).max(Duration::from_millis(100));
        // With a store, streaming sessions (which may send no request for a
        // long time) are checked against it every RECHECK.
        let tick = match self.store {
            Some(_) => period.min(RECHECK),
            None => period,
        };
        tokio::spawn(async move {
            let mut reaped = Instant::now();
            loop {
                tokio::select! {
                    () = cancel.cancelled() => return,
                    () = tokio::time::sleep(tick) => {}
                }
                let Some(sessions) = weak.upgrade() else {
                    return;
                };
                sessions.recheck_streaming();
                sessions.close_found_closed().await;
                if reaped.elapsed() >= period {
                    reaped = Instant::now();
                    sessions.reap().await;
                }
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

    /// Whether `client` opened the session `id`, held here.
    fn owns(&self, id: &str, client: &ClientKey) -> bool {
        self.table()
            .get(id)
            .is_some_and(|entry| &entry.client == client)
    }

    /// Whether the session `id` is held here for a client other than
    /// `client`: to `client`, it does not exist.
    pub(in crate::server) fn foreign(&self, id: &str, client: &ClientKey) -> bool {
        self.table()
            .get(id)
            .is_some_and(|entry| &entry.client != client)
    }

    /// Notes the session `id` used now; its count of open streams, for
    /// [`Self::counted`] (one lookup for both).
    fn touch(&self, id: &SessionId) -> Option<Arc<AtomicUsize>> {
        let mut table = self.table();
        let entry = table.get_mut(id)?;
        entry.last_used = Instant::now();
        Some(entry.streams.clone())
    }

    /// `stream`, counted in `streams` (its session's, from [`Self::touch`])
    /// as open until it is dropped.
    fn counted<S: Stream<Item = ServerSseMessage> + Send + Sync + 'static>(
        streams: Option<Arc<AtomicUsize>>,
        stream: S,
    ) -> impl Stream<Item = ServerSseMessage> + Send + Sync + 'static {
        let open = streams.map(OpenStream::new);
        stream.map(move |message| {
            let _open = &open;
            message
        })
    }

    fn quiet(&self) -> Duration {
        QUIET.min(self.idle / 4)
    }

    /// Whether the session `id` is held here, whoever opened it.
    #[cfg(test)]
    fn held(&self, id: &str) -> bool {
        self.table().contains_key(id)
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
            let session = digest(&id);
            tracing::debug!(%session, "closing an idle or least recently used session");
            if let Err(e) = self.inner.close_session(&id).await {
                tracing::debug!(%session, "closing the session: {e}");
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
            confirmed: Instant::now(),
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
        // while its close is under way; another client's is unknown to this
        // one.
        if !self.owns(id, &ClientKey::current()) || self.closed_elsewhere(id).await {
            return Ok(false);
        }
        self.recheck(id);
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
        let streams = self.touch(id);
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
            let stream = self.closed.stream(
                handle.clone(),
                id.clone(),
                http_request_id,
                self.idle,
                streams.clone(),
            );
            request.request.extensions_mut().insert(stream);
        }
        handle
            .push_message(message, receiver.http_request_id)
            .await
            .map_err(LocalSessionManagerError::from)?;
        Ok(Self::counted(streams, ReceiverStream::new(receiver.inner)))
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
        let streams = self.touch(id);
        let stream = self.inner.create_standalone_stream(id).await?;
        Ok(Self::counted(streams, stream))
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        let streams = self.touch(id);
        if self.events_kept {
            // Read from the store, whichever instance kept them (a handler
            // that closed its stream answered without waiting: its answer
            // is kept).
            let stream = resume::resume(&self.inner, id, &last_event_id)
                .await?
                .ok_or(SessionsError::OtherStream)?;
            return Ok(Self::counted(streams, stream.left_stream()));
        }
        let stream = self.inner.resume(id, last_event_id.clone()).await?;
        self.closed.resumed(id, &last_event_id);
        Ok(Self::counted(streams, stream.right_stream()))
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

mod recheck;
mod resume;
pub(super) mod routes;
#[cfg(test)]
mod tests;
mod tombstones;
