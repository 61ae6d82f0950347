//! The change bus between instances, in one process: two servers sharing
//! an `InMemoryBus` (as instances share Redis or PostgreSQL): a change
//! reported on one reaches the other's subscribers, on both protocol
//! generations, and each subscriber hears it once.

use std::sync::Arc;

use toolmetadata::server::Server;
use toolmetadata::server::store::{ChangeBus, InMemoryBus};
use toolmetadata::testing::{Client, Protocol};

fn instance(bus: &Arc<InMemoryBus>) -> Server {
    Server::builder()
        .resource("app://notes", "notes", "text/plain", "buy milk")
        .change_bus(bus.clone() as Arc<dyn ChangeBus>)
        .build()
        .expect("server")
}

/// How many `notifications/resources/updated` of `uri` `client` heard.
fn heard(client: &Client, uri: &str) -> usize {
    client
        .notifications()
        .iter()
        .filter(|n| n.method == "notifications/resources/updated" && n.params["uri"] == uri)
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_on_one_instance_reaches_the_subscribers_of_another_once() {
    for protocol in [Protocol::V2025_11_25, Protocol::V2026_07_28] {
        let bus = Arc::new(InMemoryBus::default());
        let (a, b) = (instance(&bus), instance(&bus));
        let on_a = Client::builder()
            .protocol(protocol)
            .connect(&a)
            .await
            .expect("a");
        let on_b = Client::builder()
            .protocol(protocol)
            .connect(&b)
            .await
            .expect("b");
        on_a.subscribe("app://notes").await.expect("subscribe on a");
        on_b.subscribe("app://notes").await.expect("subscribe on b");
        // A's own subscriber is told at once; B's through the bus.
        assert_eq!(a.resource_updated("app://notes").await, 1, "{protocol:?}");
        on_b.notified("notifications/resources/updated")
            .await
            .expect("b's subscriber told");
        // A second change, through B: each hears it once more, nobody twice.
        b.resource_updated("app://notes").await;
        for _ in 0..200 {
            if heard(&on_a, "app://notes") == 2 {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        // What might still be on its way has had time to arrive.
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        assert_eq!(heard(&on_a, "app://notes"), 2, "{protocol:?}");
        assert_eq!(heard(&on_b, "app://notes"), 2, "{protocol:?}");
    }
}

/// A server built outside a Tokio runtime cannot listen to a bus: it says
/// so rather than never hearing.
#[test]
fn a_bus_needs_a_runtime_at_build() {
    let bus = Arc::new(InMemoryBus::default());
    let refused = Server::builder()
        .change_bus(bus as Arc<dyn ChangeBus>)
        .build()
        .expect_err("no runtime");
    assert!(refused.to_string().contains("Tokio runtime"), "{refused}");
}
