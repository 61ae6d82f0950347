//! The tutorial's server answers a real client.

use serde_json::json;
use toolmetadata_tests::mcp::{call, stdio, text};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tutorial_server_searches_notes() {
    let (client, _) = stdio(env!("CARGO_BIN_EXE_notes"), &[]).await;
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

/// Issue 47: an MCP bundle passes `--http=ADDR`, which the tutorial's `main`
/// did not read (it served stdio), and a bad address said only
/// `AddrParseError(Socket)`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn both_forms_of_http_are_taken_and_a_bad_address_is_named() {
    use toolmetadata_tests::mcp::http_server;
    let bin = env!("CARGO_BIN_EXE_notes");
    // `http_server` passes `--http 127.0.0.1:0`; the other form here.
    let spaced = http_server(bin, &[]).await;
    assert!(
        spaced.url.starts_with("http://127.0.0.1:"),
        "{}",
        spaced.url
    );
    let mut child = tokio::process::Command::new(bin)
        .arg("--http=127.0.0.1:0")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn");
    use tokio::io::AsyncBufReadExt;
    let mut lines = tokio::io::BufReader::new(child.stderr.take().expect("stderr")).lines();
    loop {
        let line = toolmetadata_tests::mcp::next_log_line(&mut lines, "it serves HTTP").await;
        if line.contains("listening on http://127.0.0.1:") {
            break;
        }
    }
    let out = tokio::process::Command::new(bin)
        .args(["--http", "nowhere"])
        .output()
        .await
        .expect("run");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("--http nowhere") && stderr.contains("127.0.0.1:8080"),
        "{stderr}"
    );
}
