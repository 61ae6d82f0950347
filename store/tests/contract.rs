//! The contract kit (`toolmetadata_store::testing`) run as a user's crate
//! runs it: on Redis and on PostgreSQL (each through two connections, two
//! instances; `own_store.rs` runs it on the stores in memory), and on stores
//! broken on purpose, which it must catch.
#![cfg(all(feature = "testing", feature = "redis", feature = "postgres"))]

mod common;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use toolmetadata::server::BoxFuture;
use toolmetadata::server::store::{
    EventPosition, EventStore, EventStoreError, EventStream, InMemoryEventStore, LimitStore,
    ReplayStore, ServerSseMessage, StoreError, TaskChange, TaskRecord, TaskStore,
};
use toolmetadata_store::testing::{self, Violation};
use toolmetadata_store::{Options, connect};

const CAPACITY: usize = 4;
const EVENTS_PER_STREAM: usize = 5;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_and_postgres_keep_the_contract() {
    for url in common::urls() {
        let namespace = format!("contract{}", std::process::id());
        let options = Options::default()
            .namespace(&namespace)
            .max_tasks(CAPACITY)
            .events_per_stream(EVENTS_PER_STREAM);
        let a = connect(&url, options.clone()).await.unwrap_or_else(|e| {
            panic!("{e}: this test needs Redis on 127.0.0.1:6379 and PostgreSQL on 127.0.0.1:5432")
        });
        let b = connect(&url, options).await.expect("a second connection");
        let outcome = async {
            testing::task_store(a.clone(), b.clone(), CAPACITY).await?;
            testing::replay_store(a.clone(), b.clone()).await?;
            testing::session_store(a.clone(), b.clone()).await?;
            testing::change_bus(a.clone(), b.clone()).await?;
            testing::event_store(a.clone(), b.clone(), EVENTS_PER_STREAM).await?;
            testing::tool_state_store(a.clone(), b.clone()).await?;
            testing::limit_store(a.clone() as Arc<dyn LimitStore>, b.clone()).await
        }
        .await;
        common::clean(&url, &namespace).await;
        outcome.unwrap_or_else(|v| panic!("{url}: {v}"));
    }
}

/// A task store that lets a finished task be finished again: a cancel
/// racing a completion would be decided differently by each instance.
#[derive(Default)]
struct Refinishing(Mutex<HashMap<String, TaskRecord>>);

impl TaskStore for Refinishing {
    fn insert(&self, record: TaskRecord) -> BoxFuture<'_, Result<(), StoreError>> {
        let mut records = self.0.lock().expect("lock");
        let result = if records.len() >= CAPACITY {
            Err(StoreError::Full {
                of: "tasks",
                max: CAPACITY,
            })
        } else {
            records.insert(record.id.clone(), record);
            Ok(())
        };
        Box::pin(async move { result })
    }

    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        let found = self.0.lock().expect("lock").get(id).cloned();
        Box::pin(async move { Ok(found) })
    }

    fn update<'a>(
        &'a self,
        id: &'a str,
        change: TaskChange,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        let mut records = self.0.lock().expect("lock");
        let updated = records.get_mut(id).map(|record| {
            match change {
                // The break: a terminal state is overwritten.
                TaskChange::Finish(state) => record.state = state,
                other => record.apply(other),
            }
            record.clone()
        });
        Box::pin(async move { Ok(updated) })
    }
}

/// A replay store that forgets: every use is a first use.
struct Forgetful;

impl ReplayStore for Forgetful {
    fn first_use<'a>(&'a self, _: &'a str, _: u64) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async { Ok(true) })
    }
}

/// An event store that replays the event the client has already: it
/// arrives twice.
struct Rereplaying(InMemoryEventStore);

#[async_trait::async_trait]
impl EventStore for Rereplaying {
    async fn store_event(
        &self,
        stream: &str,
        event: &ServerSseMessage,
    ) -> Result<String, EventStoreError> {
        self.0.store_event(stream, event).await
    }

    async fn replay_events_after(&self, id: &str) -> Result<EventStream, EventStoreError> {
        let last = EventPosition::parse(id).ok_or("no such event")?;
        let before = EventPosition {
            seq: last.seq.saturating_sub(1),
            ..last
        };
        self.0.replay_events_after(&before.to_string()).await
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broken_store_is_caught_naming_what_it_breaks() {
    let events = Arc::new(Rereplaying(InMemoryEventStore::new(EVENTS_PER_STREAM)));
    let caught = testing::event_store(events.clone(), events, EVENTS_PER_STREAM).await;
    let Err(violation) = caught else {
        panic!("a store that replays an event twice passed the contract");
    };
    assert_eq!(violation.guarantee, "a stream's events are the fleet's");
    assert!(violation.detail.contains("replayed"), "{violation}");
    let tasks = Arc::new(Refinishing::default());
    let caught = testing::task_store(tasks.clone(), tasks, CAPACITY).await;
    let Err(Violation { guarantee, detail }) = caught else {
        panic!("a store that refinishes tasks passed the contract");
    };
    assert_eq!(guarantee, "terminal is final", "{detail}");
    assert!(detail.contains("Cancelled"), "{detail}");
    let caught = testing::replay_store(Arc::new(Forgetful), Arc::new(Forgetful)).await;
    let Err(violation) = caught else {
        panic!("a store that forgets passed the contract");
    };
    assert_eq!(violation.guarantee, "used once");
    assert!(
        violation
            .to_string()
            .contains("a used state was a first use again through the same handle"),
        "{violation}"
    );
}
