//! The `toolmetadata` command-line tool: `list --format json-lines` over the
//! corpus gives the same results as the library, and `check` prints rustc-style
//! diagnostics with the right exit status.

use std::process::Command;

use toolmetadata_tests::{cli, conformance};

#[test]
fn list_json_lines_meets_every_expectation() {
    let dir = conformance::dir();
    let corpus = dir.join("corpus");
    let mut failures = Vec::new();
    // Each corpus file is a case of its own (the corpus holds TOML and JSON
    // twins of one tool name), so each is listed alone.
    for expected in conformance::expectations(&dir) {
        let name = expected["file"].as_str().expect("file");
        let path = corpus.join(name);
        let output = Command::new(cli::binary())
            .args(["list", "--format", "json-lines"])
            .arg(&path)
            .output()
            .expect("toolmetadata runs");
        let stdout = String::from_utf8(output.stdout).expect("UTF-8 output");
        let records: Vec<serde_json::Value> = stdout
            .lines()
            .map(|l| serde_json::from_str(l).expect("each line is JSON"))
            .collect();
        let [record] = records.as_slice() else {
            failures.push(format!("{name}: {} lines, not one", records.len()));
            continue;
        };
        let failed = record.get("errors").is_some();
        if output.status.code() != Some(if failed { 1 } else { 0 }) {
            failures.push(format!("{name}: exit status {:?}", output.status.code()));
        }
        if let Err(why) = conformance::check(&expected, record) {
            failures.push(format!("{name}: {why}"));
        }
        let shown = record["file"].as_str().expect("file");
        let library = conformance::library_record(&path, shown);
        if !conformance::json_eq(&library, record) {
            failures.push(format!(
                "{name}: CLI {record} differs from library {library}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A temporary directory holding `files`: tests that need particular files
/// make their own, so pointing the conformance tests at another corpus
/// leaves them as they are.
fn files(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).expect("write");
    }
    dir
}

const SEARCH: &str = "description = \"Search issues\"\n\n[[parameters]]\nname = \"query\"\ntype = \"string\"\nrequired = true\n";

#[test]
fn list_keeps_the_order_given_and_sorts_directories() {
    let tmp = files(&[
        (
            "title.toml",
            "title = \"Human Title\"\ndescription = \"has a title\"\n",
        ),
        ("all_types.json", "{\"description\": \"all\"}"),
        ("b.toml", "description = \"b\"\n"),
    ]);
    let dir = tmp.path();
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
        .arg(dir)
        .output()
        .expect("toolmetadata runs");
    let stdout = String::from_utf8(output.stdout).expect("UTF-8");
    let names: Vec<String> = stdout
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("JSON")["file"].to_string())
        .collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names.len(), 3, "{names:?}");
    assert_eq!(names, sorted);
}

#[test]
fn check_prints_rustc_style_diagnostics_and_fails() {
    let tmp = files(&[(
        "type_unknown_str.toml",
        "description = \"type probe\"\n\n[[parameters]]\nname = \"x\"\ntype = \"str\"\ndescription = \"probe\"\n",
    )]);
    let file = tmp.path().join("type_unknown_str.toml");
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
    let tmp = files(&[
        ("search_issues.toml", SEARCH),
        (
            "create_invoice.json",
            "{\"description\": \"Create an invoice\", \"parameters\": [{\"name\": \"amount\", \"type\": \"float\", \"required\": true}]}",
        ),
    ]);
    let dir = tmp.path();
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

/// `check` reports every error the build reports across files: a tool defined
/// in two directories, two file names that give one Rust method, a generated
/// type that two tools would both define.
#[test]
fn check_reports_what_the_build_reports_across_files() {
    let root = tempfile::tempdir().expect("temp dir");
    let write = |dir: &str, name: &str, text: &str| {
        let dir = root.path().join(dir);
        std::fs::create_dir_all(&dir).expect("dir");
        std::fs::write(dir.join(name), text).expect("write");
    };
    let plain = "description = \"x\"\n";
    let with_enum = "description = \"x\"\n\n[[parameters]]\nname = \"args\"\ntype = \"string\"\nenum = [\"a\"]\n";
    for (case, files, code) in [
        (
            "same tool in two directories",
            vec![
                ("one", "search.toml", plain),
                ("two", "search.json", "{\"description\": \"x\"}"),
            ],
            "duplicate-tool",
        ),
        (
            "one Rust method for two names",
            vec![
                ("one", "get-user.toml", plain),
                ("one", "get_user.toml", plain),
            ],
            "rust-name-collision",
        ),
        (
            "one generated type for two tools",
            vec![
                ("one", "list.toml", with_enum),
                ("one", "list_args.toml", plain),
            ],
            "rust-name-collision",
        ),
    ] {
        let _ = std::fs::remove_dir_all(root.path().join("one"));
        let _ = std::fs::remove_dir_all(root.path().join("two"));
        let mut builder = toolmetadata_build::Builder::new().emit_cargo_directives(false);
        let mut command = Command::new(cli::binary());
        command.args(["check", "--color", "never"]);
        for (dir, name, text) in &files {
            write(dir, name, text);
        }
        for dir in ["one", "two"] {
            let path = root.path().join(dir);
            if path.exists() {
                builder = builder.dir(&path);
                command.arg(&path);
            }
        }
        let built = builder.generate().expect_err(case).to_string();
        let output = command.output().expect("toolmetadata runs");
        let checked = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{case}: {checked}");
        assert!(built.contains(&format!("error[{code}]")), "{case}: {built}");
        assert!(
            checked.starts_with(&built),
            "{case}:\n{checked}\nbuild:\n{built}"
        );
    }
}

/// `check` shows the warning the build shows for a tool name real clients
/// refuse, and still passes.
#[test]
fn check_warns_of_tool_names_clients_refuse() {
    let tmp = files(&[("api.v1.get-user.toml", SEARCH)]);
    let output = Command::new(cli::binary())
        .args(["check", "--color", "never"])
        .arg(tmp.path())
        .output()
        .expect("toolmetadata runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("warning[client-tool-name]: tool name `api.v1.get-user`"),
        "{stderr}"
    );
    assert!(
        stderr.contains("rename the file to `api_v1_get-user.toml`"),
        "{stderr}"
    );
}

/// A group only one tool names is a warning located at the group, with
/// the group meant when one is close; a group of two is none.
#[test]
fn check_warns_of_a_group_of_one_tool() {
    let tmp = files(&[
        (
            "read_note.toml",
            "description = \"Read a note\"\ntoolGroups = [\"notes\"]\n",
        ),
        (
            "find_notes.toml",
            "description = \"Find notes\"\ntoolGroups = [\"notes\"]\n",
        ),
        (
            "delete_note.toml",
            "description = \"Delete a note\"\ntoolGroups = [\"admin\", \"note\"]\n",
        ),
    ]);
    let output = Command::new(cli::binary())
        .args(["check", "--color", "never"])
        .arg(tmp.path())
        .output()
        .expect("toolmetadata runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("warning[lone-group]: the group `note` has one tool, `delete_note`"),
        "{stderr}"
    );
    assert!(stderr.contains("delete_note.toml:2:24"), "{stderr}");
    assert!(stderr.contains("did you mean `notes`?"), "{stderr}");
    assert!(
        stderr.contains("the group `admin` has one tool"),
        "{stderr}"
    );
    assert!(!stderr.contains("the group `notes`"), "{stderr}");
}

/// `toolmetadata lock` checks a directory against its lock as the build
/// does, `--update` accepts a change, `--locked` refuses any; `diff` prints
/// each change classified and fails on the class asked.
#[test]
fn lock_and_diff_keep_the_catalog_deliberate() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (old, new) = (dir.path().join("old"), dir.path().join("new"));
    for d in [&old, &new] {
        std::fs::create_dir_all(d).expect("mkdir");
    }
    let tool = "description = \"Search\"\ntoolVersion = \"1.0.0\"\n\n[[parameters]]\nname = \"q\"\ntype = \"string\"\nrequired = true\n";
    std::fs::write(old.join("search.toml"), tool).expect("write");
    let changed = tool.replace(
        "required = true\n",
        "required = true\n\n[[parameters]]\nname = \"n\"\ntype = \"int\"\nrequired = true\n",
    );
    std::fs::write(new.join("search.toml"), &changed).expect("write");
    let run = |args: &[&std::ffi::OsStr]| {
        // Frozen only where the test says `--locked` (CI exports the
        // variable for the workspace's own builds).
        let out = Command::new(cli::binary())
            .args(args)
            .env_remove("TOOLMETADATA_LOCKED")
            .output()
            .expect("toolmetadata runs");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let os = |s: &str| std::ffi::OsStr::new(s).to_owned();
    let (code, out, _) = run(&[&os("diff"), old.as_os_str(), new.as_os_str()]);
    assert_eq!(code, Some(0));
    assert!(
        out.contains("breaking   search: parameter `n` added, required"),
        "{out}"
    );
    let (code, _, _) = run(&[
        &os("diff"),
        &os("--fail-on"),
        &os("breaking"),
        old.as_os_str(),
        new.as_os_str(),
    ]);
    assert_eq!(code, Some(1));

    // The lock of `new` as `old` was, then the change checked against it.
    let (code, _, err) = run(&[&os("lock"), old.as_os_str()]);
    assert_eq!(code, Some(0), "{err}");
    std::fs::copy(old.join("tools.lock"), new.join("tools.lock")).expect("copy");
    let (code, _, err) = run(&[&os("lock"), new.as_os_str()]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("error[catalog-change]"), "{err}");
    assert!(err.contains("it needs 2.0.0 or above"), "{err}");
    // A diff of the two locks says the same.
    let (_, out, _) = run(&[
        &os("diff"),
        old.join("tools.lock").as_os_str(),
        new.as_os_str(),
    ]);
    assert!(out.contains("parameter `n` added, required"), "{out}");
    let (code, _, err) = run(&[&os("lock"), &os("--update"), new.as_os_str()]);
    assert_eq!(code, Some(0), "{err}");
    let (code, _, err) = run(&[&os("lock"), &os("--locked"), new.as_os_str()]);
    assert_eq!(code, Some(0), "the updated lock matches: {err}");
    std::fs::write(
        new.join("search.toml"),
        changed.replace("\"Search\"", "\"Search it\""),
    )
    .expect("write");
    let (code, _, err) = run(&[&os("lock"), &os("--locked"), new.as_os_str()]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("error[catalog-change]"), "{err}");
    // The variable freezes the command as it freezes the build.
    let out = Command::new(cli::binary())
        .args([std::ffi::OsStr::new("lock"), new.as_os_str()])
        .env("TOOLMETADATA_LOCKED", "1")
        .output()
        .expect("toolmetadata runs");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("error[catalog-change]"));
}

/// `toolmetadata diff REV:DIR REV:DIR` compares a directory at two git
/// revisions, as a server repository's CI would.
#[test]
fn diff_reads_two_git_revisions() {
    let repo = tempfile::tempdir().expect("tempdir");
    let git = |args: &[&str]| {
        let status = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(args)
            .current_dir(repo.path())
            .output()
            .expect("git runs");
        assert!(status.status.success(), "git {args:?}: {status:?}");
    };
    git(&["init", "-q"]);
    std::fs::create_dir_all(repo.path().join("tools")).expect("mkdir");
    let tool = "description = \"Search\"\n\n[[parameters]]\nname = \"q\"\ntype = \"string\"\nrequired = true\n";
    std::fs::write(repo.path().join("tools/search.toml"), tool).expect("write");
    git(&["add", "."]);
    git(&["commit", "-q", "-m", "one"]);
    std::fs::write(
        repo.path().join("tools/search.toml"),
        tool.replace("type = \"string\"", "type = \"int\""),
    )
    .expect("write");
    git(&["commit", "-q", "-am", "two"]);
    let out = Command::new(cli::binary())
        .args([
            "diff",
            "--fail-on",
            "breaking",
            "HEAD~1:tools",
            "HEAD:tools/",
        ])
        .current_dir(repo.path())
        .output()
        .expect("toolmetadata runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("breaking   search: parameter `q` changed type"),
        "{stdout}"
    );
    let out = Command::new(cli::binary())
        .args(["diff", "nosuchrev:tools", "HEAD:tools"])
        .current_dir(repo.path())
        .output()
        .expect("toolmetadata runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("git rev-parse"),
        "{out:?}"
    );
}

/// `check --profile` reports what a provider would refuse or lose, as
/// errors; `export --profile` prints the provider's `tools`, saying which
/// names it mapped.
#[test]
fn profiles_are_checked_and_exported() {
    let dir = files(&[
        (
            "api.lookup.toml",
            "description = \"Look up\"\n\n[[parameters]]\nname = \"code\"\ntype = \"string\"\nrequired = true\nmaxLength = 8\n",
        ),
        ("ping.toml", "description = \"Ping\"\n"),
    ]);
    let check = Command::new(cli::binary())
        .args(["--color", "never", "check", "--profile", "anthropic-strict"])
        .arg(dir.path())
        .output()
        .expect("toolmetadata runs");
    let stderr = String::from_utf8_lossy(&check.stderr);
    assert_eq!(check.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("error[provider-profile]: anthropic-strict: tool `api.lookup` cannot hold the model to this constraint (`anthropic-strict/bounds`): `code`: at most 8 characters"),
        "{stderr}"
    );
    let unknown = Command::new(cli::binary())
        .args(["check", "--profile", "claude"])
        .arg(dir.path())
        .output()
        .expect("toolmetadata runs");
    assert!(
        String::from_utf8_lossy(&unknown.stderr)
            .contains("no profile `claude`; the profiles are openai-strict")
    );
    let export = Command::new(cli::binary())
        .args(["export", "--profile", "gemini"])
        .arg(dir.path())
        .output()
        .expect("toolmetadata runs");
    assert!(export.status.success(), "{export:?}");
    let tools: serde_json::Value = serde_json::from_slice(&export.stdout).expect("JSON");
    let declarations = &tools[0]["functionDeclarations"];
    assert_eq!(declarations[0]["name"], "api.lookup");
    assert_eq!(
        declarations[0]["parameters"]["properties"]["code"]["maxLength"],
        8
    );
    assert!(
        declarations[1].get("parameters").is_none(),
        "{declarations}"
    );
    let openai = Command::new(cli::binary())
        .args(["export", "--profile", "openai-strict"])
        .arg(dir.path())
        .output()
        .expect("toolmetadata runs");
    let tools: serde_json::Value = serde_json::from_slice(&openai.stdout).expect("JSON");
    assert_eq!(tools[0]["function"]["name"], "api_lookup");
    assert_eq!(tools[0]["function"]["strict"], true);
    assert!(
        String::from_utf8_lossy(&openai.stderr)
            .contains("`api.lookup` is `api_lookup` for openai-strict"),
        "{openai:?}"
    );
}
