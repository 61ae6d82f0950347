//! A server built without the feature `ask` asks its clients nothing: a
//! handler's question gets `Unsupported` even from a client that declares
//! elicitation and sampling, as a context no client stands behind does,
//! while the session's roots still come from the session (feature
//! `sessions`; without it there is no session to keep them). (With `ask`, the
//! tests `sampling`, `roots` and `prompts` show the questions travelling.)
#![cfg(not(feature = "ask"))]
#![expect(
    deprecated,
    reason = "roots and sampling are deprecated by SEP-2577 and still served on 2025-11-25"
)]

mod common;

use rmcp::ClientHandler;
use rmcp::model::{CallToolRequestParams, ClientConfig, ListRootsResult, Root};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleClient};
use toolmetadata::ask::{AskError, Question};
use toolmetadata::sampling::Sampling;
use toolmetadata::server::Server;
use toolmetadata::{Context, ToolMetadata};

/// A client that could answer anything.
#[derive(Clone, Default)]
struct Willing;

impl ClientHandler for Willing {
    fn get_info(&self) -> ClientConfig {
        let mut config = ClientConfig::default();
        config.capabilities.elicitation = Some(Default::default());
        config.capabilities.sampling = Some(Default::default());
        config.capabilities.roots = Some(Default::default());
        config
    }

    async fn list_roots(
        &self,
        _: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        Ok(ListRootsResult::new(vec![Root::new("file:///work")]))
    }
}

#[tokio::test]
async fn questions_are_unsupported_and_a_sessions_roots_still_come() {
    let tool = ToolMetadata {
        name: "probe".into(),
        description: "Asks what it can".into(),
        ..ToolMetadata::default()
    };
    let server = Server::builder()
        .tool(tool, |_, cx: Context| async move {
            let asked = cx.ask(Question::new("Go on?")).await;
            let sampled = cx.sample(Sampling::new("Hi", 5)).await;
            let roots = cx.roots().await.map(|r| r.roots().len());
            Ok(format!(
                "{} {} {roots:?}",
                matches!(asked, Err(AskError::Unsupported)),
                matches!(sampled, Err(AskError::Unsupported)),
            ))
        })
        .build()
        .expect("server");
    let client = common::connect(server, Willing).await;
    let result = client
        .call_tool(CallToolRequestParams::new("probe"))
        .await
        .expect("answered");
    let text: String = result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect();
    // A session keeps its roots; without sessions (a 2026-07-28 client)
    // they too would be asked with an input request, which needs `ask`.
    let roots = if cfg!(feature = "sessions") {
        "Ok(1)"
    } else {
        "Err(Unsupported)"
    };
    assert_eq!(text, format!("true true {roots}"));
    client.cancel().await.expect("closed");
}
