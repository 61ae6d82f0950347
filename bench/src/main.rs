//! The benchmark suite, side by side with rmcp's `#[tool]` macros, in one run on
//! one machine; prints a Markdown table of medians and ratios (ours / rmcp).
//!
//! ```text
//! cargo run --release -p toolmetadata-bench            # everything
//! cargo run --release -p toolmetadata-bench -- --quick # fewer runs and calls, shorter phases
//! cargo run --release -p toolmetadata-bench -- --http  # only the HTTP rows (also --compile, --stdio, --peer, --cold, --criterion)
//! ```
//!
//! It generates both servers for N = 10, 50, 200 tools under
//! `target/bench-work/`, builds them with cargo, times compiles (against a
//! plain-handler crate too, the floor), drives both over stdio with rmcp's
//! client and over Streamable HTTP with a load generator on hyper (`http`),
//! runs example-server against the Node filesystem server (`peer`, needs
//! npm), and runs the criterion benchmarks of this crate (build.rs cost,
//! argument decoding), reading their medians.

mod cold;
mod http;
mod peer;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use toolmetadata_bench::{
    Paths, Transport, call_arguments, tool_name, write_ours_on, write_plain, write_rmcp_on,
};

struct Settings {
    compile_runs: usize,
    calls: usize,
    lists: usize,
    /// HTTP: each phase's warm-up and measured time.
    http_warmup: Duration,
    http_measure: Duration,
    /// HTTP: sessions opened to measure the RSS of one.
    http_sessions: usize,
    /// Peer: calls per operation.
    peer_calls: usize,
    /// The numbers of tools of the serving rows (10, 50, 200 unless
    /// `--tools=N,…` says otherwise, for a shorter run while developing).
    tools: Vec<usize>,
}

/// The parts of the suite to run; all of them without a flag.
struct Sections {
    compile: bool,
    stdio: bool,
    http: bool,
    peer: bool,
    criterion: bool,
    cold: bool,
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    if xs.is_empty() {
        f64::NAN
    } else {
        xs[xs.len() / 2]
    }
}

fn percentile(mut xs: Vec<f64>, p: f64) -> f64 {
    xs.sort_by(f64::total_cmp);
    if xs.is_empty() {
        return f64::NAN;
    }
    let i = ((xs.len() as f64 - 1.0) * p).round() as usize;
    xs[i.min(xs.len() - 1)]
}

fn workspace_target() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap_or(Path::new("."))
        .join("target")
}

fn cargo() -> Command {
    let mut c = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    c.env(
        "CARGO_TARGET_DIR",
        workspace_target().join("bench-work").join("target"),
    );
    c.env_remove("RUSTFLAGS");
    c
}

/// Runs cargo in `dir`; the elapsed wall time. Panics with cargo's output on failure.
fn timed_cargo(dir: &Path, args: &[&str]) -> Duration {
    let start = Instant::now();
    let out = cargo()
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::null())
        .output()
        .expect("cargo runs");
    let elapsed = start.elapsed();
    assert!(
        out.status.success(),
        "cargo {args:?} in {}:\n{}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    elapsed
}

struct Side {
    label: &'static str,
    dir: PathBuf,
    package: String,
}

impl Side {
    fn new(label: &'static str, name: String) -> Side {
        Side {
            label,
            dir: workspace_target().join("bench-work").join(&name),
            package: format!("bench-{name}"),
        }
    }

    fn release_binary(&self) -> PathBuf {
        workspace_target()
            .join("bench-work/target/release")
            .join(&self.package)
    }
}

/// Ours and rmcp's macros for `n` tools over `transport`.
fn sides(n: usize, transport: Transport) -> [Side; 2] {
    let t = match transport {
        Transport::Stdio => "",
        Transport::Http => "http-",
    };
    [
        Side::new("ours", format!("ours-{t}{n}")),
        Side::new("rmcp", format!("rmcp-{t}{n}")),
    ]
}

/// The plain-handler crate of `n` tools: the compile-time floor.
fn plain(n: usize) -> Side {
    Side::new("plain", format!("plain-{n}"))
}

fn generate(n: usize) {
    let paths = Paths::workspace();
    let lock = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap_or(Path::new("."))
        .join("Cargo.lock");
    for transport in [Transport::Stdio, Transport::Http] {
        let [ours, rmcp] = sides(n, transport);
        write_ours_on(&ours.dir, n, &paths, transport).expect("write ours");
        write_rmcp_on(&rmcp.dir, n, transport).expect("write rmcp");
        for dir in [&ours.dir, &rmcp.dir] {
            let _ = std::fs::copy(&lock, dir.join("Cargo.lock"));
        }
    }
    let plain = plain(n);
    write_plain(&plain.dir, n).expect("write plain");
    let _ = std::fs::copy(&lock, plain.dir.join("Cargo.lock"));
}

/// Compile times of the handler crates (dependencies built): scratch, touch,
/// edit; for ours, rmcp's macros and the plain-handler floor, in that order.
fn compile_times(n: usize, runs: usize) -> Vec<(String, [f64; 3])> {
    let mut rows = Vec::new();
    let mut results: Vec<[f64; 3]> = Vec::new();
    let [ours, rmcp] = sides(n, Transport::Stdio);
    for side in [ours, rmcp, plain(n)] {
        eprintln!("compile: {} ({n} tools)", side.label);
        timed_cargo(&side.dir, &["build"]);
        let main = side.dir.join("src/main.rs");
        let original = std::fs::read_to_string(&main).expect("main.rs");
        let mut scratch = Vec::new();
        let mut touch = Vec::new();
        let mut edit = Vec::new();
        for run in 0..runs {
            timed_cargo(&side.dir, &["clean", "-p", &side.package]);
            scratch.push(timed_cargo(&side.dir, &["build"]).as_secs_f64());
            std::fs::write(&main, &original).expect("touch");
            touch.push(timed_cargo(&side.dir, &["build"]).as_secs_f64());
            let edited = original.replacen(
                &format!("\"{}: ", tool_name(0)),
                &format!("\"{} (edit {run}): ", tool_name(0)),
                1,
            );
            std::fs::write(&main, edited).expect("edit");
            edit.push(timed_cargo(&side.dir, &["build"]).as_secs_f64());
        }
        std::fs::write(&main, &original).expect("restore");
        results.push([median(scratch), median(touch), median(edit)]);
    }
    for (i, what) in [
        "from scratch (debug)",
        "after touch",
        "after editing one handler",
    ]
    .iter()
    .enumerate()
    {
        rows.push((
            format!("compile {n} tools, {what}"),
            [results[0][i], results[1][i], results[2][i]],
        ));
    }
    rows
}

/// CPU time (user + system) of a process so far, in seconds.
fn cpu_seconds(pid: u32, ticks: f64) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let after = stat.rsplit(')').next().unwrap_or_default();
    let fields: Vec<&str> = after.split_whitespace().collect();
    let field = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    // utime and stime are fields 14 and 15 of /proc/PID/stat; 12 and 13 after the name.
    (field(11) + field(12)) / ticks
}

/// CPU time of a process's live threads so far, in seconds, from their
/// `schedstat` (nanoseconds; `/proc/PID/stat` counts 10 ms ticks, too coarse
/// for phases of a few hundred requests). Threads that have exited are not
/// counted: the servers measured keep theirs (tokio's workers; the HTTP
/// servers use no blocking pool).
fn cpu_ns_seconds(pid: u32) -> f64 {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return f64::NAN;
    };
    let mut ns = 0u64;
    for task in tasks.flatten() {
        let stat = std::fs::read_to_string(task.path().join("schedstat")).unwrap_or_default();
        ns += stat
            .split_whitespace()
            .next()
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0);
    }
    ns as f64 / 1e9
}

fn peak_rss_kib(pid: u32) -> f64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(f64::NAN)
}

struct Run {
    list_per_s: f64,
    list_median_us: f64,
    list_p99_us: f64,
    list_cpu_us: f64,
    call_per_s: f64,
    call_median_us: f64,
    call_p99_us: f64,
    call_cpu_us: f64,
    /// Server CPU per `ping`, in sequence like the calls: rmcp's own cost of
    /// answering a request (the serving floor).
    ping_cpu_us: f64,
    rss_kib: f64,
}

/// A benchmark server on piped stdio, killed when dropped.
fn spawn_server(binary: &Path) -> Result<tokio::process::Child, String> {
    tokio::process::Command::new(binary)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", binary.display()))
}

/// How long any one answer of a stdio server may take.
const STDIO_TIMEOUT: Duration = Duration::from_secs(60);

/// `future`, or an error naming `what` after [`STDIO_TIMEOUT`].
async fn within<T, E: std::fmt::Display>(
    what: &str,
    future: impl std::future::Future<Output = Result<T, E>>,
) -> Result<T, String> {
    tokio::time::timeout(STDIO_TIMEOUT, future)
        .await
        .map_err(|_| format!("{what}: no answer within {STDIO_TIMEOUT:?}"))?
        .map_err(|e| format!("{what}: expected a result, got {e}"))
}

async fn drive(binary: &Path, settings: &Settings, ticks: f64) -> Result<Run, String> {
    let mut child = spawn_server(binary)?;
    let pid = child.id().ok_or("the server exited at once")?;
    let transport = (
        child.stdout.take().ok_or("no stdout")?,
        child.stdin.take().ok_or("no stdin")?,
    );
    let client = within("initialize", ().serve(transport)).await?;
    let request = || CallToolRequestParams::new(tool_name(0)).with_arguments(call_arguments());
    for _ in 0..50 {
        within("warm-up tools/call", client.call_tool(request())).await?;
        within("warm-up tools/list", client.list_tools(None)).await?;
    }
    let phase = async |count: usize, what: &str| {
        let cpu = cpu_seconds(pid, ticks);
        let mut latencies = Vec::with_capacity(count);
        for _ in 0..count {
            let t = Instant::now();
            match what {
                "list" => {
                    within("tools/list", client.list_tools(None)).await?;
                }
                "call" => {
                    within("tools/call", client.call_tool(request())).await?;
                }
                _ => {
                    let ping = rmcp::model::ClientRequest::PingRequest(Default::default());
                    within("ping", client.send_request(ping)).await?;
                }
            }
            latencies.push(t.elapsed().as_secs_f64() * 1e6);
        }
        let cpu_us = (cpu_seconds(pid, ticks) - cpu) * 1e6 / count as f64;
        Ok::<_, String>((
            median(latencies.clone()),
            percentile(latencies, 0.99),
            cpu_us,
        ))
    };
    let (list_median_us, list_p99_us, list_cpu_us) = phase(settings.lists, "list").await?;
    let (call_median_us, call_p99_us, call_cpu_us) = phase(settings.calls, "call").await?;
    let (_, _, ping_cpu_us) = phase(settings.calls, "ping").await?;
    let rss_kib = peak_rss_kib(pid);
    let _ = tokio::time::timeout(STDIO_TIMEOUT, client.cancel()).await;
    let _ = child.start_kill();
    let _ = tokio::time::timeout(STDIO_TIMEOUT, child.wait()).await;
    let list_per_s =
        pipelined(binary, "tools/list", &serde_json::json!({}), settings.lists).await?;
    let call = serde_json::json!({"name": tool_name(0), "arguments": call_arguments()});
    let call_per_s = pipelined(binary, "tools/call", &call, settings.calls).await?;
    Ok(Run {
        list_per_s,
        list_median_us,
        list_p99_us,
        list_cpu_us,
        call_per_s,
        call_median_us,
        call_p99_us,
        call_cpu_us,
        ping_cpu_us,
        rss_kib,
    })
}

/// Requests per second the server answers under load: rounds of `count`
/// requests written back to back without waiting, the answers only counted,
/// not parsed; the median of five rounds after a warm-up one. The sequential rmcp client above measures latency as a client sees
/// it, but its throughput is mostly that client parsing each response (200
/// tools are 150 KB of JSON); this measures the server.
async fn pipelined(
    binary: &Path,
    method: &str,
    params: &serde_json::Value,
    count: usize,
) -> Result<f64, String> {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let mut child = spawn_server(binary)?;
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    let mut answers = BufReader::with_capacity(1 << 20, child.stdout.take().ok_or("no stdout")?);
    let mut line = Vec::new();
    let message = |id: usize, method: &str, params: &serde_json::Value| {
        let mut line =
            serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
                .to_string();
        line.push('\n');
        line
    };
    let initialize = serde_json::json!({
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "toolmetadata-bench", "version": "0"}
    });
    within(
        "writing initialize",
        stdin.write_all(message(0, "initialize", &initialize).as_bytes()),
    )
    .await?;
    within("initialize", answers.read_until(b'\n', &mut line)).await?;
    within(
        "writing notifications/initialized",
        stdin.write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"),
    )
    .await?;
    // A warm-up round, then the median of five.
    let mut rates = Vec::new();
    let mut next_id = 1;
    for round in 0..6 {
        let requests: String = (next_id..next_id + count)
            .map(|id| message(id, method, params))
            .collect();
        next_id += count;
        let start = Instant::now();
        let writing = within("writing requests", stdin.write_all(requests.as_bytes()));
        let (written, read) = tokio::join!(writing, async {
            // Only the head of each answer is looked at (`{"jsonrpc":"2.0",
            // "id":N,"result":…` or `"error":…`), so reading costs the client
            // little.
            let mut answered = 0;
            while answered < count {
                line.clear();
                let read = within(method, answers.read_until(b'\n', &mut line)).await?;
                if read == 0 {
                    return Err(format!(
                        "{method}: the server closed stdout after {answered} of {count} answers"
                    ));
                }
                let head = String::from_utf8_lossy(&line[..line.len().min(64)]);
                if head.contains("\"result\"") {
                    answered += 1;
                } else if head.contains("\"error\"") {
                    return Err(format!("{method}: expected a result, got {head}"));
                }
            }
            Ok(())
        });
        written?;
        read?;
        if round > 0 {
            rates.push(count as f64 / start.elapsed().as_secs_f64());
        }
    }
    let _ = child.start_kill();
    let _ = tokio::time::timeout(STDIO_TIMEOUT, child.wait()).await;
    Ok(median(rates))
}

fn clock_ticks() -> f64 {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8_lossy(&o.stdout).trim().parse().ok())
        .unwrap_or(100.0)
}

/// The criterion median of a benchmark, in nanoseconds.
fn criterion_median(id: &str) -> f64 {
    let path = workspace_target()
        .join("criterion")
        .join(id)
        .join("new")
        .join("estimates.json");
    std::fs::read_to_string(&path)
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .and_then(|v| v["median"]["point_estimate"].as_f64())
        .unwrap_or(f64::NAN)
}

fn row(out: &mut String, what: &str, ours: f64, rmcp: f64, unit: &str, digits: usize) {
    let ratio = ours / rmcp;
    out.push_str(&format!(
        "| {what} | {ours:.digits$} {unit} | {rmcp:.digits$} {unit} | {ratio:.2}× |\n"
    ));
}

/// A row of the floor table: ours against a floor, with the ratio and the
/// difference.
fn floor_row(out: &mut String, what: &str, ours: f64, floor: f64, unit: &str, digits: usize) {
    let ratio = ours / floor;
    let over = ours - floor;
    out.push_str(&format!(
        "| {what} | {ours:.digits$} {unit} | {floor:.digits$} {unit} | {ratio:.2}× | {over:+.digits$} {unit} |\n"
    ));
}

/// Rows of the stdio part, and the floor rows it measures (our `tools/call`
/// CPU against rmcp's `ping`).
async fn stdio_rows(settings: &Settings, ticks: f64, table: &mut String, floors: &mut String) {
    for &n in &settings.tools {
        let mut runs = Vec::new();
        for side in sides(n, Transport::Stdio) {
            eprintln!("serve: {} ({n} tools)", side.label);
            timed_cargo(&side.dir, &["build", "--release"]);
            match drive(&side.release_binary(), settings, ticks).await {
                Ok(run) => runs.push(run),
                Err(e) => eprintln!("  {} ({n} tools) over stdio: {e}", side.label),
            }
        }
        let [o, r] = &runs[..] else {
            eprintln!("stdio rows for {n} tools left out: a server failed (above)");
            continue;
        };
        let rows: [(&str, f64, f64, &str, usize); 9] = [
            (
                "tools/list throughput (pipelined)",
                o.list_per_s,
                r.list_per_s,
                "/s",
                0,
            ),
            (
                "tools/list median latency",
                o.list_median_us,
                r.list_median_us,
                "µs",
                0,
            ),
            (
                "tools/list p99 latency",
                o.list_p99_us,
                r.list_p99_us,
                "µs",
                0,
            ),
            (
                "tools/list server CPU per request",
                o.list_cpu_us,
                r.list_cpu_us,
                "µs",
                0,
            ),
            (
                "tools/call throughput (pipelined)",
                o.call_per_s,
                r.call_per_s,
                "/s",
                0,
            ),
            (
                "tools/call median latency",
                o.call_median_us,
                r.call_median_us,
                "µs",
                0,
            ),
            (
                "tools/call p99 latency",
                o.call_p99_us,
                r.call_p99_us,
                "µs",
                0,
            ),
            (
                "tools/call server CPU per request",
                o.call_cpu_us,
                r.call_cpu_us,
                "µs",
                0,
            ),
            (
                "server peak RSS",
                o.rss_kib / 1024.0,
                r.rss_kib / 1024.0,
                "MiB",
                1,
            ),
        ];
        for (what, ours, rmcp, unit, digits) in rows {
            row(
                table,
                &format!("{what}, {n} tools"),
                ours,
                rmcp,
                unit,
                digits,
            );
        }
        floor_row(
            floors,
            &format!("stdio: our tools/call CPU per request against rmcp's ping, {n} tools"),
            o.call_cpu_us,
            r.ping_cpu_us,
            "µs",
            0,
        );
    }
}

/// A server listening on HTTP, killed when dropped.
struct HttpChild {
    child: tokio::process::Child,
    pid: u32,
    addr: std::net::SocketAddr,
}

/// Starts a generated HTTP server and reads the address it prints.
async fn start_http(binary: &Path) -> Result<HttpChild, String> {
    use tokio::io::AsyncBufReadExt;
    let mut child = tokio::process::Command::new(binary)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", binary.display()))?;
    let pid = child.id().ok_or("the server exited at once")?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let mut line = String::new();
    let mut reader = tokio::io::BufReader::new(stdout);
    tokio::time::timeout(Duration::from_secs(30), reader.read_line(&mut line))
        .await
        .map_err(|_| format!("{} printed no address within 30 s", binary.display()))?
        .map_err(|e| format!("reading the address of {}: {e}", binary.display()))?;
    let addr = line.trim().parse().map_err(|_| {
        format!(
            "expected {} to print its address (127.0.0.1:PORT), got {line:?}",
            binary.display()
        )
    })?;
    Ok(HttpChild { child, pid, addr })
}

impl HttpChild {
    async fn stop(mut self) {
        let _ = self.child.start_kill();
        let _ = tokio::time::timeout(Duration::from_secs(10), self.child.wait()).await;
    }
}

/// A phase of the HTTP part: mode, JSON-RPC method, clients.
type PhaseKey = (http::Mode, &'static str, usize);

/// What the HTTP part measured for one server.
struct HttpRun {
    /// By (mode, request, clients).
    phases: Vec<(PhaseKey, Result<http::Measured, String>)>,
    peak_rss_kib: f64,
    session_kib: Result<f64, String>,
}

const HTTP_CLIENTS: [usize; 3] = [1, 16, 64];

async fn drive_http(binary: &Path, n: usize, settings: &Settings) -> HttpRun {
    let mut run = HttpRun {
        phases: Vec::new(),
        peak_rss_kib: f64::NAN,
        session_kib: Err("not measured".to_owned()),
    };
    let server = match start_http(binary).await {
        Ok(server) => server,
        Err(e) => {
            eprintln!("  {e}");
            run.session_kib = Err(e);
            return run;
        }
    };
    let calls = [
        http::Call {
            method: "tools/call",
            params: serde_json::json!({"name": tool_name(n / 2), "arguments": call_arguments()}),
            name: Some(tool_name(n / 2)),
        },
        http::Call {
            method: "tools/list",
            params: serde_json::json!({}),
            name: None,
        },
        http::Call {
            method: "ping",
            params: serde_json::json!({}),
            name: None,
        },
    ];
    for mode in [http::Mode::Stateless, http::Mode::Session] {
        for call in &calls {
            if mode == http::Mode::Stateless && call.method == "ping" {
                // 2026-07-28 has no ping (rmcp refuses it statelessly).
                continue;
            }
            for clients in HTTP_CLIENTS {
                let result = http::load(
                    server.addr,
                    server.pid,
                    mode,
                    call,
                    clients,
                    settings.http_warmup,
                    settings.http_measure,
                )
                .await;
                match &result {
                    Ok(m) => eprintln!(
                        "  {} {} ×{clients}: {:.0}/s p50 {:.0} µs p99 {:.0} µs, server {:.0} µs/req, client {:.0} µs/req",
                        mode.label(),
                        call.method,
                        m.per_s,
                        m.p50_us,
                        m.p99_us,
                        m.server_cpu_us,
                        m.client_cpu_us
                    ),
                    Err(e) => eprintln!("  {} {} ×{clients}: {e}", mode.label(), call.method),
                }
                run.phases.push(((mode, call.method, clients), result));
            }
        }
    }
    run.peak_rss_kib = peak_rss_kib(server.pid);
    run.session_kib = http::rss_per_session(server.addr, server.pid, settings.http_sessions).await;
    server.stop().await;
    run
}

fn phase(run: &HttpRun, key: PhaseKey) -> Option<http::Measured> {
    run.phases
        .iter()
        .find(|(k, _)| *k == key)
        .and_then(|(_, r)| r.as_ref().ok().copied())
}

/// The HTTP part: a table of its own, and its floor rows.
async fn http_rows(settings: &Settings, floors: &mut String) -> String {
    let mut table = String::from(
        "| tools | mode | request | clients | req/s ours | req/s rmcp | ours / rmcp | p50 ours | p50 rmcp | p99 ours | p99 rmcp | p99 ours / rmcp | server CPU/req ours | server CPU/req rmcp | ours / rmcp | client CPU/req (ours, rmcp runs) |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    let mut memory =
        String::from("\n| measure | ours | rmcp macros | ours / rmcp |\n|---|---|---|---|\n");
    for &n in &settings.tools {
        let mut runs = Vec::new();
        for side in sides(n, Transport::Http) {
            eprintln!("http: {} ({n} tools)", side.label);
            timed_cargo(&side.dir, &["build", "--release"]);
            runs.push(drive_http(&side.release_binary(), n, settings).await);
        }
        let (o, r) = (&runs[0], &runs[1]);
        for mode in [http::Mode::Stateless, http::Mode::Session] {
            for method in ["tools/call", "tools/list", "ping"] {
                for clients in HTTP_CLIENTS {
                    let key = (mode, method, clients);
                    let (Some(a), Some(b)) = (phase(o, key), phase(r, key)) else {
                        continue;
                    };
                    table.push_str(&format!(
                        "| {n} | {} | {method} | {clients} | {:.0} | {:.0} | {:.2}× | {:.0} µs | {:.0} µs | {:.0} µs | {:.0} µs | {:.2}× | {:.0} µs | {:.0} µs | {:.2}× | {:.0}, {:.0} µs |\n",
                        mode.label(),
                        a.per_s,
                        b.per_s,
                        a.per_s / b.per_s,
                        a.p50_us,
                        b.p50_us,
                        a.p99_us,
                        b.p99_us,
                        a.p99_us / b.p99_us,
                        a.server_cpu_us,
                        b.server_cpu_us,
                        a.server_cpu_us / b.server_cpu_us,
                        a.client_cpu_us,
                        b.client_cpu_us,
                    ));
                }
            }
        }
        for clients in HTTP_CLIENTS {
            // The stateless generation has no ping: its floor is the session's.
            let floor = phase(r, (http::Mode::Session, "ping", clients));
            for mode in [http::Mode::Stateless, http::Mode::Session] {
                if let (Some(call), Some(ping)) = (phase(o, (mode, "tools/call", clients)), floor) {
                    floor_row(
                        floors,
                        &format!(
                            "HTTP {}: our tools/call CPU per request against rmcp's session ping, {n} tools, {clients} clients",
                            mode.label()
                        ),
                        call.server_cpu_us,
                        ping.server_cpu_us,
                        "µs",
                        0,
                    );
                }
            }
        }
        row(
            &mut memory,
            &format!("HTTP server peak RSS, {n} tools"),
            o.peak_rss_kib / 1024.0,
            r.peak_rss_kib / 1024.0,
            "MiB",
            1,
        );
        match (&o.session_kib, &r.session_kib) {
            (Ok(a), Ok(b)) => row(
                &mut memory,
                &format!(
                    "HTTP RSS per open session ({} sessions), {n} tools",
                    settings.http_sessions
                ),
                *a,
                *b,
                "KiB",
                1,
            ),
            (a, b) => eprintln!("RSS per session, {n} tools: ours {a:?}, rmcp {b:?}"),
        }
    }
    table.push_str(&memory);
    table
}

/// A user's first build of a 10-tool stdio server, nothing cached: ours and
/// rmcp's macros, debug and release, wall and CPU time.
fn cold_rows(table: &mut String) {
    let [ours, rmcp] = sides(10, toolmetadata_bench::Transport::Stdio);
    let target = workspace_target().join("bench-work").join("cold-target");
    for (profile, release) in [("debug", false), ("release", true)] {
        eprintln!("cold build, 10 tools, {profile}");
        let a = cold::cold_build(&ours.dir, &target, release);
        let b = cold::cold_build(&rmcp.dir, &target, release);
        row(
            table,
            &format!("cold build 10 tools, nothing cached ({profile}), wall"),
            a.wall,
            b.wall,
            "s",
            1,
        );
        row(
            table,
            &format!("cold build 10 tools, nothing cached ({profile}), CPU"),
            a.cpu,
            b.cpu,
            "s",
            1,
        );
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let has = |flag: &str| args.iter().any(|a| a == flag);
    let mut tools = vec![10, 50, 200];
    for a in &args {
        if let Some(list) = a.strip_prefix("--tools=") {
            tools = list
                .split(',')
                .filter_map(|n| n.parse().ok())
                .filter(|n| [10, 50, 200].contains(n))
                .collect();
            continue;
        }
        if ![
            "--quick",
            "--compile",
            "--stdio",
            "--http",
            "--peer",
            "--cold",
            "--criterion",
        ]
        .contains(&a.as_str())
        {
            eprintln!(
                "unknown argument {a:?}; expected --quick, --tools=10,50,200 and any of --compile, --stdio, --http, --peer, --cold, --criterion (none: all)"
            );
            std::process::exit(2);
        }
    }
    let quick = has("--quick");
    let all = ![
        "--compile",
        "--stdio",
        "--http",
        "--peer",
        "--cold",
        "--criterion",
    ]
    .iter()
    .any(|f| has(f));
    let sections = Sections {
        compile: all || has("--compile"),
        stdio: all || has("--stdio"),
        http: all || has("--http"),
        peer: has("--peer") || (all && peer::npm_available().is_ok()),
        criterion: has("--criterion") || (all && !quick),
        cold: has("--cold") || (all && !quick),
    };
    if all && let Err(why) = peer::npm_available() {
        eprintln!("peer rows skipped: {why}");
    }
    let mut settings = if quick {
        Settings {
            compile_runs: 1,
            calls: 300,
            lists: 100,
            http_warmup: Duration::from_millis(300),
            http_measure: Duration::from_secs(1),
            http_sessions: 200,
            peer_calls: 30,
            tools: Vec::new(),
        }
    } else {
        Settings {
            compile_runs: 3,
            calls: 2000,
            lists: 500,
            http_warmup: Duration::from_secs(1),
            http_measure: Duration::from_secs(5),
            http_sessions: 500,
            peer_calls: 200,
            tools: Vec::new(),
        }
    };
    let mut table =
        String::from("| measure | ours | rmcp macros | ours / rmcp |\n|---|---|---|---|\n");
    let mut floors = String::from(
        "| measure | ours | floor | ours / floor | ours − floor |\n|---|---|---|---|---|\n",
    );
    for n in [10, 50, 200] {
        generate(n);
    }
    settings.tools = tools;

    if sections.compile {
        for (what, [ours, rmcp, plain]) in compile_times(200, settings.compile_runs) {
            row(&mut table, &what, ours, rmcp, "s", 2);
            floor_row(
                &mut floors,
                &format!("{what}: against the plain-handler crate"),
                ours,
                plain,
                "s",
                2,
            );
        }
    }

    if sections.cold {
        cold_rows(&mut table);
    }

    let ticks = clock_ticks();
    if sections.stdio {
        stdio_rows(&settings, ticks, &mut table, &mut floors).await;
    }
    let http_table = if sections.http {
        Some(http_rows(&settings, &mut floors).await)
    } else {
        None
    };
    let peer_table = if sections.peer {
        Some(peer::rows(&settings).await)
    } else {
        None
    };

    if sections.criterion {
        eprintln!("criterion: build_rs and decode");
        let status = cargo()
            .env_remove("CARGO_TARGET_DIR")
            .args([
                "bench",
                "-p",
                "toolmetadata-bench",
                "--bench",
                "build_rs",
                "--bench",
                "decode",
            ])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdout(Stdio::null())
            .status()
            .expect("cargo bench");
        assert!(status.success(), "cargo bench failed");
        table.push_str("\n| criterion | median |\n|---|---|\n");
        for n in [10, 50, 200, 1000] {
            let ms = criterion_median(&format!("build_rs/{n}")) / 1e6;
            table.push_str(&format!(
                "| build.rs (load, check, emit, format, write), {n} tools | {ms:.2} ms |\n"
            ));
        }
        let ours = criterion_median("decode/ours_valid");
        let serde = criterion_median("decode/serde_valid");
        table.push_str(&format!(
            "| decode valid arguments: ours | {ours:.0} ns ({:.2}× serde) |\n",
            ours / serde
        ));
        table.push_str(&format!(
            "| decode valid arguments: serde_json::from_value + derive | {serde:.0} ns |\n"
        ));
        let ours = criterion_median("decode/ours_invalid");
        let serde = criterion_median("decode/serde_invalid");
        table.push_str(&format!("| decode invalid arguments: ours (every error, with messages) | {ours:.0} ns ({:.2}× serde) |\n", ours / serde));
        table.push_str(&format!(
            "| decode invalid arguments: serde (first error) | {serde:.0} ns |\n"
        ));
    }
    if sections.compile || sections.stdio || sections.criterion || sections.cold {
        println!("{table}");
    }
    if let Some(http) = http_table {
        println!("HTTP (Streamable HTTP, rmcp's StreamableHttpService on both sides):\n\n{http}");
    }
    if floors.lines().count() > 2 {
        println!("Floors:\n\n{floors}");
    }
    if let Some(peer) = peer_table {
        println!("Peer: example-server against the Node filesystem server, stdio:\n\n{peer}");
    }
}
