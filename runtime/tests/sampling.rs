//! `Context::sample` on a 2025-11-25 session through rmcp's client: the
//! request reaches the client's model as MCP writes it and the handler gets
//! its answer; a client without `sampling` gets none (Unsupported).
#![expect(
    deprecated,
    reason = "sampling is deprecated by SEP-2577 and still served on 2025-11-25"
)]

mod common;

use std::sync::{Arc, Mutex};
use toolmetadata::metadata::Load as _;

use rmcp::model::{
    CallToolRequestParams, ClientConfig, CreateMessageRequestParams, CreateMessageResult,
    SamplingMessage,
};
use rmcp::service::{RequestContext, RunningService};
use rmcp::{ClientHandler, ErrorData, RoleClient};
use toolmetadata::sampling::Sampling;
use toolmetadata::server::Server;
use toolmetadata::{Context, ToolError, ToolMetadata};

#[derive(Clone, Default)]
struct Client {
    samples: bool,
    asked: Arc<Mutex<Vec<serde_json::Value>>>,
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let mut config = ClientConfig::default();
        if self.samples {
            config.capabilities.sampling = Some(Default::default());
        }
        config
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        self.asked
            .lock()
            .expect("lock")
            .push(serde_json::to_value(&params).expect("json"));
        Ok(CreateMessageResult::new(
            SamplingMessage::assistant_text("Paris"),
            "test-model".to_owned(),
        ))
    }
}

async fn connect(client: Client) -> RunningService<RoleClient, Client> {
    let tool = ToolMetadata::from_toml_str("capital", "description = \"Asks the model\"\n")
        .expect("metadata");
    let server = Server::builder()
        .tool(tool, |_, cx: Context| async move {
            let answer = cx
                .sample(Sampling::new("Capital of France?", 20).system_prompt("One word"))
                .await
                .map_err(|e| ToolError::new(e.to_string()))?;
            Ok(format!(
                "{} ({})",
                answer.text().unwrap_or_default(),
                answer.model()
            ))
        })
        .build()
        .expect("server");
    common::connect(server, client).await
}

fn text(result: &rmcp::model::CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_clients_model_answers_a_handler() {
    let client = Client {
        samples: true,
        ..Client::default()
    };
    let session = connect(client.clone()).await;
    let result = session
        .call_tool(CallToolRequestParams::new("capital"))
        .await
        .expect("call");
    assert_eq!(text(&result), "Paris (test-model)", "{result:?}");
    let asked = client.asked.lock().expect("lock").clone();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0]["maxTokens"], 20);
    assert_eq!(asked[0]["systemPrompt"], "One word");
    assert_eq!(
        asked[0]["messages"][0]["content"]["text"],
        "Capital of France?"
    );
    session.cancel().await.expect("close");

    let without = Client::default();
    let session = connect(without.clone()).await;
    let result = session
        .call_tool(CallToolRequestParams::new("capital"))
        .await
        .expect("call");
    assert_eq!(result.is_error, Some(true));
    assert!(without.asked.lock().expect("lock").is_empty());
    session.cancel().await.expect("close");
}

/// Two requests of one call under one key would take each other's answers:
/// the second is refused, saying why.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_requests_of_a_call_cannot_share_a_key() {
    let tool =
        ToolMetadata::from_toml_str("twice", "description = \"Asks twice\"\n").expect("metadata");
    let server = Server::builder()
        .tool(tool, |_, cx: Context| async move {
            let first = cx.sample(Sampling::new("One?", 5).key("same")).await;
            let second = cx.sample(Sampling::new("Two?", 5).key("same")).await;
            let reserved = cx.sample(Sampling::new("Three?", 5).key("ask-9")).await;
            Ok(format!(
                "{}|{}|{}",
                first.is_ok(),
                second.map_err(|e| e.to_string()).err().unwrap_or_default(),
                reserved
                    .map_err(|e| e.to_string())
                    .err()
                    .unwrap_or_default()
            ))
        })
        .build()
        .expect("server");
    let client = Client {
        samples: true,
        ..Client::default()
    };
    let session = common::connect(server, client.clone()).await;
    let result = session
        .call_tool(CallToolRequestParams::new("twice"))
        .await
        .expect("call");
    let said = text(&result);
    let parts: Vec<&str> = said.split('|').collect();
    assert_eq!(parts[0], "true", "{said}");
    assert!(parts[1].contains("share the key `same`"), "{said}");
    assert!(parts[2].contains("`ask-`"), "{said}");
    assert_eq!(
        client.asked.lock().expect("lock").len(),
        1,
        "only the first was sent"
    );
    session.cancel().await.expect("close");
}
