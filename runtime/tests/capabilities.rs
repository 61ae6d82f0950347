//! `Context::require`: a handler that needs a capability the client did not
//! declare gets an error to return, and the call is answered with the
//! protocol's -32021 naming the capability; a client that declared it is
//! served.

mod common;

use rmcp::model::{CallToolRequestParams, ClientConfig};
use rmcp::service::RunningService;
use rmcp::{ClientHandler, RoleClient};
use toolmetadata::metadata::Load as _;
use toolmetadata::server::Server;
use toolmetadata::{ClientCapability, Context, ToolMetadata};

#[derive(Clone)]
struct Client {
    samples: bool,
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let mut config = ClientConfig::default();
        if self.samples {
            config.capabilities.sampling = Some(Default::default());
        }
        config
    }
}

async fn connect(client: Client) -> RunningService<RoleClient, Client> {
    let tool = ToolMetadata::from_toml_str("summarize", "description = \"Needs sampling\"\n")
        .expect("metadata");
    let server = Server::builder()
        .tool(tool, |_, cx: Context| async move {
            cx.require(ClientCapability::Sampling)?;
            Ok("sampled")
        })
        .build()
        .expect("server");
    common::connect(server, client).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_capability_is_the_protocols_error() {
    let without = connect(Client { samples: false }).await;
    let refused = without
        .call_tool(CallToolRequestParams::new("summarize"))
        .await
        .expect_err("refused");
    let rmcp::ServiceError::McpError(e) = &refused else {
        panic!("an MCP error: {refused:?}");
    };
    assert_eq!(e.code.0, -32021, "{e:?}");
    assert_eq!(
        e.data.as_ref().and_then(|d| d.get("requiredCapabilities")),
        Some(&serde_json::json!({"sampling": {}})),
        "{e:?}"
    );
    without.cancel().await.expect("close");

    let with = connect(Client { samples: true }).await;
    let served = with
        .call_tool(CallToolRequestParams::new("summarize"))
        .await
        .expect("served");
    assert_ne!(served.is_error, Some(true), "{served:?}");
    with.cancel().await.expect("close");
}
