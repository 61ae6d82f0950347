//! The protocol generation of a request, decided in one place. MCP has two
//! that differ in kind, not in detail: up to 2025-11-25 a client opens a
//! session with `initialize` and the server may ask it things at any time;
//! from 2026-07-28 each request carries its version, capabilities and client
//! in `_meta`, has no session, and may reach any instance.
//!
//! A server built without the feature `sessions` speaks only the second:
//! it offers no version with `initialize` (see `Server::supported_protocol_versions`),
//! so every request it serves is stateless, and what only a session has is
//! not built.

#[cfg(all(feature = "tasks", feature = "sessions"))]
use rmcp::model::{ClientRequest, GetMeta};
use rmcp::service::{RequestContext, RoleServer};

/// The generation a request belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Generation {
    /// 2025-11-25 and before: a session opened with `initialize`.
    #[cfg(feature = "sessions")]
    Session,
    /// 2026-07-28 and after: a self-contained request, no session.
    Stateless,
}

impl Generation {
    /// The generation of the request behind `context`: its own version on
    /// 2026-07-28, else the session's. A request with no version at all
    /// (before `initialize` has answered) counts as a session's; without
    /// sessions rmcp refuses it before a handler sees it.
    pub(super) fn of(context: &RequestContext<RoleServer>) -> Self {
        Self::of_version(context.protocol_version())
    }

    /// The generation of a request as the transport receives it, before a
    /// handler: stateless when its `_meta` names a 2026-07-28 (or later)
    /// version.
    #[cfg(all(feature = "tasks", feature = "sessions"))]
    pub(super) fn of_request(request: &ClientRequest) -> Self {
        Self::of_version(request.get_meta().protocol_version())
    }

    /// The generation of a request that names `version`.
    #[cfg(feature = "sessions")]
    pub(super) fn of_version(version: Option<rmcp::model::ProtocolVersion>) -> Self {
        match version {
            Some(version) if !version.has_initialize() => Generation::Stateless,
            _ => Generation::Session,
        }
    }

    /// Without sessions every request served is stateless: rmcp answers one
    /// without a 2026-07-28 version in `_meta` before any handler sees it.
    #[cfg(not(feature = "sessions"))]
    pub(super) fn of_version(version: Option<rmcp::model::ProtocolVersion>) -> Self {
        let _ = version;
        Generation::Stateless
    }

    /// True for a 2025-11-25 (or earlier) session's request.
    pub(super) fn is_session(self) -> bool {
        #[cfg(feature = "sessions")]
        return self == Generation::Session;
        #[cfg(not(feature = "sessions"))]
        false
    }
}

/// Of `versions`, the ones this build serves: all of them with sessions;
/// without, only those with no `initialize` (2026-07-28 and later), so that
/// rmcp refuses an `initialize` with the versions there are, on stdio and
/// over HTTP alike.
pub(super) fn supported_versions(
    versions: std::borrow::Cow<'static, [rmcp::model::ProtocolVersion]>,
) -> std::borrow::Cow<'static, [rmcp::model::ProtocolVersion]> {
    #[cfg(feature = "sessions")]
    return versions;
    #[cfg(not(feature = "sessions"))]
    versions
        .iter()
        .filter(|version| !version.has_initialize())
        .cloned()
        .collect()
}

/// The answer to an `initialize` in a build without sessions: the error
/// rmcp's negotiation gives (the versions there are in `data`), saying why.
pub(super) fn initialize_refused(
    requested: &rmcp::model::ProtocolVersion,
    supported: &[rmcp::model::ProtocolVersion],
) -> rmcp::ErrorData {
    let mut error = rmcp::ErrorData::unsupported_protocol_version(requested.clone(), supported);
    error.message = format!(
        "this server opens no sessions (it was built without the feature `sessions`): it speaks {} only, \
         each request carrying its version in `_meta`, with no `initialize`",
        supported
            .iter()
            .map(|version| version.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    )
    .into();
    error
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::ProtocolVersion;

    #[test]
    fn only_versions_without_initialize_are_served_without_sessions() {
        let served =
            supported_versions(std::borrow::Cow::Borrowed(ProtocolVersion::KNOWN_VERSIONS));
        assert!(served.contains(&ProtocolVersion::V_2026_07_28));
        assert_eq!(
            served.iter().any(ProtocolVersion::has_initialize),
            cfg!(feature = "sessions"),
            "{served:?}"
        );
        // Whatever a request names, without sessions it is stateless.
        #[cfg(not(feature = "sessions"))]
        for version in [None, Some(ProtocolVersion::V_2025_11_25)] {
            assert_eq!(Generation::of_version(version), Generation::Stateless);
        }
    }

    #[test]
    #[cfg(feature = "sessions")]
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
