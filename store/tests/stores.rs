//! Each store against a real server: the machine's Redis and PostgreSQL
//! (`TOOLMETADATA_TEST_REDIS`, `TOOLMETADATA_TEST_POSTGRES` to point
//! elsewhere), and, for outages, instances of their own. A missing service
//! fails the test: it says how to start one.
#![cfg(all(feature = "redis", feature = "postgres"))]

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{clean, redis_url, urls};
use serde_json::json;
use toolmetadata::server::store::{
    LimitStore, ReplayStore, SessionState, SessionStore, StoreError, TaskChange, TaskRecord,
    TaskState, TaskStore,
};
use toolmetadata_store::{ConnectError, Options, Store, connect};

/// A namespace of its own per test, so tests running at once never meet.
fn namespace() -> String {
    format!("t{}", uuid_like())
}

fn uuid_like() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!(
        "{}_{}_{nanos}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// Two connections to the same store and namespace: two instances.
async fn pair(url: &str, options: Options) -> (Arc<Store>, Arc<Store>) {
    let a = connect(url, options.clone()).await.unwrap_or_else(|e| {
        panic!("{e}: these tests need Redis on 127.0.0.1:6379 and PostgreSQL on 127.0.0.1:5432 (database `test`, trust auth)")
    });
    let b = connect(url, options).await.expect("second connection");
    (a, b)
}

fn working(id: &str, ttl: Duration) -> TaskRecord {
    TaskRecord::working(id.to_owned(), "tool".to_owned(), ttl)
}

/// A working task of a minute, owned by `owner`.
fn of(id: &str, owner: &str) -> TaskRecord {
    let mut record = working(id, Duration::from_secs(60));
    record.owner = Some(owner.to_owned());
    record
}

fn now_ms() -> u64 {
    u64::try_from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("clock")
            .as_millis(),
    )
    .expect("ms")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_expire_with_their_ttl_and_the_bound_holds() {
    for url in urls() {
        let ns = namespace();
        let (store, other) = pair(&url, Options::default().namespace(&ns).max_tasks(2)).await;
        store
            .insert(working("short", Duration::from_millis(300)))
            .await
            .expect("insert");
        let mut owned = working("long", Duration::from_secs(60));
        owned.owner = Some("alice".into());
        store.insert(owned.clone()).await.expect("insert");
        assert_eq!(other.get("long").await.expect("get"), Some(owned), "{url}");
        assert!(other.get("short").await.expect("get").is_some(), "{url}");
        assert_eq!(
            other
                .insert(working("third", Duration::from_secs(60)))
                .await,
            Err(StoreError::Full {
                of: "tasks",
                max: 2
            }),
            "{url}"
        );
        tokio::time::sleep(Duration::from_millis(700)).await;
        assert_eq!(other.get("short").await.expect("get"), None, "{url}");
        assert_eq!(
            other
                .update("short", TaskChange::StatusMessage("x".into()))
                .await,
            Ok(None),
            "{url}"
        );
        other
            .insert(working("third", Duration::from_secs(60)))
            .await
            .unwrap_or_else(|e| panic!("{url}: the expired task made room: {e}"));
        assert_eq!(store.get(&"x".repeat(10_000)).await, Ok(None), "{url}");
        clean(&url, &ns).await;
    }
}

/// A full quota, or a full store, first gives up its oldest finished task;
/// working tasks are never reclaimed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn finished_tasks_make_room_first() {
    for url in urls() {
        let ns = namespace();
        let options = Options::default()
            .namespace(&ns)
            .max_tasks(3)
            .max_tasks_per_owner(2);
        let (store, other) = pair(&url, options).await;
        let done = || {
            TaskChange::Finish(TaskState::Completed {
                result: json!({"content": [{"type": "text", "text": "\"status\":\"working\""}]}),
            })
        };
        store.insert(of("a1", "sub:alice")).await.expect("room");
        other.insert(of("a2", "sub:alice")).await.expect("room");
        other.update("a1", done()).await.expect("finish a1");
        store
            .insert(of("a3", "sub:alice"))
            .await
            .unwrap_or_else(|e| panic!("{url}: alice's finished task made room: {e}"));
        assert_eq!(other.get("a1").await, Ok(None), "{url}");
        assert!(
            other.get("a2").await.expect("get").is_some(),
            "{url}: working stays"
        );
        assert!(
            matches!(
                store.insert(of("a4", "sub:alice")).await,
                Err(StoreError::Full { max: 2, .. })
            ),
            "{url}: nothing of alice's is finished now"
        );
        // The store is full (a2, a3, b1); a finished task of anyone goes.
        store.insert(of("b1", "sub:bob")).await.expect("room");
        assert!(
            matches!(
                other.insert(of("c1", "sub:carol")).await,
                Err(StoreError::Full { max: 3, .. })
            ),
            "{url}: every task is working"
        );
        store
            .update("b1", TaskChange::Finish(TaskState::Cancelled))
            .await
            .expect("cancel b1");
        other
            .insert(of("c1", "sub:carol"))
            .await
            .unwrap_or_else(|e| panic!("{url}: bob's finished task made room: {e}"));
        assert_eq!(store.get("b1").await, Ok(None), "{url}");
        clean(&url, &ns).await;

        // An expired task makes no room: the live finished one is taken.
        let ns = namespace();
        let options = Options::default()
            .namespace(&ns)
            .max_tasks(10)
            .max_tasks_per_owner(2);
        let (store, other) = pair(&url, options).await;
        let mut short = of("e1", "sub:erin");
        short.ttl_ms = 300;
        short.expires_at_ms = short.expires_at_ms - 60_000 + 300;
        store.insert(short).await.expect("room");
        store.update("e1", done()).await.expect("finish e1");
        tokio::time::sleep(Duration::from_millis(500)).await;
        store.insert(of("e2", "sub:erin")).await.expect("room");
        other.insert(of("e3", "sub:erin")).await.expect("room");
        other.update("e3", done()).await.expect("finish e3");
        store
            .insert(of("e4", "sub:erin"))
            .await
            .unwrap_or_else(|e| panic!("{url}: e3 made room, not the expired e1: {e}"));
        assert_eq!(other.get("e3").await, Ok(None), "{url}");
        clean(&url, &ns).await;
    }
}

/// One principal cannot fill the store: its quota refuses it, and others,
/// callers without a principal among them, still get room.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_owner_has_a_quota() {
    for url in urls() {
        let ns = namespace();
        let options = Options::default()
            .namespace(&ns)
            .max_tasks(10)
            .max_tasks_per_owner(2);
        let (store, other) = pair(&url, options).await;
        let of = |id: &str, owner: Option<&str>| {
            let mut record = working(id, Duration::from_secs(60));
            record.owner = owner.map(str::to_owned);
            record
        };
        store
            .insert(of("a1", Some("sub:alice")))
            .await
            .expect("room");
        other
            .insert(of("a2", Some("sub:alice")))
            .await
            .expect("room");
        assert_eq!(
            store.insert(of("a3", Some("sub:alice"))).await,
            Err(StoreError::Full {
                of: "tasks for one principal",
                max: 2
            }),
            "{url}"
        );
        other
            .insert(of("b1", Some("sub:bob")))
            .await
            .expect("bob has room");
        store
            .insert(of("n1", None))
            .await
            .expect("anonymous has room");
        store
            .insert(of("n2", None))
            .await
            .expect("anonymous has room");
        assert!(
            matches!(
                other.insert(of("n3", None)).await,
                Err(StoreError::Full { max: 2, .. })
            ),
            "{url}: callers without a principal share one quota"
        );
        // Anonymous callers told apart by their address have one each,
        // apart from the principal whose name they are counted under.
        let from = |id: &str, address: &str| {
            let mut record = of(id, None);
            record.counted_as = Some(format!("addr:{address}"));
            record
        };
        store.insert(from("m1", "10.0.0.1")).await.expect("room");
        other.insert(from("m2", "10.0.0.1")).await.expect("room");
        assert!(
            matches!(
                store.insert(from("m3", "10.0.0.1")).await,
                Err(StoreError::Full { max: 2, .. })
            ),
            "{url}: one address has its quota"
        );
        other
            .insert(from("c1", "10.0.0.2"))
            .await
            .expect("another address has room");
        clean(&url, &ns).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lapsed_lease_fails_the_task_and_a_renewed_one_holds() {
    for url in urls() {
        let ns = namespace();
        let (store, other) = pair(&url, Options::default().namespace(&ns)).await;
        let mut task = working("t", Duration::from_secs(60));
        task.lease_until_ms = Some(now_ms() + 400);
        store.insert(task).await.expect("insert");
        let renewed = store
            .update(
                "t",
                TaskChange::Renew {
                    until_ms: now_ms() + 60_000,
                },
            )
            .await
            .expect("renew")
            .expect("kept");
        assert_eq!(renewed.state, TaskState::Working);
        tokio::time::sleep(Duration::from_millis(600)).await;
        let seen = other
            .update("t", TaskChange::FailIfOrphaned)
            .await
            .expect("update")
            .expect("kept");
        assert_eq!(seen.state, TaskState::Working, "{url}: the renewal holds");

        store
            .update(
                "t",
                TaskChange::Renew {
                    until_ms: now_ms() + 300,
                },
            )
            .await
            .expect("renew");
        tokio::time::sleep(Duration::from_millis(500)).await;
        let seen = other.get("t").await.expect("get").expect("kept");
        assert!(seen.is_orphaned(), "{url}");
        let failed = other
            .update("t", TaskChange::FailIfOrphaned)
            .await
            .expect("update")
            .expect("kept");
        assert!(
            matches!(failed.state, TaskState::Failed { .. }),
            "{url}: {failed:?}"
        );
        assert_eq!(store.get("t").await.expect("get"), Some(failed), "{url}");
        clean(&url, &ns).await;
    }
}

/// What a task's handler asks, recorded by the instance running it, is
/// answered through another (`tasks/update` may land anywhere): the answer
/// moves from the requests to the responses, an answer to nothing asked is
/// ignored, and the handler's taking it leaves the record clean.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_question_is_answered_through_another_instance() {
    for url in urls() {
        let ns = namespace();
        let (runner, front) = pair(&url, Options::default().namespace(&ns)).await;
        runner
            .insert(working("q", Duration::from_secs(60)))
            .await
            .expect("insert");
        for key in ["a", "b"] {
            runner
                .update(
                    "q",
                    TaskChange::Ask {
                        key: key.into(),
                        request: serde_json::json!({"method": "elicitation/create", "params": {}}),
                    },
                )
                .await
                .expect("ask");
        }
        let seen = front.get("q").await.expect("get").expect("kept");
        assert_eq!(
            seen.input_requests.keys().collect::<Vec<_>>(),
            ["a", "b"],
            "{url}"
        );
        let answers = [
            ("a".to_owned(), serde_json::json!({"action": "accept"})),
            (
                "planted".to_owned(),
                serde_json::json!({"action": "accept"}),
            ),
        ];
        front
            .update("q", TaskChange::Answer(answers.into_iter().collect()))
            .await
            .expect("answer");
        let seen = runner.get("q").await.expect("get").expect("kept");
        assert_eq!(
            seen.input_requests.keys().collect::<Vec<_>>(),
            ["b"],
            "{url}"
        );
        assert_eq!(
            seen.input_responses.keys().collect::<Vec<_>>(),
            ["a"],
            "{url}: only what was asked is answered"
        );
        runner
            .update("q", TaskChange::Take { key: "a".into() })
            .await
            .expect("take");
        let done = runner
            .update("q", TaskChange::Finish(TaskState::Cancelled))
            .await
            .expect("finish")
            .expect("kept");
        assert!(
            done.input_requests.is_empty() && done.input_responses.is_empty(),
            "{url}: {done:?}"
        );
        clean(&url, &ns).await;
    }
}

/// Two instances race to end the same task many times over: one end wins,
/// and every reader sees the same one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_updates_are_atomic_and_terminal_is_final() {
    for url in urls() {
        let ns = namespace();
        let (a, b) = pair(&url, Options::default().namespace(&ns)).await;
        for round in 0..10 {
            let id = format!("race-{round}");
            a.insert(working(&id, Duration::from_secs(60)))
                .await
                .expect("insert");
            let done = TaskState::Completed {
                result: json!({"content": [], "round": round}),
            };
            let mut racers = Vec::new();
            for i in 0..8 {
                let store = if i % 2 == 0 { a.clone() } else { b.clone() };
                let (id, done) = (id.clone(), done.clone());
                racers.push(tokio::spawn(async move {
                    let change = match i % 4 {
                        0 => TaskChange::Finish(done),
                        1 => TaskChange::Finish(TaskState::Cancelled),
                        _ => TaskChange::StatusMessage(format!("step {i}")),
                    };
                    store.update(&id, change).await
                }));
            }
            for racer in racers {
                racer.await.expect("join").expect("update");
            }
            let (x, y) = (
                a.get(&id).await.expect("get").expect("kept"),
                b.get(&id).await.expect("get").expect("kept"),
            );
            assert_eq!(x, y, "{url}");
            assert!(x.state.is_terminal(), "{url}: {x:?}");
            let after = a
                .update(&id, TaskChange::Finish(TaskState::Working))
                .await
                .expect("update")
                .expect("kept");
            assert_eq!(after.state, x.state, "{url}: terminal is final");
        }
        clean(&url, &ns).await;
    }
}

/// The same retry reaches two instances at once, many times over: exactly
/// one runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_state_is_used_once_under_concurrency() {
    for url in urls() {
        let ns = namespace();
        let (a, b) = pair(&url, Options::default().namespace(&ns)).await;
        for round in 0..5 {
            let fingerprint = format!("{:064x}", round);
            let mut racers = Vec::new();
            for i in 0..16 {
                let store = if i % 2 == 0 { a.clone() } else { b.clone() };
                let fingerprint = fingerprint.clone();
                racers.push(tokio::spawn(async move {
                    store.first_use(&fingerprint, now_ms() + 60_000).await
                }));
            }
            let mut firsts = 0;
            for racer in racers {
                if racer.await.expect("join").expect("first_use") {
                    firsts += 1;
                }
            }
            assert_eq!(firsts, 1, "{url}: round {round}");
        }
        // An expired marker no longer counts: its state no longer opens.
        assert!(a.first_use("short", now_ms() + 200).await.expect("use"));
        tokio::time::sleep(Duration::from_millis(400)).await;
        assert!(
            b.first_use("short", now_ms() + 60_000).await.expect("use"),
            "{url}"
        );
        assert!(
            !a.first_use("short", now_ms() + 60_000).await.expect("use"),
            "{url}"
        );
        clean(&url, &ns).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_round_trip_and_expire() {
    let params: rmcp::model::InitializeRequestParams = serde_json::from_value(json!({
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}
    }))
    .expect("params");
    for url in urls() {
        let ns = namespace();
        let options = Options::default()
            .namespace(&ns)
            .session_ttl(Duration::from_millis(400));
        let (a, b) = pair(&url, options).await;
        a.store("s1", &SessionState::new(params.clone()))
            .await
            .expect("store");
        let loaded = b.load("s1").await.expect("load").expect("kept");
        assert_eq!(loaded.initialize_params.client_info.name, "test", "{url}");
        assert!(b.load("unknown").await.expect("load").is_none());
        b.delete("s1").await.expect("delete");
        assert!(a.load("s1").await.expect("load").is_none(), "{url}");
        a.store("s2", &SessionState::new(params.clone()))
            .await
            .expect("store");
        tokio::time::sleep(Duration::from_millis(600)).await;
        assert!(
            a.load("s2").await.expect("load").is_none(),
            "{url}: expired"
        );
        clean(&url, &ns).await;
    }
}

#[tokio::test]
async fn bad_urls_and_namespaces_are_refused_clearly() {
    let e = connect("memcached://x", Options::default())
        .await
        .expect_err("scheme");
    assert!(matches!(e, ConnectError::Invalid(_)), "{e:?}");
    assert!(
        e.to_string().contains("expected redis:// or postgres://"),
        "{e}"
    );
    let e = connect(&redis_url(), Options::default().namespace("a;DROP TABLE"))
        .await
        .expect_err("namespace");
    assert!(matches!(e, ConnectError::Invalid(_)), "{e:?}");
    assert!(e.to_string().contains("namespace"), "{e}");
    let started = Instant::now();
    let e = connect(
        "postgres://postgres:secret@127.0.0.1:1/test",
        Options::default().timeout(Duration::from_millis(500)),
    )
    .await
    .expect_err("nobody listens");
    assert!(matches!(e, ConnectError::Unreachable(_)), "{e:?}");
    assert!(started.elapsed() < Duration::from_secs(3));
    assert!(e.to_string().contains("postgres at 127.0.0.1:1"), "{e}");
    assert!(!e.to_string().contains("secret"), "{e}");
}

/// A rate is counted across instances: of many calls at once through two
/// connections, exactly the allowed number pass; a refusal says how long
/// until the oldest leaves the window, and after that one more passes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rate_is_the_fleets_and_says_when_to_retry() {
    for url in urls() {
        let ns = namespace();
        let (a, b) = pair(&url, Options::default().namespace(&ns)).await;
        let mut racers = Vec::new();
        for i in 0..20 {
            let store = if i % 2 == 0 { a.clone() } else { b.clone() };
            racers.push(tokio::spawn(async move {
                store.take_rate("k", 5, 60_000).await
            }));
        }
        let mut admitted = 0;
        for racer in racers {
            match racer.await.expect("join").expect("take_rate") {
                None => admitted += 1,
                Some(wait) => assert!(wait > 0 && wait <= 60_000, "{url}: {wait}"),
            }
        }
        assert_eq!(admitted, 5, "{url}");
        // Another key has its own window.
        assert_eq!(a.take_rate("other", 5, 60_000).await.expect("rate"), None);

        // A short window: full, then open again once its oldest has left.
        assert_eq!(a.take_rate("short", 2, 600).await.expect("rate"), None);
        assert_eq!(b.take_rate("short", 2, 600).await.expect("rate"), None);
        let wait = a
            .take_rate("short", 2, 600)
            .await
            .expect("rate")
            .unwrap_or_else(|| panic!("{url}: the third in the window is refused"));
        assert!(wait <= 600, "{url}: {wait}");
        tokio::time::sleep(Duration::from_millis(wait + 50)).await;
        assert_eq!(
            b.take_rate("short", 2, 600).await.expect("rate"),
            None,
            "{url}"
        );
        clean(&url, &ns).await;
    }
}

/// Slots of concurrency: of many holders at once, exactly `max` get one;
/// a holder renews its own even when all are taken, and the renewal moves
/// its lease; a released slot is free at once, a lapsed lease once it has
/// run out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slots_are_shared_leased_and_given_back() {
    for url in urls() {
        let ns = namespace();
        let (a, b) = pair(&url, Options::default().namespace(&ns)).await;
        let mut racers = Vec::new();
        for i in 0..16 {
            let store = if i % 2 == 0 { a.clone() } else { b.clone() };
            racers.push(tokio::spawn(async move {
                let holder = format!("h{i}");
                let held = store.acquire("tool", &holder, 3, 60_000).await;
                (holder, held)
            }));
        }
        let mut holders = Vec::new();
        for racer in racers {
            let (holder, held) = racer.await.expect("join");
            if held.expect("acquire") {
                holders.push(holder);
            }
        }
        assert_eq!(holders.len(), 3, "{url}: {holders:?}");
        assert!(
            b.acquire("tool", &holders[0], 3, 60_000)
                .await
                .expect("renew"),
            "{url}: a holder renews its own slot when all are taken"
        );
        assert!(!a.acquire("tool", "late", 3, 60_000).await.expect("acquire"));
        b.release("tool", &holders[1]).await.expect("release");
        assert!(
            a.acquire("tool", "late", 3, 60_000).await.expect("acquire"),
            "{url}: a released slot is free"
        );
        b.release("tool", "nobody")
            .await
            .expect("releasing nothing");

        // An instance that died stops renewing: its slot lapses. One that
        // renews keeps it past its first lease.
        assert!(a.acquire("once", "dead", 1, 1_000).await.expect("acquire"));
        assert!(
            !b.acquire("once", "alive", 1, 60_000)
                .await
                .expect("acquire")
        );
        assert!(
            a.acquire("kept", "renewer", 1, 1_000)
                .await
                .expect("acquire")
        );
        assert!(
            a.acquire("kept", "renewer", 1, 60_000)
                .await
                .expect("renew")
        );
        tokio::time::sleep(Duration::from_millis(1_300)).await;
        assert!(
            b.acquire("once", "alive", 1, 60_000)
                .await
                .expect("acquire"),
            "{url}: a lapsed slot is free"
        );
        assert!(
            !b.acquire("kept", "other", 1, 60_000)
                .await
                .expect("acquire"),
            "{url}: a renewed lease holds past its first end"
        );
        clean(&url, &ns).await;
    }
}

/// Findings 1 and 3 of the third red team: on PostgreSQL a finished result
/// holding U+0000 made every reclaim fail, so new tasks failed as "store
/// unavailable" (not "full"), and a NUL in an id was a store failure; on
/// every store, a full store deleted another owner's unread result to make
/// room for a flooder.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn any_result_is_kept_and_a_flooder_never_takes_anothers_unread_one() {
    let odd = format!(
        "nul \u{0000} bell \u{0007} del \u{007f} bom \u{feff} emoji \u{1f600} quote \" \\ {}",
        "x".repeat(10 << 20)
    );
    let result = json!({"content": [{"type": "text", "text": odd}]});
    for url in urls() {
        let ns = namespace();
        let options = Options::default()
            .namespace(&ns)
            .max_tasks(3)
            .max_tasks_per_owner(2);
        let (store, other) = pair(&url, options).await;
        store.insert(of("a1", "sub:alice")).await.expect("room");
        let finish = TaskChange::Finish(TaskState::Completed {
            result: result.clone(),
        });
        store
            .update("a1", finish)
            .await
            .unwrap_or_else(|e| panic!("{url}: the odd result stored: {e}"));
        let read = other.get("a1").await.expect("get").expect("a1");
        assert!(
            read.state
                == TaskState::Completed {
                    result: result.clone()
                },
            "{url}: the result read back differs"
        );
        // Mallory and Trudy fill the store with work of their own.
        for (id, owner) in [
            ("m1", "sub:mallory"),
            ("m2", "sub:mallory"),
            ("t1", "sub:trudy"),
        ] {
            let inserted = store.insert(of(id, owner)).await;
            if id == "t1" {
                assert_eq!(
                    inserted,
                    Err(StoreError::Full {
                        of: "tasks",
                        max: 3
                    }),
                    "{url}: Alice's unread result is not Trudy's to take"
                );
            } else {
                inserted.unwrap_or_else(|e| panic!("{url}: {id}: {e}"));
            }
        }
        // Mallory's own finished task makes room for Mallory.
        other
            .update(
                "m1",
                TaskChange::Finish(TaskState::Completed { result: json!({}) }),
            )
            .await
            .expect("finish m1");
        other
            .insert(of("m3", "sub:mallory"))
            .await
            .unwrap_or_else(|e| panic!("{url}: mallory's own finished task made room: {e}"));
        assert_eq!(store.get("m1").await, Ok(None), "{url}");
        assert_eq!(
            other.insert(of("t1", "sub:trudy")).await,
            Err(StoreError::Full {
                of: "tasks",
                max: 3
            }),
            "{url}: still nothing Trudy may take"
        );
        assert!(other.get("a1").await.expect("get").is_some(), "{url}");
        // Once Alice has her result, it may go.
        store
            .update("a1", TaskChange::Delivered)
            .await
            .expect("delivered");
        other
            .insert(of("t1", "sub:trudy"))
            .await
            .unwrap_or_else(|e| panic!("{url}: alice's delivered result made room: {e}"));
        assert_eq!(store.get("a1").await, Ok(None), "{url}");
        // Ids a store cannot hold are unknown, not failures.
        for id in ["a\u{0000}1", "\u{0000}", &"y".repeat(300)] {
            assert_eq!(store.get(id).await, Ok(None), "{url}: {id:?}");
            assert_eq!(
                store.update(id, TaskChange::Delivered).await,
                Ok(None),
                "{url}: {id:?}"
            );
        }
        clean(&url, &ns).await;
    }
}

/// Finding 7 of the third red team: on Redis the marker of a used
/// `requestState` (and a task's record) expired at an instant on Redis's
/// clock, though the state's expiry is checked on the instance's: a Redis
/// whose clock runs ahead let a used state be used again, and dropped
/// tasks early. Both now live for the time they have left, by the
/// instance's clock.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_used_state_stays_used_whatever_the_clock_of_redis() {
    let redis = toolmetadata_tests::stores::OwnRedis::start_with_clock_ahead(3600);
    let ahead = redis.clock().saturating_sub(now_ms() / 1000);
    assert!(ahead >= 3500, "its clock is {ahead} s ahead, not an hour");
    let store = connect(&redis.url(), Options::default())
        .await
        .expect("our redis-server, an hour ahead");
    let fingerprint = format!("{:064x}", 7);
    assert!(
        store
            .first_use(&fingerprint, now_ms() + 60_000)
            .await
            .expect("use")
    );
    store
        .insert(working("t", Duration::from_secs(60)))
        .await
        .expect("room");
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(
        !store
            .first_use(&fingerprint, now_ms() + 60_000)
            .await
            .expect("use"),
        "a state used a moment ago was used again"
    );
    assert!(
        store.get("t").await.expect("get").is_some(),
        "a task of a minute was gone at once"
    );
}
