//! What rmcp's types cannot say, on the HTTP wire (see `wire` and
//! `task_legacy`): `tools/list` answers get back the entry keys rmcp's `Tool`
//! drops, the `initialize` answer declares 2025-11-25's tasks, and
//! 2025-11-25's task requests are renamed before rmcp reads them. rmcp's
//! Streamable HTTP service serializes its own messages, so answers are
//! patched in the response body, as JSON or as the events of its SSE stream.
//! Only those requests and answers are touched; every other body passes
//! through as it is.

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
pub(super) struct WirePatch {
    pub(super) extras: Arc<ListExtras>,
    /// Whether some tool runs as a task (2025-11-25's requests rerouted, its
    /// capability declared).
    pub(super) legacy_tasks: bool,
    pub(super) max_body_bytes: usize,
}

/// The answers this layer patches.
#[derive(Clone, Copy)]
enum Answer {
    ToolsList,
    Initialize,
}

impl Answer {
    fn patch(self, result: &mut Value, patch: &WirePatch) {
        match self {
            Answer::ToolsList => patch.extras.patch_result(result),
            Answer::Initialize => super::task_legacy::patch_initialize(result),
        }
    }
}

/// The largest JSON answer patched in one piece; larger ones pass unpatched
/// rather than being held in memory.
const MAX_JSON_ANSWER: usize = 64 * 1024 * 1024;

pub(super) async fn patch_wire(
    State(patch): State<Arc<WirePatch>>,
    request: Request<Body>,
    next: Next,
) -> Response {
    if request.method() != Method::POST {
        return next.run(request).await;
    }
    let (mut parts, body) = request.into_parts();
    let Ok(mut bytes) = axum::body::to_bytes(body, patch.max_body_bytes).await else {
        return (
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("the request body exceeds {} bytes", patch.max_body_bytes),
        )
            .into_response();
    };
    // A 2026-07-28 request may leave its version out of `_meta` and give it
    // in the header only; it is never one of the old task requests.
    let modern = parts
        .headers
        .get("mcp-protocol-version")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim() >= "2026-07-28");
    if patch.legacy_tasks
        && !modern
        && let Some(renamed) = super::task_legacy::reroute(&bytes)
    {
        bytes = Bytes::from(renamed);
        parts
            .headers
            .insert(header::CONTENT_LENGTH, bytes.len().into());
    }
    let answer = answer_to(&parts.headers, &bytes, &patch);
    let response = next
        .run(Request::from_parts(parts, Body::from(bytes)))
        .await;
    let Some(answer) = answer else {
        return response;
    };
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
        return Response::from_parts(parts, Body::from_stream(patch_events(body, answer, patch)));
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
        return Response::from_parts(parts, Body::from(patch_json(&bytes, answer, &patch)));
    }
    Response::from_parts(parts, body)
}

/// Which answer the request asks for, when it is one to patch: `tools/list`,
/// or `initialize` (only 2025-11-25 and before have it) when there is a task
/// capability to add. The method is the `Mcp-Method` header's (2026-07-28)
/// or the body's (older sessions send no such header).
fn answer_to(headers: &axum::http::HeaderMap, body: &[u8], patch: &WirePatch) -> Option<Answer> {
    let wanted = |method: &[u8]| match method {
        b"tools/list" if !patch.extras.is_empty() => Some(Answer::ToolsList),
        b"initialize" if patch.legacy_tasks => Some(Answer::Initialize),
        _ => None,
    };
    if let Some(method) = headers.get("mcp-method") {
        return wanted(method.as_bytes());
    }
    // Cheap test first: most bodies are neither.
    let mentions = |word: &[u8]| body.windows(word.len()).any(|w| w == word);
    if !mentions(b"tools/list") && !mentions(b"initialize") {
        return None;
    }
    let message = serde_json::from_slice::<super::http::body::Peek>(body).ok()?;
    wanted(message.method?.as_bytes())
}

/// A JSON-RPC answer with its result patched; unchanged when it is not one.
fn patch_json(bytes: &[u8], answer: Answer, patch: &WirePatch) -> Bytes {
    let Ok(mut message) = serde_json::from_slice::<Value>(bytes) else {
        return Bytes::copy_from_slice(bytes);
    };
    match message.get_mut("result") {
        Some(result) => {
            answer.patch(result, patch);
            serde_json::to_vec(&message).map_or_else(|_| Bytes::copy_from_slice(bytes), Bytes::from)
        }
        None => Bytes::copy_from_slice(bytes),
    }
}

/// One SSE event (its lines, ending in a blank line) with each `data:` that
/// holds a JSON-RPC answer patched.
fn patch_event(event: &[u8], answer: Answer, patch: &WirePatch) -> Bytes {
    let Ok(text) = std::str::from_utf8(event) else {
        return Bytes::copy_from_slice(event);
    };
    let mut out = String::with_capacity(text.len() + 64);
    for line in text.split_inclusive('\n') {
        let patched = line
            .strip_prefix("data:")
            .map(|data| data.trim())
            .filter(|data| data.starts_with('{'))
            .map(|data| patch_json(data.as_bytes(), answer, patch));
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
    answer: Answer,
    patch: Arc<WirePatch>,
) -> impl futures_util::Stream<Item = Result<Bytes, axum::Error>> + Send {
    futures_util::stream::unfold(
        (body.into_data_stream(), Vec::<u8>::new(), false),
        move |(mut inner, mut buffer, done)| {
            let patch = patch.clone();
            async move {
                if done {
                    return None;
                }
                loop {
                    if let Some(end) = buffer.windows(2).position(|w| w == b"\n\n") {
                        let event: Vec<u8> = buffer.drain(..end + 2).collect();
                        return Some((
                            Ok(patch_event(&event, answer, &patch)),
                            (inner, buffer, false),
                        ));
                    }
                    match inner.next().await {
                        Some(Ok(chunk)) => buffer.extend_from_slice(&chunk),
                        Some(Err(e)) => return Some((Err(e), (inner, buffer, true))),
                        None if buffer.is_empty() => return None,
                        None => {
                            let rest = std::mem::take(&mut buffer);
                            return Some((
                                Ok(patch_event(&rest, answer, &patch)),
                                (inner, buffer, true),
                            ));
                        }
                    }
                }
            }
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn patch(legacy_tasks: bool) -> WirePatch {
        let entry = serde_json::json!({"name": "job", "description": "d",
            "inputSchema": {"type": "object"}, "execution": {"taskSupport": "optional"}});
        let tool: rmcp::model::Tool = serde_json::from_value(entry.clone()).expect("a tool");
        let mut extras = ListExtras::default();
        extras.record(&entry, &tool);
        WirePatch {
            extras: Arc::new(extras),
            legacy_tasks,
            max_body_bytes: 1024,
        }
    }

    fn kind(
        headers: &[(&'static str, &'static str)],
        body: &str,
        patch: &WirePatch,
    ) -> &'static str {
        let mut map = axum::http::HeaderMap::new();
        for (k, v) in headers {
            map.insert(*k, axum::http::HeaderValue::from_static(v));
        }
        match answer_to(&map, body.as_bytes(), patch) {
            Some(Answer::ToolsList) => "list",
            Some(Answer::Initialize) => "initialize",
            None => "none",
        }
    }

    #[test]
    fn the_answers_to_patch_are_found_by_header_or_by_body() {
        let tasks = patch(true);
        let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"tools/list"}}}"#;
        assert_eq!(kind(&[], init, &tasks), "initialize");
        assert_eq!(
            kind(&[("mcp-method", "initialize")], init, &tasks),
            "initialize"
        );
        assert_eq!(kind(&[], init, &patch(false)), "none");
        let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
        assert_eq!(kind(&[], list, &tasks), "list");
        assert_eq!(kind(&[("mcp-method", "tools/list")], "{}", &tasks), "list");
        let call =
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"initialize"}}"#;
        assert_eq!(kind(&[], call, &tasks), "none");
        assert_eq!(kind(&[("mcp-method", "tools/call")], call, &tasks), "none");
    }
}
