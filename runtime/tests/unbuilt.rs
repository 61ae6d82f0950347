//! A server of plain tools built without `tasks`, `ask`, `subscriptions`,
//! `resources` and `prompts`, attacked with the requests of those features as a hostile or
//! confused client sends them: each is refused with an error (or, for what
//! a plain call may carry, ignored), none hangs or stops the server, and a
//! flood of them leaves it answering. Runs only without those features; with
//! `sessions` on a 2025-11-25 session, without it as 2026-07-28 requests.
#![cfg(not(any(
    feature = "tasks",
    feature = "ask",
    feature = "subscriptions",
    feature = "resources",
    feature = "prompts"
)))]

use std::time::Duration;

use rmcp::ServiceExt;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use toolmetadata::ToolMetadata;
use toolmetadata::server::Server;

/// A raw JSON-RPC peer of the server, over an in-memory stream.
struct Raw {
    write: tokio::io::WriteHalf<tokio::io::DuplexStream>,
    lines: tokio::io::Lines<BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
    /// Responses read while waiting for another: calls run concurrently,
    /// so they come in any order.
    early: std::collections::HashMap<String, Value>,
    /// The `_meta` each request carries (2026-07-28's), if any.
    meta: Option<Value>,
}

/// The `_meta` of a 2026-07-28 request: its version, client and
/// capabilities (all a client can answer), as there is no session.
fn meta_2026() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {
            "elicitation": {}, "sampling": {}, "roots": {}},
        "io.modelcontextprotocol/clientInfo": {"name": "hostile", "version": "0"}
    })
}

impl Raw {
    async fn send(&mut self, message: Value) {
        let line = format!("{message}\n");
        self.write.write_all(line.as_bytes()).await.expect("write");
    }

    /// The response to request `id`, within 10 s (notifications skipped).
    async fn answer(&mut self, id: u64) -> Value {
        if let Some(early) = self.early.remove(&id.to_string()) {
            return early;
        }
        loop {
            let line = tokio::time::timeout(Duration::from_secs(10), self.lines.next_line())
                .await
                .expect("an answer within 10 s")
                .expect("read")
                .expect("the server is still there");
            let message: Value = serde_json::from_str(&line).expect("JSON");
            if message["id"] == id {
                return message;
            }
            if message.get("method").is_none() {
                self.early.insert(message["id"].to_string(), message);
            }
        }
    }

    async fn request(&mut self, id: u64, method: &str, mut params: Value) -> Value {
        if let (Some(meta), Some(params)) = (&self.meta, params.as_object_mut()) {
            params.entry("_meta").or_insert_with(|| meta.clone());
        }
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        self.answer(id).await
    }
}

/// A server of one plain tool.
fn plain() -> Server {
    let tool = ToolMetadata {
        name: "echo".into(),
        description: "Says what it is given".into(),
        ..ToolMetadata::default()
    };
    Server::builder()
        .tool(tool, |_, _| async { Ok("plain") })
        .build()
        .expect("server")
}

/// A raw peer of a server of one plain tool, nothing said yet.
fn connect() -> Raw {
    connect_to(plain())
}

/// A raw peer of `server`, nothing said yet.
fn connect_to<S: rmcp::ServerHandler>(server: S) -> Raw {
    let (ours, theirs) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(theirs).await {
            let _ = running.waiting().await;
        }
    });
    let (read, write) = tokio::io::split(ours);
    Raw {
        write,
        lines: BufReader::new(read).lines(),
        early: Default::default(),
        meta: None,
    }
}

/// [`connect`], and a 2025-11-25 session opened.
#[cfg(feature = "sessions")]
async fn start() -> Raw {
    let mut raw = connect();
    let init = raw
        .request(
            0,
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {
                "tasks": {}, "elicitation": {}, "sampling": {}, "roots": {}},
                "clientInfo": {"name": "hostile", "version": "0"}}),
        )
        .await;
    let capabilities = &init["result"]["capabilities"];
    // Nothing of what was left out is declared.
    for absent in ["resources", "prompts", "completions", "tasks"] {
        assert!(capabilities.get(absent).is_none(), "{absent}: {init}");
    }
    // Its tools never change: no list to hear of.
    assert!(capabilities["tools"].get("listChanged").is_none(), "{init}");
    raw.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    raw
}

/// [`connect`] as a 2026-07-28 client: no session, each request carrying
/// its `_meta`, the server's capabilities read with `server/discover`.
#[cfg(not(feature = "sessions"))]
async fn start() -> Raw {
    let mut raw = connect();
    raw.meta = Some(meta_2026());
    let discovered = raw.request(0, "server/discover", json!({})).await;
    let capabilities = &discovered["result"]["capabilities"];
    assert!(capabilities.get("tools").is_some(), "{discovered}");
    for absent in ["resources", "prompts", "completions", "tasks"] {
        assert!(capabilities.get(absent).is_none(), "{absent}: {discovered}");
    }
    assert!(
        capabilities["tools"].get("listChanged").is_none(),
        "{discovered}"
    );
    raw
}

#[tokio::test]
async fn the_requests_of_features_left_out_are_refused_and_the_server_goes_on() {
    let mut raw = start().await;
    let refused = [
        ("tasks/get", json!({"taskId": "t-1"})),
        ("tasks/result", json!({"taskId": "t-1"})),
        ("tasks/cancel", json!({"taskId": "t-1"})),
        ("tasks/list", json!({})),
        ("resources/read", json!({"uri": "file:///etc/passwd"})),
        ("resources/subscribe", json!({"uri": "file:///etc/passwd"})),
        ("resources/templates/list", json!({})),
        ("prompts/list", json!({})),
        ("prompts/get", json!({"name": "anything"})),
        (
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": "anything"},
                "argument": {"name": "a", "value": "b"}}),
        ),
    ];
    for (i, (method, params)) in refused.iter().enumerate() {
        let answer = raw.request(10 + i as u64, method, params.clone()).await;
        assert!(answer.get("error").is_some(), "{method}: {answer}");
    }
    // What a plain call may carry of those features is ignored: a task
    // asked for, a forged requestState and answers to nothing.
    let answer = raw
        .request(
            50,
            "tools/call",
            json!({"name": "echo", "arguments": {}, "task": {"ttl": 1000},
                "requestState": "forged", "inputResponses": {"q": {"action": "accept"}}}),
        )
        .await;
    assert_eq!(answer["result"]["content"][0]["text"], "plain", "{answer}");
    // A flood of them, written before any answer is read: each answered.
    for id in 100..400u64 {
        raw.send(json!({"jsonrpc": "2.0", "id": id, "method": "tasks/get",
            "params": {"taskId": "x".repeat(10_000)}}))
            .await;
    }
    for id in 100..400u64 {
        assert!(raw.answer(id).await.get("error").is_some());
    }
    // (2026-07-28 has no `ping`: a list shows the server still there.)
    let listed = raw.request(500, "tools/list", json!({})).await;
    assert_eq!(listed["result"]["tools"][0]["name"], "echo", "{listed}");
}

/// A 2026-07-28 client's `subscriptions/listen` (no session: the protocol
/// version in the request's `_meta`), for the tools' list and a resource:
/// refused as a method this server does not serve, at once, and the server
/// goes on.
#[tokio::test]
async fn a_listen_stream_is_refused_by_a_server_with_nothing_to_tell() {
    let mut raw = connect();
    let meta = meta_2026();
    let answer = raw
        .request(
            1,
            "subscriptions/listen",
            json!({"_meta": meta, "notifications": {
                "toolsListChanged": true, "resourceSubscriptions": ["file:///etc/passwd"]}}),
        )
        .await;
    assert_eq!(answer["error"]["code"], -32601, "{answer}");
    let listed = raw.request(2, "tools/list", json!({"_meta": meta})).await;
    assert_eq!(listed["result"]["tools"][0]["name"], "echo", "{listed}");
}

/// The same refusal under a flood, written before any answer is read: 200
/// listens each naming 1,000 URIs, then calls of tools by names no tool
/// has (empty, 100 KB long, a NUL, one past the last tool's), each answered
/// with an error, and the one tool still called.
#[tokio::test]
async fn a_flood_of_listens_and_unknown_names_is_answered_one_by_one() {
    let mut raw = connect();
    let meta = meta_2026();
    let uris: Vec<String> = (0..1_000).map(|i| format!("file:///{i}")).collect();
    for id in 1..=200u64 {
        raw.send(
            json!({"jsonrpc": "2.0", "id": id, "method": "subscriptions/listen",
            "params": {"_meta": meta, "notifications": {"toolsListChanged": true,
                "resourceSubscriptions": uris}}}),
        )
        .await;
    }
    for id in 1..=200u64 {
        assert_eq!(raw.answer(id).await["error"]["code"], -32601);
    }
    let names = [
        String::new(),
        "e".repeat(100_000),
        "ec\0ho".into(),
        "echp".into(),
    ];
    for (i, name) in names.iter().enumerate() {
        let id = 300 + i as u64;
        let answer = raw
            .request(
                id,
                "tools/call",
                json!({"_meta": meta, "name": name, "arguments": {}}),
            )
            .await;
        let refused = answer.get("error").is_some() || answer["result"]["isError"] == true;
        assert!(refused, "{}: {answer}", name.len());
    }
    let answer = raw
        .request(
            400,
            "tools/call",
            json!({"_meta": meta, "name": "echo", "arguments": {}}),
        )
        .await;
    assert_eq!(answer["result"]["content"][0]["text"], "plain", "{answer}");
}

/// An `initialize` (2025-11-25 or older), as a server without the feature
/// `sessions` answers it: refused with the versions it serves, naming the
/// feature.
#[cfg(not(feature = "sessions"))]
fn assert_initialize_refused(answer: &Value) {
    assert_eq!(answer["error"]["code"], -32022, "{answer}");
    assert_eq!(answer["error"]["data"]["supported"], json!(["2026-07-28"]));
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("`sessions`"), "{message}");
}

/// The `initialize` params of a client of `version`.
#[cfg(not(feature = "sessions"))]
fn initialize(version: &str) -> Value {
    json!({"protocolVersion": version, "capabilities": {},
        "clientInfo": {"name": "old", "version": "0"}})
}

/// Without sessions, a client that opens one is refused at its first
/// message, whatever version it asks for (stdio is its one connection: the
/// server ends it, as rmcp does any failed `initialize`).
#[cfg(not(feature = "sessions"))]
#[tokio::test]
async fn a_session_is_refused_by_a_server_without_sessions() {
    for version in ["2025-11-25", "2024-11-05", "2026-07-28", "9999-01-01", ""] {
        let mut raw = connect();
        let answer = raw.request(1, "initialize", initialize(version)).await;
        assert_initialize_refused(&answer);
    }
}

/// Without sessions, what is not a 2026-07-28 request is refused one by one
/// and the server goes on: no version in `_meta`, an old one, an
/// `initialize` after the first 2026-07-28 request, a `ping`, a
/// `logging/setLevel`, a `notifications/initialized` out of nowhere; then
/// the tool is called.
#[cfg(not(feature = "sessions"))]
#[tokio::test]
async fn old_requests_are_refused_one_by_one_and_the_server_goes_on() {
    let mut raw = connect();
    let no_version = raw.request(1, "tools/list", json!({})).await;
    assert_eq!(no_version["error"]["code"], -32602, "{no_version}");
    let mut old = meta_2026();
    old["io.modelcontextprotocol/protocolVersion"] = json!("2025-11-25");
    let listed = raw.request(2, "tools/list", json!({"_meta": old})).await;
    assert_eq!(listed["error"]["code"], -32022, "{listed}");
    raw.meta = Some(meta_2026());
    let listed = raw.request(3, "tools/list", json!({})).await;
    assert_eq!(listed["result"]["tools"][0]["name"], "echo", "{listed}");
    raw.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    let late = raw.request(4, "initialize", initialize("2025-11-25")).await;
    assert_initialize_refused(&late);
    let ping = raw.request(5, "ping", json!({})).await;
    assert_eq!(ping["error"]["code"], -32601, "{ping}");
    // A session's log level: a 2026-07-28 request says its own in `_meta`.
    let level = raw
        .request(7, "logging/setLevel", json!({"level": "debug"}))
        .await;
    assert_eq!(level["error"]["code"], -32601, "{level}");
    let called = raw
        .request(6, "tools/call", json!({"name": "echo", "arguments": {}}))
        .await;
    assert_eq!(called["result"]["content"][0]["text"], "plain", "{called}");
}

/// A handler of the user's own that says nothing of versions (rmcp's
/// defaults: every version it knows), the tools mounted in it.
#[cfg(not(feature = "sessions"))]
#[derive(Clone)]
struct Own;

#[cfg(not(feature = "sessions"))]
impl rmcp::ServerHandler for Own {}

/// Without sessions, tools mounted in a handler of the user's own speak
/// 2026-07-28 only too: `server/discover` offers no version with
/// `initialize`, an `initialize` is refused whatever the handler would say,
/// and the tool is called.
#[cfg(not(feature = "sessions"))]
#[tokio::test]
async fn a_mounted_server_offers_no_session_either() {
    let mut raw = connect_to(plain().mount(Own));
    raw.meta = Some(meta_2026());
    let discovered = raw.request(1, "server/discover", json!({})).await;
    assert_eq!(
        discovered["result"]["supportedVersions"],
        json!(["2026-07-28"]),
        "{discovered}"
    );
    let called = raw
        .request(2, "tools/call", json!({"name": "echo", "arguments": {}}))
        .await;
    assert_eq!(called["result"]["content"][0]["text"], "plain", "{called}");
    let late = raw.request(3, "initialize", initialize("2025-11-25")).await;
    assert_initialize_refused(&late);
    let called = raw
        .request(4, "tools/call", json!({"name": "echo", "arguments": {}}))
        .await;
    assert_eq!(called["result"]["content"][0]["text"], "plain", "{called}");
    let mut raw = connect_to(plain().mount(Own));
    let first = raw.request(1, "initialize", initialize("2025-11-25")).await;
    assert_initialize_refused(&first);
}

/// One HTTP/1.1 exchange with the server at `addr`: the status, the
/// headers (names in lower case) and the body.
#[cfg(all(feature = "http", not(feature = "sessions")))]
async fn exchange(
    addr: std::net::SocketAddr,
    method: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, Vec<(String, String)>, String) {
    use tokio::io::AsyncReadExt;
    let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let mut request = format!(
        "{method} /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\
         content-type: application/json\r\naccept: application/json, text/event-stream\r\n\
         content-length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream.write_all(request.as_bytes()).await.expect("write");
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer))
        .await
        .expect("an answer within 10 s")
        .expect("read");
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|line| line.split(' ').nth(1))
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    let headers = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    (status, headers, body.to_owned())
}

/// The JSON-RPC message in an HTTP answer's body: the body itself, or the
/// `data` of its SSE event that has an `id`.
#[cfg(all(feature = "http", not(feature = "sessions")))]
fn message_in(body: &str) -> Value {
    if let Ok(message) = serde_json::from_str(body) {
        return message;
    }
    body.lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
        .find(|message| message.get("id").is_some())
        .unwrap_or(Value::Null)
}

/// Over Streamable HTTP without sessions: an `initialize` is refused with
/// the versions served and no `Mcp-Session-Id` is given, a request without
/// its version in `_meta` is refused, a made-up session id opens nothing,
/// `GET` opens and resumes no stream, `DELETE` closes nothing, and a
/// 2026-07-28 call is served.
#[cfg(all(feature = "http", not(feature = "sessions")))]
#[tokio::test]
async fn over_http_no_session_is_opened() {
    let bound = plain()
        .bind_http(
            toolmetadata::server::HttpOptions::default()
                .addr(std::net::SocketAddr::from(([127, 0, 0, 1], 0))),
        )
        .await
        .expect("bound");
    let addr = bound.local_addr().expect("address");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let served = tokio::spawn(bound.run_until(async {
        let _ = stopped.await;
    }));
    let rpc = |id: u64, method: &str, params: Value| {
        json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
    };
    let mcp_headers = |method: &'static str| {
        [
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", method),
        ]
    };

    let (status, headers, body) = exchange(
        addr,
        "POST",
        &[],
        &rpc(1, "initialize", initialize("2025-11-25")),
    )
    .await;
    assert_initialize_refused(&message_in(&body));
    assert!(
        !headers.iter().any(|(name, _)| name == "mcp-session-id"),
        "{status} {headers:?}"
    );

    let (status, _, body) = exchange(
        addr,
        "POST",
        &mcp_headers("tools/list"),
        &rpc(2, "tools/list", json!({})),
    )
    .await;
    let refused = message_in(&body)["error"]["code"] == -32602 || status == 400;
    assert!(refused, "{status} {body}");

    let call = rpc(
        3,
        "tools/call",
        json!({"_meta": meta_2026(), "name": "echo", "arguments": {}}),
    );
    let mut headers = mcp_headers("tools/call").to_vec();
    headers.push(("mcp-name", "echo"));
    headers.push(("mcp-session-id", "made-up"));
    let (status, answered, body) = exchange(addr, "POST", &headers, &call).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        message_in(&body)["result"]["content"][0]["text"],
        "plain",
        "{body}"
    );
    assert!(
        !answered.iter().any(|(name, _)| name == "mcp-session-id"),
        "{answered:?}"
    );

    // No stream is kept to resume, nor a session's own stream to open.
    let (status, _, _) = exchange(addr, "GET", &[("last-event-id", "0")], "").await;
    assert_eq!(status, 405, "a GET with no session");
    let (status, _, _) = exchange(addr, "DELETE", &[("mcp-session-id", "made-up")], "").await;
    assert!(
        (400..500).contains(&status),
        "a DELETE of no session: {status}"
    );
    let _ = stop.send(());
    served.await.expect("joined").expect("served");
}
