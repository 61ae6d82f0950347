//! The example server driven by rmcp's client over stdio and Streamable HTTP:
//! every tool called on a temporary workspace and its result checked against
//! the files, bad arguments answered with `isError` texts, escapes refused,
//! and `--read-only`.

use std::path::{Path, PathBuf};

use rmcp::model::{CallToolRequestParams, ReadResourceRequestParams, ResourceContents};
use serde_json::{Value, json};
use toolmetadata_tests::mcp::*;

const BIN: &str = env!("CARGO_BIN_EXE_example-server");

/// A workspace root with a few files, beside a directory outside it.
struct Workspace {
    _dir: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
}

fn workspace() -> Workspace {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("ws");
    let outside = dir.path().join("outside");
    for (path, text) in [
        ("README.md", "# Demo\nHello world\nhello again\n"),
        ("src/main.rs", "fn main() {\n    println!(\"Hello\");\n}\n"),
        (
            "src/lib.rs",
            "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n",
        ),
        ("notes/todo.txt", "one\ntwo\nthree\nfour\nfive\n"),
        (".gitignore", "target/\n"),
        ("target/junk.txt", "Hello from an ignored file\n"),
        (".hidden", "secret-ish\n"),
    ] {
        let p = root.join(path);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, text).expect("write");
    }
    std::fs::create_dir_all(&outside).expect("mkdir");
    std::fs::write(outside.join("secret.txt"), "top secret\n").expect("write");
    Workspace {
        _dir: dir,
        root,
        outside,
    }
}

fn read(root: &Path, path: &str) -> String {
    std::fs::read_to_string(root.join(path)).unwrap_or_default()
}

async fn ok(client: &Client, tool: &str, args: Value) -> rmcp::model::CallToolResult {
    let r = call(client, tool, args.clone()).await;
    assert!(!is_error(&r), "{tool} {args}: {}", text(&r));
    r
}

async fn err(client: &Client, tool: &str, args: Value) -> String {
    let r = call(client, tool, args.clone()).await;
    assert!(is_error(&r), "{tool} {args} should fail, got {}", text(&r));
    text(&r)
}

async fn every_tool(client: &Client, ws: &Workspace) {
    // read_file: whole, range, head, tail
    assert_eq!(
        text(&ok(client, "read_file", json!({"path": "README.md"})).await),
        read(&ws.root, "README.md")
    );
    assert_eq!(
        text(
            &ok(
                client,
                "read_file",
                json!({"path": "notes/todo.txt", "start_line": 2, "end_line": 3})
            )
            .await
        ),
        "two\nthree"
    );
    assert_eq!(
        text(
            &ok(
                client,
                "read_file",
                json!({"path": "notes/todo.txt", "head": 2})
            )
            .await
        ),
        "one\ntwo"
    );
    assert_eq!(
        text(
            &ok(
                client,
                "read_file",
                json!({"path": "notes/todo.txt", "tail": "2"})
            )
            .await
        ),
        "four\nfive"
    );
    let abs = ws.root.join("src/lib.rs").display().to_string();
    assert!(text(&ok(client, "read_file", json!({"path": abs})).await).contains("pub fn add"));

    // list_directory
    let r = ok(client, "list_directory", json!({})).await;
    assert_eq!(
        r.structured_content,
        Some(json!({"entries": ["README.md", "notes/", "src/", "target/"], "truncated": false}))
    );
    let r = ok(
        client,
        "list_directory",
        json!({"path": ".", "depth": 2, "hidden": true}),
    )
    .await;
    let entries = r.structured_content.as_ref().expect("structured")["entries"].clone();
    assert_eq!(
        entries,
        json!([
            ".gitignore",
            ".hidden",
            "README.md",
            "notes/",
            "notes/todo.txt",
            "src/",
            "src/lib.rs",
            "src/main.rs",
            "target/",
            "target/junk.txt"
        ])
    );

    // directory_tree
    let tree = text(&ok(client, "directory_tree", json!({"depth": 2})).await);
    assert_eq!(
        tree,
        "ws/\n├── notes/\n│   └── todo.txt\n├── src/\n│   ├── lib.rs\n│   └── main.rs\n├── target/\n│   └── junk.txt\n└── README.md\n"
    );

    // search_files: .gitignore respected, case, glob, max_results
    let r = ok(client, "search_files", json!({"pattern": "hello"})).await;
    let matches = r.structured_content.as_ref().expect("structured")["matches"].clone();
    assert_eq!(
        matches,
        json!([
            "README.md:2:Hello world",
            "README.md:3:hello again",
            "src/main.rs:2:    println!(\"Hello\");"
        ])
    );
    let r = ok(
        client,
        "search_files",
        json!({"pattern": "Hello", "case": "sensitive", "glob": "*.rs"}),
    )
    .await;
    assert_eq!(
        r.structured_content.as_ref().expect("structured")["matches"],
        json!(["src/main.rs:2:    println!(\"Hello\");"])
    );
    let r = ok(
        client,
        "search_files",
        json!({"pattern": "e", "max_results": 2}),
    )
    .await;
    assert_eq!(
        r.structured_content.as_ref().expect("structured")["truncated"],
        json!(true)
    );

    // find_files
    let r = ok(client, "find_files", json!({"glob": "*.rs"})).await;
    assert_eq!(
        r.structured_content,
        Some(json!({"files": ["src/lib.rs", "src/main.rs"], "truncated": false}))
    );

    // file_info
    let r = ok(client, "file_info", json!({"path": "README.md"})).await;
    let info = r.structured_content.expect("structured");
    assert_eq!(
        (
            info["kind"].clone(),
            info["size"].clone(),
            info["readonly"].clone()
        ),
        (json!("file"), json!(31), json!(false))
    );
    assert!(info["modified"].as_i64().is_some_and(|t| t > 1_600_000_000));
    let r = ok(client, "file_info", json!({"path": "src"})).await;
    assert_eq!(
        r.structured_content.expect("structured")["kind"],
        "directory"
    );

    // write_file, replace_in_file, create_directory, move_path
    ok(
        client,
        "write_file",
        json!({"path": "out/new.txt", "content": "fresh\n", "create_dirs": true}),
    )
    .await;
    assert_eq!(read(&ws.root, "out/new.txt"), "fresh\n");
    ok(
        client,
        "write_file",
        json!({"path": "out/new.txt", "content": "again\nagain\n"}),
    )
    .await;
    let r = ok(client, "replace_in_file", json!({"path": "out/new.txt", "old_text": "again", "new_text": "once", "expected_count": 2})).await;
    assert_eq!(r.structured_content, Some(json!({"replaced": 2})));
    assert_eq!(read(&ws.root, "out/new.txt"), "once\nonce\n");
    ok(client, "create_directory", json!({"path": "made/deep/er"})).await;
    assert!(ws.root.join("made/deep/er").is_dir());
    ok(
        client,
        "move_path",
        json!({"source": "out/new.txt", "destination": "made/moved.txt"}),
    )
    .await;
    assert_eq!(read(&ws.root, "made/moved.txt"), "once\nonce\n");
    assert!(!ws.root.join("out/new.txt").exists());

    // run_command (discoverable: called through execute_tool and directly)
    let r = ok(
        client,
        "execute_tool",
        json!({"name": "run_command", "parameters": {"program": "echo", "args": ["hi", "there"]}}),
    )
    .await;
    assert_eq!(
        r.structured_content,
        Some(
            json!({"exit_code": 0, "stdout": "hi there\n", "stderr": "", "timed_out": false, "truncated": false})
        )
    );
    let r = ok(
        client,
        "run_command",
        json!({"program": "ls", "cwd": "src"}),
    )
    .await;
    assert_eq!(
        r.structured_content.expect("structured")["stdout"],
        "lib.rs\nmain.rs\n"
    );
    let r = ok(
        client,
        "run_command",
        json!({"program": "sleep", "args": ["5"], "timeout_secs": 1}),
    )
    .await;
    let out = r.structured_content.expect("structured");
    assert_eq!(
        (out["timed_out"].clone(), out.get("exit_code").cloned()),
        (json!(true), None)
    );

    // the [ui] resource
    let read = client
        .read_resource(ReadResourceRequestParams::new("ui://workspace/tree"))
        .await
        .expect("resources/read");
    match &read.contents[0] {
        ResourceContents::TextResourceContents {
            mime_type, text, ..
        } => {
            assert_eq!(mime_type.as_deref(), Some("text/html;profile=mcp-app"));
            assert!(text.contains("<html"));
        }
        other => panic!("{other:?}"),
    }
}

async fn bad_arguments(client: &Client) {
    assert_eq!(
        err(client, "read_file", json!({})).await,
        "invalid arguments for tool `read_file` (1 error):\n- missing required argument `path`"
    );
    assert_eq!(
        err(
            client,
            "read_file",
            json!({"path": "README.md", "head": 0, "pth": 1})
        )
        .await,
        "invalid arguments for tool `read_file` (2 errors):\n- unknown argument `pth`; did you mean `path`?\n- `head`: expected at least 1, got 0"
    );
    assert_eq!(
        err(
            client,
            "read_file",
            json!({"path": "README.md", "head": 1, "tail": 1})
        )
        .await,
        "give `head` or `tail`, not both"
    );
    assert_eq!(
        err(client, "read_file", json!({"path": "nope.txt"})).await,
        "\"nope.txt\" does not exist"
    );
    assert_eq!(
        err(client, "read_file", json!({"path": "src"})).await,
        "src is a directory; use list_directory"
    );
    assert_eq!(
        err(client, "list_directory", json!({"depth": 11})).await,
        "invalid arguments for tool `list_directory` (1 error):\n- `depth`: expected at most 10, got 11"
    );
    assert!(
        err(client, "search_files", json!({"pattern": "("}))
            .await
            .starts_with("`pattern` is not a valid regular expression")
    );
    assert_eq!(
        err(
            client,
            "search_files",
            json!({"pattern": "x", "case": "loud"})
        )
        .await,
        "invalid arguments for tool `search_files` (1 error):\n- `case`: expected one of \"sensitive\", \"insensitive\", \"smart\", got string \"loud\""
    );
    assert_eq!(
        err(
            client,
            "replace_in_file",
            json!({"path": "README.md", "old_text": "zzz", "new_text": "y"})
        )
        .await,
        "old_text occurs 0 times in README.md, expected 1; nothing was changed"
    );
    assert_eq!(
        err(
            client,
            "write_file",
            json!({"path": "no/dir/x.txt", "content": ""})
        )
        .await,
        "the directory of no/dir/x.txt does not exist; pass create_dirs: true to create it"
    );
    assert_eq!(
        err(
            client,
            "move_path",
            json!({"source": "README.md", "destination": "src/lib.rs"})
        )
        .await,
        "src/lib.rs exists; pass overwrite: true to replace it"
    );
    assert_eq!(
        err(
            client,
            "run_command",
            json!({"program": "rm", "args": ["-rf", "."]})
        )
        .await,
        "`rm` is not allowed; allowed programs: echo, ls, sleep"
    );
    assert_eq!(
        err(
            client,
            "run_command",
            json!({"program": "echo", "timeout_secs": 0})
        )
        .await,
        "invalid arguments for tool `run_command` (1 error):\n- `timeout_secs`: expected at least 1, got 0"
    );
}

/// Escape attempts through the tools: each refused, nothing written outside.
async fn confinement(client: &Client, ws: &Workspace) {
    let outside_before = listing(&ws.outside);
    std::os::unix::fs::symlink(&ws.outside, ws.root.join("link_out")).expect("symlink");
    std::os::unix::fs::symlink(ws.root.join("loop_b"), ws.root.join("loop_a")).expect("symlink");
    std::os::unix::fs::symlink(ws.root.join("loop_a"), ws.root.join("loop_b")).expect("symlink");
    let secret = ws.outside.join("secret.txt").display().to_string();
    let outside_new = ws.outside.join("new.txt").display().to_string();
    let long = "a/".repeat(3000);
    let attempts: Vec<(&str, Value)> = vec![
        ("read_file", json!({"path": "../outside/secret.txt"})),
        ("read_file", json!({"path": "src/../../outside/secret.txt"})),
        ("read_file", json!({"path": secret})),
        ("read_file", json!({"path": "/etc/passwd"})),
        ("read_file", json!({"path": "link_out/secret.txt"})),
        ("read_file", json!({"path": "loop_a"})),
        ("read_file", json!({"path": "README.md\u{0}.txt"})),
        ("read_file", json!({"path": long})),
        ("list_directory", json!({"path": ".."})),
        ("list_directory", json!({"path": "link_out"})),
        ("directory_tree", json!({"path": "/"})),
        (
            "search_files",
            json!({"pattern": "secret", "path": "link_out"}),
        ),
        ("find_files", json!({"glob": "*", "path": "../outside"})),
        ("file_info", json!({"path": "../outside/secret.txt"})),
        (
            "write_file",
            json!({"path": "../outside/new.txt", "content": "x"}),
        ),
        ("write_file", json!({"path": outside_new, "content": "x"})),
        (
            "write_file",
            json!({"path": "link_out/new.txt", "content": "x"}),
        ),
        (
            "write_file",
            json!({"path": "link_out/secret.txt", "content": "overwritten"}),
        ),
        ("create_directory", json!({"path": "link_out/made"})),
        ("create_directory", json!({"path": "../outside/made"})),
        (
            "replace_in_file",
            json!({"path": "link_out/secret.txt", "old_text": "top", "new_text": "no"}),
        ),
        (
            "move_path",
            json!({"source": "README.md", "destination": "../outside/README.md"}),
        ),
        (
            "move_path",
            json!({"source": "../outside/secret.txt", "destination": "stolen.txt"}),
        ),
        ("run_command", json!({"program": "ls", "cwd": "../outside"})),
        ("run_command", json!({"program": "ls", "cwd": "link_out"})),
    ];
    assert!(attempts.len() >= 15);
    for (tool, args) in attempts {
        let message = err(client, tool, args.clone()).await;
        assert!(
            [
                "outside the allowed roots",
                "NUL byte",
                "longer than",
                "Too many levels",
                "cannot resolve",
                "does not exist"
            ]
            .iter()
            .any(|why| message.contains(why)),
            "{tool} {args}: {message}"
        );
    }
    // A link moved inside the root still leads out when followed.
    ok(
        client,
        "move_path",
        json!({"source": "link_out", "destination": "renamed_link"}),
    )
    .await;
    let m = err(
        client,
        "read_file",
        json!({"path": "renamed_link/secret.txt"}),
    )
    .await;
    assert!(m.contains("outside the allowed roots"), "{m}");
    let m = err(
        client,
        "write_file",
        json!({"path": "renamed_link/x.txt", "content": "x"}),
    )
    .await;
    assert!(m.contains("outside the allowed roots"), "{m}");
    // Unicode look-alikes of `..` are ordinary names: they stay inside.
    for lookalike in [
        "\u{ff0e}\u{ff0e}/x.txt",
        "\u{2024}\u{2024}/x.txt",
        "..\u{200b}/x.txt",
    ] {
        ok(
            client,
            "write_file",
            json!({"path": lookalike, "content": "inside", "create_dirs": true}),
        )
        .await;
        assert_eq!(read(&ws.root, lookalike), "inside");
    }
    assert_eq!(
        listing(&ws.outside),
        outside_before,
        "nothing was written outside the root"
    );
    assert_eq!(read(&ws.outside, "secret.txt"), "top secret\n");
}

/// Every path under `dir` with its content, to see that nothing changed.
fn listing(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p.clone());
            }
            out.push((p.clone(), std::fs::read(&p).unwrap_or_default()));
        }
    }
    out.sort();
    out
}

fn server_args(ws: &Workspace) -> Vec<String> {
    [
        "--root",
        &ws.root.display().to_string(),
        "--allow-command",
        "echo",
        "--allow-command",
        "ls",
        "--allow-command",
        "sleep",
    ]
    .map(str::to_owned)
    .to_vec()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_stdio() {
    let ws = workspace();
    let args = server_args(&ws);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (client, _) = stdio(BIN, &args).await;
    every_tool(&client, &ws).await;
    bad_arguments(&client).await;
    confinement(&client, &ws).await;
    client.cancel().await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_http() {
    let ws = workspace();
    let args = server_args(&ws);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let server = http_server(BIN, &args).await;
    let (client, _) = http_client(&server.url).await;
    every_tool(&client, &ws).await;
    bad_arguments(&client).await;
    confinement(&client, &ws).await;
    client.cancel().await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_only_hides_and_refuses_the_write_tools() {
    let ws = workspace();
    let root = ws.root.display().to_string();
    let (client, _) = stdio(BIN, &["--root", &root, "--read-only", "--show-all"]).await;
    let names: Vec<String> = client
        .list_all_tools()
        .await
        .expect("list")
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    assert_eq!(
        names,
        [
            "directory_tree",
            "file_info",
            "find_files",
            "list_allowed_directories",
            "list_directory",
            "list_directory_with_sizes",
            "read_file",
            "read_media_file",
            "read_multiple_files",
            "search_files"
        ]
    );
    for tool in [
        "write_file",
        "replace_in_file",
        "edit_file",
        "create_directory",
        "move_path",
        "run_command",
    ] {
        let refused = client
            .call_tool(
                CallToolRequestParams::new(tool.to_owned()).with_arguments(serde_json::Map::new()),
            )
            .await;
        assert!(refused.is_err(), "{tool} is refused");
    }
    assert_eq!(
        read(&ws.root, "README.md"),
        "# Demo\nHello world\nhello again\n"
    );
    client.cancel().await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_root_given_as_a_symlink_confines_to_its_target() {
    let ws = workspace();
    let link = ws.root.parent().expect("parent").join("ws_link");
    std::os::unix::fs::symlink(&ws.root, &link).expect("symlink");
    let link_arg = link.display().to_string();
    let (client, _) = stdio(BIN, &["--root", &link_arg]).await;
    assert_eq!(
        text(
            &ok(
                &client,
                "read_file",
                json!({"path": "README.md", "head": 1})
            )
            .await
        ),
        "# Demo"
    );
    let through_link = link.join("src/lib.rs").display().to_string();
    assert!(
        text(&ok(&client, "read_file", json!({"path": through_link})).await).contains("pub fn add")
    );
    for escape in ["../outside/secret.txt", "../ws_link/../outside/secret.txt"] {
        let m = err(&client, "read_file", json!({"path": escape})).await;
        assert!(m.contains("outside the allowed roots"), "{escape}: {m}");
    }
    client.cancel().await.expect("close");
}

/// `run_command` declares `not_allowed` (`[[failures]]`): a program off the
/// allow list is that failure, with its class and a correlation id in the
/// result's `_meta` that the server's log names too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_declared_failure_carries_its_class_and_correlation_id() {
    let ws = workspace();
    let args = server_args(&ws);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let server = http_server(BIN, &args).await;
    let (client, _) = http_client(&server.url).await;
    let result = call(&client, "run_command", json!({"program": "rm"})).await;
    assert!(is_error(&result));
    let failure = result
        .meta
        .as_ref()
        .and_then(|m| m.0.get("io.modelcontextprotocol/toolFailure"))
        .cloned()
        .expect("toolFailure in _meta");
    assert_eq!(failure["class"], "governance");
    assert_eq!(failure["code"], "not_allowed");
    assert_eq!(failure["retryable"], false);
    let id = failure["correlationId"]
        .as_str()
        .expect("correlationId")
        .to_owned();
    assert_eq!(id.len(), 36, "{id}");
    let logged = async {
        loop {
            if server
                .logs
                .lock()
                .expect("logs")
                .iter()
                .any(|l| l.contains(&id))
            {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(std::time::Duration::from_secs(5), logged)
        .await
        .expect("the log names the correlation id");
    client.cancel().await.expect("close");
}
