//! The HTTP rows: each generated server over Streamable HTTP under the load
//! generator of `http`, stateless and with sessions, at several client
//! counts; throughput, latency percentiles, CPU per request and memory.

use std::path::Path;

use toolmetadata_bench::Transport;

use std::process::Stdio;
use std::time::Duration;

use toolmetadata_bench::{call_arguments, tool_name};

use crate::common::*;
use crate::http;

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

/// Both sides' servers (ours first), each phase measured on one and then
/// the other, the order swapped from one phase to the next: a drift of the
/// machine (its clock, another process) weighs on both sides alike.
async fn drive_http(binaries: [&Path; 2], n: usize, settings: &Settings) -> [HttpRun; 2] {
    let mut runs = [(); 2].map(|()| HttpRun {
        phases: Vec::new(),
        peak_rss_kib: f64::NAN,
        session_kib: Err("not measured".to_owned()),
    });
    let mut servers = Vec::new();
    for (binary, run) in binaries.iter().zip(&mut runs) {
        match start_http(binary).await {
            Ok(server) => servers.push(server),
            Err(e) => {
                eprintln!("  {e}");
                run.session_kib = Err(e);
            }
        }
    }
    if servers.len() < 2 {
        for server in servers {
            server.stop().await;
        }
        return runs;
    }
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
    let mut swapped = false;
    for mode in [http::Mode::Stateless, http::Mode::Session] {
        for call in &calls {
            if !settings.requests.iter().any(|r| r == call.method) {
                continue;
            }
            if mode == http::Mode::Stateless && call.method == "ping" {
                // 2026-07-28 has no ping (rmcp refuses it statelessly).
                continue;
            }
            for clients in HTTP_CLIENTS {
                let order = if swapped { [1, 0] } else { [0, 1] };
                swapped = !swapped;
                for side in order {
                    let server = &servers[side];
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
                    let label = ["ours", "rmcp"][side];
                    match &result {
                        // The peak so far, to tell which phase sets the peak RSS row.
                        Ok(m) => eprintln!(
                            "  {label} {} {} ×{clients}: {:.0}/s p50 {:.0} µs p99 {:.0} µs, server {:.0} µs/req, client {:.0} µs/req, peak RSS so far {:.1} MiB",
                            mode.label(),
                            call.method,
                            m.per_s,
                            m.p50_us,
                            m.p99_us,
                            m.server_cpu_us,
                            m.client_cpu_us,
                            peak_rss_kib(server.pid) / 1024.0
                        ),
                        Err(e) => {
                            eprintln!("  {label} {} {} ×{clients}: {e}", mode.label(), call.method)
                        }
                    }
                    runs[side]
                        .phases
                        .push(((mode, call.method, clients), result));
                }
            }
        }
    }
    for (server, run) in servers.into_iter().zip(&mut runs) {
        run.peak_rss_kib = peak_rss_kib(server.pid);
        run.session_kib =
            http::rss_per_session(server.addr, server.pid, settings.http_sessions).await;
        server.stop().await;
    }
    runs
}

fn phase(run: &HttpRun, key: PhaseKey) -> Option<http::Measured> {
    run.phases
        .iter()
        .find(|(k, _)| *k == key)
        .and_then(|(_, r)| r.as_ref().ok().copied())
}

/// The HTTP part: a table of its own, and its floor rows.
pub(super) async fn http_rows(settings: &Settings, floors: &mut String) -> String {
    let mut table = String::from(
        "| tools | mode | request | clients | req/s ours | req/s rmcp | ours / rmcp | p50 ours | p50 rmcp | p99 ours | p99 rmcp | p99 ours / rmcp | server CPU/req ours | server CPU/req rmcp | ours / rmcp | client CPU/req (ours, rmcp runs) |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    let mut memory =
        String::from("\n| measure | ours | rmcp macros | ours / rmcp |\n|---|---|---|---|\n");
    for &n in &settings.tools {
        let sides = sides(n, Transport::Http);
        build_release(&sides);
        eprintln!(
            "http: {} and {} ({n} tools)",
            sides[0].label, sides[1].label
        );
        let binaries = [sides[0].release_binary(), sides[1].release_binary()];
        let runs = drive_http([&binaries[0], &binaries[1]], n, settings).await;
        let (o, r) = (&runs[0], &runs[1]);
        for mode in [http::Mode::Stateless, http::Mode::Session] {
            for method in HTTP_REQUESTS {
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
