//! The client's roots: the directories (or other URIs) a 2025-11-25 client
//! offers the server to work in, as a handler reads them with
//! [`crate::Context::roots`]. The server asks for them once per session and
//! keeps them until the client says they changed.

use std::any::Any;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How long the client has to answer `roots/list`.
pub const ROOTS_TIMEOUT: Duration = Duration::from_secs(10);
/// Most roots accepted from a client; a longer list is refused whole.
pub const MAX_ROOTS: usize = 256;
/// Longest root URI accepted, in bytes; a list with a longer one is refused.
pub const MAX_ROOT_URI_BYTES: usize = 8192;

/// One root as the client sent it: a URI (`file://…` in the current
/// specification, which the application should check) and an optional name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientRoot {
    /// The root's URI, as sent.
    pub uri: String,
    /// Its name for people, if the client gave one.
    pub name: Option<String>,
}

/// The roots one `roots/list` answer gave, shared by the calls of the session
/// until the client says they changed. The application can keep what it
/// makes of them (opened directories, say) beside them with
/// [`ClientRoots::keep`], so that it is made once per list too.
pub struct ClientRoots {
    roots: Vec<ClientRoot>,
    kept: Mutex<Vec<Arc<dyn Any + Send + Sync>>>,
}

impl fmt::Debug for ClientRoots {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientRoots")
            .field("roots", &self.roots)
            .finish_non_exhaustive()
    }
}

impl ClientRoots {
    /// Roots not fetched from a client (for tests, and for servers that
    /// build their own).
    pub fn new(roots: Vec<ClientRoot>) -> Self {
        ClientRoots {
            roots,
            kept: Mutex::new(Vec::new()),
        }
    }

    /// The roots, in the client's order (possibly none).
    pub fn roots(&self) -> &[ClientRoot] {
        &self.roots
    }

    /// What the application kept beside these roots with [`ClientRoots::keep`],
    /// by type.
    pub fn kept<T: Any + Send + Sync>(&self) -> Option<Arc<T>> {
        let kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        kept.iter().find_map(|v| v.clone().downcast::<T>().ok())
    }

    /// Keeps `value` beside these roots and returns it; if a value of this
    /// type is kept already (two calls raced to make it), that one is
    /// returned and `value` dropped, so every call sees the same.
    pub fn keep<T: Any + Send + Sync>(&self, value: T) -> Arc<T> {
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(found) = kept.iter().find_map(|v| v.clone().downcast::<T>().ok()) {
            return found;
        }
        let value = Arc::new(value);
        kept.push(value.clone());
        value
    }
}

/// Why [`crate::Context::roots`] has no roots to give.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RootsError {
    /// Roots cannot be asked for here: the client did not declare the
    /// `roots` capability, or the context belongs to no server.
    Unsupported,
    /// The client was asked and did not give a usable answer (an error, no
    /// answer in time: within [`ROOTS_TIMEOUT`] on a session, the server's
    /// ask timeout in a task; or a list over the bounds).
    Failed(String),
    /// A 2026-07-28 call: the client is asked through the call's
    /// `InputRequiredResult` (a `roots/list` input request), and the call
    /// is made again with its answer. Return the error (with `?`): this
    /// attempt's result is not used.
    InputRequired,
}

impl fmt::Display for RootsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RootsError::Unsupported => {
                f.write_str("the client offers no roots (it declared no roots capability)")
            }
            RootsError::Failed(why) => write!(f, "the client's roots/list failed: {why}"),
            RootsError::InputRequired => f.write_str(
                "the client is asked for its roots; the call is made again with its answer",
            ),
        }
    }
}

impl std::error::Error for RootsError {}
