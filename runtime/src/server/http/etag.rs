//! HTTP caching of a 2026-07-28 `tools/list`: the answer's tag (a
//! fingerprint of the tools listed, `catalog::list_tag`) becomes its weak
//! `ETag`, and a request whose `If-None-Match` names it gets `304 Not
//! Modified` without the list (on a POST, where RFC 9110 has no 304, as a
//! cache validator the protocol's clients may use; a client that sends no
//! `If-None-Match` sees none). Every instance serving the same catalog gives the same
//! tag, so a client's cached list stays valid behind a load balancer, and a
//! changed catalog gets a new one.

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;

use crate::server::catalog::LIST_TAG_META;
use crate::server::generation::Generation;
use crate::server::peek::Peek;

/// The largest answer read for its tag; a larger one is refused (no list
/// of tools comes near it).
const MAX_ANSWER: usize = 64 * 1024 * 1024;

/// The request's `If-None-Match`, when it is a lone 2026-07-28 `tools/list`
/// (whose answer is tagged), and `Some(None)` for one without the header.
pub(super) fn wanted(headers: &HeaderMap, messages: &[Peek]) -> Option<Option<HeaderValue>> {
    let [one] = messages else {
        return None;
    };
    (one.method.as_deref() == Some("tools/list") && one.generation() == Generation::Stateless).then(
        || {
            // Several header lines are one list (RFC 9110 §5.3).
            let lines: Vec<&str> = headers
                .get_all(header::IF_NONE_MATCH)
                .iter()
                .filter_map(|v| v.to_str().ok())
                .collect();
            (!lines.is_empty())
                .then(|| HeaderValue::from_str(&lines.join(", ")).ok())
                .flatten()
        },
    )
}

/// `response` with its `ETag`, or `304` when `if_none_match` names it. A
/// stateless answer is JSON or an event stream of the one answer: its
/// frames are read up to the one that holds the tag (rmcp writes a JSON
/// answer, and each event, as one frame), and the rest streams through.
/// Read whole, 64 lists of 200 tools in flight held 10 MB more.
pub(super) async fn tagged(response: Response, if_none_match: Option<HeaderValue>) -> Response {
    let content_type = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_ascii_lowercase();
    let readable = content_type.starts_with("application/json")
        || content_type.starts_with("text/event-stream");
    if !response.status().is_success() || !readable {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    // Fused: when the body ends before a tag, what is sent on polls it again,
    // and a body may panic when polled after its end (`stream::unfold` does).
    let mut rest = body.into_data_stream().fuse();
    let mut head: Vec<Bytes> = Vec::new();
    let mut read = 0;
    let mut tag = None;
    while tag.is_none() {
        let frame = match rest.next().await {
            Some(Ok(frame)) => frame,
            Some(Err(_)) => {
                return (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "the answer could not be read",
                )
                    .into_response();
            }
            None => {
                // An answer split over frames is read whole, as a last resort.
                if head.len() > 1 {
                    tag = answer_tag(&head.concat());
                }
                break;
            }
        };
        read += frame.len();
        if read > MAX_ANSWER {
            return (
                StatusCode::INTERNAL_SERVER_ERROR,
                "the answer is too large to tag",
            )
                .into_response();
        }
        tag = answer_tag(&frame);
        head.push(frame);
    }
    let body = || {
        let head = futures_util::stream::iter(head.into_iter().map(Ok::<Bytes, axum::Error>));
        Body::from_stream(head.chain(rest))
    };
    // Weak: the same list under another JSON-RPC id is other bytes.
    let Some(etag) = tag.and_then(|t| HeaderValue::from_str(&format!("W/\"{t}\"")).ok()) else {
        return Response::from_parts(parts, body());
    };
    let matches = if_none_match
        .as_ref()
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| names(v, etag.to_str().unwrap_or_default()));
    parts.headers.insert(header::ETAG, etag);
    if matches {
        parts.status = StatusCode::NOT_MODIFIED;
        parts.headers.remove(header::CONTENT_LENGTH);
        parts.headers.remove(header::CONTENT_TYPE);
        return Response::from_parts(parts, Body::empty());
    }
    Response::from_parts(parts, body())
}

/// The tag in the JSON-RPC answer of a body (JSON, or the first `data:` of
/// an event stream), at `result._meta`. Only `_meta` is kept: the list
/// beside it (130 KB at 200 tools) is skipped, not built into a `Value`,
/// which cost more than the whole `tools/list` had before.
fn answer_tag(bytes: &[u8]) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Answer {
        result: Option<Tagged>,
    }
    #[derive(serde::Deserialize)]
    struct Tagged {
        #[serde(rename = "_meta")]
        meta: Option<serde_json::Map<String, serde_json::Value>>,
    }
    let text = std::str::from_utf8(bytes).ok()?;
    let json = text
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .map(str::trim)
        .find(|d| d.starts_with('{'))
        .unwrap_or(text.trim());
    let answer: Answer = serde_json::from_str(json).ok()?;
    match answer.result?.meta?.remove(LIST_TAG_META)? {
        serde_json::Value::String(tag) => Some(tag),
        _ => None,
    }
}

/// Whether an `If-None-Match` list names `etag` (weak comparison, as RFC
/// 9110 says for it), or is `*`.
pub(super) fn names(if_none_match: &str, etag: &str) -> bool {
    let etag = etag.trim_start_matches("W/");
    if_none_match.trim() == "*"
        || if_none_match
            .split(',')
            .map(|t| t.trim().trim_start_matches("W/"))
            .any(|t| t == etag)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn if_none_match_lists_are_read_as_rfc_9110_says() {
        let tag = "W/\"sha256:ab\"";
        assert!(names("\"sha256:ab\"", tag));
        assert!(names("\"x\", W/\"sha256:ab\"", tag));
        assert!(names(" * ", tag));
        assert!(!names("\"sha256:abc\"", tag));
        assert!(!names("sha256:ab", tag));
    }

    #[test]
    fn the_answer_is_read_from_json_or_an_event_stream() {
        let json =
            br#"{"id":1,"result":{"_meta":{"io.toolmetadata/etag":"sha256:fc"},"tools":[]}}"#;
        let mut sse = b"data: ".to_vec();
        sse.extend_from_slice(json);
        sse.extend_from_slice(b"\n\n");
        for body in [&json[..], &sse[..]] {
            assert_eq!(answer_tag(body).as_deref(), Some("sha256:fc"));
        }
    }

    /// An event stream of `frames`, as rmcp's stateless answer is; like
    /// `compat::http`'s patched answers, it panics when polled after its end.
    fn streamed(frames: &[&'static str]) -> Response {
        let frames: Vec<Bytes> = frames
            .iter()
            .map(|f| Bytes::from_static(f.as_bytes()))
            .collect();
        let stream = futures_util::stream::unfold(frames.into_iter(), |mut frames| async move {
            let frame = frames.next()?;
            Some((Ok::<Bytes, std::io::Error>(frame), frames))
        });
        Response::builder()
            .header(header::CONTENT_TYPE, "text/event-stream")
            .body(Body::from_stream(stream))
            .expect("a response")
    }

    #[tokio::test]
    async fn an_answer_without_a_tag_is_sent_as_it_came() {
        let frames = [
            r#"data: {"id":1,"error":{"code":-32603,"message":"no"}}"#,
            "\n\n",
        ];
        let response = tagged(streamed(&frames), None).await;
        assert!(response.headers().get(header::ETAG).is_none());
        let body = axum::body::to_bytes(response.into_body(), 1 << 20)
            .await
            .expect("the body");
        assert_eq!(body, frames.concat().as_bytes());
    }

    #[tokio::test]
    async fn the_tag_is_found_past_a_priming_event_and_across_frames_and_the_body_is_kept() {
        let answer =
            r#"data: {"id":1,"result":{"_meta":{"io.toolmetadata/etag":"sha256:fc"},"tools":[]}}"#;
        let (first, second) = answer.split_at(40);
        for frames in [
            vec!["id: 0\ndata:\n\n", answer, "\n\n"],
            vec![first, second, "\n\n"],
        ] {
            let response = tagged(streamed(&frames), None).await;
            assert_eq!(response.headers()[header::ETAG], "W/\"sha256:fc\"");
            let body = axum::body::to_bytes(response.into_body(), 1 << 20)
                .await
                .expect("the body");
            assert_eq!(body, frames.concat().as_bytes());
        }
        let hit = tagged(
            streamed(&[answer, "\n\n"]),
            Some(HeaderValue::from_static("W/\"sha256:fc\"")),
        )
        .await;
        assert_eq!(hit.status(), StatusCode::NOT_MODIFIED);
    }

    #[test]
    fn an_answer_without_a_tag_has_none() {
        for body in [
            &br#"{"id":1,"result":{"tools":[{"name":"a","_meta":{"io.toolmetadata/etag":"x"}}]}}"#
                [..],
            br#"{"id":1,"result":{"_meta":{"io.toolmetadata/etag":7},"tools":[]}}"#,
            br#"{"id":1,"error":{"code":-32600,"message":"no"}}"#,
            br#"{"id":1,"result":{"_meta":{"io.toolmetadata/etag":"x"}"#,
            b"data: not json\n\n",
        ] {
            assert_eq!(answer_tag(body), None, "{}", String::from_utf8_lossy(body));
        }
    }
}
