//! What `compat` needs from the HTTP layer, and what it fixes there:
//!
//! - for gap 2, the `task` params that rmcp's parsing drops, taken from the
//!   HTTP layer's one look at the body (see `http::body::Peek`) and handed
//!   on in the request's extensions, which rmcp passes on with the request
//!   (the body itself passes as it is);
//! - for gap 1 on a stateless (2026-07-28) request, which rmcp serves with
//!   no transport of ours to fill it, the `tools/list` answer patched in the
//!   response body, as JSON or as the events of its SSE stream. Sessions get
//!   theirs from `compat::Transport`;
//! - gap 5, the answers to bodies that rmcp answers wrongly: not JSON, or a
//!   `tools/call` whose `arguments` is not an object.

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures_core::Stream;
use futures_util::StreamExt;
use serde_json::Value;

use rmcp::model::RequestId;

use super::transport::Compat;
use crate::server::generation::Generation;
use crate::server::peek::{Peek, Shape};

/// Whether the answer to this request is a stateless `tools/list` whose
/// entries lost keys to rmcp's `Tool`.
pub(in crate::server) fn patches_answer(
    compat: &Compat,
    headers: &HeaderMap,
    messages: &[Peek],
) -> bool {
    // rmcp serves a request that names 2026-07-28 in its `_meta` statelessly,
    // whatever session header it carries; a session's answer is patched by
    // its transport (patching it twice adds nothing).
    !compat.extras.is_empty()
        && matches!(messages, [one] if one.method.as_deref() == Some("tools/list")
            && (!headers.contains_key("mcp-session-id")
                || one.generation() == Generation::Stateless))
}

/// The largest JSON answer patched in one piece; larger ones pass unpatched
/// rather than being held in memory.
const MAX_JSON_ANSWER: usize = 64 * 1024 * 1024;

/// The `tools/list` answer in `response` with the lost keys put back.
pub(in crate::server) async fn patch_answer(response: Response, compat: &Compat) -> Response {
    if !response.status().is_success() {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let content_type = parts
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_ascii_lowercase();
    if content_type.starts_with("text/event-stream") {
        parts.headers.remove(header::CONTENT_LENGTH);
        let compat = compat.clone();
        return Response::from_parts(parts, Body::from_stream(patch_events(body, compat)));
    }
    if content_type.starts_with("application/json") {
        let Ok(bytes) = axum::body::to_bytes(body, MAX_JSON_ANSWER).await else {
            return (
                StatusCode::INTERNAL_SERVER_ERROR,
                "the answer is too large to patch",
            )
                .into_response();
        };
        parts.headers.remove(header::CONTENT_LENGTH);
        return Response::from_parts(parts, Body::from(patch_json(&bytes, compat)));
    }
    Response::from_parts(parts, body)
}

/// A JSON-RPC answer with its result patched; unchanged when it is not one.
fn patch_json(bytes: &[u8], compat: &Compat) -> Bytes {
    let Ok(mut message) = serde_json::from_slice::<Value>(bytes) else {
        return Bytes::copy_from_slice(bytes);
    };
    match message.get_mut("result") {
        Some(result) => {
            compat.extras.patch_result(result);
            serde_json::to_vec(&message).map_or_else(|_| Bytes::copy_from_slice(bytes), Bytes::from)
        }
        None => Bytes::copy_from_slice(bytes),
    }
}

/// One SSE event (its lines, ending in a blank line) with each `data:` that
/// holds a JSON-RPC answer patched.
fn patch_event(event: &[u8], compat: &Compat) -> Bytes {
    let Ok(text) = std::str::from_utf8(event) else {
        return Bytes::copy_from_slice(event);
    };
    let mut out = String::with_capacity(text.len() + 64);
    for line in text.split_inclusive('\n') {
        let patched = line
            .strip_prefix("data:")
            .map(|data| data.trim())
            .filter(|data| data.starts_with('{'))
            .map(|data| patch_json(data.as_bytes(), compat));
        match patched.and_then(|p| String::from_utf8(p.to_vec()).ok()) {
            Some(json) => {
                out.push_str("data: ");
                out.push_str(&json);
                out.push('\n');
            }
            None => out.push_str(line),
        }
    }
    Bytes::from(out)
}

/// The SSE body, event by event, patched. Events are cut at blank lines, so
/// a chunk boundary inside an event does not matter.
fn patch_events(
    body: Body,
    compat: Compat,
) -> impl Stream<Item = Result<Bytes, axum::Error>> + Send {
    futures_util::stream::unfold(
        (body.into_data_stream(), Vec::<u8>::new(), false),
        move |(mut inner, mut buffer, done)| {
            let compat = compat.clone();
            async move {
                if done {
                    return None;
                }
                loop {
                    if let Some(end) = buffer.windows(2).position(|w| w == b"\n\n") {
                        let event: Vec<u8> = buffer.drain(..end + 2).collect();
                        return Some((Ok(patch_event(&event, &compat)), (inner, buffer, false)));
                    }
                    match inner.next().await {
                        Some(Ok(chunk)) => buffer.extend_from_slice(&chunk),
                        Some(Err(e)) => return Some((Err(e), (inner, buffer, true))),
                        None if buffer.is_empty() => return None,
                        None => {
                            let rest = std::mem::take(&mut buffer);
                            return Some((Ok(patch_event(&rest, &compat)), (inner, buffer, true)));
                        }
                    }
                }
            }
        },
    )
}

/// Gap 5: rmcp reads a `tools/call` whose `arguments` is not an object as
/// an unknown method; the client's mistake is in the params (-32602).
pub(in crate::server) fn arguments_not_an_object(peek: &Peek) -> Option<Response> {
    if peek.method.as_deref() != Some("tools/call") {
        return None;
    }
    let Some(Shape::Other(what)) = peek.params.as_ref()?.arguments else {
        return None;
    };
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": peek.id,
        "error": {"code": -32602, "message": format!("`arguments` must be an object, not {what}")},
    });
    Some(
        (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "application/json")],
            body.to_string(),
        )
            .into_response(),
    )
}

/// 413 with a JSON-RPC `Invalid Request` error: a body that would cost too
/// much to parse (see `parse_budget`), answered to its id when its head
/// names one.
pub(in crate::server) fn too_costly(id: Option<RequestId>, why: &str) -> Response {
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": -32600, "message": format!("Invalid Request: {why}")},
    });
    (
        StatusCode::PAYLOAD_TOO_LARGE,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

/// Gap 5: JSON-RPC's parse error for a body that is not JSON (code -32700,
/// `id` null, HTTP 400), where rmcp answers 415.
pub(in crate::server) fn parse_error(detail: &str) -> Response {
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {"code": -32700, "message": format!("Parse error: {detail}")},
    });
    (
        StatusCode::BAD_REQUEST,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_stateless_tools_list_is_patched_whatever_session_header_it_carries() {
        let entry = json!({"name": "job", "description": "d",
            "inputSchema": {"type": "object"}, "execution": {"taskSupport": "optional"}});
        let tool: rmcp::model::Tool = serde_json::from_value(entry.clone()).expect("a tool");
        let mut extras = super::super::ListExtras::default();
        extras.record(&entry, &tool);
        let compat = Compat {
            extras: std::sync::Arc::new(extras),
            #[cfg(all(feature = "tasks", feature = "sessions"))]
            tasks: true,
        };
        let list = |meta: serde_json::Value| -> Vec<Peek> {
            serde_json::from_value(json!([
                {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}}
            ]))
            .expect("peeks")
        };
        let modern = list(json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28"}));
        let session = list(json!({}));
        let mut with_session = HeaderMap::new();
        with_session.insert("mcp-session-id", "s".parse().expect("a header"));
        assert!(patches_answer(&compat, &HeaderMap::new(), &modern));
        assert!(patches_answer(&compat, &with_session, &modern));
        assert!(patches_answer(&compat, &HeaderMap::new(), &session));
        // A session's answer is patched by its transport. Without sessions
        // there is none: every answer is stateless (rmcp refuses this one,
        // which names no version, before it has an answer to patch).
        assert_eq!(
            patches_answer(&compat, &with_session, &session),
            !cfg!(feature = "sessions")
        );
    }
}
