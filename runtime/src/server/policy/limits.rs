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

use crate::metadata::{Limits, Rate};
use crate::server::store::{LimitStore, StoreError};

/// The most callers whose recent calls are remembered per tool: past it,
/// the longest idle are forgotten (their windows have room anyway, or they
/// soon would), so that many callers cannot grow the map without bound.
const MAX_CALLERS: usize = 10_000;

/// A tool's limits and what they hold.
pub(in crate::server) struct Limiter {
    pub(in crate::server) limits: Limits,
    running: Option<Arc<Semaphore>>,
    calls: Mutex<HashMap<String, VecDeque<Instant>>>,
    /// When the store last failed to answer (Unix ms; 0 when it answers):
    /// for [`STORE_PAUSE`] after, calls are counted here without asking it.
    store_failed_at: AtomicU64,
    /// When the outage was last said in the log (Unix ms).
    store_warned_at: AtomicU64,
}

/// How long an instance counts limits alone after the store failed, before
/// it asks again: an outage costs one call the store's timeout now and then,
/// not every call.
const STORE_PAUSE: Duration = Duration::from_secs(2);

/// The store the limits are counted in, and how long a slot's lease lasts.
#[derive(Clone)]
pub(in crate::server) struct SharedLimits {
    pub(in crate::server) store: Arc<dyn LimitStore>,
    pub(in crate::server) lease: Duration,
}

/// Why a call was not let in, and when to try again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(in crate::server) struct Refusal {
    /// `concurrency` or `rate`.
    pub(in crate::server) limit: &'static str,
    pub(in crate::server) message: String,
    pub(in crate::server) retry_after: Duration,
}

/// What a call holds while it runs.
pub(in crate::server) struct Admission {
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
    pub(in crate::server) fn of(limits: Limits) -> Option<Arc<Limiter>> {
        (!limits.is_empty()).then(|| {
            Arc::new(Limiter {
                limits,
                running: limits
                    .concurrency
                    .map(|n| Arc::new(Semaphore::new(n as usize))),
                calls: Mutex::new(HashMap::new()),
                store_failed_at: AtomicU64::new(0),
                store_warned_at: AtomicU64::new(0),
            })
        })
    }

    /// Lets a call of `tool` by `caller` in, or says which limit refuses
    /// it: counted in `shared` when there is one and it answers, else on
    /// this instance.
    pub(in crate::server) async fn admit(
        &self,
        tool: &str,
        caller: &str,
        shared: Option<&SharedLimits>,
    ) -> Result<Admission, Refusal> {
        let paused = || {
            let failed = self.store_failed_at.load(Ordering::Relaxed);
            failed != 0
                && crate::server::store::unix_ms().saturating_sub(failed)
                    < STORE_PAUSE.as_millis() as u64
        };
        if let Some(shared) = shared
            && !paused()
        {
            match self.admit_shared(tool, caller, shared).await {
                Ok(admitted) => {
                    if self.store_failed_at.swap(0, Ordering::Relaxed) != 0 {
                        tracing::info!(tool, "the store answers again: limits are the fleet's");
                    }
                    return admitted;
                }
                Err(e) => {
                    let now = crate::server::store::unix_ms();
                    self.store_failed_at.store(now, Ordering::Relaxed);
                    let warned = self.store_warned_at.load(Ordering::Relaxed);
                    if now.saturating_sub(warned) >= 10_000
                        && self
                            .store_warned_at
                            .compare_exchange(warned, now, Ordering::Relaxed, Ordering::Relaxed)
                            .is_ok()
                    {
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

    /// [`admit`](Self::admit) in the store: the rate first, so that a
    /// caller past its rate never holds a slot others wait for, then a slot.
    async fn admit_shared(
        &self,
        tool: &str,
        caller: &str,
        shared: &SharedLimits,
    ) -> Result<Result<Admission, Refusal>, StoreError> {
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
        let Some(max) = self.limits.concurrency else {
            return Ok(Ok(Admission {
                _running: None,
                _slot: None,
            }));
        };
        let key = limit_key(&["slots", tool]);
        let holder = uuid::Uuid::new_v4().to_string();
        let lease_ms = u64::try_from(shared.lease.as_millis()).unwrap_or(u64::MAX);
        match shared.store.acquire(&key, &holder, max, lease_ms).await {
            Ok(true) => {
                let renewing =
                    tokio::spawn(renew(shared.clone(), key.clone(), holder.clone(), max));
                Ok(Ok(Admission {
                    _running: None,
                    _slot: Some(Slot {
                        shared: shared.clone(),
                        key,
                        holder,
                        renewing,
                    }),
                }))
            }
            Ok(false) => Ok(Err(self.too_many(tool))),
            Err(e) => {
                // The store may have taken the slot and answered too late:
                // it is given back (or lapses with its lease).
                let store = shared.store.clone();
                tokio::spawn(async move {
                    let _ = store.release(&key, &holder).await;
                });
                Err(e)
            }
        }
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
    toolmetadata_core::seam::hex(&digest.finalize()[..16])
}

/// Keeps a slot's lease from lapsing while its call runs: renewed every
/// third of the lease (until the slot is dropped, which stops this).
async fn renew(shared: SharedLimits, key: String, holder: String, max: u32) {
    let lease_ms = u64::try_from(shared.lease.as_millis()).unwrap_or(u64::MAX);
    loop {
        tokio::time::sleep(shared.lease / 3).await;
        match shared.store.acquire(&key, &holder, max, lease_ms).await {
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
