//! The official MCP conformance suite (`@modelcontextprotocol/conformance`,
//! pinned in `suite/package.json` with the Node.js 22 it needs) against the
//! conformance server: what each protocol revision requires, each at its
//! own wire; and, one by one, the scenarios a revision runs without scoring
//! them (the tasks extension's, those added after its release, those still
//! pending upstream), which `--requirements` leaves out of its verdict.
//!
//! A scenario or check the server does not pass yet is listed, with why, in
//! `expected-failures/*.yml`; the suite then fails on any other failure and
//! on a listed one that passes (a stale entry), so the lists only shrink.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use toolmetadata_tests::mcp::http_server;

const BIN: &str = env!("CARGO_BIN_EXE_conformance-server");

/// How long one run of the suite may take.
const RUN_TIMEOUT: Duration = Duration::from_secs(600);

fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The pinned suite and its Node, installed by `npm ci` on first use (CI
/// runs it beforehand), once for all the tests of this binary.
fn suite() -> (PathBuf, PathBuf) {
    static INSTALL: Mutex<()> = Mutex::new(());
    let _once = INSTALL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = crate_dir().join("suite");
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

/// Runs the suite with `selection` against a fresh server, judged against
/// `baseline`; its output when it fails.
async fn run(selection: &[&str], baseline: &str) {
    let (node, cli) = tokio::task::spawn_blocking(suite)
        .await
        .expect("install the suite");
    let server = http_server(BIN, &[]).await;
    let results = tempfile::tempdir().expect("tempdir");
    let baseline = crate_dir().join("expected-failures").join(baseline);
    let suite = tokio::process::Command::new(&node)
        .arg(&cli)
        .arg("server")
        .args(["--url", &server.url])
        .args(selection)
        .arg("--expected-failures")
        .arg(&baseline)
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
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_2025_11_25_requires() {
    run(&["--requirements", "2025-11-25"], "2025-11-25.yml").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_2026_07_28_requires() {
    run(&["--requirements", "2026-07-28"], "2026-07-28.yml").await;
}

/// What each revision runs but does not score, one scenario at a time, so
/// that each is judged.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_the_revisions_run_unscored() {
    let unscored = [
        ("server-session-lifecycle", "2025-11-25"),
        ("server-sse-polling", "2025-11-25"),
        ("json-schema-2020-12", "2025-11-25"),
        ("json-schema-2020-12", "2026-07-28"),
        ("http-header-validation", "2026-07-28"),
        ("http-custom-header-server-validation", "2026-07-28"),
        ("tasks-lifecycle", "2026-07-28"),
        ("tasks-capability-negotiation", "2026-07-28"),
        ("tasks-wire-fields", "2026-07-28"),
        ("tasks-request-state-removal", "2026-07-28"),
        ("tasks-mrtr-input", "2026-07-28"),
        ("tasks-request-headers", "2026-07-28"),
        ("tasks-dispatch-and-envelope", "2026-07-28"),
        ("tasks-status-notifications", "2026-07-28"),
        ("tasks-required-task-error", "2026-07-28"),
        ("tasks-mrtr-composition", "2026-07-28"),
    ];
    for (scenario, revision) in unscored {
        run(
            &[
                "--scenario",
                scenario,
                "--spec-version",
                revision,
                "--force",
            ],
            "unscored.yml",
        )
        .await;
    }
}
