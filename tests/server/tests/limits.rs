//! `[limits]` held by the server, through the public API: `throttled`
//! (`timeout = "500ms"`, `concurrency = 1`, `rate = "5/min"`) over stdio.
//! A call past its timeout is cancelled (its `Context` sees it) and
//! answered with the limit; a call past the concurrency or the rate is
//! refused, saying which limit and when to retry, in text and in `_meta`.

use serde_json::json;
use toolmetadata_tests::mcp::*;

const BIN: &str = env!("CARGO_BIN_EXE_toolmetadata-test-server");

fn limit_of(result: &toolmetadata::server::rmcp::model::CallToolResult) -> serde_json::Value {
    let meta = result.meta.as_ref().expect("_meta");
    meta.0
        .get("io.toolmetadata/limit")
        .cloned()
        .expect("the limit in _meta")
}

/// The SEP-3313 (draft) failure in `_meta`, with its correlation id.
fn failure_of(result: &toolmetadata::server::rmcp::model::CallToolResult) -> serde_json::Value {
    let meta = result.meta.as_ref().expect("_meta");
    let failure = meta
        .0
        .get("io.modelcontextprotocol/toolFailure")
        .cloned()
        .expect("toolFailure in _meta");
    assert_eq!(failure["correlationId"].as_str().map(str::len), Some(36));
    failure
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_past_its_timeout_is_cancelled() {
    let (client, _) = stdio(BIN, &[]).await;
    let result = call(&client, "throttled", json!({"millis": 10_000})).await;
    assert!(is_error(&result));
    assert_eq!(
        text(&result),
        "the call of `throttled` timed out after 500 ms, its limit"
    );
    assert_eq!(limit_of(&result), json!({"limit": "timeout"}));
    let failure = failure_of(&result);
    assert_eq!(
        (failure["class"].as_str(), failure["code"].as_str()),
        (Some("reliability"), Some("timeout"))
    );
    // Not idempotent: a retry would repeat what the call did before it stopped.
    assert_eq!(failure["retryable"], false);
    // The handler's Context saw the cancellation.
    let seen = text(&call(&client, "cancellations", json!({})).await);
    assert_eq!(seen, "1");
    client.cancel().await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_past_the_concurrency_is_refused_with_when_to_retry() {
    let (client, _) = stdio(BIN, &[]).await;
    let client = std::sync::Arc::new(client);
    let first = {
        let client = client.clone();
        tokio::spawn(async move { call(&client, "throttled", json!({"millis": 400})).await })
    };
    // Until the first call is running.
    tokio::time::sleep(std::time::Duration::from_millis(150)).await;
    let second = call(&client, "throttled", json!({})).await;
    assert!(is_error(&second));
    assert!(
        text(&second).contains("already runs 1 call at once, its limit"),
        "{}",
        text(&second)
    );
    assert_eq!(
        limit_of(&second),
        json!({"limit": "concurrency", "retryAfterMs": 1000})
    );
    let first = first.await.expect("first call");
    assert_eq!(text(&first), "done");
    // Once it ended, there is room again.
    assert_eq!(text(&call(&client, "throttled", json!({})).await), "done");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_past_the_rate_is_refused_until_the_window_has_room() {
    let (client, _) = stdio(BIN, &[]).await;
    for _ in 0..5 {
        assert_eq!(text(&call(&client, "throttled", json!({})).await), "done");
    }
    let refused = call(&client, "throttled", json!({})).await;
    assert!(is_error(&refused));
    assert!(
        text(&refused).starts_with("`throttled` allows 5 per minute to each caller; retry in "),
        "{}",
        text(&refused)
    );
    let limit = limit_of(&refused);
    assert_eq!(limit["limit"], "rate");
    let failure = failure_of(&refused);
    assert_eq!(
        (failure["class"].as_str(), failure["code"].as_str()),
        (Some("governance"), Some("rate_limited"))
    );
    let retry = limit["retryAfterMs"].as_u64().expect("retryAfterMs");
    assert!((50_000..=60_000).contains(&retry), "{retry}");
    // Other tools are not limited.
    assert_eq!(
        text(&call(&client, "echo", json!({"text": "hi"})).await),
        "hi"
    );
}
