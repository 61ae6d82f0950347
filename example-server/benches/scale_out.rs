//! example-server deployed as issue 23 describes, measured in one run:
//!
//! - `tools/call` of a tool that touches no store (`list_allowed_directories`),
//!   64 clients at once: one instance without a store (the baseline), one
//!   with each store, and three behind HAProxy sharing each store;
//! - a confirmation round trip (`move_path`: the question, then the retry
//!   with the answer), one client: in memory, on Redis, on PostgreSQL.
//!
//! ```text
//! cargo bench -p example-server --bench scale_out
//! ```
//!
//! Needs the machine's Redis and PostgreSQL (`TOOLMETADATA_TEST_REDIS`,
//! `TOOLMETADATA_TEST_POSTGRES`) and HAProxy.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use toolmetadata_tests::mcp::{HttpServer, http_server, message_of};
use toolmetadata_tests::stores::free_port;

const BIN: &str = env!("CARGO_BIN_EXE_example-server");
const KEY: &str = "benchmark-key-of-at-least-32-bytes!!!!!";
const CLIENTS: usize = 64;
const CALLS_PER_CLIENT: usize = 100;
const ROUND_TRIPS: usize = 200;

/// One 2026-07-28 request; the JSON-RPC answer.
async fn post(
    client: &reqwest::Client,
    url: &str,
    method: &str,
    name: &str,
    params: Value,
) -> Value {
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
        "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "0"}
    });
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let response = client
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method)
        .header("mcp-name", name)
        .body(body.to_string())
        .send()
        .await
        .expect("request");
    message_of(&response.text().await.expect("body"))
}

struct Calls {
    per_second: f64,
    p50_ms: f64,
    p99_ms: f64,
}

/// 64 clients, each calling one after another.
async fn calls(url: &str) -> Calls {
    let client = reqwest::Client::new();
    // Warm the connections and the instances.
    for _ in 0..CLIENTS {
        call_once(&client, url).await;
    }
    let started = Instant::now();
    let mut workers = Vec::new();
    for _ in 0..CLIENTS {
        let (client, url) = (client.clone(), url.to_owned());
        workers.push(tokio::spawn(async move {
            let mut latencies = Vec::with_capacity(CALLS_PER_CLIENT);
            for _ in 0..CALLS_PER_CLIENT {
                let at = Instant::now();
                call_once(&client, &url).await;
                latencies.push(at.elapsed());
            }
            latencies
        }));
    }
    let mut latencies = Vec::new();
    for worker in workers {
        latencies.extend(worker.await.expect("worker"));
    }
    let elapsed = started.elapsed();
    latencies.sort();
    let at = |q: f64| latencies[((latencies.len() as f64 * q) as usize).min(latencies.len() - 1)];
    Calls {
        per_second: latencies.len() as f64 / elapsed.as_secs_f64(),
        p50_ms: at(0.50).as_secs_f64() * 1e3,
        p99_ms: at(0.99).as_secs_f64() * 1e3,
    }
}

async fn call_once(client: &reqwest::Client, url: &str) {
    let reply = post(
        client,
        url,
        "tools/call",
        "list_allowed_directories",
        json!({"name": "list_allowed_directories", "arguments": {}}),
    )
    .await;
    assert!(
        reply["result"]["isError"] != true && reply.get("error").is_none(),
        "{reply}"
    );
}

/// Milliseconds per confirmation round trip: `move_path` asks, the retry
/// answers and moves; the next one moves the file back.
async fn round_trips(url: &str, root: &std::path::Path) -> f64 {
    std::fs::write(root.join("x.txt"), "x").expect("write");
    let client = reqwest::Client::new();
    let started = Instant::now();
    for i in 0..ROUND_TRIPS {
        let (from, to) = if i % 2 == 0 {
            ("x.txt", "y.txt")
        } else {
            ("y.txt", "x.txt")
        };
        let params = json!({"name": "move_path", "arguments": {"source": from, "destination": to}});
        let asked = post(&client, url, "tools/call", "move_path", params.clone()).await;
        let input = &asked["result"];
        let answers: serde_json::Map<String, Value> = input["inputRequests"]
            .as_object()
            .unwrap_or_else(|| panic!("move_path asks: {asked}"))
            .keys()
            .map(|k| (k.clone(), json!({"action": "accept", "content": {}})))
            .collect();
        let mut retry = params;
        retry["inputResponses"] = Value::Object(answers);
        retry["requestState"] = input["requestState"].clone();
        let done = post(&client, url, "tools/call", "move_path", retry).await;
        assert!(
            done["result"]["isError"] != true && done.get("error").is_none(),
            "{done}"
        );
    }
    started.elapsed().as_secs_f64() * 1e3 / ROUND_TRIPS as f64
}

async fn instances(n: usize, root: &str, store: Option<&str>) -> Vec<HttpServer> {
    let mut args = vec!["--root", root, "--state-key", KEY];
    if let Some(url) = store {
        args.extend(["--store", url]);
    }
    let mut started = Vec::new();
    for _ in 0..n {
        started.push(http_server(BIN, &args).await);
    }
    started
}

/// HAProxy, round robin over `backends`; its URL and process.
async fn balancer(
    backends: &[HttpServer],
) -> (String, tokio::process::Child, tempfile::NamedTempFile) {
    let port = free_port();
    let mut config = format!(
        "global\n  maxconn 2048\ndefaults\n  mode http\n  timeout connect 2s\n  timeout client 60s\n  \
         timeout server 60s\nfrontend mcp\n  bind 127.0.0.1:{port}\n  default_backend instances\n\
         backend instances\n  balance roundrobin\n"
    );
    for (i, backend) in backends.iter().enumerate() {
        let address = backend
            .url
            .trim_start_matches("http://")
            .trim_end_matches("/mcp");
        config.push_str(&format!("  server i{i} {address}\n"));
    }
    let file = tempfile::NamedTempFile::new().expect("config");
    std::fs::write(file.path(), config).expect("write");
    let child = tokio::process::Command::new("haproxy")
        .arg("-db")
        .arg("-f")
        .arg(file.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("haproxy");
    while tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .is_err()
    {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    (format!("http://127.0.0.1:{port}/mcp"), child, file)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let redis = std::env::var("TOOLMETADATA_TEST_REDIS")
        .unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
    let postgres = std::env::var("TOOLMETADATA_TEST_POSTGRES")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into());
    let ws = tempfile::tempdir().expect("tempdir");
    let root = ws.path().display().to_string();
    let stores: [(&str, Option<&str>); 3] = [
        ("memory", None),
        ("redis", Some(&redis)),
        ("postgres", Some(&postgres)),
    ];

    println!(
        "| tools/call (no store touched), {CLIENTS} clients | calls/s | p50 ms | p99 ms | calls/s vs baseline |"
    );
    println!("|---|---|---|---|---|");
    let mut baseline = None;
    let row = |what: &str, c: &Calls, base: f64| {
        println!(
            "| {what} | {:.0} | {:.2} | {:.2} | {:.2}× |",
            c.per_second,
            c.p50_ms,
            c.p99_ms,
            c.per_second / base
        );
    };
    let mut confirmations = Vec::new();
    for (name, store) in stores {
        let one = instances(1, &root, store).await;
        let direct = calls(&one[0].url).await;
        let base = *baseline.get_or_insert(direct.per_second);
        row(&format!("one instance, {name}"), &direct, base);
        confirmations.push((name, round_trips(&one[0].url, ws.path()).await));
        drop(one);
        if store.is_some() {
            let three = instances(3, &root, store).await;
            let (url, _haproxy, _config) = balancer(&three).await;
            let through = calls(&url).await;
            row(
                &format!("three instances behind HAProxy, {name}"),
                &through,
                base,
            );
        }
    }
    println!("\n| confirmation round trip (question + answered retry), one client | ms |");
    println!("|---|---|");
    for (name, ms) in confirmations {
        println!("| {name} | {ms:.2} |");
    }
}
