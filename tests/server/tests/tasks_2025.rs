//! Tasks the way a 2025-11-25 session asks for them (SEP-1686), in raw
//! JSON-RPC since rmcp's client speaks only the 2026-07-28 extension: the
//! `initialize` answer declares `capabilities.tasks`; `tools/call` with
//! `task` answers `{"task": …}` at once; `tasks/get` shows the task,
//! `tasks/result` waits for the call's own result, `tasks/cancel` cancels
//! it. Over a Streamable HTTP session and over stdio.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use toolmetadata_tests::mcp::*;
use toolmetadata_tests::raw::Peer;

const BIN: &str = env!("CARGO_BIN_EXE_toolmetadata-test-server");

fn task_call(name: &str, arguments: Value) -> Value {
    json!({"name": name, "arguments": arguments, "task": {"ttl": 60_000}})
}

async fn the_old_task_flow(peer: &mut Peer) {
    let capabilities = peer.initialize().await;
    assert_eq!(
        capabilities["tasks"],
        json!({"cancel": {}, "requests": {"tools": {"call": {}}}}),
        "{capabilities}"
    );

    // The handle comes at once, in 2025-11-25's shape.
    let started = Instant::now();
    let answer = peer
        .request(2, "tools/call", task_call("job", json!({"seconds": 1})))
        .await;
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "the handle waited"
    );
    let task = &answer["result"]["task"];
    let id = task["taskId"].as_str().expect("a task id").to_owned();
    assert_eq!(task["status"], "working", "{answer}");
    assert_eq!(task["ttl"], 60_000, "the client's shorter ttl is kept");
    assert!(task["pollInterval"].as_u64().is_some_and(|p| p > 0));
    assert!(task["createdAt"].is_string() && task["lastUpdatedAt"].is_string());
    assert!(answer["result"].get("resultType").is_none(), "{answer}");

    // tasks/get answers the task's own fields, progress as its message.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let got = peer.request(3, "tasks/get", json!({"taskId": id})).await;
        assert_eq!(got["result"]["taskId"], id.as_str(), "{got}");
        if got["result"]["statusMessage"] == "started" || got["result"]["status"] == "completed" {
            break;
        }
        assert!(Instant::now() < deadline, "no progress in {got}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    // tasks/result waits for the end and answers the call's result.
    let result = peer.request(4, "tasks/result", json!({"taskId": id})).await;
    assert_eq!(
        result["result"]["content"][0]["text"], "job done after 1 s",
        "{result}"
    );
    assert!(result["result"].get("resultType").is_none(), "{result}");
    assert_eq!(
        result["result"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        id.as_str()
    );
    let got = peer.request(5, "tasks/get", json!({"taskId": id})).await;
    assert_eq!(got["result"]["status"], "completed", "{got}");

    // A long one, cancelled: the answer is the cancelled task, and it has no
    // result.
    let answer = peer
        .request(6, "tools/call", task_call("job", json!({"seconds": 60})))
        .await;
    let long = answer["result"]["task"]["taskId"]
        .as_str()
        .expect("a task id")
        .to_owned();
    // Cancelled once its handler runs (it says "started"): a task cancelled
    // before its handler starts never runs it, and the count below is the
    // handler's.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let state = peer.request(61, "tasks/get", json!({"taskId": long})).await;
        if state["result"]["statusMessage"] == "started" {
            break;
        }
        assert!(Instant::now() < deadline, "the task never started: {state}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let cancelled = peer
        .request(7, "tasks/cancel", json!({"taskId": long}))
        .await;
    assert_eq!(cancelled["result"]["status"], "cancelled", "{cancelled}");
    assert_eq!(cancelled["result"]["taskId"], long.as_str());
    let none = peer
        .request(8, "tasks/result", json!({"taskId": long}))
        .await;
    assert_eq!(none["error"]["code"], -32602, "{none}");
    let again = peer.request(9, "tasks/cancel", json!({"taskId": id})).await;
    assert_eq!(again["error"]["code"], -32602, "a finished task: {again}");

    // The handler's Context saw the cancellation.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let seen = peer
            .request(
                10,
                "tools/call",
                json!({"name": "cancellations", "arguments": {}}),
            )
            .await;
        if seen["result"]["content"][0]["text"] != "0" {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the handler never saw the cancel"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    // A task-only tool: refused without `task` (-32601, as 2025-11-25 says),
    // a task with it.
    let refused = peer
        .request(11, "tools/call", json!({"name": "export", "arguments": {}}))
        .await;
    assert_eq!(refused["error"]["code"], -32601, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("`export` runs only as a task"),
        "{message}"
    );
    // A `ttl` too short to read the result by is raised.
    let export = peer
        .request(
            12,
            "tools/call",
            json!({"name": "export", "arguments": {}, "task": {"ttl": 0}}),
        )
        .await;
    assert_eq!(export["result"]["task"]["ttl"], 60_000, "{export}");
    let export = export["result"]["task"]["taskId"].as_str().expect("a task");
    let result = peer
        .request(13, "tasks/result", json!({"taskId": export}))
        .await;
    assert_eq!(
        result["result"]["content"][0]["text"], "exported",
        "{result}"
    );

    // A tool that never runs as a task (-32601), bad `task`s, unknown ids.
    let forbidden = peer
        .request(14, "tools/call", task_call("echo", json!({"text": "x"})))
        .await;
    assert_eq!(forbidden["error"]["code"], -32601, "{forbidden}");
    let bad = peer
        .request(
            15,
            "tools/call",
            json!({"name": "job", "arguments": {}, "task": 5}),
        )
        .await;
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    let bad = peer
        .request(
            16,
            "tools/call",
            json!({"name": "job", "arguments": {}, "task": {"ttl": -1}}),
        )
        .await;
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    for method in ["tasks/get", "tasks/result", "tasks/cancel"] {
        let unknown = peer.request(17, method, json!({"taskId": "nope"})).await;
        let message = unknown["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("no task `nope`"), "{method}: {unknown}");
    }
    let no_id = peer.request(18, "tasks/get", json!({})).await;
    assert_eq!(no_id["error"]["code"], -32602, "{no_id}");

    // A plain call still is one.
    let plain = peer
        .request(
            19,
            "tools/call",
            json!({"name": "job", "arguments": {"seconds": 0}}),
        )
        .await;
    assert_eq!(
        plain["result"]["content"][0]["text"], "job done after 0 s",
        "{plain}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2025_11_25_session_over_http_asks_for_tasks_with_the_task_param() {
    let server = http_server(BIN, &[]).await;
    the_old_task_flow(&mut Peer::http(&server.url)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2025_11_25_session_over_stdio_asks_for_tasks_with_the_task_param() {
    the_old_task_flow(&mut Peer::stdio(BIN, &[]).await).await;
}

/// A 2025-11-25 session's client is told when its task ends
/// (`notifications/tasks/status`, the task as `tasks/get` shows it):
/// completed, and cancelled.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2025_11_25_session_is_told_when_its_task_ends() {
    let mut peer = Peer::stdio(BIN, &[]).await;
    peer.initialize().await;
    let answer = peer
        .request(2, "tools/call", task_call("job", json!({"seconds": 0})))
        .await;
    let done = answer["result"]["task"]["taskId"].clone();
    let told = peer.next_notification("notifications/tasks/status").await;
    assert_eq!(told["params"]["taskId"], done, "{told}");
    assert_eq!(told["params"]["status"], "completed", "{told}");
    assert!(told["params"]["ttl"].is_u64() && told["params"]["createdAt"].is_string());

    let answer = peer
        .request(3, "tools/call", task_call("job", json!({"seconds": 60})))
        .await;
    let long = answer["result"]["task"]["taskId"].clone();
    let cancelled = peer
        .request(4, "tasks/cancel", json!({"taskId": long}))
        .await;
    assert_eq!(cancelled["result"]["status"], "cancelled", "{cancelled}");
    let told = peer.next_notification("notifications/tasks/status").await;
    assert_eq!(told["params"]["taskId"], long, "{told}");
    assert_eq!(told["params"]["status"], "cancelled", "{told}");
}

/// A task that asks on a 2025-11-25 session asks through the session, as a
/// plain call does: each request names its task (`related-task`), and the
/// task shows `input_required` while they wait (SEP-1686).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2025_11_25_task_asks_through_the_session_and_shows_it() {
    let mut peer = Peer::stdio(BIN, &[]).await;
    peer.initialize_with(json!({"tasks": {}, "elicitation": {}}))
        .await;
    let answer = peer
        .request(2, "tools/call", task_call("survey", json!({})))
        .await;
    let id = answer["result"]["task"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("a task: {answer}"))
        .to_owned();
    let asked = [
        peer.next_request("elicitation/create").await,
        peer.next_request("elicitation/create").await,
    ];
    for request in &asked {
        assert_eq!(
            request["params"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
            id.as_str(),
            "{request}"
        );
    }
    // Shown before the request was sent, and until it is answered.
    let got = peer.request(3, "tasks/get", json!({"taskId": id})).await;
    assert_eq!(got["result"]["status"], "input_required", "{got}");

    for request in &asked {
        let key = if request["params"]["message"] == "Your colour?" {
            "colour"
        } else {
            "food"
        };
        let value = if key == "colour" { "blue" } else { "soup" };
        peer.send(json!({"jsonrpc": "2.0", "id": request["id"],
            "result": {"action": "accept", "content": {key: value}}}))
            .await;
    }
    let result = peer.request(4, "tasks/result", json!({"taskId": id})).await;
    assert_eq!(
        result["result"]["content"][0]["text"], "colour: blue, food: soup",
        "{result}"
    );
    let got = peer.request(5, "tasks/get", json!({"taskId": id})).await;
    assert_eq!(got["result"]["status"], "completed", "{got}");
}

/// A task's request to the client's model names its task too, as its
/// questions do, and the model's answer reaches the handler.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2025_11_25_task_samples_through_the_session_naming_its_task() {
    let mut peer = Peer::stdio(BIN, &[]).await;
    peer.initialize_with(json!({"tasks": {}, "elicitation": {}, "sampling": {}}))
        .await;
    let answer = peer
        .request(2, "tools/call", task_call("survey", json!({"dish": true})))
        .await;
    let id = answer["result"]["task"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("a task: {answer}"))
        .to_owned();
    for _ in 0..2 {
        let request = peer.next_request("elicitation/create").await;
        let key = if request["params"]["message"] == "Your colour?" {
            "colour"
        } else {
            "food"
        };
        peer.send(json!({"jsonrpc": "2.0", "id": request["id"],
            "result": {"action": "accept", "content": {key: "any"}}}))
            .await;
    }
    let sampled = peer.next_request("sampling/createMessage").await;
    let params = &sampled["params"];
    assert_eq!(
        params["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        id.as_str(),
        "{sampled}"
    );
    assert_eq!(params["maxTokens"], 20, "{sampled}");
    assert_eq!(
        params["messages"],
        json!([{"role": "user", "content": {"type": "text", "text": "A dish?"}}]),
        "{sampled}"
    );
    peer.send(json!({"jsonrpc": "2.0", "id": sampled["id"], "result": {
        "model": "m", "role": "assistant", "content": {"type": "text", "text": "soup"}}}))
        .await;
    let result = peer.request(3, "tasks/result", json!({"taskId": id})).await;
    assert_eq!(
        result["result"]["content"][0]["text"], "colour: any, food: any, dish: soup",
        "{result}"
    );
}

/// The old methods are not the new generation's: a 2026-07-28 request to
/// `tasks/result` is unknown, and a `task` param on its `tools/call` is not
/// an opt-in (the extension says to ignore it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_2026_07_28_generation_keeps_its_own_task_flow() {
    let server = http_server(BIN, &[]).await;
    let (_, body) = post_2026(
        &server.url,
        "tasks/result",
        Some("x"),
        &[],
        request_2026(1, "tasks/result", json!({"taskId": "x"})),
    )
    .await;
    let answer = message_of(&body);
    assert_eq!(answer["error"]["code"], -32601, "{answer}");
    let (_, body) = post_2026(
        &server.url,
        "tools/call",
        Some("job"),
        &[],
        request_2026(
            2,
            "tools/call",
            json!({"name": "job", "arguments": {"seconds": 0}, "task": {"ttl": 1000}}),
        ),
    )
    .await;
    let answer = message_of(&body);
    assert_eq!(
        answer["result"]["content"][0]["text"], "job done after 0 s",
        "{answer}"
    );
}
