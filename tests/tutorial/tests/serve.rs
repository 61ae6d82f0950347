//! The tutorial's server answers a real client.

use serde_json::json;
use toolmetadata_tests::mcp::{call, stdio, text};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tutorial_server_searches_notes() {
    let (client, _) = stdio(env!("CARGO_BIN_EXE_toolmetadata-tutorial"), &[]).await;
    assert_eq!(
        text(&call(&client, "search_notes", json!({"query": "milk"})).await),
        "buy milk\nmilk the cow"
    );
    assert_eq!(
        text(
            &call(
                &client,
                "search_notes",
                json!({"query": "milk", "limit": 1})
            )
            .await
        ),
        "buy milk"
    );
    client.cancel().await.expect("close");
}
