//! A store that goes away and comes back: requests that need it fail within
//! the timeout, naming it, and service resumes by itself. Each test runs a
//! store of its own (the machine's are never stopped): `redis-server` on a
//! free port, and PostgreSQL from `initdb` in a temporary directory, run as
//! the `postgres` user (PostgreSQL refuses to run as root).
#![cfg(all(feature = "redis", feature = "postgres"))]

use std::time::{Duration, Instant};

use toolmetadata::server::store::{StoreError, TaskRecord, TaskStore};
use toolmetadata_store::{Options, connect};
use toolmetadata_tests::stores::{OwnPostgres, OwnRedis};

fn working(id: &str) -> TaskRecord {
    TaskRecord::working(id.to_owned(), "tool".to_owned(), Duration::from_secs(600))
}

/// Tries `op` until it succeeds, for at most `within`.
async fn eventually<T, F, Fut>(within: Duration, mut op: F) -> Result<T, StoreError>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, StoreError>>,
{
    let started = Instant::now();
    loop {
        match op().await {
            Ok(value) => return Ok(value),
            Err(e) if started.elapsed() > within => return Err(e),
            Err(_) => tokio::time::sleep(Duration::from_millis(200)).await,
        }
    }
}

/// An outage seen from a store: an error naming it, within the bound.
async fn assert_unavailable(store: &dyn TaskStore, names: &str) {
    let started = Instant::now();
    let e = store.get("anything").await.expect_err("the store is down");
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    let StoreError::Unavailable(why) = &e else {
        panic!("{e:?}")
    };
    assert!(why.contains(names), "{why}");
    let e = store.insert(working("during")).await.expect_err("down");
    assert!(e.to_string().contains(names), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_going_away_is_bounded_and_service_resumes() {
    let mut server = OwnRedis::start();
    let (port, url) = (server.port, server.url());
    let options = Options::default().timeout(Duration::from_millis(500));
    let store = eventually(Duration::from_secs(10), || async {
        connect(&url, options.clone())
            .await
            .map_err(|e| StoreError::Unavailable(e.to_string()))
    })
    .await
    .expect("our redis-server");
    store.insert(working("before")).await.expect("insert");

    server.stop();
    assert_unavailable(store.as_ref(), &format!("redis at 127.0.0.1:{port}")).await;

    server.restart();
    eventually(Duration::from_secs(15), || store.insert(working("after")))
        .await
        .expect("service resumes once the store is back");
    assert!(store.get("after").await.expect("get").is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_going_away_is_bounded_and_service_resumes() {
    let cluster = tokio::task::spawn_blocking(OwnPostgres::start)
        .await
        .expect("initdb and start");
    let url = cluster.url();
    let options = Options::default().timeout(Duration::from_millis(500));
    let store = connect(&url, options).await.expect("our PostgreSQL");
    store.insert(working("before")).await.expect("insert");

    let cluster = tokio::task::spawn_blocking(move || {
        cluster.stop();
        cluster
    })
    .await
    .expect("stop");
    assert_unavailable(
        store.as_ref(),
        &format!("postgres at 127.0.0.1:{}", cluster.port),
    )
    .await;

    let cluster = tokio::task::spawn_blocking(move || {
        cluster.restart();
        cluster
    })
    .await
    .expect("restart");
    eventually(Duration::from_secs(15), || store.insert(working("after")))
        .await
        .expect("service resumes once the store is back");
    // What was committed before the outage is still there.
    assert!(store.get("before").await.expect("get").is_some());
    drop(cluster);
}
