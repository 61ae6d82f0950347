//! Telling the subscribers of the `file:///{+path}` resources that a tool of
//! this server changed a file (written, edited, replaced in, moved from or
//! to): `notifications/resources/updated` with the file's URI, `file://`
//! and its path beneath its root, as a subscriber reads it. The tools are
//! built before the server that serves them: the server is handed over
//! once built. With `--store` the server carries the change to the
//! subscribers of every instance (its change bus).

use std::path::Path;
use std::sync::{Arc, OnceLock};

use toolmetadata::server::Server;

use crate::confinement::Confinement;

/// Where the tools tell of the files they change.
#[derive(Clone, Default)]
pub(crate) struct Changes(Arc<OnceLock<Server>>);

impl Changes {
    /// From now on, changes are told to `server`'s subscribers.
    pub(crate) fn tell(&self, server: &Server) {
        // Set once, by `main`: a second server would be a bug of ours.
        let _ = self.0.set(server.clone());
    }

    /// Tells the subscribers of `uri` (if any) that it changed, without
    /// holding the call up: each send is bounded by the server.
    pub(crate) fn changed(&self, uri: Option<String>) {
        let (Some(server), Some(uri)) = (self.0.get(), uri) else {
            return;
        };
        let server = server.clone();
        tokio::spawn(async move {
            server.resource_updated(&uri).await;
        });
    }
}

/// The resource URI of what `path` names, `None` when it names nothing
/// beneath a root; `follow_final` as for `files::as_touched`.
pub(crate) fn resource_uri(roots: &Confinement, path: &str, follow_final: bool) -> Option<String> {
    let at = if follow_final {
        roots.locate(path).ok()?
    } else {
        roots.entry(path).ok()?
    };
    Some(uri(&at.root.join(&at.rel)))
}

/// The resource URI of the file at `path` (absolute, beneath a root).
fn uri(path: &Path) -> String {
    format!("file://{}", path.display())
}
