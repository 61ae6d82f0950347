//! The quality check's rules (`Builder::quality`, `toolmetadata check
//! --quality`): each with a tool file that breaks it (`tests/quality/`), its
//! findings as rendered, located in the file; a file that breaks none has
//! none, and the CLI reports them without failing.

use toolmetadata::metadata::Load as _;
use toolmetadata_build::{Builder, Severity};

fn findings(files: &[&str]) -> String {
    let mut builder = Builder::new()
        .emit_cargo_directives(false)
        .quality(Some(Severity::Warning));
    for file in files {
        builder = builder.file(format!("tests/quality/{file}"));
    }
    let checked = builder.check().expect("checked");
    assert!(
        !checked.has_errors(),
        "{}",
        checked.diagnostics().render(false)
    );
    checked.diagnostics().render(false)
}

#[test]
fn each_rule_finds_the_file_that_breaks_it() {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("snapshots/quality");
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    let _guard = settings.bind_to_scope();
    let cases: [(&str, &[&str], &str); 6] = [
        (
            "no_description",
            &["no_description.toml"],
            "quality-description",
        ),
        (
            "repeats_its_name",
            &["search_notes.toml"],
            "quality-description",
        ),
        ("undescribed_enum", &["export_notes.toml"], "quality-enum"),
        ("no_hints", &["rename_note.toml"], "quality-hints"),
        (
            "unconfirmed_destructive",
            &["delete_note.toml"],
            "quality-confirm",
        ),
        (
            "near_duplicates",
            &["export_notes.toml", "export_all_notes.toml"],
            "quality-duplicate",
        ),
    ];
    for (name, files, rule) in cases {
        let rendered = findings(files);
        assert!(
            rendered.contains(&format!("[{rule}]")),
            "{name}: {rendered}"
        );
        assert!(
            rendered.contains("--> tests/quality/"),
            "{name}: {rendered}"
        );
        insta::assert_snapshot!(format!("quality-{name}"), rendered);
    }
    assert_eq!(findings(&["good.toml"]), "", "a file that breaks no rule");
}

#[test]
fn the_cli_prints_the_findings_and_does_not_fail_on_them() {
    let out = std::process::Command::new(toolmetadata_tests::cli::binary())
        .args([
            "check",
            "--quality",
            "--color",
            "never",
            "tests/quality/rename_note.toml",
        ])
        .output()
        .expect("the CLI runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("[quality-hints]"), "{stderr}");
    assert!(
        stderr.contains("--> tests/quality/rename_note.toml:1:1"),
        "{stderr}"
    );
    // As cargo build: the findings without --quality too, the token
    // counts only with it.
    let without = std::process::Command::new(toolmetadata_tests::cli::binary())
        .args(["check", "tests/quality/rename_note.toml"])
        .output()
        .expect("the CLI runs");
    let said = String::from_utf8_lossy(&without.stderr);
    assert!(without.status.success(), "{said}");
    assert!(said.contains("[quality-hints]"), "{said}");
    assert!(!said.contains("tokens (o200k_base)"), "{said}");
    assert!(stderr.contains("tokens (o200k_base)"), "{stderr}");
}

/// A tool's `[lints]` sets a rule's level for it alone: allowed, the
/// finding is gone; denied, it is an error that fails the build; the other
/// tools' findings stay as they were.
#[test]
fn a_tools_lints_allow_or_deny_its_findings() {
    let check = |files: &[&str]| {
        let mut builder = Builder::new().emit_cargo_directives(false);
        for file in files {
            builder = builder.file(format!("tests/quality/{file}"));
        }
        builder.check().expect("checked")
    };
    let allowed = check(&["erase_note.toml", "delete_note.toml"]);
    let rendered = allowed.diagnostics().render(false);
    assert!(!allowed.has_errors(), "{rendered}");
    assert!(
        rendered.contains("destructive tool `delete_note` asks no one"),
        "{rendered}"
    );
    assert!(!rendered.contains("erase_note"), "{rendered}");
    let denied = check(&["purge_notes.toml"]);
    let rendered = denied.diagnostics().render(false);
    assert!(denied.has_errors(), "{rendered}");
    assert!(
        rendered.contains("error[quality-confirm]: destructive tool `purge_notes` asks no one"),
        "{rendered}"
    );
    // Quality off in the build script: a tool's deny does not turn it on.
    let off = Builder::new()
        .emit_cargo_directives(false)
        .quality(None)
        .file("tests/quality/purge_notes.toml")
        .check()
        .expect("checked");
    assert_eq!(off.diagnostics().render(false), "");
}

/// `[lints]` names rules and levels the build knows, or fails with a
/// located diagnostic.
#[test]
fn a_lint_that_is_no_rule_or_no_level_is_an_error() {
    for (text, said) in [
        (
            "description = \"Erase\"\n\n[lints]\nquality-confrim = \"allow\"\n",
            "did you mean `quality-confirm`?",
        ),
        (
            "description = \"Erase\"\n\n[lints]\nquality-confirm = \"off\"\n",
            "error[bad-lint]: `quality-confirm` in [lints] is \"off\", which is not a level",
        ),
        (
            "description = \"Erase\"\n\n[lints]\nunknown-key = \"allow\"\n",
            "unknown key `unknown-key` in [lints]",
        ),
    ] {
        let err = toolmetadata::ToolMetadata::from_toml_str("erase", text).expect_err(text);
        let rendered = err.render(false);
        assert!(rendered.contains(said), "{rendered}");
        assert!(rendered.contains(":4:"), "{rendered}");
    }
}

#[test]
fn the_token_counts_are_the_tokenizers_and_a_count_past_its_limit_fails() {
    let path = "tests/quality/good.toml";
    let text = std::fs::read_to_string(path).expect("good.toml");
    let entry = toolmetadata::ToolMetadata::from_toml_str("good", &text)
        .expect("loads")
        .to_tools_list_json();
    let tokens = tiktoken_rs::o200k_base()
        .expect("the encoding")
        .encode_ordinary(&entry)
        .len();
    let list = tiktoken_rs::o200k_base()
        .expect("the encoding")
        .encode_ordinary(&format!("{{\"tools\":[{entry}]}}"))
        .len();
    let check = |args: &[&str]| {
        std::process::Command::new(toolmetadata_tests::cli::binary())
            .args(["check", "--quality", "--color", "never"])
            .args(args)
            .arg(path)
            .output()
            .expect("the CLI runs")
    };
    let within = check(&[]);
    let said = String::from_utf8_lossy(&within.stderr);
    assert!(within.status.success(), "{said}");
    assert!(
        said.contains(&format!(
            "tokens (o200k_base): good {tokens} (at most 1000)"
        )),
        "{said}"
    );
    assert!(
        said.contains(&format!("the catalog of 1 tools {list} (at most 10000)")),
        "{said}"
    );
    let limit = (tokens - 1).to_string();
    let past = check(&["--max-tool-tokens", &limit]);
    let said = String::from_utf8_lossy(&past.stderr);
    assert_eq!(past.status.code(), Some(1), "{said}");
    assert!(
        said.contains(&format!(
            "error: `good` takes {tokens} tokens, more than the {limit} a tool may"
        )),
        "{said}"
    );
    let catalog = check(&["--max-catalog-tokens", "10"]);
    assert_eq!(catalog.status.code(), Some(1));
}

#[test]
fn the_json_report_locates_each_finding_and_counts_the_tokens() {
    let out = std::process::Command::new(toolmetadata_tests::cli::binary())
        .args([
            "check",
            "--quality",
            "--format",
            "json",
            "tests/quality/rename_note.toml",
            "tests/quality/good.toml",
        ])
        .output()
        .expect("the CLI runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON report");
    assert_eq!(
        report["findings"],
        serde_json::json!([{
            "rule": "quality-hints",
            "severity": "warning",
            "file": "tests/quality/rename_note.toml",
            "line": 1,
            "column": 1,
            "message": "tool `rename_note` says neither `readOnly = true` nor whether it is `destructive`",
            "help": "hosts ask before a tool that may destroy, and skip asking for one that only reads: say which this is"
        }])
    );
    assert_eq!(report["tokens"]["encoding"], "o200k_base");
    assert_eq!(report["tokens"]["tools"].as_array().map(Vec::len), Some(2));
    assert_eq!(report["tokens"]["over"], serde_json::json!([]));
}

/// Each group's `tools/list` is counted, in the text report and the JSON
/// one.
#[test]
fn each_group_is_counted_as_its_endpoint_lists_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let files = [
        (
            "find_notes",
            "description = \"Find notes by words in their text\"\nreadOnly = true\ntoolGroups = [\"notes\"]\n",
        ),
        (
            "read_note",
            "description = \"Read one note, whole\"\nreadOnly = true\ntoolGroups = [\"notes\"]\n",
        ),
        (
            "stats",
            "description = \"Count the notes in each folder\"\nreadOnly = true\n",
        ),
    ];
    let mut entries = Vec::new();
    for (name, text) in files {
        std::fs::write(dir.path().join(format!("{name}.toml")), text).expect("write");
        let entry = toolmetadata::ToolMetadata::from_toml_str(name, text)
            .expect("loads")
            .to_tools_list_json();
        entries.push(entry);
    }
    let group = tiktoken_rs::o200k_base()
        .expect("the encoding")
        .encode_ordinary(&format!("{{\"tools\":[{},{}]}}", entries[0], entries[1]))
        .len();
    let check = |args: &[&str]| {
        std::process::Command::new(toolmetadata_tests::cli::binary())
            .args(["check", "--quality", "--color", "never"])
            .args(args)
            .arg(dir.path())
            .output()
            .expect("the CLI runs")
    };
    let out = check(&[]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains(&format!(
            "tokens (o200k_base): the group notes of 2 tools {group}\n"
        )),
        "{said}"
    );
    let limit = (group - 1).to_string();
    let out = check(&["--max-catalog-tokens", &limit, "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(
        report["tokens"]["groups"],
        serde_json::json!([{"group": "notes", "tools": 2, "tokens": group}])
    );
}

/// Many tools described alike are one finding per tool, at the later one,
/// naming the first earlier tool it is nearly the same as: 40 tools are 39
/// findings, not the 780 pairs.
#[test]
fn near_duplicates_are_one_finding_per_tool_not_one_per_pair() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut builder = Builder::new()
        .emit_cargo_directives(false)
        .quality(Some(Severity::Warning));
    for i in 0..40 {
        let path = dir.path().join(format!("export_{i:02}.toml"));
        let text = format!(
            "description = \"Export every note of notebook {i:02} to a file in the chosen format\"\nreadOnly = true\n"
        );
        std::fs::write(&path, text).expect("write");
        builder = builder.file(path);
    }
    let unlike = dir.path().join("weather.toml");
    std::fs::write(
        &unlike,
        "description = \"Tell the weather of a city for the next three days\"\nreadOnly = true\n",
    )
    .expect("write");
    let checked = builder.file(unlike).check().expect("checked");
    let rendered = checked.diagnostics().render(false);
    assert_eq!(
        rendered.matches("[quality-duplicate]").count(),
        39,
        "{rendered}"
    );
    assert!(!rendered.contains("`weather`"), "{rendered}");
    for (later, alike) in [("01", 98), ("02", 98), ("39", 97)] {
        let said = format!(
            "the descriptions of `export_00` and `export_{later}` are nearly the same ({alike}% alike)\n"
        );
        assert!(rendered.contains(&said), "{said} in {rendered}");
    }
}
