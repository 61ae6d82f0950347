//! `Context::log` through rmcp's client: nothing reaches a client until it
//! sets a level, then the messages from that level on, each named by its
//! tool; each session has its own level.
#![expect(
    deprecated,
    reason = "logging is deprecated by SEP-2577 and still served on 2025-11-25"
)]

mod common;

use common::connect;
use std::sync::{Arc, Mutex};
use toolmetadata::metadata::Load as _;

use rmcp::model::{
    CallToolRequestParams, LoggingLevel, LoggingMessageNotificationParam, SetLevelRequestParams,
};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::{ClientHandler, RoleClient};
use toolmetadata::server::Server;
use toolmetadata::{Context, LogLevel, ToolMetadata};

/// A message as the client received it: its level, logger and data.
type Logged = (LoggingLevel, Option<String>, serde_json::Value);

#[derive(Clone, Default)]
struct Client {
    logged: Arc<Mutex<Vec<Logged>>>,
}

impl ClientHandler for Client {
    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _: NotificationContext<RoleClient>,
    ) {
        self.logged
            .lock()
            .expect("lock")
            .push((params.level, params.logger, params.data));
    }
}

fn server() -> Server {
    let tool = ToolMetadata::from_toml_str("chatty", "description = \"Logs at three levels\"\n")
        .expect("metadata");
    Server::builder()
        .tool(tool, |_, cx: Context| async move {
            cx.log(LogLevel::Debug, "details").await;
            cx.log(LogLevel::Info, "working").await;
            cx.log_data(LogLevel::Warning, serde_json::json!({"disk": "low"}))
                .await;
            Ok("done")
        })
        .build()
        .expect("server")
}

/// Calls `chatty`, then a ping, so that every notification sent during the
/// call has arrived (they travel in order on the one stream).
async fn call(session: &RunningService<RoleClient, Client>) {
    let result = session
        .call_tool(CallToolRequestParams::new("chatty"))
        .await
        .expect("call");
    assert_ne!(result.is_error, Some(true), "{result:?}");
    session
        .send_request(rmcp::model::ClientRequest::PingRequest(Default::default()))
        .await
        .expect("ping");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn messages_follow_the_level_each_session_set() {
    let server = server();
    let (alice, bob) = (Client::default(), Client::default());
    let a = connect(server.for_session(), alice.clone()).await;
    let b = connect(server.for_session(), bob.clone()).await;
    let caps = a.peer_info().expect("info").capabilities.clone();
    assert!(caps.logging.is_some(), "the server declares logging");

    call(&a).await;
    assert!(
        alice.logged.lock().expect("lock").is_empty(),
        "no level set: none"
    );

    a.set_level(SetLevelRequestParams::new(LoggingLevel::Info))
        .await
        .expect("set level");
    call(&a).await;
    call(&b).await;
    // rmcp's client hands each notification to the handler on a task of
    // its own, so they may be seen in either order.
    let mut logged = alice.logged.lock().expect("lock").clone();
    logged.sort_by_key(|(_, _, data)| data.is_object());
    assert_eq!(
        logged,
        vec![
            (
                LoggingLevel::Info,
                Some("chatty".to_owned()),
                serde_json::json!("working")
            ),
            (
                LoggingLevel::Warning,
                Some("chatty".to_owned()),
                serde_json::json!({"disk": "low"})
            ),
        ]
    );
    assert!(
        bob.logged.lock().expect("lock").is_empty(),
        "bob set no level"
    );
    a.cancel().await.expect("close");
    b.cancel().await.expect("close");
}

/// A server of the user's own with these tools mounted in it: the level the
/// client sets reaches the tools too, and `logging` is declared.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mounted_tools_log_at_the_level_set() {
    #[derive(Clone)]
    struct Mine;
    impl rmcp::ServerHandler for Mine {}

    let client = Client::default();
    let session = connect(server().mount(Mine), client.clone()).await;
    assert!(
        session
            .peer_info()
            .expect("info")
            .capabilities
            .logging
            .is_some()
    );
    session
        .set_level(SetLevelRequestParams::new(LoggingLevel::Warning))
        .await
        .expect("set level");
    call(&session).await;
    let logged = client.logged.lock().expect("lock").clone();
    assert_eq!(logged.len(), 1, "{logged:?}");
    assert_eq!(logged[0].0, LoggingLevel::Warning);
    session.cancel().await.expect("close");
}
