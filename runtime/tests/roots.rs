//! `Context::roots`: the client's roots asked once per session, asked again
//! after `notifications/roots/list_changed`, each session's its own, and
//! `Unsupported` for a client without the roots capability.

#![expect(
    deprecated,
    reason = "roots are deprecated by SEP-2577 and still served on 2025-11-25"
)]

mod common;

use common::connect;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use toolmetadata::metadata::Load as _;

use rmcp::model::{CallToolRequestParams, ClientConfig, ListRootsResult, Root, RootsCapabilities};
use rmcp::service::{RequestContext, RunningService};
use rmcp::{ClientHandler, ErrorData, RoleClient};
use toolmetadata::roots::RootsError;
use toolmetadata::server::Server;
use toolmetadata::{Context, ToolError, ToolMetadata};

#[derive(Clone, Default)]
struct Client {
    offers: bool,
    /// Never answer `roots/list`.
    silent: bool,
    roots: Arc<Mutex<Vec<String>>>,
    asked: Arc<Mutex<usize>>,
}

impl Client {
    fn offering(uri: &str) -> Self {
        Client {
            offers: true,
            roots: Arc::new(Mutex::new(vec![uri.to_owned()])),
            ..Client::default()
        }
    }

    fn asked(&self) -> usize {
        *self.asked.lock().expect("lock")
    }
}

impl ClientHandler for Client {
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
        if self.silent {
            std::future::pending::<()>().await;
        }
        let roots = self.roots.lock().expect("lock").clone();
        Ok(ListRootsResult::new(
            roots.into_iter().map(Root::new).collect(),
        ))
    }
}

/// A server with one tool, `roots`, that answers with the URIs it gets from
/// `Context::roots`, and what it kept beside them.
fn server() -> Server {
    let tool = ToolMetadata::from_toml_str("roots", "description = \"The client's roots\"\n")
        .expect("metadata");
    let twice =
        ToolMetadata::from_toml_str("roots_twice", "description = \"The roots, read twice\"\n")
            .expect("metadata");
    Server::builder()
        .tool(tool, |_, cx: Context| async move {
            match cx.roots().await {
                Ok(roots) => {
                    let uris: Vec<&str> = roots.roots().iter().map(|r| r.uri.as_str()).collect();
                    // What an application makes of the list is kept with it.
                    let made = roots.keep(uris.join(","));
                    Ok(format!(
                        "{}|{}",
                        uris.join(","),
                        roots.kept::<String>().map_or(0, |k| k.len()) == made.len()
                    ))
                }
                Err(RootsError::Unsupported) => Ok("unsupported".to_owned()),
                Err(e) => Err(ToolError::new(e.to_string())),
            }
        })
        .tool(twice, |_, cx: Context| async move {
            let first = cx
                .roots()
                .await
                .map_err(|e| ToolError::new(e.to_string()))?;
            let second = cx
                .roots()
                .await
                .map_err(|e| ToolError::new(e.to_string()))?;
            Ok(format!(
                "{} {}",
                first.roots()[0].uri,
                second.roots()[0].uri
            ))
        })
        .build()
        .expect("server")
}

async fn roots(client: &RunningService<RoleClient, Client>) -> String {
    roots_of(client, "roots").await
}

async fn roots_of(client: &RunningService<RoleClient, Client>, tool: &str) -> String {
    let result = client
        .call_tool(CallToolRequestParams::new(tool.to_owned()))
        .await
        .expect("call");
    assert_ne!(result.is_error, Some(true), "{result:?}");
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn roots_are_asked_once_per_session_and_again_after_list_changed() {
    let server = server();
    let alice = Client::offering("file:///alice");
    let session = connect(server.for_session(), alice.clone()).await;
    assert_eq!(roots(&session).await, "file:///alice|true");
    assert_eq!(roots(&session).await, "file:///alice|true");
    assert_eq!(alice.asked(), 1, "kept for the session");

    *alice.roots.lock().expect("lock") = vec!["file:///alice2".to_owned()];
    session.notify_roots_list_changed().await.expect("notify");
    let mut seen = String::new();
    for _ in 0..100 {
        seen = roots(&session).await;
        if seen != "file:///alice|true" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(seen, "file:///alice2|true");
    assert_eq!(alice.asked(), 2);

    // Another session of the same server: its own roots, asked for itself.
    let bob = Client::offering("file:///bob");
    let other = connect(server.for_session(), bob.clone()).await;
    assert_eq!(roots(&other).await, "file:///bob|true");
    assert_eq!(roots(&session).await, "file:///alice2|true");
    assert_eq!((alice.asked(), bob.asked()), (2, 1));

    // A client without the capability is never asked.
    let plain = connect(server.for_session(), Client::default()).await;
    assert_eq!(roots(&plain).await, "unsupported");
    for client in [session, other, plain] {
        client.cancel().await.expect("close");
    }
}

#[tokio::test]
async fn a_context_outside_a_server_has_no_roots() {
    assert_eq!(
        Context::new("x").roots().await.expect_err("no server"),
        RootsError::Unsupported
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_does_not_answer_delays_one_call() {
    let mut silent = Client::offering("file:///never");
    silent.silent = true;
    let session = connect(server().for_session(), silent.clone()).await;
    let started = std::time::Instant::now();
    let first = session
        .call_tool(CallToolRequestParams::new("roots"))
        .await
        .expect("call");
    let waited = started.elapsed();
    assert_eq!(first.is_error, Some(true));
    let said = format!("{:?}", first.content);
    assert!(said.contains("roots/list failed"), "{said}");
    assert!(
        waited >= toolmetadata::roots::ROOTS_TIMEOUT
            && waited < 2 * toolmetadata::roots::ROOTS_TIMEOUT,
        "{waited:?}"
    );
    // The failure is kept: the next call does not wait again.
    let started = std::time::Instant::now();
    let second = session
        .call_tool(CallToolRequestParams::new("roots"))
        .await
        .expect("call");
    assert_eq!(second.is_error, Some(true));
    assert!(started.elapsed() < Duration::from_secs(2));
    assert_eq!(silent.asked(), 1);
    session.cancel().await.expect("close");
}

/// On 2026-07-28 there is no session to keep roots in: each call asks them
/// through its `InputRequiredResult` (a `roots/list` input request), and
/// rmcp's client answers it and calls again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2026_call_asks_its_roots_through_an_input_request() {
    use rmcp::model::{CallToolResponse, ProtocolVersion};
    use rmcp::service::ClientLifecycleMode;
    let modern = || ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    let alice = Client::offering("file:///alice");
    let client = common::connect_with(server(), alice.clone(), modern()).await;
    let first = client
        .call_tool_once(CallToolRequestParams::new("roots"))
        .await
        .expect("call");
    let CallToolResponse::InputRequired(input) = first else {
        panic!("expected an input request, got {first:?}")
    };
    let requests = serde_json::to_value(&input.input_requests).expect("json");
    let methods: Vec<&str> = requests
        .as_object()
        .expect("a map")
        .values()
        .filter_map(|r| r["method"].as_str())
        .collect();
    assert_eq!(methods, ["roots/list"], "{requests}");
    assert!(input.request_state.is_some());
    assert_eq!(alice.asked(), 0, "asked in the answer, not by a request");

    // rmcp's client answers the input request and calls again.
    assert_eq!(roots(&client).await, "file:///alice|true");
    assert_eq!(alice.asked(), 1);

    // A handler that reads the roots twice asks once, in one round.
    let twice = common::connect_with(server(), alice.clone(), modern()).await;
    let first = twice
        .call_tool_once(CallToolRequestParams::new("roots_twice"))
        .await
        .expect("call");
    let CallToolResponse::InputRequired(input) = first else {
        panic!("expected an input request, got {first:?}")
    };
    assert_eq!(input.input_requests.map_or(0, |r| r.len()), 1);
    assert_eq!(
        roots_of(&twice, "roots_twice").await,
        "file:///alice file:///alice"
    );
    assert_eq!(alice.asked(), 2);

    // A client without the capability is never asked.
    let plain = common::connect_with(server(), Client::default(), modern()).await;
    assert_eq!(roots(&plain).await, "unsupported");
}
