//! A real `cargo build` of crates whose `build.rs` calls toolmetadata-build:
//! bad metadata fails the build with the rendered diagnostics, and rebuilds
//! happen exactly when the metadata changes.

use std::time::{Duration, SystemTime};

use toolmetadata_tests::cargo_project::{Project, stderr};

const GOOD: &str = r#"description = "Search the index"

[[parameters]]
name = "query"
type = "string"
required = true
"#;

const BAD_TYPE: &str = r#"description = "Search the index"

[[parameters]]
name = "query"
description = "What to look for"
required = true
type = "strin"
"#;

#[test]
fn one_bad_file_fails_the_build_with_the_rendered_diagnostic() {
    let p = Project::new("tm_one_bad", r#"toolmetadata_build::compile("tools")"#);
    p.write("tools/search.toml", BAD_TYPE);
    p.write("tools/fetch.toml", GOOD);
    let out = p.build(&[]);
    assert!(!out.status.success());
    let err = stderr(&out);
    let expected = r#"error[unknown-type]: parameter `query`: unknown type "strin"
 --> tools/search.toml:7:8
  |
7 | type = "strin"
  |        ^^^^^^^ not a parameter type
  |
  = help: did you mean `string`? valid types: string, int, integer, float, number, bool, boolean, array:string, array:int, array:integer, array:float, array:number, array:bool, array:boolean"#;
    assert!(err.contains(expected), "{err}");
    // The diagnostic comes first in the build script's stderr, alone; the
    // `Error: ` line of `main` after it, with the count only.
    let (_, script_stderr) = err.split_once("--- stderr\n").expect("the script's stderr");
    assert!(script_stderr.starts_with("error[unknown-type]"), "{err}");
    assert!(
        script_stderr.contains("\nError: tool metadata has 1 error (shown above)"),
        "{err}"
    );
    assert!(!err.lines().any(|l| l.trim() == "Error:"), "{err}");
    // One `rerun-if-changed` for the directory, not one per file in it.
    assert_eq!(
        err.matches("cargo:rerun-if-changed=tools").count(),
        1,
        "{err}"
    );
}

/// A pattern needs a regex engine at run time: without the runtime's feature
/// `regex` the generated code must not compile (a tool that silently skipped
/// its pattern would accept what its schema refuses), and the error must say
/// which feature to turn on.
#[test]
fn a_pattern_needs_the_regex_feature_and_says_so() {
    let p = Project::new(
        "tm_pattern_feature",
        r#"toolmetadata_build::compile("tools")"#,
    );
    p.write(
        "tools/lookup.toml",
        "description = \"Look up a code\"\n\n[[parameters]]\nname = \"code\"\ntype = \"string\"\nrequired = true\npattern = \"^[A-Z]{3}$\"\n",
    );
    let out = p.build(&[]);
    assert!(!out.status.success(), "built without the regex feature");
    let err = stderr(&out);
    let expected = "error[runtime-feature]: tool `lookup`: parameter `code` has a `pattern`, which needs the feature `regex` of `toolmetadata`, and this crate's build of it has it off
 --> tools/lookup.toml:4:8
  |
4 | name = \"code\"
  |        ^^^^^^ its arguments are matched against the pattern
  |
  = help: turn it on in Cargo.toml: toolmetadata = { version = \"0.1.0\", features = [\"regex\"] } (with the features you have)";
    assert!(err.contains(expected), "{err}");
    // The build script's check, not rustc's: the generated code was not compiled.
    assert!(!err.contains("error[E"), "{err}");
    runtime_features(&p, &["regex"]);
    let out = p.build(&[]);
    assert!(out.status.success(), "{}", stderr(&out));
}

/// Checking a pattern needs the build crate's default feature `regex`: a
/// crate that turns it off compiles no regex code in its build script, and
/// a tool with a pattern then fails the build at the pattern, naming the
/// feature, rather than being generated with a pattern nobody checked.
#[test]
fn a_pattern_needs_the_build_crates_regex_feature_and_says_so() {
    let p = Project::new(
        "tm_pattern_build_feature",
        r#"toolmetadata_build::compile("tools")"#,
    );
    p.write(
        "tools/lookup.toml",
        "description = \"Look up a code\"\n\n[[parameters]]\nname = \"code\"\ntype = \"string\"\nrequired = true\npattern = \"^[A-Z]{3}$\"\n",
    );
    runtime_features(&p, &["regex"]);
    let manifest = std::fs::read_to_string(p.path().join("Cargo.toml")).expect("manifest");
    let without = manifest.replace(", features = [] }", ", default-features = false }");
    assert_ne!(manifest, without, "the build dependency's line");
    p.write("Cargo.toml", &without);
    let out = p.build(&[]);
    assert!(!out.status.success(), "a pattern built unchecked");
    let err = stderr(&out);
    let expected = "error[build-feature]: parameter `code`: `pattern` \"^[A-Z]{3}$\" cannot be checked: this build of toolmetadata-build has its feature `regex` off
 --> tools/lookup.toml:7:11
  |
7 | pattern = \"^[A-Z]{3}$\"
  |           ^^^^^^^^^^^^ checked as the tool is loaded
  |
  = help: turn it on in Cargo.toml: toolmetadata-build = { version = \"0.1.0\", features = [\"regex\"] } (it is a default feature)";
    assert!(err.contains(expected), "{err}");
    p.write("Cargo.toml", &manifest);
    let out = p.build(&[]);
    assert!(out.status.success(), "{}", stderr(&out));
}

/// A bound parameter is filled from the HTTP request: a server built without
/// the runtime's `http` feature would refuse every call, so its build fails
/// at the parameter, naming the feature; a crate that does not serve (no
/// `server`) calls its tools itself and is not held to it.
#[test]
fn a_bound_parameter_needs_http_in_a_server_and_says_so() {
    let p = Project::new(
        "tm_bound_feature",
        r#"toolmetadata_build::compile("tools")"#,
    );
    p.write(
        "tools/whoami.toml",
        "description = \"Who the caller is\"\n\n[[parameters]]\nname = \"user\"\ntype = \"string\"\nfrom = \"claim:sub\"\n",
    );
    let out = p.build(&[]);
    assert!(out.status.success(), "no server, no need: {}", stderr(&out));
    runtime_features(&p, &["server"]);
    let out = p.build(&[]);
    assert!(
        !out.status.success(),
        "a stdio server built with a bound parameter"
    );
    let err = stderr(&out);
    let expected = "error[runtime-feature]: tool `whoami`: parameter `user` is bound to the token's claim `sub`, which needs the feature `http` of `toolmetadata`, and this crate's build of it has it off
 --> tools/whoami.toml:4:8
  |
4 | name = \"user\"
  |        ^^^^^^ a token's claims reach the server only over HTTP
  |";
    assert!(err.contains(expected), "{err}");
    runtime_features(&p, &["server", "http"]);
    let out = p.build(&[]);
    assert!(out.status.success(), "{}", stderr(&out));
}

/// What a tool of a server needs of the runtime's features: a server built
/// without the feature fails at the key that needs it, naming the feature
/// (rather than serving the tool without what its metadata asks), and
/// builds once the feature is on. One case for each key that needs one (a
/// `pattern` and a bound parameter, at the parameter, are the tests above).
#[test]
fn what_a_tool_needs_fails_a_server_without_its_feature_and_says_so() {
    struct Case {
        tool: &'static str,
        text: &'static str,
        feature: &'static str,
        expected: &'static str,
    }
    let cases = [
        // `[limits]` are held by the server on each call.
        Case {
            tool: "slow",
            text: "description = \"Something slow\"\n\n[limits]\nconcurrency = 2\n",
            feature: "limits",
            expected: "error[runtime-feature]: tool `slow`: it has `[limits]`, which needs the feature `limits` of `toolmetadata`, and this crate's build of it has it off
 --> tools/slow.toml:3:1
  |
3 | [limits]
  | ^^^^^^^^ held by the server on each call
  |",
        },
        // A task tool's calls run as tasks; without them a `required` one
        // could never run.
        Case {
            tool: "report",
            text: "description = \"A long report\"\ntask = \"required\"\n",
            feature: "tasks",
            expected: "error[runtime-feature]: tool `report`: it has `task = \"required\"`, which needs the feature `tasks` of `toolmetadata`, and this crate's build of it has it off
 --> tools/report.toml:2:1
  |
2 | task = \"required\"
  | ^^^^^^^^^^^^^^^^^ its calls run as tasks
  |",
        },
        // `[confirm]` asks the person before each call: never run unconfirmed.
        Case {
            tool: "wipe",
            text: "description = \"Wipe the disk\"\n\n[confirm]\nmessage = \"Wipe it all?\"\n",
            feature: "ask",
            expected: "error[runtime-feature]: tool `wipe`: it has `[confirm]`, which needs the feature `ask` of `toolmetadata`, and this crate's build of it has it off
 --> tools/wipe.toml:3:1
  |
3 | [confirm]
  | ^^^^^^^^^ the person is asked before each call
  |",
        },
        // `scopes` are checked against a caller's token, and a token
        // reaches the server only over HTTP: without it the tool would be
        // served to everyone.
        Case {
            tool: "deploy",
            text: "description = \"Deploy a release\"\nscopes = [\"deploy\"]\n",
            feature: "http",
            expected: "error[runtime-feature]: tool `deploy`: it has `scopes`, which needs the feature `http` of `toolmetadata`, and this crate's build of it has it off
 --> tools/deploy.toml:2:1
  |
2 | scopes = [\"deploy\"]
  | ^^^^^^^^^^^^^^^^^^^ a caller's scopes come from its token, which reaches the server only over HTTP
  |",
        },
        // `[ui]` links a view the server serves as a resource.
        Case {
            tool: "chart",
            text: "description = \"A chart\"\n\n[ui]\nresourceUri = \"ui://chart/main\"\n",
            feature: "resources",
            expected: "error[runtime-feature]: tool `chart`: it has `[ui]`, which needs the feature `resources` of `toolmetadata`, and this crate's build of it has it off
 --> tools/chart.toml:3:1
  |
3 | [ui]
  | ^^^^ its view is a resource the server serves
  |",
        },
    ];
    for case in cases {
        let p = Project::new(
            &format!("tm_{}_feature", case.feature),
            r#"toolmetadata_build::compile("tools")"#,
        );
        p.write(&format!("tools/{}.toml", case.tool), case.text);
        runtime_features(&p, &["server"]);
        let out = p.build(&[]);
        assert!(
            !out.status.success(),
            "a server built without `{}` for {}",
            case.feature,
            case.tool
        );
        let err = stderr(&out);
        assert!(err.contains(case.expected), "{err}");
        runtime_features(&p, &["server", case.feature]);
        let out = p.build(&[]);
        assert!(out.status.success(), "{}", stderr(&out));
    }
}

/// Turns on exactly `features` of the project's `toolmetadata` (its default
/// features stay off), as a user edits the dependency line.
fn runtime_features(p: &Project, features: &[&str]) {
    const OFF: &str = "default-features = false";
    let manifest = std::fs::read_to_string(p.path().join("Cargo.toml")).expect("manifest");
    let lines: Vec<String> = manifest
        .lines()
        .map(
            |line| match (line.starts_with("toolmetadata = {"), line.find(OFF)) {
                // `{:?}` of a slice of strings is a TOML array of strings.
                (true, Some(at)) => {
                    format!("{}, features = {features:?} }}", &line[..at + OFF.len()])
                }
                _ => line.to_owned(),
            },
        )
        .collect();
    p.write("Cargo.toml", &(lines.join("\n") + "\n"));
}

#[test]
fn three_bad_files_show_all_three() {
    let p = Project::new("tm_three_bad", r#"toolmetadata_build::compile("tools")"#);
    p.write("tools/a.toml", BAD_TYPE);
    p.write(
        "tools/b.json",
        "{\n  \"description\": \"b\",\n  \"parameters\": [{\"name\": \"x\", \"type\": \"int\", \"requried\": true}]\n}\n",
    );
    p.write("tools/c.toml", "description = 5\n");
    let out = p.build(&[]);
    assert!(!out.status.success());
    let err = stderr(&out);
    for expected in [
        " --> tools/a.toml:7:8",
        "error[unknown-key]: unknown key `requried` in parameter `x`",
        " --> tools/b.json:3:47",
        "= help: did you mean `required`?",
        "error[type-mismatch]: key `description` at top level must be a string, found integer 5",
        " --> tools/c.toml:1:15",
        "Error: tool metadata has 3 errors (shown above)",
    ] {
        assert!(err.contains(expected), "missing {expected:?} in\n{err}");
    }
}

#[test]
fn unknown_keys_can_be_warnings() {
    let p = Project::new(
        "tm_warnings",
        r#"toolmetadata_build::Builder::new().dir("tools").unknown_keys(toolmetadata_build::Severity::Warning).compile()"#,
    );
    p.write("tools/search.toml", &format!("{GOOD}requried = true\n"));
    p.write("tools/Odd.TOML", GOOD);
    p.write("tools/api.v1.get-user.toml", GOOD);
    p.write("tools/old/legacy.toml", GOOD);
    let out = p.build(&[]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("warning: tm_warnings@0.1.0: tools/old/legacy.toml is not loaded: a directory's tools are the files directly in it, and this one is in a subdirectory of tools"),
        "{err}"
    );
    // A warning is one line, as rustc's short format has it.
    assert!(
        err.contains("warning: tm_warnings@0.1.0: tools/search.toml:7:1: warning[unknown-key]: unknown key `requried` in parameter `query` (help: did you mean `required`?"),
        "{err}"
    );
    assert!(
        err.contains("tools/Odd.TOML is not loaded: tool files end in lower-case .toml or .json"),
        "{err}"
    );
    assert!(
        err.contains("warning: tm_warnings@0.1.0: tools/api.v1.get-user.toml: warning[client-tool-name]: tool name `api.v1.get-user` is valid MCP, but OpenAI and Anthropic"),
        "{err}"
    );
    // No warning spans two of Cargo's lines.
    assert!(!err.contains("tm_warnings@0.1.0:  -->"), "{err}");
}

const GOOD_YAML: &str = "description: \"Search the index\"\nparameters:\n  - name: \"query\"\n    type: \"string\"\n    required: true\n";

/// A YAML tool builds with the `yaml` feature, and its bad twin fails the
/// build as the TOML file does; without the feature the file is a warning
/// naming the feature.
#[test]
fn yaml_tools_build_with_the_feature_and_warn_without() {
    let p = Project::with_features(
        "tm_yaml",
        r#"toolmetadata_build::compile("tools")"#,
        &["yaml"],
    );
    p.write("tools/search.yaml", GOOD_YAML);
    let out = p.build(&[]);
    assert!(out.status.success(), "{}", stderr(&out));

    p.write(
        "tools/search.yaml",
        &GOOD_YAML.replace("\"string\"", "\"strin\""),
    );
    let out = p.build(&[]);
    assert!(!out.status.success());
    let err = stderr(&out);
    let expected = r#"error[unknown-type]: parameter `query`: unknown type "strin"
 --> tools/search.yaml:4:11
  |
4 |     type: "strin"
  |           ^^^^^^^ not a parameter type"#;
    assert!(err.contains(expected), "{err}");

    let p = Project::new("tm_no_yaml", r#"toolmetadata_build::compile("tools")"#);
    p.write("tools/search.yaml", GOOD_YAML);
    p.write("tools/fetch.toml", GOOD);
    let out = p.build(&[]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("warning: tm_no_yaml@0.1.0: tools/search.yaml is not loaded: YAML is not enabled; enable the `yaml` feature of toolmetadata-build"),
        "{err}"
    );
}

/// Whether the last build ran the build script.
fn ran_build_script(p: &Project) -> bool {
    let out = p.build(&["-v"]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    err.lines()
        .any(|l| l.contains("Running") && l.contains("build-script-build"))
}

fn generated_file(p: &Project) -> std::path::PathBuf {
    let out = p.build(&["--message-format", "json"]);
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|m| {
            m["reason"] == "build-script-executed"
                && m["package_id"]
                    .as_str()
                    .is_some_and(|id| id.contains(p.name()))
        })
        .and_then(|m| {
            m["out_dir"]
                .as_str()
                .map(|d| std::path::Path::new(d).join("tools.rs"))
        })
        .expect("the build script's out_dir")
}

fn mtime(path: &std::path::Path) -> SystemTime {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .expect("mtime")
}

#[test]
fn rebuilds_exactly_when_the_metadata_changes() {
    let p = Project::new("tm_rebuilds", r#"toolmetadata_build::compile("tools")"#);
    p.write("tools/search.toml", GOOD);
    assert!(ran_build_script(&p), "first build runs the build script");
    let out = p.build(&["-v"]);
    assert!(
        stderr(&out).contains("Fresh tm_rebuilds"),
        "nothing changed: fresh\n{}",
        stderr(&out)
    );
    assert!(
        !ran_build_script(&p),
        "nothing changed: the build script does not rerun"
    );

    let generated = generated_file(&p);
    let before = mtime(&generated);
    // Coarse file-system clocks: make sure a rewrite would show.
    std::thread::sleep(Duration::from_millis(1100));

    // A change that leaves the generated code as it is: the script reruns, the
    // output keeps its mtime, so nothing downstream rebuilds.
    p.write("tools/search.toml", &format!("{GOOD}# a comment\n"));
    assert!(
        ran_build_script(&p),
        "an edited file reruns the build script"
    );
    assert_eq!(
        mtime(&generated),
        before,
        "unchanged output keeps its mtime"
    );

    p.write(
        "tools/search.toml",
        &GOOD.replace("Search the index", "Search everything"),
    );
    assert!(
        ran_build_script(&p),
        "an edited description reruns the build script"
    );
    assert!(
        std::fs::read_to_string(&generated)
            .unwrap()
            .contains("Search everything")
    );
    assert_ne!(mtime(&generated), before);

    p.write("tools/fetch.json", r#"{"description": "Fetch a page"}"#);
    assert!(
        ran_build_script(&p),
        "a new file in the directory reruns the build script"
    );
    assert!(
        std::fs::read_to_string(&generated)
            .unwrap()
            .contains("FetchArgs")
    );
    assert!(!ran_build_script(&p));
}

/// The catalog lock in a real build: the first build writes it; a schema
/// changed without a `toolVersion` bump fails `cargo build` with the located
/// diagnostic; the bump passes and the lock records it; a frozen lock
/// (`TOOLMETADATA_LOCKED`, as in CI) fails when stale.
#[test]
fn the_catalog_lock_refuses_an_unbumped_change_and_takes_a_bumped_one() {
    let p = Project::new(
        "tm_lock",
        r#"toolmetadata_build::Builder::new().dir("tools").lock("tools/tools.lock").compile()"#,
    );
    let versioned = |version: &str, text: &str| format!("toolVersion = \"{version}\"\n{text}");
    p.write("tools/search.toml", &versioned("1.0.0", GOOD));
    let out = p.build(&[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("wrote the catalog lock tools/tools.lock"),
        "{}",
        stderr(&out)
    );
    let lock = p.path().join("tools/tools.lock");
    let first = std::fs::read_to_string(&lock).expect("the lock");

    let retyped = GOOD.replace("type = \"string\"", "type = \"int\"");
    p.write("tools/search.toml", &versioned("1.0.0", &retyped));
    let out = p.build(&[]);
    assert!(!out.status.success(), "an unbumped change builds");
    let err = stderr(&out);
    for expected in [
        "error[catalog-change]: tool `search` changed (breaking) since the lock without a `toolVersion` bump: it needs 2.0.0 or above (it is 1.0.0)",
        " --> tools/search.toml:1:1",
        "- breaking: parameter `query` changed type",
        "set `toolVersion = \"2.0.0\"` (a major bump)",
    ] {
        assert!(err.contains(expected), "missing {expected:?} in\n{err}");
    }
    assert_eq!(std::fs::read_to_string(&lock).expect("the lock"), first);

    p.write("tools/search.toml", &versioned("2.0.0", &retyped));
    let out = p.build(&[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let second = std::fs::read_to_string(&lock).expect("the lock");
    assert!(second.contains("\"version\": \"2.0.0\""), "{second}");

    p.write(
        "tools/search.toml",
        &versioned(
            "2.0.1",
            &retyped.replace("Search the index", "Search everything"),
        ),
    );
    let out = p.build_with_env(&[], &[("TOOLMETADATA_LOCKED", "1")]);
    assert!(!out.status.success(), "a frozen lock takes no change");
    assert!(
        stderr(&out).contains("error[catalog-lock]: the catalog lock tools/tools.lock is stale"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read_to_string(&lock).expect("the lock"), second);
}
