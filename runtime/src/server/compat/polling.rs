//! Gap 7 of `compat`: a handler ending its call's SSE stream for the client
//! to resume it (SEP-1699 polling, 2025-11-25 sessions over Streamable HTTP).
//!
//! rmcp can close a POST's SSE stream (`LocalSessionHandle::close_sse_stream`)
//! but needs the stream's `http_request_id`, which it never hands to the
//! handler (rust-sdk #529; #604 added the close call on the session handle
//! only). Our session manager opens each POST's stream itself, as rmcp's
//! does, and puts a [`PostStream`] naming it in the request's extensions,
//! where `Context::close_stream` finds it.
//!
//! rmcp keeps what is sent while the stream is closed and replays it to the
//! `GET` that resumes it, but a response sent before that `GET` arrives is
//! lost: the stream's entry goes with the response. So a call that closed
//! its stream holds its response until the client has resumed (`resumed`,
//! bounded by [`RESUME_WAIT`] after the retry interval). Remove when rmcp
//! gives handlers the close, and keeps a response for the resumption.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::Duration;

use rmcp::service::{RequestContext, RoleServer};
use rmcp::transport::streamable_http_server::session::SessionId;
use rmcp::transport::streamable_http_server::session::local::LocalSessionHandle;
use tokio::sync::Notify;

/// How long, past the retry interval it was given, a call whose stream was
/// closed waits for the client to resume it before it answers anyway.
pub(crate) const RESUME_WAIT: Duration = Duration::from_secs(30);

/// The longest a client is told to wait before it comes back: a longer
/// retry is shortened to this.
pub(crate) const MAX_RETRY: Duration = Duration::from_secs(600);

/// The SSE stream a `tools/call` of a 2025-11-25 session is answered on, in
/// the request's extensions.
#[derive(Clone)]
pub(crate) struct PostStream {
    handle: LocalSessionHandle,
    session: SessionId,
    http_request_id: u64,
    closed: Arc<ClosedStreams>,
    state: Arc<StreamState>,
}

/// Whether a stream was closed, and resumed since.
#[derive(Default)]
struct StreamState {
    retry: Mutex<Option<Duration>>,
    resumed: AtomicBool,
    resumption: Notify,
}

/// The streams closed and not resumed yet, by session and HTTP request, for
/// the `GET` that resumes one to find it. Each leaves when it is resumed or
/// when its call ends; one whose call was dropped, when the next is closed.
#[derive(Default)]
pub(crate) struct ClosedStreams(Mutex<HashMap<(SessionId, u64), Weak<StreamState>>>);

impl std::fmt::Debug for ClosedStreams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClosedStreams").finish_non_exhaustive()
    }
}

impl ClosedStreams {
    fn table(&self) -> std::sync::MutexGuard<'_, HashMap<(SessionId, u64), Weak<StreamState>>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The stream of `http_request_id` in `session`, as it is opened.
    pub(crate) fn stream(
        self: &Arc<Self>,
        handle: LocalSessionHandle,
        session: SessionId,
        http_request_id: u64,
    ) -> PostStream {
        PostStream {
            handle,
            session,
            http_request_id,
            closed: self.clone(),
            state: Arc::default(),
        }
    }

    /// A `GET` resumed a stream of `session` from `last_event_id` (rmcp's
    /// `index/http_request_id`): the call that closed it may answer now.
    pub(crate) fn resumed(&self, session: &SessionId, last_event_id: &str) {
        let Some(http_request_id) = last_event_id
            .split_once('/')
            .and_then(|(_, id)| id.parse::<u64>().ok())
        else {
            return;
        };
        let state = self.table().remove(&(session.clone(), http_request_id));
        if let Some(state) = state.as_ref().and_then(Weak::upgrade) {
            state.resumed.store(true, Ordering::Release);
            state.resumption.notify_waiters();
        }
    }
}

impl PostStream {
    /// Ends the stream, telling the client to come back after `retry`;
    /// `false` when it was closed already or has ended.
    pub(crate) async fn close(&self, retry: Duration) -> bool {
        let retry = retry.min(MAX_RETRY);
        {
            let mut closed = self
                .state
                .retry
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if closed.is_some() {
                return false;
            }
            *closed = Some(retry);
        }
        {
            let mut table = self.closed.table();
            table.retain(|_, state| state.strong_count() > 0);
            table.insert(
                (self.session.clone(), self.http_request_id),
                Arc::downgrade(&self.state),
            );
        }
        match self
            .handle
            .close_sse_stream(self.http_request_id, Some(retry))
            .await
        {
            Ok(()) => true,
            Err(e) => {
                tracing::debug!(error = %e, "the call's SSE stream could not be closed");
                self.forget();
                false
            }
        }
    }

    fn forget(&self) {
        self.closed
            .table()
            .remove(&(self.session.clone(), self.http_request_id));
    }
}

/// Waits, when the handler of `request` closed its stream, until the client
/// has resumed it (or the retry interval and [`RESUME_WAIT`] have passed, or
/// the request is cancelled), so that the response that follows reaches it.
pub(crate) async fn resumed(request: &RequestContext<RoleServer>) {
    let Some(stream) = request.extensions.get::<PostStream>() else {
        return;
    };
    let Some(retry) = *stream
        .state
        .retry
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
    else {
        return;
    };
    let state = &stream.state;
    let resumption = state.resumption.notified();
    tokio::pin!(resumption);
    resumption.as_mut().enable();
    if !state.resumed.load(Ordering::Acquire) {
        tokio::select! {
            () = &mut resumption => {}
            () = tokio::time::sleep(retry.saturating_add(RESUME_WAIT)) => {
                tracing::debug!("the client did not resume the closed stream: its answer may be lost");
            }
            () = request.ct.cancelled() => {}
        }
    }
    stream.forget();
}
