//! A prompt's handler asks the client (here its model) as a tool's does: on
//! 2026-07-28 `prompts/get` answers an `InputRequiredResult`, and the retry
//! with the answer gets the messages; the `requestState` of a prompt is
//! bound to it, and does not open a tool of the same name.
#![expect(
    deprecated,
    reason = "sampling is deprecated by SEP-2577 and still served"
)]

mod common;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientConfig, CreateMessageRequestParams,
    CreateMessageResult, ErrorCode, GetPromptRequestParams, GetPromptResponse, GetPromptResult,
    Prompt, PromptMessage, ProtocolVersion, Role, SamplingMessage,
};
use rmcp::service::{ClientLifecycleMode, RequestContext, ServiceError};
use rmcp::{ClientHandler, ErrorData, RoleClient};
use toolmetadata::metadata::Load as _;
use toolmetadata::sampling::Sampling;
use toolmetadata::server::Server;
use toolmetadata::{Context, ToolError, ToolMetadata};

/// A client whose model always says "Paris".
#[derive(Clone, Default)]
struct Client;

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let mut config = ClientConfig::default();
        config.capabilities.sampling = Some(Default::default());
        config
    }

    async fn create_message(
        &self,
        _: CreateMessageRequestParams,
        _: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        Ok(CreateMessageResult::new(
            SamplingMessage::assistant_text("Paris"),
            "test-model".to_owned(),
        ))
    }
}

/// The capital, asked of the model under the same key by a prompt and by a
/// tool, both named `capital`.
async fn ask(cx: &Context) -> Result<String, ToolError> {
    let answer = cx
        .sample(Sampling::new("Capital of France?", 20).key("capital"))
        .await
        .map_err(|e| ToolError::new(e.to_string()))?;
    Ok(answer.text().unwrap_or_default().to_owned())
}

fn server() -> Server {
    let tool = ToolMetadata::from_toml_str("capital", "description = \"Asks the model\"\n")
        .expect("metadata");
    Server::builder()
        .tool(tool, |_, cx: Context| async move { ask(&cx).await })
        .prompt(
            Prompt::new("capital", Some("A prompt made with the model's help"), None),
            |_, cx: Context| async move {
                let capital = ask(&cx).await?;
                Ok(GetPromptResult::new(vec![PromptMessage::new_text(
                    Role::User,
                    format!("Tell me about {capital}"),
                )]))
            },
        )
        .build()
        .expect("server")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_asks_through_an_input_request_bound_to_it() {
    let modern = ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    let client = common::connect_with(server(), Client, modern).await;

    let first = client
        .get_prompt_once(GetPromptRequestParams::new("capital"))
        .await
        .expect("prompts/get");
    let GetPromptResponse::InputRequired(input) = first else {
        panic!("expected an input request, got {first:?}")
    };
    let requests = serde_json::to_value(&input.input_requests).expect("json");
    assert_eq!(
        requests["capital"]["method"], "sampling/createMessage",
        "{requests}"
    );
    let state = input.request_state.clone().expect("a requestState");

    // The prompt's state, with an answer, does not open the tool's call.
    let answer = serde_json::json!({
        "role": "assistant", "content": {"type": "text", "text": "Lyon"}, "model": "m"
    });
    let mut call = CallToolRequestParams::new("capital");
    call.request_state = Some(state);
    call.input_responses = Some([("capital".to_owned(), answer)].into_iter().collect());
    let replayed = client.call_tool_once(call).await;
    assert!(
        matches!(&replayed, Err(ServiceError::McpError(e)) if e.code == ErrorCode::INVALID_PARAMS
            && e.message.contains("requestState refused")),
        "{replayed:?}"
    );

    // rmcp's client answers the input request and asks again.
    let done = client
        .get_prompt(GetPromptRequestParams::new("capital"))
        .await
        .expect("prompts/get with the answer");
    let text = serde_json::to_value(&done.messages).expect("json");
    assert_eq!(text[0]["content"]["text"], "Tell me about Paris", "{text}");

    // The tool asks the same way, under its own state.
    let CallToolResponse::InputRequired(_) = client
        .call_tool_once(CallToolRequestParams::new("capital"))
        .await
        .expect("tools/call")
    else {
        panic!("the tool asks too")
    };
}
