//! `[limits]` across instances: two servers in one process share each store
//! in turn (the machine's Redis and PostgreSQL, a namespace per test), and a
//! caller's rate and a tool's concurrency are counted once for both, each
//! refusal naming its limit and when to retry; with the store gone, each
//! instance holds the limits on its own.
#![cfg(all(feature = "redis", feature = "postgres"))]

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};
use toolmetadata::metadata::Load as _;

use tokio::sync::Notify;

use common::{Names, clean};
use serde_json::{Value, json};
use toolmetadata::metadata::ToolMetadata;
use toolmetadata::server::{Arguments, HttpOptions, Server};
use toolmetadata::{Context, ToolOutput, ToolResult};
use toolmetadata_store::{Options, connect};
use toolmetadata_tests::mcp::{message_of, post_2026};
use toolmetadata_tests::stores::OwnRedis;

const COUNTED: &str = "description = \"Answers\"\n[limits]\nrate = \"2/min\"\n";
const SINGLE: &str = "description = \"Takes a while\"\n[limits]\nconcurrency = 1\n";

/// What the test sees of `single`'s handler: it says when it runs, and
/// returns when told.
#[derive(Default)]
struct Gate {
    entered: Notify,
    leave: Notify,
}

/// An instance over HTTP with `store`, leases of a second (renewed every
/// third of one while a call runs).
async fn instance<S: toolmetadata::server::store::SharedStore>(
    store: Arc<S>,
    gate: Arc<Gate>,
) -> String {
    let counted = ToolMetadata::from_toml_str("counted", COUNTED).expect("metadata");
    let single = ToolMetadata::from_toml_str("single", SINGLE).expect("metadata");
    let server = Server::builder()
        .store(store)
        .task_lease(Duration::from_secs(1))
        .tool(counted, |_: Arguments, _: Context| async {
            ToolResult::Ok(ToolOutput::from("ok"))
        })
        .tool(single, move |_: Arguments, _: Context| {
            let gate = gate.clone();
            async move {
                gate.entered.notify_one();
                gate.leave.notified().await;
                ToolResult::Ok(ToolOutput::from("done"))
            }
        })
        .build()
        .expect("server");
    let bound = server
        .bind_http(
            HttpOptions::default()
                .addr(([127, 0, 0, 1], 0).into())
                .token_verifier(Names),
        )
        .await
        .expect("bind");
    let url = format!("http://{}/mcp", bound.local_addr().expect("addr"));
    tokio::spawn(bound.run());
    url
}

/// A 2026-07-28 `tools/call` of `tool` as `who`: the result.
async fn call(url: &str, who: &str, tool: &str) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": tool, "arguments": {},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"}
        }
    }});
    let authorization = format!("Bearer {who}");
    let (_, reply) = post_2026(
        url,
        "tools/call",
        Some(tool),
        &[("authorization", &authorization)],
        body.to_string(),
    )
    .await;
    message_of(&reply)["result"].clone()
}

/// Which limit refused `result`, if one did.
fn refused_by(result: &Value) -> Option<String> {
    (result["isError"] == true)
        .then(|| result["_meta"]["io.toolmetadata/limit"]["limit"].as_str())
        .flatten()
        .map(str::to_owned)
}

async fn the_fleet_holds_the_limits(a: &str, b: &str, gate: &Gate, what: &str) {
    // alice's rate is 2 a minute, wherever her calls land.
    assert_eq!(
        refused_by(&call(a, "alice", "counted").await),
        None,
        "{what}"
    );
    assert_eq!(
        refused_by(&call(b, "alice", "counted").await),
        None,
        "{what}"
    );
    let third = call(a, "alice", "counted").await;
    assert_eq!(
        refused_by(&third).as_deref(),
        Some("rate"),
        "{what}: {third}"
    );
    let retry = third["_meta"]["io.toolmetadata/limit"]["retryAfterMs"]
        .as_u64()
        .unwrap_or_else(|| panic!("{what}: when to retry: {third}"));
    assert!(retry > 0 && retry <= 60_000, "{what}: {retry}");
    assert_eq!(
        third["_meta"]["io.modelcontextprotocol/toolFailure"]["code"], "rate_limited",
        "{what}"
    );
    // bob has his own.
    assert_eq!(refused_by(&call(b, "bob", "counted").await), None, "{what}");

    // One `single` at a time in the fleet: a second, on the other
    // instance, is refused while the first runs, also after the first's
    // lease (a second) has been renewed, and let in once it has ended.
    let first = tokio::spawn({
        let a = a.to_owned();
        async move { call(&a, "alice", "single").await }
    });
    tokio::time::timeout(Duration::from_secs(20), gate.entered.notified())
        .await
        .unwrap_or_else(|_| panic!("{what}: the first call never ran"));
    let second = call(b, "bob", "single").await;
    assert_eq!(
        refused_by(&second).as_deref(),
        Some("concurrency"),
        "{what}: {second}"
    );
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    // A lapsed slot would let this call run, and wait at the gate.
    let later = tokio::time::timeout(Duration::from_secs(5), call(b, "bob", "single"))
        .await
        .unwrap_or_else(|_| panic!("{what}: the running call's slot lapsed: a second ran"));
    assert_eq!(
        refused_by(&later).as_deref(),
        Some("concurrency"),
        "{what}: the running call's slot is renewed past its lease: {later}"
    );
    gate.leave.notify_one();
    let first = first.await.expect("join");
    assert_eq!(first["isError"], false, "{what}: {first}");
    // The slot is given back as the call ends (from a task, a moment later).
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let next = tokio::spawn({
            let b = b.to_owned();
            async move { call(&b, "bob", "single").await }
        });
        let entered = tokio::time::timeout(Duration::from_secs(2), gate.entered.notified()).await;
        if entered.is_ok() {
            gate.leave.notify_one();
            let done = next.await.expect("join");
            assert_eq!(done["isError"], false, "{what}: {done}");
            break;
        }
        let refused = next.await.expect("join");
        assert_eq!(
            refused_by(&refused).as_deref(),
            Some("concurrency"),
            "{what}: {refused}"
        );
        assert!(
            Instant::now() < deadline,
            "{what}: the ended call's slot was never given back"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rates_and_concurrency_are_the_fleets() {
    let urls = [
        std::env::var("TOOLMETADATA_TEST_REDIS")
            .unwrap_or_else(|_| "redis://127.0.0.1:6379".into()),
        std::env::var("TOOLMETADATA_TEST_POSTGRES")
            .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into()),
    ];
    for url in urls {
        let namespace = format!(
            "l{}_{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_micros())
        );
        let store = connect(&url, Options::default().namespace(&namespace))
            .await
            .unwrap_or_else(|e| panic!("{e}: this test needs the machine's Redis and PostgreSQL"));
        let gate = Arc::new(Gate::default());
        let (a, b) = (
            instance(store.clone(), gate.clone()).await,
            instance(store, gate.clone()).await,
        );
        the_fleet_holds_the_limits(&a, &b, &gate, &url).await;
        clean(&url, &namespace).await;
    }
}

/// With the store gone, each instance holds the limits itself: a caller
/// still gets no more than the rate from one instance, and calls go on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_store_each_instance_holds_the_limits() {
    let mut redis = OwnRedis::start();
    let store = connect(
        &redis.url(),
        Options::default().timeout(Duration::from_millis(300)),
    )
    .await
    .expect("connect");
    let a = instance(store.clone(), Arc::new(Gate::default())).await;
    redis.stop();
    use toolmetadata::server::store::LimitStore;
    assert!(
        store.take_rate("probe", 1, 1_000).await.is_err(),
        "the store is out of reach"
    );
    assert_eq!(refused_by(&call(&a, "carol", "counted").await), None);
    assert_eq!(refused_by(&call(&a, "carol", "counted").await), None);
    let third = call(&a, "carol", "counted").await;
    assert_eq!(refused_by(&third).as_deref(), Some("rate"), "{third}");
}
