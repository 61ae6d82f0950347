//! 1,000 malformed messages on stdio: each gets the right answer (an error
//! response, or nothing for a notification), the server's memory stays bounded,
//! and a valid call still works afterwards.
//!
//! Text that is not JSON at all (or nests deeper than the JSON parser allows)
//! gets no answer: there is no id to answer, and rmcp, like the other official
//! MCP SDKs, ignores it rather than risk an error storm with a peer that echoes
//! errors back (rust-sdk issue 938).

use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const BIN: &str = env!("CARGO_BIN_EXE_toolmetadata-test-server");

/// Resident memory of a process, in KiB (Linux).
fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// The malformed message number `i`, and whether it expects a response.
fn malformed(i: usize) -> (String, bool) {
    let id = 1000 + i;
    match i % 10 {
        0 => ("{not json".to_owned(), false),
        1 => (json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": 5}}).to_string(), true),
        2 => (
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "x".repeat(100_000), "arguments": {"text": "x".repeat(100_000)}}})
                .to_string(),
            true,
        ),
        3 => {
            let mut deep = json!("bottom");
            for _ in 0..200 {
                deep = json!([deep]);
            }
            (json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": deep}}}).to_string(), false)
        }
        4 => (json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "echo", "arguments": [1, 2]}}).to_string(), true),
        5 => (json!({"jsonrpc": "2.0", "id": id, "method": "no/such/method"}).to_string(), true),
        6 => (json!({"jsonrpc": "2.0", "method": "notifications/unknown"}).to_string(), false),
        7 => (json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "nope"}}).to_string(), true),
        8 => (json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "a", "times": "x".repeat(10_000)}}}).to_string(), true),
        _ => (json!({"jsonrpc": "2.0", "id": id, "method": "tools/call"}).to_string(), true),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_messages_get_answers_and_the_server_goes_on() {
    let mut child = tokio::process::Command::new(BIN)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn");
    let pid = child.id().expect("pid");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    let mut send = async |message: String| {
        stdin.write_all(message.as_bytes()).await.expect("write");
        stdin.write_all(b"\n").await.expect("write");
        stdin.flush().await.expect("flush");
    };
    send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "fuzz", "version": "0"}}})
    .to_string())
    .await;
    let first: Value =
        serde_json::from_str(&lines.next_line().await.expect("read").expect("a line"))
            .expect("JSON");
    assert_eq!(first["id"], 1);
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string()).await;

    let mut expected = 0;
    let mut rss = Vec::new();
    for i in 0..1000 {
        let (message, answered) = malformed(i);
        send(message).await;
        expected += usize::from(answered);
        if i % 250 == 249 {
            rss.extend(rss_kib(pid));
        }
    }
    // A valid call after all of that.
    send(json!({"jsonrpc": "2.0", "id": 9999, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "alive"}}}).to_string()).await;

    let mut answers = 0;
    let mut errors = 0;
    let mut final_answer = None;
    // Calls run concurrently, so answers come in any order: read until every
    // expected one and the final call's have arrived.
    while final_answer.is_none() || answers < expected {
        let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
            .await
            .expect("the server keeps answering")
            .expect("read")
            .expect("the server is still running");
        let reply: Value = serde_json::from_str(&line).expect("every line is JSON");
        if reply["id"] == 9999 {
            final_answer = Some(reply);
            continue;
        }
        answers += 1;
        let is_error_result = reply["result"]["isError"] == true;
        if reply.get("error").is_some() || is_error_result {
            errors += 1;
        }
    }
    let final_answer = final_answer.expect("answered");
    assert_eq!(final_answer["result"]["content"][0]["text"], "alive");
    assert_eq!(
        answers, expected,
        "one answer per request, none for notifications"
    );
    assert_eq!(errors, expected, "every malformed request is an error");
    if let (Some(first), Some(last)) = (rss.first(), rss.last()) {
        assert!(
            *last < first + 64 * 1024,
            "memory stays bounded: {rss:?} KiB"
        );
    }
}

/// Whether the file description of `fd` in process `pid` is non-blocking
/// (Linux: `/proc/PID/fdinfo/FD`, flags in octal).
#[cfg(target_os = "linux")]
fn nonblocking(pid: u32, fd: u32) -> bool {
    let info = std::fs::read_to_string(format!("/proc/{pid}/fdinfo/{fd}")).expect("fdinfo");
    let flags = info
        .lines()
        .find_map(|l| l.strip_prefix("flags:"))
        .and_then(|f| u32::from_str_radix(f.trim(), 8).ok())
        .expect("flags");
    flags & 0o4000 != 0
}

/// Serving makes stdin and stdout non-blocking when they are pipes or
/// sockets (the runtime reads and writes them itself); once the server
/// stops they are blocking again, for whatever runs next on them, here a
/// script of the shell that started it (which shares them, so its
/// `/proc` entries show the flag while the server runs).
#[cfg(target_os = "linux")]
fn server_then_script(stdin: Stdio, stdout: Stdio) -> tokio::process::Child {
    // On stderr: stdout is one of the descriptors looked at.
    let after = "python3 -c 'import fcntl, os, sys; \
        print(\"nonblocking:\", *(bool(fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_NONBLOCK) for fd in (0, 1)), \
        file=sys.stderr)'";
    tokio::process::Command::new("sh")
        .args(["-c", &format!("\"$0\"; {after}"), BIN])
        .stdin(stdin)
        .stdout(stdout)
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn")
}

/// Talks to the server through `input` and `output` until it has answered
/// `initialize`, checks the flags while it serves, ends its input, and
/// checks them again from the script run after it.
#[cfg(target_os = "linux")]
async fn serve_then_check(
    child: tokio::process::Child,
    mut input: impl tokio::io::AsyncWrite + Unpin,
    output: impl tokio::io::AsyncRead + Unpin,
) {
    let mut lines = BufReader::new(output).lines();
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "pipes", "version": "0"}}});
    input
        .write_all(format!("{initialize}\n").as_bytes())
        .await
        .expect("write");
    let answer = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
        .await
        .expect("an answer")
        .expect("read")
        .expect("a line");
    let answer: Value = serde_json::from_str(&answer).expect("JSON");
    assert!(answer["result"]["serverInfo"].is_object(), "{answer}");
    let shell = child.id().expect("running");
    assert!(
        nonblocking(shell, 0) && nonblocking(shell, 1),
        "the server reads and writes through the runtime"
    );
    // End of input: the server stops, and the script goes on.
    drop(input);
    let out = tokio::time::timeout(Duration::from_secs(30), child.wait_with_output())
        .await
        .expect("the script ends")
        .expect("its output");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.lines().any(|l| l == "nonblocking: False False"),
        "{stderr}"
    );
}

#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pipes_are_blocking_again_after_serving() {
    let mut child = server_then_script(Stdio::piped(), Stdio::piped());
    let input = child.stdin.take().expect("stdin");
    let output = child.stdout.take().expect("stdout");
    serve_then_check(child, input, output).await;
}

/// As a Node.js client starts a server: a socket for stdin, another for
/// stdout.
#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sockets_are_blocking_again_after_serving() {
    let (to_server, server_in) = std::os::unix::net::UnixStream::pair().expect("socketpair");
    let (from_server, server_out) = std::os::unix::net::UnixStream::pair().expect("socketpair");
    let child = server_then_script(
        Stdio::from(std::os::fd::OwnedFd::from(server_in)),
        Stdio::from(std::os::fd::OwnedFd::from(server_out)),
    );
    let tokio_side = |s: std::os::unix::net::UnixStream| {
        s.set_nonblocking(true).expect("nonblocking");
        tokio::net::UnixStream::from_std(s).expect("register")
    };
    serve_then_check(child, tokio_side(to_server), tokio_side(from_server)).await;
}
