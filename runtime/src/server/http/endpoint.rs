//! rmcp's Streamable HTTP service at `/mcp`, as the checks call it once a
//! request has passed them: directly, for what is at `/mcp` or beneath it.
//! An axum router with the checks as a middleware cost a session's `ping`
//! more than the checks themselves: the inner service cloned into a box per
//! request, the nested path's URI rebuilt, an extension map grown, three
//! more futures moved through. rmcp's service is called through `handle`,
//! not tower's `oneshot`: as a tower service it clones itself (its config's
//! lists of hosts and origins included) for every request.

use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::response::{IntoResponse, Response};
use rmcp::transport::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::SessionManager;

use toolmetadata_core::BoxFuture;

/// rmcp's service behind `/mcp`, whatever handler it serves.
#[derive(Clone)]
pub(super) struct Mcp(Arc<dyn Fn(Request<Body>) -> BoxFuture<'static, Response> + Send + Sync>);

impl Mcp {
    pub(super) fn new<S, M>(service: StreamableHttpService<S, M>) -> Self
    where
        S: rmcp::ServerHandler + Send + 'static,
        M: SessionManager,
    {
        let service = Arc::new(service);
        Mcp(Arc::new(move |request| {
            let service = service.clone();
            Box::pin(async move { service.handle(request).await.map(Body::new) })
        }))
    }

    /// rmcp's answer for a request at `/mcp` or beneath it (`/mcp/<group>`:
    /// its scope was read by the checks), and 404 for any other path; boxed
    /// as it is made, since the checks' future holds it and is moved whole
    /// with every request.
    pub(super) fn run(&self, request: Request<Body>) -> BoxFuture<'static, Response> {
        let path = request.uri().path();
        if path != "/mcp" && !path.starts_with("/mcp/") {
            return Box::pin(std::future::ready(StatusCode::NOT_FOUND.into_response()));
        }
        (self.0)(request)
    }
}
