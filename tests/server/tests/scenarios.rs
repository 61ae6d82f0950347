//! rmcp's client against the test server, on stdio (child process) and on
//! Streamable HTTP: listing, every result kind, argument errors, unknown tools,
//! handler errors and panics, cancellation, progress, discovery.

use std::time::Duration;
use toolmetadata::metadata::Load as _;

use toolmetadata_tests::mcp::*;

const BIN: &str = env!("CARGO_BIN_EXE_toolmetadata-test-server");
use rmcp::model::{CallToolRequest, CallToolRequestParams, ClientRequest, ErrorCode};
use rmcp::service::{PeerRequestOptions, ServiceError};
use serde_json::{Value, json};

/// Runs every scenario against a connected client.
async fn scenarios(client: &Client, recorder: &Recorder) {
    list_is_sorted_and_matches_the_rendered_entries(client).await;
    every_result_kind(client).await;
    argument_errors_are_listed_together(client).await;
    unknown_tool_is_invalid_params(client).await;
    handler_error_and_panic(client).await;
    cancellation_reaches_the_handler(client).await;
    progress_reaches_the_client(client, recorder).await;
    discovery(client).await;
}

async fn list_is_sorted_and_matches_the_rendered_entries(client: &Client) {
    let tools = client.list_all_tools().await.expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(
        names,
        [
            "archive",
            "boom",
            "cancellations",
            "crash_job",
            "deploy",
            "echo",
            "execute_tool",
            "export",
            "fail",
            "greet",
            "info",
            "job",
            "progress",
            "remove",
            "route",
            "slow",
            "stats",
            "survey",
            "throttled",
            "tool_search",
            "whoami"
        ]
    );
    // The entries are the pre-rendered JSON, as the loader renders the files.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tools");
    for tool in &tools {
        let file = ["toml", "json"]
            .iter()
            .map(|e| dir.join(format!("{}.{e}", tool.name)))
            .find(|p| p.exists());
        if let Some(file) = file {
            let mut expected = toolmetadata::ToolMetadata::from_file(&file)
                .expect("loads")
                .to_tools_list_entry();
            // Each tool names its contract in its `_meta`: the fingerprint
            // of its rendered entry, as a catalog lock records it.
            let mut served = serde_json::to_value(tool).expect("json");
            let metadata = toolmetadata::ToolMetadata::from_file(&file).expect("loads");
            let meta = served["_meta"].as_object_mut().expect("_meta");
            assert_eq!(
                meta.remove("io.toolmetadata/fingerprint"),
                Some(json!(toolmetadata::fingerprint::fingerprint(&expected))),
                "{}",
                tool.name
            );
            assert_eq!(
                meta.remove("io.toolmetadata/version"),
                metadata.version.map(|v| json!(v)),
                "{}",
                tool.name
            );
            if meta.is_empty() {
                served.as_object_mut().map(|t| t.remove("_meta"));
            }
            // rmcp's client `Tool` has no `execution` field, so it cannot show
            // it here; tasks.rs checks it on the wire.
            if let Some(entry) = expected.as_object_mut() {
                entry.remove("execution");
            }
            assert_eq!(served, expected, "{}", tool.name);
        }
    }
    let echo = tools.iter().find(|t| t.name == "echo").expect("echo");
    assert_eq!(
        echo.meta
            .as_ref()
            .and_then(|m| m.0.get("io.toolmetadata/version")),
        Some(&json!("1.2.0")),
        "a declared toolVersion is served"
    );
    let greet = tools.iter().find(|t| t.name == "greet").expect("greet");
    assert_eq!(
        greet.input_schema["properties"]["times"]["maximum"],
        json!(5)
    );
}

async fn every_result_kind(client: &Client) {
    let r = call(client, "echo", json!({"text": "hi", "times": "2"})).await;
    assert!(!is_error(&r));
    assert_eq!(text(&r), "hi hi");
    let r = call(client, "info", json!({})).await;
    assert_eq!(json_of(&r)["server"], "toolmetadata-test-server");
    let r = call(client, "stats", json!({"numbers": [1, 2, 6]})).await;
    assert_eq!(r.structured_content, Some(json!({"count": 3, "mean": 3.0})));
    // Its `outputText` words the text; the structured result is beside it.
    assert_eq!(text(&r), "3 numbers, mean 3.00");
    let r = call(client, "greet", json!({"name": "Ada", "times": 2})).await;
    assert_eq!(text(&r), "hello Ada, hello Ada");
    let r = call(client, "greet", json!({"name": "Ada"})).await;
    assert_eq!(text(&r), "hello Ada", "the run-time tool's default applies");
}

async fn argument_errors_are_listed_together(client: &Client) {
    let r = call(client, "echo", json!({"times": 9, "txt": "x"})).await;
    assert!(is_error(&r));
    assert_eq!(
        text(&r),
        "invalid arguments for tool `echo` (3 errors):\n- unknown argument `txt`; did you mean `text`?\n- missing required argument `text`\n- `times`: expected at most 3, got 9"
    );
    let r = call(client, "greet", json!({"name": "", "times": "many"})).await;
    assert!(is_error(&r));
    assert_eq!(
        text(&r),
        "invalid arguments for tool `greet` (2 errors):\n- `name`: expected at least 1 character, got 0\n- `times`: expected an integer, got string \"many\""
    );
}

async fn unknown_tool_is_invalid_params(client: &Client) {
    let err = client
        .call_tool(CallToolRequestParams::new("nope"))
        .await
        .expect_err("unknown tool");
    match err {
        ServiceError::McpError(e) => {
            assert_eq!(e.code, ErrorCode::INVALID_PARAMS);
            assert!(e.message.contains("unknown tool `nope`"), "{}", e.message);
        }
        other => panic!("expected a JSON-RPC error, got {other}"),
    }
}

async fn handler_error_and_panic(client: &Client) {
    let r = call(client, "fail", json!({})).await;
    assert!(is_error(&r));
    assert_eq!(text(&r), "fail: this tool always fails");
    let r = call(client, "boom", json!({})).await;
    assert!(is_error(&r));
    // The correlation id in the text is the one in `_meta`, and the log's.
    let failure = r
        .meta
        .as_ref()
        .and_then(|m| m.0.get("io.modelcontextprotocol/toolFailure"))
        .cloned()
        .expect("toolFailure");
    assert_eq!(failure["code"], "internal_error");
    let id = failure["correlationId"].as_str().expect("correlationId");
    assert_eq!(
        text(&r),
        format!("the tool `boom` failed: internal error (correlation id {id})")
    );
    assert!(
        !text(&r).contains("a handler bug"),
        "no panic payload leaks"
    );
    let r = call(client, "echo", json!({"text": "still here"})).await;
    assert_eq!(text(&r), "still here");
}

async fn cancellation_reaches_the_handler(client: &Client) {
    let before: usize = text(&call(client, "cancellations", json!({})).await)
        .parse()
        .expect("a count");
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(
        CallToolRequestParams::new("slow").with_arguments(serde_json::Map::from_iter([(
            "seconds".to_owned(),
            json!(30),
        )])),
    ));
    let handle = client
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await
        .expect("send");
    tokio::time::sleep(Duration::from_millis(300)).await;
    handle.cancel(Some("test".into())).await.expect("cancel");
    let mut after = before;
    for _ in 0..50 {
        after = text(&call(client, "cancellations", json!({})).await)
            .parse()
            .expect("a count");
        if after > before {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(after, before + 1, "the handler saw the cancellation");
}

async fn progress_reaches_the_client(client: &Client, recorder: &Recorder) {
    recorder.progress.lock().expect("lock").clear();
    let r = call(client, "progress", json!({"steps": 3})).await;
    assert_eq!(text(&r), "3 steps");
    for _ in 0..50 {
        if recorder.progress.lock().expect("lock").len() >= 3 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // rmcp's client runs notification handlers concurrently, so they may be
    // recorded out of order; the server sends them in order.
    let mut seen: Vec<(f64, Option<f64>, Option<String>)> = recorder
        .progress
        .lock()
        .expect("lock")
        .iter()
        .map(|p| (p.progress, p.total, p.message.clone()))
        .collect();
    seen.sort_by(|a, b| a.0.total_cmp(&b.0));
    assert_eq!(
        seen,
        [1.0, 2.0, 3.0].map(|n| (n, Some(3.0), Some(format!("step {n}")))),
    );
}

async fn discovery(client: &Client) {
    let info = client.peer_info().expect("server info");
    let server = info.server_info.clone().expect("serverInfo");
    assert_eq!(server.name, "toolmetadata-test-server");
    assert_eq!(server.version, env!("CARGO_PKG_VERSION"));
    let instructions = info.instructions.clone().unwrap_or_default();
    assert!(
        instructions.contains("tool_search") && instructions.contains("execute_tool"),
        "{instructions}"
    );

    let r = call(client, "tool_search", json!({"query": "file"})).await;
    let hits = json_of(&r);
    let ranked: Vec<(String, f64)> = hits
        .as_array()
        .expect("an array")
        .iter()
        .map(|h| {
            (
                h["name"].as_str().unwrap_or_default().to_owned(),
                h["score"].as_f64().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        ranked,
        [
            ("read_file".to_owned(), 0.92),
            ("write_file".to_owned(), 0.92),
            ("search_text".to_owned(), 0.6)
        ]
    );
    assert_eq!(hits[0]["keywords"], json!(["file", "read", "open"]));
    assert_eq!(hits[0]["inputSchema"]["required"], json!(["path"]));

    let r = call(
        client,
        "tool_search",
        json!({"query": "grep", "max_results": 1}),
    )
    .await;
    assert_eq!(json_of(&r)[0]["name"], "search_text");
    assert_eq!(json_of(&r)[0]["score"], json!(0.85));
    let r = call(
        client,
        "tool_search",
        json!({"query": "", "max_results": 2}),
    )
    .await;
    assert_eq!(json_of(&r).as_array().map(Vec::len), Some(2));

    let r = call(
        client,
        "execute_tool",
        json!({"name": "read_file", "parameters": {"path": "a.txt"}}),
    )
    .await;
    assert_eq!(text(&r), "read a.txt");
    let r = call(
        client,
        "execute_tool",
        json!({"name": "write_file", "arguments": {"path": "b.txt"}}),
    )
    .await;
    assert_eq!(text(&r), "wrote b.txt");
    let r = call(
        client,
        "execute_tool",
        json!({"name": "read_file", "parameters": {}}),
    )
    .await;
    assert!(is_error(&r) && text(&r).contains("missing required argument `path`"));
    let r = call(
        client,
        "execute_tool",
        json!({"name": "read_file", "parameters": [1]}),
    )
    .await;
    assert!(is_error(&r), "{r:?}");
    assert_eq!(
        text(&r),
        "execute_tool: `parameters` must be an object, got array [1]"
    );
    let r = call(client, "execute_tool", json!({"name": "nope"})).await;
    assert!(is_error(&r) && text(&r).contains("there is no tool `nope`"));
    let r = call(client, "read_file", json!({"path": "direct.txt"})).await;
    assert_eq!(
        text(&r),
        "read direct.txt",
        "a discoverable tool can be called directly"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_scenarios() {
    let (client, recorder) = stdio(BIN, &[]).await;
    scenarios(&client, &recorder).await;
    client.cancel().await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_scenarios() {
    let server = http_server(BIN, &[]).await;
    let (client, recorder) = http_client(&server.url).await;
    scenarios(&client, &recorder).await;
    client.cancel().await.expect("close");
}

fn names(tools: &[rmcp::model::Tool]) -> Vec<String> {
    tools.iter().map(|t| t.name.to_string()).collect()
}

/// Run-time tools are lenient by default (`"2"` is an integer) and strict with
/// `ServerBuilder::strict_arguments(true)`, called after the tool was added.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_time_tools_follow_strict_arguments() {
    let lenient = json!({"name": "Ada", "times": "2"});
    let (client, _) = stdio(BIN, &[]).await;
    let r = call(&client, "greet", lenient.clone()).await;
    assert_eq!(text(&r), "hello Ada, hello Ada");
    client.cancel().await.expect("close");

    let (client, _) = stdio(BIN, &["--strict"]).await;
    let r = call(&client, "greet", lenient).await;
    assert!(is_error(&r), "{r:?}");
    assert!(
        text(&r).contains("`times`: expected an integer, got string \"2\""),
        "{}",
        text(&r)
    );
    let r = call(&client, "greet", json!({"name": "Ada", "times": 1})).await;
    assert_eq!(text(&r), "hello Ada");
    client.cancel().await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn show_all_on_stdio_lists_every_tool_and_no_meta_tools() {
    let (client, _) = stdio(BIN, &["--show-all", "--instructions", "Workspace tools."]).await;
    let instructions = client
        .peer_info()
        .and_then(|i| i.instructions.clone())
        .unwrap_or_default();
    assert!(
        instructions.starts_with("Workspace tools.\n\nMore tools are available"),
        "{instructions}"
    );
    let listed = names(&client.list_all_tools().await.expect("list"));
    assert!(listed.contains(&"read_file".to_owned()) && listed.contains(&"search_text".to_owned()));
    assert!(
        !listed.contains(&"tool_search".to_owned()) && !listed.contains(&"execute_tool".to_owned())
    );
    client.cancel().await.expect("close");
}

/// A raw JSON-RPC POST over HTTP, for what the rmcp client does not let a test set.
async fn post(
    url: &str,
    headers: &[(&str, &str)],
    body: &Value,
    session: Option<&str>,
) -> reqwest::Response {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25");
    if let Some(s) = session {
        request = request.header("mcp-session-id", s);
    }
    for (k, v) in headers {
        request = request.header(*k, *v);
    }
    request
        .body(body.to_string())
        .send()
        .await
        .expect("request")
}

/// The JSON-RPC message of a response, whether JSON or one SSE event.
async fn message(response: reqwest::Response) -> Value {
    let body = response.text().await.expect("body");
    let json = body
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .map(str::trim)
        .find(|d| !d.is_empty())
        .unwrap_or(body.trim());
    serde_json::from_str(json).unwrap_or(Value::Null)
}

async fn initialize(url: &str, headers: &[(&str, &str)]) -> String {
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}});
    let response = post(url, headers, &init, None).await;
    assert_eq!(response.status(), 200);
    let session = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
        .expect("a session");
    let _ = message(response).await;
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    post(url, headers, &initialized, Some(&session)).await;
    session
}

async fn listed_over_http(url: &str, headers: &[(&str, &str)]) -> Vec<String> {
    let session = initialize(url.split('?').next().unwrap_or(url), &[]).await;
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let reply = message(post(url, headers, &list, Some(&session)).await).await;
    reply["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn show_all_on_http_by_header_or_query() {
    let server = http_server(BIN, &[]).await;
    let plain = listed_over_http(&server.url, &[]).await;
    assert!(plain.contains(&"tool_search".to_owned()) && !plain.contains(&"read_file".to_owned()));
    let by_header = listed_over_http(&server.url, &[("x-mcp-show-all", "true")]).await;
    assert!(
        by_header.contains(&"read_file".to_owned())
            && !by_header.contains(&"tool_search".to_owned())
    );
    let by_query = listed_over_http(&format!("{}?show_all=true", server.url), &[]).await;
    assert!(
        by_query.contains(&"read_file".to_owned()) && !by_query.contains(&"tool_search".to_owned())
    );
}

/// rmcp's client in its 2026-07-28 modes: `server/discover` first (Auto falls
/// back to `initialize` if it must), then listing and calling as usual.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn protocol_eras_discover_and_auto() {
    use rmcp::model::ProtocolVersion;
    use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
    use rmcp::{ClientLifecycleMode, ClientServiceExt};
    let modes = [
        ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
        ClientLifecycleMode::Auto {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            legacy_version: Some(ProtocolVersion::V_2025_11_25),
        },
        ClientLifecycleMode::Initialize,
    ];
    for mode in modes {
        let label = format!("{mode:?}");
        let transport = TokioChildProcess::new(tokio::process::Command::new(BIN).configure(|c| {
            c.stderr(std::process::Stdio::null());
        }))
        .expect("spawn");
        let client = Recorder::default()
            .serve_with_lifecycle(transport, mode)
            .await
            .unwrap_or_else(|e| panic!("{label}: {e}"));
        let tools = client.list_all_tools().await.expect("list");
        assert_eq!(tools.len(), 21, "{label}");
        assert_eq!(
            text(&call(&client, "echo", json!({"text": "era"})).await),
            "era",
            "{label}"
        );
        client.cancel().await.expect("close");
    }
}
