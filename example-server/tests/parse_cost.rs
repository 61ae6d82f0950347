//! Issue 29, item 3: parsing bounded by its cost. A body or a stdio line of
//! tiny JSON values (once 99 times its size in memory) is refused before it
//! is parsed, with a JSON-RPC error to its id; a line longer than the stdio
//! limit gets one too, not silence. The server's peak memory (`VmHWM`, read
//! from `/proc`) stays within ten times the message on every path: a refused
//! body, the costliest body the budget admits, and a large file written,
//! over HTTP and on stdio.

use std::time::Duration;

use serde_json::{Value, json};
use toolmetadata_tests::mcp::*;
use toolmetadata_tests::raw::StdioChild;

const BIN: &str = env!("CARGO_BIN_EXE_example-server");
/// The server's default body limit.
const BODY: usize = 16 * 1024 * 1024;

/// The process's resident memory now and at its peak, in bytes.
fn rss(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("status");
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .expect("a memory field")
            * 1024
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// A `tools/call` of `write_file` whose arguments carry `pad` (JSON text)
/// beside a small content, grown to `len` bytes with `unit`, a JSON value.
fn padded_call(id: u64, unit: &str, len: usize) -> String {
    let head = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}},"io.modelcontextprotocol/clientInfo":{{"name":"raw","version":"0"}}}},"name":"write_file","arguments":{{"path":"pad.txt","content":"x","pad":["#
    );
    let tail = "0]}}}";
    let units = (len - head.len() - tail.len()) / (unit.len() + 1);
    let mut body = String::with_capacity(len);
    body.push_str(&head);
    for _ in 0..units {
        body.push_str(unit);
        body.push(',');
    }
    body.push_str(tail);
    body
}

/// Posts `body` to a fresh server; the answer, and how far the server's
/// peak memory rose above where it stood before.
async fn post_to_fresh_server(body: String) -> ((u16, Value), u64) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().display().to_string();
    let server = http_server(BIN, &["--root", &root]).await;
    let pid = server.child.id().expect("pid");
    // One call first, so that what every request needs is in place.
    let warm = request_2026(
        1,
        "tools/call",
        json!({"name": "list_allowed_directories", "arguments": {}}),
    );
    let (status, _) = post_2026(
        &server.url,
        "tools/call",
        Some("list_allowed_directories"),
        &[],
        warm,
    )
    .await;
    assert_eq!(status, 200);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let (before, _) = rss(pid);
    let (status, text) = post_2026(&server.url, "tools/call", Some("write_file"), &[], body).await;
    let (_, peak) = rss(pid);
    ((status, message_of(&text)), peak.saturating_sub(before))
}

fn within_ten_times(what: &str, rise: u64, len: usize) {
    eprintln!("{what}: peak rose {} MiB for {} MiB", rise >> 20, len >> 20);
    assert!(
        rise <= 10 * len as u64,
        "{what}: the peak rose {rise} bytes for a message of {len}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_of_tiny_values_is_refused_within_ten_times_its_size() {
    let body = padded_call(41, "0", BODY - 1024);
    let len = body.len();
    let ((status, answer), rise) = post_to_fresh_server(body).await;
    assert_eq!(status, 413, "{answer}");
    assert_eq!(answer["id"], 41, "{answer}");
    assert_eq!(answer["error"]["code"], -32600, "{answer}");
    let message = answer["error"]["message"].as_str().expect("message");
    assert!(message.contains("JSON values in"), "{message}");
    within_ten_times("refused tiny values", rise, len);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_costliest_bodies_admitted_stay_within_ten_times_their_size() {
    // As dense as the budget admits, 48 bytes of text a value: strings
    // (one a value), objects (a map weighs 12 values, an entry 2 more with
    // its comma), nested arrays (2 each).
    let string = format!("\"{}\"", "s".repeat(46));
    let object = format!("{{\"{}\":0}}", "k".repeat(14 * 50 - 7));
    let nested = format!("[[[\"{}\"]]]", "n".repeat(7 * 50 - 9));
    for (i, unit) in [string, object, nested].iter().enumerate() {
        let id = 50 + i as u64;
        let body = padded_call(id, unit, BODY - 1024);
        let len = body.len();
        let ((status, answer), rise) = post_to_fresh_server(body).await;
        assert_eq!(status, 200, "{answer}");
        assert_eq!(answer["id"], id, "{answer}");
        within_ten_times(&format!("admitted {}…", &unit[..8]), rise, len);
    }
    let body = padded_call(59, "[1,2]", BODY - 1024);
    let ((status, answer), _) = post_to_fresh_server(body).await;
    assert_eq!(status, 413, "denser values are refused: {answer}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_file_written_stays_within_ten_times_its_size() {
    let content = "all work and no play makes jack a dull boy\n".repeat(9_900_000 / 43);
    let body = request_2026(
        44,
        "tools/call",
        json!({"name": "write_file", "arguments": {"path": "big.txt", "content": content}}),
    );
    let len = body.len();
    let ((status, answer), rise) = post_to_fresh_server(body).await;
    assert_eq!(status, 200, "{answer}");
    assert!(answer["result"]["isError"] != true, "{answer}");
    within_ten_times("a large write", rise, len);
}

/// The example server on stdio with its root at `root`, initialized.
async fn stdio_server(root: &str) -> StdioChild {
    let mut server = StdioChild::spawn(BIN, &["--root", root]);
    assert_eq!(server.initialize("raw").await["id"], 0);
    server
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_lines_too_costly_or_too_long_are_answered_with_an_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().display().to_string();
    let mut server = stdio_server(&root).await;
    let pid = server.pid();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let (before, _) = rss(pid);
    // 14 MB of tiny values: once 1.37 GB.
    let costly = padded_call(7, "0", 14_000_000);
    server.send_line(&costly).await;
    let answer = server.next().await;
    assert_eq!(answer["id"], 7, "{answer}");
    assert_eq!(answer["error"]["code"], -32600, "{answer}");
    let (_, peak) = rss(pid);
    within_ten_times(
        "a costly stdio line",
        peak.saturating_sub(before),
        costly.len(),
    );
    // Over the line limit: once no answer at all.
    let long = padded_call(
        8,
        "\"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz\"",
        17 * 1024 * 1024,
    );
    server.send_line(&long).await;
    let answer = server.next().await;
    assert_eq!(answer["id"], 8, "{answer}");
    let message = answer["error"]["message"].as_str().expect("message");
    assert!(message.contains("a line may be"), "{message}");
    // And the session goes on.
    server
        .send_line(r#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#)
        .await;
    let answer = server.next().await;
    assert_eq!(answer["id"], 9, "{answer}");
    assert!(answer.get("result").is_some(), "{answer}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_stdio_write_stays_within_ten_times_its_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().display().to_string();
    let mut server = stdio_server(&root).await;
    let pid = server.pid();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let (before, _) = rss(pid);
    let content = "all work and no play makes jack a dull boy\n".repeat(9_900_000 / 43);
    let line = json!({"jsonrpc": "2.0", "id": 11, "method": "tools/call",
        "params": {"name": "write_file", "arguments": {"path": "big.txt", "content": content}}})
    .to_string();
    server.send_line(&line).await;
    let answer = server.next().await;
    assert_eq!(answer["id"], 11, "{answer}");
    assert!(answer["result"]["isError"] != true, "{answer}");
    let (_, peak) = rss(pid);
    within_ten_times(
        "a large stdio write",
        peak.saturating_sub(before),
        line.len(),
    );
}
