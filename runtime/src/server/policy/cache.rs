//! What a `tools/list` or `resources/list` answer may vary by, and for how
//! long a client may keep it (SEP-2549 cache hints).
//!
//! On 2026-07-28 a list may depend on the server's configuration and on the
//! caller's authorization, never on the connection (any request may reach
//! any instance). The catalog here is fixed when the server is built (a
//! skill catalog changes only when its owner reloads it), so the
//! answer says how long it stays fresh (`ttlMs`) and whether a shared cache
//! may hand it to anyone (`public`) or only to this caller (`private`, when
//! the server filters lists by authorization). Older sessions get the legacy
//! shape, without the hints, and may still ask for "show all" per request.

use std::time::Duration;

use rmcp::model::CacheScope;

/// How long lists stay fresh by default: long enough to spare a client most
/// re-fetches, short enough that a redeployed catalog is seen within minutes.
pub(in crate::server) const DEFAULT_LIST_TTL: Duration = Duration::from_secs(300);

/// The cache settings of a server's lists.
#[derive(Debug, Clone, Copy)]
pub(in crate::server) struct ListCache {
    pub(in crate::server) ttl: Duration,
    /// The lists depend on who asks (authorization), so only the caller may
    /// keep them.
    pub(in crate::server) per_caller: bool,
}

impl Default for ListCache {
    fn default() -> Self {
        ListCache {
            ttl: DEFAULT_LIST_TTL,
            per_caller: false,
        }
    }
}

impl ListCache {
    /// `ttlMs` and `cacheScope` for a list answer.
    pub(in crate::server) fn hints(&self) -> (u64, CacheScope) {
        let ttl_ms = u64::try_from(self.ttl.as_millis()).unwrap_or(u64::MAX);
        let scope = if self.per_caller {
            CacheScope::Private
        } else {
            CacheScope::Public
        };
        (ttl_ms, scope)
    }
}
