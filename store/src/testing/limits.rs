//! [`LimitStore`]'s contract: a rate and a tool's slots are the fleet's.

use std::sync::Arc;
use std::time::Duration;

use toolmetadata::server::store::LimitStore;

use super::{GRACE, Violation, answered, check, unique};

/// Checks that `a` and `b`, two handles on one empty store, keep
/// [`LimitStore`]'s guarantees.
///
/// # Errors
///
/// The first guarantee broken.
pub async fn limit_store(a: Arc<dyn LimitStore>, b: Arc<dyn LimitStore>) -> Result<(), Violation> {
    rates(&*a, &*b).await?;
    slots(&*a, &*b).await
}

async fn rates(a: &dyn LimitStore, b: &dyn LimitStore) -> Result<(), Violation> {
    const G: &str = "a rate is counted for every instance";
    let key = unique("rate");
    for (store, n) in [(a, 1), (b, 2)] {
        let taken = answered(store.take_rate(&key, 2, 60_000).await, G, "take_rate")?;
        check(taken.is_none(), G, || {
            format!("call {n} of 2 allowed in a minute was refused: retry in {taken:?} ms")
        })?;
    }
    for store in [a, b] {
        let third = answered(store.take_rate(&key, 2, 60_000).await, G, "take_rate")?;
        check(third.is_some_and(|ms| ms > 0 && ms <= 60_000), G, || {
            format!(
                "a third call of 2 a minute gave {third:?}, not the wait until the first leaves the window"
            )
        })?;
    }
    Ok(())
}

async fn slots(a: &dyn LimitStore, b: &dyn LimitStore) -> Result<(), Violation> {
    const G: &str = "a tool's slots are held for every instance";
    let key = unique("slots");
    let (first, second) = (unique("holder"), unique("holder"));
    let taken = answered(a.acquire(&key, &first, 1, 60_000).await, G, "acquire")?;
    check(taken, G, || "the one free slot was refused".to_owned())?;
    let renewed = answered(a.acquire(&key, &first, 1, 60_000).await, G, "acquire")?;
    check(renewed, G, || {
        "its holder could not renew its slot".to_owned()
    })?;
    let other = answered(b.acquire(&key, &second, 1, 60_000).await, G, "acquire")?;
    check(!other, G, || {
        "a second holder took the one slot through the other handle".to_owned()
    })?;
    answered(b.release(&key, &first).await, G, "release")?;
    let freed = answered(b.acquire(&key, &second, 1, 300).await, G, "acquire")?;
    check(freed, G, || "a slot given back was not free".to_owned())?;
    // The holder dies: its slot is free once its lease has run out.
    tokio::time::sleep(Duration::from_millis(300) + GRACE).await;
    let lapsed = answered(a.acquire(&key, &first, 1, 60_000).await, G, "acquire")?;
    check(lapsed, G, || {
        "a slot whose lease of 300 ms ran out a second ago was still held".to_owned()
    })
}
