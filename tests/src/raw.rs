//! A server started on stdio and read line by line ([`StdioChild`], with
//! its pid for what `/proc` says of it), and a 2025-11-25 client in raw
//! JSON-RPC over it or over HTTP ([`Peer`]), for what rmcp's client cannot
//! send (it speaks 2026-07-28's forms of some requests even in a session).

use std::collections::VecDeque;
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout};

use crate::mcp::message_of;

/// A server started on stdio: its pipes taken, written and read a line at
/// a time; killed when dropped.
pub struct StdioChild {
    /// The process.
    pub child: Child,
    /// Where lines go.
    pub stdin: ChildStdin,
    /// Where lines come from.
    pub lines: Lines<BufReader<ChildStdout>>,
}

impl StdioChild {
    /// Starts `bin` with `args`, its stderr dropped.
    pub fn spawn(bin: &str, args: &[&str]) -> StdioChild {
        let mut child = tokio::process::Command::new(bin)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("spawn");
        let stdin = child.stdin.take().expect("stdin");
        let lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
        StdioChild {
            child,
            stdin,
            lines,
        }
    }

    /// The process id, while it runs.
    pub fn pid(&self) -> u32 {
        self.child.id().expect("running")
    }

    /// Writes `line` and a newline, and flushes.
    pub async fn send_line(&mut self, line: &str) {
        write_line(&mut self.stdin, line).await;
    }

    /// Writes `message` as one line.
    pub async fn send(&mut self, message: &Value) {
        self.send_line(&message.to_string()).await;
    }

    /// The next message, within 30 s.
    pub async fn next(&mut self) -> Value {
        read_line(&mut self.lines).await
    }

    /// The 2025-11-25 handshake as client `name`: the `initialize` answer
    /// (whose id is 0), then `notifications/initialized`.
    pub async fn initialize(&mut self, name: &str) -> Value {
        self.send(
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": name, "version": "0"}}}),
        )
        .await;
        let answer = self.next().await;
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        answer
    }
}

/// Writes `line` and a newline to a server's stdin, and flushes: for a
/// writer of its own beside the reader (`StdioChild`'s fields taken apart).
pub async fn write_line(stdin: &mut ChildStdin, line: &str) {
    stdin.write_all(line.as_bytes()).await.expect("write");
    stdin.write_all(b"\n").await.expect("write");
    stdin.flush().await.expect("flush");
}

/// A 2025-11-25 client that writes JSON-RPC itself.
pub enum Peer {
    /// Over Streamable HTTP.
    Http {
        /// The endpoint.
        url: String,
        /// The session, once the server gave one.
        session: Option<String>,
    },
    /// Over a child's stdin and stdout.
    Stdio {
        /// The server.
        child: Box<StdioChild>,
        /// Messages read while waiting for another: the server's own
        /// requests and notifications, for `next_request`.
        unread: Box<VecDeque<Value>>,
    },
}

impl Peer {
    /// Starts `bin` with `args` and talks to it on stdio.
    pub async fn stdio(bin: &str, args: &[&str]) -> Peer {
        Peer::Stdio {
            child: Box::new(StdioChild::spawn(bin, args)),
            unread: Box::default(),
        }
    }

    /// Talks to the Streamable HTTP endpoint `url`, in a session once
    /// `initialize` has answered.
    pub fn http(url: &str) -> Peer {
        Peer::Http {
            url: url.to_owned(),
            session: None,
        }
    }

    /// Sends a message; for a request, the response with its id.
    pub async fn send(&mut self, message: Value) -> Option<Value> {
        // A response of the client's (to a request of the server's) has an
        // id too, and waits for nothing.
        let id = message.get("method").and(message.get("id")).cloned();
        match self {
            Peer::Http { url, session } => {
                let mut request = reqwest::Client::new()
                    .post(url.as_str())
                    .header("content-type", "application/json")
                    .header("accept", "application/json, text/event-stream")
                    .header("mcp-protocol-version", "2025-11-25")
                    .timeout(Duration::from_secs(30));
                if let Some(s) = session {
                    request = request.header("mcp-session-id", s.as_str());
                }
                let response = request
                    .body(message.to_string())
                    .send()
                    .await
                    .expect("request");
                if let Some(s) = response.headers().get("mcp-session-id") {
                    *session = Some(s.to_str().expect("ASCII").to_owned());
                }
                let body = response.text().await.expect("body");
                id.map(|_| message_of(&body))
            }
            Peer::Stdio { child, unread } => {
                child.send(&message).await;
                let id = id?;
                loop {
                    let answer = child.next().await;
                    // A response to this request, not a request of the
                    // server's that happens to use the same id.
                    if answer.get("id") == Some(&id) && answer.get("method").is_none() {
                        return Some(answer);
                    }
                    unread.push_back(answer);
                }
            }
        }
    }

    /// The next request of the server's with `method` (on stdio), read now
    /// or while waiting for an answer earlier.
    pub async fn next_request(&mut self, method: &str) -> Value {
        self.next_sent(|m| m["method"] == method && m.get("id").is_some())
            .await
    }

    /// The next notification of the server's with `method` (on stdio), read
    /// now or while waiting for an answer earlier.
    pub async fn next_notification(&mut self, method: &str) -> Value {
        self.next_sent(|m| m["method"] == method && m.get("id").is_none())
            .await
    }

    /// The next message of the server's that is `wanted`, read now or while
    /// waiting for an answer earlier; the others are kept for later.
    async fn next_sent(&mut self, wanted: impl Fn(&Value) -> bool) -> Value {
        let Peer::Stdio { child, unread } = self else {
            panic!("a server's own requests and notifications are read on stdio only");
        };
        if let Some(at) = unread.iter().position(&wanted) {
            return unread.remove(at).expect("found");
        }
        loop {
            let message = child.next().await;
            if wanted(&message) {
                return message;
            }
            unread.push_back(message);
        }
    }

    /// A request; its response.
    pub async fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await
            .expect("an answer")
    }

    /// The handshake, declaring tasks; the server's capabilities.
    pub async fn initialize(&mut self) -> Value {
        self.initialize_with(json!({"tasks": {}})).await
    }

    /// The handshake, declaring `capabilities`; the server's.
    pub async fn initialize_with(&mut self, capabilities: Value) -> Value {
        let answer = self
            .request(
                1,
                "initialize",
                json!({"protocolVersion": "2025-11-25", "capabilities": capabilities,
                    "clientInfo": {"name": "raw-2025", "version": "0"}}),
            )
            .await;
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        answer["result"]["capabilities"].clone()
    }
}

/// The next JSON-RPC message of a server on stdio, within 30 s.
async fn read_line(lines: &mut Lines<BufReader<ChildStdout>>) -> Value {
    let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
        .await
        .expect("a message within 30 s")
        .expect("read")
        .expect("the server is still there");
    serde_json::from_str(&line).expect("JSON")
}
