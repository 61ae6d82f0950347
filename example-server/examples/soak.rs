//! Soak run of example-server over Streamable HTTP (issue 15), not run in CI:
//!
//! 1. 100 concurrent rmcp clients call a mix of tools for a minute;
//! 2. 10,000 sessions are opened (a raw `initialize`) and abandoned;
//! 3. slow clients (idle, half-sent headers, half-sent bodies) hold
//!    connections while a normal client is served;
//! 4. the server is left alone past its session idle timeout.
//!
//! It counts errors and samples the server's resident memory throughout, and
//! prints a Markdown table for BENCHMARKS.md.
//!
//! ```sh
//! cargo build --release -p example-server --example soak
//! target/release/examples/soak [--secs 60] [--clients 100] [--sessions 10000]
//! ```
//!
//! The server binary is the `example-server` next to `examples/`, or `--bin PATH`.

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use toolmetadata_tests::mcp::{Client, http_client, is_error};

/// Session idle timeout given to the server, so phase 4 ends in reasonable time.
const IDLE_SECS: u64 = 20;
/// Header and body timeout given to the server.
const REQUEST_TIMEOUT_SECS: u64 = 5;

struct Options {
    bin: PathBuf,
    secs: u64,
    clients: usize,
    sessions: usize,
}

fn options() -> Result<Options, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut o = Options {
        bin: exe
            .parent()
            .and_then(|p| p.parent())
            .map(|p| p.join("example-server"))
            .ok_or("no directory for the server binary")?,
        secs: 60,
        clients: 100,
        sessions: 10_000,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or(format!("{flag} needs a value"))?;
        let number = || value.parse::<u64>().map_err(|e| format!("{flag}: {e}"));
        match flag.as_str() {
            "--bin" => o.bin = PathBuf::from(&value),
            "--secs" => o.secs = number()?,
            "--clients" => o.clients = usize::try_from(number()?).map_err(|e| e.to_string())?,
            "--sessions" => o.sessions = usize::try_from(number()?).map_err(|e| e.to_string())?,
            _ => return Err(format!("unknown option {flag}")),
        }
    }
    Ok(o)
}

/// Resident memory of `pid` now and at its peak, in MiB.
fn rss(pid: u32) -> (f64, f64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
            .unwrap_or(0.0)
            / 1024.0
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// Samples the RSS until stopped; returns the highest seen.
fn sampler(pid: u32, stop: Arc<AtomicBool>) -> tokio::task::JoinHandle<f64> {
    tokio::spawn(async move {
        let mut peak: f64 = 0.0;
        while !stop.load(Ordering::Relaxed) {
            peak = peak.max(rss(pid).0);
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        peak
    })
}

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    for i in 0..50 {
        let path = dir.path().join(format!("src/m{}/file{i}.rs", i % 5));
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        let body: String = (0..200)
            .map(|l| format!("fn f{l}() -> u32 {{ {l} }} // needle {i}\n"))
            .collect();
        std::fs::write(path, body).expect("write");
    }
    dir
}

/// One client's mixed calls until `deadline`; counts calls and errors.
async fn mixed(client: Client, n: usize, deadline: Instant, calls: &AtomicU64, errors: &AtomicU64) {
    let own = format!("own/{n}.txt");
    let mut i = 0_usize;
    while Instant::now() < deadline {
        let (tool, args) = match i % 8 {
            0 => (
                "read_file",
                json!({"path": format!("src/m{}/file{}.rs", i % 5, (i / 5) % 10 * 5 + i % 5), "head": 20}),
            ),
            1 => (
                "search_files",
                json!({"pattern": "needle 4", "max_results": 50}),
            ),
            2 => ("list_directory", json!({"path": "src", "depth": 2})),
            3 => ("find_files", json!({"glob": "*.rs"})),
            4 => (
                "write_file",
                json!({"path": own, "content": format!("round {i}\n"), "create_dirs": true}),
            ),
            5 => (
                "replace_in_file",
                json!({"path": own, "old_text": "round", "new_text": "ROUND"}),
            ),
            6 => ("file_info", json!({"path": own})),
            _ => ("run_command", json!({"program": "echo", "args": ["hi"]})),
        };
        let Value::Object(map) = args else {
            unreachable!("the arguments above are objects")
        };
        let result = client
            .call_tool(CallToolRequestParams::new(tool).with_arguments(map))
            .await;
        calls.fetch_add(1, Ordering::Relaxed);
        match result {
            Ok(r) if !is_error(&r) => {}
            Ok(r) => {
                errors.fetch_add(1, Ordering::Relaxed);
                eprintln!("{tool}: {:?}", r.content);
            }
            Err(e) => {
                errors.fetch_add(1, Ordering::Relaxed);
                eprintln!("{tool}: {e}");
            }
        }
        i += 1;
    }
    let _ = client.cancel().await;
}

fn initialize_request(addr: &str) -> String {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"soak","version":"1"}}}"#;
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

/// Opens a session and walks away: the status of the answer.
async fn abandoned_session(addr: &str) -> Option<u16> {
    let mut stream = TcpStream::connect(addr).await.ok()?;
    stream
        .write_all(initialize_request(addr).as_bytes())
        .await
        .ok()?;
    let mut head = [0u8; 12];
    tokio::time::timeout(Duration::from_secs(10), stream.read_exact(&mut head))
        .await
        .ok()?
        .ok()?;
    std::str::from_utf8(&head[9..12]).ok()?.parse().ok()
}

/// A slow client: sends `partial` and waits for the server to close; how long
/// that took, or `None` if it was still open after 30 s.
async fn slow_client(addr: String, partial: String) -> Option<Duration> {
    let started = Instant::now();
    let mut stream = TcpStream::connect(&addr).await.ok()?;
    stream.write_all(partial.as_bytes()).await.ok()?;
    let mut sink = Vec::new();
    tokio::time::timeout(Duration::from_secs(30), stream.read_to_end(&mut sink))
        .await
        .ok()?
        .ok()?;
    Some(started.elapsed())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let o = options()?;
    let ws = workspace();
    let mut child = tokio::process::Command::new(&o.bin)
        .args(["--http", "127.0.0.1:0", "--root"])
        .arg(ws.path())
        .args(["--allow-command", "echo"])
        .args(["--session-idle-secs", &IDLE_SECS.to_string()])
        .args(["--request-timeout-secs", &REQUEST_TIMEOUT_SECS.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("{}: {e}", o.bin.display()))?;
    let pid = child.id().ok_or("no pid")?;
    let mut lines = BufReader::new(child.stderr.take().ok_or("no stderr")?).lines();
    let url = loop {
        let line = lines.next_line().await?.ok_or("the server exited")?;
        if let Some(at) = line.find("listening on ") {
            break line[at + "listening on ".len()..].trim().to_owned();
        }
    };
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    let addr = url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_owned();
    let mut rows: Vec<(String, String)> = Vec::new();

    // Baseline: one session's worth of work.
    let (warm, _) = http_client(&url).await;
    let calls = AtomicU64::new(0);
    let errors = AtomicU64::new(0);
    mixed(
        warm,
        0,
        Instant::now() + Duration::from_secs(2),
        &calls,
        &errors,
    )
    .await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let baseline = rss(pid).0;
    rows.push((
        "baseline RSS after a warm-up session".into(),
        format!("{baseline:.1} MiB"),
    ));

    // 1. Concurrent clients.
    eprintln!("phase 1: {} clients for {} s", o.clients, o.secs);
    let stop = Arc::new(AtomicBool::new(false));
    let peak = sampler(pid, stop.clone());
    let calls = Arc::new(AtomicU64::new(0));
    let errors = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let deadline = started + Duration::from_secs(o.secs);
    let mut tasks = Vec::new();
    for n in 0..o.clients {
        let (url, calls, errors) = (url.clone(), calls.clone(), errors.clone());
        tasks.push(tokio::spawn(async move {
            match tokio::time::timeout(Duration::from_secs(30), http_client(&url)).await {
                Ok((client, _)) => mixed(client, n, deadline, &calls, &errors).await,
                Err(_) => {
                    errors.fetch_add(1, Ordering::Relaxed);
                }
            }
        }));
    }
    for t in tasks {
        if t.await.is_err() {
            errors.fetch_add(1, Ordering::Relaxed);
        }
    }
    let elapsed = started.elapsed().as_secs_f64();
    stop.store(true, Ordering::Relaxed);
    let peak1 = peak.await?;
    let (c, e) = (
        calls.load(Ordering::Relaxed),
        errors.load(Ordering::Relaxed),
    );
    rows.push((
        format!("{} clients × {} s, mixed tools", o.clients, o.secs),
        format!(
            "{c} calls ({:.0}/s), {e} errors, peak RSS {peak1:.1} MiB",
            c as f64 / elapsed
        ),
    ));

    // 2. Abandoned sessions.
    eprintln!("phase 2: {} abandoned sessions", o.sessions);
    let stop = Arc::new(AtomicBool::new(false));
    let peak = sampler(pid, stop.clone());
    let started = Instant::now();
    let permits = Arc::new(tokio::sync::Semaphore::new(50));
    let mut tasks = Vec::new();
    for _ in 0..o.sessions {
        let permit = permits.clone().acquire_owned().await?;
        let addr = addr.clone();
        tasks.push(tokio::spawn(async move {
            let status = abandoned_session(&addr).await;
            drop(permit);
            status
        }));
    }
    let mut failed = 0;
    for t in tasks {
        if t.await.ok().flatten() != Some(200) {
            failed += 1;
        }
    }
    stop.store(true, Ordering::Relaxed);
    let peak2 = peak.await?;
    rows.push((
        format!("{} sessions opened and abandoned", o.sessions),
        format!(
            "{:.1} s, {failed} errors, peak RSS {peak2:.1} MiB, RSS after {:.1} MiB",
            started.elapsed().as_secs_f64(),
            rss(pid).0
        ),
    ));

    // 3. Slow clients while a normal one is served.
    eprintln!("phase 3: slow clients");
    let half_body = initialize_request(&addr);
    let half_body = half_body[..half_body.len() - 40].to_owned();
    let mut slow = Vec::new();
    for i in 0..300 {
        let partial = match i % 3 {
            0 => String::new(),
            1 => format!("POST /mcp HTTP/1.1\r\nHost: {addr}\r\n"),
            _ => half_body.clone(),
        };
        slow.push(tokio::spawn(slow_client(addr.clone(), partial)));
    }
    let (client, _) = http_client(&url).await;
    let calls = AtomicU64::new(0);
    let errors = AtomicU64::new(0);
    let served_from = Instant::now();
    mixed(
        client,
        999,
        served_from + Duration::from_secs(3),
        &calls,
        &errors,
    )
    .await;
    let mut closed = Vec::new();
    for s in slow {
        closed.push(s.await.ok().flatten());
    }
    let still_open = closed.iter().filter(|c| c.is_none()).count();
    let longest = closed.iter().flatten().max().copied().unwrap_or_default();
    rows.push((
        "300 slow clients (idle, half headers, half body)".into(),
        format!(
            "{} calls served meanwhile with {} errors; all closed by the server: {} still open, the last after {:.1} s (timeout {REQUEST_TIMEOUT_SECS} s)",
            calls.load(Ordering::Relaxed),
            errors.load(Ordering::Relaxed),
            still_open,
            longest.as_secs_f64()
        ),
    ));

    // 4. Quiet: idle sessions closed, memory back.
    eprintln!("phase 4: {} s idle", IDLE_SECS + 10);
    tokio::time::sleep(Duration::from_secs(IDLE_SECS + 10)).await;
    let (after, hwm) = rss(pid);
    rows.push((
        format!(
            "after {} s idle (session idle timeout {IDLE_SECS} s)",
            IDLE_SECS + 10
        ),
        format!("RSS {after:.1} MiB (baseline {baseline:.1}, peak {hwm:.1})"),
    ));

    println!("| phase | result |\n|---|---|");
    for (phase, result) in rows {
        println!("| {phase} | {result} |");
    }
    child.kill().await?;
    Ok(())
}
