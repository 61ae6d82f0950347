//! The HTTP resources of issue 15 (item 5), on raw connections: duplicated
//! `Host`/`Origin` refused, invalid JSON answered with a JSON-RPC parse error,
//! idle, half-sent and trickled requests closed after the timeout, the session cap
//! closing the least recently used session, and a 10 MB write accepted.

use std::time::{Duration, Instant};

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use toolmetadata_tests::mcp::*;

const BIN: &str = env!("CARGO_BIN_EXE_example-server");

fn address(url: &str) -> String {
    url.trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_owned()
}

/// Sends `head` and `body` on a new connection and reads until the server
/// closes it (or 10 s pass): the raw response.
async fn exchange(addr: &str, head: &str, body: &[u8]) -> String {
    let mut stream = TcpStream::connect(addr).await.expect("connect");
    stream.write_all(head.as_bytes()).await.expect("write");
    stream.write_all(body).await.expect("write");
    let mut out = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut out)).await;
    String::from_utf8_lossy(&out).into_owned()
}

fn post(addr: &str, extra: &str, body: &str) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n{extra}\r\n{body}",
        body.len()
    )
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;
const LIST: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;

fn status(response: &str) -> &str {
    response.split(' ').nth(1).unwrap_or("")
}

fn session_id(response: &str) -> String {
    response
        .lines()
        .find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.eq_ignore_ascii_case("mcp-session-id")
                .then(|| value.trim().to_owned())
        })
        .unwrap_or_else(|| panic!("no session id in {response}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn duplicated_headers_and_invalid_json_are_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().display().to_string();
    let server = http_server(BIN, &["--root", &root]).await;
    let addr = address(&server.url);
    let r = exchange(
        &addr,
        &post(&addr, "Host: evil.example\r\n", INITIALIZE),
        b"",
    )
    .await;
    assert_eq!(status(&r), "400", "{r}");
    let r = exchange(
        &addr,
        &post(
            &addr,
            "Origin: http://localhost\r\nOrigin: http://evil.example\r\n",
            INITIALIZE,
        ),
        b"",
    )
    .await;
    assert_eq!(status(&r), "400", "{r}");
    assert!(r.contains("more than once"), "{r}");
    let r = exchange(&addr, &post(&addr, "", "{\"jsonrpc\": \"2.0\", "), b"").await;
    assert_eq!(status(&r), "400", "{r}");
    assert!(r.contains("-32700"), "{r}");
    // The same server still serves a proper request.
    let r = exchange(&addr, &post(&addr, "", INITIALIZE), b"").await;
    assert_eq!(status(&r), "200", "{r}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_and_half_sent_requests_are_closed_after_the_timeout() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().display().to_string();
    let server = http_server(BIN, &["--root", &root, "--request-timeout-secs", "1"]).await;
    let addr = address(&server.url);
    // Headers that announce 100 bytes of body, of which 11 come.
    let head = post(&addr, "", &" ".repeat(100));
    let head = head.trim_end_matches(' ');
    let started = Instant::now();
    let (idle, half_head, half_body) = tokio::join!(
        exchange(&addr, "", b""),
        exchange(&addr, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n", b""),
        exchange(&addr, head, b"{\"jsonrpc\""),
    );
    let elapsed = started.elapsed();
    assert!(elapsed < Duration::from_secs(6), "took {elapsed:?}");
    assert_eq!(idle, "", "an idle connection is closed without a response");
    assert!(
        half_head.is_empty() || status(&half_head) == "408",
        "{half_head}"
    );
    assert_eq!(status(&half_body), "408", "{half_body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_session_cap_closes_the_least_recently_used_session() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().display().to_string();
    let server = http_server(BIN, &["--root", &root, "--max-sessions", "3"]).await;
    let addr = address(&server.url);
    let mut ids = Vec::new();
    for _ in 0..5 {
        let r = exchange(&addr, &post(&addr, "", INITIALIZE), b"").await;
        assert_eq!(status(&r), "200", "{r}");
        ids.push(session_id(&r));
    }
    let list = |id: &str| {
        post(
            &addr,
            &format!("Mcp-Session-Id: {id}\r\nMcp-Protocol-Version: 2025-06-18\r\n"),
            LIST,
        )
    };
    for (i, id) in ids.iter().enumerate() {
        let r = exchange(&addr, &list(id), b"").await;
        let want = if i < 2 { "404" } else { "200" };
        assert_eq!(status(&r), want, "session {i}: {r}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ten_megabyte_write_fits_the_body_limit() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().display().to_string();
    let server = http_server(BIN, &["--root", &root]).await;
    let (client, _) = http_client(&server.url).await;
    let content = "0123456789\n".repeat(909_090);
    assert!(content.len() > 9_999_000 && content.len() <= 10_000_000);
    let r = call(
        &client,
        "write_file",
        json!({"path": "big.txt", "content": content}),
    )
    .await;
    assert!(!is_error(&r), "{}", text(&r));
    assert_eq!(
        std::fs::metadata(dir.path().join("big.txt"))
            .expect("written")
            .len(),
        content.len() as u64
    );
    client.cancel().await.expect("close");
}

/// A slow peer that keeps sending, a byte at a time, never finishing its
/// headers or its body: the time limits run from the start of each, not
/// from the last byte (the timer is coarse, its grain an eighth of the
/// limit), so trickling holds a connection no longer than silence does.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trickled_head_or_body_is_cut_off_at_the_timeout() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().display().to_string();
    let server = http_server(BIN, &["--root", &root, "--request-timeout-secs", "1"]).await;
    let addr = address(&server.url);
    let full = post(&addr, "", INITIALIZE);
    let head_end = full.find("\r\n\r\n").expect("head") + 4;
    // Everything but the last byte of the head; everything but the last
    // byte of the body (after the whole head).
    let (head, body) = (&full[..head_end - 1], &full[..full.len() - 1]);
    let trickle = |text: &str, from: usize| {
        let (addr, text) = (addr.clone(), text.to_owned());
        async move {
            let mut stream = TcpStream::connect(&addr).await.expect("connect");
            stream
                .write_all(&text.as_bytes()[..from])
                .await
                .expect("write");
            let started = Instant::now();
            for byte in text.as_bytes()[from..].iter().cycle() {
                // Past the limit, the server has cut the connection: a write
                // fails (or is refused after the close).
                tokio::time::sleep(Duration::from_millis(100)).await;
                if stream.write_all(&[*byte]).await.is_err()
                    || started.elapsed() > Duration::from_secs(8)
                {
                    break;
                }
                let mut probe = [0u8; 1024];
                // Closed (0 bytes) or answered (408): either way, cut off.
                let read = tokio::time::timeout(Duration::from_millis(1), stream.read(&mut probe));
                if let Ok(Ok(_)) = read.await {
                    break;
                }
            }
            started.elapsed()
        }
    };
    // The head trickled from its first line on; the body from its start.
    let (head_cut, body_cut) = tokio::join!(
        trickle(head, "POST /mcp HTTP/1.1\r\n".len()),
        trickle(body, head_end)
    );
    for (what, took) in [("head", head_cut), ("body", body_cut)] {
        // Cut by the time limit, not refused at once.
        assert!(
            took >= Duration::from_millis(900),
            "a trickled {what} was cut after {took:?}"
        );
        assert!(
            took < Duration::from_secs(4),
            "a trickled {what} held on for {took:?}"
        );
    }
    // The server still serves.
    let r = exchange(&addr, &full, b"").await;
    assert_eq!(status(&r), "200", "{r}");
}
