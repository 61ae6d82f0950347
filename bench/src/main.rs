//! The benchmark suite, side by side with rmcp's `#[tool]` macros, in one run on
//! one machine; prints a Markdown table of medians and ratios (ours / rmcp).
//!
//! ```text
//! cargo run --release -p toolmetadata-bench            # everything (about 10 minutes)
//! cargo run --release -p toolmetadata-bench -- --quick # fewer runs and calls
//! ```
//!
//! It generates both servers for N = 10, 50, 200 tools under
//! `target/bench-work/`, builds them with cargo, times compiles, drives both
//! over stdio with rmcp's client, and runs the criterion benchmarks of this
//! crate (build.rs cost, argument decoding), reading their medians.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use toolmetadata_bench::{Paths, call_arguments, tool_name, write_ours, write_rmcp};

struct Settings {
    compile_runs: usize,
    calls: usize,
    lists: usize,
    criterion: bool,
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

fn sides(n: usize) -> [Side; 2] {
    let work = workspace_target().join("bench-work");
    [
        Side {
            label: "ours",
            dir: work.join(format!("ours-{n}")),
            package: format!("bench-ours-{n}"),
        },
        Side {
            label: "rmcp",
            dir: work.join(format!("rmcp-{n}")),
            package: format!("bench-rmcp-{n}"),
        },
    ]
}

fn generate(n: usize) {
    let paths = Paths::workspace();
    let [ours, rmcp] = sides(n);
    write_ours(&ours.dir, n, &paths).expect("write ours");
    write_rmcp(&rmcp.dir, n).expect("write rmcp");
    for dir in [&ours.dir, &rmcp.dir] {
        let lock = Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .unwrap_or(Path::new("."))
            .join("Cargo.lock");
        let _ = std::fs::copy(lock, dir.join("Cargo.lock"));
    }
}

/// Compile times of the handler crate (dependencies built): scratch, touch, edit.
fn compile_times(n: usize, runs: usize) -> Vec<(String, f64, f64)> {
    let mut rows = Vec::new();
    let mut results: Vec<[f64; 3]> = Vec::new();
    for side in sides(n) {
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
            results[0][i],
            results[1][i],
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
    rss_kib: f64,
}

/// A benchmark server on piped stdio, killed when dropped.
fn spawn_server(binary: &Path) -> tokio::process::Child {
    tokio::process::Command::new(binary)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn server")
}

async fn drive(binary: &Path, settings: &Settings, ticks: f64) -> Run {
    let mut child = spawn_server(binary);
    let pid = child.id().expect("pid");
    let transport = (
        child.stdout.take().expect("stdout"),
        child.stdin.take().expect("stdin"),
    );
    let client = ().serve(transport).await.expect("initialize");
    let request = || CallToolRequestParams::new(tool_name(0)).with_arguments(call_arguments());
    for _ in 0..50 {
        client.call_tool(request()).await.expect("warm-up call");
        client.list_tools(None).await.expect("warm-up list");
    }
    let phase = async |count: usize, list: bool| {
        let cpu = cpu_seconds(pid, ticks);
        let mut latencies = Vec::with_capacity(count);
        for _ in 0..count {
            let t = Instant::now();
            if list {
                client.list_tools(None).await.expect("list");
            } else {
                client.call_tool(request()).await.expect("call");
            }
            latencies.push(t.elapsed().as_secs_f64() * 1e6);
        }
        let cpu_us = (cpu_seconds(pid, ticks) - cpu) * 1e6 / count as f64;
        (
            median(latencies.clone()),
            percentile(latencies, 0.99),
            cpu_us,
        )
    };
    let (list_median_us, list_p99_us, list_cpu_us) = phase(settings.lists, true).await;
    let (call_median_us, call_p99_us, call_cpu_us) = phase(settings.calls, false).await;
    let rss_kib = peak_rss_kib(pid);
    let _ = client.cancel().await;
    let _ = child.kill().await;
    let list_per_s = pipelined(binary, "tools/list", &serde_json::json!({}), settings.lists).await;
    let call = serde_json::json!({"name": tool_name(0), "arguments": call_arguments()});
    let call_per_s = pipelined(binary, "tools/call", &call, settings.calls).await;
    Run {
        list_per_s,
        list_median_us,
        list_p99_us,
        list_cpu_us,
        call_per_s,
        call_median_us,
        call_p99_us,
        call_cpu_us,
        rss_kib,
    }
}

/// Requests per second the server answers under load: rounds of `count`
/// requests written back to back without waiting, the answers only counted,
/// not parsed; the median of five rounds after a warm-up one. The sequential rmcp client above measures latency as a client sees
/// it, but its throughput is mostly that client parsing each response (200
/// tools are 150 KB of JSON); this measures the server.
async fn pipelined(binary: &Path, method: &str, params: &serde_json::Value, count: usize) -> f64 {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let mut child = spawn_server(binary);
    let mut stdin = child.stdin.take().expect("stdin");
    let mut answers = BufReader::with_capacity(1 << 20, child.stdout.take().expect("stdout"));
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
    stdin
        .write_all(message(0, "initialize", &initialize).as_bytes())
        .await
        .expect("write initialize");
    answers
        .read_until(b'\n', &mut line)
        .await
        .expect("initialize answered");
    stdin
        .write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")
        .await
        .expect("write initialized");
    // A warm-up round, then the median of five.
    let mut rates = Vec::new();
    let mut next_id = 1;
    for round in 0..6 {
        let requests: String = (next_id..next_id + count)
            .map(|id| message(id, method, params))
            .collect();
        next_id += count;
        let start = Instant::now();
        let (written, read) = tokio::join!(stdin.write_all(requests.as_bytes()), async {
            // Only the head of each answer is looked at (`{"jsonrpc":"2.0",
            // "id":N,"result":…` or `"error":…`), so reading costs the client
            // little.
            let mut answered = 0;
            while answered < count {
                line.clear();
                let read = answers.read_until(b'\n', &mut line).await?;
                assert!(
                    read > 0,
                    "the server closed stdout after {answered} answers"
                );
                let head = String::from_utf8_lossy(&line[..line.len().min(64)]);
                if head.contains("\"result\"") {
                    answered += 1;
                } else {
                    assert!(!head.contains("\"error\""), "request failed: {head}");
                }
            }
            std::io::Result::Ok(())
        });
        written.expect("write requests");
        read.expect("read answers");
        if round > 0 {
            rates.push(count as f64 / start.elapsed().as_secs_f64());
        }
    }
    let _ = child.kill().await;
    median(rates)
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

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let settings = if quick {
        Settings {
            compile_runs: 1,
            calls: 300,
            lists: 100,
            criterion: false,
        }
    } else {
        Settings {
            compile_runs: 3,
            calls: 2000,
            lists: 500,
            criterion: true,
        }
    };
    let mut table =
        String::from("| measure | ours | rmcp macros | ours / rmcp |\n|---|---|---|---|\n");
    for n in [10, 50, 200] {
        generate(n);
    }

    for (what, ours, rmcp) in compile_times(200, settings.compile_runs) {
        row(&mut table, &what, ours, rmcp, "s", 2);
    }

    let ticks = clock_ticks();
    for n in [10, 50, 200] {
        let mut runs = Vec::new();
        for side in sides(n) {
            eprintln!("serve: {} ({n} tools)", side.label);
            timed_cargo(&side.dir, &["build", "--release"]);
            let binary = workspace_target()
                .join("bench-work/target/release")
                .join(&side.package);
            runs.push(drive(&binary, &settings, ticks).await);
        }
        let (o, r) = (&runs[0], &runs[1]);
        row(
            &mut table,
            &format!("tools/list throughput (pipelined), {n} tools"),
            o.list_per_s,
            r.list_per_s,
            "/s",
            0,
        );
        row(
            &mut table,
            &format!("tools/list median latency, {n} tools"),
            o.list_median_us,
            r.list_median_us,
            "µs",
            0,
        );
        row(
            &mut table,
            &format!("tools/list p99 latency, {n} tools"),
            o.list_p99_us,
            r.list_p99_us,
            "µs",
            0,
        );
        row(
            &mut table,
            &format!("tools/list server CPU per request, {n} tools"),
            o.list_cpu_us,
            r.list_cpu_us,
            "µs",
            0,
        );
        row(
            &mut table,
            &format!("tools/call throughput (pipelined), {n} tools"),
            o.call_per_s,
            r.call_per_s,
            "/s",
            0,
        );
        row(
            &mut table,
            &format!("tools/call median latency, {n} tools"),
            o.call_median_us,
            r.call_median_us,
            "µs",
            0,
        );
        row(
            &mut table,
            &format!("tools/call p99 latency, {n} tools"),
            o.call_p99_us,
            r.call_p99_us,
            "µs",
            0,
        );
        row(
            &mut table,
            &format!("tools/call server CPU per request, {n} tools"),
            o.call_cpu_us,
            r.call_cpu_us,
            "µs",
            0,
        );
        row(
            &mut table,
            &format!("server peak RSS, {n} tools"),
            o.rss_kib / 1024.0,
            r.rss_kib / 1024.0,
            "MiB",
            1,
        );
    }

    if settings.criterion {
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
    println!("{table}");
}
