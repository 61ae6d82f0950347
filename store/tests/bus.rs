//! The change bus across instances on each store: two servers, each with
//! its own connection (two instances), a client subscribed on one hears a
//! change reported on the other, once.
#![cfg(all(feature = "redis", feature = "postgres"))]

mod common;

use std::sync::Arc;

use toolmetadata::server::Server;
use toolmetadata::testing::{Client, Protocol};
use toolmetadata_store::{Options, connect};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_on_one_instance_reaches_a_subscriber_on_another() {
    for url in common::urls() {
        let namespace = format!("bus{}", std::process::id());
        let instance = || async {
            let store = connect(&url, Options::default().namespace(&namespace))
                .await
                .unwrap_or_else(|e| panic!("{e}: this test needs Redis and PostgreSQL"));
            Server::builder()
                .resource("app://notes", "notes", "text/plain", "buy milk")
                .store(Arc::clone(&store))
                .build()
                .expect("server")
        };
        let (a, b) = (instance().await, instance().await);
        for protocol in [Protocol::V2025_11_25, Protocol::V2026_07_28] {
            let on_b = Client::builder()
                .protocol(protocol)
                .connect(&b)
                .await
                .expect("connected to b");
            on_b.subscribe("app://notes").await.expect("subscribed");
            // The listeners start with the servers: give them a moment.
            let mut heard = None;
            for _ in 0..50 {
                assert_eq!(a.resource_updated("app://notes").await, 0, "{url}");
                if let Ok(n) = tokio::time::timeout(
                    std::time::Duration::from_millis(200),
                    on_b.notified("notifications/resources/updated"),
                )
                .await
                {
                    heard = Some(n);
                    break;
                }
            }
            let heard = heard
                .unwrap_or_else(|| panic!("{url} {protocol:?}: nothing heard on b"))
                .expect("a notification");
            assert_eq!(heard.params["uri"], "app://notes", "{url}");
            on_b.close().await.expect("closed");
        }
        common::clean(&url, &namespace).await;
    }
}

/// A store of the test's own, to stop and start again.
enum Own {
    Redis(toolmetadata_tests::stores::OwnRedis),
    Postgres(Arc<toolmetadata_tests::stores::OwnPostgres>),
}

impl Own {
    async fn start_both() -> [Own; 2] {
        let postgres = tokio::task::spawn_blocking(toolmetadata_tests::stores::OwnPostgres::start)
            .await
            .expect("own postgres");
        [
            Own::Redis(toolmetadata_tests::stores::OwnRedis::start()),
            Own::Postgres(Arc::new(postgres)),
        ]
    }

    fn url(&self) -> String {
        match self {
            Own::Redis(r) => r.url(),
            Own::Postgres(p) => p.url(),
        }
    }

    async fn stop(&mut self) {
        match self {
            Own::Redis(r) => r.stop(),
            Own::Postgres(p) => {
                let p = p.clone();
                tokio::task::spawn_blocking(move || p.stop())
                    .await
                    .expect("stop");
            }
        }
    }

    async fn restart(&mut self) {
        match self {
            Own::Redis(r) => r.restart(),
            Own::Postgres(p) => {
                let p = p.clone();
                tokio::task::spawn_blocking(move || p.restart())
                    .await
                    .expect("restart");
            }
        }
    }
}

/// What an instance logs (WARN) when it loses the bus.
const OUTAGE: &str = "the change bus is out of reach";

/// The bus goes away (the test's own Redis killed, its own PostgreSQL
/// stopped at once) and comes back: meanwhile each instance goes on telling
/// its own subscribers, within the store's timeout, says so once (a WARN),
/// and once it is back a change crosses instances again, with nothing
/// restarted by hand.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_bus_each_instance_tells_its_own_and_the_bus_comes_back() {
    common::warnings::start();
    for mut own in Own::start_both().await {
        let url = own.url();
        // No other test of this process takes its bus away.
        let said_before = common::warnings::containing(OUTAGE).len();
        let options = Options::default()
            .namespace("outage")
            .timeout(std::time::Duration::from_millis(500));
        let instance = || async {
            let store = connect(&url, options.clone()).await.expect("own store");
            Server::builder()
                .resource("app://notes", "notes", "text/plain", "buy milk")
                .store(store)
                .build()
                .expect("server")
        };
        let (a, b) = (instance().await, instance().await);
        let on_a = Client::connect(&a).await.expect("connected to a");
        let on_b = Client::connect(&b).await.expect("connected to b");
        on_a.subscribe("app://notes")
            .await
            .expect("subscribed on a");
        on_b.subscribe("app://notes")
            .await
            .expect("subscribed on b");
        own.stop().await;
        let started = std::time::Instant::now();
        assert_eq!(
            a.resource_updated("app://notes").await,
            1,
            "{url}: a's own subscriber"
        );
        assert!(
            started.elapsed() < std::time::Duration::from_secs(3),
            "{url}: a change with the bus down waited {:?}",
            started.elapsed()
        );
        on_a.notified("notifications/resources/updated")
            .await
            .expect("a's subscriber told");
        own.restart().await;
        // The listeners come back by themselves (their pause grows to 30 s
        // at most; a few seconds here).
        let mut crossed = false;
        for _ in 0..150 {
            a.resource_updated("app://notes").await;
            if on_b
                .notifications()
                .iter()
                .any(|n| n.method == "notifications/resources/updated")
            {
                crossed = true;
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        }
        assert!(crossed, "{url}: nothing crossed after the bus came back");
        let said = common::warnings::containing(OUTAGE).split_off(said_before);
        // Each instance's listener lost the bus and found it again (b's
        // heard the crossing change): each said so once.
        assert_eq!(
            said.len(),
            2,
            "{url}: the outage is said once by each of the two instances: {said:#?}"
        );
    }
}

/// A server that goes lets go of its listening connection at once, not at
/// the next message (a test building many servers would otherwise hold
/// a connection each).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_dropped_leaves_no_listener() {
    let redis = toolmetadata_tests::stores::OwnRedis::start();
    let listeners = || {
        let out = std::process::Command::new("redis-cli")
            .args([
                "-p",
                &redis.port.to_string(),
                "PUBSUB",
                "NUMSUB",
                "gone:changes",
            ])
            .output()
            .expect("redis-cli");
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .nth(1)
            .and_then(|n| n.trim().parse::<u32>().ok())
            .unwrap_or(u32::MAX)
    };
    let store = connect(&redis.url(), Options::default().namespace("gone"))
        .await
        .expect("own redis");
    let server = Server::builder()
        .resource("app://notes", "notes", "text/plain", "buy milk")
        .store(store)
        .build()
        .expect("server");
    let mut counted = 0;
    for _ in 0..100 {
        counted = listeners();
        if counted == 1 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(counted, 1, "the server listens");
    drop(server);
    for _ in 0..100 {
        counted = listeners();
        if counted == 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(counted, 0, "the listener is gone with the server");
}
