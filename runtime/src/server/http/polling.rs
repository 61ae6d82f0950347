//! Gap 7 of `compat`: a handler ending its call's SSE stream for the client
//! to resume it (SEP-1699 polling, 2025-11-25 sessions over Streamable HTTP).
//!
//! rmcp can close a POST's SSE stream (`LocalSessionHandle::close_sse_stream`)
//! but needs the stream's `http_request_id`, which it never hands to the
//! handler (rust-sdk #529; #604 added the close call on the session handle
//! only). Our session manager opens each `tools/call`'s stream itself, as
//! rmcp's does, and puts a [`PostStream`] naming it in the request's
//! extensions, where `Context::close_stream` finds it.
//!
//! rmcp keeps what is sent while the stream is closed and replays it to the
//! `GET` that resumes it, but a response sent before that `GET` arrives is
//! lost: the stream's entry goes with the response. So a call whose stream
//! is closed holds its response until the client has resumed (`resumed`,
//! bounded by [`RESUME_WAIT`] after the retry interval). A stream resumed
//! may be closed again. Remove when rmcp gives handlers the close, and
//! keeps a response for the resumption.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::Duration;

use rmcp::service::{RequestContext, RoleServer};
use rmcp::transport::streamable_http_server::session::SessionId;
use rmcp::transport::streamable_http_server::session::local::LocalSessionHandle;
use tokio::sync::Notify;

/// How long, past the retry interval it was given, a call whose stream was
/// closed waits for the client to resume it before it answers anyway.
pub(crate) const RESUME_WAIT: Duration = Duration::from_secs(30);

/// The SSE stream a `tools/call` of a 2025-11-25 session is answered on, in
/// the request's extensions.
#[derive(Clone)]
pub(crate) struct PostStream {
    handle: LocalSessionHandle,
    session: SessionId,
    http_request_id: u64,
    /// The longest retry the client is told: a quarter of the session's idle
    /// timeout (at most 10 minutes), so that the session outlives the wait.
    max_retry: Duration,
    /// The session's count of open streams: a closed stream still counts,
    /// so that the session is not taken for an inactive one meanwhile.
    streams: Option<Arc<std::sync::atomic::AtomicUsize>>,
    closed: Arc<ClosedStreams>,
    state: Arc<StreamState>,
}

/// Where a call's stream stands.
#[derive(Default)]
struct StreamState {
    phase: Mutex<Phase>,
    resumption: Notify,
}

#[derive(Default)]
enum Phase {
    /// Open, as the call began or as the client resumed it.
    #[default]
    Open,
    /// Being closed.
    Closing,
    /// Closed: the client comes back after the retry it was told.
    Closed { _counted: Option<OpenStream> },
    /// The call has answered: nothing more to close.
    Answered,
}

/// The streams closed and not resumed yet, by session and HTTP request, for
/// the `GET` that resumes one to find it. Each leaves when it is resumed or
/// when its call answers; one whose call was dropped, when the next is
/// closed.
#[derive(Default)]
pub(crate) struct ClosedStreams {
    table: Mutex<HashMap<(SessionId, u64), Weak<StreamState>>>,
    /// Whether the streams' events are kept in an event store: a response
    /// sent on a closed stream is then kept for the resumption, and the
    /// call need not wait for it.
    answers_kept: std::sync::atomic::AtomicBool,
}

impl std::fmt::Debug for ClosedStreams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClosedStreams").finish_non_exhaustive()
    }
}

impl StreamState {
    fn phase(&self) -> MutexGuard<'_, Phase> {
        self.phase.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl ClosedStreams {
    fn table(&self) -> MutexGuard<'_, HashMap<(SessionId, u64), Weak<StreamState>>> {
        self.table.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Responses are kept with the streams' events from now on.
    pub(crate) fn answers_kept(&self) {
        self.answers_kept.store(true, Ordering::Relaxed);
    }

    /// The stream of `http_request_id` in `session`, as it is opened.
    pub(crate) fn stream(
        self: &Arc<Self>,
        handle: LocalSessionHandle,
        session: SessionId,
        http_request_id: u64,
        idle: Duration,
        streams: Option<Arc<std::sync::atomic::AtomicUsize>>,
    ) -> PostStream {
        PostStream {
            handle,
            session,
            http_request_id,
            max_retry: (idle / 4).min(Duration::from_secs(600)),
            streams,
            closed: self.clone(),
            state: Arc::default(),
        }
    }

    /// A `GET` resumed a stream of `session` from `last_event_id` (rmcp's
    /// `index/http_request_id`): the call that closed it may answer there.
    /// A resumption that came while the stream was being closed is not one:
    /// the close ends it, and the client comes back again.
    pub(crate) fn resumed(&self, session: &SessionId, last_event_id: &str) {
        let Some(http_request_id) = last_event_id
            .split_once('/')
            .and_then(|(_, id)| id.parse::<u64>().ok())
        else {
            return;
        };
        let key = (session.clone(), http_request_id);
        let Some(state) = self.table().get(&key).and_then(Weak::upgrade) else {
            return;
        };
        let mut phase = state.phase();
        if matches!(*phase, Phase::Closed { .. }) {
            *phase = Phase::Open;
            drop(phase);
            self.table().remove(&key);
            state.resumption.notify_waiters();
        }
    }
}

impl PostStream {
    /// Ends the stream, telling the client to come back after `retry`
    /// (shortened to `max_retry`); `false` when it is closed already, being
    /// closed, or the call has answered.
    pub(crate) async fn close(&self, retry: Duration) -> bool {
        let retry = retry.min(self.max_retry);
        {
            let mut phase = self.state.phase();
            if !matches!(*phase, Phase::Open) {
                return false;
            }
            *phase = Phase::Closing;
        }
        {
            let mut table = self.closed.table();
            table.retain(|_, state| state.strong_count() > 0);
            table.insert(
                (self.session.clone(), self.http_request_id),
                Arc::downgrade(&self.state),
            );
        }
        // Run apart from the handler: a handler that stops waiting for it
        // (a `select!`, a timeout) must not leave the stream half closed.
        let stream = self.clone();
        let closing = tokio::spawn(async move {
            let closed = stream
                .handle
                .close_sse_stream(stream.http_request_id, Some(retry))
                .await;
            let mut phase = stream.state.phase();
            match closed {
                Ok(()) if matches!(*phase, Phase::Closing) => {
                    *phase = Phase::Closed {
                        _counted: stream.streams.clone().map(OpenStream::new),
                    };
                    true
                }
                Ok(()) => false,
                Err(e) => {
                    tracing::debug!(error = %e, "the call's SSE stream could not be closed");
                    if matches!(*phase, Phase::Closing) {
                        *phase = Phase::Open;
                        // A call waiting on the close answers at once.
                        stream.state.resumption.notify_waiters();
                    }
                    false
                }
            }
        });
        closing.await.unwrap_or(false)
    }

    /// The call answers: nothing more may close the stream.
    fn answered(&self) {
        *self.state.phase() = Phase::Answered;
        self.closed
            .table()
            .remove(&(self.session.clone(), self.http_request_id));
    }
}

/// Waits, when the stream of `request` is closed (or being closed), until
/// the client has resumed it (or the retry interval and [`RESUME_WAIT`] have
/// passed, or the request is cancelled), so that the response that follows
/// reaches it; at once when responses are kept with the streams' events.
/// Nothing may close the stream after.
pub(crate) async fn resumed(request: &RequestContext<RoleServer>) {
    let Some(stream) = request.extensions.get::<PostStream>() else {
        return;
    };
    if stream.closed.answers_kept.load(Ordering::Relaxed) {
        stream.answered();
        return;
    }
    let state = &stream.state;
    let deadline = tokio::time::Instant::now() + stream.max_retry + RESUME_WAIT;
    loop {
        let resumption = state.resumption.notified();
        tokio::pin!(resumption);
        resumption.as_mut().enable();
        if !matches!(*state.phase(), Phase::Closing | Phase::Closed { .. }) {
            break;
        }
        tokio::select! {
            () = &mut resumption => {}
            () = tokio::time::sleep_until(deadline) => {
                tracing::debug!("the client did not resume the closed stream: its answer may be lost");
                break;
            }
            () = request.ct.cancelled() => break,
        }
    }
    stream.answered();
}

/// A stream open on a session, counted there until dropped.
#[derive(Debug)]
pub(super) struct OpenStream(Arc<AtomicUsize>);

impl OpenStream {
    pub(super) fn new(count: Arc<AtomicUsize>) -> Self {
        count.fetch_add(1, Ordering::Relaxed);
        OpenStream(count)
    }
}

impl Drop for OpenStream {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}
