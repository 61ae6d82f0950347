use super::*;

fn block<T>(f: BoxFuture<'_, T>) -> T {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime")
        .block_on(f)
}

#[test]
fn the_store_is_bounded_and_terminal_states_are_final() {
    let store = InMemoryTaskStore::new(2);
    let ttl = Duration::from_secs(60);
    for id in ["a", "b"] {
        block(store.insert(TaskRecord::working(id.into(), "t".into(), ttl))).expect("room");
    }
    assert_eq!(
        block(store.insert(TaskRecord::working("c".into(), "t".into(), ttl))),
        Err(StoreError::Full {
            of: "tasks",
            max: 2
        })
    );
    let done = TaskState::Completed {
        result: serde_json::json!({"content": []}),
    };
    block(store.update("a", TaskChange::Finish(done.clone()))).expect("update");
    let after = block(store.update("a", TaskChange::Finish(TaskState::Cancelled)))
        .expect("update")
        .expect("kept");
    assert_eq!(after.state, done);
    assert_eq!(block(store.get("zzz")), Ok(None));
}

#[test]
fn expired_tasks_are_dropped_and_free_their_room() {
    let store = InMemoryTaskStore::new(1);
    let mut old = TaskRecord::working("old".into(), "t".into(), Duration::ZERO);
    old.expires_at_ms = 0;
    block(store.insert(old)).expect("room");
    assert_eq!(block(store.get("old")), Ok(None));
    block(store.insert(TaskRecord::working(
        "new".into(),
        "t".into(),
        Duration::from_secs(60),
    )))
    .expect("the expired task made room");
}

#[test]
fn a_working_task_past_its_lease_fails_and_a_renewed_one_does_not() {
    let store = InMemoryTaskStore::new(4);
    let ttl = Duration::from_secs(60);
    let mut alive = TaskRecord::working("alive".into(), "t".into(), ttl);
    alive.lease_until_ms = Some(unix_ms() + 60_000);
    let mut dead = TaskRecord::working("dead".into(), "t".into(), ttl);
    dead.lease_until_ms = Some(unix_ms() - 1);
    block(store.insert(alive)).expect("room");
    block(store.insert(dead)).expect("room");

    let alive = block(store.update("alive", TaskChange::FailIfOrphaned))
        .expect("update")
        .expect("kept");
    assert_eq!(alive.state, TaskState::Working);
    let dead = block(store.update("dead", TaskChange::FailIfOrphaned))
        .expect("update")
        .expect("kept");
    let TaskState::Failed { error } = &dead.state else {
        panic!("{dead:?}")
    };
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|m| m.contains("stopped"))
    );

    // A renewal cannot revive a failed task; it extends a working one.
    let after = block(store.update("dead", TaskChange::Renew { until_ms: u64::MAX }))
        .expect("update")
        .expect("kept");
    assert!(after.state.is_terminal());
    let mut late = TaskRecord::working("late".into(), "t".into(), ttl);
    late.lease_until_ms = Some(unix_ms() - 1);
    block(store.insert(late)).expect("room");
    block(store.update(
        "late",
        TaskChange::Renew {
            until_ms: unix_ms() + 60_000,
        },
    ))
    .expect("update");
    let late = block(store.update("late", TaskChange::FailIfOrphaned))
        .expect("update")
        .expect("kept");
    assert_eq!(late.state, TaskState::Working);
}

#[test]
fn one_owner_cannot_fill_the_store_and_finished_tasks_go_first() {
    let store = InMemoryTaskStore::new(10).with_owner_quota(2);
    let ttl = Duration::from_secs(60);
    let of = |id: &str, owner: &str| {
        let mut record = TaskRecord::working(id.into(), "t".into(), ttl);
        record.owner = Some(owner.into());
        record
    };
    block(store.insert(of("a1", "alice"))).expect("room");
    block(store.insert(of("a2", "alice"))).expect("room");
    assert_eq!(
        block(store.insert(of("a3", "alice"))),
        Err(StoreError::Full {
            of: "tasks for one principal",
            max: 2
        })
    );
    block(store.insert(of("b1", "bob"))).expect("bob is not alice");
    let done = TaskState::Completed {
        result: serde_json::json!({"content": []}),
    };
    block(store.update("a1", TaskChange::Finish(done))).expect("update");
    block(store.insert(of("a3", "alice"))).expect("a1 finished: its room is reclaimed");
    assert_eq!(block(store.get("a1")), Ok(None));
    assert!(block(store.get("a2")).expect("get").is_some());

    let full = InMemoryTaskStore::new(2);
    block(full.insert(of("w", "x"))).expect("room");
    block(full.insert(of("f", "y"))).expect("room");
    block(full.update("f", TaskChange::Finish(TaskState::Cancelled))).expect("update");
    block(full.insert(of("n", "z"))).expect("the finished task made room");
    assert!(
        block(full.get("w")).expect("get").is_some(),
        "working tasks stay"
    );
}

#[test]
fn anonymous_clients_each_have_a_quota_by_address() {
    let store = InMemoryTaskStore::new(10).with_owner_quota(1);
    let ttl = Duration::from_secs(60);
    let from = |id: &str, address: Option<&str>| {
        let mut record = TaskRecord::working(id.into(), "t".into(), ttl);
        record.counted_as = address.map(|a| format!("addr:{a}"));
        record
    };
    block(store.insert(from("a", Some("10.0.0.1")))).expect("room");
    assert!(block(store.insert(from("b", Some("10.0.0.1")))).is_err());
    block(store.insert(from("c", Some("10.0.0.2")))).expect("another address");
    block(store.insert(from("d", None))).expect("nothing to tell apart: one quota");
    assert!(block(store.insert(from("e", None))).is_err());
    let mut named = from("f", None);
    named.owner = Some("sub:alice".into());
    assert_eq!(named.quota_key(), Some("sub:alice"), "the owner counts");
}
