//! What the tests of a crate with a store of its own look like (the
//! README's "A store of your own"): the stores in memory stand in for it.
#![cfg(feature = "testing")]

use std::sync::Arc;

use toolmetadata::server::store::{
    InMemoryBus, InMemoryEventStore, InMemoryReplayStore, InMemoryTaskStore, InMemoryToolStates,
};
use toolmetadata_store::testing;

#[tokio::test(flavor = "multi_thread")]
async fn my_store_keeps_the_contract() -> Result<(), testing::Violation> {
    // Two handles on one empty store, as two instances hold it (the same
    // one twice for a store in one process), and its capacity.
    let tasks = Arc::new(InMemoryTaskStore::new(4));
    testing::task_store(tasks.clone(), tasks, 4).await?;
    let replay = Arc::new(InMemoryReplayStore::default());
    testing::replay_store(replay.clone(), replay).await?;
    let events = Arc::new(InMemoryEventStore::new(8));
    testing::event_store(events.clone(), events, 8).await?;
    let tools = Arc::new(InMemoryToolStates::default());
    testing::tool_state_store(tools.clone(), tools).await?;
    let bus = Arc::new(InMemoryBus::default());
    testing::change_bus(bus.clone(), bus).await
}
