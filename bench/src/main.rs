//! The benchmark suite, side by side with rmcp's `#[tool]` macros, in one run on
//! one machine; prints a Markdown table of medians and ratios (ours / rmcp).
//!
//! ```text
//! cargo run --release -p toolmetadata-bench            # everything
//! cargo run --release -p toolmetadata-bench -- --quick # fewer runs and calls, shorter phases
//! cargo run --release -p toolmetadata-bench -- --http  # only the HTTP rows (also --compile, --stdio, --peer, --cold, --criterion, --policy)
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
mod http_rows;
mod peer;
mod policy;
mod stdio;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use toolmetadata_bench::{
    Paths, Transport, call_arguments, tool_name, write_ours_on, write_plain, write_rmcp_floor,
    write_rmcp_on,
};

struct Settings {
    compile_runs: usize,
    /// Cold builds of each side and profile.
    cold_runs: usize,
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

/// The flags that pick parts of the suite.
const SECTION_FLAGS: [&str; 7] = [
    "--compile",
    "--stdio",
    "--http",
    "--peer",
    "--cold",
    "--criterion",
    "--policy",
];

/// The parts of the suite to run; all of them without a flag.
struct Sections {
    compile: bool,
    stdio: bool,
    http: bool,
    peer: bool,
    criterion: bool,
    cold: bool,
    /// What `[limits]` and telemetry cost a call.
    policy: bool,
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

fn workspace_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap_or(Path::new("."))
}

fn workspace_target() -> PathBuf {
    workspace_root().join("target")
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

/// Builds each side in release, then lets the machine settle before any of
/// them is served: served right after its own build (and after the cold
/// builds), the first side of the 10-tool stdio rows came out up to 2.8×
/// slower than in a quiet run of the same binaries.
fn build_release(sides: &[Side]) {
    for side in sides {
        eprintln!("build: {}", side.package);
        timed_cargo(&side.dir, &["build", "--release"]);
    }
    settle();
}

/// Waits until what was written has reached the disk (`sync`), and a moment
/// more, so that what follows is measured on a quiet machine.
fn settle() {
    let _ = Command::new("sync").status();
    std::thread::sleep(Duration::from_secs(2));
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
    let lock = workspace_root().join("Cargo.lock");
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

/// A user's first build of a 10-tool stdio server, nothing cached: ours and
/// rmcp's macros, debug and release, wall and CPU time; and rmcp alone with
/// the runtime's features, what any server on the runtime compiles first.
/// The three builds of a profile alternate, `runs` times each, and each row
/// is their median: the machine's speed drifts over minutes.
fn cold_rows(table: &mut String, runs: usize) {
    let [ours, rmcp] = sides(10, toolmetadata_bench::Transport::Stdio);
    let floor = workspace_target().join("bench-work").join("rmcp-floor");
    write_rmcp_floor(&floor).expect("write the rmcp floor");
    let _ = std::fs::copy(
        workspace_root().join("Cargo.lock"),
        floor.join("Cargo.lock"),
    );
    let target = workspace_target().join("bench-work").join("cold-target");
    for (profile, release) in [("debug", false), ("release", true)] {
        let mut costs: [Vec<cold::Cost>; 3] = Default::default();
        for run in 0..runs {
            eprintln!("cold build, 10 tools, {profile} ({}/{runs})", run + 1);
            for (i, dir) in [&ours.dir, &rmcp.dir, &floor].into_iter().enumerate() {
                costs[i].push(cold::cold_build(dir, &target, release));
            }
        }
        let [a, b, f] = costs.map(|c| {
            (
                median(c.iter().map(|c| c.wall).collect()),
                median(c.iter().map(|c| c.cpu).collect()),
            )
        });
        for (what, ours, rmcp) in [("wall", a.0, b.0), ("CPU", a.1, b.1)] {
            row(
                table,
                &format!("cold build 10 tools, nothing cached ({profile}), {what}"),
                ours,
                rmcp,
                "s",
                1,
            );
        }
        for (what, floor, rmcp) in [("wall", f.0, b.0), ("CPU", f.1, b.1)] {
            row(
                table,
                &format!("cold build, rmcp alone with the runtime's features ({profile}), {what}"),
                floor,
                rmcp,
                "s",
                1,
            );
        }
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
        if a != "--quick" && !SECTION_FLAGS.contains(&a.as_str()) {
            eprintln!(
                "unknown argument {a:?}; expected --quick, --tools=10,50,200 and any of --compile, --stdio, --http, --peer, --cold, --criterion, --policy (none: all)"
            );
            std::process::exit(2);
        }
    }
    let quick = has("--quick");
    let all = !SECTION_FLAGS.iter().any(|f| has(f));
    let sections = Sections {
        compile: all || has("--compile"),
        stdio: all || has("--stdio"),
        http: all || has("--http"),
        peer: has("--peer") || (all && peer::npm_available().is_ok()),
        criterion: has("--criterion") || (all && !quick),
        cold: has("--cold") || (all && !quick),
        policy: all || has("--policy"),
    };
    if all && let Err(why) = peer::npm_available() {
        eprintln!("peer rows skipped: {why}");
    }
    let mut settings = if quick {
        Settings {
            compile_runs: 1,
            cold_runs: 1,
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
            cold_runs: 2,
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
        cold_rows(&mut table, settings.cold_runs);
    }

    let ticks = clock_ticks();
    if sections.stdio {
        stdio::stdio_rows(&settings, ticks, &mut table, &mut floors).await;
    }
    let http_table = if sections.http {
        Some(http_rows::http_rows(&settings, &mut floors).await)
    } else {
        None
    };
    let policy_table = if sections.policy {
        match policy::rows(&settings, ticks).await {
            Ok(table) => Some(table),
            Err(e) => {
                eprintln!("policy rows left out: {e}");
                None
            }
        }
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
    if let Some(policy) = policy_table {
        println!("Policy: limits and telemetry against none:\n\n{policy}");
    }
    if let Some(peer) = peer_table {
        println!("Peer: example-server against the Node filesystem server, stdio:\n\n{peer}");
    }
}
