//! Prompts (with a completed argument) and resource templates (with a
//! completed variable) served beside the generated tools, through rmcp's
//! client on a 2025-11-25 session and on 2026-07-28 requests.

use rmcp::model::{
    ArgumentInfo, CompleteRequestParams, GetPromptRequestParams, ProtocolVersion,
    ReadResourceRequestParams, Reference, ResourceContents,
};
use rmcp::service::RunningService;
use rmcp::transport::{ConfigureCommandExt, StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientLifecycleMode, ClientServiceExt, RoleClient};
use serde_json::json;
use toolmetadata_tests::mcp::http_server;

const BIN: &str = env!("CARGO_BIN_EXE_toolmetadata-test-server");

type Client = RunningService<RoleClient, ()>;

async fn check(client: &Client, label: &str) {
    let prompts = client.list_all_prompts().await.expect("prompts/list");
    assert_eq!(prompts.len(), 1, "{label}");
    assert_eq!(prompts[0].name, "summarize", "{label}");

    let mut get = GetPromptRequestParams::new("summarize");
    get.arguments = json!({"note": "groceries"}).as_object().cloned();
    let prompt = client.get_prompt(get).await.expect("prompts/get");
    let message = serde_json::to_value(&prompt.messages[0]).expect("JSON");
    assert_eq!(
        message["content"]["text"], "Summarize the note groceries (short, via summarize)",
        "{label}"
    );
    let missing = client
        .get_prompt(GetPromptRequestParams::new("summarize"))
        .await
        .expect_err("a required argument is missing");
    assert!(missing.to_string().contains("`note`"), "{label}: {missing}");

    let completed = client
        .complete(CompleteRequestParams::new(
            Reference::for_prompt("summarize"),
            ArgumentInfo::new("note", "gro"),
        ))
        .await
        .expect("completion/complete");
    assert_eq!(completed.completion.values, ["groceries"], "{label}");

    let templates = client
        .list_all_resource_templates()
        .await
        .expect("resources/templates/list");
    assert_eq!(templates[0].uri_template, "notes://{name}", "{label}");
    let read = client
        .read_resource(ReadResourceRequestParams::new("notes://todo%20list"))
        .await
        .expect("resources/read");
    match &read.contents[0] {
        ResourceContents::TextResourceContents { text, uri, .. } => {
            assert_eq!(text, "call Ada", "{label}");
            assert_eq!(uri, "notes://todo%20list", "{label}");
        }
        other => panic!("{label}: {other:?}"),
    }
    let unknown = client
        .read_resource(ReadResourceRequestParams::new("notes://nothing"))
        .await
        .expect_err("no such note");
    assert!(
        unknown.to_string().contains("no note named"),
        "{label}: {unknown}"
    );
    let unmatched = client
        .read_resource(ReadResourceRequestParams::new("other://x"))
        .await
        .expect_err("no template matches");
    // The URI in `data`: -32002 on a 2025-11-25 session, invalid params on
    // 2026-07-28 (SEP-2164).
    let code = if label.contains("2025") {
        "-32002"
    } else {
        "-32602"
    };
    assert!(
        unmatched.to_string().contains(code)
            && unmatched.to_string().contains("Resource not found")
            && unmatched.to_string().contains(r#"{"uri":"other://x"}"#),
        "{label}: {unmatched}"
    );

    let completed = client
        .complete(CompleteRequestParams::new(
            Reference::for_resource("notes://{name}"),
            ArgumentInfo::new("name", "to"),
        ))
        .await
        .expect("completion/complete");
    assert_eq!(completed.completion.values, ["todo list"], "{label}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prompts_and_resource_templates_on_both_generations() {
    let transport = TokioChildProcess::new(tokio::process::Command::new(BIN).configure(|c| {
        c.stderr(std::process::Stdio::null());
    }))
    .expect("spawn");
    let session =
        ().serve_with_lifecycle(transport, ClientLifecycleMode::Initialize)
            .await
            .expect("initialize");
    check(&session, "2025-11-25 session").await;
    session.cancel().await.expect("close");

    let server = http_server(BIN, &[]).await;
    let transport = StreamableHttpClientTransport::from_uri(server.url.clone());
    let stateless = ()
        .serve_with_lifecycle(
            transport,
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .expect("discover");
    check(&stateless, "2026-07-28").await;
    stateless.cancel().await.expect("close");
}
