//! `run_command` (`task = "optional"`) as a task with rmcp's client on
//! 2026-07-28: the result by polling `tasks/get`, and a cancelled command's
//! process gone.

use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, GetTaskParams, GetTaskResult,
    TaskPayload, TaskStatus,
};
use serde_json::{Value, json};
use toolmetadata_tests::mcp::*;

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

/// The `sleep` processes whose parent is `parent` (Linux `/proc`).
fn sleeping_children(parent: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            // `pid (comm) state ppid …`; comm may hold spaces, so split after `)`.
            let Some((head, rest)) = stat.rsplit_once(") ") else {
                return false;
            };
            let ppid = rest
                .split_whitespace()
                .nth(1)
                .and_then(|p| p.parse::<u32>().ok());
            head.ends_with("(sleep") && ppid == Some(parent)
        })
        .collect()
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
    let deadline = Instant::now() + Duration::from_secs(10);
    while sleeping_children(pid).is_empty() {
        assert!(Instant::now() < deadline, "sleep never started");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    client
        .cancel_task(CancelTaskParams::new(long.clone()))
        .await
        .expect("tasks/cancel");
    assert_eq!(
        get(&client, &long).await.task.status(),
        TaskStatus::Cancelled
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    while !sleeping_children(pid).is_empty() {
        assert!(
            Instant::now() < deadline,
            "the cancelled command still runs"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
