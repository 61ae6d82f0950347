//! The HTTP transport's guards: foreign origins and hosts, bearer tokens, body
//! size, and the refusal to listen beyond loopback unless told to.

use toolmetadata_tests::mcp::*;

const BIN: &str = env!("CARGO_BIN_EXE_toolmetadata-test-server");
use serde_json::json;

fn init_body() -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}})
    .to_string()
}

async fn post(url: &str, headers: &[(&str, &str)], body: String) -> reqwest::Response {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    for (k, v) in headers {
        request = request.header(*k, *v);
    }
    request.body(body).send().await.expect("request")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn origin_and_host_are_checked() {
    let server = http_server(BIN, &[]).await;
    let evil = post(
        &server.url,
        &[("origin", "http://evil.example")],
        init_body(),
    )
    .await;
    assert_eq!(evil.status(), 403);
    assert!(
        evil.text()
            .await
            .expect("body")
            .contains("http://evil.example")
    );
    let local = post(
        &server.url,
        &[("origin", "http://localhost:5173")],
        init_body(),
    )
    .await;
    assert_eq!(local.status(), 200);
    let rebinding = post(&server.url, &[("host", "attacker.example")], init_body()).await;
    assert_eq!(rebinding.status(), 403);
    let no_origin = post(&server.url, &[], init_body()).await;
    assert_eq!(no_origin.status(), 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bearer_token_is_required_when_set() {
    let server = http_server(BIN, &["--token", "s3cret"]).await;
    // A DNS-rebinding page is refused before the token is asked for: rmcp's
    // own Host check runs inside its service, after the token check, and
    // would have answered with a challenge (see `server::compat`).
    for header in [
        ("host", "attacker.example"),
        ("origin", "http://evil.example"),
    ] {
        let rebinding = post(&server.url, &[header], init_body()).await;
        assert_eq!(rebinding.status(), 403, "{header:?}");
        assert!(rebinding.headers().get("www-authenticate").is_none());
    }
    let missing = post(&server.url, &[], init_body()).await;
    assert_eq!(missing.status(), 401);
    assert_eq!(
        missing
            .headers()
            .get("www-authenticate")
            .and_then(|v| v.to_str().ok()),
        Some("Bearer")
    );
    let wrong = post(
        &server.url,
        &[("authorization", "Bearer nope")],
        init_body(),
    )
    .await;
    assert_eq!(wrong.status(), 401);
    let right = post(
        &server.url,
        &[("authorization", "Bearer s3cret")],
        init_body(),
    )
    .await;
    assert_eq!(right.status(), 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bodies_over_the_limit_get_413() {
    let server = http_server(BIN, &["--max-body", "1024"]).await;
    let big =
        json!({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"pad": "x".repeat(2000)}})
            .to_string();
    let response = post(&server.url, &[], big).await;
    assert_eq!(response.status(), 413);
    let ok = post(&server.url, &[], init_body()).await;
    assert_eq!(ok.status(), 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn non_loopback_address_needs_the_explicit_option() {
    let out = tokio::process::Command::new(BIN)
        .args(["--http", "0.0.0.0:0"])
        .output()
        .await
        .expect("run");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("refusing to listen on 0.0.0.0:0: it is not a loopback address"),
        "{stderr}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_shuts_the_http_server_down_gracefully() {
    let mut server = http_server(BIN, &[]).await;
    let pid = server.child.id().expect("pid").to_string();
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .expect("kill");
    assert!(killed.success());
    let status = tokio::time::timeout(std::time::Duration::from_secs(10), server.child.wait())
        .await
        .expect("exits after SIGTERM")
        .expect("wait");
    assert!(status.success(), "{status:?}");
}

/// A session closed with DELETE is answered 204 (the Python SDK logs a
/// failure for anything but 200 and 204), and is gone after.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deleted_session_is_answered_204_and_gone() {
    let server = http_server(BIN, &[]).await;
    let opened = post(&server.url, &[], init_body()).await;
    assert_eq!(opened.status(), 200);
    let session = opened.headers()["mcp-session-id"]
        .to_str()
        .expect("session id")
        .to_owned();
    let delete = || {
        reqwest::Client::new()
            .delete(&server.url)
            .header("mcp-session-id", &session)
            .header("mcp-protocol-version", "2025-11-25")
            .send()
    };
    let closed = delete().await.expect("DELETE");
    assert_eq!(closed.status(), 204);
    assert!(closed.bytes().await.expect("body").is_empty());
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}).to_string();
    let after = post(
        &server.url,
        &[
            ("mcp-session-id", &session),
            ("mcp-protocol-version", "2025-11-25"),
        ],
        ping,
    )
    .await;
    assert_eq!(after.status(), 404);
}

/// Issue 47: the log line of an HTTP server bound to port 0 said
/// `addr=127.0.0.1:0`; it names the port bound.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_log_names_the_address_bound() {
    use tokio::io::AsyncBufReadExt;
    let mut child = tokio::process::Command::new(BIN)
        .args(["--http", "127.0.0.1:0"])
        .env_remove("RUST_LOG")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn");
    let mut lines = tokio::io::BufReader::new(child.stderr.take().expect("stderr")).lines();
    let mut serving = None;
    let url = loop {
        let line = next_log_line(&mut lines, "the server's address").await;
        if line.contains("serving MCP over Streamable HTTP") {
            serving = Some(line);
        } else if let Some(at) = line.find("listening on ") {
            break line[at + "listening on ".len()..].trim().to_owned();
        }
    };
    let addr = url.trim_start_matches("http://").trim_end_matches("/mcp");
    let serving = serving.expect("the serving line comes first");
    assert!(
        serving.contains(&format!("addr={addr}")),
        "{serving} ({addr})"
    );
}

/// Issue 47: with the default filter, each request has one access line,
/// naming the tool, the outcome and the session by its digest (never its
/// id, which would let a reader of the log take the session over).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_request_has_an_access_line_naming_its_session_by_digest() {
    let server = http_server(BIN, &[]).await;
    let session = open_session_2025(&server.url, &[]).await;
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": "hi"}}});
    let (status, body) = send_2025(&server.url, "POST", Some(&session), &[], Some(call)).await;
    assert_eq!(status, 200, "{body}");
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
    let line = loop {
        let found = server
            .logs
            .lock()
            .expect("lock")
            .iter()
            .find(|l| l.contains("toolmetadata::access: tools/call echo"))
            .cloned();
        if let Some(line) = found {
            break line;
        }
        assert!(tokio::time::Instant::now() < deadline, "no access line");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    };
    assert!(line.contains("outcome=ok"), "{line}");
    let digest = line
        .split("session=")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no session in {line}"));
    assert_eq!(digest.len(), 32, "{line}");
    assert!(digest.chars().all(|c| c.is_ascii_hexdigit()), "{line}");
    assert!(!line.contains(&session), "the session id itself: {line}");
}

/// Issue 47, attacked: a client names a tool with a line break, an escape
/// sequence and 100 KB of padding, hoping to forge log lines or flood the
/// log. Its access line quotes and escapes the name, cut short, on one line.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hostile_tool_name_cannot_forge_or_flood_the_access_log() {
    let server = http_server(BIN, &[]).await;
    let session = open_session_2025(&server.url, &[]).await;
    let name = format!(
        "x\n2026-12-05T00:00:00Z  INFO toolmetadata::access: forged\u{1b}[31m{}",
        "y".repeat(100_000)
    );
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": name, "arguments": {}}});
    let (status, _) = send_2025(&server.url, "POST", Some(&session), &[], Some(call)).await;
    assert_eq!(status, 200);
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
    let logs = loop {
        let logs = server.logs.lock().expect("lock").clone();
        if logs
            .iter()
            .any(|l| l.contains("toolmetadata::access: tools/call \"x"))
        {
            break logs;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no access line: {logs:#?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    };
    // Every mention of the name is escaped, on the line of the request.
    assert!(
        !logs.iter().any(|l| l.starts_with("2026-12-05T00:00:00Z")),
        "a forged line: {logs:#?}"
    );
    assert!(
        logs.iter()
            .filter(|l| l.contains("forged"))
            .all(|l| l.contains(r"x\n2026-12-05T00:00:00Z")),
        "an unescaped name: {logs:#?}"
    );
    assert!(
        !logs.iter().any(|l| l.contains('\u{1b}')),
        "an escape code: {logs:#?}"
    );
    let line = logs
        .iter()
        .find(|l| l.contains("tools/call \"x"))
        .expect("the line");
    assert!(
        line.len() < 1_000,
        "the name is cut short: {} bytes",
        line.len()
    );
    assert!(line.contains(r"\n2026"), "{line}");
}
