//! The command line: the README's run command, `--list`, and refusals at startup.

use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_example-server");

#[test]
fn the_readme_run_command_serves_stdio_until_eof() {
    // `cargo run -p example-server -- --root .`, with the client gone at once.
    let out = Command::new(BIN)
        .args(["--root", "."])
        .stdin(Stdio::null())
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.is_empty(), "nothing but MCP on stdout");
}

#[test]
fn list_prints_the_catalog() {
    let out = Command::new(BIN).arg("--list").output().expect("runs");
    assert!(out.status.success());
    let table = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = table.lines().collect();
    assert!(
        lines[0].starts_with("NAME") && lines[0].contains("TITLE") && lines[0].contains("HINTS")
    );
    assert_eq!(lines.len(), 17, "a header and sixteen tools:\n{table}");
    assert!(
        table.contains(
            "read_file                  Read file                  read-only, idempotent, local"
        ),
        "{table}"
    );
    assert!(
        table.contains("run_command") && table.contains("discoverable"),
        "{table}"
    );
    let read_only = Command::new(BIN)
        .args(["--list", "--read-only"])
        .output()
        .expect("runs");
    let table = String::from_utf8_lossy(&read_only.stdout);
    assert!(
        !table.contains("write_file") && table.contains("read_file"),
        "{table}"
    );
}

#[test]
fn bad_roots_and_addresses_are_clear_errors() {
    let out = Command::new(BIN)
        .args(["--root", "/no/such/dir"])
        .stdin(Stdio::null())
        .output()
        .expect("runs");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("root /no/such/dir"));
    let out = Command::new(BIN)
        .args(["--http", "0.0.0.0:0"])
        .output()
        .expect("runs");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a loopback address"));
}

#[test]
fn version_names_the_crate() {
    let out = Command::new(BIN).arg("--version").output().expect("runs");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("example-server {}", env!("CARGO_PKG_VERSION"))
    );
}
