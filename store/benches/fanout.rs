//! Notification fan-out across instances: one instance reports a resource's
//! change (`Server::resource_updated`), and a subscriber on each of three
//! instances (the reporting one included) hears it; the time until the
//! last of the three has, p50 and p99, for each bus (in memory: three
//! servers of one process; Redis pub/sub; PostgreSQL `NOTIFY`). Then what
//! the bus costs a call that notifies nobody: the same tool called with and
//! without one, in the same run (the ratio is the row). And what keeping a
//! 2025-11-25 stream's event costs (each message such a stream sends, with
//! a store). Needs the machine's
//! Redis and PostgreSQL (`TOOLMETADATA_TEST_REDIS`,
//! `TOOLMETADATA_TEST_POSTGRES`).
//!
//! ```text
//! cargo bench -p toolmetadata-store --all-features --bench fanout
//! ```

use std::sync::Arc;
use std::time::{Duration, Instant};
use toolmetadata::metadata::Load as _;

use toolmetadata::ToolMetadata;
use toolmetadata::server::Server;
use toolmetadata::server::store::{
    ChangeBus, EventStore, InMemoryBus, InMemoryEventStore, ServerSseMessage,
};
use toolmetadata::testing::{Client, json};
use toolmetadata_store::{Options, connect};

const URI: &str = "app://status";
/// Changes told per bus.
const N: usize = 300;
/// Calls per side of the call row.
const CALLS: usize = 2000;

fn server(bus: Option<Arc<dyn ChangeBus>>) -> Server {
    let tool =
        ToolMetadata::from_toml_str("ping", "description = \"Answers pong\"\n").expect("metadata");
    let mut builder = Server::builder()
        .resource(URI, "status", "text/plain", "all good")
        .tool(tool, |_, _| async {
            Ok::<_, toolmetadata::ToolError>("pong")
        });
    if let Some(bus) = bus {
        builder = builder.change_bus(bus);
    }
    builder.build().expect("server")
}

/// How many updates `client` heard.
fn heard(client: &Client) -> usize {
    client
        .notifications()
        .iter()
        .filter(|n| n.method == "notifications/resources/updated")
        .count()
}

/// Waits until every client heard more than `before`; false past 5 s.
async fn all_heard(clients: &[Client], before: &[usize]) -> bool {
    let deadline = Instant::now() + Duration::from_secs(5);
    while clients.iter().zip(before).any(|(c, b)| heard(c) <= *b) {
        if Instant::now() > deadline {
            return false;
        }
        tokio::task::yield_now().await;
    }
    true
}

/// p50 and p99 in milliseconds of `N` changes told from the first of three
/// instances, each instance's bus made by `bus`.
async fn fan_out(bus: impl Fn() -> Arc<dyn ChangeBus>) -> (f64, f64) {
    let servers: Vec<Server> = (0..3).map(|_| server(Some(bus()))).collect();
    let mut clients = Vec::new();
    for server in &servers {
        let client = Client::connect(server).await.expect("connected");
        client.subscribe(URI).await.expect("subscribed");
        clients.push(client);
    }
    // The listeners start with the servers: tell until all hear.
    loop {
        let before: Vec<usize> = clients.iter().map(heard).collect();
        servers[0].resource_updated(URI).await;
        if all_heard(&clients, &before).await {
            break;
        }
    }
    let mut times = Vec::with_capacity(N);
    for _ in 0..N {
        tokio::time::sleep(Duration::from_millis(2)).await;
        let before: Vec<usize> = clients.iter().map(heard).collect();
        let started = Instant::now();
        servers[0].resource_updated(URI).await;
        assert!(all_heard(&clients, &before).await, "a change was lost");
        times.push(started.elapsed());
    }
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    (ms(times[N / 2]), ms(times[N * 99 / 100]))
}

/// Microseconds per call of a tool that notifies nobody, on a server with
/// `bus` (or none).
async fn call_cost(bus: Option<Arc<dyn ChangeBus>>) -> f64 {
    let server = server(bus);
    let client = Client::connect(&server).await.expect("connected");
    client.subscribe(URI).await.expect("subscribed");
    for _ in 0..200 {
        client.call("ping", json!({})).await.expect("warm-up");
    }
    let started = Instant::now();
    for _ in 0..CALLS {
        client.call("ping", json!({})).await.expect("a call");
    }
    started.elapsed().as_secs_f64() * 1e6 / CALLS as f64
}

/// Microseconds per event kept, one after another, on one stream.
async fn keep_cost(store: Arc<dyn EventStore>) -> f64 {
    let message = serde_json::from_value(json!({"jsonrpc": "2.0",
        "method": "notifications/resources/updated", "params": {"uri": URI}}))
    .expect("a notification");
    let event = ServerSseMessage::from_message(message);
    let stream = format!("bench-{}", std::process::id());
    let started = Instant::now();
    for _ in 0..CALLS {
        store.store_event(&stream, &event).await.expect("kept");
    }
    started.elapsed().as_secs_f64() * 1e6 / CALLS as f64
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let redis = std::env::var("TOOLMETADATA_TEST_REDIS")
        .unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
    let postgres = std::env::var("TOOLMETADATA_TEST_POSTGRES")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into());
    let namespace = "fanout".to_owned();
    let options = Options::default().namespace(&namespace);
    let mut redis_stores = Vec::new();
    let mut postgres_stores = Vec::new();
    for _ in 0..3 {
        redis_stores.push(connect(&redis, options.clone()).await.expect("redis"));
        postgres_stores.push(connect(&postgres, options.clone()).await.expect("postgres"));
    }
    let memory: Arc<dyn ChangeBus> = Arc::new(InMemoryBus::default());
    let next = |stores: &Vec<Arc<toolmetadata_store::Store>>| {
        let stores = stores.clone();
        let turn = std::sync::atomic::AtomicUsize::new(0);
        move || {
            let i = turn.fetch_add(1, std::sync::atomic::Ordering::Relaxed) % stores.len();
            stores[i].clone() as Arc<dyn ChangeBus>
        }
    };
    println!("| bus | p50 ms, 1 → 3 instances | p99 ms |");
    println!("|---|---|---|");
    let (p50, p99) = fan_out(|| memory.clone()).await;
    println!("| in memory (one process) | {p50:.3} | {p99:.3} |");
    let (p50, p99) = fan_out(next(&redis_stores)).await;
    println!("| Redis pub/sub | {p50:.3} | {p99:.3} |");
    let (p50, p99) = fan_out(next(&postgres_stores)).await;
    println!("| PostgreSQL NOTIFY | {p50:.3} | {p99:.3} |");

    println!();
    println!("| a call that notifies nobody | µs each | × without a bus |");
    println!("|---|---|---|");
    // Alternated, twice each, to even out the machine's drift.
    let mut without = Vec::new();
    let mut with = Vec::new();
    for _ in 0..2 {
        without.push(call_cost(None).await);
        with.push(call_cost(Some(redis_stores[0].clone() as Arc<dyn ChangeBus>)).await);
    }
    let (without, with) = (
        without.iter().sum::<f64>() / 2.0,
        with.iter().sum::<f64>() / 2.0,
    );
    println!("| without a bus | {without:.1} | 1.00 |");
    println!("| with the Redis bus | {with:.1} | {:.2} |", with / without);

    println!();
    println!("| a stream's event kept | µs each, one after another |");
    println!("|---|---|");
    let memory = keep_cost(Arc::new(InMemoryEventStore::new(100))).await;
    println!("| in memory | {memory:.1} |");
    let redis = keep_cost(redis_stores[0].clone()).await;
    println!("| Redis | {redis:.1} |");
    let postgres = keep_cost(postgres_stores[0].clone()).await;
    println!("| PostgreSQL | {postgres:.1} |");
}
