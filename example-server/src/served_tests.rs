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
