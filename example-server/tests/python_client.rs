//! The official MCP Python SDK client (`mcp` 2.3.0, installed by the harness
//! into a venv under `target/`) calls every tool of the example server over
//! stdio and Streamable HTTP, in its `auto` and `legacy` modes.

use std::path::Path;

use serde_json::{Value, json};
use toolmetadata_tests::mcp::http_server;
use toolmetadata_tests::python;

const BIN: &str = env!("CARGO_BIN_EXE_example-server");

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("notes.txt"), "alpha\nbeta\n").expect("write");
    dir
}

fn check(report: &Value, root: &Path, label: &str) {
    assert_eq!(
        report["tools"],
        json!([
            "create_directory",
            "directory_tree",
            "edit_file",
            "execute_tool",
            "file_info",
            "find_files",
            "list_allowed_directories",
            "list_directory",
            "list_directory_with_sizes",
            "move_path",
            "read_file",
            "read_media_file",
            "read_multiple_files",
            "replace_in_file",
            "search_files",
            "tool_search",
            "write_file"
        ]),
        "{label}"
    );
    let calls = &report["calls"];
    for (name, call) in calls.as_object().expect("calls") {
        assert_eq!(
            call["is_error"], false,
            "{label}: {name} failed: {}",
            call["text"]
        );
    }
    assert_eq!(calls["read_file"]["text"], "alpha", "{label}");
    assert_eq!(
        calls["search_files"]["structured"]["matches"],
        json!(["notes.txt:1:alpha"]),
        "{label}"
    );
    assert_eq!(
        calls["find_files"]["structured"]["files"],
        json!(["notes.txt"]),
        "{label}"
    );
    assert_eq!(calls["file_info"]["structured"]["size"], 11, "{label}");
    assert_eq!(
        calls["list_directory_with_sizes"]["structured"]["entries"],
        json!(["[FILE] notes.txt (11 bytes)"]),
        "{label}"
    );
    assert_eq!(
        calls["read_multiple_files"]["text"],
        "notes.txt:\nalpha\nbeta\n\n\"missing.txt\": error: \"missing.txt\" does not exist",
        "{label}"
    );
    assert_eq!(
        calls["read_media_file"]["types"],
        json!(["resource"]),
        "{label}"
    );
    assert!(
        calls["edit_file"]["text"].as_str().is_some_and(|t| t
            .starts_with("dry run: 1 edit(s) would change notes.txt")
            && t.contains("\n-beta\n+gamma\n")),
        "{label}: {}",
        calls["edit_file"]["text"]
    );
    assert_eq!(
        calls["execute_tool"]["structured"]["stdout"], "py\n",
        "{label}"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("py/dir/out.txt")).expect("moved file"),
        "from the Python SDK\n",
        "{label}"
    );
    assert_eq!(report["escape"]["is_error"], true, "{label}");
    assert_eq!(
        report["escape"]["text"], "the path \"../escape.txt\" is outside the allowed roots",
        "{label}"
    );
    assert_eq!(report["bad"]["is_error"], true, "{label}");
    assert_eq!(
        report["bad"]["text"],
        "invalid arguments for tool `read_file` (2 errors):\n- missing required argument `path`\n- `head`: expected an integer, got string \"x\"",
        "{label}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_client_calls_every_tool() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/client.py");
    for mode in ["auto", "legacy"] {
        let ws = workspace();
        let root = ws.path().display().to_string();
        let report = python::run_client(
            &script,
            &[
                mode,
                &root,
                "stdio",
                BIN,
                "--root",
                &root,
                "--allow-command",
                "echo",
            ],
        );
        check(&report, ws.path(), &format!("stdio {mode}"));

        let ws = workspace();
        let root = ws.path().display().to_string();
        let server = http_server(BIN, &["--root", &root, "--allow-command", "echo"]).await;
        let report = python::run_client(&script, &[mode, &root, "http", &server.url]);
        check(&report, ws.path(), &format!("http {mode}"));
    }
}

/// `move_path` asks first: with the Python SDK's `elicitation_callback`
/// (2025-11-25 `elicitation/create` in legacy mode, 2026-07-28 input requests
/// in auto mode), over stdio and HTTP, a declined question leaves both paths
/// as they were, an accepted one moves, and a client without the callback
/// gets the tool's `unsupported` behaviour: it runs, or with
/// `--require-confirmation` it is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_confirms_move_path_on_both_generations() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/confirm.py");
    for mode in ["legacy", "auto"] {
        for transport in ["stdio", "http"] {
            for (answer, extra, moves) in [
                ("decline", None, false),
                ("accept", None, true),
                ("none", None, true),
                ("none", Some("--require-confirmation"), false),
            ] {
                let label = format!("{mode} {transport} {answer} {extra:?}");
                let ws = tempfile::tempdir().expect("tempdir");
                std::fs::write(ws.path().join("a.txt"), "moved?\n").expect("write");
                let root = ws.path().display().to_string();
                let mut server_args = vec!["--root", root.as_str()];
                server_args.extend(extra);
                let _server;
                let report = if transport == "stdio" {
                    let mut args = vec![mode, answer, "stdio", BIN];
                    args.extend(&server_args);
                    python::run_client(&script, &args)
                } else {
                    let server = http_server(BIN, &server_args).await;
                    let report = python::run_client(&script, &[mode, answer, "http", &server.url]);
                    _server = server;
                    report
                };
                assert_eq!(report["is_error"], !moves, "{label}: {report}");
                assert_eq!(ws.path().join("a.txt").exists(), !moves, "{label}");
                assert_eq!(ws.path().join("b.txt").exists(), moves, "{label}");
                let asked: Vec<&str> = report["asked"]
                    .as_array()
                    .expect("asked")
                    .iter()
                    .filter_map(|q| q.as_str())
                    .collect();
                if answer == "none" {
                    assert!(asked.is_empty(), "{label}");
                } else {
                    assert_eq!(
                        asked,
                        ["Move a.txt to b.txt? Overwrite an existing file: false"],
                        "{label}"
                    );
                }
                if !moves {
                    let text = report["text"].as_str().unwrap_or_default();
                    let why = if answer == "decline" {
                        "the user declined"
                    } else {
                        "needs the user's confirmation"
                    };
                    assert!(text.contains(why), "{label}: {text}");
                }
            }
        }
    }
}

/// The Python SDK's `list_roots_callback` (legacy 2025-11-25 mode), on stdio
/// and on HTTP: the server serves the client's roots instead of its
/// `--root` (relative paths from the first), and after
/// `notifications/roots/list_changed` asks again and serves the new ones.
/// On stdio they replace the `--root`; over HTTP they must lie inside it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_roots_are_used_and_follow_list_changed() {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/roots.py");
    let dir = tempfile::tempdir().expect("tempdir");
    let base = dir.path().canonicalize().expect("canonical");
    for name in ["cli", "first", "second"] {
        std::fs::create_dir(base.join(name)).expect("mkdir");
        std::fs::write(base.join(name).join("here.txt"), name).expect("write");
    }
    let [cli, first, second] =
        ["cli", "first", "second"].map(|n| base.join(n).display().to_string());
    let everything = base.display().to_string();
    let server = http_server(BIN, &["--root", &everything]).await;
    for target in [
        vec!["stdio", BIN, "--root", &cli],
        vec!["http", &server.url],
    ] {
        let mut args = vec![first.as_str(), second.as_str()];
        args.extend(target.iter().copied());
        let report = python::run_client(&script, &args);
        let label = target[0];
        assert_eq!(
            report["before"],
            json!({"allowed": {"directories": [first], "source": "client roots"},
                   "here": "first", "here_is_error": false}),
            "{label}"
        );
        assert_eq!(
            report["after"],
            json!({"allowed": {"directories": [second], "source": "client roots"},
                   "here": "second", "here_is_error": false}),
            "{label}"
        );
        assert_eq!(report["asked"], json!([[first], [second]]), "{label}");
    }
}
