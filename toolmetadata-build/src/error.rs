//! [`Error`]: why generating failed, printed as rustc prints its errors.

use std::fmt;
use std::path::{Path, PathBuf};

use toolmetadata_core::Diagnostics;

/// Why generating failed: bad metadata (every diagnostic of every file), a file
/// that could not be read or written, or a builder option that does not fit.
///
/// `Display` and `Debug` print the same rustc-style text, so both
/// `fn main() -> Result<(), Error>` and `.unwrap()` read well.
pub struct Error {
    kind: ErrorKind,
}

enum ErrorKind {
    Metadata(Diagnostics),
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    Config(String),
}

impl Error {
    pub(crate) fn metadata(diagnostics: Diagnostics) -> Self {
        Error {
            kind: ErrorKind::Metadata(diagnostics),
        }
    }

    pub(crate) fn io(path: &Path, error: std::io::Error) -> Self {
        Error {
            kind: ErrorKind::Io {
                path: path.to_owned(),
                error,
            },
        }
    }

    pub(crate) fn config(message: impl Into<String>) -> Self {
        Error {
            kind: ErrorKind::Config(message.into()),
        }
    }

    /// The diagnostics, when the metadata was bad.
    pub fn diagnostics(&self) -> Option<&Diagnostics> {
        match &self.kind {
            ErrorKind::Metadata(d) => Some(d),
            _ => None,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ErrorKind::Metadata(d) => f.write_str(&d.render(false)),
            ErrorKind::Io { path, error } => {
                write!(f, "error: cannot read or write {}: {error}", path.display())
            }
            ErrorKind::Config(message) => write!(f, "error: {message}"),
        }
    }
}

impl fmt::Debug for Error {
    /// The same text as `Display`: `main` returning `Err` prints it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f)?;
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for Error {}
