//! The official MCP Python SDK client (`mcp` from PyPI, pinned), installed into
//! a venv under `target/` on first use. When Python or the package cannot be
//! had, the caller's test fails: it never skips.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Mutex;

/// The `mcp` version the tests drive.
pub const MCP_VERSION: &str = "2.3.0";

/// Runs a command and fails the test, with its output, unless it succeeds.
pub fn run(command: &mut Command) -> Output {
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("cannot run {command:?}: {e}"));
    assert!(
        output.status.success(),
        "{command:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| crate::cargo_project::workspace().join("target"))
}

/// The venv's python, with `mcp` installed at [`MCP_VERSION`].
pub fn python() -> PathBuf {
    // One install at a time within a test binary.
    static INSTALL: Mutex<()> = Mutex::new(());
    let _guard = INSTALL.lock().unwrap_or_else(|e| e.into_inner());
    let venv = target_dir()
        .join("tmp")
        .join(format!("mcp-{MCP_VERSION}-venv"));
    let python = venv.join("bin").join("python");
    let check =
        format!("import importlib.metadata as m; assert m.version('mcp') == '{MCP_VERSION}'");
    let installed = Command::new(&python)
        .args(["-c", &check])
        .output()
        .is_ok_and(|o| o.status.success());
    if !installed {
        run(Command::new("python3")
            .args(["-m", "venv", "--clear"])
            .arg(&venv));
        run(Command::new(&python).args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            &format!("mcp=={MCP_VERSION}"),
        ]));
        run(Command::new(&python).args(["-c", &check]));
    }
    python
}

/// Runs a client script with the venv's python; its last line of stdout is
/// parsed as JSON.
pub fn run_client(script: &Path, args: &[&str]) -> serde_json::Value {
    let output = run(Command::new(python()).arg(script).args(args));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let last = stdout.lines().last().unwrap_or_default();
    serde_json::from_str(last).unwrap_or_else(|e| panic!("bad report {last:?}: {e}"))
}
