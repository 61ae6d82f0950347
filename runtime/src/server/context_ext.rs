//! [`ContextExt`]: what a handler reads of the request behind its call, in
//! rmcp's and HTTP's types, which the [`Context`] of `toolmetadata-core`
//! cannot name.

use rmcp::service::{RequestContext, RoleServer};

use super::call_link::CallLink;
use crate::Context;

/// The request behind a call, as the server received it: import it
/// (`use toolmetadata::ContextExt;`) to read it from a handler's
/// [`Context`]. Each accessor is `None` for a context made with
/// [`Context::new`], which no request stands behind.
pub trait ContextExt: sealed::Sealed {
    /// The request as rmcp received it: its id, `_meta`, extensions and the
    /// peer.
    fn request(&self) -> Option<&RequestContext<RoleServer>>;

    /// The protocol version of the call: the request's own on 2026-07-28, the
    /// session's on earlier versions.
    fn protocol_version(&self) -> Option<rmcp::model::ProtocolVersion> {
        self.request()?.protocol_version()
    }

    /// The client's name and version, as the request or the session gives it.
    fn client_info(&self) -> Option<rmcp::model::Implementation> {
        self.request()?.client_info()
    }

    /// What the client can do (elicitation, sampling, roots, …).
    fn client_capabilities(&self) -> Option<rmcp::model::ClientCapabilities> {
        self.request()?.client_capabilities()
    }

    /// The request's `_meta` object (progress token, protocol keys, and
    /// whatever else the client sent there).
    fn meta(&self) -> Option<&rmcp::model::RequestMetaObject> {
        Some(&self.request()?.meta)
    }

    /// The HTTP request the call came in (method, URI, headers, extensions),
    /// when served over Streamable HTTP (feature `http`).
    #[cfg(feature = "http")]
    fn http_request(&self) -> Option<&axum::http::request::Parts> {
        self.request()?
            .extensions
            .get::<axum::http::request::Parts>()
    }

    /// A value the HTTP layer put in the request's extensions, such as the
    /// principal an authorization layer verified; found in the HTTP request's
    /// extensions, then in rmcp's.
    fn extension<T: Send + Sync + 'static>(&self) -> Option<&T> {
        #[cfg(feature = "http")]
        if let Some(found) = self.http_request().and_then(|p| p.extensions.get::<T>()) {
            return Some(found);
        }
        self.request()?.extensions.get::<T>()
    }
}

impl ContextExt for Context {
    fn request(&self) -> Option<&RequestContext<RoleServer>> {
        let link = self.link()?.as_any().downcast_ref::<CallLink>()?;
        Some(&link.request)
    }
}

mod sealed {
    /// Only [`crate::Context`] has a request behind it.
    pub trait Sealed {}
    impl Sealed for crate::Context {}
}
