//! The contract a store must keep (feature `testing`): the suite the Redis
//! and PostgreSQL stores pass, as functions a crate of your own calls on its
//! own store (DynamoDB, etcd, Spanner…) from its tests.
//!
//! Each function takes two handles on one empty store, as two instances of
//! a server hold it (give the same handle twice for a store in one
//! process), checks the guarantees its trait documents, and returns the
//! first one broken as a [`Violation`]. It waits a few seconds at most, for
//! the checks of what expires.
//!
//! ```no_run
//! # use std::sync::Arc;
//! # use toolmetadata::server::store::{InMemoryReplayStore, InMemoryTaskStore};
//! # async fn my_task_store() -> Arc<InMemoryTaskStore> { Arc::new(InMemoryTaskStore::new(4)) }
//! # async fn my_replay_store() -> Arc<InMemoryReplayStore> { Arc::default() }
//! # async fn run() -> Result<(), toolmetadata_store::testing::Violation> {
//! use toolmetadata_store::testing;
//!
//! // In a #[tokio::test(flavor = "multi_thread")] of your crate: your store,
//! // empty, holding at most 4 tasks.
//! let tasks = my_task_store().await;
//! testing::task_store(tasks.clone(), tasks, 4).await?;
//! let replay = my_replay_store().await;
//! testing::replay_store(replay.clone(), replay).await?;
//! # Ok(()) }
//! ```

mod bus;
mod events;
mod limits;
mod replay;
mod sessions;
mod tasks;
mod tools;

use std::fmt;
use std::time::Duration;

pub use bus::change_bus;
pub use events::event_store;
pub use limits::limit_store;
pub use replay::replay_store;
pub use sessions::session_store;
pub use tasks::task_store;
pub use tools::tool_state_store;

/// A guarantee a store broke: which, and what it did instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// The guarantee, as its trait's documentation names it ("terminal is
    /// final").
    pub guarantee: &'static str,
    /// What the store did.
    pub detail: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the store breaks \"{}\": {}",
            self.guarantee, self.detail
        )
    }
}

impl std::error::Error for Violation {}

/// `Err` naming `guarantee` unless `holds`.
fn check(
    holds: bool,
    guarantee: &'static str,
    detail: impl FnOnce() -> String,
) -> Result<(), Violation> {
    if holds {
        Ok(())
    } else {
        Err(Violation {
            guarantee,
            detail: detail(),
        })
    }
}

/// `result`'s value, or the store's error as a violation of `guarantee`.
fn answered<T, E: fmt::Display>(
    result: Result<T, E>,
    guarantee: &'static str,
    what: &str,
) -> Result<T, Violation> {
    result.map_err(|e| Violation {
        guarantee,
        detail: format!("{what} failed: {e}"),
    })
}

/// Unix time in milliseconds.
fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// A name no other run of the suite uses, so that runs on one store at
/// once never meet.
fn unique(prefix: &str) -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    format!(
        "{prefix}-{}-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed),
        now_ms()
    )
}

/// How long the checks of what expires give a store past the expiry: a
/// store's clock and ours may differ a little.
const GRACE: Duration = Duration::from_millis(700);

/// How many calls race in the checks of atomicity.
const RACERS: usize = 16;
