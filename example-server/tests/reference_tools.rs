//! What users of the reference filesystem server (`@modelcontextprotocol/
//! server-filesystem`) rely on, through rmcp's client over stdio (issue 16):
//! `edit_file`, `read_media_file`, Latin-1 text in `read_file`,
//! `read_multiple_files`, `list_directory_with_sizes`, `exclude_patterns`,
//! and writes that are never half-done; with hostile inputs refused cleanly.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

use base64::Engine as _;
use rmcp::model::{CallToolResult, ContentBlock, ResourceContents};
use serde_json::{Value, json};
use toolmetadata_tests::mcp::*;

const BIN: &str = env!("CARGO_BIN_EXE_example-server");

/// The smallest PNG signature and header `infer` recognises, then junk.
const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x02\0\0\0\x90wS\xde";

fn put(root: &Path, path: &str, bytes: &[u8]) {
    let p = root.join(path);
    std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
    std::fs::write(p, bytes).expect("write");
}

fn read(root: &Path, path: &str) -> String {
    std::fs::read_to_string(root.join(path)).unwrap_or_default()
}

/// A root `ws` beside a directory `outside` with a secret.
fn workspace() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("ws");
    std::fs::create_dir_all(&root).expect("mkdir");
    put(dir.path(), "outside/secret.txt", b"top secret\n");
    std::os::unix::fs::symlink(dir.path().join("outside"), root.join("link_out")).expect("symlink");
    (dir, root)
}

async fn server(root: &Path, extra: &[&str]) -> Client {
    let root = root.display().to_string();
    let mut args = vec!["--root", &root];
    args.extend_from_slice(extra);
    stdio(BIN, &args).await.0
}

/// Calls a tool, failing the test if it takes more than 20 seconds (a call
/// that blocks on a FIFO would).
async fn call_in_time(client: &Client, tool: &str, args: Value) -> CallToolResult {
    tokio::time::timeout(Duration::from_secs(20), call(client, tool, args))
        .await
        .unwrap_or_else(|_| panic!("{tool} did not answer in time"))
}

async fn ok(client: &Client, tool: &str, args: Value) -> CallToolResult {
    let r = call_in_time(client, tool, args.clone()).await;
    assert!(!is_error(&r), "{tool} {args}: {}", text(&r));
    r
}

async fn err(client: &Client, tool: &str, args: Value) -> String {
    let r = call_in_time(client, tool, args.clone()).await;
    assert!(is_error(&r), "{tool} {args} should fail, got {}", text(&r));
    text(&r)
}

const APP: &str = "def main():\n    if ready:\n        start()\n    stop()\n\nname = 'old'\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edit_file_applies_tolerant_edits_in_order_with_a_diff() {
    let (_dir, root) = workspace();
    put(&root, "app.py", APP.as_bytes());
    let client = server(&root, &[]).await;
    // The second old text lost its indentation and gained trailing blanks:
    // matched line by line, and its replacement is indented as the file is.
    let edits = json!({
        "path": "app.py",
        "old_texts": ["name = 'old'", "if ready:   \n    start()"],
        "new_texts": ["name = 'new'", "if ready and sane:\n    start()\n    log()"],
    });
    let mut dry = edits.clone();
    dry["dry_run"] = json!(true);
    let preview = text(&ok(&client, "edit_file", dry).await);
    assert!(
        preview.starts_with("dry run: 2 edit(s) would change app.py"),
        "{preview}"
    );
    assert_eq!(read(&root, "app.py"), APP, "a dry run changes nothing");

    let done = text(&ok(&client, "edit_file", edits).await);
    let expected = "def main():\n    if ready and sane:\n        start()\n        log()\n    stop()\n\nname = 'new'\n";
    assert_eq!(read(&root, "app.py"), expected);
    assert!(
        done.starts_with("applied 2 edit(s) to app.py\n```diff\n"),
        "{done}"
    );
    for line in [
        "--- app.py",
        "+++ app.py",
        "-    if ready:",
        "+    if ready and sane:",
        "+        log()",
        "-name = 'old'",
        "+name = 'new'",
    ] {
        assert!(done.lines().any(|l| l == line), "{line:?} in {done}");
    }
    assert_eq!(
        preview.split_once('\n').map(|p| p.1),
        done.split_once('\n').map(|d| d.1),
        "the dry run showed the same diff"
    );

    // Refused, each saying where and why, and nothing changed.
    let refusals = [
        (
            json!({"path": "app.py", "old_texts": ["start()"], "new_texts": ["a", "b"]}),
            "`old_texts` has 1 items and `new_texts` 2",
        ),
        (
            json!({"path": "app.py", "old_texts": ["()"], "new_texts": ["x"]}),
            "`old_texts[0]` occurs more than once",
        ),
        (
            json!({"path": "app.py", "old_texts": ["stop()", " \n "], "new_texts": ["x", "y"]}),
            "`old_texts[1]` is empty or only whitespace",
        ),
        (
            json!({"path": "app.py", "old_texts": ["stop()", "nowhere"], "new_texts": ["x", "y"]}),
            "`old_texts[1]` was not found",
        ),
        (
            json!({"path": "../outside/secret.txt", "old_texts": ["top"], "new_texts": ["x"]}),
            "outside the allowed roots",
        ),
        (
            json!({"path": "link_out/secret.txt", "old_texts": ["top"], "new_texts": ["x"]}),
            "outside the allowed roots",
        ),
    ];
    for (args, says) in refusals {
        let m = err(&client, "edit_file", args.clone()).await;
        assert!(m.contains(says), "{args}: {m}");
    }
    assert_eq!(read(&root, "app.py"), expected);
    assert_eq!(
        read(root.parent().expect("parent"), "outside/secret.txt"),
        "top secret\n"
    );
    client.cancel().await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edit_file_asks_with_the_diff_and_a_decline_changes_nothing() {
    use rmcp::model::CallToolRequestParams;
    use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
    use rmcp::{ClientLifecycleMode, ClientServiceExt};
    let (_dir, root) = workspace();
    put(&root, "a.txt", b"old line\n");
    let r = root.display().to_string();
    let declining = Person::answering(json!({"action": "decline"}));
    let transport = TokioChildProcess::new(tokio::process::Command::new(BIN).configure(|c| {
        c.args(["--root", &r]).stderr(std::process::Stdio::null());
    }))
    .expect("spawn");
    let session = declining
        .clone()
        .serve_with_lifecycle(transport, ClientLifecycleMode::Initialize)
        .await
        .expect("initialize");
    let edit = |dry_run: bool| {
        let Value::Object(args) = json!({"path": "a.txt", "old_texts": ["old"], "new_texts": ["new"], "dry_run": dry_run})
        else {
            unreachable!()
        };
        CallToolRequestParams::new("edit_file").with_arguments(args)
    };
    let dry = session.call_tool(edit(true)).await.expect("call");
    assert_ne!(dry.is_error, Some(true), "{}", text(&dry));
    assert!(declining.asked().is_empty(), "a dry run asks nothing");
    let refused = session.call_tool(edit(false)).await.expect("call");
    assert_eq!(refused.is_error, Some(true));
    assert!(
        text(&refused).contains("did not confirm"),
        "{}",
        text(&refused)
    );
    let asked = declining.asked();
    assert_eq!(asked.len(), 1);
    assert!(
        asked[0].starts_with("Apply 1 edit(s) to a.txt?\n--- a.txt\n+++ a.txt\n")
            && asked[0].contains("\n-old line\n+new line\n"),
        "{asked:?}"
    );
    assert_eq!(read(&root, "a.txt"), "old line\n");
    session.cancel().await.expect("close");
}

/// On 2026-07-28 the question travels as an `InputRequiredResult`: nothing
/// is written before the retry that carries the answer, which the handler,
/// run again, checks against the same diff.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edit_file_confirmed_on_a_2026_retry() {
    use std::collections::BTreeMap;

    use rmcp::model::{CallToolRequestParams, CallToolResponse, ProtocolVersion};
    use rmcp::transport::StreamableHttpClientTransport;
    use rmcp::{ClientLifecycleMode, ClientServiceExt};
    let (_dir, root) = workspace();
    put(&root, "a.txt", b"    old\n");
    let r = root.display().to_string();
    let instance = http_server(BIN, &["--root", &r]).await;
    let person = Person::answering(json!({"action": "accept", "content": {}}));
    let client = person
        .clone()
        .serve_with_lifecycle(
            StreamableHttpClientTransport::from_uri(instance.url.clone()),
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .expect("discover");
    let edit = || {
        let Value::Object(args) =
            json!({"path": "a.txt", "old_texts": ["old"], "new_texts": ["new"]})
        else {
            unreachable!()
        };
        CallToolRequestParams::new("edit_file").with_arguments(args)
    };
    let CallToolResponse::InputRequired(input) =
        client.call_tool_once(edit()).await.expect("first attempt")
    else {
        panic!("edit_file must ask first");
    };
    assert_eq!(
        read(&root, "a.txt"),
        "    old\n",
        "nothing written before the answer"
    );
    let requests = input.input_requests.expect("a question");
    assert!(
        format!("{requests:?}").contains("Apply 1 edit(s) to a.txt?"),
        "{requests:?}"
    );
    let mut retry = edit();
    retry.input_responses = Some(
        requests
            .keys()
            .map(|k| (k.clone(), json!({"action": "accept", "content": {}})))
            .collect::<BTreeMap<String, Value>>(),
    );
    retry.request_state = input.request_state;
    match client.call_tool_once(retry).await.expect("retry") {
        CallToolResponse::Complete(result) => {
            assert_ne!(result.is_error, Some(true), "{}", text(&result));
            assert!(
                text(&result).starts_with("applied 1 edit(s) to a.txt"),
                "{}",
                text(&result)
            );
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(read(&root, "a.txt"), "    new\n");
    client.cancel().await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edit_file_needs_a_confirmation_when_required_but_a_dry_run_does_not() {
    let (_dir, root) = workspace();
    put(&root, "a.txt", b"old\n");
    // rmcp's client here declares no elicitation: it cannot answer.
    let client = server(&root, &["--require-confirmation"]).await;
    let args = json!({"path": "a.txt", "old_texts": ["old"], "new_texts": ["new"]});
    let m = err(&client, "edit_file", args.clone()).await;
    assert!(m.starts_with("a.txt was not edited:"), "{m}");
    let mut dry = args;
    dry["dry_run"] = json!(true);
    let preview = text(&ok(&client, "edit_file", dry).await);
    assert!(preview.contains("\n-old\n+new\n"), "{preview}");
    assert_eq!(read(&root, "a.txt"), "old\n");
    client.cancel().await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edit_file_bounds_hostile_edits() {
    let (_dir, root) = workspace();
    put(&root, "a.txt", b"a\n");
    let client = server(&root, &["--max-file-bytes", "100000"]).await;
    let many: Vec<String> = (0..101).map(|i| format!("x{i}")).collect();
    let m = err(
        &client,
        "edit_file",
        json!({"path": "a.txt", "old_texts": many, "new_texts": many}),
    )
    .await;
    assert!(m.contains("`old_texts`: expected at most 100 items"), "{m}");
    let huge = "a".repeat(250_000);
    let m = err(
        &client,
        "edit_file",
        json!({"path": "a.txt", "old_texts": [huge], "new_texts": ["b"]}),
    )
    .await;
    assert!(m.contains("more than twice the 100000 bytes"), "{m}");
    let m = err(
        &client,
        "edit_file",
        json!({"path": "a.txt", "old_texts": ["a"], "new_texts": ["b".repeat(100_001)]}),
    )
    .await;
    assert!(m.contains("more than the 100000 edit_file writes"), "{m}");
    put(&root, "bin.dat", b"\xff\xfe\0a");
    let m = err(
        &client,
        "edit_file",
        json!({"path": "bin.dat", "old_texts": ["a"], "new_texts": ["b"]}),
    )
    .await;
    assert!(m.contains("not UTF-8 text"), "{m}");
    rustix::fs::mkfifoat(
        rustix::fs::CWD,
        root.join("fifo"),
        rustix::fs::Mode::from(0o600),
    )
    .expect("mkfifo");
    let m = err(
        &client,
        "edit_file",
        json!({"path": "fifo", "old_texts": ["a"], "new_texts": ["b"]}),
    )
    .await;
    assert!(m.contains("FIFO"), "{m}");
    assert_eq!(read(&root, "a.txt"), "a\n");
    client.cancel().await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn media_comes_back_as_image_audio_or_blob_and_latin1_is_text() {
    let (_dir, root) = workspace();
    put(&root, "pic.dat", PNG); // sniffed by content, not by name
    put(
        &root,
        "sound.wav",
        b"RIFF\x24\0\0\0WAVEfmt \x10\0\0\0\x01\0\x01\0",
    );
    put(&root, "blob.bin", b"\0\x01\x02\x03\xff");
    put(&root, "latin1.txt", b"caf\xe9 na\xefve \x80\n");
    let client = server(&root, &["--max-file-bytes", "1000"]).await;

    let r = ok(&client, "read_media_file", json!({"path": "pic.dat"})).await;
    match &r.content[0] {
        ContentBlock::Image(image) => {
            assert_eq!(image.mime_type, "image/png");
            assert_eq!(
                image.data,
                base64::engine::general_purpose::STANDARD.encode(PNG)
            );
        }
        other => panic!("{other:?}"),
    }
    let r = ok(&client, "read_media_file", json!({"path": "sound.wav"})).await;
    match &r.content[0] {
        ContentBlock::Audio(audio) => assert!(audio.mime_type.starts_with("audio/"), "{audio:?}"),
        other => panic!("{other:?}"),
    }
    let r = ok(&client, "read_media_file", json!({"path": "blob.bin"})).await;
    match &r.content[0] {
        ContentBlock::Resource(embedded) => match &embedded.resource {
            ResourceContents::BlobResourceContents {
                uri,
                mime_type,
                blob,
                ..
            } => {
                assert!(
                    uri.starts_with("file:///") && uri.ends_with("/ws/blob.bin"),
                    "{uri}"
                );
                assert_eq!(mime_type.as_deref(), Some("application/octet-stream"));
                assert_eq!(blob, "AAECA/8=");
            }
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    }

    let latin1 = text(&ok(&client, "read_file", json!({"path": "latin1.txt"})).await);
    assert!(
        latin1.contains("not UTF-8") && latin1.contains("Windows-1252"),
        "{latin1}"
    );
    assert!(latin1.ends_with("café naïve €\n"), "{latin1}");
    let m = err(&client, "read_file", json!({"path": "blob.bin"})).await;
    assert!(
        m.contains("binary file") && m.contains("read_media_file"),
        "{m}"
    );

    // Bounded and confined like every read; a FIFO answers at once.
    put(&root, "big.png", &[PNG, &[0_u8; 1000]].concat());
    let m = err(&client, "read_media_file", json!({"path": "big.png"})).await;
    assert!(m.contains("more than the 1000"), "{m}");
    rustix::fs::mkfifoat(
        rustix::fs::CWD,
        root.join("fifo"),
        rustix::fs::Mode::from(0o600),
    )
    .expect("mkfifo");
    let m = err(&client, "read_media_file", json!({"path": "fifo"})).await;
    assert!(m.contains("FIFO"), "{m}");
    for path in ["link_out/secret.txt", "../outside/secret.txt"] {
        let m = err(&client, "read_media_file", json!({"path": path})).await;
        assert!(m.contains("outside the allowed roots"), "{path}: {m}");
    }
    client.cancel().await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_read_reports_each_file() {
    let (_dir, root) = workspace();
    put(&root, "a.txt", b"alpha\n");
    put(&root, "l1.txt", b"\xe9t\xe9\n");
    put(&root, "big1.txt", &[b'x'; 600]);
    put(&root, "big2.txt", &[b'y'; 600]);
    put(&root, "bin.dat", b"\0\xff");
    rustix::fs::mkfifoat(
        rustix::fs::CWD,
        root.join("fifo"),
        rustix::fs::Mode::from(0o600),
    )
    .expect("mkfifo");
    let client = server(&root, &["--max-file-bytes", "1000"]).await;
    let r = ok(
        &client,
        "read_multiple_files",
        json!({"paths": ["a.txt", "missing.txt", "../outside/secret.txt", "link_out/secret.txt", "l1.txt", "bin.dat", "fifo", "big1.txt", "big2.txt"]}),
    )
    .await;
    let blocks: Vec<String> = r
        .content
        .iter()
        .map(|c| c.as_text().map(|t| t.text.clone()).unwrap_or_default())
        .collect();
    assert_eq!(blocks.len(), 9, "{blocks:?}");
    assert_eq!(blocks[0], "a.txt:\nalpha\n");
    assert_eq!(
        blocks[1],
        "\"missing.txt\": error: \"missing.txt\" does not exist"
    );
    assert!(
        blocks[2].contains("error: the path") && blocks[2].contains("outside the allowed roots"),
        "{}",
        blocks[2]
    );
    assert!(
        blocks[3].contains("outside the allowed roots"),
        "{}",
        blocks[3]
    );
    assert!(
        blocks[4].starts_with("l1.txt:\n[note: this file is not UTF-8")
            && blocks[4].ends_with("été\n"),
        "{}",
        blocks[4]
    );
    assert!(blocks[5].contains("binary file"), "{}", blocks[5]);
    assert!(blocks[6].contains("FIFO"), "{}", blocks[6]);
    assert_eq!(blocks[7], format!("big1.txt:\n{}", "x".repeat(600)));
    assert!(
        blocks[8].contains(
            "not read: it has 600 bytes, more than the 388 left of the 1000 bytes one batch returns"
        ),
        "{}",
        blocks[8]
    );
    let many: Vec<String> = (0..101).map(|i| format!("f{i}")).collect();
    let m = err(&client, "read_multiple_files", json!({"paths": many})).await;
    assert!(m.contains("`paths`: expected at most 100 items"), "{m}");
    client.cancel().await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listing_with_sizes_sorts_by_size_with_totals() {
    let (_dir, root) = workspace();
    put(&root, "small.txt", b"1");
    put(&root, "large.txt", &[b'x'; 300]);
    put(&root, "medium.txt", &[b'x'; 20]);
    put(&root, "sub/inner.txt", &[b'x'; 5000]);
    put(&root, ".hidden", b"12");
    let client = server(&root, &[]).await;
    let r = ok(
        &client,
        "list_directory_with_sizes",
        json!({"sort_by": "size"}),
    )
    .await;
    assert_eq!(
        r.structured_content,
        Some(json!({
            "entries": [
                "[FILE] large.txt (300 bytes)",
                "[FILE] medium.txt (20 bytes)",
                "[FILE] small.txt (1 bytes)",
                "[LINK] link_out",
                "[DIR] sub/"
            ],
            "files": 3,
            "directories": 1,
            "bytes": 321,
            "truncated": false
        }))
    );
    let r = ok(
        &client,
        "list_directory_with_sizes",
        json!({"hidden": true}),
    )
    .await;
    let out = r.structured_content.expect("structured");
    assert_eq!(out["entries"][0], "[FILE] .hidden (2 bytes)");
    assert_eq!(out["entries"][1], "[FILE] large.txt (300 bytes)");
    assert_eq!(
        (out["files"].clone(), out["bytes"].clone()),
        (json!(4), json!(323))
    );
    let m = err(
        &client,
        "list_directory_with_sizes",
        json!({"path": "link_out"}),
    )
    .await;
    assert!(m.contains("outside the allowed roots"), "{m}");
    let m = err(
        &client,
        "list_directory_with_sizes",
        json!({"sort_by": "date"}),
    )
    .await;
    assert!(
        m.contains("`sort_by`: expected one of \"name\", \"size\""),
        "{m}"
    );
    client.cancel().await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exclude_patterns_are_honoured_by_tree_and_searches() {
    let (_dir, root) = workspace();
    std::fs::remove_file(root.join("link_out")).expect("unlink");
    put(&root, "src/main.rs", b"needle\n");
    put(&root, "src/gen/out.rs", b"needle\n");
    put(&root, "node_modules/pkg/index.js", b"needle\n");
    put(&root, "deep/node_modules/x.js", b"needle\n");
    put(&root, "app.log", b"needle\n");
    let client = server(&root, &[]).await;
    let excluding = json!(["node_modules", "*.log", "src/gen/**"]);
    let tree = text(
        &ok(
            &client,
            "directory_tree",
            json!({"exclude_patterns": excluding}),
        )
        .await,
    );
    assert_eq!(
        tree,
        "ws/\n├── deep/\n└── src/\n    ├── gen/\n    └── main.rs\n"
    );
    let r = ok(
        &client,
        "search_files",
        json!({"pattern": "needle", "exclude_patterns": excluding}),
    )
    .await;
    assert_eq!(
        r.structured_content.expect("structured")["matches"],
        json!(["src/main.rs:1:needle"])
    );
    let r = ok(
        &client,
        "find_files",
        json!({"glob": "*", "exclude_patterns": ["node_modules", "src"]}),
    )
    .await;
    assert_eq!(
        r.structured_content.expect("structured")["files"],
        json!(["app.log"])
    );
    // Without patterns everything is there.
    let r = ok(&client, "search_files", json!({"pattern": "needle"})).await;
    assert_eq!(
        r.structured_content.expect("structured")["matches"]
            .as_array()
            .map(Vec::len),
        Some(5)
    );
    let m = err(
        &client,
        "directory_tree",
        json!({"exclude_patterns": ["ok", "a[b"]}),
    )
    .await;
    assert!(
        m.starts_with("`exclude_patterns[1]` \"a[b\" is not a valid glob"),
        "{m}"
    );
    client.cancel().await.expect("close");
}

fn temporaries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .expect("read_dir")
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".tm-"))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_keep_the_mode_and_a_failed_write_keeps_the_original() {
    let (_dir, root) = workspace();
    put(&root, "conf.txt", b"one\n");
    let mode = |p: &str| {
        std::fs::metadata(root.join(p))
            .expect("meta")
            .permissions()
            .mode()
            & 0o7777
    };
    std::fs::set_permissions(
        root.join("conf.txt"),
        std::fs::Permissions::from_mode(0o640),
    )
    .expect("chmod");
    let client = server(&root, &[]).await;
    ok(
        &client,
        "write_file",
        json!({"path": "conf.txt", "content": "two\n"}),
    )
    .await;
    assert_eq!(
        (read(&root, "conf.txt"), mode("conf.txt")),
        ("two\n".to_owned(), 0o640)
    );
    ok(
        &client,
        "replace_in_file",
        json!({"path": "conf.txt", "old_text": "two", "new_text": "three"}),
    )
    .await;
    assert_eq!(
        (read(&root, "conf.txt"), mode("conf.txt")),
        ("three\n".to_owned(), 0o640)
    );
    ok(
        &client,
        "edit_file",
        json!({"path": "conf.txt", "old_texts": ["three"], "new_texts": ["four"]}),
    )
    .await;
    assert_eq!(
        (read(&root, "conf.txt"), mode("conf.txt")),
        ("four\n".to_owned(), 0o640)
    );
    client.cancel().await.expect("close");

    // A server whose files may not grow past 4 KiB (RLIMIT_FSIZE, with
    // SIGXFSZ ignored so that the write fails with EFBIG): each write of
    // more fails midway, and the original stays whole.
    let r = root.display().to_string();
    let (limited, _) = stdio(
        "/bin/sh",
        &[
            "-c",
            "trap '' XFSZ; ulimit -f 8; exec \"$0\" \"$@\"",
            BIN,
            "--root",
            &r,
        ],
    )
    .await;
    let big = "x".repeat(64 * 1024);
    let m = err(
        &limited,
        "write_file",
        json!({"path": "conf.txt", "content": big}),
    )
    .await;
    assert!(m.contains("conf.txt"), "{m}");
    let m = err(
        &limited,
        "edit_file",
        json!({"path": "conf.txt", "old_texts": ["four"], "new_texts": [big]}),
    )
    .await;
    assert!(m.contains("conf.txt"), "{m}");
    assert_eq!(
        (read(&root, "conf.txt"), mode("conf.txt")),
        ("four\n".to_owned(), 0o640)
    );
    assert!(temporaries(&root).is_empty(), "{:?}", temporaries(&root));
    // Small writes still work under the limit.
    ok(
        &limited,
        "write_file",
        json!({"path": "conf.txt", "content": "five\n"}),
    )
    .await;
    assert_eq!(read(&root, "conf.txt"), "five\n");
    limited.cancel().await.expect("close");
}
