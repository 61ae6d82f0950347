//! The peer rows: example-server (this workspace's, release build) against
//! the Node filesystem server `@modelcontextprotocol/server-filesystem`,
//! pinned to [`PEER_VERSION`] and installed with npm into
//! `target/bench-work/peer` by this program (never in CI: CI only compiles
//! the benches), both over stdio on the same generated tree.
//!
//! Each operation is called in sequence by a raw JSON-RPC client (one line
//! out, the answer with the same id in): median and p99 latency, server CPU
//! per call from the server's threads' `schedstat` (nanoseconds, where
//! `/proc/PID/stat` counts 10 ms ticks, too coarse for 100 µs calls), peak
//! RSS (`VmHWM`), and the cold start from spawning the process to the answer
//! to its first `tools/list` (after `initialize`).

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::common::{Settings, cpu_ns_seconds, median, peak_rss_kib, percentile, workspace_target};

/// The Node filesystem server's version, pinned.
const PEER_VERSION: &str = "2026.8.31";
const PEER_PACKAGE: &str = "@modelcontextprotocol/server-filesystem";
/// How long one answer may take.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(60);

/// Whether npm can be run; why not otherwise.
pub(crate) fn npm_available() -> Result<(), String> {
    let out = std::process::Command::new("npm")
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("npm is not available ({e}); the peer rows need it to install {PEER_PACKAGE}@{PEER_VERSION}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "`npm --version` failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

fn work() -> PathBuf {
    workspace_target().join("bench-work")
}

/// Installs the pinned peer unless it is already there; its entry point.
async fn install_peer() -> Result<PathBuf, String> {
    npm_available()?;
    let dir = work().join("peer");
    let package = dir.join("node_modules").join(PEER_PACKAGE);
    let installed = std::fs::read_to_string(package.join("package.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .and_then(|v| v["version"].as_str().map(str::to_owned));
    if installed.as_deref() != Some(PEER_VERSION) {
        eprintln!(
            "peer: npm install {PEER_PACKAGE}@{PEER_VERSION} into {}",
            dir.display()
        );
        std::fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
        // A package.json of its own, so that npm installs here and not in
        // a parent directory's project.
        let manifest = dir.join("package.json");
        if !manifest.exists() {
            std::fs::write(&manifest, "{\"name\": \"bench-peer\", \"private\": true}\n")
                .map_err(|e| format!("writing {}: {e}", manifest.display()))?;
        }
        let install = tokio::process::Command::new("npm")
            .args([
                "install",
                "--save-exact",
                "--no-audit",
                "--no-fund",
                &format!("{PEER_PACKAGE}@{PEER_VERSION}"),
            ])
            .current_dir(&dir)
            .stdin(Stdio::null())
            .kill_on_drop(true)
            .output();
        let out = tokio::time::timeout(Duration::from_secs(600), install)
            .await
            .map_err(|_| "npm install took more than 10 minutes".to_owned())?
            .map_err(|e| format!("running npm install: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "npm install {PEER_PACKAGE}@{PEER_VERSION} failed:\n{}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    let manifest: serde_json::Value = std::fs::read_to_string(package.join("package.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .ok_or_else(|| {
            format!(
                "expected {} after npm install",
                package.join("package.json").display()
            )
        })?;
    let bin = match &manifest["bin"] {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Object(m) => m.values().find_map(|v| v.as_str().map(str::to_owned)),
        _ => None,
    }
    .unwrap_or_else(|| "dist/index.js".to_owned());
    Ok(package.join(bin))
}

/// Builds example-server in release, in the target directory cargo would use
/// for this workspace; its path.
async fn build_example_server() -> Result<PathBuf, String> {
    eprintln!("peer: cargo build --release -p example-server");
    let root = crate::common::workspace_root();
    let build =
        tokio::process::Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
            .args([
                "build",
                "--release",
                "-p",
                "example-server",
                "--bin",
                "example-server",
            ])
            .current_dir(root)
            .stdout(Stdio::null())
            .kill_on_drop(true)
            .output();
    let out = tokio::time::timeout(Duration::from_secs(3600), build)
        .await
        .map_err(|_| "building example-server took more than an hour".to_owned())?
        .map_err(|e| format!("running cargo: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "building example-server failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    crate::common::settle();
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(workspace_target);
    Ok(target.join("release").join("example-server"))
}

/// The tree both servers serve: 10 × 10 directories of 50 small files each
/// (5,000 files of about 1 KB, every 100th named `needle-….txt`), and one
/// large file of 1 MiB. Written once; kept between runs.
fn write_tree() -> Result<PathBuf, String> {
    let root = work().join("peer-tree");
    let done = root.join(".complete");
    if done.exists() {
        return Ok(root);
    }
    let io = |e: std::io::Error| format!("writing the tree in {}: {e}", root.display());
    let line = "the quick brown fox jumps over the lazy dog, again and again\n";
    let small = line.repeat(16);
    for a in 0..10 {
        for b in 0..10 {
            let dir = root.join(format!("dir{a}")).join(format!("sub{b}"));
            std::fs::create_dir_all(&dir).map_err(io)?;
            for f in 0..50 {
                let i = (a * 10 + b) * 50 + f;
                let name = if i % 100 == 0 {
                    format!("needle-{i:04}.txt")
                } else {
                    format!("file-{i:04}.txt")
                };
                std::fs::write(dir.join(name), &small).map_err(io)?;
            }
        }
    }
    std::fs::write(root.join("large.txt"), line.repeat((1 << 20) / line.len())).map_err(io)?;
    std::fs::write(&done, "").map_err(io)?;
    Ok(root)
}

/// A server on stdio with a raw JSON-RPC client.
struct Stdio2 {
    child: tokio::process::Child,
    pid: u32,
    stdin: tokio::process::ChildStdin,
    stdout: BufReader<tokio::process::ChildStdout>,
    next_id: u64,
    line: Vec<u8>,
}

impl Stdio2 {
    fn spawn(program: &Path, args: &[String]) -> Result<Stdio2, String> {
        let mut command = tokio::process::Command::new(program);
        command
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true);
        let mut child = command
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", program.display()))?;
        let pid = child.id().ok_or("the server exited at once")?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = BufReader::with_capacity(1 << 20, child.stdout.take().ok_or("no stdout")?);
        Ok(Stdio2 {
            child,
            pid,
            stdin,
            stdout,
            next_id: 1,
            line: Vec::new(),
        })
    }

    /// Sends a request and waits for the answer with its id (other lines,
    /// such as notifications, are skipped); the answer's text.
    async fn request(&mut self, method: &str, params: serde_json::Value) -> Result<String, String> {
        let id = self.next_id;
        self.next_id += 1;
        let mut message =
            serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
                .to_string();
        message.push('\n');
        self.stdin
            .write_all(message.as_bytes())
            .await
            .map_err(|e| format!("{method}: writing to the server: {e}"))?;
        let wanted = format!("\"id\":{id}");
        loop {
            self.line.clear();
            let read = tokio::time::timeout(
                ANSWER_TIMEOUT,
                self.stdout.read_until(b'\n', &mut self.line),
            )
            .await
            .map_err(|_| format!("{method}: no answer within {ANSWER_TIMEOUT:?}"))?
            .map_err(|e| format!("{method}: reading the answer: {e}"))?;
            if read == 0 {
                return Err(format!(
                    "{method}: the server closed stdout instead of answering"
                ));
            }
            let text = String::from_utf8_lossy(&self.line);
            // Both servers write compact JSON; the id is near the start or,
            // with some serialisers, at the end.
            if text.contains(&wanted) && (text.contains("\"result\"") || text.contains("\"error\""))
            {
                return Ok(text.into_owned());
            }
        }
    }

    async fn initialize(&mut self) -> Result<(), String> {
        let answer = self
            .request(
                "initialize",
                serde_json::json!({
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "toolmetadata-bench", "version": "0"}
                }),
            )
            .await?;
        if !answer.contains("\"result\"") {
            return Err(format!(
                "initialize: expected a result, got {}",
                head(&answer)
            ));
        }
        self.stdin
            .write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")
            .await
            .map_err(|e| format!("notifications/initialized: {e}"))
    }

    async fn stop(mut self) {
        let _ = self.child.start_kill();
        let _ = tokio::time::timeout(Duration::from_secs(10), self.child.wait()).await;
    }
}

fn head(text: &str) -> String {
    text.chars().take(300).collect()
}

/// One side: how to start it and how it names each operation.
struct PeerSide {
    label: &'static str,
    program: PathBuf,
    args: Vec<String>,
    /// Per operation: tool name and arguments, `None` if it has none.
    ops: Vec<(&'static str, serde_json::Value)>,
}

/// The operations both sides have, in table order.
const OPERATIONS: [&str; 6] = [
    "read small file",
    "read large file (1 MiB)",
    "list directory (50 entries)",
    "directory tree (5,000 files)",
    "search file names (50 of 5,000)",
    "file info",
];

fn sides(example: PathBuf, node_entry: PathBuf, tree: &Path) -> [PeerSide; 2] {
    let p = |rel: &str| tree.join(rel).display().to_string();
    let small = p("dir3/sub4/file-1701.txt");
    let large = p("large.txt");
    let dir = p("dir3/sub4");
    let root = tree.display().to_string();
    let ours = PeerSide {
        label: "example-server",
        program: example,
        args: vec!["--root".to_owned(), root.clone()],
        ops: vec![
            ("read_file", serde_json::json!({"path": small})),
            ("read_file", serde_json::json!({"path": large})),
            ("list_directory", serde_json::json!({"path": dir})),
            (
                "directory_tree",
                serde_json::json!({"path": root, "depth": 3}),
            ),
            (
                "find_files",
                serde_json::json!({"path": root, "glob": "**/needle-*"}),
            ),
            ("file_info", serde_json::json!({"path": small})),
        ],
    };
    let node = PeerSide {
        label: "Node server-filesystem",
        program: PathBuf::from("node"),
        args: vec![node_entry.display().to_string(), root.clone()],
        ops: vec![
            ("read_text_file", serde_json::json!({"path": small})),
            ("read_text_file", serde_json::json!({"path": large})),
            ("list_directory", serde_json::json!({"path": dir})),
            ("directory_tree", serde_json::json!({"path": root})),
            (
                "search_files",
                serde_json::json!({"path": root, "pattern": "**/needle-*"}),
            ),
            ("get_file_info", serde_json::json!({"path": small})),
        ],
    };
    [ours, node]
}

struct PeerRun {
    /// Per operation: median, p99 (µs), CPU per call (µs), size of the
    /// last answer (bytes), to show both did the same work.
    ops: Vec<Result<(f64, f64, f64, usize), String>>,
    rss_kib: f64,
    cold_start_ms: Result<f64, String>,
}

/// Spawn to the answer of the first `tools/list`.
async fn cold_start(side: &PeerSide) -> Result<f64, String> {
    let start = Instant::now();
    let mut server = Stdio2::spawn(&side.program, &side.args)?;
    server.initialize().await?;
    let answer = server.request("tools/list", serde_json::json!({})).await?;
    let elapsed = start.elapsed().as_secs_f64() * 1e3;
    server.stop().await;
    if answer.contains("\"tools\"") {
        Ok(elapsed)
    } else {
        Err(format!("tools/list: expected tools, got {}", head(&answer)))
    }
}

async fn drive(side: &PeerSide, calls: usize, starts: usize) -> PeerRun {
    let mut colds = Vec::new();
    let mut cold_error = None;
    for _ in 0..starts {
        match cold_start(side).await {
            Ok(ms) => colds.push(ms),
            Err(e) => cold_error = Some(e),
        }
    }
    let cold_start_ms = match cold_error {
        Some(e) => Err(e),
        None => Ok(median(colds)),
    };
    let mut run = PeerRun {
        ops: Vec::new(),
        rss_kib: f64::NAN,
        cold_start_ms,
    };
    let mut server = match Stdio2::spawn(&side.program, &side.args) {
        Ok(s) => s,
        Err(e) => {
            run.ops = side.ops.iter().map(|_| Err(e.clone())).collect();
            return run;
        }
    };
    if let Err(e) = server.initialize().await {
        run.ops = side.ops.iter().map(|_| Err(e.clone())).collect();
        server.stop().await;
        return run;
    }
    for (tool, arguments) in &side.ops {
        let params = serde_json::json!({"name": tool, "arguments": arguments});
        let result = async {
            let check = |answer: &str| {
                if answer.contains("\"isError\":true") || !answer.contains("\"result\"") {
                    Err(format!(
                        "{tool}: expected a successful result, got {}",
                        head(answer)
                    ))
                } else {
                    Ok(())
                }
            };
            for _ in 0..calls.div_ceil(10).max(3) {
                check(&server.request("tools/call", params.clone()).await?)?;
            }
            let cpu = cpu_ns_seconds(server.pid);
            let mut latencies = Vec::with_capacity(calls);
            let mut size = 0;
            for _ in 0..calls {
                let t = Instant::now();
                let answer = server.request("tools/call", params.clone()).await?;
                latencies.push(t.elapsed().as_secs_f64() * 1e6);
                check(&answer)?;
                size = answer.len();
            }
            let cpu_us = (cpu_ns_seconds(server.pid) - cpu) * 1e6 / calls as f64;
            Ok::<_, String>((
                median(latencies.clone()),
                percentile(latencies, 0.99),
                cpu_us,
                size,
            ))
        }
        .await;
        if let Err(e) = &result {
            eprintln!("  {}: {e}", side.label);
        }
        run.ops.push(result);
    }
    run.rss_kib = peak_rss_kib(server.pid);
    server.stop().await;
    run
}

/// The peer table, or why it could not be made.
pub(crate) async fn rows(settings: &Settings) -> String {
    match try_rows(settings).await {
        Ok(table) => table,
        Err(e) => {
            eprintln!("peer rows skipped: {e}");
            format!("(not measured: {e})\n")
        }
    }
}

async fn try_rows(settings: &Settings) -> Result<String, String> {
    let node_entry = install_peer().await?;
    let example = build_example_server().await?;
    let tree = write_tree()?;
    let starts = if settings.peer_calls >= 100 { 10 } else { 3 };
    let mut runs = Vec::new();
    for side in sides(example, node_entry, &tree) {
        eprintln!("peer: {}", side.label);
        runs.push(drive(&side, settings.peer_calls, starts).await);
    }
    let (o, p) = (&runs[0], &runs[1]);
    let mut table = format!(
        "| measure | example-server | {PEER_PACKAGE} {PEER_VERSION} | ours / Node |\n|---|---|---|---|\n"
    );
    let mut row = |what: &str, a: f64, b: f64, unit: &str, digits: usize| {
        table.push_str(&format!(
            "| {what} | {a:.digits$} {unit} | {b:.digits$} {unit} | {:.2}× |\n",
            a / b
        ));
    };
    for (i, op) in OPERATIONS.iter().enumerate() {
        match (&o.ops[i], &p.ops[i]) {
            (Ok(a), Ok(b)) => {
                row(&format!("{op}: median latency"), a.0, b.0, "µs", 0);
                row(&format!("{op}: p99 latency"), a.1, b.1, "µs", 0);
                row(&format!("{op}: server CPU per call"), a.2, b.2, "µs", 0);
                row(
                    &format!("{op}: answer size (same work?)"),
                    a.3 as f64 / 1024.0,
                    b.3 as f64 / 1024.0,
                    "KiB",
                    1,
                );
            }
            (a, b) => eprintln!("peer {op}: ours {a:?}, Node {b:?}"),
        }
    }
    row(
        "server peak RSS",
        o.rss_kib / 1024.0,
        p.rss_kib / 1024.0,
        "MiB",
        1,
    );
    match (&o.cold_start_ms, &p.cold_start_ms) {
        (Ok(a), Ok(b)) => row("cold start to the first tools/list answer", *a, *b, "ms", 1),
        (a, b) => eprintln!("peer cold start: ours {a:?}, Node {b:?}"),
    }
    Ok(table)
}
