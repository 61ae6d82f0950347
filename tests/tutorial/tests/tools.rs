use notes::{Notes, tools};
use toolmetadata::server::Server;
use toolmetadata::testing::{Client, Person, Protocol, Reply, json};

fn server() -> Server {
    Server::builder()
        .tool_set(tools::tool_set(Notes))
        .build()
        .expect("the server")
}

#[tokio::test]
async fn searching_finds_the_notes_with_the_word() {
    let client = Client::connect(&server()).await.expect("connected");
    let found = client
        .call("search_notes", json!({"query": "milk", "limit": 1}))
        .await;
    assert_eq!(found.expect("an answer").text(), "buy milk");
}

#[tokio::test]
async fn the_stats_are_structured() {
    let client = Client::connect(&server()).await.expect("connected");
    let stats = client
        .call("note_stats", json!({}))
        .await
        .expect("an answer");
    let expected = json!({"count": 3, "longest": "milk the cow"});
    assert_eq!(stats.structured(), Some(&expected));
    assert_eq!(stats.text(), "3 notes; the longest: milk the cow");
}

#[tokio::test]
async fn archiving_asks_first_and_runs_only_on_yes() {
    let server = server();
    let yes = Client::builder()
        .person(Person::replying(Reply::yes()))
        .connect(&server)
        .await
        .expect("connected");
    let archived = yes.call("archive_note", json!({"note": "buy milk"})).await;
    assert_eq!(archived.expect("an answer").text(), "archived \"buy milk\"");
    assert_eq!(yes.asked()[0].message, "Archive the note \"buy milk\"?");

    let no = Client::builder()
        .person(Person::replying(Reply::Decline))
        .connect(&server)
        .await
        .expect("connected");
    let declined = no.call("archive_note", json!({"note": "buy milk"})).await;
    assert!(
        declined.expect("an answer").is_error(),
        "the handler did not run"
    );
}

#[tokio::test]
async fn counting_words_runs_as_a_task() {
    let client = Client::builder()
        .protocol(Protocol::V2026_07_28)
        .tasks()
        .connect(&server())
        .await
        .expect("connected");
    let task = client
        .start("count_words", json!({}))
        .await
        .expect("a task");
    assert_eq!(task.result().await.expect("its result").text(), "7 words");
}
