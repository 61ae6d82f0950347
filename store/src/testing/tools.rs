//! [`ToolStateStore`]'s contract: the last state written for a tool is the
//! one read, through either handle, and racing writes leave one state that
//! both handles read.

use std::sync::Arc;

use toolmetadata::server::store::ToolStateStore;

use super::{RACERS, Violation, answered, check, unique};

/// Checks that `a` and `b`, two handles on one store, keep
/// [`ToolStateStore`]'s guarantees (other tools' states in the store are
/// left alone).
///
/// # Errors
///
/// The first guarantee broken.
pub async fn tool_state_store(
    a: Arc<dyn ToolStateStore>,
    b: Arc<dyn ToolStateStore>,
) -> Result<(), Violation> {
    const LAST: &str = "the last write wins";
    let (search, export) = (unique("search"), unique("export"));
    answered(
        a.set_tool_state(&search, false).await,
        LAST,
        "set_tool_state",
    )?;
    answered(
        b.set_tool_state(&export, true).await,
        LAST,
        "set_tool_state",
    )?;
    for (store, which) in [(&a, "the same"), (&b, "the other")] {
        let read = answered(store.tool_states().await, LAST, "tool_states")?;
        check(
            read.get(&search) == Some(&false) && read.get(&export) == Some(&true),
            LAST,
            || {
                format!(
                    "after disabling `{search}` and enabling `{export}`, {which} handle read {:?} and {:?}",
                    read.get(&search),
                    read.get(&export)
                )
            },
        )?;
    }
    answered(
        b.set_tool_state(&search, true).await,
        LAST,
        "set_tool_state",
    )?;
    let read = answered(a.tool_states().await, LAST, "tool_states")?;
    check(read.get(&search) == Some(&true), LAST, || {
        format!(
            "`{search}` enabled through the other handle read as {:?}",
            read.get(&search)
        )
    })?;

    const RACE: &str = "racing writes leave one state";
    let raced = unique("raced");
    let mut racing = tokio::task::JoinSet::new();
    for i in 0..RACERS {
        let store = if i % 2 == 0 { a.clone() } else { b.clone() };
        let raced = raced.clone();
        racing.spawn(async move { store.set_tool_state(&raced, i % 3 == 0).await });
    }
    while let Some(joined) = racing.join_next().await {
        let answer = joined.map_err(|e| Violation {
            guarantee: RACE,
            detail: format!("set_tool_state panicked: {e}"),
        })?;
        answered(answer, RACE, "set_tool_state")?;
    }
    let (on_a, on_b) = (
        answered(a.tool_states().await, RACE, "tool_states")?,
        answered(b.tool_states().await, RACE, "tool_states")?,
    );
    check(
        on_a.contains_key(&raced) && on_a.get(&raced) == on_b.get(&raced),
        RACE,
        || {
            format!(
                "after {RACERS} racing writes the handles read {:?} and {:?}",
                on_a.get(&raced),
                on_b.get(&raced)
            )
        },
    )
}
