//! The README's tutorial as a new user makes it: a fresh crate beside a
//! checkout of this repository, its `Cargo.toml` and every file pasted from
//! the tutorial section's code blocks as they are (the checkout's path put
//! in for `../toolmetadata-rs`); `cargo test` passes, and the binary serves
//! Streamable HTTP with `--http ADDR` and with `--http=ADDR`.

use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::json;
use tokio::io::{AsyncBufReadExt, BufReader};
use toolmetadata_tests::cargo_project::workspace;
use toolmetadata_tests::mcp::{call, http_client, text};

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
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .args(args)
        .current_dir(dir)
        .env(
            "CARGO_TARGET_DIR",
            workspace().join("target").join("real-cargo"),
        )
        .env_remove("RUSTFLAGS")
        .env("CARGO_TERM_COLOR", "never")
        .output()
        .expect("cargo runs")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_readmes_tutorial_pasted_into_a_fresh_crate_builds_tests_and_serves() {
    let readme = std::fs::read_to_string(workspace().join("README.md")).expect("README.md");
    let dir = tempfile::tempdir().expect("a directory");
    let files = paste(tutorial_section(&readme), dir.path());
    assert_eq!(
        files, 7,
        "three tool files, build.rs, src/lib.rs, src/main.rs, tests/tools.rs"
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
    assert!(out.contains("test result: ok. 3 passed"), "{out}");

    let built = cargo(dir.path(), &["build"]);
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let bin = workspace().join("target/real-cargo/debug/notes");
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
            let line = tokio::time::timeout(std::time::Duration::from_secs(30), lines.next_line())
                .await
                .expect("it says where it listens")
                .expect("read")
                .unwrap_or_else(|| panic!("{args:?}: it ended without serving HTTP"));
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
