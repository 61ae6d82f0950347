//! SEP-1699 polling over Streamable HTTP: a handler ends its call's SSE
//! stream (`Context::close_stream`), the client comes back with `GET` and
//! `Last-Event-ID`, and the result reaches it there, however soon the
//! handler answers.

use std::net::SocketAddr;
use std::time::Duration;
use toolmetadata::metadata::Load as _;

use rmcp::model::{GetPromptResult, Prompt, PromptMessage, Role};
use serde_json::{Value, json};
use toolmetadata::server::{Arguments, HttpOptions, Server};
use toolmetadata::{Context, ToolMetadata, ToolResult};

/// Closes its stream (the client to come back after 200 ms) and tries
/// again at once; once the client is back (a close succeeds again), closes
/// it a second time, and then answers at once: the answer must wait for the
/// client.
async fn poll(_: Arguments, cx: Context) -> ToolResult {
    let closed = cx.close_stream(Duration::from_millis(200)).await;
    let twice = cx.close_stream(Duration::from_millis(200)).await;
    let mut again = false;
    for _ in 0..200 {
        tokio::time::sleep(Duration::from_millis(50)).await;
        again = cx.close_stream(Duration::from_millis(200)).await;
        if again {
            break;
        }
    }
    Ok(format!("closed {closed}, twice {twice}, again {again}").into())
}

/// Runs as a task when the client asks: its call's stream carries the
/// task's handle, which it cannot close.
async fn in_task(_: Arguments, cx: Context) -> ToolResult {
    Ok(format!(
        "closed {}",
        cx.close_stream(Duration::from_millis(200)).await
    )
    .into())
}

/// Closes its stream once and answers at once.
async fn close_once(_: Arguments, cx: Context) -> ToolResult {
    let closed = cx.close_stream(Duration::from_millis(100)).await;
    Ok(format!("closed {closed}").into())
}

/// `server` on a free port of loopback: its URL.
async fn listen(server: Server) -> String {
    let probe = std::net::TcpListener::bind("127.0.0.1:0").expect("probe");
    let addr: SocketAddr = probe.local_addr().expect("addr");
    drop(probe);
    let bound = server
        .bind_http(HttpOptions::default().addr(addr))
        .await
        .expect("bind");
    tokio::spawn(bound.run());
    format!("http://{addr}/mcp")
}

async fn serve() -> String {
    let tool = |name: &str, task: &str| {
        ToolMetadata::from_toml_str(
            name,
            &format!("description = \"A tool\"\ntask = \"{task}\"\n"),
        )
        .expect("metadata")
    };
    let server = Server::builder()
        .tool(tool("poll", "forbidden"), poll)
        .tool(tool("in_task", "optional"), in_task)
        // A prompt's answer is not held for a resumption: it has no stream
        // to close.
        .prompt(
            Prompt::new("closing", Some("Tries to close its stream"), None),
            |_, cx: Context| async move {
                let closed = cx.close_stream(Duration::from_millis(200)).await;
                Ok(GetPromptResult::new(vec![PromptMessage::new_text(
                    Role::User,
                    format!("closed {closed}"),
                )]))
            },
        )
        .build()
        .expect("server");
    listen(server).await
}

/// One server-sent event.
#[derive(Debug, Default)]
struct Event {
    id: Option<String>,
    retry: Option<u64>,
    data: String,
}

/// The events of `response`, read until its body ends or `until` holds of
/// one (at most 10 seconds).
async fn events(mut response: reqwest::Response, until: impl Fn(&Event) -> bool) -> Vec<Event> {
    let mut text = String::new();
    let mut events = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let chunk = tokio::time::timeout_at(deadline, response.chunk())
            .await
            .expect("the stream ended or answered in time")
            .expect("body");
        let Some(chunk) = chunk else { return events };
        text.push_str(std::str::from_utf8(&chunk).expect("utf-8"));
        while let Some(end) = text.find("\n\n") {
            let block: String = text.drain(..end + 2).collect();
            let mut event = Event::default();
            for line in block.lines() {
                if let Some(id) = line.strip_prefix("id:") {
                    event.id = Some(id.trim().to_owned());
                } else if let Some(retry) = line.strip_prefix("retry:") {
                    event.retry = retry.trim().parse().ok();
                } else if let Some(data) = line.strip_prefix("data:") {
                    event.data.push_str(data.trim());
                }
            }
            let done = until(&event);
            events.push(event);
            if done {
                return events;
            }
        }
    }
}

fn answer(event: &Event, id: u64) -> Option<Value> {
    let message: Value = serde_json::from_str(&event.data).ok()?;
    (message["id"] == id).then_some(message)
}

async fn post(url: &str, session: Option<&str>, body: Value) -> reqwest::Response {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25");
    if let Some(session) = session {
        request = request.header("mcp-session-id", session);
    }
    request
        .body(body.to_string())
        .send()
        .await
        .expect("request")
}

/// Sends request `id` of `session` and reads its answer off the stream it
/// is answered on.
async fn request(url: &str, session: &str, id: u64, method: &str, params: Value) -> Value {
    let response = post(
        url,
        Some(session),
        json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
    )
    .await;
    events(response, |e| answer(e, id).is_some())
        .await
        .iter()
        .find_map(|e| answer(e, id))
        .expect("an answer on the request's stream")
}

/// A 2025-11-25 session whose client can use tasks: its id.
async fn session(url: &str) -> String {
    let init = post(
        url,
        None,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {"tasks": {}},
            "clientInfo": {"name": "raw", "version": "0"}}}),
    )
    .await;
    let session = init
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .expect("a session id")
        .to_owned();
    events(init, |e| answer(e, 1).is_some()).await;
    let initialized = post(
        url,
        Some(&session),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .await;
    assert_eq!(initialized.status(), 202);
    session
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_stream_is_resumed_and_the_result_waits_for_it() {
    let url = serve().await;
    let session = session(&url).await;

    let call = post(
        &url,
        Some(&session),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
               "params": {"name": "poll", "arguments": {}}}),
    )
    .await;
    assert_eq!(call.status(), 200);
    let before = events(call, |_| false).await;
    assert!(
        before.iter().all(|e| answer(e, 2).is_none()),
        "the result came before the stream was closed: {before:?}"
    );
    let last = before.last().expect("a priming event");
    assert_eq!(
        last.retry,
        Some(200),
        "the client is told when to come back"
    );
    let last_id = last.id.clone().expect("an event id to resume from");

    // Back: the handler closes the stream a second time, which ends this
    // one too.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let between = events(resume(&url, &session, &last_id).await, |_| false).await;
    assert!(
        between.iter().all(|e| answer(e, 2).is_none()),
        "the result came before the stream was closed again: {between:?}"
    );
    let last = between.last().expect("the second close's priming event");
    assert_eq!(last.retry, Some(200), "{between:?}");
    let last_id = last.id.clone().expect("an event id to resume from");

    // Later than the handler answered: its result waited.
    tokio::time::sleep(Duration::from_millis(800)).await;
    let result = answer_on_resumption(&url, &session, &last_id, 2).await;
    assert_eq!(
        result["result"]["content"][0]["text"], "closed true, twice false, again true",
        "{result}"
    );
}

/// With the streams' events kept (an event store, as behind a balancer), a
/// call that closed its stream answers at once: its answer is kept, and the
/// client's resumption replays it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_events_kept_the_answer_of_a_closed_stream_waits_in_the_store() {
    let url = serve_kept().await;
    let session = session(&url).await;
    let call = post(
        &url,
        Some(&session),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
               "params": {"name": "close_once", "arguments": {}}}),
    )
    .await;
    let before = events(call, |_| false).await;
    assert!(before.iter().all(|e| answer(e, 2).is_none()), "{before:?}");
    let last = before.last().expect("the close's priming event");
    assert_eq!(last.retry, Some(100), "{before:?}");
    let last_id = last.id.clone().expect("an event id to resume from");
    // The handler answered meanwhile, the stream closed: kept, replayed.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let result = answer_on_resumption(&url, &session, &last_id, 2).await;
    assert_eq!(
        result["result"]["content"][0]["text"], "closed true",
        "{result}"
    );
}

/// A server whose streams' events are kept in memory, with `close_once`.
async fn serve_kept() -> String {
    let tool =
        ToolMetadata::from_toml_str("close_once", "description = \"A tool\"\n").expect("metadata");
    let server = Server::builder()
        .tool(tool, close_once)
        .event_store(toolmetadata::server::store::InMemoryEventStore::new(100))
        .build()
        .expect("server");
    listen(server).await
}

/// Resumes `session`'s stream from `last_id` and reads the answer to
/// request `id` off it.
async fn answer_on_resumption(url: &str, session: &str, last_id: &str, id: u64) -> Value {
    events(resume(url, session, last_id).await, |e| {
        answer(e, id).is_some()
    })
    .await
    .iter()
    .find_map(|e| answer(e, id))
    .expect("the result on the resumed stream")
}

/// Last-Event-IDs no server issued, or issued to someone else, resume
/// nothing and break nothing: each gets an empty stream or the session's
/// own live one, and the session goes on answering.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forged_last_event_id_replays_nothing_when_events_are_kept() {
    let url = serve_kept().await;
    let session = session(&url).await;
    let other = self::session(&url).await;
    let long = format!("{}/1.1", "x".repeat(6_000));
    let forged = [
        "unkept-0-0".to_owned(),
        format!("{other}:common/1.1"),
        format!("{session}:common/1.99999999999999999999"),
        format!("{session}:common/18446744073709551615.18446744073709551615"),
        "00000000-0000-4000-8000-000000000000/1.1".to_owned(),
        "a/b/c/1.1".to_owned(),
        long,
        "/".to_owned(),
        "\u{7f}".to_owned(),
    ];
    for id in &forged {
        let response = reqwest::Client::new()
            .get(&url)
            .header("accept", "text/event-stream")
            .header("mcp-session-id", &session)
            .header("mcp-protocol-version", "2025-11-25")
            .header("last-event-id", id.as_str())
            .timeout(Duration::from_secs(5))
            .send()
            .await;
        // A header value reqwest refuses never reaches the server.
        let Ok(mut response) = response else { continue };
        let shown: String = id.chars().take(40).collect();
        assert!(
            [200, 400, 431].contains(&response.status().as_u16()),
            "{shown}: {}",
            response.status()
        );
        let first = tokio::time::timeout(Duration::from_millis(300), response.chunk()).await;
        if let Ok(Ok(Some(chunk))) = first {
            let text = String::from_utf8_lossy(&chunk);
            assert!(!text.contains("\"result\""), "{shown}: {text}");
        }
    }
    let answered = request(&url, &session, 9, "tools/list", json!({})).await;
    assert!(answered["result"]["tools"].is_array(), "{answered}");
}

/// Resumes `session`'s stream from `last_id`.
async fn resume(url: &str, session: &str, last_id: &str) -> reqwest::Response {
    let resumed = reqwest::Client::new()
        .get(url)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", session)
        .header("mcp-protocol-version", "2025-11-25")
        .header("last-event-id", last_id)
        .send()
        .await
        .expect("GET");
    assert_eq!(resumed.status(), 200);
    resumed
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_cannot_close_the_stream_of_the_call_that_started_it() {
    let url = serve().await;
    let session = session(&url).await;
    let handle = request(
        &url,
        &session,
        2,
        "tools/call",
        json!({"name": "in_task", "arguments": {}, "task": {}}),
    )
    .await;
    let task = handle["result"]["task"]["taskId"]
        .as_str()
        .expect("a task id")
        .to_owned();
    for attempt in 0.. {
        let result = request(
            &url,
            &session,
            3 + attempt,
            "tasks/result",
            json!({"taskId": task}),
        )
        .await;
        if let Some(text) = result["result"]["content"][0]["text"].as_str() {
            assert_eq!(text, "closed false", "{result}");
            return;
        }
        assert!(attempt < 50, "no result: {result}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_a_tool_call_can_close_its_stream() {
    let url = serve().await;
    let session = session(&url).await;
    let result = request(&url, &session, 2, "prompts/get", json!({"name": "closing"})).await;
    assert_eq!(
        result["result"]["messages"][0]["content"]["text"], "closed false",
        "{result}"
    );
}

/// A client resuming a stream it does not have (another request's id, a
/// malformed id) neither releases the call's held result nor gets it: the
/// result still comes on the stream the call's own id resumes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forged_last_event_id_releases_nothing() {
    let url = serve().await;
    let session = session(&url).await;
    let call = post(
        &url,
        Some(&session),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
               "params": {"name": "poll", "arguments": {}}}),
    )
    .await;
    let before = events(call, |_| false).await;
    let last_id = before
        .last()
        .and_then(|e| e.id.clone())
        .expect("an event id");
    for forged in ["0/4096", "x/y", "/", "18446744073709551616/1", ""] {
        let response = reqwest::Client::new()
            .get(&url)
            .header("accept", "text/event-stream")
            .header("mcp-session-id", &session)
            .header("mcp-protocol-version", "2025-11-25")
            .header("last-event-id", forged)
            .send()
            .await
            .expect("GET");
        if response.status() == 200 {
            let got = tokio::time::timeout(Duration::from_millis(500), response.text()).await;
            if let Ok(Ok(text)) = got {
                assert!(!text.contains("\"id\":2"), "{forged}: {text}");
            }
        }
    }
    // The real resumption, then the handler's second close, then the result.
    let between = events(resume(&url, &session, &last_id).await, |_| false).await;
    let last_id = between
        .last()
        .and_then(|e| e.id.clone())
        .expect("the second close's event id");
    let after = events(resume(&url, &session, &last_id).await, |e| {
        answer(e, 2).is_some()
    })
    .await;
    let result = after.iter().find_map(|e| answer(e, 2)).expect("the result");
    assert_eq!(
        result["result"]["content"][0]["text"], "closed true, twice false, again true",
        "{result}"
    );
}
