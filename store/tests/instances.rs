//! Two server instances in one process, sharing each store in turn (the
//! machine's Redis and PostgreSQL, a namespace per test): a task started on
//! one is cancelled through the other and its handler sees it within about
//! a second; a task belongs to the principal that started it, and a
//! 2025-11-25 session to the principal that opened it, on every instance.
#![cfg(all(feature = "redis", feature = "postgres"))]

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use toolmetadata::metadata::Load as _;

use common::{Names, clean};
use serde_json::{Value, json};
use toolmetadata::metadata::ToolMetadata;
use toolmetadata::server::{Arguments, HttpOptions, Server};
use toolmetadata::{Context, ToolResult};
use toolmetadata_store::{Options, connect};
use toolmetadata_tests::mcp::{
    message_of, open_session_2025, post_2026, request_2026_declaring, send_2025, with_tasks,
};

const LONG_JOB: &str = "description = \"Waits until cancelled\"\ntask = \"optional\"\n";

/// An instance over HTTP with `store`; `cancelled` counts the handlers that
/// saw their cancellation.
async fn instance(store: Arc<toolmetadata_store::Store>, cancelled: Arc<AtomicUsize>) -> String {
    let metadata = ToolMetadata::from_toml_str("long_job", LONG_JOB).expect("metadata");
    let server = Server::builder()
        .store(store)
        .tool(metadata, move |_: Arguments, cx: Context| {
            // The server drops the handler's future when the call is
            // cancelled: a task of its own watches for it.
            let cancelled = cancelled.clone();
            let watcher = cx.clone();
            tokio::spawn(async move {
                watcher.cancelled().await;
                cancelled.fetch_add(1, Ordering::SeqCst);
            });
            async move {
                tokio::time::sleep(Duration::from_secs(30)).await;
                ToolResult::Ok(toolmetadata::ToolOutput::from("done"))
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

/// A 2026-07-28 request from a client that declares the tasks extension, as
/// `who`; the JSON-RPC answer.
async fn send(url: &str, who: &str, method: &str, name: &str, params: Value) -> Value {
    let body = request_2026_declaring(1, method, params, with_tasks());
    let authorization = format!("Bearer {who}");
    let (_, reply) = post_2026(
        url,
        method,
        Some(name),
        &[("authorization", &authorization)],
        body,
    )
    .await;
    message_of(&reply)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_cross_instances_and_stay_their_principals() {
    for url in store_urls() {
        let namespace = format!("i{}", std::process::id());
        let store = connect(&url, Options::default().namespace(&namespace))
            .await
            .unwrap_or_else(|e| panic!("{e}: this test needs the machine's Redis and PostgreSQL"));
        let cancelled = Arc::new(AtomicUsize::new(0));
        let a = instance(store.clone(), cancelled.clone()).await;
        let b = instance(store.clone(), cancelled.clone()).await;

        let started = send(
            &a,
            "alice",
            "tools/call",
            "long_job",
            json!({"name": "long_job", "arguments": {}}),
        )
        .await;
        let id = started["result"]["taskId"]
            .as_str()
            .unwrap_or_else(|| panic!("{url}: a task handle: {started}"))
            .to_owned();

        // Another principal, on either instance: no such task.
        for (instance, method) in [(&a, "tasks/get"), (&b, "tasks/get"), (&b, "tasks/cancel")] {
            let refused = send(instance, "bob", method, &id, json!({"taskId": id})).await;
            let message = refused["error"]["message"].as_str().unwrap_or_default();
            assert!(
                message.contains("no task"),
                "{url}: {method} as bob: {refused}"
            );
        }
        let seen = send(&b, "alice", "tasks/get", &id, json!({"taskId": id})).await;
        assert_eq!(seen["result"]["status"], "working", "{url}: {seen}");
        // Ids no server issued, as a hostile client would send them: unknown,
        // never an error of the store.
        for odd in [
            "'; DROP TABLE tasks; --".to_owned(),
            format!("{namespace}:tasks"),
            "*".to_owned(),
            "x".repeat(8_000),
        ] {
            let refused = send(&a, "alice", "tasks/get", &odd, json!({"taskId": odd})).await;
            let message = refused["error"]["message"].as_str().unwrap_or_default();
            assert!(
                message.contains("no task"),
                "{url}: {}",
                refused.to_string().chars().take(300).collect::<String>()
            );
        }
        assert_eq!(
            cancelled.load(Ordering::SeqCst),
            0,
            "{url}: bob cancelled nothing"
        );

        // Cancelled on b, seen by the handler running on a.
        let asked = Instant::now();
        let cancel = send(&b, "alice", "tasks/cancel", &id, json!({"taskId": id})).await;
        assert!(cancel.get("error").is_none(), "{url}: {cancel}");
        while cancelled.load(Ordering::SeqCst) == 0 {
            assert!(
                asked.elapsed() < Duration::from_millis(1500),
                "{url}: the handler on a never saw the cancel made on b"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let seen = send(&a, "alice", "tasks/get", &id, json!({"taskId": id})).await;
        assert_eq!(seen["result"]["status"], "cancelled", "{url}: {seen}");

        clean(&url, &namespace).await;
    }
}

/// The machine's stores, as the tests name them.
fn store_urls() -> [String; 2] {
    [
        std::env::var("TOOLMETADATA_TEST_REDIS")
            .unwrap_or_else(|_| "redis://127.0.0.1:6379".into()),
        std::env::var("TOOLMETADATA_TEST_POSTGRES")
            .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into()),
    ]
}

/// Findings 2 and 4 of the third red team: Bob answered Alice's pending
/// confirmation with her session id, and a session deleted through one
/// instance lived on, on another.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_is_its_principals_on_every_instance() {
    for url in store_urls() {
        let namespace = format!("o{}", std::process::id());
        let store = connect(&url, Options::default().namespace(&namespace))
            .await
            .unwrap_or_else(|e| panic!("{e}: this test needs the machine's Redis and PostgreSQL"));
        let cancelled = Arc::new(AtomicUsize::new(0));
        let a = instance(store.clone(), cancelled.clone()).await;
        let b = instance(store.clone(), cancelled).await;
        let (alice, bob) = ("Bearer alice", "Bearer bob");
        let session = open_session_2025(&a, &[("authorization", alice)]).await;
        let ping = |id: u64| Some(json!({"jsonrpc": "2.0", "id": id, "method": "ping"}));
        // Bob, with a valid token of his own and Alice's session id, finds
        // no such session: on the instance that holds it and on the other,
        // for every method; his DELETE closes nothing.
        for instance in [&a, &b] {
            for method in ["POST", "GET", "DELETE"] {
                let body = if method == "POST" { ping(1) } else { None };
                let (status, text) = send_2025(
                    instance,
                    method,
                    Some(&session),
                    &[("authorization", bob)],
                    body,
                )
                .await;
                assert_eq!(status, 404, "{url}: bob's {method} on {instance}: {text}");
            }
        }
        // Alice's session lives on, on the instance that opened it and,
        // restored from the store, on the other.
        for instance in [&a, &b] {
            let (status, text) = send_2025(
                instance,
                "POST",
                Some(&session),
                &[("authorization", alice)],
                ping(2),
            )
            .await;
            assert_eq!(status, 200, "{url}: alice's ping on {instance}: {text}");
            assert!(message_of(&text)["result"].is_object(), "{url}: {text}");
        }
        // Closed through b, it is closed on a too, within about a second.
        let (status, text) = send_2025(
            &b,
            "DELETE",
            Some(&session),
            &[("authorization", alice)],
            None,
        )
        .await;
        assert_eq!(status, 204, "{url}: alice's DELETE on b: {text}");
        let closed = Instant::now();
        loop {
            let (status, _) = send_2025(
                &a,
                "POST",
                Some(&session),
                &[("authorization", alice)],
                ping(3),
            )
            .await;
            if status == 404 {
                break;
            }
            assert!(
                closed.elapsed() < Duration::from_millis(1500),
                "{url}: a still serves the session closed through b ({status})"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        // An id nobody issued, or a session already closed: 404 for DELETE
        // too.
        for id in [session.as_str(), "no-such-session"] {
            let (status, text) =
                send_2025(&a, "DELETE", Some(id), &[("authorization", alice)], None).await;
            assert_eq!(status, 404, "{url}: DELETE of {id}: {text}");
        }
        clean(&url, &namespace).await;
    }
}
