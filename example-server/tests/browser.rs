//! The directory_tree view as an MCP App in a real browser: headless Chromium
//! loads a test host built on the ext-apps SDK's `AppBridge`
//! (example-server/view/test/), which connects to example-server over HTTP,
//! calls directory_tree and renders the view from `resources/read` in a
//! sandboxed iframe. The checks themselves are in `view/test/run.mjs`.
//!
//! Needs Node, `npm ci` in example-server/view and Chromium (Debian's
//! `chromium`); `.ci/run` installs them. Without them the tests fail when `CI`
//! is set and are skipped (with a message) elsewhere.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use toolmetadata_tests::mcp::http_server;

const BIN: &str = env!("CARGO_BIN_EXE_example-server");

fn view_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("view")
}

fn chromium() -> PathBuf {
    std::env::var_os("CHROMIUM").map_or_else(|| PathBuf::from("/usr/bin/chromium"), PathBuf::from)
}

/// True when Node, the view's packages and Chromium are there. A missing one
/// fails the test under CI, where `.ci/run` must have installed it, so the
/// browser test can never pass there by not running.
fn browser_tools_present() -> bool {
    let node = Command::new("node")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    let mut missing = Vec::new();
    if !node {
        missing.push("node".to_owned());
    }
    if !view_dir().join("node_modules/playwright-core").is_dir() {
        missing.push("example-server/view/node_modules (npm ci there)".to_owned());
    }
    if !chromium().is_file() {
        missing.push(format!(
            "{} (apt-get install chromium)",
            chromium().display()
        ));
    }
    toolmetadata_tests::has_all("the browser test", &missing)
}

/// A directory holding the root the server is given, `project/`, with the
/// files run.mjs looks for.
fn workspace() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("project");
    for (path, text) in [
        ("README.md", "# Demo\nA workspace for the tree view.\n"),
        ("src/main.rs", "fn main() {\n    println!(\"Hello\");\n}\n"),
        (
            "src/lib.rs",
            "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n",
        ),
        ("docs/guide/intro.md", "# Intro\nRead me first.\n"),
        ("docs/index.md", "# Docs\n"),
    ] {
        let p = root.join(path);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, text).expect("write");
    }
    (dir, root)
}

/// Finding 8 of the third red team: a file name holding `└── ` after an
/// escaped newline made the view's tree parser compute a fractional level
/// and crash. `view/test/parse.mjs` feeds it such names (node, no browser).
#[test]
fn the_tree_parser_cannot_be_fooled_by_a_name() {
    let node = Command::new("node")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    let missing = if node {
        vec![]
    } else {
        vec!["node".to_owned()]
    };
    if !toolmetadata_tests::has_all("the tree parser's test", &missing) {
        return;
    }
    node_succeeds(&["test/parse.mjs"]);
}

/// Runs `node ARGS` in the view's directory, and checks that it succeeds.
fn node_succeeds(args: &[&str]) {
    let out = Command::new("node")
        .args(args)
        .current_dir(view_dir())
        .output()
        .expect("run node");
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_served_view_is_the_build_of_its_source() {
    if !browser_tools_present() {
        return;
    }
    node_succeeds(&["build.mjs", "--check"]);
}

/// Runs `view/test/run.mjs` against the server at `url`, screenshots in
/// `shots`, the real view or the mutant `mutant`: its exit code and output.
async fn run_browser(url: &str, shots: &Path, mutant: Option<&str>) -> (Option<i32>, String) {
    let mut command = tokio::process::Command::new("node");
    command.arg("test/run.mjs").arg(url).arg(shots);
    if let Some(mutant) = mutant {
        command.args(["--mutant", mutant]);
    }
    let run = command
        .env("CHROMIUM", chromium())
        .current_dir(view_dir())
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(Duration::from_secs(180), run)
        .await
        .expect("the browser test finishes within 3 minutes")
        .expect("run node");
    let report = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    println!("{report}");
    (out.status.code(), report)
}

#[tokio::test(flavor = "multi_thread")]
async fn the_tree_view_works_in_a_host_in_chromium() {
    if !browser_tools_present() {
        return;
    }
    let (_dir, root) = workspace();
    let server = http_server(BIN, &["--root", root.to_str().expect("utf-8")]).await;
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("tree_view");
    let (code, report) = run_browser(&server.url, &shots, None).await;
    assert_eq!(code, Some(0), "the browser test failed:\n{report}");
    for shot in ["tree_view.png", "tree_view_dark.png"] {
        let png = std::fs::read(shots.join(shot)).expect("the screenshot was saved");
        assert!(png.starts_with(b"\x89PNG"), "{shot} is a PNG");
    }
    println!("screenshots: {}", shots.display());
}

/// The browser test is worth something only if it fails for the faults the
/// old view had: no handshake, or the tool result not shown.
#[tokio::test(flavor = "multi_thread")]
async fn the_browser_test_fails_for_a_view_without_handshake_or_result() {
    if !browser_tools_present() {
        return;
    }
    let (_dir, root) = workspace();
    let server = http_server(BIN, &["--root", root.to_str().expect("utf-8")]).await;
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("tree_view_mutants");
    for (mutant, expected) in [
        ("skip-handshake", "without ui/initialize"),
        (
            "ignore-result",
            "FAIL the view shows the directory_tree result",
        ),
    ] {
        let (code, report) = run_browser(&server.url, &shots, Some(mutant)).await;
        // 1 is a failed check; anything else would be the script breaking.
        assert_eq!(code, Some(1), "mutant {mutant} was not caught:\n{report}");
        assert!(
            report.contains(&format!("mutant {mutant}:")) && report.contains(expected),
            "mutant {mutant} failed for another reason:\n{report}"
        );
    }
}
