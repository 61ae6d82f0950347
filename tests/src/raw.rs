//! A 2025-11-25 client in raw JSON-RPC, for what rmcp's client cannot send
//! (it speaks 2026-07-28's forms of some requests even in a session).

use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout};

use crate::mcp::message_of;

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
        /// The server, killed when dropped.
        _child: Child,
        /// Where requests go.
        stdin: ChildStdin,
        /// Where answers come from.
        lines: Box<Lines<BufReader<ChildStdout>>>,
    },
}

impl Peer {
    /// Starts `bin` with `args` and talks to it on stdio.
    pub async fn stdio(bin: &str, args: &[&str]) -> Peer {
        let mut child = tokio::process::Command::new(bin)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("spawn");
        let stdin = child.stdin.take().expect("stdin");
        let lines = Box::new(BufReader::new(child.stdout.take().expect("stdout")).lines());
        Peer::Stdio {
            _child: child,
            stdin,
            lines,
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
        let id = message.get("id").cloned();
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
            Peer::Stdio { stdin, lines, .. } => {
                stdin
                    .write_all(format!("{message}\n").as_bytes())
                    .await
                    .expect("write");
                stdin.flush().await.expect("flush");
                let id = id?;
                loop {
                    let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
                        .await
                        .expect("an answer within 30 s")
                        .expect("read")
                        .expect("the server is still there");
                    let answer: Value = serde_json::from_str(&line).expect("JSON");
                    if answer.get("id") == Some(&id) {
                        return Some(answer);
                    }
                }
            }
        }
    }

    /// A request; its response.
    pub async fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await
            .expect("an answer")
    }

    /// The handshake; the server's capabilities.
    pub async fn initialize(&mut self) -> Value {
        let answer = self
            .request(
                1,
                "initialize",
                json!({"protocolVersion": "2025-11-25", "capabilities": {"tasks": {}},
                    "clientInfo": {"name": "raw-2025", "version": "0"}}),
            )
            .await;
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        answer["result"]["capabilities"].clone()
    }
}
