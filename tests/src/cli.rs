//! The `toolmetadata` command-line tool, built by cargo for the tests that run it.

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

/// The path of the `toolmetadata` binary, built once per test process with the
/// `cli` feature into the workspace's target directory.
pub fn binary() -> PathBuf {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY
        .get_or_init(|| {
            let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
            let output = Command::new(cargo)
                .args([
                    "build",
                    "--quiet",
                    "--package",
                    "toolmetadata-build",
                    "--features",
                    "cli",
                    "--bin",
                    "toolmetadata",
                    "--message-format",
                    "json",
                ])
                .current_dir(env!("CARGO_MANIFEST_DIR"))
                .output()
                .expect("cargo runs");
            assert!(
                output.status.success(),
                "building toolmetadata failed:\n{}",
                String::from_utf8_lossy(&output.stderr)
            );
            String::from_utf8_lossy(&output.stdout)
                .lines()
                .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
                .find_map(|msg| {
                    (msg["target"]["name"] == "toolmetadata")
                        .then(|| msg["executable"].as_str().map(PathBuf::from))
                        .flatten()
                })
                .expect("cargo reports the toolmetadata executable")
        })
        .clone()
}
