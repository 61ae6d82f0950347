//! A hand-written rmcp `ServerHandler` that mounts a generated tool set,
//! driven by rmcp's client: its own server info, the generated tools listed,
//! called, and refused with the generated decoder's argument errors.

use serde_json::json;
use toolmetadata_tests::mcp::{call, is_error, stdio, text};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_set_mounted_in_your_own_handler() {
    let (client, _) = stdio(env!("CARGO_BIN_EXE_mounted"), &[]).await;
    let info = client.peer_info().expect("initialized");
    assert_eq!(
        info.server_info.as_ref().map(|s| s.name.as_str()),
        Some("my-server")
    );
    let tools = client.list_all_tools().await.expect("tools/list");
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0].name, "search_notes");
    assert_eq!(
        text(&call(&client, "search_notes", json!({"query": "milk"})).await),
        "no note mentions milk"
    );
    let bad = call(&client, "search_notes", json!({"limit": 0})).await;
    assert!(is_error(&bad));
    assert!(
        text(&bad).contains("missing required argument `query`"),
        "{}",
        text(&bad)
    );
    client.cancel().await.expect("close");
}
