//! A store that goes away and comes back: requests that need it fail within
//! the timeout, naming it, and service resumes by itself. Each test runs a
//! store of its own (the machine's are never stopped): `redis-server` on a
//! free port, and PostgreSQL from `initdb` in a temporary directory, run as
//! the `postgres` user (PostgreSQL refuses to run as root).
#![cfg(all(feature = "redis", feature = "postgres"))]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use toolmetadata::server::store::{StoreError, TaskRecord, TaskStore};
use toolmetadata_store::{Options, connect};

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port()
}

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

struct Redis(Child);

impl Redis {
    fn start(port: u16) -> Self {
        let child = Command::new("redis-server")
            .args([
                "--port",
                &port.to_string(),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ])
            .stdout(Stdio::null())
            .spawn()
            .expect("redis-server (Debian's redis-server package)");
        Redis(child)
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_going_away_is_bounded_and_service_resumes() {
    let port = free_port();
    let server = Redis::start(port);
    let url = format!("redis://127.0.0.1:{port}");
    let options = Options::default().timeout(Duration::from_millis(500));
    let store = eventually(Duration::from_secs(10), || async {
        connect(&url, options.clone())
            .await
            .map_err(|e| StoreError::Unavailable(e.to_string()))
    })
    .await
    .expect("our redis-server");
    store.insert(working("before")).await.expect("insert");

    drop(server);
    assert_unavailable(store.as_ref(), &format!("redis at 127.0.0.1:{port}")).await;

    let _server = Redis::start(port);
    eventually(Duration::from_secs(15), || store.insert(working("after")))
        .await
        .expect("service resumes once the store is back");
    assert!(store.get("after").await.expect("get").is_some());
}

/// A PostgreSQL cluster of its own, in a temporary directory.
struct Postgres {
    bin: PathBuf,
    data: PathBuf,
    _dir: tempfile::TempDir,
    port: u16,
}

impl Postgres {
    fn init() -> Self {
        let bin = std::fs::read_dir("/usr/lib/postgresql")
            .expect("PostgreSQL (Debian's postgresql package)")
            .filter_map(Result::ok)
            .map(|e| e.path().join("bin"))
            .find(|p| p.join("initdb").exists())
            .expect("initdb");
        let dir = tempfile::tempdir().expect("tempdir");
        let data = dir.path().join("data");
        std::fs::create_dir(&data).expect("mkdir");
        for path in [dir.path(), data.as_path()] {
            as_postgres(
                Command::new("chown").args(["postgres:postgres", &path.display().to_string()]),
                false,
            );
        }
        let initdb = bin.join("initdb");
        as_postgres(
            Command::new("runuser")
                .args(["-u", "postgres", "--"])
                .arg(&initdb)
                .args(["-A", "trust", "-U", "postgres", "-D"])
                .arg(&data),
            true,
        );
        Postgres {
            bin,
            data,
            _dir: dir,
            port: free_port(),
        }
    }

    fn ctl(&self, args: &[&str]) {
        let socket_dir = self
            .data
            .parent()
            .unwrap_or(Path::new("/tmp"))
            .display()
            .to_string();
        let options = format!(
            "-p {} -k {socket_dir} -c listen_addresses=127.0.0.1",
            self.port
        );
        as_postgres(
            Command::new("runuser")
                .args(["-u", "postgres", "--"])
                .arg(self.bin.join("pg_ctl"))
                .arg("-D")
                .arg(&self.data)
                .args(["-o", &options, "-w", "-t", "30"])
                .args(args),
            true,
        );
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        let _ = Command::new("runuser")
            .args(["-u", "postgres", "--"])
            .arg(self.bin.join("pg_ctl"))
            .arg("-D")
            .arg(&self.data)
            .args(["-m", "immediate", "stop"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

fn as_postgres(command: &mut Command, quiet: bool) {
    if quiet {
        command.stdout(Stdio::null());
    }
    let status = command.status().expect("run");
    assert!(status.success(), "{command:?}: {status}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_going_away_is_bounded_and_service_resumes() {
    let cluster = tokio::task::spawn_blocking(|| {
        let cluster = Postgres::init();
        cluster.ctl(&["start", "-l", "/dev/null"]);
        cluster
    })
    .await
    .expect("initdb and start");
    let url = format!("postgres://postgres@127.0.0.1:{}/postgres", cluster.port);
    let options = Options::default().timeout(Duration::from_millis(500));
    let store = connect(&url, options).await.expect("our PostgreSQL");
    store.insert(working("before")).await.expect("insert");

    let cluster = tokio::task::spawn_blocking(move || {
        cluster.ctl(&["-m", "immediate", "stop"]);
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
        cluster.ctl(&["start", "-l", "/dev/null"]);
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
