//! [`ServerError`]: why a server could not be built or served.

use std::fmt;

/// Why a server could not be built or served.
#[derive(Debug)]
pub struct ServerError {
    message: String,
}

impl ServerError {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        ServerError {
            message: message.into(),
        }
    }
}

impl fmt::Display for ServerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ServerError {}
