//! The 2026-07-28 protocol over Streamable HTTP: `Mcp-Param-*` headers checked
//! against the arguments (SEP-2243), with rmcp's client and with raw requests.

use serde_json::json;
use toolmetadata_tests::mcp::*;

const BIN: &str = env!("CARGO_BIN_EXE_toolmetadata-test-server");

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
    // A call with the headers the schema names is served. (Sent raw: rmcp's
    // client mirrors arguments into headers from a cache it fills as the
    // list arrives, and now and then built the call's headers before the
    // cache had the tool, failing this test with a missing header.)
    let (status, body) = post_2026(
        &server.url,
        "tools/call",
        Some("route"),
        &[("mcp-param-region", "ap"), ("mcp-param-shard", "1")],
        request_2026(
            1,
            "tools/call",
            json!({"name": "route", "arguments": {"region": "ap", "shard": 1}}),
        ),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        message_of(&body)["result"]["content"][0]["text"],
        "routed to ap shard 1",
        "{body}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stateless_requests_log_only_their_access_lines_at_info() {
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
    // Each stateless request starts and ends a whole rmcp service, whose
    // lines would drown the log: only the access line of each is written.
    let (access, loud): (Vec<&String>, Vec<&String>) = logs
        .iter()
        .filter(|l| l.contains(" INFO ") || l.contains(" DEBUG ") || l.contains(" TRACE "))
        .partition(|l| l.contains("toolmetadata::access: "));
    assert!(loud.is_empty(), "served requests logged: {loud:#?}");
    assert_eq!(access.len(), 4, "a line per request: {access:#?}");
}

/// The names a 2026-07-28 `tools/list` answer lists.
fn names(reply: &serde_json::Value) -> Vec<String> {
    reply["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].as_str().unwrap_or_default().to_owned())
        .collect()
}

async fn list_2026(url: &str, extra: &[(&str, &str)]) -> (u16, String) {
    post_2026(
        url,
        "tools/list",
        None,
        extra,
        request_2026(1, "tools/list", json!({})),
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn show_all_is_the_servers_option_on_2026_not_a_header() {
    let server = http_server(BIN, &[]).await;
    let (_, body) = list_2026(&server.url, &[("x-mcp-show-all", "true")]).await;
    let listed = names(&message_of(&body));
    assert!(listed.contains(&"tool_search".to_owned()), "{listed:?}");
    assert!(!listed.contains(&"read_file".to_owned()), "{listed:?}");
    let (_, body) = list_2026(&format!("{}?show_all=true", server.url), &[]).await;
    assert!(!names(&message_of(&body)).contains(&"read_file".to_owned()));

    let showing = http_server(BIN, &["--show-all"]).await;
    let (_, body) = list_2026(&showing.url, &[]).await;
    let listed = names(&message_of(&body));
    assert!(listed.contains(&"read_file".to_owned()), "{listed:?}");
    assert!(!listed.contains(&"tool_search".to_owned()), "{listed:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_answer_tools_list_byte_for_byte_with_cache_hints() {
    let (a, b) = (http_server(BIN, &[]).await, http_server(BIN, &[]).await);
    let (status_a, body_a) = list_2026(&a.url, &[]).await;
    let (status_b, body_b) = list_2026(&b.url, &[]).await;
    assert_eq!((status_a, status_b), (200, 200));
    let data = |body: &str| {
        body.lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .map(str::trim)
            .find(|d| !d.is_empty())
            .unwrap_or(body.trim())
            .to_owned()
    };
    assert_eq!(data(&body_a), data(&body_b));
    let reply = message_of(&body_a);
    assert!(
        reply["result"]["ttlMs"].as_u64().is_some_and(|t| t > 0),
        "{reply}"
    );
    assert_eq!(reply["result"]["cacheScope"], "public", "{reply}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_search_on_one_instance_and_execute_tool_on_another() {
    let (a, b) = (http_server(BIN, &[]).await, http_server(BIN, &[]).await);
    let (_, body) = post_2026(
        &a.url,
        "tools/call",
        Some("tool_search"),
        &[],
        request_2026(
            2,
            "tools/call",
            json!({"name": "tool_search", "arguments": {"query": "read file"}}),
        ),
    )
    .await;
    let reply = message_of(&body);
    let found: serde_json::Value = serde_json::from_str(
        reply["result"]["content"][0]["text"]
            .as_str()
            .expect("search text"),
    )
    .expect("search JSON");
    assert_eq!(found[0]["name"], "read_file", "{found}");
    let (_, body) = post_2026(
        &b.url,
        "tools/call",
        Some("execute_tool"),
        &[],
        request_2026(
            3,
            "tools/call",
            json!({"name": "execute_tool", "arguments": {"name": "read_file", "parameters": {"path": "notes.txt"}}}),
        ),
    )
    .await;
    let reply = message_of(&body);
    assert_eq!(
        reply["result"]["content"][0]["text"], "read notes.txt",
        "{reply}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn legacy_sessions_keep_lists_without_cache_hints() {
    let server = http_server(BIN, &[]).await;
    let (client, _) = http_client(&server.url).await;
    let listed = client.list_tools(None).await.expect("tools/list");
    assert_eq!(listed.ttl_ms, None);
    assert_eq!(listed.cache_scope, None);
    let (modern, _) = http_client_2026(&server.url).await;
    let listed = modern.list_tools(None).await.expect("tools/list");
    assert!(listed.ttl_ms.is_some_and(|t| t > 0), "{listed:?}");
}

/// The tag of a 2026-07-28 `tools/list` is its HTTP `ETag`: the same on two
/// instances of one catalog, another for another catalog; `If-None-Match`
/// with the current tag gets 304 and no list, with an old one the new list.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_list_tag_is_an_etag_the_same_on_every_instance() {
    let (a, b) = (http_server(BIN, &[]).await, http_server(BIN, &[]).await);
    let changed = http_server(BIN, &["--show-all"]).await;
    let list = async |url: &str, if_none_match: Option<&str>| {
        let mut request = reqwest::Client::new()
            .post(url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/list");
        if let Some(tag) = if_none_match {
            request = request.header("if-none-match", tag);
        }
        let response = request
            .body(request_2026(1, "tools/list", json!({})))
            .send()
            .await
            .expect("request");
        let status = response.status().as_u16();
        let etag = response
            .headers()
            .get("etag")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        (status, etag, response.text().await.expect("body"))
    };
    let (status, tag_a, body) = list(&a.url, None).await;
    assert_eq!(status, 200);
    let tag_a = tag_a.expect("an ETag");
    let reply = message_of(&body);
    let in_meta = reply["result"]["_meta"]["io.toolmetadata/etag"]
        .as_str()
        .expect("the tag in the answer");
    assert_eq!(tag_a, format!("W/\"{in_meta}\""));
    let (_, tag_b, _) = list(&b.url, None).await;
    assert_eq!(
        tag_b.as_deref(),
        Some(tag_a.as_str()),
        "same catalog, same tag"
    );
    let (status, tag, body) = list(&b.url, Some(&tag_a)).await;
    assert_eq!(status, 304, "{body}");
    assert_eq!(tag.as_deref(), Some(tag_a.as_str()));
    assert!(body.is_empty(), "{body}");
    let (status, tag_changed, body) = list(&changed.url, Some(&tag_a)).await;
    assert_eq!(status, 200, "an old tag gets the new list");
    assert_ne!(tag_changed.as_deref(), Some(tag_a.as_str()));
    assert!(names(&message_of(&body)).contains(&"read_file".to_owned()));
}
