//! Over HTTP, `tools/list` answers with the entry keys rmcp's `Tool` drops put
//! back (see `wire`): rmcp's Streamable HTTP service serializes its own
//! messages, so the answer is patched in the response body, as JSON or as the
//! events of its SSE stream. Only the answers to `tools/list` requests are
//! touched; every other body passes through as it is.

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{Method, Request, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;
use serde_json::Value;

use super::wire::ListExtras;

/// What the patching layer needs.
pub(super) struct ListPatch {
    pub(super) extras: Arc<ListExtras>,
    pub(super) max_body_bytes: usize,
}

/// The largest JSON answer patched in one piece; larger ones pass unpatched
/// rather than being held in memory.
const MAX_JSON_ANSWER: usize = 64 * 1024 * 1024;

pub(super) async fn patch_tools_list(
    State(patch): State<Arc<ListPatch>>,
    request: Request<Body>,
    next: Next,
) -> Response {
    if request.method() != Method::POST {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, patch.max_body_bytes).await else {
        return (
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("the request body exceeds {} bytes", patch.max_body_bytes),
        )
            .into_response();
    };
    let is_list = is_tools_list(&parts.headers, &bytes);
    let response = next
        .run(Request::from_parts(parts, Body::from(bytes)))
        .await;
    if !is_list || !response.status().is_success() {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let content_type = parts
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_ascii_lowercase();
    let extras = patch.extras.clone();
    if content_type.starts_with("text/event-stream") {
        parts.headers.remove(header::CONTENT_LENGTH);
        return Response::from_parts(parts, Body::from_stream(patch_events(body, extras)));
    }
    if content_type.starts_with("application/json") {
        let Ok(bytes) = axum::body::to_bytes(body, MAX_JSON_ANSWER).await else {
            return (
                StatusCode::INTERNAL_SERVER_ERROR,
                "the tools/list answer is too large",
            )
                .into_response();
        };
        parts.headers.remove(header::CONTENT_LENGTH);
        return Response::from_parts(parts, Body::from(patch_json(&bytes, &extras)));
    }
    Response::from_parts(parts, body)
}

/// A `tools/list` request: by its `Mcp-Method` header (2026-07-28), or its
/// body (older sessions send no such header).
fn is_tools_list(headers: &axum::http::HeaderMap, body: &[u8]) -> bool {
    if let Some(method) = headers.get("mcp-method") {
        return method.as_bytes() == b"tools/list";
    }
    // Cheap test first: most bodies are not a list request.
    body.windows(b"tools/list".len())
        .any(|w| w == b"tools/list")
        && serde_json::from_slice::<Value>(body)
            .is_ok_and(|v| v.get("method").and_then(Value::as_str) == Some("tools/list"))
}

/// A JSON-RPC answer with its result patched; unchanged when it is not one.
fn patch_json(bytes: &[u8], extras: &ListExtras) -> Bytes {
    let Ok(mut message) = serde_json::from_slice::<Value>(bytes) else {
        return Bytes::copy_from_slice(bytes);
    };
    match message.get_mut("result") {
        Some(result) => {
            extras.patch_result(result);
            serde_json::to_vec(&message).map_or_else(|_| Bytes::copy_from_slice(bytes), Bytes::from)
        }
        None => Bytes::copy_from_slice(bytes),
    }
}

/// One SSE event (its lines, ending in a blank line) with each `data:` that
/// holds a JSON-RPC answer patched.
fn patch_event(event: &[u8], extras: &ListExtras) -> Bytes {
    let Ok(text) = std::str::from_utf8(event) else {
        return Bytes::copy_from_slice(event);
    };
    let mut out = String::with_capacity(text.len() + 64);
    for line in text.split_inclusive('\n') {
        let patched = line
            .strip_prefix("data:")
            .map(|data| data.trim())
            .filter(|data| data.starts_with('{'))
            .map(|data| patch_json(data.as_bytes(), extras));
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
    extras: Arc<ListExtras>,
) -> impl futures_util::Stream<Item = Result<Bytes, axum::Error>> + Send {
    futures_util::stream::unfold(
        (body.into_data_stream(), Vec::<u8>::new(), false),
        move |(mut inner, mut buffer, done)| {
            let extras = extras.clone();
            async move {
                if done {
                    return None;
                }
                loop {
                    if let Some(end) = buffer.windows(2).position(|w| w == b"\n\n") {
                        let event: Vec<u8> = buffer.drain(..end + 2).collect();
                        return Some((Ok(patch_event(&event, &extras)), (inner, buffer, false)));
                    }
                    match inner.next().await {
                        Some(Ok(chunk)) => buffer.extend_from_slice(&chunk),
                        Some(Err(e)) => return Some((Err(e), (inner, buffer, true))),
                        None if buffer.is_empty() => return None,
                        None => {
                            let rest = std::mem::take(&mut buffer);
                            return Some((Ok(patch_event(&rest, &extras)), (inner, buffer, true)));
                        }
                    }
                }
            }
        },
    )
}
