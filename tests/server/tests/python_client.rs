//! The official MCP Python SDK client (`mcp` 2.3.0 from PyPI) lists and calls
//! the test server's tools over stdio and Streamable HTTP, in its `auto` and
//! `legacy` modes. The harness installs the package into a venv under
//! `target/`; when Python or the package cannot be had, the test fails.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;
use serde_json::{Value, json};

const MCP_VERSION: &str = "2.3.0";

fn run(command: &mut Command) -> std::process::Output {
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

/// The venv's python, with `mcp` installed at the pinned version.
fn python() -> PathBuf {
    let venv = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("mcp-{MCP_VERSION}-venv"));
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

fn client(python: &Path, mode: &str, target: &[&str]) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/client.py");
    let output = run(Command::new(python).arg(script).arg(mode).args(target));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let last = stdout.lines().last().unwrap_or_default();
    serde_json::from_str(last).unwrap_or_else(|e| panic!("bad report {last:?}: {e}"))
}

fn expected() -> Value {
    json!({
        "tools": ["boom", "cancellations", "echo", "execute_tool", "fail", "greet", "info", "progress", "slow", "stats", "tool_search"],
        "echo": {"text": "hi hi", "is_error": false},
        "stats": {"structured": {"count": 3, "mean": 3.0}, "is_error": false},
        "greet": "hello Py",
        "bad": {
            "text": "invalid arguments for tool `echo` (2 errors):\n- missing required argument `text`\n- `times`: expected an integer, got string \"many\"",
            "is_error": true
        }
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_client_over_stdio_and_http_in_both_modes() {
    let python = python();
    for mode in ["auto", "legacy"] {
        let report = client(&python, mode, &["stdio", BIN]);
        assert_eq!(report, expected(), "stdio, {mode}");
    }
    let server = http_server(&[]).await;
    for mode in ["auto", "legacy"] {
        let report = client(&python, mode, &["http", &server.url]);
        assert_eq!(report, expected(), "http, {mode}");
    }
}
