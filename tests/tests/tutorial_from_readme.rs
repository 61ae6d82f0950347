//! The README's tutorial as a new user makes it: a fresh crate beside a
//! checkout of this repository, its `Cargo.toml` and every file pasted from
//! the tutorial section's code blocks as they are (the checkout's path put
//! in for `../toolmetadata-rs`); `cargo test` passes, and the binary serves
//! Streamable HTTP with `--http ADDR` and with `--http=ADDR`; with
//! `RUST_LOG=info` its log has one access line per `tools/call`, and no
//! colour in a pipe.

use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::json;
use tokio::io::{AsyncBufReadExt, BufReader};
use toolmetadata_tests::cargo_project::{offline_first, workspace};
use toolmetadata_tests::mcp::{call, http_client, next_log_line, text};

/// The tutorial section of the README: from its heading to the next one.
fn tutorial_section(readme: &str) -> &str {
    let start = readme.find("## Tutorial").expect("a tutorial section");
    let rest = &readme[start + 2..];
    let end = rest.find("\n## ").map_or(rest.len(), |at| at + 1);
    &rest[..end]
}

/// The code block after `marker` (a line of its own) in `text`.
fn block_after<'a>(text: &'a str, marker: &str) -> &'a str {
    let at = text.find(marker).expect("the marker") + marker.len();
    let fence = at + text[at..].find("```").expect("a code block");
    let body = fence + text[fence..].find('\n').expect("the fence line") + 1;
    let end = body + text[body..].find("\n```").expect("its end") + 1;
    &text[body..end]
}

/// Writes the crate's files from the section's blocks into `dir`.
fn paste(section: &str, dir: &Path) -> usize {
    let checkout = workspace();
    let manifest = block_after(section, "<!-- cargo-toml: tests/tutorial/Cargo.toml -->").replace(
        "\"../toolmetadata-rs/",
        &format!("\"{}/", checkout.display()),
    );
    // A crate of its own, not a member of the checkout's workspace.
    std::fs::write(dir.join("Cargo.toml"), format!("{manifest}\n[workspace]\n"))
        .expect("Cargo.toml");
    let mut files = 0;
    let mut rest = section;
    while let Some(at) = rest.find("<!-- file: tests/tutorial/") {
        let line_end = at + rest[at..].find('\n').expect("the marker's line");
        let marker = &rest[at..line_end];
        let path = marker
            .trim_start_matches("<!-- file: tests/tutorial/")
            .trim_end_matches(" -->");
        let target = dir.join(path);
        std::fs::create_dir_all(target.parent().expect("a directory")).expect("mkdir");
        std::fs::write(&target, block_after(rest, marker)).expect("a file");
        files += 1;
        rest = &rest[line_end..];
    }
    files
}

fn cargo(dir: &Path, args: &[&str]) -> std::process::Output {
    offline_first(|flags| {
        let mut command = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
        command
            .args(flags)
            .args(args)
            .current_dir(dir)
            .env(
                "CARGO_TARGET_DIR",
                workspace().join("target").join("real-cargo"),
            )
            .env_remove("RUSTFLAGS")
            .env("CARGO_TERM_COLOR", "never");
        command
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_readmes_tutorial_pasted_into_a_fresh_crate_builds_tests_and_serves() {
    let readme = std::fs::read_to_string(workspace().join("README.md")).expect("README.md");
    let dir = tempfile::tempdir().expect("a directory");
    let files = paste(tutorial_section(&readme), dir.path());
    assert_eq!(
        files, 8,
        "four tool files, build.rs, src/lib.rs, src/main.rs, tests/tools.rs"
    );
    // The workspace's lock pins what the crate resolves to: nothing is
    // downloaded.
    std::fs::copy(
        workspace().join("Cargo.lock"),
        dir.path().join("Cargo.lock"),
    )
    .expect("lock");

    let tested = cargo(dir.path(), &["test"]);
    let said = String::from_utf8_lossy(&tested.stderr);
    assert!(tested.status.success(), "cargo test failed:\n{said}");
    let out = String::from_utf8_lossy(&tested.stdout);
    assert!(out.contains("test result: ok. 4 passed"), "{out}");

    let built = cargo(dir.path(), &["build"]);
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let bin = workspace().join("target/real-cargo/debug/notes");
    logs_a_line_per_call_without_colour_in_a_pipe(&bin).await;
    for args in [vec!["--http", "127.0.0.1:0"], vec!["--http=127.0.0.1:0"]] {
        let mut child = tokio::process::Command::new(&bin)
            .args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("the server starts");
        let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
        let url = loop {
            let line = next_log_line(&mut lines, &format!("{args:?}: where it listens")).await;
            if let Some(at) = line.find("listening on ") {
                break line[at + "listening on ".len()..].trim().to_owned();
            }
        };
        let (client, _) = http_client(&url).await;
        let found = call(&client, "search_notes", json!({"query": "milk"})).await;
        assert_eq!(text(&found), "buy milk\nmilk the cow", "{args:?}");
        client.cancel().await.expect("close");
    }
}

/// Three calls over stdio with `RUST_LOG=info` and stderr a pipe (the
/// last one asking for a task): an access line for each, each naming its outcome and duration, and not one escape
/// code (the crate's `tracing-subscriber` has its `ansi` feature, as a
/// user's does by default).
async fn logs_a_line_per_call_without_colour_in_a_pipe(bin: &Path) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut child = tokio::process::Command::new(bin)
        .env("RUST_LOG", "info")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the server starts");
    let requests = [
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "pipe", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "search_notes", "arguments": {"query": "milk"}}}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "search_notes", "arguments": {"query": ""}}}),
        // A task asked for the 2025-11-25 way has its line too.
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "count_words", "arguments": {}, "task": {"ttl": 60000}}}),
    ];
    let mut stdin = child.stdin.take().expect("stdin");
    for request in requests {
        stdin
            .write_all(format!("{request}\n").as_bytes())
            .await
            .expect("write");
    }
    let mut stderr = child.stderr.take().expect("stderr");
    let mut log = String::new();
    // Both calls answered: then stdin closes and the server ends.
    let read = tokio::time::timeout(std::time::Duration::from_secs(30), async {
        let mut chunk = [0u8; 4096];
        while log.matches("toolmetadata::access").count() < 3 {
            let n = stderr.read(&mut chunk).await.expect("read");
            assert!(n > 0, "the log ended early:\n{log}");
            log.push_str(&String::from_utf8_lossy(&chunk[..n]));
        }
    })
    .await;
    assert!(read.is_ok(), "no three access lines:\n{log}");
    drop(stdin);
    let _ = tokio::time::timeout(std::time::Duration::from_secs(10), child.wait()).await;
    assert!(!log.contains('\u{1b}'), "escape codes in a pipe:\n{log}");
    let calls: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("toolmetadata::access: tools/call search_notes"))
        .collect();
    assert_eq!(calls.len(), 2, "{log}");
    assert!(
        log.contains("toolmetadata::access: tools/call count_words outcome=ok"),
        "{log}"
    );
    // Served at once, so in either order: the good call, and the empty
    // query refused as a tool error (an argument's error is the tool's).
    assert!(calls.iter().all(|l| l.contains("duration_ms=")), "{log}");
    assert!(calls.iter().any(|l| l.contains("outcome=ok")), "{log}");
    assert!(
        calls.iter().any(|l| l.contains("outcome=tool_error")),
        "{log}"
    );
}
