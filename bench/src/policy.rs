//! The policy rows: what `[limits]` and telemetry cost a `tools/call` over
//! stdio, 10 tools. Three runs of the same handlers: without either (the
//! baseline); with limits on every tool and the `otlp` feature but nothing
//! installed (exporter off); and exporting every span and, each second, the
//! metric to an OTLP/HTTP sink in this process (exporter on). The server's
//! CPU counts its exporting threads.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use toolmetadata_bench::{Paths, call_arguments, tool_name, write_ours_with_policy};

use super::stdio::within;
use std::process::Stdio;

use crate::common::*;

/// What one configuration costs per call.
struct Cost {
    cpu_us: f64,
    median_us: f64,
    p99_us: f64,
}

/// An OTLP/HTTP sink: answers every export with 200 and counts them.
async fn sink() -> Result<(SocketAddr, Arc<AtomicU64>), String> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| format!("the OTLP sink: {e}"))?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    let exports = Arc::new(AtomicU64::new(0));
    let counted = exports.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let counted = counted.clone();
            tokio::spawn(async move {
                let service = hyper::service::service_fn(
                    move |request: hyper::Request<hyper::body::Incoming>| {
                        let counted = counted.clone();
                        async move {
                            use http_body_util::BodyExt;
                            let _ = request.into_body().collect().await;
                            counted.fetch_add(1, Ordering::Relaxed);
                            Ok::<_, hyper::Error>(hyper::Response::new(http_body_util::Empty::<
                                bytes::Bytes,
                            >::new(
                            )))
                        }
                    },
                );
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    Ok((addr, exports))
}

/// `calls` calls of one tool in sequence after a warm-up, with `env` set.
async fn measure(
    binary: &Path,
    env: &[(&str, String)],
    calls: usize,
    ticks: f64,
) -> Result<Cost, String> {
    let mut child = tokio::process::Command::new(binary)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", binary.display()))?;
    let pid = child.id().ok_or("the server exited at once")?;
    let transport = (
        child.stdout.take().ok_or("no stdout")?,
        child.stdin.take().ok_or("no stdin")?,
    );
    let client = within("initialize", ().serve(transport)).await?;
    let request = || CallToolRequestParams::new(tool_name(0)).with_arguments(call_arguments());
    for _ in 0..200 {
        within("warm-up tools/call", client.call_tool(request())).await?;
    }
    let cpu = cpu_seconds(pid, ticks);
    let mut latencies = Vec::with_capacity(calls);
    for _ in 0..calls {
        let t = Instant::now();
        let result = within("tools/call", client.call_tool(request())).await?;
        if result.is_error == Some(true) {
            return Err(format!("tools/call refused: {result:?}"));
        }
        latencies.push(t.elapsed().as_secs_f64() * 1e6);
    }
    let cpu_us = (cpu_seconds(pid, ticks) - cpu) * 1e6 / calls as f64;
    let _ = client.cancel().await;
    let _ = child.start_kill();
    let _ = child.wait().await;
    Ok(Cost {
        cpu_us,
        median_us: median(latencies.clone()),
        p99_us: percentile(latencies, 0.99),
    })
}

/// The policy table: each configuration's cost per call, and its ratio to
/// the baseline's. The calls are 5× the stdio rows', for the 10 ms ticks
/// of the CPU count.
pub(super) async fn rows(settings: &Settings, ticks: f64) -> Result<String, String> {
    let n = 10;
    let baseline = Side::new("ours", format!("ours-{n}"));
    let policy = Side::new("ours", format!("ours-policy-{n}"));
    write_ours_with_policy(&policy.dir, n, &Paths::workspace())
        .map_err(|e| format!("writing the policy server: {e}"))?;
    let lock = workspace_root().join("Cargo.lock");
    let _ = std::fs::copy(&lock, policy.dir.join("Cargo.lock"));
    for side in [&baseline, &policy] {
        eprintln!("policy: building {}", side.package);
        timed_cargo(&side.dir, &["build", "--release"]);
    }
    settle();
    let (addr, exports) = sink().await?;
    let calls = settings.calls * 5;
    let none = measure(&baseline.release_binary(), &[], calls, ticks).await?;
    let off = measure(&policy.release_binary(), &[], calls, ticks).await?;
    let on = measure(
        &policy.release_binary(),
        &[("BENCH_OTLP_ENDPOINT", format!("http://{addr}"))],
        calls,
        ticks,
    )
    .await?;
    let exported = exports.load(Ordering::Relaxed);
    if exported == 0 {
        return Err("the exporter sent nothing: the on row would measure nothing".into());
    }
    let mut table = String::from(
        "| tools/call over stdio, 10 tools | server CPU per call | median latency | p99 latency | CPU / none |\n|---|---|---|---|---|\n",
    );
    for (what, cost) in [
        ("none (no limits, no telemetry)", &none),
        ("limits + telemetry, exporter off", &off),
        ("limits + telemetry, exporter on (OTLP/HTTP)", &on),
    ] {
        table.push_str(&format!(
            "| {what} | {:.1} µs | {:.0} µs | {:.0} µs | {:.2}× |\n",
            cost.cpu_us,
            cost.median_us,
            cost.p99_us,
            cost.cpu_us / none.cpu_us
        ));
    }
    table.push_str(&format!(
        "\n({calls} calls each; the sink received {exported} exports.)\n"
    ));
    Ok(table)
}
