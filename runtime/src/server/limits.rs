//! `[limits]` held: a tool's calls at once (a semaphore), each caller's
//! calls per window (a sliding log of admissions), and the timeout that
//! cancels a call still running (`Server::run_tool`). Per instance: every
//! instance behind a balancer holds its own.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

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
            })
        })
    }

    /// Lets a call of `tool` by `caller` in, or says which limit refuses it.
    pub(super) fn admit(&self, tool: &str, caller: &str) -> Result<Admission, Refusal> {
        let running = match &self.running {
            Some(semaphore) => match semaphore.clone().try_acquire_owned() {
                Ok(permit) => Some(permit),
                Err(_) => {
                    let n = self.limits.concurrency.unwrap_or_default();
                    return Err(Refusal {
                        limit: "concurrency",
                        message: format!(
                            "`{tool}` already runs {n} call{} at once, its limit; retry in a moment",
                            if n == 1 { "" } else { "s" }
                        ),
                        retry_after: Duration::from_secs(1),
                    });
                }
            },
            None => None,
        };
        if let Some(rate) = self.limits.rate {
            self.take_rate(tool, caller, rate, Instant::now())?;
        }
        Ok(Admission { _running: running })
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
            return Err(Refusal {
                limit: "rate",
                message: format!(
                    "`{tool}` allows {rate} to each caller; retry in {} s",
                    retry_after.as_secs_f64().ceil() as u64
                ),
                retry_after,
            });
        }
        log.push_back(now);
        Ok(())
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
        let first = l.admit("t", "a").expect("in");
        let refused = l.admit("t", "b").err().expect("refused");
        assert_eq!(refused.limit, "concurrency");
        drop(first);
        assert!(l.admit("t", "b").is_ok());
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
