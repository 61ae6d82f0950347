//! A server of plain tools built without `tasks`, `ask`, `subscriptions`,
//! `resources` and `prompts`, attacked with the requests of those features as a hostile or
//! confused client sends them: each is refused with an error (or, for what
//! a plain call may carry, ignored), none hangs or stops the server, and a
//! flood of them leaves it answering. Runs only without those features.
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

    async fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        self.answer(id).await
    }
}

/// A raw peer of a server of one plain tool, nothing said yet.
fn connect() -> Raw {
    let tool = ToolMetadata {
        name: "echo".into(),
        description: "Says what it is given".into(),
        ..ToolMetadata::default()
    };
    let server = Server::builder()
        .tool(tool, |_, _| async { Ok("plain") })
        .build()
        .expect("server");
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
    }
}

/// [`connect`], and a 2025-11-25 session opened.
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
    let pong = raw.request(500, "ping", json!({})).await;
    assert!(pong.get("result").is_some(), "{pong}");
}

/// A 2026-07-28 client's `subscriptions/listen` (no session: the protocol
/// version in the request's `_meta`), for the tools' list and a resource:
/// refused as a method this server does not serve, at once, and the server
/// goes on.
#[tokio::test]
async fn a_listen_stream_is_refused_by_a_server_with_nothing_to_tell() {
    let mut raw = connect();
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "hostile", "version": "0"}
    });
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
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "hostile", "version": "0"}
    });
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
