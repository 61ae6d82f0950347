//! What a list answer shows and the cache hints it carries, per request.

use crate::server::Server;
use crate::server::generation::Generation;
use rmcp::model::CacheScope;
use rmcp::service::{RequestContext, RoleServer};

impl Server {
    /// Whether this `tools/list` shows every tool: the server's option, or on
    /// a legacy session the per-request switch (`X-MCP-Show-All`,
    /// `?show_all=true`), which 2026-07-28 requests may not use.
    pub(in crate::server) fn shows_all(&self, context: &RequestContext<RoleServer>) -> bool {
        self.inner.catalog.shows_all() || (!is_stateless(context) && show_all_requested(context))
    }

    /// The cache hints for a list answer, on 2026-07-28 requests only (older
    /// sessions keep the shape they know).
    pub(in crate::server) fn list_hints(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> Option<(u64, CacheScope)> {
        is_stateless(context).then(|| self.inner.list_cache.hints())
    }

    /// The cache hints of a list of tools for `caller` (`tools/list`,
    /// `groups/get`): a list filtered for an authenticated caller varies by
    /// authorization, so no shared cache may hand it to another caller.
    pub(in crate::server) fn tool_list_hints(
        &self,
        context: &RequestContext<RoleServer>,
        caller: &crate::server::policy::access::Caller<'_>,
    ) -> Option<(u64, CacheScope)> {
        let (ttl_ms, scope) = self.list_hints(context)?;
        let scope = if caller.is_authenticated() {
            CacheScope::Private
        } else {
            scope
        };
        Some((ttl_ms, scope))
    }
}

/// True for a request of the 2026-07-28 generation (or later): stateless,
/// self-contained, answered the same by every instance.
fn is_stateless(context: &RequestContext<RoleServer>) -> bool {
    Generation::of(context) == Generation::Stateless
}

/// Whether the request asks for every tool: over HTTP, `X-MCP-Show-All: true`
/// or `?show_all=true`; never on stdio.
fn show_all_requested(context: &RequestContext<RoleServer>) -> bool {
    #[cfg(feature = "http")]
    return crate::server::http::show_all_requested(context);
    #[cfg(not(feature = "http"))]
    {
        let _ = context;
        false
    }
}
