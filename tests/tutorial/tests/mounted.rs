//! A hand-written rmcp `ServerHandler` that mounts a generated tool set,
//! driven by rmcp's client: its own server info and instructions, the
//! generated tools listed, called, and refused with the generated decoder's
//! argument errors. (`parity.rs` compares it with the served binary.)

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
    assert_eq!(
        info.instructions.as_deref(),
        Some("Notes: search them, count their words, archive them")
    );
    let tools = client.list_all_tools().await.expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(
        names,
        ["archive_note", "count_words", "note_stats", "search_notes"]
    );
    assert_eq!(
        text(&call(&client, "search_notes", json!({"query": "milk"})).await),
        "buy milk\nmilk the cow"
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
