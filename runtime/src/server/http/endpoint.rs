//! The one service every request of a connection goes to: [`check`]'s
//! checks, then rmcp's Streamable HTTP service for what is at `/mcp` or
//! beneath it, called directly. An axum router with the checks as a
//! middleware cost a session's `ping` more than the checks themselves: the
//! inner service cloned into a box per request, the nested path's URI
//! rebuilt, an extension map grown, three more futures moved through.
//!
//! [`check`]: super::check

use std::convert::Infallible;
use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use axum::response::{IntoResponse, Response};
use rmcp::transport::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::SessionManager;
use tower::ServiceExt;

use super::Guard;
use toolmetadata_core::BoxFuture;

/// The server's endpoint: the checks' state and rmcp's service.
#[derive(Clone)]
pub(super) struct Endpoint {
    guard: Arc<Guard>,
    mcp: Mcp,
}

impl Endpoint {
    pub(super) fn new(guard: Arc<Guard>, mcp: Mcp) -> Self {
        Endpoint { guard, mcp }
    }

    /// The answer to `request`.
    pub(super) fn serve(
        &self,
        request: Request<Body>,
    ) -> impl Future<Output = Result<Response, Infallible>> + Send + use<> {
        let checked = super::check(self.guard.clone(), request, self.mcp.clone());
        async move { Ok(checked.await) }
    }
}

impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Endpoint")
    }
}

/// rmcp's service behind `/mcp`, whatever handler it serves.
#[derive(Clone)]
pub(super) struct Mcp(Arc<dyn Fn(Request<Body>) -> BoxFuture<'static, Response> + Send + Sync>);

impl Mcp {
    pub(super) fn new<S, M>(service: StreamableHttpService<S, M>) -> Self
    where
        S: rmcp::ServerHandler + Send + 'static,
        M: SessionManager,
    {
        Mcp(Arc::new(move |request| {
            let answer = service.clone().oneshot(request);
            Box::pin(async move {
                match answer.await {
                    Ok(response) => response.map(Body::new),
                    Err(never) => match never {},
                }
            })
        }))
    }

    /// rmcp's answer for a request at `/mcp` or beneath it (`/mcp/<group>`:
    /// its scope was read by the checks), and 404 for any other path.
    pub(super) async fn run(&self, request: Request<Body>) -> Response {
        let path = request.uri().path();
        if path != "/mcp" && !path.starts_with("/mcp/") {
            return StatusCode::NOT_FOUND.into_response();
        }
        (self.0)(request).await
    }
}
