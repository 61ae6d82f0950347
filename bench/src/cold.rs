//! Cold builds: a user's first `cargo build` of a server, with nothing in its
//! target directory (the crates already downloaded, as after `cargo fetch`),
//! ours against rmcp's macros, debug and release.
//!
//! Wall time is what the user waits; CPU time (user + system of every process
//! cargo ran, which `/proc/self/stat` counts for waited-for children) is what
//! the build costs, and moves less with what else the machine is doing.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

/// One cold build: seconds of wall time and of CPU time.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Cost {
    pub(crate) wall: f64,
    pub(crate) cpu: f64,
}

/// Builds the crate in `dir` into the empty target directory `target`
/// (removed before and after, so that nothing is reused and the disk is given
/// back), with `--release` when `release`.
pub(crate) fn cold_build(dir: &Path, target: &Path, release: bool) -> Cost {
    let _ = std::fs::remove_dir_all(target);
    let mut args = vec!["build", "--quiet"];
    if release {
        args.push("--release");
    }
    let cpu_before = children_cpu_seconds();
    let start = Instant::now();
    let out = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .args(&args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target)
        .env("CARGO_INCREMENTAL", "0")
        .env_remove("RUSTFLAGS")
        .stdout(Stdio::null())
        .output()
        .expect("cargo runs");
    let wall = start.elapsed().as_secs_f64();
    let cpu = children_cpu_seconds() - cpu_before;
    assert!(
        out.status.success(),
        "cargo {args:?} in {}:\n{}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let _ = std::fs::remove_dir_all(target);
    Cost { wall, cpu }
}

/// User + system seconds of this process's waited-for children (and theirs):
/// fields 16 and 17 of `/proc/self/stat`.
fn children_cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // The command name (field 2) may hold spaces; the fields after it are
    // counted from its closing parenthesis.
    let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = [13, 14]
        .iter()
        .filter_map(|&i| fields.get(i)?.parse::<f64>().ok())
        .sum();
    ticks / clock_ticks()
}

fn clock_ticks() -> f64 {
    Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(100.0)
}
