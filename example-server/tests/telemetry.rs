//! `--otlp-endpoint`: example-server's spans and metrics, exported over
//! OTLP/HTTP to a receiver that decodes them with the OpenTelemetry
//! project's protobuf types, carry the MCP semantic conventions' names and
//! attributes and continue the trace the client sent in `_meta`.

use std::process::Stdio;
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, RequestParamsMeta};
use serde_json::json;
use toolmetadata_tests::mcp::*;
use toolmetadata_tests::otlp::{OtlpReceiver, ReceivedSpan};

const BIN: &str = env!("CARGO_BIN_EXE_example-server");

/// The client's span: W3C `traceparent` as an instrumented client sends it.
const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const CLIENT_SPAN: &str = "00f067aa0ba902b7";

fn params(tool: &str, arguments: serde_json::Value) -> CallToolRequestParams {
    let serde_json::Value::Object(arguments) = arguments else {
        panic!("arguments are an object");
    };
    let mut params = CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments);
    params.set_traceparent(&format!("00-{TRACE_ID}-{CLIENT_SPAN}-01"));
    params
}

fn the_span<'a>(spans: &'a [ReceivedSpan], name: &str) -> &'a ReceivedSpan {
    spans
        .iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("no span `{name}` among {spans:#?}"))
}

/// What every `tools/call` span says, whatever the transport.
fn check_call_span(span: &ReceivedSpan, tool: &str) {
    assert_eq!(span.kind, "SPAN_KIND_SERVER", "{span:#?}");
    assert_eq!(span.trace_id, TRACE_ID, "the client's trace: {span:#?}");
    assert_eq!(span.parent_span_id, CLIENT_SPAN, "{span:#?}");
    let a = &span.attributes;
    assert_eq!(a["mcp.method.name"], "tools/call", "{span:#?}");
    assert_eq!(a["gen_ai.tool.name"], tool);
    assert_eq!(a["gen_ai.operation.name"], "execute_tool");
    assert!(!a["jsonrpc.request.id"].is_empty(), "{span:#?}");
    assert_eq!(a["mcp.protocol.version"], "2025-11-25", "{span:#?}");
    assert_eq!(span.resource["service.name"], "example-server");
}

/// Over stdio: `network.transport` is `pipe`; a declared failure sets
/// `error.type` to `tool_error`, the span's status to error, and carries the
/// correlation id the result's `_meta` gives; the duration metric counts
/// both calls, the failed one with its `error.type`. Everything is sent by
/// the time the server has exited after its client went away.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_spans_continue_the_clients_trace_and_name_failures() {
    let receiver = OtlpReceiver::start().await;
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("a.txt"), "hello\n").expect("write");
    let root = dir.path().display().to_string();
    let mut child = tokio::process::Command::new(BIN)
        .args(["--root", &root, "--otlp-endpoint", &receiver.endpoint()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn the server");
    let stdout = child.stdout.take().expect("stdout");
    let stdin = child.stdin.take().expect("stdin");
    let client = Recorder::default()
        .serve((stdout, stdin))
        .await
        .expect("initialize");

    let read = client
        .call_tool(params("read_file", json!({"path": "a.txt"})))
        .await
        .expect("read_file");
    assert!(!is_error(&read), "{read:?}");
    let refused = client
        .call_tool(params("run_command", json!({"program": "rm"})))
        .await
        .expect("run_command");
    assert!(is_error(&refused));
    let unknown = client
        .call_tool(params("no_such_tool_0123456789", json!({})))
        .await;
    assert!(unknown.is_err());
    let correlation = refused
        .meta
        .as_ref()
        .and_then(|m| m.0.get("io.modelcontextprotocol/toolFailure"))
        .and_then(|f| f["correlationId"].as_str())
        .expect("a correlation id")
        .to_owned();
    client.cancel().await.expect("close");
    let exited = tokio::time::timeout(Duration::from_secs(30), child.wait())
        .await
        .expect("the server exits once its client has gone")
        .expect("wait");
    assert!(exited.success(), "{exited:?}");

    assert!(receiver.refused().is_empty(), "{:?}", receiver.refused());
    let spans = receiver.spans();
    let read = the_span(&spans, "tools/call read_file");
    check_call_span(read, "read_file");
    assert_eq!(read.attributes["network.transport"], "pipe");
    assert!(!read.attributes.contains_key("error.type"), "{read:#?}");
    assert_ne!(read.status, "STATUS_CODE_ERROR");

    let failed = the_span(&spans, "tools/call run_command");
    check_call_span(failed, "run_command");
    assert_eq!(failed.attributes["error.type"], "tool_error");
    assert_eq!(
        failed.attributes["toolmetadata.failure.code"],
        "not_allowed"
    );
    assert_eq!(
        failed.attributes["toolmetadata.correlation_id"], correlation,
        "the span names the id the result gives"
    );
    assert_eq!(failed.status, "STATUS_CODE_ERROR");
    assert!(!failed.status_message.is_empty(), "{failed:#?}");
    assert_ne!(failed.span_id, read.span_id);

    let durations: Vec<_> = receiver
        .histograms()
        .into_iter()
        .filter(|p| p.metric == "mcp.server.operation.duration")
        .collect();
    let point = |tool: &str| {
        durations
            .iter()
            .find(|p| p.attributes.get("gen_ai.tool.name").map(String::as_str) == Some(tool))
            .unwrap_or_else(|| panic!("no duration of {tool} in {durations:#?}"))
    };
    let (read, failed) = (point("read_file"), point("run_command"));
    assert_eq!(read.unit, "s");
    assert_eq!(read.count, 1);
    assert_eq!(read.attributes["mcp.method.name"], "tools/call");
    assert_eq!(read.attributes["network.transport"], "pipe");
    assert!(!read.attributes.contains_key("error.type"), "{read:#?}");
    assert_eq!(failed.count, 1);
    assert_eq!(failed.attributes["error.type"], "tool_error");
    // A name the server has not is no series of its own.
    assert!(
        !durations
            .iter()
            .any(|p| p.attributes.values().any(|v| v.contains("no_such_tool"))),
        "{durations:#?}"
    );
    let unknown = durations
        .iter()
        .find(|p| p.attributes.get("error.type").map(String::as_str) == Some("-32602"))
        .unwrap_or_else(|| panic!("no duration of the unknown call in {durations:#?}"));
    assert!(!unknown.attributes.contains_key("gen_ai.tool.name"));
}

/// Over HTTP: `tcp`, `http` and its version, the session id and the
/// client's address; `tools/list` has a span of its own; a client that sends
/// no `_meta` trace context but a `traceparent` header is continued from
/// the header; an unknown tool's name is not a span name.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_spans_name_the_session_and_the_client() {
    let receiver = OtlpReceiver::start().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().display().to_string();
    let mut server = http_server(
        BIN,
        &["--root", &root, "--otlp-endpoint", &receiver.endpoint()],
    )
    .await;
    let (client, _) = http_client(&server.url).await;
    client.list_all_tools().await.expect("list");
    client
        .call_tool(params("list_allowed_directories", json!({})))
        .await
        .expect("call");
    let unknown = client
        .call_tool(params("no_such_tool_0123456789", json!({})))
        .await;
    assert!(unknown.is_err());
    client.cancel().await.expect("close");

    // A raw request with the trace context in its headers only.
    let header_trace = "0af7651916cd43dd8448eb211c80319c";
    let http = reqwest::Client::new();
    let init = http
        .post(&server.url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "raw", "version": "1"}}})
            .to_string(),
        )
        .send()
        .await
        .expect("initialize");
    let session = init
        .headers()
        .get("mcp-session-id")
        .expect("a session")
        .to_str()
        .expect("text")
        .to_owned();
    let _ = init.text().await;
    let post = |body: serde_json::Value| {
        http.post(&server.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-session-id", &session)
            .header("mcp-protocol-version", "2025-11-25")
            .header(
                "traceparent",
                format!("00-{header_trace}-b7ad6b7169203331-01"),
            )
            .body(body.to_string())
            .send()
    };
    post(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await
        .expect("initialized");
    let listed = post(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "list_allowed_directories", "arguments": {}}}))
    .await
    .expect("call");
    let _ = listed.text().await;
    // With both, `_meta` names the MCP request itself: it wins.
    let meta_trace = "5bf92f3577b34da6a3ce929d0e0e4737";
    let both = post(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "list_allowed_directories", "arguments": {},
            "_meta": {"traceparent": format!("00-{meta_trace}-{CLIENT_SPAN}-01")}}}))
    .await
    .expect("call");
    let _ = both.text().await;

    let spans = receiver
        .wait_for_spans(Duration::from_secs(20), |spans| {
            spans.iter().any(|s| s.trace_id == header_trace)
                && spans.iter().any(|s| s.trace_id == meta_trace)
                && spans.iter().any(|s| s.name == "tools/list")
                && spans.iter().any(|s| s.trace_id == TRACE_ID)
        })
        .await;
    let _ = server.child.start_kill();

    let call = spans
        .iter()
        .find(|s| s.name == "tools/call list_allowed_directories" && s.trace_id == TRACE_ID)
        .unwrap_or_else(|| panic!("no call span in {spans:#?}"));
    check_call_span(call, "list_allowed_directories");
    let a = &call.attributes;
    assert_eq!(a["network.transport"], "tcp");
    assert_eq!(a["network.protocol.name"], "http");
    assert_eq!(a["network.protocol.version"], "1.1");
    assert_eq!(a["client.address"], "127.0.0.1");
    assert!(a["client.port"].parse::<u16>().is_ok(), "{call:#?}");
    assert!(!a["mcp.session.id"].is_empty(), "{call:#?}");

    let list = the_span(&spans, "tools/list");
    assert_eq!(list.attributes["mcp.method.name"], "tools/list");
    assert!(!list.attributes.contains_key("gen_ai.tool.name"));

    let unknown = spans
        .iter()
        .find(|s| s.attributes.get("error.type").map(String::as_str) == Some("-32602"))
        .unwrap_or_else(|| panic!("no span for the unknown tool in {spans:#?}"));
    assert_eq!(unknown.name, "tools/call");
    assert!(!unknown.attributes.contains_key("gen_ai.tool.name"));
    assert_eq!(unknown.attributes["rpc.response.status_code"], "-32602");

    let from_header = spans
        .iter()
        .find(|s| s.trace_id == header_trace)
        .expect("the header's trace");
    assert_eq!(from_header.name, "tools/call list_allowed_directories");
    assert_eq!(from_header.parent_span_id, "b7ad6b7169203331");
    // The session's id lets whoever holds it act in the session: spans carry
    // a digest of it, the same for each request of the session.
    let tag = &from_header.attributes["mcp.session.id"];
    assert_ne!(tag, &session);
    assert!(!tag.contains(session.as_str()), "{tag}");
    assert!(
        tag.len() == 32 && tag.bytes().all(|b| b.is_ascii_hexdigit()),
        "{tag}"
    );
    let listed = spans
        .iter()
        .find(|s| s.trace_id != header_trace && s.attributes.get("mcp.session.id") == Some(tag));
    assert!(listed.is_some(), "another span of the session: {spans:#?}");
    assert_eq!(
        spans.iter().filter(|s| s.trace_id == header_trace).count(),
        1,
        "the call with both is not the header's: {spans:#?}"
    );
    let from_meta = spans
        .iter()
        .find(|s| s.trace_id == meta_trace)
        .expect("the _meta trace");
    assert_eq!(from_meta.parent_span_id, CLIENT_SPAN);
    // A request with no trace context starts a trace of its own.
    assert!(list.parent_span_id.is_empty(), "{list:#?}");
}

/// A bad endpoint is refused at startup, with the flag named.
#[test]
fn a_bad_endpoint_is_refused() {
    let out = std::process::Command::new(BIN)
        .args(["--otlp-endpoint", "ftp://collector"])
        .stdin(Stdio::null())
        .output()
        .expect("run");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--otlp-endpoint") && stderr.contains("not an http or https URL"),
        "{stderr}"
    );
}

/// Finding 7 of the third red team: with a collector that never answers,
/// SIGTERM took 16 s (the spans' last export, then the metrics', one after
/// the other). The stop now takes at most `--shutdown-secs`, telemetry
/// included.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_collector_that_never_answers_does_not_hold_the_stop() {
    // Accepts connections and reads nothing, answers nothing.
    let collector = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let endpoint = format!("http://{}", collector.local_addr().expect("addr"));
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((stream, _)) = collector.accept().await {
            held.push(stream);
        }
    });
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().display().to_string();
    let mut server = http_server(
        BIN,
        &[
            "--root",
            &root,
            "--otlp-endpoint",
            &endpoint,
            "--shutdown-secs",
            "2",
        ],
    )
    .await;
    let (client, _) = http_client(&server.url).await;
    client
        .call_tool(params("list_allowed_directories", json!({})))
        .await
        .expect("call");
    client.cancel().await.expect("close");
    let pid = rustix::process::Pid::from_raw(
        i32::try_from(server.child.id().expect("running")).expect("a pid"),
    )
    .expect("a pid");
    let asked = std::time::Instant::now();
    rustix::process::kill_process(pid, rustix::process::Signal::TERM).expect("SIGTERM");
    let status = tokio::time::timeout(Duration::from_secs(20), server.child.wait())
        .await
        .expect("the server stops")
        .expect("wait");
    let took = asked.elapsed();
    assert!(status.success(), "{status:?}");
    assert!(
        took < Duration::from_secs(4),
        "the stop took {took:?} with --shutdown-secs 2"
    );
}
