//! Stores of a test's own, to stop and start without touching the
//! machine's: `redis-server` on a free port, and a PostgreSQL cluster from
//! `initdb` in a temporary directory, run as the `postgres` user
//! (PostgreSQL refuses to run as root). Both from Debian's packages. And
//! the `sleep` processes a server runs, to see a cancellation reach them.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

/// A free TCP port on loopback (free when asked).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port()
}

/// A Redis server of the test's own; stopped when dropped.
#[derive(Debug)]
pub struct OwnRedis {
    /// Where it listens.
    pub port: u16,
    child: Option<Child>,
    /// A library preloaded into it (its clock moved), and where it was built.
    preload: Option<(tempfile::TempDir, PathBuf)>,
}

/// A realtime clock moved `OFFSET` seconds, for a process it is preloaded
/// into (`LD_PRELOAD`).
const CLOCK_AHEAD: &str = include_str!("clock_ahead.c");

impl OwnRedis {
    /// Starts one on a free port (keeping nothing on disk).
    pub fn start() -> Self {
        OwnRedis::with_preload(None)
    }

    /// Starts one whose clock runs `seconds` ahead of the machine's, as a
    /// store on a host whose clock is off: a small library built here with
    /// `cc` and preloaded into it.
    pub fn start_with_clock_ahead(seconds: u32) -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let (source, library) = (dir.path().join("clock.c"), dir.path().join("clock.so"));
        std::fs::write(&source, CLOCK_AHEAD).expect("write");
        run(Command::new("cc")
            .args(["-shared", "-fPIC", "-O2"])
            .arg(format!("-DOFFSET={seconds}"))
            .arg("-o")
            .arg(&library)
            .arg(&source));
        OwnRedis::with_preload(Some((dir, library)))
    }

    fn with_preload(preload: Option<(tempfile::TempDir, PathBuf)>) -> Self {
        let mut redis = OwnRedis {
            port: free_port(),
            child: None,
            preload,
        };
        redis.restart();
        redis
    }

    /// Its clock, in Unix seconds (`TIME`, through `redis-cli`).
    pub fn clock(&self) -> u64 {
        let out = Command::new("redis-cli")
            .args(["-p", &self.port.to_string(), "time"])
            .output()
            .expect("redis-cli");
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .next()
            .and_then(|l| l.trim().parse().ok())
            .expect("redis's TIME")
    }

    /// Its URL.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    /// Kills it (SIGKILL): every connection drops at once.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Freezes it (SIGSTOP): connections stay open and nothing answers, as
    /// in a network partition; what it holds is kept.
    pub fn pause(&self) {
        self.signal("-STOP");
    }

    /// Lets a paused one go on (SIGCONT).
    pub fn resume(&self) {
        self.signal("-CONT");
    }

    fn signal(&self, which: &str) {
        let pid = self.child.as_ref().expect("running").id().to_string();
        let sent = Command::new("kill")
            .args([which, &pid])
            .status()
            .expect("kill");
        assert!(sent.success(), "kill {which} {pid}");
    }

    /// Starts it again on the same port, empty.
    pub fn restart(&mut self) {
        self.stop();
        let port = self.port.to_string();
        let mut command = Command::new("redis-server");
        if let Some((_, library)) = &self.preload {
            command.env("LD_PRELOAD", library);
        }
        let child = command
            .args([
                "--port",
                &port,
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
        self.child = Some(child);
        wait_for_port(self.port);
    }
}

impl Drop for OwnRedis {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A PostgreSQL cluster of the test's own; stopped when dropped.
#[derive(Debug)]
pub struct OwnPostgres {
    /// Where it listens.
    pub port: u16,
    bin: PathBuf,
    data: PathBuf,
    dir: tempfile::TempDir,
}

impl OwnPostgres {
    /// `initdb` (trust auth, user `postgres`) and start, on a free port.
    /// Blocking: call it from `spawn_blocking` in async tests.
    pub fn start() -> Self {
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
            run(Command::new("chown").arg("postgres:postgres").arg(path));
        }
        run(as_postgres(&bin.join("initdb"))
            .args(["-A", "trust", "-U", "postgres", "-D"])
            .arg(&data));
        let cluster = OwnPostgres {
            port: free_port(),
            bin,
            data,
            dir,
        };
        cluster.ctl(&["start", "-l", "/dev/null"]);
        cluster
    }

    /// Its URL (database `postgres`).
    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    /// Stops it at once (`-m immediate`, as a crash would). Blocking.
    pub fn stop(&self) {
        self.ctl(&["-m", "immediate", "stop"]);
    }

    /// Starts it again, with what it had committed. Blocking.
    pub fn restart(&self) {
        self.ctl(&["start", "-l", "/dev/null"]);
    }

    fn ctl(&self, args: &[&str]) {
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1",
            self.port,
            self.dir.path().display()
        );
        run(as_postgres(&self.bin.join("pg_ctl"))
            .arg("-D")
            .arg(&self.data)
            .args(["-o", &options, "-w", "-t", "30"])
            .args(args));
    }
}

impl Drop for OwnPostgres {
    fn drop(&mut self) {
        let _ = as_postgres(&self.bin.join("pg_ctl"))
            .arg("-D")
            .arg(&self.data)
            .args(["-m", "immediate", "stop"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

fn as_postgres(program: &std::path::Path) -> Command {
    let mut command = Command::new("runuser");
    command.args(["-u", "postgres", "--"]).arg(program);
    command
}

fn run(command: &mut Command) {
    let status = command.stdout(Stdio::null()).status().expect("run");
    assert!(status.success(), "{command:?}: {status}");
}

fn wait_for_port(port: u16) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            std::time::Instant::now() < deadline,
            "nothing listens on {port}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// The `sleep` processes still running (zombies not counted) whose parent
/// is `parent` (Linux `/proc`).
pub fn sleeping_children(parent: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            // `pid (comm) state ppid …`; comm may hold spaces, so split after `)`.
            let Some((head, rest)) = stat.rsplit_once(") ") else {
                return false;
            };
            let mut fields = rest.split_whitespace();
            // A zombie (`Z`, or `X` while it goes) was killed and runs no
            // more: it waits only for its parent to reap it, which tokio
            // does when the next SIGCHLD comes.
            let alive = fields
                .next()
                .is_some_and(|state| !matches!(state, "Z" | "X"));
            let ppid = fields.next().and_then(|p| p.parse::<u32>().ok());
            head.ends_with("(sleep") && alive && ppid == Some(parent)
        })
        .collect()
}

/// Waits (at most 10 s) until one of `parents` runs a `sleep`
/// (`running`), or until none does.
pub async fn wait_for_sleep(parents: &[u32], running: bool) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while parents.iter().all(|&p| sleeping_children(p).is_empty()) == running {
        assert!(
            std::time::Instant::now() < deadline,
            "{}",
            if running {
                "sleep never started"
            } else {
                "the cancelled command still runs"
            }
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}
