//! The official MCP conformance suite (`@modelcontextprotocol/conformance`,
//! pinned with the Node.js 22 it needs in `tests/conformance-server/suite`),
//! run against a server's URL and judged against an expected-failures file.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

/// How long one run of the suite may take.
pub const RUN_TIMEOUT: Duration = Duration::from_secs(600);

/// Where the pinned suite lives.
pub fn suite_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance-server/suite")
}

/// The suite's Node and its command line, installed by `npm ci` on first
/// use (CI runs it beforehand), once for all the tests of a binary.
fn installed() -> (PathBuf, PathBuf) {
    static INSTALL: Mutex<()> = Mutex::new(());
    let _once = INSTALL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = suite_dir();
    let node = dir.join("node_modules/.bin/node");
    let cli = dir.join("node_modules/@modelcontextprotocol/conformance/dist/index.js");
    if !node.exists() || !cli.exists() {
        let status = std::process::Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(&dir)
            .status()
            .expect("npm: the conformance suite is installed with npm ci");
        assert!(status.success(), "npm ci in {} failed", dir.display());
    }
    (node, cli)
}

/// Runs the suite's server scenarios chosen by `selection` (its command-line
/// options) against `url`, judged against `baseline` (an expected-failures
/// file); fails the test, with the suite's output, when it fails. Returns
/// that output (each check's line, and the totals), for a test to see what
/// was skipped.
pub async fn run(url: &str, selection: &[&str], baseline: &Path) -> String {
    let (node, cli) = tokio::task::spawn_blocking(installed)
        .await
        .expect("install the suite");
    let results = tempfile::tempdir().expect("tempdir");
    let suite = tokio::process::Command::new(&node)
        .arg(&cli)
        .arg("server")
        .args(["--url", url])
        .args(selection)
        .arg("--expected-failures")
        .arg(baseline)
        .env("NO_COLOR", "1")
        .current_dir(results.path())
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(RUN_TIMEOUT, suite)
        .await
        .unwrap_or_else(|_| {
            panic!(
                "the suite ({}) ran past {RUN_TIMEOUT:?}",
                selection.join(" ")
            )
        })
        .expect("run the conformance suite");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "the conformance suite ({}) failed beyond {}:\n{stdout}\n{stderr}",
        selection.join(" "),
        baseline.display()
    );
    stdout.into_owned()
}
