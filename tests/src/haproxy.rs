//! HAProxy (Debian's `haproxy` package) in front of servers, for the tests
//! of a deployment behind a balancer or a reverse proxy.

use std::net::SocketAddr;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::stores::free_port;

/// HAProxy running with a configuration of the test's; stopped when
/// dropped.
pub struct Haproxy {
    child: tokio::process::Child,
    /// Where clients connect.
    pub addr: SocketAddr,
    _config: tempfile::NamedTempFile,
}

impl Haproxy {
    /// HAProxy in `mode` (`http` or `tcp`) with `defaults` lines added,
    /// balancing round robin over `servers`, each with `server_options`
    /// (`send-proxy`, health checks…); `None`, the test skipped with a line
    /// saying why, when the machine has no HAProxy outside CI (see
    /// [`crate::has_all`]).
    pub async fn start(
        test: &str,
        mode: &str,
        defaults: &[&str],
        servers: &[SocketAddr],
        server_options: &str,
    ) -> Option<Haproxy> {
        Self::start_with_backend(test, mode, defaults, &[], servers, server_options).await
    }

    /// [`Haproxy::start`] with `backend` lines added to the backend (a
    /// stick table pinning each session to its instance…).
    pub async fn start_with_backend(
        test: &str,
        mode: &str,
        defaults: &[&str],
        backend: &[&str],
        servers: &[SocketAddr],
        server_options: &str,
    ) -> Option<Haproxy> {
        let installed = Command::new("haproxy")
            .arg("-v")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        let missing = if installed {
            Vec::new()
        } else {
            vec!["haproxy (apt-get install haproxy)".to_owned()]
        };
        if !crate::has_all(test, &missing) {
            return None;
        }
        let port = free_port();
        let mut config = format!(
            "global\n  maxconn 4096\n\
             defaults\n  mode {mode}\n  timeout connect 2s\n  timeout client 60s\n  timeout server 60s\n"
        );
        for line in defaults {
            config.push_str(&format!("  {line}\n"));
        }
        config.push_str(&format!(
            "frontend front\n  bind 127.0.0.1:{port}\n  default_backend servers\n\
             backend servers\n  balance roundrobin\n"
        ));
        for line in backend {
            config.push_str(&format!("  {line}\n"));
        }
        for (i, addr) in servers.iter().enumerate() {
            config.push_str(&format!("  server s{i} {addr} {server_options}\n"));
        }
        let file = tempfile::NamedTempFile::new().expect("config");
        std::fs::write(file.path(), config).expect("write config");
        let child = tokio::process::Command::new("haproxy")
            .arg("-db")
            .arg("-f")
            .arg(file.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("haproxy runs");
        let deadline = Instant::now() + Duration::from_secs(10);
        while tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_err()
        {
            assert!(Instant::now() < deadline, "haproxy never listened");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        Some(Haproxy {
            child,
            addr: SocketAddr::from(([127, 0, 0, 1], port)),
            _config: file,
        })
    }

    /// The MCP endpoint through it.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }
}

impl Drop for Haproxy {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
    }
}
