//! One fleet: three example-server instances behind HAProxy, each 2025-11-25
//! session pinned to its instance by a stick table on `Mcp-Session-Id`,
//! sharing one store, on Redis and on PostgreSQL in turn (stores of the
//! test's own):
//!
//! - a client subscribed to a file through the balancer hears of every
//!   write to it, made through any instance, once each, on both protocol
//!   generations (a 2025-11-25 session's stream, a 2026-07-28
//!   `subscriptions/listen` stream);
//! - a tool enabled or disabled through any instance's operator door is
//!   listed or not by every instance, and the client's 2025-11-25 session
//!   stream and 2026-07-28 listen stream hear one
//!   `notifications/tools/list_changed` per change;
//! - a task a 2025-11-25 session started on one instance and cancelled
//!   through another ends, and the session's stream hears
//!   `notifications/tasks/status` (cancelled);
//! - a session's stream cut mid-way and resumed with `Last-Event-ID` on
//!   another instance gets exactly the events it missed, in order, none
//!   twice, with the ids they were first sent with; resumed on its own
//!   instance it goes on live after the replay, each event once.

use std::time::{Duration, Instant};

use rmcp::model::{ServerNotification, SubscriptionFilter};
use serde_json::json;
use toolmetadata_tests::haproxy::Haproxy;
use toolmetadata_tests::mcp::*;
use toolmetadata_tests::sse::{Event, Sse};
use toolmetadata_tests::stores::{OwnPostgres, OwnRedis};

const BIN: &str = env!("CARGO_BIN_EXE_example-server");
/// How long a notification may take to cross instances.
const CROSSING: Duration = Duration::from_secs(5);
/// How long the test waits for a notification that must not come.
const QUIET: Duration = Duration::from_millis(700);

/// Writes `content` to `a.txt` through the instance at `url` (a 2026-07-28
/// call: no session, no question asked of a client that cannot answer).
async fn write_through(url: &str, content: &str) {
    let body = request_2026(
        1,
        "tools/call",
        json!({"name": "write_file", "arguments": {"path": "a.txt", "content": content}}),
    );
    let (status, answer) = post_2026(url, "tools/call", Some("write_file"), &[], body).await;
    assert_eq!(status, 200, "{answer}");
    let message = message_of(&answer);
    assert_eq!(message["result"]["isError"], false, "{answer}");
}

/// The resource updates among `events`.
fn updates(events: &[Event]) -> Vec<&Event> {
    events
        .iter()
        .filter(|e| e.data["method"] == "notifications/resources/updated")
        .collect()
}

/// Every event of `stream` until none comes for `QUIET` (or it ends).
async fn drain(stream: &mut Sse) -> Vec<Event> {
    let mut events = Vec::new();
    while let Some(event) = stream.next(QUIET).await {
        events.push(event);
    }
    events
}

/// The tool names a 2026-07-28 `tools/list` through `url` shows.
async fn tools_through(url: &str) -> Vec<String> {
    let body = request_2026(2, "tools/list", json!({}));
    let (status, answer) = post_2026(url, "tools/list", None, &[], body).await;
    assert_eq!(status, 200, "{answer}");
    let mut names: Vec<String> = message_of(&answer)["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].as_str().expect("name").to_owned())
        .collect();
    names.sort();
    names
}

/// The operator's door of `instance` (`--admin 127.0.0.1:0`), as it
/// announced it: `http://127.0.0.1:PORT/tools`.
fn door(instance: &HttpServer) -> String {
    instance
        .startup
        .iter()
        .find_map(|line| Some(line.split("operator's door on ").nth(1)?.trim().to_owned()))
        .expect("the instance announces its operator's door")
}

/// Enables (or disables) `tool` through the operator's door at `door`.
async fn switch(door: &str, tool: &str, enable: bool) {
    let action = if enable { "enable" } else { "disable" };
    let answer = reqwest::Client::new()
        .post(format!("{door}/{tool}/{action}"))
        .send()
        .await
        .expect("the door answers");
    assert_eq!(answer.status(), 204, "{action} {tool}");
}

/// The session's own stream (`GET`), from `last_event_id` when given.
async fn session_stream(url: &str, session: &str, last_event_id: Option<&str>) -> Sse {
    let mut request = reqwest::Client::new()
        .get(url)
        .header("accept", "text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .header("mcp-session-id", session);
    if let Some(id) = last_event_id {
        request = request.header("last-event-id", id);
    }
    Sse::open(request).await.expect("the session's stream")
}

async fn subscribe(url: &str, session: &str, uri: &str) {
    let request = json!({"jsonrpc": "2.0", "id": 7, "method": "resources/subscribe",
                         "params": {"uri": uri}});
    let (status, body) = send_2025(url, "POST", Some(session), &[], Some(request)).await;
    assert_eq!(status, 200, "{body}");
    assert!(message_of(&body)["result"].is_object(), "{body}");
}

async fn scenario(store: &str) {
    let ws = tempfile::tempdir().expect("tempdir");
    std::fs::write(ws.path().join("a.txt"), "one\n").expect("write");
    let canonical = ws.path().canonicalize().expect("canonical");
    let uri = format!("file://{}", canonical.join("a.txt").display());
    let root = ws.path().display().to_string();
    // `file_info` disabled to begin with; each instance with its door.
    let args = [
        "--root",
        root.as_str(),
        "--store",
        store,
        "--admin",
        "127.0.0.1:0",
        "--disable-tool",
        "file_info",
        "--allow-command",
        "sleep",
    ];
    let mut instances = Vec::new();
    for _ in 0..3 {
        instances.push(http_server(BIN, &args).await);
    }
    let urls: Vec<String> = instances.iter().map(|i| i.url.clone()).collect();
    let backends: Vec<std::net::SocketAddr> = urls
        .iter()
        .map(|url| {
            url.trim_start_matches("http://")
                .trim_end_matches("/mcp")
                .parse()
                .expect("an address")
        })
        .collect();
    // A session sticks to the instance that opened it (the stick table
    // learns the id from the `initialize` answer); 2026-07-28 requests,
    // which carry none, go round robin.
    let Some(balancer) = Haproxy::start_with_backend(
        "the fleet test",
        "http",
        &[],
        &[
            "stick-table type string len 64 size 10k expire 30m",
            "stick on req.hdr(mcp-session-id)",
            "stick store-response res.hdr(mcp-session-id)",
        ],
        &backends,
        "",
    )
    .await
    else {
        return;
    };

    // A 2025-11-25 session through the balancer, its stream and its
    // subscription on the instance it sticks to.
    let session = open_session_2025(&balancer.url(), &[]).await;
    let mut stream = session_stream(&balancer.url(), &session, None).await;
    subscribe(&balancer.url(), &session, &uri).await;
    // Each instance listens on the bus from when it is built: write through
    // each until its change is heard, so that all are listening.
    for (i, url) in urls.iter().enumerate() {
        let started = Instant::now();
        loop {
            write_through(url, &format!("warm {i}")).await;
            if stream
                .next(Duration::from_millis(300))
                .await
                .is_some_and(|e| e.data["params"]["uri"] == uri.as_str())
            {
                break;
            }
            assert!(started.elapsed() < CROSSING, "instance {i} is never heard");
        }
    }
    drain(&mut stream).await;
    // Now one write through each instance: three updates, once each.
    for (i, url) in urls.iter().enumerate() {
        write_through(url, &format!("v{i}")).await;
    }
    let mut heard = Vec::new();
    let started = Instant::now();
    while heard.len() < 3 && started.elapsed() < CROSSING {
        if let Some(event) = stream.next(Duration::from_millis(200)).await {
            heard.push(event);
        }
    }
    heard.extend(drain(&mut stream).await);
    let told = updates(&heard);
    assert_eq!(
        told.len(),
        3,
        "one update per write, through any instance: {heard:?}"
    );
    assert!(told.iter().all(|e| e.data["params"]["uri"] == uri.as_str()));

    // 2026-07-28: a listen stream through the balancer (on whichever
    // instance), told of a write through each, and of the tools' list.
    let (listener, _) = http_client_2026(&balancer.url()).await;
    let mut filter = SubscriptionFilter::builder().tools_list_changed().build();
    filter.resource_subscriptions = Some(vec![uri.clone()]);
    let mut listen = listener.listen(filter).await.expect("subscriptions/listen");
    // rmcp acknowledges before the server watches the stream: write until
    // it is heard, then once through each instance.
    let started = Instant::now();
    loop {
        write_through(&urls[0], "listen warm").await;
        if let Ok(Ok(Some(_))) =
            tokio::time::timeout(Duration::from_millis(300), listen.next()).await
        {
            break;
        }
        assert!(
            started.elapsed() < CROSSING,
            "the listen stream is never told"
        );
    }
    while let Ok(Ok(Some(_))) = tokio::time::timeout(QUIET, listen.next()).await {}
    for (i, url) in urls.iter().enumerate() {
        write_through(url, &format!("l{i}")).await;
    }
    let mut told = 0;
    while let Ok(Ok(Some(notification))) = tokio::time::timeout(CROSSING, listen.next()).await {
        match notification {
            ServerNotification::ResourceUpdatedNotification(n) => {
                assert_eq!(n.params.uri, uri);
                told += 1;
            }
            other => panic!("expected resource updates only, got {other:?}"),
        }
        if told == 3 {
            break;
        }
    }
    assert_eq!(told, 3, "one update per write on the listen stream");
    assert!(
        tokio::time::timeout(QUIET, listen.next()).await.is_err(),
        "an update told twice"
    );

    // The tools' list: `file_info` enabled through the first instance's
    // door, disabled through the second's, enabled through the third's
    // (whichever holds the session, two changes cross instances). Each
    // change reaches every instance's list and both streams once.
    assert!(
        !tools_through(&urls[1])
            .await
            .contains(&"file_info".to_owned())
    );
    // A web page cannot use the door (its `fetch` carries an Origin), nor a
    // rebound name (another Host).
    for (name, value) in [("origin", "http://evil.example"), ("host", "evil.example")] {
        let refused = reqwest::Client::new()
            .post(format!("{}/file_info/enable", door(&instances[0])))
            .header(name, value)
            .send()
            .await
            .expect("the door answers");
        assert_eq!(refused.status(), 403, "{name}: {value}");
    }
    for (i, instance) in instances.iter().enumerate() {
        let enable = i != 1;
        switch(&door(instance), "file_info", enable).await;
        let started = Instant::now();
        for url in &urls {
            while tools_through(url).await.contains(&"file_info".to_owned()) != enable {
                assert!(
                    started.elapsed() < CROSSING,
                    "{url} never follows change {i}"
                );
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
    let mut heard = Vec::new();
    let started = Instant::now();
    let changed = |events: &[Event]| {
        events
            .iter()
            .filter(|e| e.data["method"] == "notifications/tools/list_changed")
            .count()
    };
    while changed(&heard) < 3 && started.elapsed() < CROSSING {
        heard.extend(stream.next(Duration::from_millis(200)).await);
    }
    heard.extend(drain(&mut stream).await);
    assert_eq!(changed(&heard), 3, "one per change: {heard:?}");
    let mut told = 0;
    while let Ok(Ok(Some(notification))) = tokio::time::timeout(CROSSING, listen.next()).await {
        match notification {
            ServerNotification::ToolListChangedNotification(_) => told += 1,
            other => panic!("expected list changes only, got {other:?}"),
        }
        if told == 3 {
            break;
        }
    }
    assert_eq!(told, 3, "one list change per change on the listen stream");
    assert!(
        tokio::time::timeout(QUIET, listen.next()).await.is_err(),
        "a list change told twice"
    );
    // The session lists it too, as its instance does now.
    let list = json!({"jsonrpc": "2.0", "id": 8, "method": "tools/list", "params": {}});
    let (status, body) = send_2025(&balancer.url(), "POST", Some(&session), &[], Some(list)).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("\"file_info\""), "{body}");

    // A task started by a session of the first instance, cancelled through
    // the second (which picks the session up from the store): the runner
    // sees the cancellation in the store and tells the session's stream.
    let tasking = open_session_2025_declaring(&urls[0], &[], json!({"tasks": {}})).await;
    let mut told = session_stream(&urls[0], &tasking, None).await;
    let call = json!({"jsonrpc": "2.0", "id": 20, "method": "tools/call", "params": {
        "name": "run_command", "arguments": {"program": "sleep", "args": ["30"]},
        "task": {"ttl": 60_000}}});
    let (status, body) = send_2025(&urls[0], "POST", Some(&tasking), &[], Some(call)).await;
    assert_eq!(status, 200, "{body}");
    let task = message_of(&body)["result"]["task"]["taskId"].clone();
    assert!(task.is_string(), "{body}");
    let cancel = json!({"jsonrpc": "2.0", "id": 21, "method": "tasks/cancel",
                        "params": {"taskId": task}});
    let (status, body) = send_2025(&urls[1], "POST", Some(&tasking), &[], Some(cancel)).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(message_of(&body)["result"]["status"], "cancelled", "{body}");
    let started = Instant::now();
    let mut ended = Vec::new();
    while started.elapsed() < CROSSING {
        if let Some(event) = told.next(Duration::from_millis(200)).await
            && event.data["method"] == "notifications/tasks/status"
        {
            ended.push(event);
            break;
        }
    }
    ended.extend(
        drain(&mut told)
            .await
            .into_iter()
            .filter(|e| e.data["method"] == "notifications/tasks/status"),
    );
    assert_eq!(ended.len(), 1, "told once: {ended:?}");
    assert_eq!(ended[0].data["params"]["taskId"], task);
    assert_eq!(ended[0].data["params"]["status"], "cancelled");
    drop(told);

    // A session of the first instance's own: its stream cut after the first
    // update, two more writes, then resumed on the second instance.
    let session = open_session_2025(&urls[0], &[]).await;
    let mut stream = session_stream(&urls[0], &session, None).await;
    subscribe(&urls[0], &session, &uri).await;
    let mut sent = Vec::new();
    for n in 0..2 {
        write_through(&urls[2], &format!("r{n}")).await;
        let started = Instant::now();
        while updates(&sent).len() <= n {
            assert!(started.elapsed() < CROSSING, "update {n} never sent");
            if let Some(event) = stream.next(Duration::from_millis(200)).await {
                sent.push(event);
            }
        }
    }
    let sent: Vec<Event> = updates(&sent).into_iter().cloned().collect();
    drop(stream);
    for n in 2..4 {
        write_through(&urls[2], &format!("r{n}")).await;
    }
    // The first instance keeps what it sends while nobody reads it.
    tokio::time::sleep(QUIET).await;
    let first_id = sent[0].id.clone().expect("an id to resume from");
    let mut resumed = session_stream(&urls[1], &session, Some(&first_id)).await;
    let replayed = drain(&mut resumed).await;
    let replayed: Vec<&Event> = replayed.iter().filter(|e| !e.data.is_null()).collect();
    assert_eq!(
        replayed.len(),
        3,
        "the second update and the two sent while cut, nothing else: {replayed:?}"
    );
    assert_eq!(
        replayed[0], &sent[1],
        "the one seen before the cut, as it was sent"
    );
    assert!(
        replayed
            .iter()
            .all(|e| e.data["params"]["uri"] == uri.as_str())
    );
    let ids: Vec<&str> = replayed.iter().filter_map(|e| e.id.as_deref()).collect();
    let mut unique = ids.clone();
    unique.dedup();
    assert_eq!(unique.len(), 3, "each once, each with an id: {ids:?}");
    // From the last one, on the third instance: nothing more.
    let last = ids[2].to_owned();
    let mut after = session_stream(&urls[2], &session, Some(&last)).await;
    let more: Vec<Event> = drain(&mut after)
        .await
        .into_iter()
        .filter(|e| !e.data.is_null())
        .collect();
    assert!(more.is_empty(), "{more:?}");
    // On the instance holding the session, the resumed stream goes on live:
    // the replay, then a new write heard once.
    let mut own = session_stream(&urls[0], &session, Some(&first_id)).await;
    let mut got = Vec::new();
    let started = Instant::now();
    while updates(&got).len() < 3 && started.elapsed() < CROSSING {
        got.extend(own.next(Duration::from_millis(200)).await);
    }
    write_through(&urls[2], "r4").await;
    while updates(&got).len() < 4 && started.elapsed() < 2 * CROSSING {
        got.extend(own.next(Duration::from_millis(200)).await);
    }
    got.extend(drain(&mut own).await);
    let told = updates(&got);
    let mut ids: Vec<&str> = told.iter().filter_map(|e| e.id.as_deref()).collect();
    assert_eq!(told.len(), 4, "three replayed, one live: {got:?}");
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 4, "each once: {got:?}");
    // Another session's id cannot read this stream.
    let other = open_session_2025(&urls[1], &[]).await;
    let mut foreign = session_stream(&urls[1], &other, Some(&first_id)).await;
    let stolen: Vec<Event> = drain(&mut foreign)
        .await
        .into_iter()
        .filter(|e| !e.data.is_null())
        .collect();
    assert!(stolen.is_empty(), "{stolen:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_instances_tell_every_subscriber_on_redis() {
    let redis = OwnRedis::start();
    scenario(&redis.url()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_instances_tell_every_subscriber_on_postgres() {
    let postgres = tokio::task::spawn_blocking(OwnPostgres::start)
        .await
        .expect("postgres");
    scenario(&postgres.url()).await;
}
