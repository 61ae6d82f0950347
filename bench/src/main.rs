//! The benchmark suite, side by side with rmcp's `#[tool]` macros, in one run on
//! one machine; prints a Markdown table of medians and ratios (ours / rmcp).
//!
//! ```text
//! cargo run --release -p toolmetadata-bench            # everything
//! cargo run --release -p toolmetadata-bench -- --quick # fewer runs and calls, shorter phases
//! cargo run --release -p toolmetadata-bench -- --http  # only the HTTP rows (also --compile, --stdio, --peer, --cold, --criterion, --policy)
//! cargo run --release -p toolmetadata-bench -- --http --quick --tools=200 --requests=ping  # one request's rows
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
mod common;
mod http;
mod http_rows;
mod peer;
mod policy;
mod stdio;

use crate::common::*;

use std::process::Stdio;
use std::time::Duration;

use toolmetadata_bench::write_rmcp_floor;

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

/// A user's first build of a 10-tool stdio server, nothing cached, debug and
/// release, wall and CPU time: ours with only the features its tools use
/// (the minimal server), the same with every protocol feature (the server of
/// the earlier rows), and rmcp's macros; rmcp alone with the minimal
/// server's features (the floor), what any server on the runtime compiles
/// first; and the same serving a handler with nothing in it (the serving
/// floor), what any server on rmcp compiles, with macros or without. The
/// five builds of a profile alternate, `runs` times each, and each row is
/// their median: the machine's speed drifts over minutes.
fn cold_rows(table: &mut String, runs: usize) {
    let [ours, rmcp] = sides(10, toolmetadata_bench::Transport::Stdio);
    let full = workspace_target().join("bench-work").join("ours-full-10");
    toolmetadata_bench::write_ours_full_featured(
        &full,
        10,
        &toolmetadata_bench::Paths::workspace(),
    )
    .expect("write the full-featured server");
    let _ = std::fs::copy(workspace_root().join("Cargo.lock"), full.join("Cargo.lock"));
    let floor = workspace_target().join("bench-work").join("rmcp-floor");
    let serving = workspace_target()
        .join("bench-work")
        .join("rmcp-serve-floor");
    for (dir, serve) in [(&floor, false), (&serving, true)] {
        write_rmcp_floor(dir, serve).expect("write an rmcp floor");
        let _ = std::fs::copy(workspace_root().join("Cargo.lock"), dir.join("Cargo.lock"));
    }
    let target = workspace_target().join("bench-work").join("cold-target");
    for (profile, release) in [("debug", false), ("release", true)] {
        let mut costs: [Vec<cold::Cost>; 5] = Default::default();
        for run in 0..runs {
            eprintln!("cold build, 10 tools, {profile} ({}/{runs})", run + 1);
            for (i, dir) in [&ours.dir, &rmcp.dir, &floor, &full, &serving]
                .into_iter()
                .enumerate()
            {
                costs[i].push(cold::cold_build(dir, &target, release));
            }
        }
        let [a, b, f, full, serve] = costs.map(|c| {
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
                &format!(
                    "cold build, rmcp alone with the minimal server's features ({profile}), {what}"
                ),
                floor,
                rmcp,
                "s",
                1,
            );
        }
        for (what, serve, rmcp) in [("wall", serve.0, b.0), ("CPU", serve.1, b.1)] {
            row(
                table,
                &format!(
                    "cold build, rmcp serving an empty handler with those features ({profile}), {what}"
                ),
                serve,
                rmcp,
                "s",
                1,
            );
        }
        for (what, full, rmcp) in [("wall", full.0, b.0), ("CPU", full.1, b.1)] {
            row(
                table,
                &format!("cold build 10 tools, every protocol feature ({profile}), {what}"),
                full,
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
    let mut requests: Vec<String> = HTTP_REQUESTS.iter().map(|r| r.to_string()).collect();
    for a in &args {
        if let Some(list) = a.strip_prefix("--requests=") {
            requests = list
                .split(',')
                .filter(|r| HTTP_REQUESTS.contains(r))
                .map(str::to_owned)
                .collect();
            continue;
        }
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
                "unknown argument {a:?}; expected --quick, --tools=10,50,200, --requests=tools/call,tools/list,ping and any of --compile, --stdio, --http, --peer, --cold, --criterion, --policy (none: all)"
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
            requests: Vec::new(),
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
            requests: Vec::new(),
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
    settings.requests = requests;

    if sections.compile {
        for (what, [ours, rmcp, plain, served]) in compile_times(200, settings.compile_runs) {
            row(&mut table, &what, ours, rmcp, "s", 2);
            floor_row(
                &mut floors,
                &format!("{what}: against the plain-handler crate"),
                ours,
                plain,
                "s",
                2,
            );
            floor_row(
                &mut floors,
                &format!("{what}: against the plain handlers in an empty rmcp server"),
                ours,
                served,
                "s",
                2,
            );
            // The same floor against rmcp's macros: how far below rmcp any
            // server on rmcp with these handlers can go.
            row(
                &mut table,
                &format!("{what}, plain handlers in an empty rmcp server"),
                served,
                rmcp,
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
