//! Three example-server instances behind HAProxy (Debian's package), round
//! robin with no affinity, sharing one store, on Redis and on PostgreSQL in
//! turn (stores of the test's own, so that one can be restarted):
//!
//! - a task started through the balancer is polled and cancelled through
//!   it, and the cancellation stops the process on whichever instance runs
//!   it;
//! - an instance killed with SIGKILL mid-task leaves its task failed,
//!   as seen through the balancer, within the lease;
//! - a confirmation's retry sent to two instances at once runs once;
//! - a 2025-11-25 session opened through the balancer keeps working after
//!   the instance that served it is killed;
//! - the store restarted mid-run: plain calls keep working, task calls,
//!   task reads and confirmation retries fail within a bound naming the
//!   store (running nothing), and service resumes by itself.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, GetTaskParams, TaskPayload,
    TaskStatus,
};
use serde_json::{Value, json};
use toolmetadata_tests::haproxy::Haproxy;
use toolmetadata_tests::mcp::*;
use toolmetadata_tests::stores::{OwnPostgres, OwnRedis, wait_for_sleep};

const BIN: &str = env!("CARGO_BIN_EXE_example-server");
const KEY: &str = "scale-out-test-key-of-32-bytes-or-more!!";
/// The lease the instances run with, in seconds.
const LEASE: u64 = 2;

/// The store under test, of the test's own.
enum Store {
    Redis(OwnRedis),
    Postgres(OwnPostgres),
}

impl Store {
    fn url(&self) -> String {
        match self {
            Store::Redis(r) => r.url(),
            Store::Postgres(p) => p.url(),
        }
    }

    /// What the store's errors call it.
    fn name(&self) -> String {
        match self {
            Store::Redis(r) => format!("redis at 127.0.0.1:{}", r.port),
            Store::Postgres(p) => format!("postgres at 127.0.0.1:{}", p.port),
        }
    }

    async fn stop(self) -> Self {
        tokio::task::spawn_blocking(move || {
            match &self {
                Store::Redis(_) => {}
                Store::Postgres(p) => p.stop(),
            }
            let mut store = self;
            if let Store::Redis(r) = &mut store {
                r.stop();
            }
            store
        })
        .await
        .expect("stop")
    }

    async fn restart(self) -> Self {
        tokio::task::spawn_blocking(move || {
            let mut store = self;
            match &mut store {
                Store::Redis(r) => r.restart(),
                Store::Postgres(p) => p.restart(),
            }
            store
        })
        .await
        .expect("restart")
    }
}

fn object(value: Value) -> serde_json::Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => serde_json::Map::new(),
    }
}

fn run(program: &str, args: &[&str]) -> CallToolRequestParams {
    CallToolRequestParams::new("run_command")
        .with_arguments(object(json!({"program": program, "args": args})))
}

async fn start_task(client: &Client, params: CallToolRequestParams) -> Result<String, String> {
    match client.call_tool_once(params).await {
        Ok(CallToolResponse::Task(handle)) => Ok(handle.task.task_id),
        Ok(other) => Err(format!("expected a task handle, got {other:?}")),
        Err(e) => Err(e.to_string()),
    }
}

async fn task_client(url: &str) -> Client {
    let recorder = Recorder {
        tasks: true,
        ..Recorder::default()
    };
    http_client_as(url, recorder, true).await.0
}

async fn status(client: &Client, id: &str) -> (TaskStatus, TaskPayload) {
    let got = client
        .get_task(GetTaskParams::new(id.to_owned()))
        .await
        .expect("tasks/get");
    (got.task.status(), got.task.payload)
}

/// The instances' logs, printed when the test fails.
struct DumpOnPanic(Vec<std::sync::Arc<std::sync::Mutex<Vec<String>>>>);

impl Drop for DumpOnPanic {
    fn drop(&mut self) {
        if std::thread::panicking() {
            for (i, logs) in self.0.iter().enumerate() {
                for line in logs.lock().map(|l| l.clone()).unwrap_or_default() {
                    eprintln!("instance {i}: {line}");
                }
            }
        }
    }
}

async fn scenario(mut store: Store) {
    let ws = tempfile::tempdir().expect("tempdir");
    std::fs::write(ws.path().join("a.txt"), "one\n").expect("write");
    let root = ws.path().display().to_string();
    let url = store.url();
    let lease = LEASE.to_string();
    let args = [
        "--root",
        &root,
        "--store",
        &url,
        "--state-key",
        KEY,
        "--task-lease-secs",
        &lease,
        "--allow-command",
        "sleep",
        "--allow-command",
        "echo",
    ];
    let mut instances = Vec::new();
    for _ in 0..3 {
        instances.push(http_server(BIN, &args).await);
    }
    let _dump = DumpOnPanic(instances.iter().map(|i| i.logs.clone()).collect());
    let pids: Vec<u32> = instances
        .iter()
        .map(|i| i.child.id().expect("pid"))
        .collect();
    let backends: Vec<std::net::SocketAddr> = instances
        .iter()
        .map(|i| {
            i.url
                .trim_start_matches("http://")
                .trim_end_matches("/mcp")
                .parse()
                .expect("an address")
        })
        .collect();
    let Some(balancer) = Haproxy::start(
        "the scale-out test",
        "http",
        &["retries 3", "option redispatch"],
        &backends,
        "check inter 300ms fall 1 rise 2",
    )
    .await
    else {
        return;
    };
    let through = task_client(&balancer.url()).await;

    // A task through the balancer: polled there (each poll another
    // instance), cancelled there, its process stopped wherever it runs.
    let id = start_task(&through, run("sleep", &["30"]))
        .await
        .expect("a task");
    wait_for_sleep(&pids, true).await;
    for _ in 0..3 {
        assert_eq!(status(&through, &id).await.0, TaskStatus::Working);
    }
    through
        .cancel_task(CancelTaskParams::new(id.clone()))
        .await
        .expect("tasks/cancel");
    wait_for_sleep(&pids, false).await;
    for _ in 0..3 {
        assert_eq!(status(&through, &id).await.0, TaskStatus::Cancelled);
    }

    // The instance running a task dies: the task reads as failed, through
    // the balancer, once the lease has lapsed.
    let first = task_client(&instances[0].url).await;
    let orphan = start_task(&first, run("sleep", &["20"]))
        .await
        .expect("a task on the first instance");
    wait_for_sleep(&pids[..1], true).await;
    instances[0].child.start_kill().expect("SIGKILL");
    let killed = Instant::now();
    let failed = loop {
        // A request the balancer had already handed to the killed instance
        // gets 502 (HAProxy retries only connections refused): a client
        // polls again, as any would.
        match through
            .get_task(GetTaskParams::new(orphan.clone()))
            .await
            .map(|got| (got.task.status(), got.task.payload))
        {
            Ok((TaskStatus::Working, _)) => {}
            Ok((TaskStatus::Failed, payload)) => break payload,
            Ok(other) => panic!("{other:?}"),
            Err(e) => assert!(e.to_string().contains("502"), "{e}"),
        }
        assert!(
            killed.elapsed() < Duration::from_secs(LEASE + 3),
            "still working {:?} after the kill",
            killed.elapsed()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert!(format!("{failed:?}").contains("stopped"), "{failed:?}");

    // A confirmation asked on one instance; its answered retry sent to the
    // other two at once runs once.
    let person = Person::answering(json!({"action": "accept", "content": {}}));
    let asking = connect_http(&instances[1].url, person.clone(), true).await;
    let move_a = CallToolRequestParams::new("move_path")
        .with_arguments(object(json!({"source": "a.txt", "destination": "b.txt"})));
    let CallToolResponse::InputRequired(input) = asking
        .call_tool_once(move_a.clone())
        .await
        .expect("first attempt")
    else {
        panic!("move_path asks first");
    };
    let responses: BTreeMap<String, Value> = input
        .input_requests
        .expect("a question")
        .keys()
        .map(|k| (k.clone(), json!({"action": "accept", "content": {}})))
        .collect();
    let mut retry = move_a;
    retry.input_responses = Some(responses);
    retry.request_state = input.request_state;
    let second = connect_http(&instances[1].url, person.clone(), true).await;
    let third = connect_http(&instances[2].url, person.clone(), true).await;
    let (x, y) = tokio::join!(
        second.call_tool_once(retry.clone()),
        third.call_tool_once(retry.clone())
    );
    let ran = [&x, &y]
        .iter()
        .filter(|r| matches!(r, Ok(CallToolResponse::Complete(c)) if c.is_error != Some(true)))
        .count();
    let refused = [&x, &y]
        .iter()
        .filter(|r| matches!(r, Err(e) if e.to_string().contains("already used")))
        .count();
    assert_eq!((ran, refused), (1, 1), "{x:?}\n{y:?}");
    assert_eq!(
        std::fs::read_to_string(ws.path().join("b.txt")).expect("moved once"),
        "one\n"
    );

    // A 2025-11-25 session through the balancer: its requests land on
    // either live instance, and it outlives the one that is killed.
    let (session, _) = http_client(&balancer.url()).await;
    for _ in 0..4 {
        let result = call(&session, "list_allowed_directories", json!({})).await;
        assert!(!is_error(&result), "{}", text(&result));
    }
    instances[1].child.start_kill().expect("SIGKILL");
    let _ = instances[1].child.wait().await;
    // The balancer's health check (every 300 ms) takes it out of the
    // rotation; a request in flight to it meanwhile would get 502.
    tokio::time::sleep(Duration::from_millis(1000)).await;
    for _ in 0..4 {
        let result = call(&session, "list_allowed_directories", json!({})).await;
        assert!(!is_error(&result), "{}", text(&result));
    }

    // The store goes away: plain calls go on; task calls fail soon, naming
    // the store; service resumes once it is back.
    let name = store.name();
    let move_b = CallToolRequestParams::new("move_path")
        .with_arguments(object(json!({"source": "b.txt", "destination": "c.txt"})));
    let CallToolResponse::InputRequired(input) = third
        .call_tool_once(move_b.clone())
        .await
        .expect("first attempt")
    else {
        panic!("move_path asks first");
    };
    let mut answered = move_b;
    answered.input_responses = Some(
        input
            .input_requests
            .expect("a question")
            .keys()
            .map(|k| (k.clone(), json!({"action": "accept", "content": {}})))
            .collect(),
    );
    answered.request_state = input.request_state;
    store = store.stop().await;
    let plain = call(&session, "list_allowed_directories", json!({})).await;
    assert!(!is_error(&plain), "{}", text(&plain));
    let asked = Instant::now();
    let e = start_task(&through, run("echo", &["hi"]))
        .await
        .expect_err("no store, no task");
    assert!(
        asked.elapsed() < Duration::from_secs(6),
        "{:?}",
        asked.elapsed()
    );
    assert!(e.contains(&name), "{e}");
    // Reading a task and retrying a confirmation fail the same way, and
    // the confirmed move does not happen unchecked.
    let asked = Instant::now();
    let e = through
        .get_task(GetTaskParams::new(id.clone()))
        .await
        .expect_err("no store, no task to read");
    assert!(e.to_string().contains(&name), "{e}");
    let e = third
        .call_tool_once(answered)
        .await
        .expect_err("no store, no single-use check");
    assert!(e.to_string().contains(&name), "{e}");
    assert!(
        asked.elapsed() < Duration::from_secs(10),
        "{:?}",
        asked.elapsed()
    );
    assert!(ws.path().join("b.txt").exists() && !ws.path().join("c.txt").exists());
    store = store.restart().await;
    let back = Instant::now();
    loop {
        match start_task(&through, run("echo", &["hi"])).await {
            Ok(_) => break,
            Err(e) => assert!(back.elapsed() < Duration::from_secs(20), "{e}"),
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    for client in [through, first, session] {
        let _ = client.cancel().await;
    }
    for client in [asking, second, third] {
        let _ = client.cancel().await;
    }
    drop(balancer);
    drop(store);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_instances_behind_haproxy_share_redis() {
    scenario(Store::Redis(OwnRedis::start())).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_instances_behind_haproxy_share_postgres() {
    let store = tokio::task::spawn_blocking(OwnPostgres::start)
        .await
        .expect("initdb and start");
    scenario(Store::Postgres(store)).await;
}
