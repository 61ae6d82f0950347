//! The 2026-07-28 protocol over Streamable HTTP: `Mcp-Param-*` headers checked
//! against the arguments (SEP-2243), with rmcp's client and with raw requests.

use serde_json::{Value, json};
use toolmetadata_tests::mcp::*;

const BIN: &str = env!("CARGO_BIN_EXE_toolmetadata-test-server");

/// A 2026-07-28 request body: the per-request `_meta` rmcp requires.
fn request_2026(id: u64, method: &str, mut params: Value) -> String {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"}
    });
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

/// POSTs a 2026-07-28 request with its standard headers plus `extra`; the
/// status and the body text (JSON or SSE).
async fn post_2026(
    url: &str,
    method: &str,
    name: Option<&str>,
    extra: &[(&str, &str)],
    body: String,
) -> (u16, String) {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method);
    if let Some(name) = name {
        request = request.header("mcp-name", name);
    }
    for (k, v) in extra {
        request = request.header(*k, *v);
    }
    let response = request.body(body).send().await.expect("request");
    let status = response.status().as_u16();
    (status, response.text().await.expect("body"))
}

fn call_route(region: &str) -> String {
    request_2026(
        7,
        "tools/call",
        json!({"name": "route", "arguments": {"region": region, "shard": 3}}),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_header_that_disagrees_with_its_argument_is_refused() {
    let server = http_server(BIN, &[]).await;
    let (status, body) = post_2026(
        &server.url,
        "tools/call",
        Some("route"),
        &[("mcp-param-region", "us"), ("mcp-param-shard", "3")],
        call_route("eu"),
    )
    .await;
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("-32020"), "{body}");
    assert!(!body.contains("routed to"), "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_header_that_agrees_with_its_argument_is_served() {
    let server = http_server(BIN, &[]).await;
    let (status, body) = post_2026(
        &server.url,
        "tools/call",
        Some("route"),
        &[("mcp-param-region", "eu"), ("mcp-param-shard", "3")],
        call_route("eu"),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("routed to eu shard 3"), "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_listed_schema_carries_x_mcp_header() {
    let server = http_server(BIN, &[]).await;
    let (client, _) = http_client_2026(&server.url).await;
    let tools = client.list_all_tools().await.expect("tools/list");
    let route = tools
        .iter()
        .find(|t| t.name == "route")
        .expect("route is listed");
    let properties = &route.input_schema["properties"];
    assert_eq!(properties["region"]["x-mcp-header"], "Region");
    assert_eq!(properties["shard"]["x-mcp-header"], "Shard");
    // rmcp's client mirrors the arguments into the headers itself.
    let result = call(&client, "route", json!({"region": "ap", "shard": 1})).await;
    assert_eq!(text(&result), "routed to ap shard 1");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stateless_requests_log_nothing_at_info() {
    let server = http_server(BIN, &[]).await;
    for id in 1..=3 {
        let (status, body) = post_2026(
            &server.url,
            "tools/list",
            None,
            &[],
            request_2026(id, "tools/list", json!({})),
        )
        .await;
        assert_eq!(status, 200, "{body}");
    }
    let (status, body) = post_2026(
        &server.url,
        "tools/call",
        Some("echo"),
        &[],
        request_2026(
            9,
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "hi"}}),
        ),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    // The log is written asynchronously; give it a moment to arrive.
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let logs = server.logs.lock().expect("lock").clone();
    let loud: Vec<&String> = logs
        .iter()
        .filter(|l| l.contains(" INFO ") || l.contains(" DEBUG ") || l.contains(" TRACE "))
        .collect();
    assert!(loud.is_empty(), "served requests logged: {loud:#?}");
}
