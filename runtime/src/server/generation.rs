//! The protocol generation of a request, decided in one place. MCP has two
//! that differ in kind, not in detail: up to 2025-11-25 a client opens a
//! session with `initialize` and the server may ask it things at any time;
//! from 2026-07-28 each request carries its version, capabilities and client
//! in `_meta`, has no session, and may reach any instance.

#[cfg(feature = "tasks")]
use rmcp::model::{ClientRequest, GetMeta};
use rmcp::service::{RequestContext, RoleServer};

/// The generation a request belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Generation {
    /// 2025-11-25 and before: a session opened with `initialize`.
    Session,
    /// 2026-07-28 and after: a self-contained request, no session.
    Stateless,
}

impl Generation {
    /// The generation of the request behind `context`: its own version on
    /// 2026-07-28, else the session's. A request with no version at all
    /// (before `initialize` has answered) counts as a session's.
    pub(super) fn of(context: &RequestContext<RoleServer>) -> Self {
        Self::of_version(context.protocol_version())
    }

    /// The generation of a request as the transport receives it, before a
    /// handler: stateless when its `_meta` names a 2026-07-28 (or later)
    /// version.
    #[cfg(feature = "tasks")]
    pub(super) fn of_request(request: &ClientRequest) -> Self {
        Self::of_version(request.get_meta().protocol_version())
    }

    /// The generation of a request that names `version`.
    pub(super) fn of_version(version: Option<rmcp::model::ProtocolVersion>) -> Self {
        match version {
            Some(version) if !version.has_initialize() => Generation::Stateless,
            _ => Generation::Session,
        }
    }

    /// True for a 2025-11-25 (or earlier) session's request.
    pub(super) fn is_session(self) -> bool {
        self == Generation::Session
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::ProtocolVersion;

    #[test]
    fn versions_fall_on_either_side_of_2026_07_28() {
        for (version, expected) in [
            (Some(ProtocolVersion::V_2024_11_05), Generation::Session),
            (Some(ProtocolVersion::V_2025_11_25), Generation::Session),
            (Some(ProtocolVersion::V_2026_07_28), Generation::Stateless),
            (None, Generation::Session),
        ] {
            assert_eq!(
                Generation::of_version(version.clone()),
                expected,
                "{version:?}"
            );
        }
    }
}
