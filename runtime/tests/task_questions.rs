//! A task's question through rmcp's client on 2026-07-28: the task is
//! `input_required` with it; a question nobody answers within the server's
//! ask timeout is withdrawn, and the handler hears that it timed out. A tool
//! that asks before its task (`ask_before_task`) asks through an
//! `InputRequiredResult`, and the retry that answers starts the task.

mod common;

use std::time::{Duration, Instant};
use toolmetadata::metadata::Load as _;

use rmcp::ClientHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientConfig, ErrorCode, GetTaskParams,
    ProtocolVersion, TaskPayload, TaskStatus,
};
use rmcp::service::ClientLifecycleMode;
use rmcp::service::ServiceError;
use toolmetadata::ask::{Answer, AskError, Field, Question};
use toolmetadata::server::Server;
use toolmetadata::{Context, ToolError, ToolMetadata};

/// A client that uses tasks and can be asked, and never answers.
#[derive(Clone)]
struct Client;

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let mut config = TasksOnly.get_info();
        config.capabilities.elicitation = Some(
            rmcp::model::ElicitationCapability::new()
                .with_form(rmcp::model::FormElicitationCapability::default()),
        );
        config
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unanswered_task_question_is_withdrawn_at_the_ask_timeout() {
    let tool = ToolMetadata::from_toml_str(
        "approve",
        "description = \"Asks, from its task\"\ntask = \"optional\"\n",
    )
    .expect("metadata");
    let server = Server::builder()
        .ask_timeout(Duration::from_secs(1))
        .tool(tool, |_, cx: Context| async move {
            let question = Question::new("Approve?").field(Field::boolean("ok"));
            match cx.ask(question).await {
                Err(AskError::TimedOut) => {
                    // Still working a while: the question must be gone.
                    tokio::time::sleep(Duration::from_millis(1500)).await;
                    Err(ToolError::new("nobody answered in time"))
                }
                other => Ok(format!("{other:?}")),
            }
        })
        .build()
        .expect("server");
    let modern = ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    let client = common::connect_with(server, Client, modern).await;
    let CallToolResponse::Task(handle) = client
        .call_tool_once(CallToolRequestParams::new("approve"))
        .await
        .expect("tools/call")
    else {
        panic!("expected a task")
    };
    let id = handle.task.task_id;
    let mut seen_question = false;
    let mut seen_withdrawn = false;
    let deadline = Instant::now() + Duration::from_secs(20);
    let ended = loop {
        let state = client
            .get_task(GetTaskParams::new(id.clone()))
            .await
            .expect("tasks/get");
        match state.task.status() {
            TaskStatus::InputRequired => seen_question = true,
            TaskStatus::Working => seen_withdrawn |= seen_question,
            _ => break state,
        }
        assert!(Instant::now() < deadline, "the task never ended: {state:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(seen_question, "the task showed its question");
    assert!(seen_withdrawn, "the question was withdrawn at the timeout");
    let TaskPayload::Completed { result } = &ended.task.payload else {
        panic!("expected a result, got {ended:?}")
    };
    assert_eq!(result["isError"], true, "{result:?}");
    assert_eq!(
        result["content"][0]["text"], "nobody answered in time",
        "{result:?}"
    );
}

/// A tool that asks the person's name before its task, greets them from
/// the task, and asks one more thing from inside it, which nobody answers.
fn asks_first(support: &str) -> Server {
    let tool = ToolMetadata::from_toml_str(
        "greet",
        &format!("description = \"Asks, then greets from its task\"\ntask = \"{support}\"\n"),
    )
    .expect("metadata");
    Server::builder()
        .ask_timeout(Duration::from_secs(1))
        .tool(tool, |_, cx: Context| async move {
            let question = Question::new("Your name?").field(Field::string("name"));
            let name = match cx.ask(question).await {
                Ok(Answer::Accept(answers)) => answers.get::<String>("name").unwrap_or_default(),
                other => return Err(ToolError::new(format!("no name: {other:?}"))),
            };
            let later = Question::new("Anything else?")
                .key("later")
                .field(Field::string("what"));
            let later = match cx.ask(later).await {
                Err(AskError::TimedOut) => "nothing else",
                other => return Err(ToolError::new(format!("later: {other:?}"))),
            };
            Ok(format!("Hello, {name}; {later}"))
        })
        .ask_before_task("greet")
        .build()
        .expect("server")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_that_asks_before_its_task_starts_it_with_the_answers() {
    for support in ["required", "optional"] {
        let modern = ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        };
        let client = common::connect_with(asks_first(support), Client, modern).await;

        // Round 1: a plain call that asks, with no task.
        let first = client
            .call_tool_once(CallToolRequestParams::new("greet"))
            .await
            .expect("tools/call");
        let CallToolResponse::InputRequired(input) = first else {
            panic!("{support}: expected an input request, got {first:?}")
        };
        let requests = input.input_requests.clone().expect("input requests");
        let (key, request) = requests.iter().next().expect("one request");
        let request = serde_json::to_value(request).expect("json");
        assert_eq!(request["params"]["message"], "Your name?", "{request}");
        let state = input.request_state.clone().expect("a requestState");

        // Round 2: the answer starts the task.
        let answer = serde_json::json!({"action": "accept", "content": {"name": "Alice"}});
        let mut retry = CallToolRequestParams::new("greet");
        retry.request_state = Some(state);
        retry.input_responses = Some([(key.clone(), answer)].into_iter().collect());
        let second = client
            .call_tool_once(retry.clone())
            .await
            .expect("the retry");
        let CallToolResponse::Task(handle) = second else {
            panic!("{support}: expected a task, got {second:?}")
        };

        // The state is used once: sent again, it starts nothing.
        let again = client.call_tool_once(retry).await;
        assert!(
            matches!(&again, Err(ServiceError::McpError(e)) if e.code == ErrorCode::INVALID_PARAMS
                && e.message.contains("already used")),
            "{support}: {again:?}"
        );

        // The task knows the name; its later question is the task's.
        let id = handle.task.task_id;
        let mut asked_later = false;
        let deadline = Instant::now() + Duration::from_secs(20);
        let ended = loop {
            let state = client
                .get_task(GetTaskParams::new(id.clone()))
                .await
                .expect("tasks/get");
            match &state.task.payload {
                TaskPayload::InputRequired { input_requests } => {
                    let keys: Vec<_> = input_requests.keys().collect();
                    assert_eq!(keys, ["later"], "{support}: only the later question");
                    asked_later = true;
                }
                TaskPayload::Working => {}
                _ => break state,
            }
            assert!(Instant::now() < deadline, "the task never ended: {state:?}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        assert!(asked_later, "{support}: the task asked its later question");
        let TaskPayload::Completed { result } = &ended.task.payload else {
            panic!("{support}: expected a result, got {ended:?}")
        };
        assert_eq!(
            result["content"][0]["text"], "Hello, Alice; nothing else",
            "{support}: {result:?}"
        );
    }
}

#[test]
fn ask_before_task_names_a_task_tool_the_server_has() {
    let tool = |task: &str| {
        ToolMetadata::from_toml_str(
            "plain",
            &format!("description = \"A tool\"\ntask = \"{task}\"\n"),
        )
        .expect("metadata")
    };
    let build = |task: &str, name: &str| {
        Server::builder()
            .tool(tool(task), |_, _: Context| async { Ok("done") })
            .ask_before_task(name)
            .build()
            .map(|_| ())
            .map_err(|e| e.to_string())
    };
    let unknown = build("required", "other").expect_err("an unknown tool");
    assert!(unknown.contains("no tool `other`"), "{unknown}");
    let never = build("forbidden", "plain").expect_err("a tool that is never a task");
    assert!(never.contains("never runs as a task"), "{never}");
    build("optional", "plain").expect("an optional task tool");
}

/// A client that uses tasks and can answer nothing.
#[derive(Clone)]
struct TasksOnly;

impl ClientHandler for TasksOnly {
    fn get_info(&self) -> ClientConfig {
        let mut config = ClientConfig::default();
        config.capabilities.extensions = Some(
            [(
                rmcp::model::TASKS_EXTENSION_ID.to_owned(),
                rmcp::model::JsonObject::new(),
            )]
            .into(),
        );
        config
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_cannot_answer_gets_the_task_at_once() {
    let modern = ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    let client = common::connect_with(asks_first("required"), TasksOnly, modern).await;
    let first = client
        .call_tool_once(CallToolRequestParams::new("greet"))
        .await
        .expect("tools/call");
    assert!(
        matches!(first, CallToolResponse::Task(_)),
        "the work runs in a task, not in a plain call: {first:?}"
    );
}
