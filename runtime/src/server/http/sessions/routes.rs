//! What the HTTP layer checks of a 2025-11-25 session before rmcp sees the
//! request: that it is the asking client's, that there is room for a new
//! one, and how its closing is answered.

use axum::body::Body;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::{CappedSessions, FULL};
use crate::server::http::clients::ClientKey;
use crate::server::peek::Peek;

/// The session id a request names, if any.
fn named(headers: &HeaderMap) -> Option<&str> {
    headers.get("mcp-session-id").and_then(|v| v.to_str().ok())
}

/// A session belongs to the client that opened it: to any other, even with
/// a valid token and the id, it is unknown (404, as rmcp answers an unknown
/// one), for every method, `DELETE` included.
pub(in crate::server::http) fn foreign(
    sessions: &CappedSessions,
    headers: &HeaderMap,
    client: &ClientKey,
) -> Option<Response> {
    let id = named(headers)?;
    sessions.foreign(id, client).then(not_found)
}

/// For a `DELETE`: 404 for a session this client cannot reach (rmcp answers
/// a `DELETE` of any id with success), else the session is marked closed
/// for the instances that restored it, and rmcp closes it here.
pub(in crate::server::http) async fn closing(
    sessions: &CappedSessions,
    headers: &HeaderMap,
    client: &ClientKey,
) -> Option<Response> {
    let id = named(headers)?;
    if !sessions.known(id, client).await {
        return Some(not_found());
    }
    sessions.closing(id, client).await;
    None
}

/// 503 for an `initialize` that would open a session where there is no room
/// for one (see `sessions`). Nothing is closed here: rmcp may still
/// refuse the request, and room is made only for a session really opened.
pub(in crate::server::http) fn no_room(
    sessions: &CappedSessions,
    client: &ClientKey,
    headers: &HeaderMap,
    messages: &[Peek],
) -> Option<Response> {
    let initialize = messages
        .iter()
        .find(|m| m.method.as_deref() == Some("initialize"))?;
    if headers.contains_key("mcp-session-id") || sessions.has_room(client) {
        return None;
    }
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": initialize.id,
        "error": {"code": -32000, "message": FULL},
    });
    Some(
        (
            StatusCode::SERVICE_UNAVAILABLE,
            [
                (header::CONTENT_TYPE, "application/json"),
                (header::RETRY_AFTER, "5"),
            ],
            body.to_string(),
        )
            .into_response(),
    )
}

/// What rmcp answers for a session it does not know, for one this client
/// may not reach.
fn not_found() -> Response {
    (StatusCode::NOT_FOUND, "Not Found: Session not found").into_response()
}

/// A session closed by `DELETE` is answered `204 No Content`, where rmcp
/// answers `202 Accepted`: the session is gone when the answer leaves, and
/// the Python SDK logs "Session termination failed" for any status but 200
/// and 204 (the TypeScript SDK takes any 2xx).
pub(in crate::server::http) fn closed(response: Response) -> Response {
    if response.status() != StatusCode::ACCEPTED {
        return response;
    }
    let (mut parts, _) = response.into_parts();
    parts.status = StatusCode::NO_CONTENT;
    parts.headers.remove(header::CONTENT_LENGTH);
    parts.headers.remove(header::CONTENT_TYPE);
    Response::from_parts(parts, Body::empty())
}
