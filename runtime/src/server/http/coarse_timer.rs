//! A timer at a coarse grain, for the deadlines of seconds that every
//! request arms: hyper's header read timeout, and the body's (`body`).
//!
//! hyper arms its timeout anew for every request a connection waits for,
//! and drops it once the head has arrived: with tokio's timer that is an
//! entry put in and taken out of the runtime's timer wheel per request, and
//! when the wheel was empty as a worker parked, a wake-up of that worker
//! for nothing (tokio unparks the driver for a deadline earlier than the one
//! it sleeps to). For a keep-alive client that was about a tenth of a
//! session `ping`'s CPU. A deadline of seconds needs no millisecond timer:
//! here a sleep is a note in a list that one task looks through a few times
//! a second, firing what is due.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use futures_util::task::AtomicWaker;
use hyper::rt::{Sleep, Timer};

/// The sleeps of one server, and the task that fires them.
#[derive(Debug, Clone)]
pub(super) struct CoarseTimer {
    sleepers: Arc<Sleepers>,
}

#[derive(Debug, Default)]
struct Sleepers {
    /// The sleeps being waited on; a dropped one's entry is dead, swept by
    /// the next look or push.
    waiting: Mutex<Waiting>,
}

#[derive(Debug, Default)]
struct Waiting {
    alarms: Vec<Weak<Alarm>>,
    /// The length after the last sweep: a push past twice as many sweeps
    /// first, so the dead entries of a busy second stay bounded by the live.
    swept_len: usize,
}

#[derive(Debug)]
struct Alarm {
    deadline: Instant,
    fired: AtomicBool,
    waker: AtomicWaker,
}

impl Sleepers {
    fn waiting(&self) -> std::sync::MutexGuard<'_, Waiting> {
        // A list of weak references: whole after a panicking holder.
        self.waiting.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Fires the alarms due at `now` and drops the dead entries.
    fn fire(&self, now: Instant) {
        let mut waiting = self.waiting();
        waiting.alarms.retain(|alarm| {
            let Some(alarm) = alarm.upgrade() else {
                return false;
            };
            if now < alarm.deadline {
                return true;
            }
            alarm.fired.store(true, Ordering::Release);
            alarm.waker.wake();
            false
        });
        waiting.swept_len = waiting.alarms.len();
    }

    fn push(&self, alarm: &Arc<Alarm>) {
        let mut waiting = self.waiting();
        if waiting.alarms.len() >= 2 * waiting.swept_len + 64 {
            waiting.alarms.retain(|alarm| alarm.strong_count() > 0);
            waiting.swept_len = waiting.alarms.len();
        }
        waiting.alarms.push(Arc::downgrade(alarm));
    }
}

impl CoarseTimer {
    /// A timer for sleeps of `shortest` or longer: each ends within an
    /// eighth of that after its deadline (within 10 ms to 1 s).
    pub(super) fn within(shortest: Duration) -> Self {
        Self::new((shortest / 8).clamp(Duration::from_millis(10), Duration::from_secs(1)))
    }

    /// A timer whose sleeps end within `grain` after their deadline; its
    /// task runs until the timer and every clone of it are dropped.
    fn new(grain: Duration) -> Self {
        let sleepers = Arc::new(Sleepers::default());
        let weak = Arc::downgrade(&sleepers);
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval(grain);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                ticks.tick().await;
                let Some(sleepers) = weak.upgrade() else {
                    return;
                };
                sleepers.fire(Instant::now());
            }
        });
        CoarseTimer { sleepers }
    }
}

impl Timer for CoarseTimer {
    fn sleep(&self, duration: Duration) -> Pin<Box<dyn Sleep>> {
        self.sleep_until(Instant::now() + duration)
    }

    fn sleep_until(&self, deadline: Instant) -> Pin<Box<dyn Sleep>> {
        Box::pin(CoarseSleep {
            alarm: Arc::new(Alarm {
                deadline,
                fired: AtomicBool::new(false),
                waker: AtomicWaker::new(),
            }),
            sleepers: self.sleepers.clone(),
            listed: false,
        })
    }
}

/// One sleep: listed when first waited on.
struct CoarseSleep {
    alarm: Arc<Alarm>,
    sleepers: Arc<Sleepers>,
    listed: bool,
}

impl Future for CoarseSleep {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.alarm.fired.load(Ordering::Acquire) || Instant::now() >= self.alarm.deadline {
            return Poll::Ready(());
        }
        self.alarm.waker.register(cx.waker());
        if !self.listed {
            self.listed = true;
            self.sleepers.push(&self.alarm);
        }
        // Fired between the first look and the waker's registration.
        if self.alarm.fired.load(Ordering::Acquire) {
            return Poll::Ready(());
        }
        Poll::Pending
    }
}

impl Sleep for CoarseSleep {}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_sleep_ends_after_its_deadline_within_the_grain() {
        let timer = CoarseTimer::new(Duration::from_millis(20));
        let start = Instant::now();
        timer.sleep(Duration::from_millis(50)).await;
        let slept = start.elapsed();
        assert!(slept >= Duration::from_millis(50), "woke early: {slept:?}");
        // Generous: a loaded machine delays the ticking task.
        assert!(slept < Duration::from_secs(5), "woke late: {slept:?}");
    }

    #[tokio::test]
    async fn dropped_sleeps_do_not_pile_up() {
        let timer = CoarseTimer::new(Duration::from_secs(3600));
        let mut cx = Context::from_waker(std::task::Waker::noop());
        for _ in 0..10_000 {
            let mut sleep = timer.sleep(Duration::from_secs(60));
            assert!(sleep.as_mut().poll(&mut cx).is_pending());
        }
        // Swept on push once the dead outnumber the live twice over.
        assert!(timer.sleepers.waiting().alarms.len() <= 2 * 64 + 1);
        let mut held = timer.sleep(Duration::from_secs(60));
        assert!(held.as_mut().poll(&mut cx).is_pending());
        timer
            .sleepers
            .fire(Instant::now() + Duration::from_secs(61));
        assert!(held.as_mut().poll(&mut cx).is_ready());
        assert!(timer.sleepers.waiting().alarms.is_empty());
    }
}
