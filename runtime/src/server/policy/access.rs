//! Which tools a caller may see and call: those whose `scopes` its
//! [`Principal`](crate::server::auth::Principal) holds. A request without a principal
//! (stdio, or HTTP without a token verifier) may use every tool; stdio is
//! unauthenticated by design.

use rmcp::service::{RequestContext, RoleServer};

#[cfg(feature = "http")]
use super::identity::{SHARED_TOKEN_OWNER, address_of, owner_of};

/// The caller of one request, as far as scopes go.
#[derive(Clone, Copy)]
pub(in crate::server) struct Caller<'a> {
    #[cfg(feature = "http")]
    principal: Option<&'a crate::server::auth::Principal>,
    /// The address the request came from, over HTTP.
    #[cfg(feature = "http")]
    address: Option<std::net::IpAddr>,
    #[cfg(not(feature = "http"))]
    _request: std::marker::PhantomData<&'a ()>,
}

impl<'a> Caller<'a> {
    /// The caller of `context`'s request: the principal the HTTP layer put
    /// in the request's extensions, if any.
    pub(in crate::server) fn of(context: &'a RequestContext<RoleServer>) -> Self {
        #[cfg(feature = "http")]
        {
            let parts = context.extensions.get::<axum::http::request::Parts>();
            let principal =
                parts.and_then(|parts| parts.extensions.get::<crate::server::auth::Principal>());
            let address = parts
                .and_then(|parts| {
                    parts
                        .extensions
                        .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
                })
                .map(|info| info.0.ip());
            Caller { principal, address }
        }
        #[cfg(not(feature = "http"))]
        {
            let _ = context;
            Caller {
                _request: std::marker::PhantomData,
            }
        }
    }

    /// A caller with no principal: it may use every tool.
    pub(in crate::server) fn anonymous() -> Self {
        Caller {
            #[cfg(feature = "http")]
            principal: None,
            #[cfg(feature = "http")]
            address: None,
            #[cfg(not(feature = "http"))]
            _request: std::marker::PhantomData,
        }
    }

    /// A caller holding `principal`.
    #[cfg(all(test, feature = "http", feature = "load"))]
    pub(in crate::server) fn with_principal(principal: &'a crate::server::auth::Principal) -> Self {
        Caller {
            principal: Some(principal),
            address: None,
        }
    }

    /// The scopes of `needed` the caller lacks (none without a principal).
    pub(in crate::server) fn missing<'s>(&self, needed: &'s [String]) -> Vec<&'s str> {
        #[cfg(feature = "http")]
        if let Some(principal) = self.principal {
            return principal.missing(needed);
        }
        let _ = needed;
        Vec::new()
    }

    /// Whom the caller's tasks and confirmations belong to; `None` only
    /// without a principal (stdio, HTTP without authorization), where a
    /// task's unguessable id is its only key. A token that names no subject
    /// still has an owner, so that its tasks are not everyone's: its client
    /// (`client_id` or `azp`), or else the token's own claims, so that the
    /// owner is that token alone. The kinds are prefixed, so that a subject
    /// cannot pass for a client.
    #[cfg_attr(
        not(any(feature = "ask", feature = "limits")),
        expect(dead_code, reason = "questions, tasks and limits have owners")
    )]
    pub(in crate::server) fn owner(&self) -> Option<String> {
        #[cfg(feature = "http")]
        return self.principal.map(owner_of);
        #[cfg(not(feature = "http"))]
        None
    }

    /// Whom a task of the caller counts against in the store's per-owner
    /// quota when that is not its owner: the caller's address, over HTTP,
    /// when no principal of its own names it (no token, or the shared
    /// one). `None` where the owner counts (or nothing tells callers apart).
    #[cfg_attr(
        not(any(feature = "tasks", feature = "limits")),
        expect(dead_code, reason = "tasks and limits count callers")
    )]
    pub(in crate::server) fn counted_as(&self) -> Option<String> {
        #[cfg(feature = "http")]
        {
            let named = self
                .principal
                .is_some_and(|p| owner_of(p) != SHARED_TOKEN_OWNER);
            if named {
                return None;
            }
            self.address.map(|ip| format!("addr:{}", address_of(ip)))
        }
        #[cfg(not(feature = "http"))]
        None
    }

    /// Whether the caller holds every scope of `needed`.
    pub(in crate::server) fn permits(&self, needed: &[String]) -> bool {
        needed.is_empty() || self.missing(needed).is_empty()
    }

    /// Whether the answers to this caller depend on who it is (then a list
    /// must not be shared between callers); for the `cacheScope` of lists.
    #[allow(dead_code)]
    pub(in crate::server) fn is_authenticated(&self) -> bool {
        #[cfg(feature = "http")]
        return self.principal.is_some();
        #[cfg(not(feature = "http"))]
        false
    }
}

/// Why a call of `tool` is refused to a caller that lacks the `missing` scopes.
pub(in crate::server) fn lacking(tool: &str, missing: &[&str]) -> String {
    format!(
        "the tool `{tool}` needs the scope{} {}, which this token does not grant",
        if missing.len() == 1 { "" } else { "s" },
        missing.join(" ")
    )
}
