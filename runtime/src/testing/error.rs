//! What a test client's request can end with, besides its answer.

use std::fmt;
use std::time::Duration;

use rmcp::ErrorData;
use rmcp::service::ServiceError;

/// Why a request of the test client got no answer it could use.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The server answered with a JSON-RPC error (an unknown tool, a
    /// refused call, a task that does not exist…).
    Protocol(ErrorData),
    /// No answer within the client's timeout ([`super::Builder::timeout`]).
    Timeout {
        /// What was waited for.
        waiting_for: String,
        /// How long.
        after: Duration,
    },
    /// The task was cancelled before it ended ([`super::Task::result`]).
    Cancelled,
    /// The server did not start, ended, or answered something the request
    /// cannot have as its answer.
    Connection(String),
}

impl Error {
    /// The JSON-RPC error's code, for a [`Error::Protocol`].
    pub fn code(&self) -> Option<i32> {
        match self {
            Error::Protocol(e) => Some(e.code.0),
            _ => None,
        }
    }

    pub(super) fn from_service(e: ServiceError) -> Error {
        match e {
            ServiceError::McpError(e) => Error::Protocol(e),
            other => Error::Connection(other.to_string()),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Protocol(e) => {
                write!(f, "the server answered error {}: {}", e.code.0, e.message)
            }
            Error::Timeout { waiting_for, after } => {
                write!(f, "no {waiting_for} within {after:?}")
            }
            Error::Cancelled => f.write_str("the task was cancelled"),
            Error::Connection(why) => write!(f, "the connection failed: {why}"),
        }
    }
}

impl std::error::Error for Error {}
