//! Single use of a `requestState`: [`ReplayStore`] remembers the states a
//! retry has already brought, until they expire, so that an accepted
//! confirmation cannot be sent again to run its call twice, on this
//! instance or another.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use super::error::{StoreError, unix_ms};
use toolmetadata_core::BoxFuture;

/// Where the server records the `requestState`s already used.
///
/// An implementation must make [`first_use`](ReplayStore::first_use)
/// atomic across every instance that shares it: of any number of concurrent
/// calls with the same `fingerprint`, exactly one gets `Ok(true)`, and every
/// later one `Ok(false)` until `expires_at_ms` has passed. It must stay
/// bounded (refusing with [`StoreError::Full`] rather than forgetting a
/// marker that has not expired: forgetting would allow a replay).
pub trait ReplayStore: Send + Sync + 'static {
    /// Records the use of the state `fingerprint` (a hex digest, at most 64
    /// bytes), kept until `expires_at_ms` (Unix time in milliseconds): `true`
    /// when this is its first use, `false` when it was used before.
    fn first_use<'a>(
        &'a self,
        fingerprint: &'a str,
        expires_at_ms: u64,
    ) -> BoxFuture<'a, Result<bool, StoreError>>;
}

impl<T: ReplayStore + ?Sized> ReplayStore for Arc<T> {
    fn first_use<'a>(
        &'a self,
        fingerprint: &'a str,
        expires_at_ms: u64,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        (**self).first_use(fingerprint, expires_at_ms)
    }
}

/// The default: markers in this process's memory, at most `max` of them
/// (each dropped once its state has expired). Enough for one instance;
/// instances behind a round-robin balancer need a shared [`ReplayStore`].
#[derive(Debug)]
pub struct InMemoryReplayStore {
    max: usize,
    used: Mutex<HashMap<String, u64>>,
}

impl InMemoryReplayStore {
    /// The default limit on markers held at once: a confirmation answered
    /// every 10 ms for the states' default lifetime of 10 minutes.
    pub const DEFAULT_MAX: usize = 60_000;

    /// A store holding at most `max` markers (at least 1).
    pub fn new(max: usize) -> Self {
        InMemoryReplayStore {
            max: max.max(1),
            used: Mutex::new(HashMap::new()),
        }
    }
}

impl Default for InMemoryReplayStore {
    fn default() -> Self {
        InMemoryReplayStore::new(Self::DEFAULT_MAX)
    }
}

impl ReplayStore for InMemoryReplayStore {
    fn first_use<'a>(
        &'a self,
        fingerprint: &'a str,
        expires_at_ms: u64,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        // Every change is one insert or one retain: a poisoned map is
        // consistent.
        let mut used = self.used.lock().unwrap_or_else(PoisonError::into_inner);
        let now = unix_ms();
        let result = match used.get(fingerprint) {
            Some(&until) if until >= now => Ok(false),
            _ => {
                if used.len() >= self.max {
                    used.retain(|_, until| *until >= now);
                }
                if used.len() >= self.max {
                    Err(StoreError::Full {
                        of: "used request states",
                        max: self.max,
                    })
                } else {
                    used.insert(fingerprint.to_owned(), expires_at_ms);
                    Ok(true)
                }
            }
        };
        Box::pin(std::future::ready(result))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block<T>(f: BoxFuture<'_, T>) -> T {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime")
            .block_on(f)
    }

    #[test]
    fn a_state_is_used_once_until_it_expires() {
        let store = InMemoryReplayStore::new(10);
        let later = unix_ms() + 60_000;
        assert_eq!(block(store.first_use("a", later)), Ok(true));
        assert_eq!(block(store.first_use("a", later)), Ok(false));
        assert_eq!(block(store.first_use("b", later)), Ok(true));
        // An expired marker is gone: its state no longer opens anyway.
        assert_eq!(block(store.first_use("old", 1)), Ok(true));
        assert_eq!(block(store.first_use("old", later)), Ok(true));
    }

    #[test]
    fn a_full_store_refuses_rather_than_forgets() {
        let store = InMemoryReplayStore::new(2);
        let later = unix_ms() + 60_000;
        assert_eq!(block(store.first_use("a", later)), Ok(true));
        assert_eq!(block(store.first_use("b", 1)), Ok(true));
        // `b` has expired: its room is reclaimed.
        assert_eq!(block(store.first_use("c", later)), Ok(true));
        assert!(matches!(
            block(store.first_use("d", later)),
            Err(StoreError::Full { max: 2, .. })
        ));
        assert_eq!(block(store.first_use("a", later)), Ok(false));
    }
}
