//! [`ReplayStore`]'s contract: a state is used once, whichever handle and
//! however many race.

use std::sync::Arc;

use toolmetadata::server::store::ReplayStore;

use super::{RACERS, Violation, answered, check, now_ms, unique};

/// Checks that `a` and `b`, two handles on one empty store, keep
/// [`ReplayStore`]'s guarantee.
///
/// # Errors
///
/// The first guarantee broken.
pub async fn replay_store(
    a: Arc<dyn ReplayStore>,
    b: Arc<dyn ReplayStore>,
) -> Result<(), Violation> {
    const G: &str = "used once";
    let until = now_ms() + 60_000;
    let state = unique("state");
    let first = answered(a.first_use(&state, until).await, G, "first_use")?;
    check(first, G, || {
        "a state never used was not its first use".to_owned()
    })?;
    for (store, which) in [(&a, "the same"), (&b, "the other")] {
        let again = answered(store.first_use(&state, until).await, G, "first_use")?;
        check(!again, G, || {
            format!("a used state was a first use again through {which} handle")
        })?;
    }
    let raced = unique("raced");
    let mut racing = tokio::task::JoinSet::new();
    for i in 0..RACERS {
        let store = if i % 2 == 0 { a.clone() } else { b.clone() };
        let raced = raced.clone();
        racing.spawn(async move { store.first_use(&raced, until).await });
    }
    let mut firsts = 0;
    while let Some(joined) = racing.join_next().await {
        let answer = joined.map_err(|e| Violation {
            guarantee: G,
            detail: format!("first_use panicked: {e}"),
        })?;
        firsts += usize::from(answered(answer, G, "first_use")?);
    }
    check(firsts == 1, G, || {
        format!("of {RACERS} racing uses of one state, {firsts} were its first")
    })
}
