//! What the suite's sections share: its settings, the two sides and their
//! builds, and how a process's cost and a run's median are read.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use toolmetadata_bench::{
    Paths, Transport, tool_name, write_ours_on, write_plain, write_plain_served, write_rmcp_on,
};

/// The JSON-RPC requests the HTTP rows measure.
pub(crate) const HTTP_REQUESTS: [&str; 3] = ["tools/call", "tools/list", "ping"];

pub(crate) struct Settings {
    pub(crate) compile_runs: usize,
    /// Cold builds of each side and profile.
    pub(crate) cold_runs: usize,
    pub(crate) calls: usize,
    pub(crate) lists: usize,
    /// HTTP: each phase's warm-up and measured time.
    pub(crate) http_warmup: Duration,
    pub(crate) http_measure: Duration,
    /// HTTP: sessions opened to measure the RSS of one.
    pub(crate) http_sessions: usize,
    /// Peer: calls per operation.
    pub(crate) peer_calls: usize,
    /// The numbers of tools of the serving rows (10, 50, 200 unless
    /// `--tools=N,…` says otherwise, for a shorter run while developing).
    pub(crate) tools: Vec<usize>,
    /// The JSON-RPC requests of the HTTP rows (`tools/call`, `tools/list`,
    /// `ping` unless `--requests=…` says otherwise).
    pub(crate) requests: Vec<String>,
}

pub(crate) fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    if xs.is_empty() {
        f64::NAN
    } else {
        xs[xs.len() / 2]
    }
}

pub(crate) fn percentile(mut xs: Vec<f64>, p: f64) -> f64 {
    xs.sort_by(f64::total_cmp);
    if xs.is_empty() {
        return f64::NAN;
    }
    let i = ((xs.len() as f64 - 1.0) * p).round() as usize;
    xs[i.min(xs.len() - 1)]
}

pub(crate) fn workspace_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap_or(Path::new("."))
}

pub(crate) fn workspace_target() -> PathBuf {
    workspace_root().join("target")
}

pub(crate) fn cargo() -> Command {
    let mut c = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    c.env(
        "CARGO_TARGET_DIR",
        workspace_target().join("bench-work").join("target"),
    );
    c.env_remove("RUSTFLAGS");
    c
}

/// Runs cargo in `dir`; the elapsed wall time. Panics with cargo's output on failure.
pub(crate) fn timed_cargo(dir: &Path, args: &[&str]) -> Duration {
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

/// Builds each side in release, then lets the machine settle before any of
/// them is served: served right after its own build (and after the cold
/// builds), the first side of the 10-tool stdio rows came out up to 2.8×
/// slower than in a quiet run of the same binaries.
pub(crate) fn build_release(sides: &[Side]) {
    for side in sides {
        eprintln!("build: {}", side.package);
        timed_cargo(&side.dir, &["build", "--release"]);
    }
    settle();
}

/// Waits until what was written has reached the disk (`sync`), and a moment
/// more, so that what follows is measured on a quiet machine.
pub(crate) fn settle() {
    let _ = Command::new("sync").status();
    std::thread::sleep(Duration::from_secs(2));
}

pub(crate) struct Side {
    pub(crate) label: &'static str,
    pub(crate) dir: PathBuf,
    pub(crate) package: String,
}

impl Side {
    pub(crate) fn new(label: &'static str, name: String) -> Side {
        Side {
            label,
            dir: workspace_target().join("bench-work").join(&name),
            package: format!("bench-{name}"),
        }
    }

    pub(crate) fn release_binary(&self) -> PathBuf {
        workspace_target()
            .join("bench-work/target/release")
            .join(&self.package)
    }
}

/// Ours and rmcp's macros for `n` tools over `transport`.
pub(crate) fn sides(n: usize, transport: Transport) -> [Side; 2] {
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
pub(crate) fn plain(n: usize) -> Side {
    Side::new("plain", format!("plain-{n}"))
}

/// The same handlers in an empty server on rmcp: the floor of any server on
/// rmcp with them.
pub(crate) fn plain_served(n: usize) -> Side {
    Side::new("plain, served", format!("plain-served-{n}"))
}

pub(crate) fn generate(n: usize) {
    let paths = Paths::workspace();
    let lock = workspace_root().join("Cargo.lock");
    for transport in [Transport::Stdio, Transport::Http] {
        let [ours, rmcp] = sides(n, transport);
        write_ours_on(&ours.dir, n, &paths, transport).expect("write ours");
        write_rmcp_on(&rmcp.dir, n, transport).expect("write rmcp");
        for dir in [&ours.dir, &rmcp.dir] {
            let _ = std::fs::copy(&lock, dir.join("Cargo.lock"));
        }
    }
    let [plain, served] = [plain(n), plain_served(n)];
    write_plain(&plain.dir, n).expect("write plain");
    write_plain_served(&served.dir, n).expect("write plain, served");
    for dir in [&plain.dir, &served.dir] {
        let _ = std::fs::copy(&lock, dir.join("Cargo.lock"));
    }
}

/// Compile times of the handler crates (dependencies built): scratch, touch,
/// edit; for ours, rmcp's macros, the plain-handler floor and the same
/// handlers served by rmcp, in that order.
pub(crate) fn compile_times(n: usize, runs: usize) -> Vec<(String, [f64; 4])> {
    let mut rows = Vec::new();
    let mut results: Vec<[f64; 3]> = Vec::new();
    let [ours, rmcp] = sides(n, Transport::Stdio);
    for side in [ours, rmcp, plain(n), plain_served(n)] {
        eprintln!("compile: {} ({n} tools)", side.label);
        timed_cargo(&side.dir, &["build"]);
        let main = side.dir.join("src/main.rs");
        let original = std::fs::read_to_string(&main).expect("main.rs");
        let mut scratch = Vec::new();
        let mut touch = Vec::new();
        let mut edit = Vec::new();
        for run in 0..runs {
            // The file as written, so that the touch below changes nothing
            // but its time: left edited by the run before, writing it back
            // would be an edit, and every run after the first measured two.
            std::fs::write(&main, &original).expect("restore");
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
            [results[0][i], results[1][i], results[2][i], results[3][i]],
        ));
    }
    rows
}

/// CPU time (user + system) of a process so far, in seconds.
pub(crate) fn cpu_seconds(pid: u32, ticks: f64) -> f64 {
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
pub(crate) fn cpu_ns_seconds(pid: u32) -> f64 {
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

pub(crate) fn peak_rss_kib(pid: u32) -> f64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(f64::NAN)
}

pub(crate) fn clock_ticks() -> f64 {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8_lossy(&o.stdout).trim().parse().ok())
        .unwrap_or(100.0)
}

/// The criterion median of a benchmark, in nanoseconds.
pub(crate) fn criterion_median(id: &str) -> f64 {
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

pub(crate) fn row(out: &mut String, what: &str, ours: f64, rmcp: f64, unit: &str, digits: usize) {
    let ratio = ours / rmcp;
    out.push_str(&format!(
        "| {what} | {ours:.digits$} {unit} | {rmcp:.digits$} {unit} | {ratio:.2}× |\n"
    ));
}

/// A row of the floor table: ours against a floor, with the ratio and the
/// difference.
pub(crate) fn floor_row(
    out: &mut String,
    what: &str,
    ours: f64,
    floor: f64,
    unit: &str,
    digits: usize,
) {
    let ratio = ours / floor;
    let over = ours - floor;
    out.push_str(&format!(
        "| {what} | {ours:.digits$} {unit} | {floor:.digits$} {unit} | {ratio:.2}× | {over:+.digits$} {unit} |\n"
    ));
}
