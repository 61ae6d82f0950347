//! [`Error`]: why generating failed, printed as rustc prints its errors.

use std::fmt;
use std::path::{Path, PathBuf};

use toolmetadata_load::Diagnostics;

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
    /// Bad metadata whose errors the build script already printed on
    /// stderr: `main` returning it adds only the count.
    Shown(Diagnostics),
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

    /// Bad metadata, its errors printed on stderr now: in a build script,
    /// so that they come first and alone, not after `main`'s `Error: `.
    pub(crate) fn metadata_shown(diagnostics: Diagnostics) -> Self {
        for error in diagnostics
            .iter()
            .filter(|d| d.severity() == toolmetadata_load::Severity::Error)
        {
            eprintln!("{}\n", error.render(false));
        }
        Error {
            kind: ErrorKind::Shown(diagnostics),
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
            ErrorKind::Metadata(d) | ErrorKind::Shown(d) => Some(d),
            _ => None,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ErrorKind::Metadata(d) | ErrorKind::Shown(d) => f.write_str(&d.render(false)),
            ErrorKind::Io { path, error } => {
                write!(f, "error: cannot read or write {}: {error}", path.display())
            }
            ErrorKind::Config(message) => write!(f, "error: {message}"),
        }
    }
}

impl fmt::Debug for Error {
    /// The same text as `Display`, which `main` returning `Err` prints;
    /// for errors a build script already printed, only their count.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let ErrorKind::Shown(d) = &self.kind {
            let errors = d
                .iter()
                .filter(|d| d.severity() == toolmetadata_load::Severity::Error)
                .count();
            let plural = if errors == 1 { "" } else { "s" };
            return write!(f, "tool metadata has {errors} error{plural} (shown above)");
        }
        writeln!(f)?;
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for Error {}
