//! Reading a request body before rmcp does: within a time limit (a client
//! that sends half a body no longer holds the connection and its buffer
//! forever) and within the size limit. The body is parsed here once, into a
//! [`Peek`] of each message, which the scope check and `compat` read instead
//! of parsing it again (`compat` also refuses here what rmcp answers wrongly:
//! invalid JSON, and arguments that are not an object).

use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{Request, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;
use futures_util::future::Either;
use hyper::rt::Timer;

use super::coarse_timer::CoarseTimer;
use crate::server::compat;
use crate::server::peek::{OneOrMany, Peek};
use crate::server::policy::parse_budget;

/// How much of a refused body is read for its request id.
const HEAD: usize = 4096;

/// The body of `request`, read, and the request rebuilt around it, with a
/// [`Peek`] of each JSON-RPC message in it; or the response that refuses it.
pub(super) async fn buffered(
    request: Request<Body>,
    max_bytes: usize,
    timeout: Duration,
    timer: &CoarseTimer,
) -> Result<(Request<Body>, Vec<Peek>), Response> {
    let (parts, body) = request.into_parts();
    let expected = parts
        .headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(0);
    let mut reading = std::pin::pin!(read(body, max_bytes, expected));
    // A body already handed over is read without a timer. hyper hands one
    // over only once it is asked for, so nearly every request waits here
    // once: on the coarse timer, whose sleeps cost a lock, not an entry in
    // the runtime's timer wheel.
    let outcome = match futures_util::poll!(reading.as_mut()) {
        std::task::Poll::Ready(read) => Some(read),
        std::task::Poll::Pending => {
            match futures_util::future::select(reading, timer.sleep(timeout)).await {
                Either::Left((read, _)) => Some(read),
                Either::Right(_) => None,
            }
        }
    };
    let bytes = match outcome {
        None => {
            return Err((
                StatusCode::REQUEST_TIMEOUT,
                format!("the request body did not arrive within {timeout:?}"),
            )
                .into_response());
        }
        Some(Err(_)) => {
            // Reading fails on the limit or on a broken connection; the
            // limit is the one a client can act on.
            return Err((
                StatusCode::PAYLOAD_TOO_LARGE,
                format!("the request body exceeds {max_bytes} bytes or was cut off"),
            )
                .into_response());
        }
        Some(Ok(bytes)) => bytes,
    };
    let json = parts
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.split(';')
                .next()
                .is_some_and(|e| e.trim().eq_ignore_ascii_case("application/json"))
        });
    let mut messages = Vec::new();
    if json {
        // Counted before anything parses it: a body of tiny values would
        // cost a hundred times its size once parsed.
        if let Some(why) = parse_budget::count(&bytes).excess(bytes.len()) {
            let head = &bytes[..bytes.len().min(HEAD)];
            return Err(compat::http::too_costly(
                parse_budget::request_id(head),
                &why,
            ));
        }
        messages = match serde_json::from_slice::<OneOrMany>(&bytes) {
            Ok(OneOrMany::One(message)) => vec![message],
            Ok(OneOrMany::Many(batch)) => batch,
            // Not a message nor a batch of them; the parse error, if it is
            // not JSON at all, and rmcp's own answer otherwise.
            Err(_) => {
                if let Err(e) = serde_json::from_slice::<serde::de::IgnoredAny>(&bytes) {
                    return Err(compat::http::parse_error(&e.to_string()));
                }
                Vec::new()
            }
        };
        if let Some(refused) = messages
            .iter()
            .find_map(compat::http::arguments_not_an_object)
        {
            return Err(refused);
        }
    }
    Ok((Request::from_parts(parts, Body::from(bytes)), messages))
}

/// The whole body, at most `max` bytes, read into one buffer (collecting the
/// pieces first and joining them after held the body twice). The buffer
/// takes the size the client announced only once a quarter of it has
/// arrived: a client that announces 16 MiB and sends nothing holds 64 KiB.
async fn read(body: Body, max: usize, expected: usize) -> Result<Bytes, axum::Error> {
    const FIRST: usize = 64 * 1024;
    let expected = expected.min(max);
    let mut pieces = body.into_data_stream();
    let mut whole = Vec::with_capacity(expected.min(FIRST));
    while let Some(piece) = pieces.next().await {
        let piece = piece?;
        if whole.len() + piece.len() > max {
            return Err(axum::Error::new("the body is over the limit"));
        }
        let len = whole.len() + piece.len();
        if len >= expected / 4 && whole.capacity() < expected {
            whole.reserve_exact(expected.max(len) - whole.len());
        }
        whole.extend_from_slice(&piece);
    }
    Ok(Bytes::from(whole))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A timer as the server's, for a body deadline of 100 ms or more.
    fn timer() -> CoarseTimer {
        CoarseTimer::within(Duration::from_millis(100))
    }

    /// A refusal's JSON-RPC answer.
    async fn answer_json(refused: Response) -> serde_json::Value {
        let body = axum::body::to_bytes(refused.into_body(), 10_000)
            .await
            .expect("body");
        serde_json::from_slice(&body).expect("JSON")
    }

    fn post(body: &'static str) -> Request<Body> {
        Request::post("/mcp")
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(body))
            .expect("request")
    }

    #[tokio::test]
    async fn invalid_json_is_a_parse_error() {
        let refused = buffered(post("{not json"), 100, Duration::from_secs(1), &timer())
            .await
            .expect_err("refused");
        assert_eq!(refused.status(), StatusCode::BAD_REQUEST);
        let value = answer_json(refused).await;
        assert_eq!(value["error"]["code"], -32700);
        assert_eq!(value["id"], serde_json::Value::Null);
    }

    #[tokio::test]
    async fn arguments_that_are_not_an_object_are_invalid_params() {
        for (arguments, what) in [
            ("[\"x\"]", "an array"),
            ("\"x\"", "a string"),
            ("3", "a number"),
        ] {
            let body = format!(
                r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"t","arguments":{arguments}}}}}"#
            );
            let request = Request::post("/mcp")
                .header(header::CONTENT_TYPE, "application/json")
                .body(Body::from(body))
                .expect("request");
            let refused = buffered(request, 1000, Duration::from_secs(1), &timer())
                .await
                .expect_err("refused");
            let value = answer_json(refused).await;
            assert_eq!(value["error"]["code"], -32602, "{arguments}");
            assert_eq!(value["id"], 7);
            assert_eq!(
                value["error"]["message"],
                format!("`arguments` must be an object, not {what}")
            );
        }
        let fine = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t","arguments":{"a":[1]}}}"#;
        assert!(
            buffered(post(fine), 1000, Duration::from_secs(1), &timer())
                .await
                .is_ok()
        );
    }

    /// A batch's messages are objects: an array in a batch is no message
    /// (a derived struct would read it as its fields in order), and the
    /// body goes to rmcp unread, which refuses it.
    #[tokio::test]
    async fn an_array_in_a_batch_is_not_read_as_a_message() {
        let body = r#"[["x","tools/call",{"name":"read_file","arguments":"no"}]]"#;
        let (_, messages) = buffered(post(body), 1000, Duration::from_secs(1), &timer())
            .await
            .expect("passed on to rmcp");
        assert!(messages.is_empty());
        let batch = r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"}]"#;
        let (_, messages) = buffered(post(batch), 1000, Duration::from_secs(1), &timer())
            .await
            .expect("read");
        let methods: Vec<_> = messages.iter().map(|m| m.method.as_deref()).collect();
        assert_eq!(methods, [Some("ping"), Some("notifications/initialized")]);
    }

    /// rmcp reads `_meta` as a map of anything: a protocol version that is no
    /// string does not make the peek fail, so the checks still see the call
    /// (a message the peek cannot read skips them).
    #[tokio::test]
    async fn a_version_that_is_no_string_still_lets_the_call_be_checked() {
        let body = r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"t","arguments":"no","_meta":{"io.modelcontextprotocol/protocolVersion":5}}}"#;
        let refused = buffered(post(body), 1000, Duration::from_secs(1), &timer())
            .await
            .expect_err("refused");
        let value = answer_json(refused).await;
        assert_eq!(value["error"]["code"], -32602);
        assert_eq!(value["id"], 6);
    }

    #[tokio::test]
    async fn a_body_of_tiny_values_is_refused_before_it_is_parsed() {
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{{"name":"t","arguments":{{"a":[{}0]}}}}}}"#,
            "0,".repeat(200_000)
        );
        let request = Request::post("/mcp")
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(body))
            .expect("request");
        let refused = buffered(request, 1 << 20, Duration::from_secs(1), &timer())
            .await
            .expect_err("refused");
        assert_eq!(refused.status(), StatusCode::PAYLOAD_TOO_LARGE);
        let value = answer_json(refused).await;
        assert_eq!(value["id"], "x");
        assert_eq!(value["error"]["code"], -32600);
        let message = value["error"]["message"].as_str().expect("message");
        assert!(message.contains("JSON values in"), "{message}");
    }

    #[tokio::test]
    async fn bodies_over_the_limit_or_late_are_refused() {
        let refused = buffered(
            post("[1,2,3,4,5,6,7,8,9]"),
            5,
            Duration::from_secs(1),
            &timer(),
        )
        .await
        .expect_err("refused");
        assert_eq!(refused.status(), StatusCode::PAYLOAD_TOO_LARGE);
        let (_tx, rx) = tokio::sync::mpsc::channel::<Result<axum::body::Bytes, std::io::Error>>(1);
        let stalled = Request::post("/mcp")
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from_stream(tokio_stream_of(rx)))
            .expect("request");
        let refused = buffered(stalled, 100, Duration::from_millis(100), &timer())
            .await
            .expect_err("refused");
        assert_eq!(refused.status(), StatusCode::REQUEST_TIMEOUT);
        let (passed, _) = buffered(post("{\"a\": 1}"), 100, Duration::from_secs(1), &timer())
            .await
            .expect("accepted");
        let body = axum::body::to_bytes(passed.into_body(), 100)
            .await
            .expect("body");
        assert_eq!(&body[..], b"{\"a\": 1}");
    }

    /// A stream of the channel's items, without a stream crate.
    fn tokio_stream_of(
        mut rx: tokio::sync::mpsc::Receiver<Result<axum::body::Bytes, std::io::Error>>,
    ) -> impl futures_core::Stream<Item = Result<axum::body::Bytes, std::io::Error>> {
        struct Of<T>(tokio::sync::mpsc::Receiver<T>);
        impl<T> futures_core::Stream for Of<T> {
            type Item = T;
            fn poll_next(
                mut self: std::pin::Pin<&mut Self>,
                cx: &mut std::task::Context<'_>,
            ) -> std::task::Poll<Option<T>> {
                self.0.poll_recv(cx)
            }
        }
        let _ = &mut rx;
        Of(rx)
    }
}
