//! The stdio rows: each generated server driven with rmcp's client
//! (latency, CPU per call, peak RSS) and with pipelined requests (throughput),
//! and the floor rows against rmcp's `ping`.

use std::path::Path;
use std::time::{Duration, Instant};

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use toolmetadata_bench::{Transport, call_arguments, tool_name};

use std::process::Stdio;

use crate::common::*;

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
pub(super) async fn within<T, E: std::fmt::Display>(
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

/// How many requests the pipelined client keeps unanswered at once: within
/// the 128 the runtime answers at once on stdio (it refuses past them), the
/// same for both servers.
const WINDOW: usize = 100;

/// Requests per second the server answers under load: rounds of `count`
/// requests written without waiting for their answers, [`WINDOW`] of them
/// unanswered at a time, the answers only counted, not parsed; the median of
/// five rounds after a warm-up one. The sequential rmcp client above measures latency as a client sees
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
        let first = next_id;
        next_id += count;
        let window = tokio::sync::Semaphore::new(WINDOW);
        let start = Instant::now();
        let writing = async {
            // As many requests as the window has room for, in one write.
            let mut id = first;
            while id < first + count {
                let room = window
                    .acquire()
                    .await
                    .map_err(|e| format!("the window: {e}"))?;
                room.forget();
                let mut batch = 1;
                while id + batch < first + count
                    && let Ok(room) = window.try_acquire()
                {
                    room.forget();
                    batch += 1;
                }
                let requests: String = (id..id + batch)
                    .map(|id| message(id, method, params))
                    .collect();
                within("writing requests", stdin.write_all(requests.as_bytes())).await?;
                id += batch;
            }
            Ok::<(), String>(())
        };
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
                    window.add_permits(1);
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

/// Rows of the stdio part, and the floor rows it measures (our `tools/call`
/// CPU against rmcp's `ping`).
pub(super) async fn stdio_rows(
    settings: &Settings,
    ticks: f64,
    table: &mut String,
    floors: &mut String,
) {
    for &n in &settings.tools {
        let mut runs = Vec::new();
        let sides = sides(n, Transport::Stdio);
        build_release(&sides);
        for side in sides {
            eprintln!("serve: {} ({n} tools)", side.label);
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
