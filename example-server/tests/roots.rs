//! Roots, startup and path spelling, replayed through rmcp's client from the
//! reference filesystem server's own tests (modelcontextprotocol/servers,
//! `src/filesystem/__tests__/{roots-utils,startup-validation,path-utils,
//! path-validation}.test.ts`): the inputs they give and the outcomes they
//! assert, translated to a Unix server whose directories are the tool
//! arguments it receives. Every absolute path of theirs is placed under a
//! temporary directory `T` (their `/home/user/project` is `T/home/user/project`).
//! Cases skipped, or whose outcome differs on purpose, say why where they
//! would be.

#![expect(
    deprecated,
    reason = "roots are deprecated by SEP-2577 and still served on 2025-11-25"
)]

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientConfig, ListRootsResult, Root, RootsCapabilities,
};
use rmcp::service::{RequestContext, RunningService};
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{ClientHandler, ErrorData, RoleClient, ServiceExt};
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_example-server");

/// A client that offers roots (or not), and counts how often it is asked.
#[derive(Clone, Default)]
struct Rooted {
    offers: bool,
    roots: Arc<Mutex<Vec<String>>>,
    asked: Arc<Mutex<usize>>,
}

impl Rooted {
    fn offering(uris: &[String]) -> Self {
        Rooted {
            offers: true,
            roots: Arc::new(Mutex::new(uris.to_vec())),
            asked: Arc::default(),
        }
    }

    fn set(&self, uris: &[String]) {
        *self.roots.lock().expect("lock") = uris.to_vec();
    }

    fn asked(&self) -> usize {
        *self.asked.lock().expect("lock")
    }
}

impl ClientHandler for Rooted {
    fn get_info(&self) -> ClientConfig {
        let mut config = ClientConfig::default();
        if self.offers {
            let mut roots = RootsCapabilities::default();
            roots.list_changed = Some(true);
            config.capabilities.roots = Some(roots);
        }
        config
    }

    async fn list_roots(
        &self,
        _: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        *self.asked.lock().expect("lock") += 1;
        let roots = self.roots.lock().expect("lock").clone();
        Ok(ListRootsResult::new(
            roots.into_iter().map(Root::new).collect(),
        ))
    }
}

type Client = RunningService<RoleClient, Rooted>;

/// The server on stdio, started in `cwd` with `HOME` set to `home`.
async fn connect(args: &[&str], cwd: &Path, home: &Path, client: Rooted) -> Client {
    let transport = TokioChildProcess::new(tokio::process::Command::new(BIN).configure(|c| {
        c.args(args)
            .current_dir(cwd)
            .env("HOME", home)
            .stderr(Stdio::null());
    }))
    .expect("spawn the server");
    client.serve(transport).await.expect("initialize")
}

async fn call(client: &Client, name: &str, arguments: Value) -> CallToolResult {
    let Value::Object(map) = arguments else {
        panic!("arguments must be an object")
    };
    client
        .call_tool(CallToolRequestParams::new(name.to_owned()).with_arguments(map))
        .await
        .unwrap_or_else(|e| panic!("calling {name}: {e}"))
}

fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `list_allowed_directories`: the directories and their source, or the error.
async fn allowed(client: &Client) -> Result<(Vec<String>, String), String> {
    let result = call(client, "list_allowed_directories", json!({})).await;
    if result.is_error == Some(true) {
        return Err(text(&result));
    }
    let s = result.structured_content.expect("structured");
    let dirs = s["directories"]
        .as_array()
        .expect("directories")
        .iter()
        .map(|d| d.as_str().expect("string").to_owned())
        .collect();
    Ok((dirs, s["source"].as_str().expect("source").to_owned()))
}

fn canon(p: &Path) -> String {
    p.canonicalize().expect("canonical").display().to_string()
}

fn file_uri(p: &Path) -> String {
    format!("file://{}", p.display())
}

/// What a path argument came to.
#[derive(Debug, PartialEq)]
enum Seen {
    /// Inside the roots: found, or reported missing.
    In,
    /// Refused before anything was looked up outside.
    Out,
}

/// `file_info` on `path`, classified.
async fn probe(client: &Client, path: Value) -> (Seen, String) {
    let result = call(client, "file_info", json!({ "path": path })).await;
    let said = text(&result);
    if result.is_error != Some(true) || said.contains("does not exist") {
        return (Seen::In, said);
    }
    (Seen::Out, said)
}

/// A temporary directory `T` (canonical) with these directories made in it.
fn tree(dirs: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let t = tmp.path().canonicalize().expect("canonical");
    for d in dirs {
        std::fs::create_dir_all(t.join(d.trim_start_matches('/'))).expect("mkdir");
    }
    (tmp, t)
}

/// path-validation.test.ts (`isPathWithinAllowedDirectories`), each group
/// with its allowed directories as `--root`s, each path sent to `file_info`:
/// `In` where they assert true, `Out` where they assert false.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn peer_path_validation_cases() {
    let long_inside = format!("/home/user/project/{}file.txt", "a/".repeat(1000));
    let long_escape = format!(
        "/home/user/project/{}{}etc/passwd",
        "a/".repeat(1000),
        "../".repeat(1001)
    );
    type Group<'a> = (&'a [&'a str], Vec<(String, Seen)>);
    let s = |p: &str| p.to_owned();
    let groups: Vec<Group> = vec![
        (
            &["/home/user/project"],
            vec![
                // allows exact directory match / subdirectories
                (s("/home/user/project"), Seen::In),
                (s("/home/user/project/src"), Seen::In),
                (s("/home/user/project/src/index.js"), Seen::In),
                (s("/home/user/project/deeply/nested/file.txt"), Seen::In),
                // blocks similar directory names (prefix vulnerability)
                (s("/home/user/project2"), Seen::Out),
                (s("/home/user/project_backup"), Seen::Out),
                (s("/home/user/project-old"), Seen::Out),
                (s("/home/user/projectile"), Seen::Out),
                (s("/home/user/project.bak"), Seen::Out),
                // blocks paths outside allowed directories
                (s("/home/user/other"), Seen::Out),
                (s("/home/user"), Seen::Out),
                (s("/"), Seen::Out),
                // /etc/passwd as it is, not under T
                (s("!/etc/passwd"), Seen::Out),
                // trailing separators
                (s("/home/user/project/"), Seen::In),
                (s("/home/user/project2/"), Seen::Out),
                // relative paths: theirs resolve against the process's
                // directory, ours against the first root
                (s("!../parent"), Seen::Out),
                (s("!relative/path"), Seen::In),
                (s("!./file"), Seen::In),
                // path traversal
                (s("/home/user/project/../../../etc/passwd"), Seen::Out),
                (s("/home/user/project/../../other"), Seen::Out),
                (s("/home/user/project/../project2"), Seen::Out),
                (s("/home/user/project/src/../../project2"), Seen::Out),
                (s("/home/user/project/./../../other"), Seen::Out),
                (s("/home/user/project/../project/../../../etc"), Seen::Out),
                (s("/home/user/project/..test"), Seen::In),
                (s("/home/user/project/test.."), Seen::In),
                (s("/home/user/project/te..st"), Seen::In),
                (s("/home/user/project/../test"), Seen::Out),
                (s("/home/user/project/.."), Seen::Out),
                // null bytes
                (s("/home/user/project\0/etc/passwd"), Seen::Out),
                (s("/home/user/project/test\0.txt"), Seen::Out),
                (s("!\0/home/user/project"), Seen::Out),
                (s("/home/user/project/\0"), Seen::Out),
                // percent signs are plain characters
                (s("/home/user/project/report_50%.pdf"), Seen::In),
                (s("/home/user/project/Q1_25%_growth"), Seen::In),
                (s("/home/user/project/%41"), Seen::In),
                (s("/home/user/project/%2e%2e"), Seen::In),
                (s("/home/user/project/file%20name"), Seen::In),
                // normalization before comparison
                (s("/home/user/project//"), Seen::In),
                (s("/home/user/project///"), Seen::In),
                (s("/home/user/project/./src"), Seen::In),
                (s("/home/user/./project/src"), Seen::In),
                (s("/home/user/project//src//file"), Seen::In),
                (s("/home//user//project//src"), Seen::In),
                (s("/home/user//project2"), Seen::Out),
                // very long paths
                (long_inside.clone(), Seen::In),
                (long_escape.clone(), Seen::Out),
                // dots as names
                (s("/home/user/project/."), Seen::In),
                (s("/home/user/project/..."), Seen::In),
                (s("/home/user/project/...."), Seen::In),
                // empty input
                (s("!"), Seen::Out),
            ],
        ),
        (
            &["/home/user/project1", "/home/user/project2"],
            vec![
                (s("/home/user/project1/src"), Seen::In),
                (s("/home/user/project2/src"), Seen::In),
                (s("/home/user/project3"), Seen::Out),
                (s("/home/user/project1_backup"), Seen::Out),
                (s("/home/user/project2-old"), Seen::Out),
            ],
        ),
        (
            &["/test/allowed"],
            vec![
                (s("/test"), Seen::Out),
                (s("/"), Seen::Out),
                (s("/test/allowed_sibling"), Seen::Out),
                (s("/test/allowed2"), Seen::Out),
            ],
        ),
        (
            &["/home/user/my-project (v2)"],
            vec![
                (s("/home/user/my-project (v2)"), Seen::In),
                (s("/home/user/my-project (v2)/src"), Seen::In),
                (s("/home/user/my-project (v2)_backup"), Seen::Out),
                (s("/home/user/my-project"), Seen::Out),
            ],
        ),
        (
            // An allowed directory written with a trailing separator.
            &["/home/user/project/"],
            vec![
                (s("/home/user/project"), Seen::In),
                (s("/home/user/project/"), Seen::In),
                (s("/home/user/project2"), Seen::Out),
            ],
        ),
        (
            // Empty entries in the allowed list: skipped with a warning.
            &["", "/home/user/project", ""],
            vec![
                (s("/home/user/project"), Seen::In),
                (s("/home/user/project/src"), Seen::In),
                (s("/home/user/other"), Seen::Out),
            ],
        ),
        (
            // A relative allowed directory: resolved against the server's
            // directory (T here), as theirs against the process's.
            &["!relative/path", "/some/other/absolute/path"],
            vec![
                (s("/some/other/absolute/path/file"), Seen::In),
                (s("/absolute/path/file"), Seen::Out),
            ],
        ),
        (
            &["/home/user/café"],
            vec![
                (s("/home/user/café"), Seen::In),
                (s("/home/user/café/file"), Seen::In),
                // "Different unicode representation won't match": the root
                // is matched by its bytes; only names beneath a root are
                // looked for in their other normalization form (see
                // peer_path_utils_cases).
                (s("/home/user/cafe\u{301}"), Seen::Out),
            ],
        ),
        (
            &["/home/user/my project"],
            vec![
                (s("/home/user/my project"), Seen::In),
                (s("/home/user/my project/file"), Seen::In),
                (s("/home/user/my"), Seen::Out),
                (s("/home/user/my proj"), Seen::Out),
            ],
        ),
        (
            &["/home", "/home/user", "/home/user/project"],
            vec![
                (s("/home/anything"), Seen::In),
                (s("/home/user/anything"), Seen::In),
                (s("/home/user/project/anything"), Seen::In),
                (s("/home/other/deep/path"), Seen::In),
            ],
        ),
        (
            // Their `/` as the allowed directory is T here: serving the real
            // file system root from a test is not something to do.
            &["/"],
            vec![
                (s("/"), Seen::In),
                (s("/any/path"), Seen::In),
                (s("/etc/passwd"), Seen::In),
                (s("/home/user/secret"), Seen::In),
            ],
        ),
        (
            &["/home/user/project/../safe"],
            vec![
                (s("/home/user/safe/file"), Seen::In),
                (s("/home/user/project/file"), Seen::Out),
            ],
        ),
        (
            &["/home/user/../user/project"],
            vec![
                (s("/home/user/project/file"), Seen::In),
                (s("/home/user/other"), Seen::Out),
            ],
        ),
        (
            &["/home/user/project%20files"],
            vec![
                (s("/home/user/project%20files/test"), Seen::In),
                (s("/home/user/project files/test"), Seen::Out),
            ],
        ),
        // Skipped: "rejects allowed directories with null bytes" (a NUL
        // cannot travel in a process argument; a client root with one is
        // refused, see peer_roots_cases); the Windows-only groups (drive
        // letters, mixed separators, UNC: path.sep is "/" here; Windows
        // paths are refused, see peer_path_utils_cases); "rejects
        // non-string inputs" is below, through the tool's argument checks.
    ];
    for (allowed, cases) in groups {
        let (_tmp, t) = tree(&[
            "home/user/project/src",
            "home/user/project1/src",
            "home/user/project2/src",
            "home/user/safe",
            "home/user/café",
            "home/user/my project",
            "home/user/my-project (v2)",
            "home/user/project%20files",
            "home/user/project files",
            "test/allowed",
            "relative/path",
            "some/other/absolute/path",
        ]);
        // A root of theirs is absolute under T; "!" marks one used as is.
        let place = |p: &str| match p.strip_prefix('!') {
            Some(raw) => raw.to_owned(),
            None if p.is_empty() => String::new(),
            None => format!("{}{p}", t.display()),
        };
        let mut args = Vec::new();
        for root in allowed {
            args.push("--root".to_owned());
            args.push(place(root));
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let client = connect(&args, &t, &t, Rooted::default()).await;
        for (path, expected) in cases {
            let placed = place(&path);
            let (seen, said) = probe(&client, json!(placed)).await;
            assert_eq!(seen, expected, "roots {allowed:?}, path {path:?}: {said}");
            if seen == Seen::Out {
                assert!(
                    [
                        "outside the allowed roots",
                        "NUL byte",
                        "longer than",
                        "minLength",
                        "at least 1"
                    ]
                    .iter()
                    .any(|why| said.contains(why)),
                    "a refusal that says why: {path:?}: {said}"
                );
            }
        }
        client.cancel().await.expect("close");
    }

    // "handles null and undefined inputs", "rejects non-string inputs
    // safely": refused by the tool's argument checks, not a crash. Except a
    // number: the lenient argument conversion takes 123 as the name "123".
    let (_tmp, t) = tree(&["project"]);
    let root = t.join("project").display().to_string();
    let client = connect(&["--root", &root], &t, &t, Rooted::default()).await;
    assert_eq!(probe(&client, json!(123)).await.0, Seen::In);
    for bad in [json!(null), json!({}), json!([])] {
        let result = call(&client, "file_info", json!({ "path": bad })).await;
        assert_eq!(result.is_error, Some(true), "{bad}");
        assert!(text(&result).contains("`path`"), "{bad}: {}", text(&result));
    }
    client.cancel().await.expect("close");
}

/// path-validation.test.ts, "Symlink Tests" and "Race Condition Tests":
/// their assertions on resolved paths become what the server does with the
/// link (it follows it only beneath the root). Skipped: "demonstrates
/// symlink race condition allows writing outside", "shows timing
/// differences", "demonstrates exclusive file creation behavior": they show
/// what Node's `fs` does with no server in between.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn peer_symlink_cases() {
    use std::os::unix::fs::symlink;
    let (_tmp, t) = tree(&["allowed/subdir", "forbidden", "actual-target"]);
    let (allowed_dir, forbidden) = (t.join("allowed"), t.join("forbidden"));
    let target = forbidden.join("target.txt");
    std::fs::write(&target, "FORBIDDEN CONTENT").expect("write");
    let p = |rel: &str| allowed_dir.join(rel).display().to_string();

    // validates symlink handling; validates symlinked files consistently;
    // race condition in read operations: the link names a path inside, the
    // server refuses to follow it out.
    symlink(&target, allowed_dir.join("link-to-target.txt")).expect("link");
    // resolves nested symlink chains completely
    symlink(&target, t.join("intermediate-link1")).expect("link");
    symlink(t.join("intermediate-link1"), t.join("intermediate-link2")).expect("link");
    symlink(
        t.join("intermediate-link2"),
        allowed_dir.join("seemingly-safe-file"),
    )
    .expect("link");
    // parent directory symlink traversal; resolved parent paths for
    // non-existent files; directory creation timing
    symlink(&forbidden, allowed_dir.join("sub1")).expect("link");
    symlink(&forbidden, allowed_dir.join("link")).expect("link");
    symlink(&forbidden, allowed_dir.join("newdir")).expect("link");
    // symlinks that point within allowed directories, relative and
    // absolute (theirs): both followed, the absolute one by its text
    // beneath the root's handle, as the reference server does.
    std::fs::write(allowed_dir.join("target.txt"), "TARGET CONTENT").expect("write");
    symlink("target.txt", allowed_dir.join("symlink.txt")).expect("link");
    symlink(
        allowed_dir.join("target.txt"),
        allowed_dir.join("abs-symlink.txt"),
    )
    .expect("link");
    // rename does not follow symlinks
    symlink(&target, allowed_dir.join("target-symlink.txt")).expect("link");
    std::fs::write(allowed_dir.join("temp.txt"), "NEW CONTENT").expect("write");
    // overwrites of legitimate files
    std::fs::write(allowed_dir.join("legit-file.txt"), "ORIGINAL").expect("write");

    let root = allowed_dir.display().to_string();
    let client = connect(&["--root", &root], &t, &t, Rooted::default()).await;
    for (tool, args) in [
        ("read_file", json!({"path": p("link-to-target.txt")})),
        ("read_file", json!({"path": p("seemingly-safe-file")})),
        ("read_file", json!({"path": target.display().to_string()})),
        (
            "write_file",
            json!({"path": p("link-to-target.txt"), "content": "NEW CONTENT"}),
        ),
        (
            "write_file",
            json!({"path": p("sub1/sub2/file.txt"), "content": "CONTENT", "create_dirs": true}),
        ),
        (
            "write_file",
            json!({"path": p("link/newfile.txt"), "content": "x"}),
        ),
        ("create_directory", json!({"path": p("newdir/inner")})),
    ] {
        let result = call(&client, tool, args.clone()).await;
        let said = text(&result);
        assert_eq!(result.is_error, Some(true), "{tool} {args}: {said}");
        assert!(
            said.contains("outside the allowed roots"),
            "{tool} {args}: {said}"
        );
        assert!(!said.contains("FORBIDDEN"), "{said}");
    }
    let result = call(&client, "read_file", json!({"path": p("abs-symlink.txt")})).await;
    assert_eq!(result.is_error, Some(false), "{}", text(&result));
    assert!(
        text(&result).contains("TARGET CONTENT"),
        "{}",
        text(&result)
    );
    // The rename replaces the link, never what it points to.
    let result = call(
        &client,
        "move_path",
        json!({"source": p("temp.txt"), "destination": p("target-symlink.txt")}),
    )
    .await;
    assert_eq!(
        std::fs::read_to_string(&target).expect("read"),
        "FORBIDDEN CONTENT",
        "{}",
        text(&result)
    );
    assert_eq!(
        std::fs::read_dir(&forbidden).expect("list").count(),
        1,
        "nothing created outside"
    );
    // A link that stays inside is followed; a legitimate file is replaced.
    let result = call(&client, "read_file", json!({"path": p("symlink.txt")})).await;
    assert_eq!(text(&result), "TARGET CONTENT");
    for (path, content) in [
        ("symlink.txt", "UPDATED VIA SYMLINK"),
        ("legit-file.txt", "UPDATED"),
    ] {
        let result = call(
            &client,
            "write_file",
            json!({"path": p(path), "content": content}),
        )
        .await;
        assert_ne!(result.is_error, Some(true), "{path}: {}", text(&result));
    }
    assert_eq!(
        std::fs::read_to_string(allowed_dir.join("target.txt")).expect("read"),
        "UPDATED VIA SYMLINK"
    );
    assert_eq!(
        std::fs::read_to_string(allowed_dir.join("legit-file.txt")).expect("read"),
        "UPDATED"
    );
    // write through a link (absolute) to an inside file: the file changes,
    // the link stays.
    let result = call(
        &client,
        "write_file",
        json!({"path": p("abs-symlink.txt"), "content": "WRITTEN THROUGH"}),
    )
    .await;
    assert_eq!(result.is_error, Some(false), "{}", text(&result));
    assert_eq!(
        std::fs::read_to_string(allowed_dir.join("target.txt")).expect("read"),
        "WRITTEN THROUGH"
    );
    assert!(
        std::fs::symlink_metadata(allowed_dir.join("abs-symlink.txt"))
            .expect("link")
            .file_type()
            .is_symlink()
    );
    // A new file's path inside (its parent exists): found missing, not refused.
    assert_eq!(
        probe(&client, json!(p("subdir/newfile.txt"))).await.0,
        Seen::In
    );
    client.cancel().await.expect("close");

    // Allowed directory given as a symlink: paths through the link and
    // through its target are both inside (their assertion that the resolved
    // file is outside an *unresolved* allowed list does not describe the
    // server, which resolves its roots at startup, as theirs does).
    let link_dir = t.join("symlink-dir");
    symlink(t.join("actual-target"), &link_dir).expect("link");
    std::fs::write(t.join("actual-target/file.txt"), "FILE_CONTENT").expect("write");
    let link_root = link_dir.display().to_string();
    for roots in [
        vec!["--root", &link_root],
        vec!["--root", &link_root, "--root", &root],
    ] {
        let client = connect(&roots, &t, &t, Rooted::default()).await;
        for path in [
            link_dir.join("file.txt"),
            t.join("actual-target").join("file.txt"),
        ] {
            let result = call(
                &client,
                "read_file",
                json!({"path": path.display().to_string()}),
            )
            .await;
            assert_eq!(text(&result), "FILE_CONTENT", "{}", path.display());
        }
        client.cancel().await.expect("close");
    }
}

/// path-utils.test.ts: what `normalizePath`, `expandHome` and
/// `convertToWindowsPath` make of the spellings clients send, as the server
/// sees them, plus NFD names (macOS) which theirs does not handle.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn peer_path_utils_cases() {
    let nfc = "caf\u{e9}";
    let nfd = "cafe\u{301}";
    let (_tmp, t) = tree(&[
        "home/user/test",
        "root/usr/local/bin/app",
        "root/mnt/c/NS/MyKindleContent",
        "root/mnt/d/Documents",
        "root/c/NS/MyKindleContent",
        "root/d/some/path",
        "root/Users/NEMANS~1/FOLDER~2/SUBFO~1/Public/P12PST~1",
        "root/NS/Sub&Folder",
        "root/Path with #hash",
        "root/Path with (parentheses)",
        "root/Path with [brackets]",
        "root/Path with @at+plus$dollar%percent",
        "root/some/relative/path",
        "root/caf\u{e9}/r\u{e9}sum\u{e9}",
    ]);
    let root = t.join("root");
    let home = t.join("home/user");
    let root_arg = root.display().to_string();
    let home_arg = home.display().to_string();
    let client = connect(
        &["--root", &root_arg, "--root", &home_arg],
        &t,
        &home,
        Rooted::default(),
    )
    .await;
    let found = |result: &CallToolResult| {
        result.is_error != Some(true)
            && result
                .structured_content
                .as_ref()
                .map(|s| s["kind"].clone())
                == Some(json!("directory"))
    };
    // Unix paths stay as they are: /mnt/c (WSL), /c/… and /d/… are not
    // drives here, `~` inside a name is a plain character, as are & # ( [ @ $ %.
    let r = |p: &str| format!("{root_arg}{p}");
    for path in [
        r("/usr/local/bin"),
        r("/usr/local//bin/app///"),
        r("///"),
        r("/mnt/c/NS/MyKindleContent"),
        r("/mnt/d/Documents"),
        r("/c/NS/MyKindleContent"),
        r("/d/some/path"),
        r("/Users/NEMANS~1/FOLDER~2/SUBFO~1/Public/P12PST~1"),
        r("/NS/Sub&Folder"),
        r("/Path with #hash"),
        r("/Path with (parentheses)"),
        r("/Path with [brackets]"),
        r("/Path with @at+plus$dollar%percent"),
        "some/relative/path".to_owned(),
        // expandHome: `~` and `~/test` are the home directory (a root here).
        "~".to_owned(),
        "~/test".to_owned(),
        // Not in theirs: an NFD spelling of NFC names is found, and the NFC
        // spelling of NFD names, beneath a root.
        format!("{nfd}/re\u{301}sume\u{301}"),
        r(&format!("/{nfd}")),
    ] {
        let result = call(&client, "file_info", json!({ "path": path })).await;
        assert!(found(&result), "{path:?}: {}", text(&result));
    }
    let nfd_file = root.join(format!("{nfc}/r\u{e9}sum\u{e9}/note.txt"));
    std::fs::write(&nfd_file, "noted").expect("write");
    let result = call(
        &client,
        "read_file",
        json!({"path": format!("{nfd}/re\u{301}sume\u{301}/note.txt")}),
    )
    .await;
    assert_eq!(text(&result), "noted");

    // Windows drive paths (convertToWindowsPath, normalizePath, and
    // expandHome's "C:/test") are refused: they would be a file named `C:`
    // on Unix. Theirs converts them, which only means something on Windows.
    for path in [
        "C:\\NS\\MyKindleContent",
        "C:/NS/MyKindleContent",
        "C:\\Program Files\\Some App",
        "C:/Program Files/Some App",
        "c:/windows/system32",
        "C:/test",
        "C:",
        "d:",
        "\\\\SERVER\\share\\folder",
    ] {
        let result = call(&client, "file_info", json!({ "path": path })).await;
        let said = text(&result);
        assert_eq!(result.is_error, Some(true), "{path}");
        assert!(said.contains("is a Windows path"), "{path}: {said}");
    }
    // A single leading backslash is no Windows path: a name, inside.
    assert_eq!(
        probe(&client, json!("\\someserver\\share\\file")).await.0,
        Seen::In
    );
    // `~` is confined like any path: `~/..` leaves the roots.
    let (seen, said) = probe(&client, json!("~/../../etc")).await;
    assert_eq!(seen, Seen::Out, "{said}");
    // Skipped: "removes surrounding quotes" and the whitespace trimming in
    // "handles paths with spaces and mixed slashes": on Unix `"` and
    // leading or trailing spaces are legal in names, so stripping them
    // would make such files unreachable. "converts forward slashes to
    // backslashes", "relative path slash conversion", "capitalizes drive
    // letters", "bare drive letters to the drive root": Windows output.
    client.cancel().await.expect("close");
}

/// roots-utils.test.ts (`getValidRootDirectories`) through a client that
/// offers those roots, then `notifications/roots/list_changed`; and
/// index.ts's rules: valid client roots replace the `--root` directories, an
/// unusable list keeps them, no root at all serves nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn peer_roots_cases() {
    let (_tmp, t) = tree(&["d1/subdir", "d2", "d3", "cli"]);
    let (d1, d2, d3, cli) = (t.join("d1"), t.join("d2"), t.join("d3"), t.join("cli"));
    std::fs::write(d1.join("test-file.txt"), "test content").expect("write");
    std::fs::write(d3.join("only-in-d3.txt"), "three").expect("write");
    let cli_arg = cli.display().to_string();

    // "should process all URI formats": file:// URIs are taken; the plain
    // path they also accept is skipped here, since the specification says a
    // root is a file:// URI.
    let client = Rooted::offering(&[file_uri(&d1), d2.display().to_string(), file_uri(&d3)]);
    let session = connect(&["--root", &cli_arg], &t, &t, client.clone()).await;
    assert_eq!(
        allowed(&session).await,
        Ok((vec![canon(&d1), canon(&d3)], "client roots".to_owned()))
    );
    // The client's roots are what the tools use; the --root is not.
    let result = call(
        &session,
        "read_file",
        json!({"path": d3.join("only-in-d3.txt").display().to_string()}),
    )
    .await;
    assert_eq!(text(&result), "three");
    let (seen, _) = probe(&session, json!(cli_arg)).await;
    assert_eq!(seen, Seen::Out);
    // Relative paths are taken from the first client root.
    let result = call(&session, "read_file", json!({"path": "test-file.txt"})).await;
    assert_eq!(text(&result), "test content");
    assert_eq!(client.asked(), 1, "asked once per session");

    // "should normalize complex paths", after roots/list_changed.
    client.set(&[format!("file://{}/./subdir/../subdir", d1.display())]);
    session.notify_roots_list_changed().await.expect("notify");
    let mut seen_new = None;
    for _ in 0..50 {
        let now = allowed(&session).await;
        if now != Ok((vec![canon(&d1), canon(&d3)], "client roots".to_owned())) {
            seen_new = Some(now);
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(
        seen_new,
        Some(Ok((
            vec![canon(&d1.join("subdir"))],
            "client roots".to_owned()
        )))
    );
    let (seen, _) = probe(&session, json!(d3.display().to_string())).await;
    assert_eq!(seen, Seen::Out, "the old roots are gone");

    // "should handle various error types": only the valid one is kept.
    client.set(&[
        file_uri(&d1),
        file_uri(&t.join("non-existent-directory-12345")),
        file_uri(&d1.join("test-file.txt")),
        "file://\0invalid\0path".to_owned(),
    ]);
    session.notify_roots_list_changed().await.expect("notify");
    let mut last = None;
    for _ in 0..50 {
        last = Some(allowed(&session).await);
        if last == Some(Ok((vec![canon(&d1)], "client roots".to_owned()))) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(
        last,
        Some(Ok((vec![canon(&d1)], "client roots".to_owned())))
    );

    // "No valid root directories provided by client": the --root stays.
    client.set(&[file_uri(&t.join("gone")), "https://example.com/".to_owned()]);
    session.notify_roots_list_changed().await.expect("notify");
    let mut last = None;
    for _ in 0..50 {
        last = Some(allowed(&session).await);
        if last == Some(Ok((vec![canon(&cli)], "command line".to_owned()))) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(
        last,
        Some(Ok((vec![canon(&cli)], "command line".to_owned())))
    );
    session.cancel().await.expect("close");

    // Started with no directory: the client's roots are served...
    let client = Rooted::offering(&[file_uri(&d3)]);
    let session = connect(&[], &t, &t, client).await;
    assert_eq!(
        allowed(&session).await,
        Ok((vec![canon(&d3)], "client roots".to_owned()))
    );
    session.cancel().await.expect("close");
    // ...and with neither, nothing is: not the directory it was started in.
    let session = connect(&[], &t, &t, Rooted::default()).await;
    let how = allowed(&session).await.expect_err("no roots");
    assert!(
        how.contains("--root") && how.contains("roots/list"),
        "{how}"
    );
    for (tool, args) in [
        ("list_directory", json!({})),
        ("read_file", json!({"path": "d1/test-file.txt"})),
        (
            "file_info",
            json!({"path": t.join("d1").display().to_string()}),
        ),
        ("find_files", json!({"glob": "**"})),
    ] {
        let result = call(&session, tool, args).await;
        assert_eq!(result.is_error, Some(true), "{tool}");
        assert!(
            text(&result).contains("no directory is allowed yet"),
            "{tool}: {}",
            text(&result)
        );
    }
    session.cancel().await.expect("close");
}

/// startup-validation.test.ts: each case's `--root`s, the server's stderr
/// and whether it serves (stdin closed at once: it starts, then stops at EOF).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn peer_startup_cases() {
    let (_tmp, t) = tree(&["accessible", "accessible2"]);
    let accessible = t.join("accessible").display().to_string();
    let accessible2 = t.join("accessible2").display().to_string();
    let missing = t.join("non-existent-dir-12345").display().to_string();
    let file = t.join("not-a-directory.txt");
    std::fs::write(&file, "content").expect("write");
    let file = file.display().to_string();
    let run = |args: &[&str]| {
        let out = std::process::Command::new(BIN)
            .args(args)
            .env_remove("RUST_LOG")
            .stdin(Stdio::null())
            .output()
            .expect("runs");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };

    // should start successfully with all accessible directories
    let (code, stderr) = run(&["--root", &accessible, "--root", &accessible2]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        !stderr.contains("WARN") && !stderr.contains("error"),
        "{stderr}"
    );

    // should skip inaccessible directory and continue with accessible one
    let (code, stderr) = run(&["--root", &missing, "--root", &accessible]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains("WARN") && stderr.contains(&missing),
        "{stderr}"
    );
    let session = connect(
        &["--root", &missing, "--root", &accessible],
        &t,
        &t,
        Rooted::default(),
    )
    .await;
    assert_eq!(
        allowed(&session).await,
        Ok((vec![accessible.clone()], "command line".to_owned()))
    );
    session.cancel().await.expect("close");

    // should exit with error when ALL directories are inaccessible
    let missing2 = t.join("non-existent-2").display().to_string();
    let (code, stderr) = run(&["--root", &missing, "--root", &missing2]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("error: none of the 2 --root directories can be served"),
        "{stderr}"
    );

    // should warn when path is not a directory
    let (code, stderr) = run(&["--root", &file, "--root", &accessible]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains("WARN") && stderr.contains("not a directory"),
        "{stderr}"
    );
    let session = connect(
        &["--root", &file, "--root", &accessible],
        &t,
        &t,
        Rooted::default(),
    )
    .await;
    assert_eq!(
        allowed(&session).await,
        Ok((vec![accessible.clone()], "command line".to_owned()))
    );
    session.cancel().await.expect("close");

    // Not in theirs: an empty --root is skipped the same way.
    let (code, stderr) = run(&["--root", "", "--root", &accessible]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("empty root"), "{stderr}");
    // With no --root the server starts and says it waits for the client.
    let (code, stderr) = run(&[]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stderr.contains("without --root"), "{stderr}");
}

/// rmcp's client `client` on Streamable HTTP: a 2025-11-25 session, or
/// 2026-07-28 stateless requests when `modern`.
async fn http(url: &str, client: Rooted, modern: bool) -> Client {
    use rmcp::model::ProtocolVersion;
    use rmcp::service::{ClientLifecycleMode, ClientServiceExt};
    use rmcp::transport::StreamableHttpClientTransport;
    let transport = StreamableHttpClientTransport::from_uri(url.to_owned());
    let mode = if modern {
        ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        }
    } else {
        ClientLifecycleMode::Initialize
    };
    client
        .serve_with_lifecycle(transport, mode)
        .await
        .expect("connect over HTTP")
}

/// Over HTTP each session's roots are its own: one client's roots never
/// widen another's access, a 2026-07-28 request (no session) gets the
/// `--root` directories even from a client that would offer roots, and a
/// client root outside every `--root` directory is refused (over HTTP a
/// client may narrow what the operator allowed, never widen it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_http_session_has_its_own_roots() {
    let (_tmp, t) = tree(&["cli/alice", "cli/bob", "outside"]);
    let dirs = ["cli", "cli/alice", "cli/bob", "outside"];
    for dir in dirs {
        std::fs::write(t.join(dir).join("secret.txt"), format!("{dir}'s")).expect("write");
    }
    let cli = t.join("cli").display().to_string();
    let server = toolmetadata_tests::mcp::http_server(BIN, &["--root", &cli]).await;
    let alice_roots = Rooted::offering(&[file_uri(&t.join("cli/alice"))]);
    let alice = http(&server.url, alice_roots.clone(), false).await;
    let bob = http(
        &server.url,
        Rooted::offering(&[file_uri(&t.join("cli/bob"))]),
        false,
    )
    .await;
    let plain = http(&server.url, Rooted::default(), false).await;
    let modern = http(
        &server.url,
        Rooted::offering(&[file_uri(&t.join("cli/alice"))]),
        true,
    )
    .await;
    let mallory = http(
        &server.url,
        Rooted::offering(&[file_uri(&t.join("outside")), file_uri(Path::new("/"))]),
        false,
    )
    .await;
    let read = |dir: &str| json!({"path": t.join(dir).join("secret.txt").display().to_string()});
    let everything_under_cli: &[&str] = &["cli", "cli/alice", "cli/bob"];
    for round in 0..2 {
        for (client, own, readable, name) in [
            (&alice, "cli/alice", &["cli/alice"][..], "alice"),
            (&bob, "cli/bob", &["cli/bob"][..], "bob"),
            (&plain, "cli", everything_under_cli, "no roots"),
            (&modern, "cli", everything_under_cli, "2026-07-28"),
            (
                &mallory,
                "cli",
                everything_under_cli,
                "roots outside --root",
            ),
        ] {
            let source = if own == "cli" {
                "command line"
            } else {
                "client roots"
            };
            assert_eq!(
                allowed(client).await,
                Ok((vec![canon(&t.join(own))], source.to_owned())),
                "{name}, round {round}"
            );
            for dir in dirs {
                let result = call(client, "read_file", read(dir)).await;
                if readable.contains(&dir) {
                    assert_eq!(
                        result.is_error,
                        Some(false),
                        "{name} reads {dir}: {}",
                        text(&result)
                    );
                } else {
                    assert!(
                        text(&result).contains("outside the allowed roots"),
                        "{name} may not read {dir}: {}",
                        text(&result)
                    );
                }
            }
        }
    }
    // Alice's list was asked for once for the whole session.
    assert_eq!(alice_roots.asked(), 1);
    for client in [alice, bob, plain, modern, mallory] {
        client.cancel().await.expect("close");
    }
}

/// A client root named through a link is recorded as the directory the link
/// led to when the root was taken: re-pointing the link later, outside
/// every `--root`, changes nothing the session sees (here, what the review
/// prompt completes).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_root_named_through_a_link_stays_where_it_led() {
    use rmcp::model::{ArgumentInfo, CompleteRequestParams, Reference};
    let (_tmp, t) = tree(&["cli/real/inside", "outside/leaked"]);
    let alias = t.join("cli/alias");
    // Relative, as a checked-out repository carries them.
    std::os::unix::fs::symlink("real", &alias).expect("link");
    let cli = t.join("cli").display().to_string();
    let server = toolmetadata_tests::mcp::http_server(BIN, &["--root", &cli]).await;
    let client = http(&server.url, Rooted::offering(&[file_uri(&alias)]), false).await;
    let complete = || {
        client.complete(CompleteRequestParams::new(
            Reference::for_prompt("review_changes"),
            ArgumentInfo::new("path", ""),
        ))
    };
    assert_eq!(
        complete().await.expect("complete").completion.values,
        ["inside"]
    );
    std::fs::remove_file(&alias).expect("unlink");
    std::os::unix::fs::symlink("../outside", &alias).expect("re-point");
    assert_eq!(
        complete().await.expect("complete").completion.values,
        ["inside"],
        "the re-pointed link leads the session outside"
    );
    client.cancel().await.expect("close");
}
