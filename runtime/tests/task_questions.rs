//! A task's question through rmcp's client on 2026-07-28: the task is
//! `input_required` with it; a question nobody answers within the server's
//! ask timeout is withdrawn, and the handler hears that it timed out.

mod common;

use std::time::{Duration, Instant};

use rmcp::ClientHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientConfig, GetTaskParams, ProtocolVersion,
    TaskPayload, TaskStatus,
};
use rmcp::service::ClientLifecycleMode;
use toolmetadata::ask::{AskError, Field, Question};
use toolmetadata::server::Server;
use toolmetadata::{Context, ToolError, ToolMetadata};

/// A client that uses tasks and can be asked, and never answers.
#[derive(Clone)]
struct Client;

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let mut config = ClientConfig::default();
        config.capabilities.elicitation = Some(
            rmcp::model::ElicitationCapability::new()
                .with_form(rmcp::model::FormElicitationCapability::default()),
        );
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
