//! Subscriptions to resources through rmcp's client: a session subscribes
//! (`resources/subscribe`) and hears of a change through
//! `Server::resource_updated`, until it unsubscribes; a URI the server does
//! not serve cannot be subscribed to; a `subscriptions/listen` stream
//! (2026-07-28) is accepted for the resources the server serves and hears
//! of their changes while it lasts; through `Mounted`, each subscription
//! goes to whoever serves its resource.

mod common;

use std::time::Duration;

use rmcp::ClientHandler;
use rmcp::model::{
    ProtocolVersion, ResourceUpdatedNotificationParam, ServerNotification, SubscriptionFilter,
};
use rmcp::model::{ResourceContents, ResourceTemplate};
use rmcp::service::{ClientLifecycleMode, NotificationContext, RoleClient};
use tokio::sync::mpsc;
use toolmetadata::server::Server;

fn server() -> Server {
    Server::builder()
        .resource("app://status", "status", "text/plain", "all good")
        .resource_template(
            ResourceTemplate::new("app://item/{id}", "item"),
            |uri, _, _| async move { Ok(vec![ResourceContents::text("an item", uri)]) },
        )
        .build()
        .expect("server")
}

/// A client that passes on what it hears of resources.
#[derive(Clone)]
struct Heard(mpsc::UnboundedSender<String>);

impl ClientHandler for Heard {
    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _: NotificationContext<RoleClient>,
    ) {
        let _ = self.0.send(params.uri);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listen_stream_hears_of_the_resources_it_was_granted() {
    let server = server();
    let (tx, _heard) = mpsc::unbounded_channel();
    let client = common::connect_with(
        server.clone(),
        Heard(tx),
        ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
    )
    .await;
    let mut filter = SubscriptionFilter::new();
    filter.resource_subscriptions = Some(vec!["app://status".into(), "app://nothing".into()]);
    let mut stream = client.listen(filter).await.expect("subscriptions/listen");
    assert_eq!(
        stream.acknowledged().resource_subscriptions,
        Some(vec!["app://status".to_owned()]),
        "only what the server serves is granted"
    );
    // rmcp sends the acknowledgement before the server's `listen` runs, so
    // the stream is watched a moment after it: told once it is.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while server.resource_updated("app://status").await != 1 {
        assert!(tokio::time::Instant::now() < deadline, "never watched");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let next = tokio::time::timeout(Duration::from_secs(5), stream.next())
        .await
        .expect("the notification came")
        .expect("the stream");
    match next {
        Some(ServerNotification::ResourceUpdatedNotification(n)) => {
            assert_eq!(n.params.uri, "app://status");
        }
        other => panic!("expected a resource update, got {other:?}"),
    }
    // A listen for nothing the server serves is acknowledged with nothing.
    let mut unserved = SubscriptionFilter::new();
    unserved.resource_subscriptions = Some(vec!["app://nothing".into()]);
    let empty = client.listen(unserved).await.expect("subscriptions/listen");
    assert_eq!(empty.acknowledged().resource_subscriptions, None);
    drop(empty);
    drop(stream);
    // The stream's end removes its subscriptions.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while server.resource_updated("app://status").await != 0 {
        assert!(tokio::time::Instant::now() < deadline, "still subscribed");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// `resources/subscribe` is 2025-11-25's, served to its sessions: a server
/// without `sessions` has none (a 2026-07-28 client listens, above).
#[cfg(feature = "sessions")]
mod sessions {
    use super::*;
    use rmcp::model::{ErrorCode, SubscribeRequestParams, UnsubscribeRequestParams};
    use rmcp::service::ServiceError;

    /// The next URI the client heard of, within five seconds.
    async fn next_heard(heard: &mut mpsc::UnboundedReceiver<String>) -> String {
        tokio::time::timeout(Duration::from_secs(5), heard.recv())
            .await
            .expect("the notification came")
            .expect("open")
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    #[expect(
        deprecated,
        reason = "resources/subscribe is 2025-11-25's, served to its sessions"
    )]
    async fn a_session_subscribes_hears_and_unsubscribes() {
        let server = server();
        let (tx, mut heard) = mpsc::unbounded_channel();
        let client = common::connect(server.clone(), Heard(tx)).await;
        let info = client.peer_info().expect("initialized");
        let resources = info.capabilities.resources.as_ref().expect("resources");
        assert_eq!(resources.subscribe, Some(true));

        // Nobody listens yet.
        assert_eq!(server.resource_updated("app://status").await, 0);
        client
            .subscribe(SubscribeRequestParams::new("app://status"))
            .await
            .expect("resources/subscribe");
        assert_eq!(server.resource_updated("app://status").await, 1);
        let uri = next_heard(&mut heard).await;
        assert_eq!(uri, "app://status");
        // Another URI's change is not this subscriber's.
        assert_eq!(server.resource_updated("app://other").await, 0);

        let unknown = client
            .subscribe(SubscribeRequestParams::new("app://nothing"))
            .await;
        assert!(
            matches!(&unknown, Err(ServiceError::McpError(e))
                if e.code == ErrorCode::RESOURCE_NOT_FOUND && e.message.contains("app://nothing")),
            "{unknown:?}"
        );

        client
            .unsubscribe(UnsubscribeRequestParams::new("app://status"))
            .await
            .expect("resources/unsubscribe");
        assert_eq!(server.resource_updated("app://status").await, 0);
        // Unsubscribing again is no error.
        client
            .unsubscribe(UnsubscribeRequestParams::new("app://status"))
            .await
            .expect("resources/unsubscribe again");
    }

    /// A client that subscribes to everything a template matches is stopped at
    /// 32 per session, and the others' subscriptions go on.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    #[expect(
        deprecated,
        reason = "resources/subscribe is 2025-11-25's, served to its sessions"
    )]
    async fn one_session_cannot_subscribe_without_bound() {
        let server = server();
        let (tx, _heard) = mpsc::unbounded_channel();
        let greedy = common::connect(server.for_session(), Heard(tx.clone())).await;
        for n in 0..32 {
            greedy
                .subscribe(SubscribeRequestParams::new(format!("app://item/{n}")))
                .await
                .expect("within the bound");
        }
        let refused = greedy
            .subscribe(SubscribeRequestParams::new("app://item/33"))
            .await;
        assert!(
            matches!(&refused, Err(ServiceError::McpError(e)) if e.message.contains("too many resource subscriptions")),
            "{refused:?}"
        );
        // The same URI again is no new subscription.
        greedy
            .subscribe(SubscribeRequestParams::new("app://item/0"))
            .await
            .expect("already subscribed");
        let other = common::connect(server.for_session(), Heard(tx)).await;
        other
            .subscribe(SubscribeRequestParams::new("app://item/0"))
            .await
            .expect("another session has its own bound");
        assert_eq!(server.resource_updated("app://item/0").await, 2);
    }

    /// A handler of one's own with a resource of its own, whose subscriptions it
    /// keeps itself.
    #[derive(Clone, Default)]
    struct Mine(std::sync::Arc<std::sync::Mutex<Vec<String>>>);

    impl rmcp::ServerHandler for Mine {
        fn get_info(&self) -> rmcp::model::ServerConfig {
            let mut resources = rmcp::model::ResourcesCapability::default();
            resources.subscribe = Some(true);
            let mut capabilities = rmcp::model::ServerCapabilities::default();
            capabilities.resources = Some(resources);
            rmcp::model::ServerConfig::new(capabilities)
        }

        async fn subscribe(
            &self,
            request: SubscribeRequestParams,
            _: rmcp::service::RequestContext<rmcp::RoleServer>,
        ) -> Result<(), rmcp::ErrorData> {
            self.0.lock().expect("not poisoned").push(request.uri);
            Ok(())
        }
    }

    /// Through `Mounted`, a subscription to the tools' resource is the tools'
    /// server's, one to the handler's own resource the handler's.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    #[expect(
        deprecated,
        reason = "resources/subscribe is 2025-11-25's, served to its sessions"
    )]
    async fn a_mounted_server_routes_each_subscription_to_whoever_serves_it() {
        let server = server();
        let mine = Mine::default();
        let (tx, mut heard) = mpsc::unbounded_channel();
        let client = common::connect(server.clone().mount(mine.clone()), Heard(tx)).await;
        let resources = client
            .peer_info()
            .expect("initialized")
            .capabilities
            .resources
            .clone();
        assert_eq!(resources.and_then(|r| r.subscribe), Some(true));

        client
            .subscribe(SubscribeRequestParams::new("app://status"))
            .await
            .expect("the tools' resource");
        assert_eq!(server.resource_updated("app://status").await, 1);
        let uri = next_heard(&mut heard).await;
        assert_eq!(uri, "app://status");
        client
            .subscribe(SubscribeRequestParams::new("mine://notes"))
            .await
            .expect("the handler's resource");
        assert_eq!(*mine.0.lock().expect("not poisoned"), ["mine://notes"]);
        // Not the tools' subscription.
        assert_eq!(server.resource_updated("mine://notes").await, 0);
    }
}
