//! Resources and documents through rmcp's client: `static_resource` serves
//! text and bytes with their description and size, a document is an
//! embedded text resource in a tool's result, and a URI the server does not
//! have is an error naming it (-32002 on a session; SEP-2164's invalid
//! params on 2026-07-28), never empty contents.

mod common;

use rmcp::model::{CallToolRequestParams, ReadResourceRequestParams, Resource, ResourceContents};
use toolmetadata::metadata::Load as _;
use toolmetadata::server::Server;
use toolmetadata::{Content, ToolMetadata, ToolOutput};

fn server() -> Server {
    let tool = ToolMetadata::from_toml_str("notes", "description = \"The notes, as a document\"\n")
        .expect("metadata");
    Server::builder()
        .tool(tool, |_, _| async {
            Ok(ToolOutput::content(vec![
                Content::Text("Here are the notes:".into()),
                Content::Document {
                    uri: "notes://today".into(),
                    mime_type: Some("text/markdown".into()),
                    text: "# Today\n".into(),
                },
            ]))
        })
        .static_resource(
            Resource::new("app://logo.png", "logo")
                .with_description("The logo")
                .with_mime_type("image/png"),
            ResourceContents::blob("AAECAw==", "app://logo.png").with_mime_type("image/png"),
        )
        .resource("app://readme", "readme", "text/plain", "Read me")
        .build()
        .expect("server")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn static_resources_documents_and_unknown_uris() {
    let client = common::connect(server(), ()).await;
    let listed = client.list_all_resources().await.expect("list");
    let logo = listed
        .iter()
        .find(|r| r.uri == "app://logo.png")
        .expect("the logo is listed");
    assert_eq!(logo.description.as_deref(), Some("The logo"));
    assert_eq!(logo.size, Some(4), "four bytes in base64");
    assert!(
        listed
            .iter()
            .any(|r| r.uri == "app://readme" && r.size == Some(7))
    );

    let read = client
        .read_resource(ReadResourceRequestParams::new("app://logo.png"))
        .await
        .expect("read");
    let wire = serde_json::to_value(&read).expect("json");
    assert_eq!(
        wire["contents"],
        serde_json::json!([{"uri": "app://logo.png", "mimeType": "image/png", "blob": "AAECAw=="}])
    );

    let missing = client
        .read_resource(ReadResourceRequestParams::new("app://nothing"))
        .await
        .expect_err("no such resource");
    if let rmcp::ServiceError::McpError(e) = &missing {
        // A 2025-11-25 session: -32002 (2026-07-28 says -32602, SEP-2164).
        assert_eq!(e.code.0, -32002);
        assert_eq!(e.data, Some(serde_json::json!({"uri": "app://nothing"})));
    } else {
        panic!("an MCP error: {missing:?}");
    }

    let result = client
        .call_tool(CallToolRequestParams::new("notes"))
        .await
        .expect("call");
    let wire = serde_json::to_value(&result).expect("json");
    assert_eq!(
        wire["content"][1],
        serde_json::json!({"type": "resource", "resource": {
            "uri": "notes://today", "mimeType": "text/markdown", "text": "# Today\n"}})
    );
    client.cancel().await.expect("close");
}

#[test]
fn contents_of_another_uri_are_refused() {
    let refused = Server::builder()
        .static_resource(
            Resource::new("app://a", "a"),
            ResourceContents::text("x", "app://b"),
        )
        .build()
        .expect_err("refused");
    assert!(refused.to_string().contains("app://b"), "{refused}");
}
