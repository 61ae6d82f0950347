//! Why a path was refused, and how a path is shown in the message: shared by
//! the confinement and the spelling of paths, below both.

use std::fmt;
use std::io;

/// Why a path was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PathError(String);

impl fmt::Display for PathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PathError {}

impl PathError {
    /// A refusal with this text.
    pub(crate) fn new(text: impl Into<String>) -> Self {
        PathError(text.into())
    }
}

/// A path for messages: quoted, and cut so that a huge argument does not make
/// a huge error.
pub(crate) fn shown(path: &str) -> String {
    let mut s: String = path.chars().take(120).collect();
    if s.len() < path.len() {
        s.push('…');
    }
    format!("{s:?}")
}

/// The error text for an I/O failure on `given`.
pub(crate) fn io_error(given: &str, e: &io::Error) -> PathError {
    if is_escape(e) {
        // Only a link can lead out of a path already inside a root.
        return PathError::new(format!(
            "the path {} leads outside the allowed roots through a symbolic link \
             (a link is followed only to a target inside the same root)",
            shown(given)
        ));
    }
    match e.kind() {
        io::ErrorKind::NotFound => PathError::new(format!("{} does not exist", shown(given))),
        _ => PathError::new(format!("{}: {e}", shown(given))),
    }
}

/// cap-std reports a resolution that would leave its directory as
/// `PermissionDenied` with this text (from `EXDEV` of `RESOLVE_BENEATH`, or
/// from its own resolver where `openat2` is missing).
fn is_escape(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::PermissionDenied
        && e.to_string()
            .contains("a path led outside of the filesystem")
}
