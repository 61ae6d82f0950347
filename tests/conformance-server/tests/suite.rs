//! The official MCP conformance suite (`@modelcontextprotocol/conformance`,
//! pinned in `suite/package.json` with the Node.js 22 it needs) against the
//! conformance server: what each protocol revision requires, each at its
//! own wire, and the extensions' scenarios. A scenario or check the server
//! does not pass yet is listed, with why, in that run's
//! `expected-failures/*.yml`; the suite then fails on any other failure and
//! on a listed one that passes (a stale entry), so the lists only shrink.

use std::path::{Path, PathBuf};
use std::process::Command;

use toolmetadata_tests::mcp::http_server;

const BIN: &str = env!("CARGO_BIN_EXE_conformance-server");

fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The pinned suite and its Node, installed by `npm ci` on first use (CI
/// runs it beforehand).
fn suite() -> (PathBuf, PathBuf) {
    let dir = crate_dir().join("suite");
    let node = dir.join("node_modules/.bin/node");
    let cli = dir.join("node_modules/@modelcontextprotocol/conformance/dist/index.js");
    if !node.exists() || !cli.exists() {
        let status = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(&dir)
            .status()
            .expect("npm: the conformance suite is installed with npm ci");
        assert!(status.success(), "npm ci in {} failed", dir.display());
    }
    (node, cli)
}

/// Runs the suite with `selection` against a fresh server; its output when
/// it fails.
async fn run(selection: &[&str], baseline: &str) {
    let (node, cli) = suite();
    let server = http_server(BIN, &[]).await;
    let results = tempfile::tempdir().expect("tempdir");
    let baseline = crate_dir().join("expected-failures").join(baseline);
    let out = tokio::process::Command::new(&node)
        .arg(&cli)
        .arg("server")
        .args(["--url", &server.url])
        .args(selection)
        .arg("--expected-failures")
        .arg(&baseline)
        .env("NO_COLOR", "1")
        .current_dir(results.path())
        .output()
        .await
        .expect("run the conformance suite");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "the conformance suite ({}) failed beyond {}:\n{stdout}\n{stderr}",
        selection.join(" "),
        baseline.display()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_2025_11_25_requires() {
    run(&["--requirements", "2025-11-25"], "2025-11-25.yml").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_2026_07_28_requires() {
    run(&["--requirements", "2026-07-28"], "2026-07-28.yml").await;
}
