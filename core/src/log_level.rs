//! [`LogLevel`]: how severe a message a handler sends the client is
//! ([`Context::log`](crate::Context::log)), in MCP's (syslog's) order.

/// The severity of a log message, least to most severe. The client says
/// from which level on it wants them (`logging/setLevel` on 2025-11-25,
/// `_meta` `io.modelcontextprotocol/logLevel` on 2026-07-28); until it
/// does, it gets none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LogLevel {
    /// Detail for debugging.
    Debug,
    /// Normal operation.
    Info,
    /// Normal but significant.
    Notice,
    /// Something to look at.
    Warning,
    /// An operation failed.
    Error,
    /// A component failed.
    Critical,
    /// Act now.
    Alert,
    /// The system is unusable.
    Emergency,
}
