//! Tool calls as tasks, with rmcp's client over Streamable HTTP: a tool with
//! `task = "optional"` answers a client that declares the tasks extension with
//! a task handle at once; `tasks/get` shows the handler's progress and then
//! the result; `tasks/cancel` reaches the handler's `Context`. On 2026-07-28
//! requests and on a 2025-11-25 session alike.

use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, ErrorCode, GetTaskParams,
    GetTaskResult, TaskPayload, TaskStatus, UpdateTaskParams,
};
use rmcp::service::ServiceError;
use serde_json::{Value, json};
use toolmetadata_tests::mcp::*;

const BIN: &str = env!("CARGO_BIN_EXE_toolmetadata-test-server");

fn params(name: &str, arguments: Value) -> CallToolRequestParams {
    let Value::Object(map) = arguments else {
        panic!("arguments must be an object")
    };
    CallToolRequestParams::new(name.to_owned()).with_arguments(map)
}

async fn task_client(url: &str, modern: bool) -> Client {
    let recorder = Recorder {
        tasks: true,
        ..Recorder::default()
    };
    http_client_as(url, recorder, modern).await.0
}

/// Starts `name` and returns its task id; the handle must come at once.
async fn start(client: &Client, name: &str, arguments: Value) -> String {
    let started = Instant::now();
    let response = client
        .call_tool_once(params(name, arguments))
        .await
        .expect("tools/call");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "the handle waited for the handler"
    );
    match response {
        CallToolResponse::Task(handle) => {
            assert_eq!(handle.task.status, TaskStatus::Working);
            assert!(handle.task.ttl_ms.is_some_and(|t| t > 0));
            handle.task.task_id
        }
        other => panic!("expected a task handle, got {other:?}"),
    }
}

async fn get(client: &Client, id: &str) -> GetTaskResult {
    client
        .get_task(GetTaskParams::new(id.to_owned()))
        .await
        .expect("tasks/get")
}

/// Polls until the task leaves `working` (at most 20 s).
async fn wait_for_end(client: &Client, id: &str) -> GetTaskResult {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let state = get(client, id).await;
        if state.task.status() != TaskStatus::Working {
            return state;
        }
        assert!(Instant::now() < deadline, "the task never ended");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn run_and_cancel(modern: bool) {
    let server = http_server(BIN, &[]).await;
    let client = task_client(&server.url, modern).await;

    let id = start(&client, "job", json!({"seconds": 1})).await;
    // The handler's progress becomes the status message.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let state = get(&client, &id).await;
        if state.task.task.status_message.as_deref() == Some("started") {
            break;
        }
        assert!(Instant::now() < deadline, "no progress in {state:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let done = wait_for_end(&client, &id).await;
    match &done.task.payload {
        TaskPayload::Completed { result } => {
            assert_eq!(
                result["content"][0]["text"], "job done after 1 s",
                "{result:?}"
            );
            assert_eq!(result["isError"], false);
        }
        other => panic!("expected a result, got {other:?}"),
    }

    let long = start(&client, "job", json!({"seconds": 60})).await;
    client
        .cancel_task(CancelTaskParams::new(long.clone()))
        .await
        .expect("tasks/cancel");
    assert_eq!(
        get(&client, &long).await.task.status(),
        TaskStatus::Cancelled
    );
    // The handler's Context saw the cancellation.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let seen = text(&call(&client, "cancellations", json!({})).await);
        if seen != "0" {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the handler never saw the cancel"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // Cancelling a finished task is acknowledged (a client racing its end
    // needs no error path) and leaves it as it ended; an unknown one is
    // unknown.
    client
        .cancel_task(CancelTaskParams::new(id.clone()))
        .await
        .expect("tasks/cancel of an ended task is acknowledged");
    assert_eq!(get(&client, &id).await.task.status(), TaskStatus::Completed);
    let unknown = client.get_task(GetTaskParams::new("nope".to_owned())).await;
    assert!(
        matches!(&unknown, Err(ServiceError::McpError(e)) if e.message.contains("no task `nope`")),
        "{unknown:?}"
    );
}

/// A task's handler asks the person from inside the task (2026-07-28): the
/// task is `input_required` with each question under its key; the client
/// answers with `tasks/update`, one key at a time if it likes, and the
/// handler goes on once it has what it asked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_asks_and_is_answered_through_tasks_update() {
    let server = http_server(BIN, &[]).await;
    let recorder = Recorder {
        tasks: true,
        ask: true,
        ..Recorder::default()
    };
    let client = http_client_as(&server.url, recorder, true).await.0;
    let id = start(&client, "survey", json!({})).await;
    let asked = |state: &GetTaskResult| -> Vec<String> {
        match &state.task.payload {
            TaskPayload::InputRequired { input_requests } => {
                input_requests.keys().cloned().collect()
            }
            _ => Vec::new(),
        }
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    let state = loop {
        let state = get(&client, &id).await;
        if asked(&state).len() == 2 {
            break state;
        }
        assert!(Instant::now() < deadline, "never asked both: {state:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(state.task.status(), TaskStatus::InputRequired);
    assert_eq!(asked(&state), ["colour", "food"]);
    let TaskPayload::InputRequired { input_requests } = &state.task.payload else {
        unreachable!("asked() saw input requests")
    };
    let request = serde_json::to_value(&input_requests["colour"]).expect("json");
    assert_eq!(request["method"], "elicitation/create", "{request}");
    assert_eq!(request["params"]["message"], "Your colour?", "{request}");

    let answer = |key: &str, value: &str| {
        [(
            key.to_owned(),
            json!({"action": "accept", "content": {key: value}}),
        )]
        .into_iter()
        .collect()
    };
    // A misshapen answer is refused, and the question stays open.
    let bogus = [("colour".to_owned(), json!({"action": "maybe"}))]
        .into_iter()
        .collect();
    let refused = client
        .update_task(UpdateTaskParams::new(id.clone(), bogus))
        .await;
    assert!(
        matches!(&refused, Err(ServiceError::McpError(e)) if e.code == ErrorCode::INVALID_PARAMS
            && e.message.contains("inputResponses.colour")),
        "{refused:?}"
    );
    assert_eq!(asked(&get(&client, &id).await), ["colour", "food"]);
    // An answer to something not asked is no answer: ignored.
    client
        .update_task(UpdateTaskParams::new(id.clone(), answer("planted", "x")))
        .await
        .expect("tasks/update");
    client
        .update_task(UpdateTaskParams::new(id.clone(), answer("colour", "blue")))
        .await
        .expect("tasks/update");
    let partly = get(&client, &id).await;
    assert_eq!(
        partly.task.status(),
        TaskStatus::InputRequired,
        "{partly:?}"
    );
    assert_eq!(asked(&partly), ["food"]);
    client
        .update_task(UpdateTaskParams::new(id.clone(), answer("food", "soup")))
        .await
        .expect("tasks/update");
    let done = wait_for_end(&client, &id).await;
    let TaskPayload::Completed { result } = &done.task.payload else {
        panic!("expected a result, got {done:?}")
    };
    assert_eq!(result["content"][0]["text"], "colour: blue, food: soup");
    // An ended task takes no answers, and says nothing of them.
    client
        .update_task(UpdateTaskParams::new(id.clone(), answer("food", "cake")))
        .await
        .expect("tasks/update of an ended task");
    let unknown = client
        .update_task(UpdateTaskParams::new(
            "nope".to_owned(),
            answer("food", "x"),
        ))
        .await;
    assert!(
        matches!(&unknown, Err(ServiceError::McpError(e)) if e.code == ErrorCode::INVALID_PARAMS),
        "{unknown:?}"
    );

    // A client that cannot answer questions is not asked: the handler hears
    // so at once, and the task ends.
    let mute = task_client(&server.url, true).await;
    let id = start(&mute, "survey", json!({})).await;
    let ended = wait_for_end(&mute, &id).await;
    let TaskPayload::Completed { result } = &ended.task.payload else {
        panic!("expected a result, got {ended:?}")
    };
    assert_eq!(result["isError"], true, "{result:?}");
}

/// A call that brings a `requestState` continues the plain call that asked
/// (an optional task tool runs as one when the task store is full): the
/// state is checked there, never dropped by starting a task instead.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retry_with_a_request_state_is_not_made_a_task() {
    let server = http_server(BIN, &[]).await;
    let client = task_client(&server.url, true).await;
    let mut retry = params("job", json!({"seconds": 0}));
    retry.request_state = Some("not-one-this-server-issued".to_owned());
    let answered = client.call_tool_once(retry).await;
    assert!(
        matches!(&answered, Err(ServiceError::McpError(e)) if e.code == ErrorCode::INVALID_PARAMS
            && e.message.contains("requestState refused")),
        "{answered:?}"
    );
}

/// A handler that panics inside a task fails the task with a JSON-RPC
/// error (`failed`, never `completed`), where a tool's own error completes
/// it with `isError`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_whose_handler_panics_fails() {
    let server = http_server(BIN, &[]).await;
    let client = task_client(&server.url, true).await;
    let id = start(&client, "crash_job", json!({})).await;
    let ended = wait_for_end(&client, &id).await;
    assert_eq!(ended.task.status(), TaskStatus::Failed, "{ended:?}");
    let TaskPayload::Failed { error } = &ended.task.payload else {
        panic!("expected an error, got {ended:?}")
    };
    assert_eq!(error["code"], ErrorCode::INTERNAL_ERROR.0, "{error:?}");
    let message = error["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("crash_job") && message.contains("correlation id"),
        "{message}"
    );
    // The panic's own text stays in the server's log.
    assert!(!message.contains("handler bug"), "{message}");
    assert!(
        error["data"]["io.modelcontextprotocol/toolFailure"]["correlationId"].is_string(),
        "{error:?}"
    );
    // The server goes on serving.
    let again = start(&client, "job", json!({"seconds": 0})).await;
    assert_eq!(
        wait_for_end(&client, &again).await.task.status(),
        TaskStatus::Completed
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_on_2026_07_28_runs_reports_and_cancels() {
    run_and_cancel(true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_on_a_2025_11_25_session_runs_reports_and_cancels() {
    run_and_cancel(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clients_without_tasks_get_plain_calls_or_a_clear_error() {
    let server = http_server(BIN, &[]).await;
    let (client, _) = http_client_2026(&server.url).await;
    // `optional`: a plain call for a client that cannot poll.
    let result = call(&client, "job", json!({"seconds": 0})).await;
    assert_eq!(text(&result), "job done after 0 s");
    // `required`: refused, saying why.
    let refused = client.call_tool(params("export", json!({}))).await;
    match refused {
        Err(ServiceError::McpError(e)) => {
            assert_eq!(e.code, ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY);
            assert!(e.message.contains("`export` runs only as a task"), "{e}");
            assert!(e.message.contains("io.modelcontextprotocol/tasks"), "{e}");
        }
        other => panic!("expected an error, got {other:?}"),
    }
    // Nor through execute_tool, whose own call is plain.
    let inside = call(
        &client,
        "execute_tool",
        json!({"name": "export", "parameters": {}}),
    )
    .await;
    assert!(is_error(&inside), "{inside:?}");
    assert!(
        text(&inside).contains("`export` runs only as a task"),
        "{inside:?}"
    );
    // The same tool for a client that declares tasks.
    let tasks = task_client(&server.url, true).await;
    let id = start(&tasks, "export", json!({})).await;
    let done = wait_for_end(&tasks, &id).await;
    assert!(matches!(done.task.payload, TaskPayload::Completed { .. }));
}

/// A full task store: a tool whose task is optional runs as a plain call,
/// one that runs only as a task is refused saying why.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_task_store_turns_optional_tasks_into_plain_calls() {
    let server = http_server(BIN, &["--max-tasks", "1"]).await;
    let tasks = task_client(&server.url, true).await;
    let first = start(&tasks, "job", json!({"seconds": 30})).await;
    let plain = call(&tasks, "job", json!({"seconds": 0})).await;
    assert_eq!(text(&plain), "job done after 0 s");
    match tasks.call_tool(params("export", json!({}))).await {
        Err(ServiceError::McpError(e)) => {
            assert!(e.message.contains("maximum of 1 tasks"), "{e}");
        }
        other => panic!("expected an error, got {other:?}"),
    }
    tasks
        .cancel_task(CancelTaskParams::new(first))
        .await
        .expect("tasks/cancel");
}

/// A 2026-07-28 request of a client that declares tasks, sent from the
/// loopback address `from`; the JSON-RPC answer.
async fn send_from(
    url: &str,
    from: [u8; 4],
    id: u64,
    method: &str,
    name: &str,
    params: Value,
) -> Value {
    let body = request_2026_declaring(id, method, params, with_tasks());
    let client = reqwest::Client::builder()
        .local_address(std::net::IpAddr::from(from))
        .build()
        .expect("client");
    let response = client
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method)
        .header("mcp-name", name)
        .body(body)
        .send()
        .await
        .expect("request");
    message_of(&response.text().await.expect("body"))
}

/// `job` for `seconds`, called from `from`.
async fn job_from(url: &str, from: [u8; 4], id: u64, seconds: u64) -> Value {
    let arguments = json!({"name": "job", "arguments": {"seconds": seconds}});
    send_from(url, from, id, "tools/call", "job", arguments).await
}

/// Without authorization, each client address has its own task quota: one
/// that floods the store gets plain calls, another still gets tasks.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn anonymous_clients_each_have_a_task_quota_by_address() {
    let server = http_server(BIN, &["--max-tasks", "10", "--max-tasks-per-owner", "2"]).await;
    for id in 1..=2 {
        let started = job_from(&server.url, [127, 0, 0, 1], id, 30).await;
        assert!(started["result"]["taskId"].is_string(), "{started}");
    }
    let plain = job_from(&server.url, [127, 0, 0, 1], 3, 0).await;
    assert!(plain["result"]["taskId"].is_null(), "{plain}");
    assert!(plain.to_string().contains("job done after 0 s"), "{plain}");
    let other = job_from(&server.url, [127, 0, 0, 2], 4, 30).await;
    assert!(
        other["result"]["taskId"].is_string(),
        "another address: {other}"
    );
}

/// Finding 3 of the third red team: when the store was full, each new
/// task freed the oldest finished one, whoever owned it, and a flood of
/// tasks deleted Alice's result before she read it. Now the flooders get
/// plain calls, and her result goes only once she has it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_tasks_never_takes_anothers_unread_result() {
    let server = http_server(BIN, &["--max-tasks", "3", "--max-tasks-per-owner", "2"]).await;
    let alice = [127, 0, 0, 2];
    let started = job_from(&server.url, alice, 1, 0).await;
    let task = started["result"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("a task: {started}"))
        .to_owned();
    // It ends unread while two others fill the store.
    tokio::time::sleep(Duration::from_millis(300)).await;
    for (from, id) in [([127, 0, 0, 3], 2), ([127, 0, 0, 4], 3)] {
        let flood = job_from(&server.url, from, id, 30).await;
        assert!(flood["result"]["taskId"].is_string(), "{flood}");
    }
    for (from, id) in [([127, 0, 0, 3], 4), ([127, 0, 0, 5], 5)] {
        let plain = job_from(&server.url, from, id, 0).await;
        assert!(
            plain["result"]["taskId"].is_null(),
            "a task for {from:?}: {plain}"
        );
    }
    let get = json!({"taskId": task});
    let read = send_from(&server.url, alice, 6, "tasks/get", &task, get.clone()).await;
    assert_eq!(read["result"]["status"], "completed", "{read}");
    assert!(read.to_string().contains("job done after 0 s"), "{read}");
    // Delivered: now the room is anyone's.
    let later = job_from(&server.url, [127, 0, 0, 5], 7, 30).await;
    assert!(later["result"]["taskId"].is_string(), "{later}");
    let gone = send_from(&server.url, alice, 8, "tasks/get", &task, get).await;
    assert!(gone.to_string().contains("no task"), "{gone}");
}

/// The `execution` of `name` in a raw `tools/list` answer.
fn execution_of(reply: &Value, name: &str) -> Value {
    reply["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .find(|t| t["name"] == name)
        .map(|t| t["execution"].clone())
        .unwrap_or(Value::Null)
}

/// rmcp's `Tool` has no field for `execution`, yet the list on the wire
/// carries it as rendered: over HTTP (2026-07-28 and a 2025-11-25 session)
/// and on stdio.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_list_on_the_wire_carries_execution_task_support() {
    let server = http_server(BIN, &[]).await;
    let (_, body) = post_2026(
        &server.url,
        "tools/list",
        None,
        &[],
        request_2026(1, "tools/list", json!({})),
    )
    .await;
    let reply = message_of(&body);
    assert_eq!(
        execution_of(&reply, "job"),
        json!({"taskSupport": "optional"}),
        "{reply}"
    );
    assert_eq!(
        execution_of(&reply, "export"),
        json!({"taskSupport": "required"})
    );
    assert_eq!(execution_of(&reply, "echo"), Value::Null);
    assert!(reply["result"]["ttlMs"].as_u64().is_some_and(|t| t > 0));

    // A 2025-11-25 session, raw.
    let http = reqwest::Client::new();
    let post = |body: Value, session: Option<String>| {
        let mut request = http
            .post(&server.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        if let Some(session) = session {
            request = request
                .header("mcp-session-id", session)
                .header("mcp-protocol-version", "2025-11-25");
        }
        request.body(body.to_string()).send()
    };
    let init = post(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}),
        None,
    )
    .await
    .expect("initialize");
    let session = init
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
        .expect("a session");
    let _ = init.text().await;
    post(
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        Some(session.clone()),
    )
    .await
    .expect("initialized");
    let listed = post(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        Some(session),
    )
    .await
    .expect("tools/list");
    let reply = message_of(&listed.text().await.expect("body"));
    assert_eq!(
        execution_of(&reply, "job"),
        json!({"taskSupport": "optional"}),
        "{reply}"
    );
    assert_eq!(reply["result"]["ttlMs"], Value::Null);

    // stdio, raw.
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let mut child = tokio::process::Command::new(BIN)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    for message in [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    ] {
        stdin
            .write_all(format!("{message}\n").as_bytes())
            .await
            .expect("write");
    }
    stdin.flush().await.expect("flush");
    let reply = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let line = lines.next_line().await.expect("read").expect("a line");
            let message: Value = serde_json::from_str(&line).expect("JSON");
            if message["id"] == 2 {
                return message;
            }
        }
    })
    .await
    .expect("an answer in time");
    assert_eq!(
        execution_of(&reply, "export"),
        json!({"taskSupport": "required"}),
        "{reply}"
    );
}
