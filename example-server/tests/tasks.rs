//! `run_command` (`task = "optional"`) as a task with rmcp's client on
//! 2026-07-28, and from a 2025-11-25 session through `execution` (the `task`
//! param, in raw JSON-RPC): the result by polling `tasks/get` (or waiting in
//! `tasks/result`), and a cancelled command's process gone.

use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, GetTaskParams, GetTaskResult,
    TaskPayload, TaskStatus,
};
use serde_json::{Value, json};
use toolmetadata_tests::mcp::*;
use toolmetadata_tests::raw::Peer;
use toolmetadata_tests::stores::wait_for_sleep;

const BIN: &str = env!("CARGO_BIN_EXE_example-server");

async fn start(client: &Client, arguments: Value) -> String {
    let Value::Object(arguments) = arguments else {
        panic!("arguments must be an object")
    };
    let response = client
        .call_tool_once(CallToolRequestParams::new("run_command").with_arguments(arguments))
        .await
        .expect("tools/call");
    match response {
        CallToolResponse::Task(handle) => handle.task.task_id,
        other => panic!("expected a task handle, got {other:?}"),
    }
}

async fn get(client: &Client, id: &str) -> GetTaskResult {
    client
        .get_task(GetTaskParams::new(id.to_owned()))
        .await
        .expect("tasks/get")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_command_as_a_task_completes_and_cancels() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().display().to_string();
    let server = http_server(
        BIN,
        &[
            "--root",
            &root,
            "--allow-command",
            "echo",
            "--allow-command",
            "sleep",
        ],
    )
    .await;
    let pid = server.child.id().expect("pid");
    let recorder = Recorder {
        tasks: true,
        ..Recorder::default()
    };
    let (client, _) = http_client_as(&server.url, recorder, true).await;

    let id = start(&client, json!({"program": "echo", "args": ["from a task"]})).await;
    let deadline = Instant::now() + Duration::from_secs(20);
    let done = loop {
        let state = get(&client, &id).await;
        if state.task.status() != TaskStatus::Working {
            break state;
        }
        assert!(Instant::now() < deadline, "the task never ended");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    match &done.task.payload {
        TaskPayload::Completed { result } => {
            assert_eq!(
                result["structuredContent"]["stdout"], "from a task\n",
                "{result:?}"
            );
        }
        other => panic!("expected a result, got {other:?}"),
    }

    let long = start(&client, json!({"program": "sleep", "args": ["30"]})).await;
    wait_for_sleep(&[pid], true).await;
    client
        .cancel_task(CancelTaskParams::new(long.clone()))
        .await
        .expect("tasks/cancel");
    assert_eq!(
        get(&client, &long).await.task.status(),
        TaskStatus::Cancelled
    );
    wait_for_sleep(&[pid], false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn run_command_as_a_task_of_a_2025_11_25_session_through_execution() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().display().to_string();
    let args = [
        "--root",
        &root,
        "--allow-command",
        "echo",
        "--allow-command",
        "sleep",
        // run_command is discoverable: listed only with every tool.
        "--show-all",
    ];
    let server = http_server(BIN, &args).await;
    let pid = server.child.id().expect("pid");
    let mut peer = Peer::http(&server.url);
    let capabilities = peer.initialize().await;
    assert_eq!(
        capabilities["tasks"]["requests"]["tools"]["call"],
        json!({}),
        "{capabilities}"
    );
    let list = peer.request(2, "tools/list", json!({})).await;
    let run_command = list["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .find(|t| t["name"] == "run_command")
        .cloned()
        .unwrap_or_else(|| panic!("run_command in {list}"));
    assert_eq!(run_command["execution"]["taskSupport"], "optional");

    let started = peer
        .request(
            3,
            "tools/call",
            json!({"name": "run_command", "arguments": {"program": "echo", "args": ["from a task"]},
                "task": {"ttl": 60_000}}),
        )
        .await;
    let id = started["result"]["task"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("a task handle: {started}"))
        .to_owned();
    let result = peer.request(4, "tasks/result", json!({"taskId": id})).await;
    assert_eq!(
        result["result"]["structuredContent"]["stdout"], "from a task\n",
        "{result}"
    );
    let got = peer.request(5, "tasks/get", json!({"taskId": id})).await;
    assert_eq!(got["result"]["status"], "completed", "{got}");

    let long = peer
        .request(
            6,
            "tools/call",
            json!({"name": "run_command", "arguments": {"program": "sleep", "args": ["30"]},
                "task": {}}),
        )
        .await;
    let long = long["result"]["task"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("a task handle: {long}"))
        .to_owned();
    wait_for_sleep(&[pid], true).await;
    let cancelled = peer
        .request(7, "tasks/cancel", json!({"taskId": long}))
        .await;
    assert_eq!(cancelled["result"]["status"], "cancelled", "{cancelled}");
    wait_for_sleep(&[pid], false).await;
}
