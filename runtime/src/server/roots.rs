//! The client's roots (`roots/list`, the user types in [`crate::roots`]),
//! fetched once per session and kept until the client says they changed
//! (`notifications/roots/list_changed`).
//!
//! Each session has its own [`SessionRoots`]: stdio has one session, and
//! Streamable HTTP makes a server per session (and per stateless request), so
//! one client's roots never reach another's calls.
//!
//! A 2026-07-28 request carries no session: its roots are asked through the
//! call's input requests (see `asker`), and checked here alike (SEP-2577
//! deprecates roots; they are served where clients declare them).
//! [`crate::Context::roots`] says [`RootsError::Unsupported`] for clients that
//! do not declare the `roots` capability.

use std::sync::Arc;
#[cfg(feature = "sessions")]
use std::sync::atomic::{AtomicU64, Ordering};

#[cfg(feature = "sessions")]
use rmcp::model::{ClientResult, ServerRequest};
#[cfg(feature = "sessions")]
use rmcp::service::PeerRequestOptions;
use rmcp::service::{RequestContext, RoleServer};

#[cfg(feature = "sessions")]
use super::generation::Generation;
#[cfg(feature = "sessions")]
use crate::roots::ROOTS_TIMEOUT;
#[cfg(any(feature = "sessions", feature = "ask"))]
use crate::roots::{ClientRoot, MAX_ROOT_URI_BYTES, MAX_ROOTS};
use crate::roots::{ClientRoots, RootsError};

/// What one `roots/list` gave.
#[cfg(feature = "sessions")]
type Answer = Result<Arc<ClientRoots>, RootsError>;

/// Without the feature `sessions` there is no session to keep roots for:
/// a 2026-07-28 call asks them (`asker`), and this holds nothing.
#[cfg(not(feature = "sessions"))]
#[derive(Default)]
pub(crate) struct SessionRoots;

#[cfg(not(feature = "sessions"))]
impl SessionRoots {
    /// No session's roots: only a session's request gets here, and there is
    /// none in this build.
    pub(crate) async fn get(
        &self,
        request: &RequestContext<RoleServer>,
    ) -> Result<Arc<ClientRoots>, RootsError> {
        let _ = request;
        Err(RootsError::Unsupported)
    }
}

/// The roots of one session: the last list fetched, and a generation that
/// `notifications/roots/list_changed` moves on, which makes that list stale.
#[cfg(feature = "sessions")]
#[derive(Default)]
pub(crate) struct SessionRoots {
    generation: AtomicU64,
    /// The generation the answer was fetched in, and the answer (a failure
    /// too, so that a client that does not answer delays one call, not
    /// each). An async mutex: it is held across the fetch, so that
    /// concurrent calls ask once.
    cached: tokio::sync::Mutex<Option<(u64, Answer)>>,
}

#[cfg(feature = "sessions")]
impl SessionRoots {
    /// The client's roots for the call `request`: the session's list while it
    /// is current, else a new `roots/list`.
    pub(crate) async fn get(
        &self,
        request: &RequestContext<RoleServer>,
    ) -> Result<Arc<ClientRoots>, RootsError> {
        let legacy = Generation::of(request).is_session();
        let declared = request
            .client_capabilities()
            .is_some_and(|c| c.roots.is_some());
        if !legacy || !declared {
            return Err(RootsError::Unsupported);
        }
        // Another call may be fetching: wait for it (it is bounded by the
        // same timeout), then use what it got.
        let mut cached = tokio::time::timeout(2 * ROOTS_TIMEOUT, self.cached.lock())
            .await
            .map_err(|_| RootsError::Failed("another call's roots/list is still waiting".into()))?;
        let generation = self.generation.load(Ordering::Acquire);
        if let Some((at, answer)) = cached.as_ref()
            && *at == generation
        {
            return answer.clone();
        }
        let answer = fetch(request).await.map(|r| Arc::new(ClientRoots::new(r)));
        if let Err(e) = &answer {
            tracing::warn!("{e}");
        }
        // A change notified during the fetch may not be in this answer: it
        // serves this call, and the next one asks again.
        *cached = Some((generation, answer.clone()));
        answer
    }

    /// The client said its roots changed: the next call asks again.
    pub(crate) fn changed(&self) {
        self.generation.fetch_add(1, Ordering::AcqRel);
    }
}

/// Asks the client for its roots, with a timeout, and checks the bounds.
#[cfg(feature = "sessions")]
#[expect(
    deprecated,
    reason = "roots are deprecated by SEP-2577, still served on 2025-11-25"
)]
async fn fetch(request: &RequestContext<RoleServer>) -> Result<Vec<ClientRoot>, RootsError> {
    let ask = ServerRequest::ListRootsRequest(rmcp::model::ListRootsRequest {
        method: Default::default(),
        extensions: Default::default(),
    });
    let failed = |e: rmcp::ServiceError| RootsError::Failed(e.to_string());
    let answer = request
        .peer
        .send_request_with_option(ask, PeerRequestOptions::with_timeout(ROOTS_TIMEOUT))
        .await
        .map_err(failed)?
        .await_response()
        .await
        .map_err(failed)?;
    let ClientResult::ListRootsResult(list) = answer else {
        return Err(RootsError::Failed(
            "the client answered roots/list with something else than a list of roots".into(),
        ));
    };
    checked(list)
}

/// The roots of a `ListRootsResult` as JSON: an input request's answer.
#[expect(
    deprecated,
    reason = "roots are deprecated by SEP-2577, still served where clients declare them"
)]
#[cfg(feature = "ask")]
pub(crate) fn from_result(result: &serde_json::Value) -> Result<Vec<ClientRoot>, RootsError> {
    let list: rmcp::model::ListRootsResult =
        serde_json::from_value(result.clone()).map_err(|e| {
            RootsError::Failed(format!(
                "the client's answer to roots/list is not a list of roots: {e}"
            ))
        })?;
    checked(list)
}

/// The roots of `list`, within the bounds.
#[cfg(any(feature = "sessions", feature = "ask"))]
#[expect(
    deprecated,
    reason = "roots are deprecated by SEP-2577, still served where clients declare them"
)]
fn checked(list: rmcp::model::ListRootsResult) -> Result<Vec<ClientRoot>, RootsError> {
    if list.roots.len() > MAX_ROOTS {
        return Err(RootsError::Failed(format!(
            "the client sent {} roots, more than the {MAX_ROOTS} accepted",
            list.roots.len()
        )));
    }
    if let Some(long) = list.roots.iter().find(|r| r.uri.len() > MAX_ROOT_URI_BYTES) {
        return Err(RootsError::Failed(format!(
            "a root URI is {} bytes long, more than the {MAX_ROOT_URI_BYTES} accepted",
            long.uri.len()
        )));
    }
    Ok(list
        .roots
        .into_iter()
        .map(|r| ClientRoot {
            uri: r.uri,
            name: r.name,
        })
        .collect())
}
