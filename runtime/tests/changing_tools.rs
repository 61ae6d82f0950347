//! Tools enabled and disabled while the server runs
//! (`ServerBuilder::changing_tools`, `Server::enable_tool`,
//! `Server::disable_tool`): a disabled tool is neither listed nor called,
//! clients on both protocol generations hear `notifications/tools/list_changed`
//! once per change, and instances sharing a store of tool states and a
//! change bus list the same tools, their clients told.

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use toolmetadata::server::store::{ChangeBus, InMemoryBus, InMemoryToolStates, ToolStateStore};
use toolmetadata::server::{Arguments, Server, ServerBuilder, ToolChangeError};
use toolmetadata::testing::{Client, Protocol};
use toolmetadata::{Context, ToolError, ToolMetadata};

const LIST_CHANGED: &str = "notifications/tools/list_changed";

async fn answer(_: Arguments, _: Context) -> Result<String, ToolError> {
    Ok("done".to_owned())
}

fn tool(name: &str) -> ToolMetadata {
    ToolMetadata {
        name: name.into(),
        description: format!("The {name} tool"),
        ..ToolMetadata::default()
    }
}

/// A server of `search` and `export`, `export` disabled to begin with.
fn builder() -> ServerBuilder {
    Server::builder()
        .tool(tool("search"), answer)
        .tool(tool("export"), answer)
        .changing_tools(["export"])
}

async fn listed(client: &Client) -> Vec<String> {
    let mut names: Vec<String> = client
        .list_tools()
        .await
        .expect("tools/list")
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();
    names.sort();
    names
}

/// How many list changes `client` heard.
/// The names of the tools `server` lists, read on the server itself.
fn served_names(server: &Server) -> Vec<String> {
    server
        .listed_tools(false)
        .into_iter()
        .map(|t| t.name.to_string())
        .collect()
}

fn heard(client: &Client) -> usize {
    client
        .notifications()
        .iter()
        .filter(|n| n.method == LIST_CHANGED)
        .count()
}

/// Waits until `client` heard `count` list changes (or a few seconds pass),
/// then a little longer for any that should not come.
async fn settle(client: &Client, count: usize) -> usize {
    for _ in 0..300 {
        if heard(client) >= count {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    heard(client)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_enabled_and_disabled_is_listed_called_and_told_on_both_generations() {
    for protocol in [Protocol::V2025_11_25, Protocol::V2026_07_28] {
        let server = builder().build().expect("server");
        let client = Client::builder()
            .protocol(protocol)
            .connect(&server)
            .await
            .expect("connect");
        client.watch_tool_list().await.expect("watch");
        assert_eq!(listed(&client).await, ["search"], "{protocol:?}");
        let refused = client.call("export", json!({})).await;
        assert!(refused.is_err(), "{protocol:?}: a disabled tool was called");

        server.enable_tool("export").await.expect("enable");
        assert_eq!(settle(&client, 1).await, 1, "{protocol:?}");
        assert_eq!(listed(&client).await, ["export", "search"], "{protocol:?}");
        let called = client.call("export", json!({})).await.expect("call");
        assert_eq!(called.text(), "done");

        // Enabling it again changes nothing and tells nobody (the count
        // below would be 3).
        server.enable_tool("export").await.expect("enable again");
        server.disable_tool("search").await.expect("disable");
        assert_eq!(settle(&client, 2).await, 2, "{protocol:?}");
        assert_eq!(listed(&client).await, ["export"], "{protocol:?}");
        assert!(client.call("search", json!({})).await.is_err());
    }
}

#[tokio::test]
async fn what_cannot_change_says_why() {
    let server = builder().build().expect("server");
    let unknown = server.enable_tool("nothing").await.expect_err("unknown");
    assert!(matches!(unknown, ToolChangeError::UnknownTool(ref n) if n == "nothing"));
    assert!(unknown.to_string().contains("`nothing`"), "{unknown}");

    let fixed = Server::builder()
        .tool(tool("search"), answer)
        .build()
        .expect("server");
    let refused = fixed.disable_tool("search").await.expect_err("fixed");
    assert!(matches!(refused, ToolChangeError::NotChanging));
    assert!(refused.to_string().contains("changing_tools"), "{refused}");
    assert_eq!(fixed.listed_tools(false).len(), 1);

    let misnamed = Server::builder()
        .tool(tool("search"), answer)
        .changing_tools(["serch"])
        .build()
        .expect_err("no such tool");
    assert!(misnamed.to_string().contains("`serch`"), "{misnamed}");
}

/// The server declares `tools.listChanged` when its tools change, and only
/// then.
#[tokio::test]
async fn list_changed_is_declared_when_tools_change() {
    use rmcp::ServerHandler;
    let changing = builder().build().expect("server");
    let tools = changing.get_info().capabilities.tools.expect("tools");
    assert_eq!(tools.list_changed, Some(true));
    let fixed = Server::builder()
        .tool(tool("search"), answer)
        .build()
        .expect("server");
    let tools = fixed.get_info().capabilities.tools.expect("tools");
    assert_eq!(tools.list_changed, None);
}

/// A store of tool states that fails every write: nothing changes.
struct Refusing;

impl ToolStateStore for Refusing {
    fn tool_states(
        &self,
    ) -> toolmetadata::server::BoxFuture<
        '_,
        Result<std::collections::BTreeMap<String, bool>, toolmetadata::server::store::StoreError>,
    > {
        Box::pin(async { Ok(Default::default()) })
    }

    fn set_tool_state<'a>(
        &'a self,
        _: &'a str,
        _: bool,
    ) -> toolmetadata::server::BoxFuture<'a, Result<(), toolmetadata::server::store::StoreError>>
    {
        Box::pin(async {
            Err(toolmetadata::server::store::StoreError::Unavailable(
                "test store: refused".into(),
            ))
        })
    }
}

#[tokio::test]
async fn a_store_that_refuses_changes_nothing() {
    let server = builder()
        .tool_state_store(Refusing)
        .build()
        .expect("server");
    let refused = server.enable_tool("export").await.expect_err("refused");
    assert!(matches!(refused, ToolChangeError::Store(_)), "{refused}");
    assert_eq!(served_names(&server), ["search"]);
}

/// Three instances sharing tool states and a bus: a tool enabled on one is
/// listed by the others, whose clients hear of it once; an instance started
/// later lists it too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_enabled_on_one_instance_is_listed_and_told_on_the_others() {
    for protocol in [Protocol::V2025_11_25, Protocol::V2026_07_28] {
        let bus = Arc::new(InMemoryBus::default());
        let states = Arc::new(InMemoryToolStates::default());
        let instance = || {
            builder()
                .change_bus(bus.clone() as Arc<dyn ChangeBus>)
                .tool_state_store(states.clone())
                .build()
                .expect("server")
        };
        let (a, c) = (instance(), instance());
        let on_a = Client::builder()
            .protocol(protocol)
            .connect(&a)
            .await
            .expect("a");
        on_a.watch_tool_list().await.expect("watch");
        assert_eq!(on_a.list_tools().await.expect("list").len(), 1);

        c.enable_tool("export").await.expect("enable on c");
        assert_eq!(settle(&on_a, 1).await, 1, "{protocol:?}");
        assert_eq!(listed(&on_a).await, ["export", "search"], "{protocol:?}");

        let b = instance();
        for _ in 0..300 {
            if b.listed_tools(false).len() == 2 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(
            b.listed_tools(false).len(),
            2,
            "{protocol:?}: b read the store"
        );
    }
}

/// The tools' list a session hears of takes none of its 32 resource
/// subscriptions.
#[cfg(feature = "resources")]
#[tokio::test]
async fn the_tools_list_takes_no_resource_subscription() {
    let mut builder = builder();
    for n in 0..32 {
        builder = builder.resource(format!("app://r{n}"), format!("r{n}"), "text/plain", "x");
    }
    let server = builder.build().expect("server");
    let client = Client::builder()
        .protocol(Protocol::V2025_11_25)
        .connect(&server)
        .await
        .expect("connect");
    client.watch_tool_list().await.expect("watch");
    for n in 0..32 {
        client
            .subscribe(&format!("app://r{n}"))
            .await
            .unwrap_or_else(|e| panic!("subscription {n}: {e}"));
    }
    assert!(
        client.subscribe("app://r0").await.is_ok(),
        "again is no new one"
    );
}

/// Names nobody declared, as a hostile operator script or a confused one
/// would send them: each is an unknown tool, the error stays short, and
/// nothing changes.
#[tokio::test]
async fn names_of_no_tool_change_nothing() {
    let server = builder().build().expect("server");
    let huge = "x".repeat(1 << 20);
    for name in [
        "",
        " export",
        "EXPORT",
        "export\0",
        "tool_search",
        "../export",
        "ëxport",
        huge.as_str(),
    ] {
        let refused = server.enable_tool(name).await.expect_err("unknown");
        assert!(
            matches!(refused, ToolChangeError::UnknownTool(_)),
            "{name:?}"
        );
        assert!(
            refused.to_string().len() < 400,
            "an error the size of its name"
        );
    }
    assert_eq!(served_names(&server), ["search"]);
}

/// Two instances switching one tool at once, many times: when the writes
/// stop, both list what the store holds last.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn racing_switches_on_two_instances_converge_on_the_store() {
    let bus = Arc::new(InMemoryBus::default());
    let states = Arc::new(InMemoryToolStates::default());
    let instance = || {
        builder()
            .change_bus(bus.clone() as Arc<dyn ChangeBus>)
            .tool_state_store(states.clone())
            .build()
            .expect("server")
    };
    let (a, b) = (instance(), instance());
    let mut racing = tokio::task::JoinSet::new();
    for i in 0..64 {
        let server = if i % 2 == 0 { a.clone() } else { b.clone() };
        racing.spawn(async move {
            if i % 3 == 0 {
                server.enable_tool("export").await
            } else {
                server.disable_tool("export").await
            }
        });
    }
    while let Some(done) = racing.join_next().await {
        done.expect("joined").expect("switched");
    }
    let last = states.tool_states().await.expect("read")["export"];
    let lists = |server: &Server| server.listed_tools(false).len() == if last { 2 } else { 1 };
    for _ in 0..300 {
        if lists(&a) && lists(&b) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(
        lists(&a) && lists(&b),
        "the instances follow the store's last state ({last})"
    );
}
