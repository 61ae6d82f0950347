//! Tool groups (`toolGroups`): example-server's `read` and `edit` groups,
//! each served at `/mcp/<group>` with its own list and tag, chosen at start
//! on stdio with `--group`, and described to a client that negotiates MCP
//! Toolbox's groups extension.

use std::collections::BTreeSet;

use serde_json::{Value, json};
use toolmetadata_tests::mcp::*;

const BIN: &str = env!("CARGO_BIN_EXE_example-server");

/// The tools of the `read` group: the ones that change nothing.
const READ: [&str; 10] = [
    "directory_tree",
    "file_info",
    "find_files",
    "list_allowed_directories",
    "list_directory",
    "list_directory_with_sizes",
    "read_file",
    "read_media_file",
    "read_multiple_files",
    "search_files",
];

/// The tools of the `edit` group.
const EDIT: [&str; 5] = [
    "create_directory",
    "edit_file",
    "move_path",
    "replace_in_file",
    "write_file",
];

/// What the groups extension's client declares.
fn toolbox() -> Value {
    json!({"extensions": {"com.google.cloud/toolbox.v1": {}}})
}

/// `url`'s 2026-07-28 `tools/list`: the names listed, the answer's tag and
/// its `ETag` header.
async fn list(url: &str) -> (BTreeSet<String>, String, String) {
    let response = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/list")
        .body(request_2026(1, "tools/list", json!({})))
        .send()
        .await
        .expect("tools/list");
    assert_eq!(response.status(), 200, "{url}");
    let etag = response
        .headers()
        .get("etag")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let reply = message_of(&response.text().await.expect("body"));
    let names = reply["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str().map(str::to_owned))
        .collect();
    let tag = reply["result"]["_meta"]["io.toolmetadata/etag"]
        .as_str()
        .expect("tag")
        .to_owned();
    (names, tag, etag)
}

/// The names an rmcp client's `tools/list` gives.
async fn listed(client: &Client) -> BTreeSet<String> {
    client
        .list_all_tools()
        .await
        .expect("tools/list")
        .iter()
        .map(|t| t.name.to_string())
        .collect()
}

fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|n| (*n).to_owned()).collect()
}

/// A 2026-07-28 `tools/call` of `name` with `arguments` at `url`: the reply.
async fn call_2026(url: &str, name: &str, arguments: Value) -> Value {
    let (status, body) = post_2026(
        url,
        "tools/call",
        Some(name),
        &[],
        request_2026(
            2,
            "tools/call",
            json!({"name": name, "arguments": arguments}),
        ),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    message_of(&body)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_group_is_served_at_its_own_endpoint_with_its_own_tag() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().display().to_string();
    let server = http_server(BIN, &["--root", &root, "--allow-command", "echo"]).await;
    let (whole, whole_tag, whole_etag) = list(&server.url).await;
    let (read, read_tag, read_etag) = list(&format!("{}/read", server.url)).await;
    let (edit, edit_tag, edit_etag) = list(&format!("{}/edit", server.url)).await;
    assert_eq!(read, set(&READ));
    assert_eq!(edit, set(&EDIT));
    let (slashed, _, _) = list(&format!("{}/read/", server.url)).await;
    assert_eq!(slashed, read, "a trailing slash names the same group");
    // The endpoint lists every tool (run_command, discoverable, through
    // the meta-tools); neither group has a discoverable tool, so neither
    // lists them.
    assert!(whole.is_superset(&read) && whole.is_superset(&edit));
    assert!(whole.contains("tool_search"), "{whole:?}");
    // Each list's tag is its own, and its ETag is that tag.
    let tags = BTreeSet::from([&whole_tag, &read_tag, &edit_tag]);
    assert_eq!(tags.len(), 3, "{tags:?}");
    for (tag, etag) in [
        (&whole_tag, &whole_etag),
        (&read_tag, &read_etag),
        (&edit_tag, &edit_etag),
    ] {
        assert!(etag.contains(tag.as_str()), "{etag} {tag}");
    }
    // A group's list is revalidated against its own tag.
    let revalidated = reqwest::Client::new()
        .post(format!("{}/read", server.url))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/list")
        .header("if-none-match", read_etag.as_str())
        .body(request_2026(1, "tools/list", json!({})))
        .send()
        .await
        .expect("tools/list");
    assert_eq!(revalidated.status(), 304);

    // A tool of another group is unknown at a group's endpoint, as a name
    // no tool has; at the endpoint itself it runs.
    let file = dir.path().join("a.txt");
    let write = json!({"path": file.display().to_string(), "content": "x"});
    let refused = call_2026(&format!("{}/read", server.url), "write_file", write.clone()).await;
    let unknown = call_2026(&format!("{}/read", server.url), "no_such_tool", json!({})).await;
    assert_eq!(
        refused["error"]["code"], unknown["error"]["code"],
        "{refused}"
    );
    assert!(
        refused["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("unknown tool `write_file`")),
        "{refused}"
    );
    assert!(!file.exists());
    let read_there = call_2026(
        &format!("{}/read", server.url),
        "list_allowed_directories",
        json!({}),
    )
    .await;
    assert_eq!(read_there["result"]["isError"], false, "{read_there}");
    let written = call_2026(&format!("{}/edit", server.url), "write_file", write).await;
    assert_eq!(written["result"]["isError"], false, "{written}");
    assert!(file.exists());

    // Only `/mcp/<group>` and `/mcp/<group>/` name a group.
    // (`/./read` never reaches a server: a client resolves dot segments.)
    for path in ["//read", "/read//", "/%72ead"] {
        let (status, body) = post_2026(
            &format!("{}{path}", server.url),
            "tools/list",
            None,
            &[],
            request_2026(1, "tools/list", json!({})),
        )
        .await;
        assert_eq!(status, 404, "{path}: {body}");
    }
    // Attacked: a path of 6 KB, escapes and quotes in it, is not found, and
    // the answer names it cut short, one line, never echoing it whole.
    let hostile = format!("/%0a%1b[31m`{}", "x".repeat(6_000));
    let (status, body) = post_2026(
        &format!("{}{hostile}", server.url),
        "tools/list",
        None,
        &[],
        request_2026(1, "tools/list", json!({})),
    )
    .await;
    assert_eq!(status, 404, "{}", body.len());
    assert!(body.len() < 400 && !body.contains('\n'), "{body}");
    // Beneath the endpoint, a path that is no group is not found.
    let (status, body) = post_2026(
        &format!("{}/admin", server.url),
        "tools/list",
        None,
        &[],
        request_2026(1, "tools/list", json!({})),
    )
    .await;
    assert_eq!(status, 404, "{body}");
    assert!(
        body.contains("no group `admin`") && body.contains("edit, read"),
        "{body}"
    );
}

/// A 2025-11-25 session, with rmcp's client, at a group's endpoint; and a
/// session opened at the endpoint whose call is sent to a group's: the
/// path a request is sent to decides what it sees.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_sees_the_group_of_the_path_each_request_is_sent_to() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().display().to_string();
    let server = http_server(BIN, &["--root", &root]).await;
    let (client, _) = http_client(&format!("{}/edit", server.url)).await;
    assert_eq!(listed(&client).await, set(&EDIT));
    client.cancel().await.expect("close");

    let session = open_session_2025(&server.url, &[]).await;
    let call = |id: u64| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "list_allowed_directories", "arguments": {}}})
    };
    let (status, body) = send_2025(&server.url, "POST", Some(&session), &[], Some(call(5))).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(message_of(&body)["result"]["isError"], false, "{body}");
    let (status, body) = send_2025(
        &format!("{}/edit", server.url),
        "POST",
        Some(&session),
        &[],
        Some(call(6)),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert!(
        message_of(&body)["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("unknown tool")),
        "{body}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_stdio_the_groups_are_chosen_at_start() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().display().to_string();
    let (client, _) = stdio(BIN, &["--root", &root, "--group", "read"]).await;
    assert_eq!(listed(&client).await, set(&READ));
    let file = dir.path().join("a.txt");
    let refused = client
        .call_tool(
            rmcp::model::CallToolRequestParams::new("write_file").with_arguments(
                json!({"path": file.display().to_string(), "content": "x"})
                    .as_object()
                    .cloned()
                    .unwrap_or_default(),
            ),
        )
        .await
        .expect_err("unknown at a read-only start");
    assert!(refused.to_string().contains("unknown tool"), "{refused}");
    assert!(!file.exists());
    client.cancel().await.expect("close");

    let (client, _) = stdio(
        BIN,
        &["--root", &root, "--group", "read", "--group", "edit"],
    )
    .await;
    let both: BTreeSet<String> = set(&READ).union(&set(&EDIT)).cloned().collect();
    assert_eq!(listed(&client).await, both);
    client.cancel().await.expect("close");

    // A group no tool is in: the server does not start, and says which
    // groups there are.
    let output = std::process::Command::new(BIN)
        .args(["--root", &root, "--group", "admin"])
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("no tool this server serves is in the group `admin`")
            && stderr.contains("edit, read"),
        "{stderr}"
    );
}

/// `groups/list` and `groups/get` for a client that declares the extension
/// (2026-07-28 over HTTP, with `Mcp-Name`; a 2025-11-25 session that
/// declared it at `initialize`), and no such methods for one that does not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_groups_extension_answers_the_clients_that_declare_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().display().to_string();
    let server = http_server(BIN, &["--root", &root]).await;
    let groups_list = |capabilities: Value| {
        let url = server.url.clone();
        async move {
            let (status, body) = post_2026(
                &url,
                "groups/list",
                None,
                &[],
                request_2026_declaring(3, "groups/list", json!({}), capabilities),
            )
            .await;
            (status, message_of(&body))
        }
    };
    let (status, listed) = groups_list(toolbox()).await;
    assert_eq!(status, 200, "{listed}");
    assert_eq!(
        listed["result"]["groups"],
        json!([{"name": "edit"}, {"name": "read"}]),
        "{listed}"
    );
    assert!(
        listed["result"]["ttlMs"].as_u64().is_some_and(|t| t > 0),
        "{listed}"
    );
    assert_eq!(listed["result"]["cacheScope"], "public", "{listed}");
    // Not declared: no such method (which rmcp answers with 404 on
    // 2026-07-28).
    let (status, absent) = groups_list(json!({})).await;
    assert_eq!(
        (status, &absent["error"]["code"]),
        (404, &json!(-32601)),
        "{absent}"
    );

    let get = |name: &str, header: &str| {
        let url = server.url.clone();
        let body = request_2026_declaring(4, "groups/get", json!({"name": name}), toolbox());
        let header = header.to_owned();
        async move {
            let (status, body) = post_2026(&url, "groups/get", Some(&header), &[], body).await;
            (status, message_of(&body))
        }
    };
    let (status, got) = get("read", "read").await;
    assert_eq!(status, 200, "{got}");
    let names: BTreeSet<String> = got["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(names, set(&READ));
    assert_eq!(got["result"]["name"], "read");
    let (_, read_tag, _) = list(&format!("{}/read", server.url)).await;
    assert_eq!(
        got["result"]["_meta"]["io.toolmetadata/etag"],
        read_tag.as_str()
    );
    // As rmcp answers a header that disagrees with the body: 400, -32020.
    let (status, mismatched) = get("read", "edit").await;
    assert_eq!(
        (status, &mismatched["error"]["code"]),
        (400, &json!(-32020)),
        "{mismatched}"
    );
    let (_, unknown) = get("admin", "admin").await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    assert!(
        unknown["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("no group `admin`") && m.contains("edit, read")),
        "{unknown}"
    );

    // A 2025-11-25 session: declared at initialize, the methods are there.
    let session = open_session_2025_declaring(&server.url, &[], toolbox()).await;
    let get_2025 =
        json!({"jsonrpc": "2.0", "id": 9, "method": "groups/get", "params": {"name": "edit"}});
    let (status, body) = send_2025(&server.url, "POST", Some(&session), &[], Some(get_2025)).await;
    assert_eq!(status, 200, "{body}");
    let got = message_of(&body);
    assert_eq!(
        got["result"]["tools"].as_array().map(Vec::len),
        Some(EDIT.len()),
        "{got}"
    );
}
