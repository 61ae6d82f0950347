//! [`TaskStore`]'s contract: read after create, terminal is final (under
//! concurrent updates too), kept until it expires, bounded, leases.

use std::sync::Arc;
use std::time::Duration;

use toolmetadata::server::store::{StoreError, TaskChange, TaskRecord, TaskState, TaskStore};

use super::{GRACE, RACERS, Violation, answered, check, now_ms, unique};

/// Checks that `a` and `b`, two handles on one empty store that holds at
/// most `capacity` tasks (2 to 1000), keep [`TaskStore`]'s guarantees.
///
/// # Errors
///
/// The first guarantee broken.
pub async fn task_store(
    a: Arc<dyn TaskStore>,
    b: Arc<dyn TaskStore>,
    capacity: usize,
) -> Result<(), Violation> {
    read_after_create(&*a, &*b).await?;
    unknown_ids(&*a).await?;
    terminal_is_final(&*a, &*b).await?;
    concurrent_updates(&a, &b).await?;
    leases(&*a, &*b).await?;
    kept_until_it_expires(&*a, &*b).await?;
    bounded(&*a, &*b, capacity).await
}

fn working(ttl: Duration) -> TaskRecord {
    TaskRecord::working(unique("task"), "tool".to_owned(), ttl)
}

const MINUTE: Duration = Duration::from_secs(60);

async fn read_after_create(a: &dyn TaskStore, b: &dyn TaskStore) -> Result<(), Violation> {
    const G: &str = "read after create";
    let mut record = working(MINUTE);
    record.owner = Some("alice".to_owned());
    answered(a.insert(record.clone()).await, G, "insert")?;
    let read = answered(b.get(&record.id).await, G, "get")?;
    check(read.as_ref() == Some(&record), G, || {
        format!("inserted through one handle, read through the other as {read:?}")
    })?;
    let updated = answered(
        b.update(&record.id, TaskChange::StatusMessage("half way".into()))
            .await,
        G,
        "update",
    )?;
    check(
        updated
            .as_ref()
            .is_some_and(|r| r.status_message.as_deref() == Some("half way")),
        G,
        || format!("an update returned {updated:?}, not the record with its change"),
    )?;
    let again = answered(a.get(&record.id).await, G, "get")?;
    check(again == updated, G, || {
        format!("after an update through one handle the other reads {again:?}")
    })
}

async fn unknown_ids(a: &dyn TaskStore) -> Result<(), Violation> {
    const G: &str = "unknown ids are unknown";
    for id in [unique("never"), "x".repeat(10_000), "a\0b".to_owned()] {
        let shown: String = id.chars().take(20).collect();
        let read = a.get(&id).await;
        check(matches!(read, Ok(None)), G, || {
            format!("get of an id never inserted ({shown:?}…) gave {read:?}, not Ok(None)")
        })?;
        let updated = a.update(&id, TaskChange::Delivered).await;
        check(matches!(updated, Ok(None)), G, || {
            format!("update of an id never inserted ({shown:?}…) gave {updated:?}, not Ok(None)")
        })?;
    }
    Ok(())
}

async fn terminal_is_final(a: &dyn TaskStore, b: &dyn TaskStore) -> Result<(), Violation> {
    const G: &str = "terminal is final";
    let record = working(MINUTE);
    answered(a.insert(record.clone()).await, G, "insert")?;
    let done = TaskState::Completed {
        result: serde_json::json!({"content": [], "isError": false}),
    };
    answered(
        a.update(&record.id, TaskChange::Finish(done.clone())).await,
        G,
        "update",
    )?;
    for change in [
        TaskChange::Finish(TaskState::Cancelled),
        TaskChange::Finish(TaskState::Working),
        TaskChange::StatusMessage("late".into()),
        TaskChange::FailIfOrphaned,
    ] {
        let shown = format!("{change:?}");
        let after = answered(b.update(&record.id, change).await, G, "update")?;
        check(
            after
                .as_ref()
                .is_some_and(|r| r.state == done && r.status_message.is_none()),
            G,
            || format!("a completed task took {shown}: it reads {after:?}"),
        )?;
    }
    Ok(())
}

async fn concurrent_updates(
    a: &Arc<dyn TaskStore>,
    b: &Arc<dyn TaskStore>,
) -> Result<(), Violation> {
    const G: &str = "terminal is final under concurrent updates";
    let record = working(MINUTE);
    answered(a.insert(record.clone()).await, G, "insert")?;
    let mut racing = tokio::task::JoinSet::new();
    for i in 0..RACERS {
        let store = if i % 2 == 0 { a.clone() } else { b.clone() };
        let id = record.id.clone();
        let state = if i % 3 == 0 {
            TaskState::Cancelled
        } else {
            TaskState::Completed {
                result: serde_json::json!({"content": [], "isError": false, "n": i}),
            }
        };
        racing.spawn(async move { store.update(&id, TaskChange::Finish(state)).await });
    }
    let mut seen = Vec::new();
    while let Some(joined) = racing.join_next().await {
        let answer = joined.map_err(|e| Violation {
            guarantee: G,
            detail: format!("an update panicked: {e}"),
        })?;
        let record = answered(answer, G, "update")?.ok_or_else(|| Violation {
            guarantee: G,
            detail: "a task being updated was lost".to_owned(),
        })?;
        seen.push(record.state);
    }
    let last = answered(a.get(&record.id).await, G, "get")?.map(|r| r.state);
    // Every racer saw the one terminal state the first of them set.
    check(
        last.as_ref()
            .is_some_and(|l| l.is_terminal() && seen.iter().all(|s| s == l)),
        G,
        || format!("{RACERS} racing finishes left {last:?}, and they saw {seen:?}"),
    )
}

async fn leases(a: &dyn TaskStore, b: &dyn TaskStore) -> Result<(), Violation> {
    const G: &str = "a lapsed lease fails the task, a renewed one holds it";
    let mut lapsing = working(MINUTE);
    lapsing.lease_until_ms = Some(now_ms().saturating_sub(1_000));
    answered(a.insert(lapsing.clone()).await, G, "insert")?;
    let failed = answered(
        b.update(&lapsing.id, TaskChange::FailIfOrphaned).await,
        G,
        "update",
    )?;
    check(
        failed
            .as_ref()
            .is_some_and(|r| matches!(r.state, TaskState::Failed { .. })),
        G,
        || format!("a task whose lease lapsed a second ago, failed if orphaned, reads {failed:?}"),
    )?;
    let mut held = working(MINUTE);
    held.lease_until_ms = Some(now_ms().saturating_sub(1_000));
    answered(a.insert(held.clone()).await, G, "insert")?;
    let until_ms = now_ms() + 60_000;
    answered(
        a.update(&held.id, TaskChange::Renew { until_ms }).await,
        G,
        "update",
    )?;
    let after = answered(
        b.update(&held.id, TaskChange::FailIfOrphaned).await,
        G,
        "update",
    )?;
    check(
        after
            .as_ref()
            .is_some_and(|r| r.state == TaskState::Working && r.lease_until_ms == Some(until_ms)),
        G,
        || format!("a renewed task, failed if orphaned, reads {after:?}"),
    )
}

async fn kept_until_it_expires(a: &dyn TaskStore, b: &dyn TaskStore) -> Result<(), Violation> {
    const G: &str = "kept until it expires";
    let short = working(Duration::from_millis(300));
    answered(a.insert(short.clone()).await, G, "insert")?;
    let read = answered(b.get(&short.id).await, G, "get")?;
    check(read.is_some(), G, || {
        "a task of 300 ms was gone at once".to_owned()
    })?;
    tokio::time::sleep(Duration::from_millis(300) + GRACE).await;
    let read = answered(b.get(&short.id).await, G, "get")?;
    check(read.is_none(), G, || {
        format!("a task of 300 ms was still read a second later: {read:?}")
    })?;
    let updated = answered(
        a.update(&short.id, TaskChange::Delivered).await,
        G,
        "update",
    )?;
    check(updated.is_none(), G, || {
        format!("an expired task was updated: {updated:?}")
    })
}

async fn bounded(a: &dyn TaskStore, b: &dyn TaskStore, capacity: usize) -> Result<(), Violation> {
    const G: &str = "bounded";
    // What the checks before left, all still working for a minute at most,
    // counts too: fill what is left.
    let mut inserted = 0;
    let refused = loop {
        let mut record = working(MINUTE);
        // One owner each, so that an owner quota is not what refuses.
        record.owner = Some(unique("owner"));
        match a.insert(record).await {
            Ok(()) => inserted += 1,
            Err(e) => break e,
        }
        if inserted > capacity {
            return Err(Violation {
                guarantee: G,
                detail: format!("{inserted} working tasks were taken by a store of {capacity}"),
            });
        }
    };
    check(matches!(refused, StoreError::Full { .. }), G, || {
        format!("an insert past the capacity was refused with {refused:?}, not StoreError::Full")
    })?;
    // Of another owner still: a store may make room with an owner's own
    // finished tasks, never with another's undelivered result.
    let mut another = working(MINUTE);
    another.owner = Some(unique("owner"));
    let again = b.insert(another).await;
    check(matches!(again, Err(StoreError::Full { .. })), G, || {
        format!("the other handle inserted past the capacity: {again:?}")
    })
}
