//! Handlers that reach the request and the person: `Context::ask` on a
//! 2025-11-25 session (`elicitation/create`) and on 2026-07-28 requests
//! (`InputRequiredResult` with a signed `requestState`, retried with the
//! answers, possibly on another instance), and what a handler reads of the
//! request.

use std::time::Duration;

use rmcp::model::{CallToolRequestParams, CallToolResponse, ProtocolVersion};
use rmcp::service::RunningService;
use rmcp::transport::{ConfigureCommandExt, StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientLifecycleMode, ClientServiceExt, RoleClient};
use serde_json::{Value, json};
use toolmetadata_tests::mcp::{Person, Recorder, http_client_with, http_server, is_error, text};

const BIN: &str = env!("CARGO_BIN_EXE_toolmetadata-test-server");

type Client = RunningService<RoleClient, Person>;

fn accept() -> Value {
    json!({"action": "accept", "content": {"region": "eu", "replicas": 3}})
}

fn deploy() -> CallToolRequestParams {
    let Value::Object(args) = json!({"service": "api"}) else {
        unreachable!()
    };
    CallToolRequestParams::new("deploy").with_arguments(args)
}

/// A 2025-11-25 session over stdio.
async fn session(person: &Person, args: &[&str]) -> Client {
    let transport = TokioChildProcess::new(tokio::process::Command::new(BIN).configure(|c| {
        c.args(args).stderr(std::process::Stdio::null());
    }))
    .expect("spawn");
    person
        .clone()
        .serve_with_lifecycle(transport, ClientLifecycleMode::Initialize)
        .await
        .expect("initialize")
}

/// 2026-07-28 requests over HTTP, with no session.
async fn stateless(person: &Person, url: &str) -> Client {
    let transport = StreamableHttpClientTransport::from_uri(url.to_owned());
    person
        .clone()
        .serve_with_lifecycle(
            transport,
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .expect("discover")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_asks_and_the_handler_gets_a_typed_answer() {
    let person = Person::answering(accept());
    let client = session(&person, &[]).await;
    let result = client.call_tool(deploy()).await.expect("call");
    assert_eq!(text(&result), "deployed api to eu x3");
    assert_eq!(person.asked(), ["Deploy api?"]);
    client.cancel().await.expect("close");

    let declining = Person::answering(json!({"action": "decline"}));
    let client = session(&declining, &[]).await;
    let result = client.call_tool(deploy()).await.expect("call");
    assert_eq!(text(&result), "not deployed: declined");
    client.cancel().await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stateless_request_asks_through_input_required_and_the_retry() {
    let server = http_server(BIN, &[]).await;
    let person = Person::answering(accept());
    let client = stateless(&person, &server.url).await;
    // rmcp's client drives the rounds: the question, then the retry.
    let result = client.call_tool(deploy()).await.expect("call");
    assert_eq!(text(&result), "deployed api to eu x3");
    assert_eq!(person.asked(), ["Deploy api?"]);
    client.cancel().await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_cannot_answer_gets_a_clear_error() {
    let mut mute = Person::answering(accept());
    mute.can_answer = false;
    let client = session(&mute, &[]).await;
    let result = client.call_tool(deploy()).await.expect("call");
    assert!(is_error(&result));
    assert!(
        text(&result).contains("cannot ask the user"),
        "{}",
        text(&result)
    );
    client.cancel().await.expect("close");

    let server = http_server(BIN, &[]).await;
    let client = stateless(&mute, &server.url).await;
    let result = client.call_tool(deploy()).await.expect("call");
    assert!(
        text(&result).contains("cannot ask the user"),
        "{}",
        text(&result)
    );
    assert!(mute.asked().is_empty());
    client.cancel().await.expect("close");
}

/// The first attempt goes to one instance, the retry with the answer to
/// another that shares the key; a state that was tampered with, issued under
/// another key, or expired is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_retry_may_reach_another_instance_with_the_same_key() {
    const KEY: &str = "a-shared-key-of-at-least-32-bytes!!";
    let first = http_server(BIN, &["--state-key", KEY]).await;
    let second = http_server(BIN, &["--state-key", KEY]).await;
    let other = http_server(
        BIN,
        &["--state-key", "another-key-of-at-least-32-bytes!!!!"],
    )
    .await;
    let person = Person::answering(accept());
    let to_first = stateless(&person, &first.url).await;
    let CallToolResponse::InputRequired(input) = to_first
        .call_tool_once(deploy())
        .await
        .expect("first attempt")
    else {
        panic!("the first attempt must ask");
    };
    let requests = input.input_requests.expect("a question");
    let state = input.request_state.expect("a state");
    let responses: std::collections::BTreeMap<String, Value> =
        requests.keys().map(|k| (k.clone(), accept())).collect();
    let retry = |state: &str| {
        let mut params = deploy();
        params.input_responses = Some(responses.clone());
        params.request_state = Some(state.to_owned());
        params
    };

    let to_second = stateless(&person, &second.url).await;
    match to_second
        .call_tool_once(retry(&state))
        .await
        .expect("retry")
    {
        CallToolResponse::Complete(result) => assert_eq!(text(&result), "deployed api to eu x3"),
        other => panic!("{other:?}"),
    }

    let mut tampered = state.clone().into_bytes();
    let at = tampered.len() / 2;
    tampered[at] = if tampered[at] == b'A' { b'B' } else { b'A' };
    let tampered = String::from_utf8(tampered).expect("ASCII");
    let refused = to_second
        .call_tool_once(retry(&tampered))
        .await
        .expect_err("tampered");
    assert!(
        refused.to_string().contains("requestState refused"),
        "{refused}"
    );

    let to_other = stateless(&person, &other.url).await;
    let refused = to_other
        .call_tool_once(retry(&state))
        .await
        .expect_err("other key");
    assert!(
        refused.to_string().contains("requestState refused"),
        "{refused}"
    );

    // The answer cannot be replayed onto other arguments.
    let mut elsewhere = retry(&state);
    elsewhere.arguments = Some(serde_json::Map::from_iter([(
        "service".to_owned(),
        Value::from("db"),
    )]));
    let refused = to_second
        .call_tool_once(elsewhere)
        .await
        .expect_err("other arguments");
    assert!(
        refused.to_string().contains("requestState refused"),
        "{refused}"
    );

    let short_lived = http_server(BIN, &["--state-key", KEY, "--state-ttl-ms", "1"]).await;
    let to_short = stateless(&person, &short_lived.url).await;
    let CallToolResponse::InputRequired(input) = to_short
        .call_tool_once(deploy())
        .await
        .expect("first attempt")
    else {
        panic!("the first attempt must ask");
    };
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let expired = input.request_state.expect("a state");
    let refused = to_second
        .call_tool_once(retry(&expired))
        .await
        .expect_err("expired");
    assert!(
        refused.to_string().contains("requestState refused"),
        "{refused}"
    );
    for client in [to_first, to_second, to_other, to_short] {
        client.cancel().await.expect("close");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_who_never_answers_is_bounded_by_the_ask_timeout() {
    let mut slow = Person::answering(accept());
    slow.delay = Duration::from_secs(30);
    let client = session(&slow, &["--ask-timeout-ms", "300"]).await;
    let result = tokio::time::timeout(Duration::from_secs(10), client.call_tool(deploy()))
        .await
        .expect("the call ends well before the person would answer")
        .expect("call");
    assert!(is_error(&result));
    assert!(
        text(&result).contains("did not answer in time"),
        "{}",
        text(&result)
    );
    client.cancel().await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_while_the_person_decides_ends_the_handler() {
    let mut slow = Person::answering(accept());
    slow.delay = Duration::from_secs(30);
    let client = session(&slow, &[]).await;
    // Dropping the call's future sends notifications/cancelled.
    let cut = tokio::time::timeout(Duration::from_millis(500), client.call_tool(deploy())).await;
    assert!(cut.is_err(), "the call was still waiting for the person");
    let mut seen = String::new();
    for _ in 0..50 {
        let count = client
            .call_tool(CallToolRequestParams::new("cancellations"))
            .await
            .expect("cancellations");
        seen = text(&count);
        if seen == "1" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(seen, "1", "the handler's future was dropped");
    client.cancel().await.expect("close");
}

/// A raw 2026-07-28 request with a header and a `_meta` key; the handler
/// reads both, and the protocol version and client from the request.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handler_reads_the_request() {
    let server = http_server(BIN, &[]).await;
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
    "name": "whoami", "arguments": {},
    "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
        "io.modelcontextprotocol/clientInfo": {"name": "raw-client", "version": "9"},
        "example.com/tag": "m-1"
    }}});
    let response = reqwest::Client::new()
        .post(&server.url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "whoami")
        .header("x-request-tag", "h-1")
        .body(body.to_string())
        .send()
        .await
        .expect("request");
    assert_eq!(response.status(), 200);
    let body = response.text().await.expect("body");
    let message: Value = body
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .chain(std::iter::once(body.as_str()))
        .find_map(|l| serde_json::from_str(l.trim()).ok())
        .unwrap_or_else(|| panic!("no JSON-RPC answer in {body}"));
    let seen: Value = serde_json::from_str(
        message["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("{message}")),
    )
    .expect("whoami answers JSON");
    assert_eq!(
        seen,
        json!({
            "protocolVersion": "2026-07-28",
            "client": "raw-client",
            "elicitation": true,
            "header": "h-1",
            "metaTag": "m-1",
        })
    );

    // The same over a 2025-11-25 session, from the session's handshake.
    let person = Person::answering(accept());
    let client = session(&person, &[]).await;
    let result = client
        .call_tool(CallToolRequestParams::new("whoami"))
        .await
        .expect("call");
    let seen: Value = serde_json::from_str(&text(&result)).expect("JSON");
    assert_eq!(seen["protocolVersion"], "2025-11-25");
    assert_eq!(seen["client"], "ask-test");
    assert_eq!(seen["header"], Value::Null);
    client.cancel().await.expect("close");
}

/// The same through rmcp's client over HTTP, on 2026-07-28 requests and on
/// a 2025-11-25 session: a gateway's header, the request's `_meta`, the
/// protocol version and the client, as the handler reads them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handler_reads_the_request_through_rmcps_client_on_both_generations() {
    let server = http_server(BIN, &[]).await;
    for (modern, version) in [(true, "2026-07-28"), (false, "2025-11-25")] {
        let recorder = Recorder::default();
        let (client, _) =
            http_client_with(&server.url, recorder, modern, &[("x-request-tag", "h-2")]).await;
        let mut meta = rmcp::model::RequestMetaObject::default();
        meta.0.insert("example.com/tag".to_owned(), json!("m-2"));
        let mut params = CallToolRequestParams::new("whoami");
        params.meta = Some(meta);
        let result = client.call_tool(params).await.expect("call");
        let seen: Value = serde_json::from_str(&text(&result)).expect("JSON");
        assert_eq!(seen["protocolVersion"], version, "{seen}");
        let name = rmcp::model::ClientConfig::default().client_info.name;
        assert_eq!(seen["client"], name.as_str(), "{seen}");
        assert_eq!(seen["header"], "h-2", "{version}: {seen}");
        assert_eq!(seen["metaTag"], "m-2", "{version}: {seen}");
        client.cancel().await.expect("close");
    }
}

fn call_of(name: &str, args: Value) -> CallToolRequestParams {
    let Value::Object(args) = args else {
        unreachable!()
    };
    CallToolRequestParams::new(name.to_owned()).with_arguments(args)
}

/// `[confirm]`: asked with the real arguments before the handler runs; a
/// declined call never reaches the handler.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn confirmed_tools_ask_first_on_both_generations() {
    let declining = Person::answering(json!({"action": "decline"}));
    let client = session(&declining, &[]).await;
    let refused = client
        .call_tool(call_of("remove", json!({"path": "a.txt"})))
        .await
        .expect("call");
    assert!(is_error(&refused));
    assert!(
        text(&refused).contains("the user declined"),
        "{}",
        text(&refused)
    );
    let cancelling = Person::answering(json!({"action": "cancel"}));
    let other = session(&cancelling, &[]).await;
    let cancelled = other
        .call_tool(call_of("archive", json!({"path": "b"})))
        .await
        .expect("call");
    assert!(
        text(&cancelled).contains("cancelled"),
        "{}",
        text(&cancelled)
    );
    assert_eq!(
        cancelling.asked(),
        ["Archive b at level 6?"],
        "the default, as it takes effect"
    );
    other.cancel().await.expect("close");
    // Bad arguments are refused before anyone is asked.
    let invalid = client
        .call_tool(call_of("remove", json!({})))
        .await
        .expect("call");
    assert!(text(&invalid).contains("missing required argument `path`"));
    assert_eq!(declining.asked(), ["Remove a.txt?"]);
    client.cancel().await.expect("close");

    let accepting = Person::answering(json!({"action": "accept", "content": {}}));
    let client = session(&accepting, &[]).await;
    let done = client
        .call_tool(call_of("archive", json!({"path": "b", "level": 9})))
        .await
        .expect("call");
    // The first run of a fresh server: nothing ran before it.
    assert_eq!(text(&done), "archived b at 9 (run #1)");
    assert_eq!(accepting.asked(), ["Archive b at level 9?"]);
    client.cancel().await.expect("close");

    let server = http_server(BIN, &[]).await;
    let client = stateless(&accepting, &server.url).await;
    let done = client
        .call_tool(call_of("remove", json!({"path": "c.txt"})))
        .await
        .expect("call");
    assert_eq!(text(&done), "removed c.txt (run #1)");
    client.cancel().await.expect("close");
}

/// A client that cannot ask: `unsupported = "refuse"` refuses, the default
/// proceeds.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn confirmation_without_a_way_to_ask_follows_unsupported() {
    let mut mute = Person::answering(accept());
    mute.can_answer = false;
    let client = session(&mute, &[]).await;
    let refused = client
        .call_tool(call_of("remove", json!({"path": "a.txt"})))
        .await
        .expect("call");
    assert!(is_error(&refused));
    assert!(
        text(&refused).contains("needs the user's confirmation"),
        "{}",
        text(&refused)
    );
    let done = client
        .call_tool(call_of("archive", json!({"path": "b"})))
        .await
        .expect("call");
    assert_eq!(text(&done), "archived b at 6 (run #1)");
    client.cancel().await.expect("close");
}
