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
use toolmetadata_tests::raw::{StdioChild, write_line};

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

/// Writes `message` and a newline.
async fn send(stdin: &mut tokio::process::ChildStdin, message: String) {
    write_line(stdin, &message).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_messages_get_answers_and_the_server_goes_on() {
    let server = StdioChild::spawn(BIN, &[]);
    let pid = server.pid();
    let StdioChild {
        child: _child,
        mut stdin,
        mut lines,
    } = server;
    send(&mut stdin, json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "fuzz", "version": "0"}}})
    .to_string())
    .await;
    let first: Value =
        serde_json::from_str(&lines.next_line().await.expect("read").expect("a line"))
            .expect("JSON");
    assert_eq!(first["id"], 1);
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
    )
    .await;

    // Written while the answers are read, as a client does: the server reads
    // no further ahead of its answers than its bound on requests in flight.
    let expected = (0..1000).filter(|&i| malformed(i).1).count();
    let writing = tokio::spawn(async move {
        let mut rss = Vec::new();
        for i in 0..1000 {
            send(&mut stdin, malformed(i).0).await;
            if i % 250 == 249 {
                rss.extend(rss_kib(pid));
            }
        }
        // A valid call after all of that.
        send(&mut stdin, json!({"jsonrpc": "2.0", "id": 9999, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "alive"}}}).to_string()).await;
        (rss, stdin)
    });

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
    let (rss, _stdin) = writing.await.expect("the writer");
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

/// A stdout pipe is made to hold 1 MiB (the most a process without
/// privileges may ask for), so that a `tools/list` answer larger than the
/// default 64 KiB does not hold up the next; where the system allows less,
/// the pipe is left as it was.
#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stdout_pipe_is_enlarged_to_hold_large_answers() {
    use rustix::pipe::fcntl_getpipe_size;

    let StdioChild {
        child: _child,
        mut stdin,
        mut lines,
    } = StdioChild::spawn(BIN, &[]);
    let before = fcntl_getpipe_size(lines.get_ref().get_ref()).expect("pipe size");
    send(&mut stdin, json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "sizes", "version": "0"}}})
    .to_string())
    .await;
    tokio::time::timeout(Duration::from_secs(30), lines.next_line())
        .await
        .expect("an answer")
        .expect("read")
        .expect("initialized");
    let after = fcntl_getpipe_size(lines.get_ref().get_ref()).expect("pipe size");
    let allowed: usize = std::fs::read_to_string("/proc/sys/fs/pipe-max-size")
        .expect("pipe-max-size")
        .trim()
        .parse()
        .expect("a number");
    if allowed >= 1 << 20 {
        assert_eq!((before, after), (64 << 10, 1 << 20));
    } else {
        assert_eq!(after, before, "the system allows {allowed} bytes");
    }
}

/// A client that writes requests and does not read the answers: past the
/// bound of requests in flight, requests are refused at once, and once
/// those refusals fill the pipe too the server stops reading, so the
/// client's writes wait rather than the server's memory grow; when the
/// client reads, every request is answered: with its result, or with the
/// refusal that names the bound.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_does_not_read_is_not_read_ahead_of() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    let StdioChild {
        child: _child,
        mut stdin,
        mut lines,
    } = StdioChild::spawn(BIN, &[]);
    send(&mut stdin, json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "greedy", "version": "0"}}})
    .to_string())
    .await;
    lines.next_line().await.expect("read").expect("initialized");
    send(
        &mut stdin,
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
    )
    .await;

    const CALLS: usize = 20_000;
    let requests: Vec<String> = (1..=CALLS)
        .map(|id| {
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                   "params": {"name": "echo", "arguments": {"text": "x".repeat(64)}}})
            .to_string()
        })
        .collect();
    let total: usize = requests.iter().map(|r| r.len() + 1).sum();
    let written = Arc::new(AtomicUsize::new(0));
    let writer = {
        let written = written.clone();
        tokio::spawn(async move {
            for request in requests {
                let n = request.len() + 1;
                send(&mut stdin, request).await;
                written.fetch_add(n, Ordering::Relaxed);
            }
            stdin
        })
    };

    // Until the writes stop moving (or all are written).
    let mut last = usize::MAX;
    for _ in 0..300 {
        tokio::time::sleep(Duration::from_millis(200)).await;
        let now = written.load(Ordering::Relaxed);
        if now == last || now == total {
            break;
        }
        last = now;
    }
    let stuck_at = written.load(Ordering::Relaxed);
    assert!(
        stuck_at < total / 2,
        "the server read {stuck_at} of {total} bytes of requests whose answers nobody read"
    );

    // Reading now, every call is answered.
    let (mut answered, mut refused) = (0, 0);
    while answered < CALLS {
        let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
            .await
            .expect("the server goes on once read")
            .expect("read")
            .expect("the server is still running");
        let reply: Value = serde_json::from_str(&line).expect("JSON");
        let bound = reply["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("128 requests"));
        assert!(reply.get("result").is_some() || bound, "{reply}");
        refused += usize::from(bound);
        answered += 1;
    }
    assert!(refused < CALLS, "some calls ran");
    let _stdin = writer.await.expect("the writer");
}
