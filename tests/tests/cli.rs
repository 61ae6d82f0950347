//! The `toolmetadata` command-line tool: `list --format json-lines` over the
//! corpus gives the same results as the library, and `check` prints rustc-style
//! diagnostics with the right exit status.

use std::process::Command;

use toolmetadata_tests::{cli, conformance};

#[test]
fn list_json_lines_meets_every_expectation() {
    let dir = conformance::dir();
    let expectations = conformance::expectations(&dir);
    let corpus = dir.join("corpus");
    let output = Command::new(cli::binary())
        .args(["list", "--format", "json-lines"])
        .arg(&corpus)
        .output()
        .expect("toolmetadata runs");
    assert_eq!(output.status.code(), Some(1), "the corpus has bad files");
    let stdout = String::from_utf8(output.stdout).expect("UTF-8 output");
    let records: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect();
    assert_eq!(records.len(), expectations.len(), "one line per file");

    let mut failures = Vec::new();
    for record in &records {
        let shown = record["file"].as_str().expect("file");
        let name = std::path::Path::new(shown)
            .file_name()
            .and_then(|n| n.to_str())
            .expect("file name");
        let expected = expectations
            .iter()
            .find(|e| e["file"] == name)
            .unwrap_or_else(|| panic!("no expectation for {name}"));
        if let Err(why) = conformance::check(expected, record) {
            failures.push(format!("{name}: {why}"));
        }
        let library = conformance::library_record(&corpus.join(name), shown);
        if !conformance::json_eq(&library, record) {
            failures.push(format!(
                "{name}: CLI {record} differs from library {library}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn list_keeps_the_order_given_and_sorts_directories() {
    let dir = conformance::dir().join("corpus");
    let output = Command::new(cli::binary())
        .args(["list", "--format", "json-lines"])
        .arg(dir.join("title.toml"))
        .arg(dir.join("all_types.json"))
        .output()
        .expect("toolmetadata runs");
    assert!(output.status.success());
    let stdout = String::from_utf8(output.stdout).expect("UTF-8");
    let files: Vec<String> = stdout
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("JSON")["file"].to_string())
        .collect();
    assert!(files[0].ends_with("title.toml\""), "{files:?}");
    assert!(files[1].ends_with("all_types.json\""), "{files:?}");

    let output = Command::new(cli::binary())
        .args(["list", "--format", "json-lines"])
        .arg(&dir)
        .output()
        .expect("toolmetadata runs");
    let stdout = String::from_utf8(output.stdout).expect("UTF-8");
    let names: Vec<String> = stdout
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("JSON")["file"].to_string())
        .collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
}

#[test]
fn check_prints_rustc_style_diagnostics_and_fails() {
    let file = conformance::dir()
        .join("corpus")
        .join("type_unknown_str.toml");
    let output = Command::new(cli::binary())
        .args(["check", "--color", "never"])
        .arg(&file)
        .output()
        .expect("toolmetadata runs");
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8(output.stderr).expect("UTF-8");
    let expected = format!(
        "error[unknown-type]: parameter `x`: unknown type \"str\"\n --> {}:5:8\n  |\n5 | type = \"str\"\n  |        ^^^^^ not a parameter type\n  |\n  = help: did you mean `string`?",
        file.display()
    );
    assert!(stderr.starts_with(&expected), "{stderr}");
}

#[test]
fn check_passes_good_files_and_pretty_list_prints_entries() {
    let dir = conformance::dir().join("corpus");
    let output = Command::new(cli::binary())
        .arg("check")
        .arg(dir.join("search_issues.toml"))
        .arg(dir.join("create_invoice.json"))
        .output()
        .expect("toolmetadata runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );

    let output = Command::new(cli::binary())
        .arg("list")
        .arg(dir.join("search_issues.toml"))
        .output()
        .expect("toolmetadata runs");
    assert!(output.status.success());
    let entries: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(entries[0]["name"], "search_issues");
    assert!(
        String::from_utf8_lossy(&output.stdout).contains("\n  {"),
        "indented"
    );
}

#[test]
fn a_missing_path_is_a_clear_error() {
    let output = Command::new(cli::binary())
        .args(["check", "no/such/dir"])
        .output()
        .expect("toolmetadata runs");
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("no/such/dir: no such file or directory")
    );
}

#[test]
fn check_prints_exactly_what_a_failed_build_prints() {
    let dir = tempfile::tempdir().expect("temp dir");
    let tools = dir.path().join("tools");
    std::fs::create_dir(&tools).expect("mkdir");
    std::fs::write(tools.join("a.toml"), "description = 1\n").expect("write");
    std::fs::write(
        tools.join("b.json"),
        "{\"parameters\": [{\"name\": \"x\", \"type\": \"strng\"}]}",
    )
    .expect("write");
    let output = Command::new(cli::binary())
        .args(["check", "--color", "never"])
        .arg(&tools)
        .output()
        .expect("toolmetadata runs");
    assert_eq!(output.status.code(), Some(1));
    let error = toolmetadata_build::Builder::new()
        .emit_cargo_directives(false)
        .dir(&tools)
        .generate()
        .expect_err("bad metadata");
    assert_eq!(String::from_utf8_lossy(&output.stderr), error.to_string());
}
