//! `toolmetadata::testing` through its public API: a confirmed tool answered
//! yes and no, refused with nobody to ask, a task's progress, result and
//! cancel on both protocol generations, and a resource's update heard.

use std::sync::{Arc, Mutex};
use toolmetadata::metadata::Load as _;

use toolmetadata::server::Server;
use toolmetadata::testing::{Client, Error, Person, Protocol, Reply, TaskStatus, json};
use toolmetadata::{ToolMetadata, ToolOutput};

const REMOVE: &str = r#"
description = "Remove a path, after the person says yes"
destructive = true

[[parameters]]
name = "path"
type = "string"
required = true

[confirm]
message = "Remove {path}?"
unsupported = "refuse"
"#;

const JOB: &str = r#"
description = "Reports that it is halfway, then waits to be let go or cancelled"
task = "optional"
"#;

/// What the tools did: the paths removed; the job's release.
#[derive(Default, Clone)]
struct World {
    removed: Arc<Mutex<Vec<String>>>,
    release: Arc<tokio::sync::Notify>,
}

fn server(world: &World) -> Server {
    let remove = ToolMetadata::from_toml_str("remove", REMOVE).expect("remove");
    let job = ToolMetadata::from_toml_str("job", JOB).expect("job");
    let removed = world.removed.clone();
    let release = world.release.clone();
    Server::builder()
        .tool(remove, move |args, _cx| {
            let removed = removed.clone();
            async move {
                let path: String = args.get("path")?;
                removed.lock().expect("lock").push(path.clone());
                Ok(format!("removed {path}"))
            }
        })
        .tool(job, move |_, cx| {
            let release = release.clone();
            async move {
                cx.progress(1.0, Some(2.0), Some("halfway")).await;
                tokio::select! {
                    () = release.notified() => Ok(ToolOutput::text("done")),
                    () = cx.cancelled() => Err(toolmetadata::ToolError::new("cancelled")),
                }
            }
        })
        .resource("app://notes", "notes", "text/plain", "buy milk")
        .build()
        .expect("server")
}

const BOTH: [Protocol; 2] = [Protocol::V2025_11_25, Protocol::V2026_07_28];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_confirmed_tool_runs_on_yes_and_not_on_no() {
    for protocol in BOTH {
        let world = World::default();
        let server = server(&world);
        let yes = Client::builder()
            .protocol(protocol)
            .person(Person::replying(Reply::yes()))
            .connect(&server)
            .await
            .expect("connect");
        let called = yes
            .call("remove", json!({"path": "a.txt"}))
            .await
            .expect("call");
        assert!(!called.is_error(), "{protocol:?}: {called:?}");
        assert_eq!(called.text(), "removed a.txt");
        assert_eq!(yes.asked().len(), 1, "{protocol:?}");
        assert_eq!(yes.asked()[0].message, "Remove a.txt?");
        yes.close().await.expect("close");

        let no = Client::builder()
            .protocol(protocol)
            .person(Person::script([Reply::Decline, Reply::Cancel]))
            .connect(&server)
            .await
            .expect("connect");
        for path in ["b.txt", "c.txt"] {
            let called = no
                .call("remove", json!({"path": path}))
                .await
                .expect("call");
            assert!(called.is_error(), "{protocol:?}: {called:?}");
        }
        assert_eq!(no.asked().len(), 2);
        assert_eq!(
            *world.removed.lock().expect("lock"),
            ["a.txt"],
            "{protocol:?}: only the call answered yes ran"
        );
        no.close().await.expect("close");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_nobody_to_ask_refuse_refuses() {
    for protocol in BOTH {
        let world = World::default();
        let server = server(&world);
        let client = Client::builder()
            .protocol(protocol)
            .connect(&server)
            .await
            .expect("connect");
        let called = client
            .call("remove", json!({"path": "a.txt"}))
            .await
            .expect("call");
        assert!(called.is_error(), "{protocol:?}: {called:?}");
        assert!(client.asked().is_empty());
        assert!(
            world.removed.lock().expect("lock").is_empty(),
            "{protocol:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tasks_progress_result_and_cancel_on_both_generations() {
    for protocol in BOTH {
        let world = World::default();
        let server = server(&world);
        let client = Client::builder()
            .protocol(protocol)
            .tasks()
            .connect(&server)
            .await
            .expect("connect");

        // Progress, then the result once the job is let go.
        let task = client.start("job", json!({})).await.expect("a task");
        let halfway = task
            .wait_until(|state| state.message.is_some())
            .await
            .expect("progress");
        assert_eq!(halfway.status, TaskStatus::Working, "{protocol:?}");
        assert_eq!(halfway.message.as_deref(), Some("halfway"), "{protocol:?}");
        world.release.notify_one();
        let done = task.result().await.expect("the result");
        assert_eq!(done.text(), "done", "{protocol:?}");
        assert_eq!(
            task.status().await.expect("status").status,
            TaskStatus::Completed
        );

        // Cancelled while it waits: its result says so.
        let task = client.start("job", json!({})).await.expect("a task");
        task.wait_until(|state| state.message.is_some())
            .await
            .expect("progress");
        let cancelled = task.cancel().await.expect("cancel");
        assert_eq!(cancelled.status, TaskStatus::Cancelled, "{protocol:?}");
        let ended = task.result().await;
        assert!(
            matches!(ended, Err(Error::Cancelled | Error::Protocol(_))),
            "{protocol:?}: {ended:?}"
        );
        client.close().await.expect("close");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plain_call_of_a_task_tool_waits_for_its_end_and_hears_progress() {
    // 2026-07-28 with tasks declared: the server makes a task, `call` waits.
    let world = World::default();
    let server = server(&world);
    let client = Client::builder()
        .protocol(Protocol::V2026_07_28)
        .tasks()
        .connect(&server)
        .await
        .expect("connect");
    let release = world.release.clone();
    let releasing = tokio::spawn(async move {
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        release.notify_one();
    });
    assert_eq!(
        client.call("job", json!(null)).await.expect("call").text(),
        "done"
    );
    releasing.await.expect("released");

    // 2025-11-25, no task asked for: it runs in the call, and its progress
    // arrives as notifications.
    let client = Client::connect(&server).await.expect("connect");
    world.release.notify_one();
    assert_eq!(
        client.call("job", json!({})).await.expect("call").text(),
        "done"
    );
    let progress = client
        .notified("notifications/progress")
        .await
        .expect("progress");
    assert_eq!(progress.params["message"], "halfway");
    assert_eq!(progress.params["progress"], 1.0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subscriber_hears_a_resources_update_on_both_generations() {
    for protocol in BOTH {
        let server = server(&World::default());
        let client = Client::builder()
            .protocol(protocol)
            .connect(&server)
            .await
            .expect("connect");
        let read = client.read_resource("app://notes").await.expect("read");
        assert_eq!(
            serde_json::to_value(&read.contents).expect("json")[0]["text"],
            "buy milk"
        );
        client.subscribe("app://notes").await.expect("subscribe");
        assert_eq!(
            server.resource_updated("app://notes").await,
            1,
            "{protocol:?}"
        );
        let updated = client
            .notified("notifications/resources/updated")
            .await
            .expect("updated");
        assert_eq!(updated.params["uri"], "app://notes", "{protocol:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_say_what_went_wrong() {
    let server = server(&World::default());
    let client = Client::builder()
        .timeout(std::time::Duration::from_millis(300))
        .connect(&server)
        .await
        .expect("connect");
    let unknown = client
        .call("nothing", json!({}))
        .await
        .expect_err("unknown");
    assert!(unknown.code().is_some(), "{unknown}");
    let not_object = client
        .call("job", json!([1]))
        .await
        .expect_err("not an object");
    assert!(
        not_object.to_string().contains("must be a JSON object"),
        "{not_object}"
    );
    // The job waits for a release that never comes: the wait is bounded.
    let waited = client.call("job", json!({})).await.expect_err("timeout");
    assert!(matches!(waited, Error::Timeout { .. }), "{waited}");
    let none = client
        .notified("notifications/tools/list_changed")
        .await
        .expect_err("nothing changed");
    assert!(none.to_string().contains("list_changed"), "{none}");
}

/// A run-time tool with `outputText`: the text a client reads is the
/// template rendered from the structured result, which goes beside it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_time_tools_output_text_is_rendered_from_its_structured_result() {
    const COUNT: &str = r#"
description = "Count the notes in a folder"
outputText = "Found {count} notes in {folder}: {titles}"

[[output]]
name = "count"
type = "int"
required = true

[[output]]
name = "folder"
type = "string"
required = true

[[output]]
name = "titles"
type = "array:string"
required = true
"#;
    let tool = ToolMetadata::from_toml_str("count_notes", COUNT).expect("count_notes");
    let server = Server::builder()
        .tool(tool, |_, _| async {
            Ok(ToolOutput::structured(
                json!({"count": 2, "folder": "inbox", "titles": ["milk", "eggs"]}),
            ))
        })
        .build()
        .expect("server");
    let client = Client::connect(&server).await.expect("connect");
    let called = client.call("count_notes", json!({})).await.expect("call");
    assert_eq!(called.text(), "Found 2 notes in inbox: milk, eggs");
    assert_eq!(called.structured().expect("structured")["count"], 2);
    let listed = client.list_tools().await.expect("tools/list");
    let meta = listed[0].meta.as_ref().expect("_meta");
    assert_eq!(
        meta.0["io.toolmetadata/outputText"],
        "Found {count} notes in {folder}: {titles}"
    );
}
