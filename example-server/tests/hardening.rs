//! Issue 15 over stdio, against the release-like binary: special files refused
//! quickly while other calls are served, a 2 GB sparse file, replacement
//! amplification, a huge one-line file in a search, a forking command past its
//! timeout, and `.` on `PATH`. The race tests are unit tests
//! (`src/race_tests.rs`): thousands of calls need no protocol in between.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use rmcp::ServiceExt;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use serde_json::{Value, json};
use toolmetadata_tests::mcp::*;

const BIN: &str = env!("CARGO_BIN_EXE_example-server");
/// No call in these tests may take longer; a stalled server fails them.
const CALL_TIMEOUT: Duration = Duration::from_secs(20);

struct Server {
    client: Client,
    pid: u32,
}

/// The server on stdio in `cwd` with `PATH` set to `path`.
async fn server(cwd: &Path, path: &str, args: &[&str]) -> Server {
    let transport = TokioChildProcess::new(tokio::process::Command::new(BIN).configure(|c| {
        c.args(args)
            .current_dir(cwd)
            .env("PATH", path)
            .stderr(Stdio::null());
    }))
    .expect("spawn the server");
    let pid = transport.id().expect("pid");
    let client = Recorder::default()
        .serve(transport)
        .await
        .expect("initialize over stdio");
    Server { client, pid }
}

const SYSTEM_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

fn root() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("ws");
    std::fs::create_dir_all(&root).expect("mkdir");
    std::fs::write(root.join("plain.txt"), "plain\n").expect("write");
    (dir, root)
}

async fn timed(client: &Client, tool: &str, args: Value) -> rmcp::model::CallToolResult {
    tokio::time::timeout(CALL_TIMEOUT, call(client, tool, args.clone()))
        .await
        .unwrap_or_else(|_| panic!("{tool} {args} did not return in {CALL_TIMEOUT:?}"))
}

async fn refused(client: &Client, tool: &str, args: Value) -> String {
    let r = timed(client, tool, args.clone()).await;
    assert!(is_error(&r), "{tool} {args} should fail, got {}", text(&r));
    text(&r)
}

/// The server's peak resident memory, in bytes.
fn peak_rss(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .expect("VmHWM")
        * 1024
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn special_files_are_refused_quickly_while_other_calls_are_served() {
    let (_dir, root) = root();
    let status = std::process::Command::new("mkfifo")
        .arg(root.join("fifo"))
        .status()
        .expect("mkfifo");
    assert!(status.success());
    let _socket = std::os::unix::net::UnixListener::bind(root.join("sock")).expect("bind");
    // /dev/zero's numbers; refused by some sandboxes, then only the link below
    // stands for devices.
    let device = std::process::Command::new("mknod")
        .arg(root.join("zero"))
        .args(["c", "1", "5"])
        .status()
        .is_ok_and(|s| s.success());
    std::os::unix::fs::symlink("/dev/zero", root.join("zero_link")).expect("symlink");
    let root_arg = root.display().to_string();
    let s = server(&root, SYSTEM_PATH, &["--root", &root_arg]).await;
    let started = Instant::now();
    let mut calls = vec![
        ("read_file", json!({"path": "fifo"}), "a FIFO"),
        ("read_file", json!({"path": "fifo"}), "a FIFO"),
        ("read_file", json!({"path": "fifo", "head": 1}), "a FIFO"),
        (
            "write_file",
            json!({"path": "fifo", "content": "x"}),
            "a FIFO",
        ),
        (
            "write_file",
            json!({"path": "fifo", "content": "x"}),
            "a FIFO",
        ),
        (
            "replace_in_file",
            json!({"path": "fifo", "old_text": "a", "new_text": "b"}),
            "a FIFO",
        ),
        ("read_file", json!({"path": "sock"}), "a socket"),
        (
            "write_file",
            json!({"path": "sock", "content": "x"}),
            "a socket",
        ),
        (
            "read_file",
            json!({"path": "zero_link"}),
            "outside the allowed roots",
        ),
    ];
    if device {
        calls.push(("read_file", json!({"path": "zero"}), "a character device"));
        calls.push((
            "write_file",
            json!({"path": "zero", "content": "x"}),
            "a character device",
        ));
        calls.push((
            "replace_in_file",
            json!({"path": "zero", "old_text": "a", "new_text": "b"}),
            "a character device",
        ));
    }
    let client = &s.client;
    let refusals = futures_join(calls.iter().map(|(tool, args, why)| async move {
        let message = refused(client, tool, args.clone()).await;
        assert!(message.contains(why), "{tool} {args}: {message}");
    }));
    let served = async {
        for _ in 0..20 {
            let r = timed(client, "read_file", json!({"path": "plain.txt"})).await;
            assert_eq!(text(&r), "plain\n");
        }
        // A search walks past the special files without opening them.
        let r = timed(client, "search_files", json!({"pattern": "plain"})).await;
        assert_eq!(
            r.structured_content,
            Some(json!({"matches": ["plain.txt:1:plain"], "truncated": false}))
        );
    };
    tokio::join!(refusals, served);
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "took {:?}",
        started.elapsed()
    );
    // Nothing was written into the FIFO's reader or the file system.
    assert!(root.join("fifo").exists() && !root.join("fifo").is_file());
    s.client.cancel().await.expect("close");
}

/// Runs the futures concurrently, to the end of the last.
async fn futures_join<F: std::future::Future<Output = ()>>(futures: impl Iterator<Item = F>) {
    let mut pending: Vec<_> = futures.map(|f| Some(Box::pin(f))).collect();
    std::future::poll_fn(move |cx| {
        for slot in pending.iter_mut() {
            if let Some(f) = slot
                && f.as_mut().poll(cx).is_ready()
            {
                *slot = None;
            }
        }
        if pending.iter().all(Option::is_none) {
            std::task::Poll::Ready(())
        } else {
            std::task::Poll::Pending
        }
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn huge_files_are_refused_or_read_in_bounded_parts() {
    let (_dir, root) = root();
    // 2 GiB of holes: no disk, but a read or replace that does not check the
    // size allocates it all.
    let sparse = std::fs::File::create(root.join("sparse.bin")).expect("create");
    sparse.set_len(2 << 30).expect("set_len");
    // 15 MiB of short lines: over the whole-read limit, fine in parts.
    let long: String = (0..1_500_000).map(|i| format!("line {i:04}\n")).collect();
    std::fs::write(root.join("long.txt"), &long).expect("write");
    let root_arg = root.display().to_string();
    let s = server(&root, SYSTEM_PATH, &["--root", &root_arg]).await;
    let c = &s.client;
    let started = Instant::now();
    let m = refused(c, "read_file", json!({"path": "sparse.bin"})).await;
    assert!(m.contains("more than the 10485760"), "{m}");
    let m = refused(
        c,
        "replace_in_file",
        json!({"path": "sparse.bin", "old_text": "a", "new_text": "b"}),
    )
    .await;
    assert!(
        m.contains("more than the 10485760 replace_in_file edits"),
        "{m}"
    );
    // One 2 GiB line: refused once the limit is passed, not read to the end.
    let m = refused(c, "read_file", json!({"path": "sparse.bin", "head": 1})).await;
    assert!(m.contains("hold more than"), "{m}");
    let m = refused(c, "read_file", json!({"path": "sparse.bin", "tail": 1})).await;
    assert!(m.contains("hold more than"), "{m}");
    assert!(started.elapsed() < Duration::from_secs(10));
    // The large text file: refused whole, as advised readable in ranges.
    let m = refused(c, "read_file", json!({"path": "long.txt"})).await;
    assert!(m.contains("start_line/end_line"), "{m}");
    let r = timed(
        c,
        "read_file",
        json!({"path": "long.txt", "start_line": 1_000_000, "end_line": 1_000_001}),
    )
    .await;
    assert_eq!(text(&r), "line 999999\nline 1000000");
    let r = timed(c, "read_file", json!({"path": "long.txt", "tail": 2})).await;
    assert_eq!(text(&r), "line 1499998\nline 1499999");
    let m = refused(
        c,
        "read_file",
        json!({"path": "long.txt", "start_line": 5, "end_line": 1}),
    )
    .await;
    assert_eq!(m, "start_line 5 is after end_line 1");
    let m = refused(
        c,
        "read_file",
        json!({"path": "long.txt", "start_line": 5, "end_line": 3}),
    )
    .await;
    assert_eq!(m, "start_line 5 is after end_line 3");
    let peak = peak_rss(s.pid);
    assert!(peak < 200 << 20, "peak RSS {peak} bytes");
    s.client.cancel().await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replacement_and_search_replies_are_bounded() {
    let (_dir, root) = root();
    let many = "a;".repeat(1000);
    std::fs::write(root.join("many.txt"), &many).expect("write");
    // 30 MiB on one line, the match in the middle.
    let mut huge = "x".repeat(15 << 20);
    huge.push_str("needle");
    huge.push_str(&"y".repeat(15 << 20));
    huge.push('\n');
    std::fs::write(root.join("huge.txt"), &huge).expect("write");
    drop(huge);
    std::fs::write(
        root.join("wide.txt"),
        format!("needle{}\n", "z".repeat(5000)),
    )
    .expect("write");
    let lines: String = (0..5000).map(|i| format!("needle {i}\n")).collect();
    std::fs::write(root.join("lines.txt"), lines).expect("write");
    let root_arg = root.display().to_string();
    let s = server(
        &root,
        SYSTEM_PATH,
        &["--root", &root_arg, "--max-reply-bytes", "20000"],
    )
    .await;
    let c = &s.client;
    // 1,000 matches × 100 KB would be 100 MB: refused before it is built.
    let m = refused(
        c,
        "replace_in_file",
        json!({"path": "many.txt", "old_text": "a", "new_text": "b".repeat(100_000), "expected_count": 1000}),
    )
    .await;
    assert!(m.contains("the result would have 100001000 bytes"), "{m}");
    assert_eq!(
        std::fs::read_to_string(root.join("many.txt")).expect("read"),
        many
    );
    let r = timed(
        c,
        "search_files",
        json!({"pattern": "needle", "glob": "{huge,wide}.txt"}),
    )
    .await;
    let out = r.structured_content.clone().expect("structured");
    assert_eq!(
        out["skipped"],
        json!(1),
        "the 30 MiB line is not searched: {out}"
    );
    let matches = out["matches"].as_array().expect("matches");
    assert_eq!(matches.len(), 1);
    let line = matches[0].as_str().expect("a match");
    assert!(line.starts_with("wide.txt:1:needlezzz") && line.ends_with('…'));
    assert!(line.len() < 1100, "{} bytes", line.len());
    // Many short matches: cut by the reply limit, and said so.
    let r = timed(
        c,
        "search_files",
        json!({"pattern": "needle", "glob": "lines.txt", "max_results": 10000}),
    )
    .await;
    let out = r.structured_content.clone().expect("structured");
    assert_eq!(out["truncated"], json!(true));
    assert!(text(&r).len() < 30_000, "{} bytes", text(&r).len());
    let peak = peak_rss(s.pid);
    assert!(peak < 200 << 20, "peak RSS {peak} bytes");
    s.client.cancel().await.expect("close");
}

/// The processes with `marker` still running after up to `tries` looks a
/// tenth of a second apart (none once they are gone).
async fn left_after(marker: &str, tries: usize) -> Vec<String> {
    let mut left = processes_with(marker);
    for _ in 0..tries {
        if left.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        left = processes_with(marker);
    }
    left
}

/// Processes whose command line contains `marker`.
fn processes_with(marker: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        if let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) {
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            if cmdline.contains(marker) {
                found.push(format!(
                    "{}: {cmdline}",
                    entry.file_name().to_string_lossy()
                ));
            }
        }
    }
    found
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commands_past_their_timeout_leave_no_process() {
    let (_dir, root) = root();
    let root_arg = root.display().to_string();
    let s = server(
        &root,
        SYSTEM_PATH,
        &["--root", &root_arg, "--allow-command", "sh -c"],
    )
    .await;
    let c = &s.client;
    for (script, marker) in [
        // The shell waits for its child: killing only the shell left `sleep`.
        ("sleep 31.4151; echo done", "sleep 31.4151"),
        // The shell exits at once; its child holds the output pipe.
        ("sleep 31.4152 & echo started", "sleep 31.4152"),
    ] {
        let started = Instant::now();
        let r = timed(
            c,
            "run_command",
            json!({"program": "sh", "args": ["-c", script], "timeout_secs": 2}),
        )
        .await;
        let elapsed = started.elapsed();
        assert!(!is_error(&r), "{}", text(&r));
        let out = r.structured_content.clone().expect("structured");
        assert_eq!(out["timed_out"], json!(true), "{script}: {out}");
        assert!(
            elapsed < Duration::from_secs(8),
            "{script}: took {elapsed:?}"
        );
        // SIGKILL is delivered at once, but give the kernel a moment to reap.
        let left = left_after(marker, 20).await;
        assert!(left.is_empty(), "{script}: left running: {left:?}");
    }
    let r = timed(
        c,
        "run_command",
        json!({"program": "sh", "args": ["-c", "echo quick"]}),
    )
    .await;
    let out = r.structured_content.clone().expect("structured");
    assert_eq!(out["stdout"], json!("quick\n"));
    assert_eq!(out["timed_out"], json!(false));
    let m = refused(c, "run_command", json!({"program": "sh", "args": ["-x"]})).await;
    assert_eq!(
        m,
        "these arguments are not allowed; `sh` may run only as: sh -c"
    );
    s.client.cancel().await.expect("close");
}

/// Output is read while the program runs: more than a pipe holds (64 KiB)
/// used to block the program until its timeout, and the reply said
/// `timed_out: true` and `truncated: false` with exactly 65,536 bytes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn command_output_past_a_pipe_is_read_and_cut_honestly() {
    let (_dir, root) = root();
    let root_arg = root.display().to_string();
    let s = server(
        &root,
        SYSTEM_PATH,
        &["--root", &root_arg, "--allow-command", "sh -c"],
    )
    .await;
    let c = &s.client;
    // 70 KB on stdout and on stderr at once, then 100 MB: each within the
    // timeout, whole or cut at the cap (1 MiB) and said so.
    for (script, bytes, cut) in [
        (
            "head -c 70000 /dev/zero | tr '\\0' a; head -c 70000 /dev/zero | tr '\\0' b >&2",
            70_000,
            false,
        ),
        (
            "head -c 100000000 /dev/zero | tr '\\0' a",
            1024 * 1024,
            true,
        ),
    ] {
        let started = Instant::now();
        let r = timed(
            c,
            "run_command",
            json!({"program": "sh", "args": ["-c", script], "timeout_secs": 20}),
        )
        .await;
        assert!(!is_error(&r), "{}", text(&r));
        let out = r.structured_content.clone().expect("structured");
        assert_eq!(out["timed_out"], json!(false), "{script}");
        assert_eq!(out["truncated"], json!(cut), "{script}");
        assert_eq!(out["exit_code"], json!(0), "{script}");
        assert_eq!(
            out["stdout"].as_str().map(str::len),
            Some(bytes),
            "{script}"
        );
        assert!(started.elapsed() < Duration::from_secs(15), "{script}");
    }
    let peak = peak_rss(s.pid);
    assert!(peak < 200 << 20, "peak RSS {peak} bytes");
    s.client.cancel().await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_workspace_file_named_like_an_allowed_program_never_runs() {
    let (_dir, root) = root();
    let fake = root.join("echo");
    std::fs::write(&fake, "#!/bin/sh\necho fake\n").expect("write");
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod");
    let root_arg = root.display().to_string();
    // `.` first on PATH, and the server started in the workspace.
    let s = server(
        &root,
        &format!(".:{SYSTEM_PATH}"),
        &["--root", &root_arg, "--allow-command", "echo"],
    )
    .await;
    let r = timed(
        &s.client,
        "run_command",
        json!({"program": "echo", "args": ["real"]}),
    )
    .await;
    let out = r.structured_content.clone().expect("structured");
    assert_eq!(out["stdout"], json!("real\n"), "{out}");
    s.client.cancel().await.expect("close");
    // Only `.` on PATH: nothing to run, refused at startup.
    let failed = std::process::Command::new(BIN)
        .args(["--root", &root_arg, "--allow-command", "echo", "--list"])
        .current_dir(&root)
        .env("PATH", ".")
        .output()
        .expect("run");
    // --list does not need the commands; a server start does.
    assert!(failed.status.success());
    let failed = std::process::Command::new(BIN)
        .args(["--root", &root_arg, "--allow-command", "echo"])
        .current_dir(&root)
        .env("PATH", ".")
        .stdin(Stdio::null())
        .output()
        .expect("run");
    assert!(!failed.status.success());
    assert!(
        String::from_utf8_lossy(&failed.stderr).contains("no executable `echo` found"),
        "{}",
        String::from_utf8_lossy(&failed.stderr)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_cannot_be_searched_is_counted_and_outside_paths_all_read_alike() {
    let (_dir, root) = root();
    // A file deeper than PATH_MAX (4,096 bytes): created level by level
    // through handles, since no path to it can be given whole.
    let mut dir =
        cap_std::fs::Dir::open_ambient_dir(&root, cap_std::ambient_authority()).expect("open root");
    let name = "d".repeat(250);
    for _ in 0..20 {
        dir.create_dir(&name).expect("mkdir");
        dir = dir.open_dir(&name).expect("open");
    }
    dir.write("deep.txt", "needle\n").expect("write");
    std::fs::write(root.join("near.txt"), "needle\n").expect("write");
    std::os::unix::fs::symlink("/", root.join("link")).expect("symlink");
    let root_arg = root.display().to_string();
    let s = server(&root, SYSTEM_PATH, &["--root", &root_arg]).await;
    let c = &s.client;
    let r = timed(c, "search_files", json!({"pattern": "needle"})).await;
    let out = r.structured_content.clone().expect("structured");
    assert_eq!(out["matches"], json!(["near.txt:1:needle"]), "{out}");
    assert!(out["skipped"].as_i64().is_some_and(|n| n >= 1), "{out}");
    let r = timed(c, "find_files", json!({"glob": "*.txt"})).await;
    let out = r.structured_content.clone().expect("structured");
    assert!(out["skipped"].as_i64().is_some_and(|n| n >= 1), "{out}");
    // Through an outward link, an existing and a missing file read the same.
    let existing = refused(c, "read_file", json!({"path": "link/etc/passwd"})).await;
    let missing = refused(c, "read_file", json!({"path": "link/etc/nope"})).await;
    assert_eq!(
        existing.replace("passwd", "X"),
        missing.replace("nope", "X"),
        "{existing} / {missing}"
    );
    assert!(existing.contains("outside the allowed roots"), "{existing}");
    let existing = refused(c, "file_info", json!({"path": "link/etc/passwd"})).await;
    let missing = refused(c, "file_info", json!({"path": "link/etc/nope"})).await;
    assert_eq!(
        existing.replace("passwd", "X"),
        missing.replace("nope", "X")
    );
    s.client.cancel().await.expect("close");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_command_leaves_no_process() {
    use rmcp::model::{CallToolRequest, CallToolRequestParams, ClientRequest};
    use rmcp::service::PeerRequestOptions;
    let (_dir, root) = root();
    let root_arg = root.display().to_string();
    let s = server(
        &root,
        SYSTEM_PATH,
        &["--root", &root_arg, "--allow-command", "sh"],
    )
    .await;
    let marker = "sleep 31.4153";
    let Value::Object(arguments) = json!({
        "program": "sh",
        "args": ["-c", format!("{marker}; echo done")],
        "timeout_secs": 60,
    }) else {
        unreachable!("an object")
    };
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(
        CallToolRequestParams::new("run_command").with_arguments(arguments),
    ));
    let handle = s
        .client
        .peer()
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await
        .expect("sent");
    let mut running = processes_with(marker);
    for _ in 0..50 {
        if !running.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        running = processes_with(marker);
    }
    assert!(!running.is_empty(), "the command started");
    handle.cancel(None).await.expect("cancel");
    let left = left_after(marker, 50).await;
    assert!(left.is_empty(), "left running after cancellation: {left:?}");
    // The server still serves.
    let r = timed(&s.client, "read_file", json!({"path": "plain.txt"})).await;
    assert_eq!(text(&r), "plain\n");
    s.client.cancel().await.expect("close");
}

/// A file name with a newline or a bidirectional control cannot add fake
/// entries to a tree or a listing, nor reorder what follows it: every text
/// reply shows such names escaped.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn names_with_control_characters_cannot_forge_entries() {
    let (_dir, root) = root();
    let forged = "innocent.txt\n├── secrets.env";
    std::fs::write(root.join(forged), "x").expect("write");
    std::fs::write(root.join("report\u{202e}fdp.exe"), "x").expect("write");
    let root_arg = root.display().to_string();
    let s = server(&root, SYSTEM_PATH, &["--root", &root_arg]).await;
    for (tool, args) in [
        ("directory_tree", json!({"path": "."})),
        ("list_directory_with_sizes", json!({"path": "."})),
    ] {
        let result = timed(&s.client, tool, args).await;
        // The tree is text; the listing's entries are lines of a JSON array.
        let reply = match json_of(&result)["entries"].as_array() {
            Some(entries) => entries
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join("\n"),
            None => text(&result),
        };
        assert!(
            !reply
                .lines()
                .any(|l| l.contains("secrets.env") && !l.contains("innocent")),
            "{tool}: a forged line\n{reply}"
        );
        assert!(
            reply.contains("innocent.txt\\n├── secrets.env"),
            "{tool}\n{reply}"
        );
        assert!(reply.contains("report\\u{202e}fdp.exe"), "{tool}\n{reply}");
    }
    s.client.cancel().await.expect("close");
}

/// Ignore files a cloned repository or a client could plant: a FIFO, a link
/// to `/dev/zero`, a link to a file outside the root (whose lines would
/// become an oracle on it), 10 MB of globs, and a `.gitignore` above the
/// root. None stalls a search, grows memory past a bound, or hides a file;
/// a genuine rule inside the root still applies.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_ignore_files_neither_stall_nor_leak_nor_hide() {
    let (dir, root) = root();
    std::fs::write(dir.path().join(".gitignore"), "*.txt\n").expect("above the root");
    std::fs::write(dir.path().join("outside-rules"), "plain.txt\nsecret-*\n").expect("outside");
    for sub in ["fifo", "zero", "out", "huge"] {
        std::fs::create_dir(root.join(sub)).expect("mkdir");
        std::fs::write(root.join(sub).join(format!("{sub}.txt")), "needle\n").expect("write");
    }
    let status = std::process::Command::new("mkfifo")
        .arg(root.join("fifo/.gitignore"))
        .status()
        .expect("mkfifo");
    assert!(status.success());
    std::os::unix::fs::symlink("/dev/zero", root.join("zero/.gitignore")).expect("link");
    std::os::unix::fs::symlink("../../outside-rules", root.join("out/.gitignore")).expect("link");
    std::fs::write(root.join("out/plain.txt"), "needle\n").expect("write");
    let mut globs = String::new();
    let mut n = 0;
    while globs.len() < 10 * 1024 * 1024 {
        globs.push_str(&format!("**/dir{n}/**/x{n}[a-z]?*.log\n"));
        n += 1;
    }
    std::fs::write(root.join("huge/.gitignore"), globs).expect("write");
    std::fs::write(root.join(".gitignore"), "ignored.txt\n").expect("write");
    std::fs::write(root.join("ignored.txt"), "needle\n").expect("write");

    let root_arg = root.display().to_string();
    let s = server(&root, SYSTEM_PATH, &["--root", &root_arg]).await;
    let started = Instant::now();
    let found = json_of(&timed(&s.client, "find_files", json!({"glob": "*.txt"})).await);
    let files: Vec<&str> = found["files"]
        .as_array()
        .expect("files")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(
        files,
        [
            "fifo/fifo.txt",
            "huge/huge.txt",
            "out/out.txt",
            "out/plain.txt",
            "plain.txt",
            "zero/zero.txt"
        ],
        "{found}"
    );
    let searched = timed(&s.client, "search_files", json!({"pattern": "needle"}))
        .await
        .structured_content
        .unwrap_or_default();
    let matches = searched["matches"].as_array().expect("matches").len();
    assert_eq!(matches, 5, "{searched}");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    let peak = peak_rss(s.pid);
    assert!(
        peak < 300 * 1024 * 1024,
        "peak RSS {} MiB",
        peak / (1024 * 1024)
    );
    s.client.cancel().await.expect("close");
}

/// Finding 5 of the third red team: with 128 requests waiting (140
/// `tasks/result` of a running task, say), the server read nothing more
/// over stdio, no `ping` and no `tasks/cancel`, until a task ended. Now
/// requests past the bound are refused at once, and control requests are
/// read and answered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_waiters_leave_ping_and_cancel_answered() {
    use toolmetadata_tests::raw::{StdioChild, write_line};
    let (_dir, root) = root();
    let root_arg = root.display().to_string();
    let mut server = StdioChild::spawn(BIN, &["--root", &root_arg, "--allow-command", "sh"]);
    server.initialize("waiters").await;
    let marker = "sleep 31.4157";
    server
        .send(&json!({"jsonrpc": "2.0", "id": "start", "method": "tools/call", "params": {
            "name": "run_command", "task": {"ttl": 120000},
            "arguments": {"program": "sh", "args": ["-c", format!("{marker}; echo done")], "timeout_secs": 60}}}))
        .await;
    let started = server.next().await;
    let task = started["result"]["task"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("a task: {started}"))
        .to_owned();
    for _ in 0..50 {
        if !processes_with(marker).is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(!processes_with(marker).is_empty(), "the command started");

    let StdioChild {
        child: _child,
        mut stdin,
        mut lines,
    } = server;
    const WAITERS: usize = 1000;
    let writer = {
        let task = task.clone();
        tokio::spawn(async move {
            for id in 0..WAITERS {
                let wait = json!({"jsonrpc": "2.0", "id": id, "method": "tasks/result",
                    "params": {"taskId": task}});
                write_line(&mut stdin, &wait.to_string()).await;
            }
            stdin
        })
    };
    // Every waiter past the bound is answered at once with the bound.
    let mut refused = 0;
    while refused < WAITERS - 128 {
        let line = tokio::time::timeout(CALL_TIMEOUT, lines.next_line())
            .await
            .expect("the refusals come at once")
            .expect("read")
            .expect("the server runs");
        let answer: Value = serde_json::from_str(&line).expect("JSON");
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("128 requests"), "{answer}");
        refused += 1;
    }
    let mut stdin = writer.await.expect("the writer");
    let read_until = async |lines: &mut tokio::io::Lines<_>, id: &str| loop {
        let line = tokio::time::timeout(CALL_TIMEOUT, lines.next_line())
            .await
            .unwrap_or_else(|_| panic!("no answer to {id}"))
            .expect("read")
            .expect("the server runs");
        let answer: Value = serde_json::from_str(&line).expect("JSON");
        if answer["id"] == id {
            return answer;
        }
    };
    let asked = Instant::now();
    write_line(
        &mut stdin,
        r#"{"jsonrpc": "2.0", "id": "ping", "method": "ping"}"#,
    )
    .await;
    let pong = read_until(&mut lines, "ping").await;
    assert!(pong["result"].is_object(), "{pong}");
    let waited = asked.elapsed();
    assert!(
        waited < Duration::from_secs(1),
        "ping answered after {waited:?}"
    );

    let cancel = json!({"jsonrpc": "2.0", "id": "cancel", "method": "tasks/cancel",
        "params": {"taskId": task}});
    write_line(&mut stdin, &cancel.to_string()).await;
    let cancelled = read_until(&mut lines, "cancel").await;
    assert_eq!(cancelled["result"]["status"], "cancelled", "{cancelled}");
    let left = left_after(marker, 50).await;
    assert!(left.is_empty(), "left running after tasks/cancel: {left:?}");
}
