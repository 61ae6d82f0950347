//! `[limits]` held: a tool's calls at once (a semaphore), each caller's
//! calls per window (a sliding log of admissions), and the timeout that
//! cancels a call still running (`Server::run_tool`). With a
//! [`LimitStore`] the first two are the fleet's: every instance counts in
//! the store, and a slot of concurrency is leased, renewed while its call
//! runs, so that a dead instance's slots free themselves. When the store
//! cannot answer, each instance holds the limits on its own meanwhile.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::store::{LimitStore, StoreError};
use crate::metadata::{Limits, Rate};

/// The most callers whose recent calls are remembered per tool: past it,
/// the longest idle are forgotten (their windows have room anyway, or they
/// soon would), so that many callers cannot grow the map without bound.
const MAX_CALLERS: usize = 10_000;

/// A tool's limits and what they hold.
pub(super) struct Limiter {
    pub(super) limits: Limits,
    running: Option<Arc<Semaphore>>,
    calls: Mutex<HashMap<String, VecDeque<Instant>>>,
    /// When the store last failed to answer (Unix ms), so that an outage
    /// is said once in a while, not on every call.
    store_failed_at: AtomicU64,
}

/// The store the limits are counted in, and how long a slot's lease lasts.
#[derive(Clone)]
pub(super) struct SharedLimits {
    pub(super) store: Arc<dyn LimitStore>,
    pub(super) lease: Duration,
}

/// Why a call was not let in, and when to try again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Refusal {
    /// `concurrency` or `rate`.
    pub(super) limit: &'static str,
    pub(super) message: String,
    pub(super) retry_after: Duration,
}

/// What a call holds while it runs.
pub(super) struct Admission {
    _running: Option<OwnedSemaphorePermit>,
    _slot: Option<Slot>,
}

/// A slot of concurrency held in the store: renewed while held, given
/// back when dropped.
struct Slot {
    shared: SharedLimits,
    key: String,
    holder: String,
    renewing: tokio::task::JoinHandle<()>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.renewing.abort();
        let (store, key, holder) = (
            self.shared.store.clone(),
            std::mem::take(&mut self.key),
            std::mem::take(&mut self.holder),
        );
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                if let Err(e) = store.release(&key, &holder).await {
                    // The lease ends it anyway.
                    tracing::debug!("a slot of concurrency not given back: {e}");
                }
            });
        }
    }
}

impl Limiter {
    /// The limiter of `limits`; `None` when there are none.
    pub(super) fn of(limits: Limits) -> Option<Arc<Limiter>> {
        (!limits.is_empty()).then(|| {
            Arc::new(Limiter {
                limits,
                running: limits
                    .concurrency
                    .map(|n| Arc::new(Semaphore::new(n as usize))),
                calls: Mutex::new(HashMap::new()),
                store_failed_at: AtomicU64::new(0),
            })
        })
    }

    /// Lets a call of `tool` by `caller` in, or says which limit refuses
    /// it: counted in `shared` when there is one and it answers, else on
    /// this instance.
    pub(super) async fn admit(
        &self,
        tool: &str,
        caller: &str,
        shared: Option<&SharedLimits>,
    ) -> Result<Admission, Refusal> {
        if let Some(shared) = shared {
            match self.admit_shared(tool, caller, shared).await {
                Ok(admitted) => return admitted,
                Err(e) => {
                    let now = super::store::unix_ms();
                    let last = self.store_failed_at.swap(now, Ordering::Relaxed);
                    if now.saturating_sub(last) >= 10_000 {
                        tracing::warn!(
                            tool,
                            "limits held by this instance alone while the store fails: {e}"
                        );
                    }
                }
            }
        }
        self.admit_here(tool, caller)
    }

    /// [`admit`](Self::admit) in the store: a slot first (so that a call
    /// refused by its rate gives it back at once), then the rate.
    async fn admit_shared(
        &self,
        tool: &str,
        caller: &str,
        shared: &SharedLimits,
    ) -> Result<Result<Admission, Refusal>, StoreError> {
        let slot = match self.limits.concurrency {
            Some(max) => {
                let key = limit_key(&["slots", tool]);
                let holder = uuid::Uuid::new_v4().to_string();
                let lease_ms = u64::try_from(shared.lease.as_millis()).unwrap_or(u64::MAX);
                let expires = super::store::unix_ms().saturating_add(lease_ms);
                if !shared.store.acquire(&key, &holder, max, expires).await? {
                    return Ok(Err(self.too_many(tool)));
                }
                let renewing =
                    tokio::spawn(renew(shared.clone(), key.clone(), holder.clone(), max));
                Some(Slot {
                    shared: shared.clone(),
                    key,
                    holder,
                    renewing,
                })
            }
            None => None,
        };
        if let Some(rate) = self.limits.rate {
            let key = limit_key(&["rate", tool, caller]);
            let window_ms = u64::try_from(rate.per.as_millis()).unwrap_or(u64::MAX);
            if let Some(wait_ms) = shared.store.take_rate(&key, rate.calls, window_ms).await? {
                return Ok(Err(rate_refusal(
                    tool,
                    rate,
                    Duration::from_millis(wait_ms),
                )));
            }
        }
        Ok(Ok(Admission {
            _running: None,
            _slot: slot,
        }))
    }

    fn too_many(&self, tool: &str) -> Refusal {
        let n = self.limits.concurrency.unwrap_or_default();
        Refusal {
            limit: "concurrency",
            message: format!(
                "`{tool}` already runs {n} call{} at once, its limit; retry in a moment",
                if n == 1 { "" } else { "s" }
            ),
            retry_after: Duration::from_secs(1),
        }
    }

    /// [`admit`](Self::admit) on this instance alone.
    fn admit_here(&self, tool: &str, caller: &str) -> Result<Admission, Refusal> {
        let running = match &self.running {
            Some(semaphore) => match semaphore.clone().try_acquire_owned() {
                Ok(permit) => Some(permit),
                Err(_) => return Err(self.too_many(tool)),
            },
            None => None,
        };
        if let Some(rate) = self.limits.rate {
            self.take_rate(tool, caller, rate, Instant::now())?;
        }
        Ok(Admission {
            _running: running,
            _slot: None,
        })
    }

    /// Records a call in `caller`'s window, or refuses it with the time
    /// until the window's oldest call leaves it.
    fn take_rate(&self, tool: &str, caller: &str, rate: Rate, now: Instant) -> Result<(), Refusal> {
        let mut calls = self.calls.lock().unwrap_or_else(|e| e.into_inner());
        if !calls.contains_key(caller) && calls.len() >= MAX_CALLERS {
            let idle = calls
                .iter()
                .min_by_key(|(_, log)| log.back().copied())
                .map(|(k, _)| k.clone());
            if let Some(idle) = idle {
                calls.remove(&idle);
            }
        }
        let log = calls.entry(caller.to_owned()).or_default();
        while log
            .front()
            .is_some_and(|t| now.duration_since(*t) >= rate.per)
        {
            log.pop_front();
        }
        if log.len() >= rate.calls as usize {
            let oldest = log.front().copied().unwrap_or(now);
            let retry_after = rate.per.saturating_sub(now.duration_since(oldest));
            return Err(rate_refusal(tool, rate, retry_after));
        }
        log.push_back(now);
        Ok(())
    }
}

fn rate_refusal(tool: &str, rate: Rate, retry_after: Duration) -> Refusal {
    Refusal {
        limit: "rate",
        message: format!(
            "`{tool}` allows {rate} to each caller; retry in {} s",
            retry_after.as_secs_f64().ceil() as u64
        ),
        retry_after,
    }
}

/// A store's key for `parts`: a digest, so that a caller's id (a token's
/// subject, of any length) makes a key of fixed size.
fn limit_key(parts: &[&str]) -> String {
    use sha2::Digest;
    let mut digest = sha2::Sha256::new();
    for part in parts {
        digest.update(part.as_bytes());
        digest.update([0]);
    }
    crate::text::hex(&digest.finalize()[..16])
}

/// Keeps a slot's lease from lapsing while its call runs: renewed every
/// third of the lease (until the slot is dropped, which stops this).
async fn renew(shared: SharedLimits, key: String, holder: String, max: u32) {
    let lease_ms = u64::try_from(shared.lease.as_millis()).unwrap_or(u64::MAX);
    loop {
        tokio::time::sleep(shared.lease / 3).await;
        let expires = super::store::unix_ms().saturating_add(lease_ms);
        match shared.store.acquire(&key, &holder, max, expires).await {
            Ok(true) => {}
            Ok(false) => tracing::debug!("a slot of concurrency lapsed while its call ran"),
            Err(e) => tracing::debug!("a slot of concurrency not renewed: {e}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limiter(limits: Limits) -> Arc<Limiter> {
        Limiter::of(limits).expect("limits")
    }

    #[test]
    fn concurrency_refuses_past_the_limit_until_a_call_ends() {
        let l = limiter(Limits {
            concurrency: Some(1),
            ..Limits::default()
        });
        let first = l.admit_here("t", "a").expect("in");
        let refused = l.admit_here("t", "b").err().expect("refused");
        assert_eq!(refused.limit, "concurrency");
        drop(first);
        assert!(l.admit_here("t", "b").is_ok());
    }

    #[test]
    fn rate_is_per_caller_and_says_when_to_retry() {
        let rate = Rate {
            calls: 2,
            per: Duration::from_secs(60),
        };
        let l = limiter(Limits {
            rate: Some(rate),
            ..Limits::default()
        });
        let start = Instant::now();
        assert!(l.take_rate("t", "a", rate, start).is_ok());
        assert!(
            l.take_rate("t", "a", rate, start + Duration::from_secs(10))
                .is_ok()
        );
        let refused = l
            .take_rate("t", "a", rate, start + Duration::from_secs(20))
            .expect_err("refused");
        assert_eq!(refused.retry_after, Duration::from_secs(40));
        assert!(
            refused.message.contains("2 per minute"),
            "{}",
            refused.message
        );
        assert!(
            l.take_rate("t", "b", rate, start + Duration::from_secs(20))
                .is_ok()
        );
        assert!(
            l.take_rate("t", "a", rate, start + Duration::from_secs(61))
                .is_ok()
        );
    }

    #[test]
    fn the_callers_remembered_are_bounded() {
        let rate = Rate {
            calls: 1,
            per: Duration::from_secs(60),
        };
        let l = limiter(Limits {
            rate: Some(rate),
            ..Limits::default()
        });
        let now = Instant::now();
        for i in 0..MAX_CALLERS + 100 {
            assert!(l.take_rate("t", &format!("c{i}"), rate, now).is_ok());
        }
        assert_eq!(l.calls.lock().expect("lock").len(), MAX_CALLERS);
    }
}
