//! What a store costs per operation, against the in-memory stores in the
//! same run: task create, `tasks/get`'s read, a task update (progress or
//! end), and a confirmation's single-use check. Needs the machine's Redis
//! and PostgreSQL (`TOOLMETADATA_TEST_REDIS`, `TOOLMETADATA_TEST_POSTGRES`).
//!
//! ```text
//! cargo bench -p toolmetadata-store --all-features
//! ```
//!
//! Each operation runs `N` times one after another (latency, one client),
//! then `N` times from 64 concurrent tasks (throughput).

use std::sync::Arc;
use std::time::{Duration, Instant};

use toolmetadata::server::store::{
    InMemoryReplayStore, InMemoryTaskStore, ReplayStore, TaskChange, TaskRecord, TaskStore,
};
use toolmetadata_store::{Options, connect};

const N: usize = 2000;
const CLIENTS: usize = 64;

trait Both: TaskStore + ReplayStore {}
impl<T: TaskStore + ReplayStore> Both for T {}

struct Memory(InMemoryTaskStore, InMemoryReplayStore);

impl TaskStore for Memory {
    fn insert(
        &self,
        record: TaskRecord,
    ) -> toolmetadata::server::BoxFuture<'_, Result<(), toolmetadata::server::store::StoreError>>
    {
        self.0.insert(record)
    }
    fn get<'a>(
        &'a self,
        id: &'a str,
    ) -> toolmetadata::server::BoxFuture<
        'a,
        Result<Option<TaskRecord>, toolmetadata::server::store::StoreError>,
    > {
        self.0.get(id)
    }
    fn update<'a>(
        &'a self,
        id: &'a str,
        change: TaskChange,
    ) -> toolmetadata::server::BoxFuture<
        'a,
        Result<Option<TaskRecord>, toolmetadata::server::store::StoreError>,
    > {
        self.0.update(id, change)
    }
}

impl ReplayStore for Memory {
    fn first_use<'a>(
        &'a self,
        fingerprint: &'a str,
        expires_at_ms: u64,
    ) -> toolmetadata::server::BoxFuture<'a, Result<bool, toolmetadata::server::store::StoreError>>
    {
        self.1.first_use(fingerprint, expires_at_ms)
    }
}

fn record(i: usize, run: &str) -> TaskRecord {
    TaskRecord::working(
        format!("{run}-{i}"),
        "tool".into(),
        Duration::from_secs(120),
    )
}

fn later() -> u64 {
    u64::try_from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis()),
    )
    .unwrap_or(0)
        + 120_000
}

/// Microseconds per operation: one after another, then 64 at once.
async fn measure(store: Arc<dyn Both>, run: &str) -> [(f64, f64); 4] {
    let mut rows = [(0.0, 0.0); 4];
    for (op, row) in rows.iter_mut().enumerate() {
        let started = Instant::now();
        for i in 0..N {
            one(store.as_ref(), op, i, &format!("{run}-s")).await;
        }
        let serial = started.elapsed().as_secs_f64() * 1e6 / N as f64;
        let started = Instant::now();
        let mut clients = Vec::new();
        for c in 0..CLIENTS {
            let store = store.clone();
            let run = format!("{run}-c");
            clients.push(tokio::spawn(async move {
                for i in (c..N).step_by(CLIENTS) {
                    one(store.as_ref(), op, i, &run).await;
                }
            }));
        }
        for client in clients {
            client.await.expect("client");
        }
        let concurrent = started.elapsed().as_secs_f64() * 1e6 / N as f64;
        *row = (serial, concurrent);
    }
    rows
}

async fn one(store: &dyn Both, op: usize, i: usize, run: &str) {
    let id = format!("{run}-{i}");
    match op {
        0 => store.insert(record(i, run)).await.map(|_| ()),
        1 => store.get(&id).await.map(|_| ()),
        2 => store
            .update(&id, TaskChange::StatusMessage(format!("step {i}")))
            .await
            .map(|_| ()),
        _ => store
            .first_use(&format!("{run}{i:060}"), later())
            .await
            .map(|_| ()),
    }
    .expect("store operation");
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let run = format!("b{}", std::process::id());
    let options = Options::default().namespace(&run).max_tasks(10 * N);
    let redis = std::env::var("TOOLMETADATA_TEST_REDIS")
        .unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
    let postgres = std::env::var("TOOLMETADATA_TEST_POSTGRES")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into());
    let memory: Arc<dyn Both> = Arc::new(Memory(
        InMemoryTaskStore::new(10 * N),
        InMemoryReplayStore::default(),
    ));
    let stores: Vec<(&str, Arc<dyn Both>)> = vec![
        ("memory", memory),
        (
            "redis",
            connect(&redis, options.clone()).await.expect("redis"),
        ),
        (
            "postgres",
            connect(&postgres, options).await.expect("postgres"),
        ),
    ];
    let names = [
        "task create",
        "task read (tasks/get)",
        "task update",
        "single-use check",
    ];
    let mut results = Vec::new();
    for (name, store) in &stores {
        results.push((name, measure(store.clone(), &format!("{run}{name}")).await));
    }
    println!("| operation | store | µs each, one client | µs each, 64 clients |");
    println!("|---|---|---|---|");
    for (op, op_name) in names.iter().enumerate() {
        for (name, rows) in &results {
            let (serial, concurrent) = rows[op];
            println!("| {op_name} | {name} | {serial:.1} | {concurrent:.1} |");
        }
    }
    // The run's tables go; Redis's keys expire by themselves.
    let (client, connection) = tokio_postgres::connect(&postgres, tokio_postgres::NoTls)
        .await
        .expect("connect");
    tokio::spawn(connection);
    client
        .batch_execute(&format!(
            "DROP TABLE IF EXISTS {run}_tasks, {run}_used_states, {run}_sessions"
        ))
        .await
        .expect("drop the run's tables");
}
