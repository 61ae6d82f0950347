//! What an instance knows of sessions closed through another: the mark a
//! client's `DELETE` leaves in the shared store (a tombstone), how often an
//! instance looks for it, and the looks under way (see `recheck`).

use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use rmcp::transport::streamable_http_server::session::SessionId;

/// How stale this instance's belief that a session is not closed elsewhere
/// may be: at most one read of the store per session this often, made
/// beside the request that prompts it (which never waits on the store).
pub(super) const RECHECK: Duration = Duration::from_secs(1);

/// The id under which a session closed by its client is marked in the
/// store (under its owner's key, as the session itself): what the other
/// instances look for. Absence says nothing: the session's own record may
/// have failed to be written, or outlived its time to live, while it is in
/// use.
pub(super) fn tombstone(id: &str) -> String {
    format!("closed.{id}")
}

/// Looks at the store under way, by session, and the sessions they found
/// closed by their client elsewhere, to close here.
#[derive(Debug, Default)]
pub(super) struct Rechecks {
    under_way: Mutex<std::collections::HashSet<SessionId>>,
    found_closed: Mutex<std::collections::HashSet<SessionId>>,
}

impl Rechecks {
    pub(super) fn under_way(
        &self,
    ) -> std::sync::MutexGuard<'_, std::collections::HashSet<SessionId>> {
        // A set of ids: consistent after a panicking holder.
        self.under_way
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    pub(super) fn found_closed(
        &self,
    ) -> std::sync::MutexGuard<'_, std::collections::HashSet<SessionId>> {
        self.found_closed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}
