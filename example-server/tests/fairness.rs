//! Issue 29, item 4: one client cannot take what the others need. Once 1,024
//! standalone SSE streams from one client held every connection, and any
//! client's new session could close another's active one. Now each client
//! (here, each loopback address: 127.0.0.1, .2 and .3 are three clients)
//! holds a share of the connections, the streams and the sessions, and the
//! others are served beside it, with their sessions intact. Behind a
//! reverse proxy named as trusted, each user is a client of its own.

use std::net::SocketAddr;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use toolmetadata_tests::haproxy::Haproxy;
use toolmetadata_tests::mcp::*;

const BIN: &str = env!("CARGO_BIN_EXE_example-server");

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
const LIST: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;

/// A client at one loopback address.
#[derive(Clone, Copy)]
struct Client {
    from: [u8; 4],
    server: SocketAddr,
}

impl Client {
    async fn connect(&self) -> TcpStream {
        let socket = TcpSocket::new_v4().expect("socket");
        socket
            .bind(SocketAddr::from((self.from, 0)))
            .expect("bind the client's address");
        socket.connect(self.server).await.expect("connect")
    }

    fn head(&self, method: &str, session: Option<&str>, extra: &str) -> String {
        let session = session
            .map(|id| format!("Mcp-Session-Id: {id}\r\nMcp-Protocol-Version: 2025-06-18\r\n"))
            .unwrap_or_default();
        format!(
            "{method} /mcp HTTP/1.1\r\nHost: {}\r\nAccept: application/json, text/event-stream\r\n{session}{extra}",
            self.server
        )
    }

    /// POSTs `body` on a connection of its own; the whole response.
    async fn post(&self, session: Option<&str>, body: &str) -> String {
        self.post_with(session, "", body).await
    }

    /// [`Self::post`] with `extra` header lines (each ending in CRLF).
    async fn post_with(&self, session: Option<&str>, extra: &str, body: &str) -> String {
        let mut stream = self.connect().await;
        let request = format!(
            "{}Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            self.head("POST", session, extra),
            body.len()
        );
        stream.write_all(request.as_bytes()).await.expect("write");
        let mut out = Vec::new();
        tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut out))
            .await
            .expect("an answer within 10 s")
            .expect("read");
        String::from_utf8_lossy(&out).into_owned()
    }

    /// A new session, initialized; `None` when the server refused it.
    async fn session(&self) -> Option<String> {
        let r = self.post(None, INITIALIZE).await;
        if status(&r) != "200" {
            assert_eq!(status(&r), "503", "{r}");
            return None;
        }
        let id = r.lines().find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.eq_ignore_ascii_case("mcp-session-id")
                .then(|| value.trim().to_owned())
        })?;
        let r = self.post(Some(&id), INITIALIZED).await;
        assert_eq!(status(&r), "202", "{r}");
        Some(id)
    }

    /// Opens the session's standalone stream: the status, and the
    /// connection, held open.
    async fn stream(&self, session: &str) -> (String, TcpStream) {
        let mut stream = self.connect().await;
        let request = format!("{}\r\n", self.head("GET", Some(session), ""));
        stream.write_all(request.as_bytes()).await.expect("write");
        let mut head = Vec::new();
        let mut byte = [0u8; 1];
        while !head.ends_with(b"\r\n\r\n") {
            let read = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut byte))
                .await
                .expect("a head within 10 s")
                .expect("read");
            if read == 0 {
                break;
            }
            head.push(byte[0]);
        }
        let head = String::from_utf8_lossy(&head).into_owned();
        (status(&head).to_owned(), stream)
    }
}

/// Whether the event stream answered on `stream` is still open: neither
/// the connection closed nor the chunked body ended.
async fn is_open(stream: &mut TcpStream) -> bool {
    let mut buf = [0u8; 4096];
    let mut last = Vec::new();
    loop {
        match tokio::time::timeout(Duration::from_millis(50), stream.read(&mut buf)).await {
            Err(_) => return !last.ends_with(b"\r\n0\r\n\r\n"),
            Ok(Ok(0) | Err(_)) => return false,
            Ok(Ok(n)) => {
                last.extend_from_slice(&buf[..n]);
                let keep = last.len().saturating_sub(16);
                last.drain(..keep);
            }
        }
    }
}

fn status(response: &str) -> &str {
    response.split(' ').nth(1).unwrap_or("")
}

fn address(url: &str) -> SocketAddr {
    url.trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .parse()
        .expect("address")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_streams_and_sessions_leaves_other_clients_served() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().display().to_string();
    let server = http_server(BIN, &["--root", &root]).await;
    let server = address(&server.url);
    let mallory = Client {
        from: [127, 0, 0, 1],
        server,
    };
    let alice = Client {
        from: [127, 0, 0, 2],
        server,
    };
    let before = alice.session().await.expect("alice's session");
    // One client asks for 1,024 sessions, each with its standalone stream.
    let mut held = Vec::new();
    let mut refused = 0;
    let mut over_share = 0;
    for _ in 0..1024 {
        let Some(session) = mallory.session().await else {
            refused += 1;
            continue;
        };
        let (status, stream) = mallory.stream(&session).await;
        match status.as_str() {
            "200" => held.push(stream),
            "429" => {
                refused += 1;
                over_share += 1;
            }
            // A session of its own closed by its newer ones.
            "404" => refused += 1,
            other => panic!("a stream answered {other}"),
        }
    }
    assert_eq!(held.len() + refused, 1024);
    // Streams of its sessions closed by its own newer ones ended; of the
    // rest, it holds no more than its share.
    let mut open = 0;
    for stream in &mut held {
        if is_open(stream).await {
            open += 1;
        }
    }
    assert!(open <= 16, "{open} streams held open by one client");
    assert!(
        over_share > 500,
        "{over_share} streams refused as over its share"
    );
    // Another client is served as if nothing happened: its session from
    // before the flood, a new session, and a stream.
    let r = alice.post(Some(&before), LIST).await;
    assert_eq!(status(&r), "200", "alice's first session: {r}");
    let after = alice.session().await.expect("a new session for alice");
    let (status_of, _stream) = alice.stream(&after).await;
    assert_eq!(status_of, "200");
    let r = alice.post(Some(&after), LIST).await;
    assert_eq!(status(&r), "200", "{r}");
    assert!(r.contains("read_file"), "{r}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_address_holds_its_share_of_connections() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().display().to_string();
    let server = http_server(
        BIN,
        &["--root", &root, "--max-connections-per-client", "20"],
    )
    .await;
    let server = address(&server.url);
    let mallory = Client {
        from: [127, 0, 0, 3],
        server,
    };
    let alice = Client {
        from: [127, 0, 0, 2],
        server,
    };
    // Connections that send nothing hold their slot until the header
    // timeout; past its share, the address is answered 503 at once.
    let mut idle = Vec::new();
    for _ in 0..20 {
        idle.push(mallory.connect().await);
    }
    // The server counts a connection when it accepts it.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let r = mallory.post(None, INITIALIZE).await;
    assert_eq!(status(&r), "503", "{r}");
    assert!(r.contains("share of connections"), "{r}");
    assert!(alice.session().await.is_some(), "another address is served");
    drop(idle);
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(mallory.session().await.is_some(), "slots come back");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_server_refuses_a_new_session_rather_than_close_an_active_one() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().display().to_string();
    let server = http_server(BIN, &["--root", &root, "--max-sessions", "3"]).await;
    let server = address(&server.url);
    let alice = Client {
        from: [127, 0, 0, 2],
        server,
    };
    let mallory = Client {
        from: [127, 0, 0, 3],
        server,
    };
    let mut sessions = Vec::new();
    for _ in 0..3 {
        sessions.push(alice.session().await.expect("alice"));
    }
    let r = mallory.post(None, INITIALIZE).await;
    assert_eq!(status(&r), "503", "{r}");
    assert!(r.contains("retry later"), "{r}");
    for id in &sessions {
        let r = alice.post(Some(id), LIST).await;
        assert_eq!(status(&r), "200", "{r}");
    }
    // Alice's own new session takes the place of her oldest.
    let newest = alice.session().await.expect("alice's fourth");
    let r = alice.post(Some(&sessions[0]), LIST).await;
    assert_eq!(status(&r), "404", "{r}");
    let r = alice.post(Some(&newest), LIST).await;
    assert_eq!(status(&r), "200", "{r}");
}

/// Finding 6 of the third red team: behind HAProxy or nginx every anonymous
/// user was one client, the proxy's address: 120 users shared one share of
/// sessions and pushed each other's out. The proxy named with
/// `--trusted-proxy` now says who each user is, by the PROXY protocol (v1
/// and v2) or by `X-Forwarded-For`; from any other peer that header changes
/// nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behind_a_trusted_proxy_each_user_is_a_client_of_its_own() {
    const USERS: u8 = 120;
    let ways: [(&str, &[&str], &str); 3] = [
        ("tcp", &[], "send-proxy"),
        ("tcp", &[], "send-proxy-v2"),
        ("http", &["option forwardfor"], ""),
    ];
    for (mode, defaults, server_options) in ways {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().display().to_string();
        let server = http_server(
            BIN,
            &[
                "--root",
                &root,
                "--trusted-proxy",
                "127.0.0.1",
                "--max-sessions-per-client",
                "2",
                "--max-streams-per-client",
                "2",
            ],
        )
        .await;
        let direct = address(&server.url);
        let Some(proxy) = Haproxy::start(
            "the trusted proxy test",
            mode,
            defaults,
            &[direct],
            server_options,
        )
        .await
        else {
            return;
        };
        let way = format!("{mode} {server_options}{}", defaults.join(" "));
        let user = |i: u8| Client {
            from: [127, 0, 1, i],
            server: proxy.addr,
        };
        let mut sessions = Vec::new();
        for i in 1..=USERS {
            let session = user(i)
                .session()
                .await
                .unwrap_or_else(|| panic!("{way}: user {i} got no session"));
            sessions.push(session);
        }
        // One user floods: sessions, each with its stream.
        let mallory = Client {
            from: [127, 0, 2, 1],
            server: proxy.addr,
        };
        let mut held = Vec::new();
        for _ in 0..40 {
            if let Some(session) = mallory.session().await {
                held.push(mallory.stream(&session).await);
            }
        }
        // Its own newer sessions closed its older ones, and their streams.
        let mut streaming = 0;
        for (status, stream) in &mut held {
            if status == "200" && is_open(stream).await {
                streaming += 1;
            }
        }
        assert!(streaming <= 2, "{way}: mallory holds {streaming} streams");
        for (i, session) in (1..=USERS).zip(&sessions) {
            let r = user(i).post(Some(session), LIST).await;
            assert_eq!(status(&r), "200", "{way}: user {i}'s session: {r}");
        }
        // Naming user 5 in X-Forwarded-For and Forwarded, straight to the
        // server (not a trusted peer), or through the proxy (which adds the
        // real one to X-Forwarded-For and passes Forwarded on as it came):
        // still not user 5, whose session is not theirs.
        let forged = "X-Forwarded-For: 127.0.1.5\r\nForwarded: for=127.0.1.5\r\n";
        let eve = Client {
            from: [127, 0, 3, 1],
            server: direct,
        };
        let r = eve.post_with(Some(&sessions[4]), forged, LIST).await;
        assert_eq!(
            status(&r),
            "404",
            "{way}: a forged header from an untrusted peer: {r}"
        );
        let r = user(7).post_with(Some(&sessions[4]), forged, LIST).await;
        assert_eq!(
            status(&r),
            "404",
            "{way}: a forged header through the proxy: {r}"
        );
        let r = user(5).post(Some(&sessions[4]), LIST).await;
        assert_eq!(status(&r), "200", "{way}: user 5 still has it: {r}");
    }
}
