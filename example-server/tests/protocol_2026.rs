//! The example server on 2026-07-28 over HTTP: instances with one
//! configuration answer lists identically, with cache hints, and say nothing
//! per request at the default log level.

use serde_json::json;
use toolmetadata_tests::mcp::*;

const BIN: &str = env!("CARGO_BIN_EXE_example-server");

/// The `data:` payload of an SSE answer (or the JSON body), as sent.
fn payload(body: &str) -> String {
    body.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .map(str::trim)
        .find(|d| !d.is_empty())
        .unwrap_or(body.trim())
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_list_byte_for_byte_with_a_positive_ttl() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().display().to_string();
    let args = ["--root", root.as_str(), "--allow-command", "echo"];
    let (a, b) = (http_server(BIN, &args).await, http_server(BIN, &args).await);
    for method in ["tools/list", "resources/list"] {
        let list = |url: String| async move {
            post_2026(&url, method, None, &[], request_2026(1, method, json!({}))).await
        };
        let ((status_a, body_a), (status_b, body_b)) =
            (list(a.url.clone()).await, list(b.url.clone()).await);
        assert_eq!((status_a, status_b), (200, 200), "{method}: {body_a}");
        assert_eq!(payload(&body_a), payload(&body_b), "{method}");
        let reply = message_of(&body_a);
        assert!(
            reply["result"]["ttlMs"].as_u64().is_some_and(|t| t > 0),
            "{method}: {reply}"
        );
        assert_eq!(reply["result"]["cacheScope"], "public", "{method}: {reply}");
    }
    let logs = a.logs.lock().expect("lock").clone();
    assert!(
        !logs
            .iter()
            .any(|l| l.contains(" INFO ") && l.contains("rmcp")),
        "{logs:#?}"
    );
}
