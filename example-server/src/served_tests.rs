//! The server `main` builds, tested in this process through
//! `toolmetadata::testing`, the way a client uses it: a move the person
//! approves happens and one they decline does not, on both protocol
//! generations; `run_command` runs as a task, followed to its result.

use std::path::Path;

use clap::Parser;
use toolmetadata::testing::{Client, Person, Protocol, Reply, json};

use crate::Cli;

async fn server(args: &[&str]) -> toolmetadata::server::Server {
    let cli = Cli::try_parse_from(std::iter::once("example-server").chain(args.iter().copied()))
        .expect("the arguments parse");
    crate::server(&cli).await.expect("the server builds")
}

fn root() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().expect("a directory");
    std::fs::write(dir.path().join("a.txt"), "a").expect("a file");
    let path = dir.path().display().to_string();
    (dir, path)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_happens_when_the_person_says_yes_and_not_when_they_say_no() {
    for protocol in [Protocol::V2025_11_25, Protocol::V2026_07_28] {
        let (dir, root) = root();
        let server = server(&["--root", &root]).await;
        let no = Client::builder()
            .protocol(protocol)
            .person(Person::replying(Reply::Decline))
            .connect(&server)
            .await
            .expect("connected");
        let declined = no
            .call(
                "move_path",
                json!({"source": "a.txt", "destination": "b.txt"}),
            )
            .await
            .expect("an answer");
        assert!(declined.is_error(), "{protocol:?}: {declined:?}");
        assert!(dir.path().join("a.txt").exists(), "{protocol:?}");
        assert!(
            no.asked()[0].message.starts_with("Move "),
            "{protocol:?}: {:?}",
            no.asked()
        );

        let yes = Client::builder()
            .protocol(protocol)
            .person(Person::replying(Reply::yes()))
            .connect(&server)
            .await
            .expect("connected");
        let moved = yes
            .call(
                "move_path",
                json!({"source": "a.txt", "destination": "b.txt"}),
            )
            .await
            .expect("an answer");
        assert!(!moved.is_error(), "{protocol:?}: {moved:?}");
        assert!(!dir.path().join("a.txt").exists(), "{protocol:?}");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("b.txt")).expect("moved"),
            "a"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_runs_as_a_task_on_both_generations() {
    let Some(echo) = ["/bin/echo", "/usr/bin/echo"]
        .into_iter()
        .find(|p| Path::new(p).exists())
    else {
        panic!("no echo on this machine");
    };
    for protocol in [Protocol::V2025_11_25, Protocol::V2026_07_28] {
        let (_dir, root) = root();
        let server = server(&["--root", &root, "--allow-command", echo]).await;
        let client = Client::builder()
            .protocol(protocol)
            .tasks()
            .person(Person::replying(Reply::yes()))
            .connect(&server)
            .await
            .expect("connected");
        let task = client
            .start("run_command", json!({"program": echo, "args": ["hello"]}))
            .await
            .expect("a task");
        let ran = task.result().await.expect("its result");
        assert!(ran.text().contains("hello"), "{protocol:?}: {}", ran.text());
    }
}

/// A file the tools change is a resource whose subscribers hear of it:
/// written (the person agreeing to replace it), then moved away, on both
/// protocol generations.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_subscribers_of_a_file_hear_when_a_tool_changes_it() {
    for protocol in [Protocol::V2025_11_25, Protocol::V2026_07_28] {
        let (dir, root) = root();
        let canonical = dir.path().canonicalize().expect("canonical");
        let uri = format!("file://{}", canonical.join("a.txt").display());
        let server = server(&["--root", &root]).await;
        let client = Client::builder()
            .protocol(protocol)
            .person(Person::replying(Reply::yes()))
            .connect(&server)
            .await
            .expect("connected");
        client.subscribe(&uri).await.expect("subscribed");
        let written = client
            .call("write_file", json!({"path": "a.txt", "content": "b"}))
            .await
            .expect("an answer");
        assert!(!written.is_error(), "{protocol:?}: {written:?}");
        let heard = client
            .notified("notifications/resources/updated")
            .await
            .expect("told of the write");
        assert_eq!(heard.params["uri"], uri.as_str(), "{protocol:?}");
        let before = client.notifications().len();
        let moved = client
            .call(
                "move_path",
                json!({"source": "a.txt", "destination": "c.txt"}),
            )
            .await
            .expect("an answer");
        assert!(!moved.is_error(), "{protocol:?}: {moved:?}");
        // The move is told too: wait for a second update of the file.
        let mut told = false;
        for _ in 0..200 {
            told = client.notifications()[before..].iter().any(|n| {
                n.method == "notifications/resources/updated" && n.params["uri"] == uri.as_str()
            });
            if told {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        assert!(told, "{protocol:?}: {:?}", client.notifications());
        client.close().await.expect("closed");
    }
}

/// With `--store`, a file written through one instance is told to its
/// subscribers on another (two instances on the machine's Redis, in this
/// process).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_a_store_a_change_through_one_instance_reaches_another() {
    let (dir, root) = root();
    let canonical = dir.path().canonicalize().expect("canonical");
    let uri = format!("file://{}", canonical.join("a.txt").display());
    let store = std::env::var("TOOLMETADATA_TEST_REDIS")
        .unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
    let args = ["--root", root.as_str(), "--store", store.as_str()];
    let (a, b) = (server(&args).await, server(&args).await);
    let on_b = Client::connect(&b).await.expect("connected to b");
    on_b.subscribe(&uri).await.expect("subscribed on b");
    let writer = Client::builder()
        .person(Person::replying(Reply::yes()))
        .connect(&a)
        .await
        .expect("connected to a");
    // The instances listen from when they are built: a write made before
    // b's listener is up is not carried, so write until it is heard.
    let mut heard = false;
    for i in 0..50 {
        let written = writer
            .call(
                "write_file",
                json!({"path": "a.txt", "content": format!("v{i}")}),
            )
            .await
            .expect("an answer");
        assert!(!written.is_error(), "{written:?}");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        heard = on_b.notifications().iter().any(|n| {
            n.method == "notifications/resources/updated" && n.params["uri"] == uri.as_str()
        });
        if heard {
            break;
        }
    }
    assert!(heard, "{:?}", on_b.notifications());
}
