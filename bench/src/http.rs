//! The HTTP load generator: closed-loop clients on hyper, one keep-alive
//! HTTP/1.1 connection each, sending the next request as soon as the last
//! answer is in. It looks only at the status and the head of each JSON-RPC
//! message (whether it is a `result`), so it spends far less per request than
//! a server that parses, dispatches and serialises; its own CPU per request is
//! reported next to the server's to show it.
//!
//! Two ways of talking, as rmcp 3.11 serves them:
//!
//! - **stateless** (2026-07-28): no `initialize`; every POST carries
//!   `MCP-Protocol-Version: 2026-07-28`, `Mcp-Method` (and `Mcp-Name` for
//!   `tools/call`, which rmcp requires) and the per-request
//!   `params._meta` keys `io.modelcontextprotocol/protocolVersion` and
//!   `io.modelcontextprotocol/clientCapabilities` (plus `clientInfo`);
//! - **session** (2025-11-25): `initialize`, `Mcp-Session-Id` from its answer,
//!   `notifications/initialized`, then requests with `Mcp-Session-Id` and
//!   `MCP-Protocol-Version: 2025-11-25`; `DELETE` at the end.

use std::net::{IpAddr, SocketAddr};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::SendRequest;
use hyper::{Request, StatusCode};
use hyper_util::rt::TokioIo;

/// How long any single exchange with the server may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(20);

/// How a client talks to the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Stateless,
    Session,
}

impl Mode {
    pub(crate) fn label(self) -> &'static str {
        match self {
            Mode::Stateless => "stateless",
            Mode::Session => "session",
        }
    }

    fn version(self) -> &'static str {
        match self {
            Mode::Stateless => "2026-07-28",
            Mode::Session => "2025-11-25",
        }
    }
}

/// One request kind: its JSON-RPC method, its `params` and, for
/// `tools/call`, the tool's name (`Mcp-Name`).
#[derive(Debug, Clone)]
pub(crate) struct Call {
    pub(crate) method: &'static str,
    pub(crate) params: serde_json::Value,
    pub(crate) name: Option<String>,
}

/// What one load phase measured.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Measured {
    pub(crate) per_s: f64,
    pub(crate) p50_us: f64,
    pub(crate) p99_us: f64,
    pub(crate) server_cpu_us: f64,
    pub(crate) client_cpu_us: f64,
}

type Sender = SendRequest<Full<Bytes>>;

/// One client: its connection and, in session mode, its session.
struct Client {
    sender: Sender,
    host: String,
    mode: Mode,
    session: Option<String>,
    next_id: u64,
    /// The request body before and after its id.
    body: (String, String),
    method: &'static str,
    name: Option<String>,
}

/// Connects to `addr` from `from` when given (a loopback address of its own),
/// else from wherever the system chooses.
async fn connect(addr: SocketAddr, from: Option<IpAddr>) -> Result<Sender, String> {
    let connecting = async {
        let Some(from) = from else {
            return tokio::net::TcpStream::connect(addr).await;
        };
        let socket = match from {
            IpAddr::V4(_) => tokio::net::TcpSocket::new_v4()?,
            IpAddr::V6(_) => tokio::net::TcpSocket::new_v6()?,
        };
        socket.bind(SocketAddr::new(from, 0))?;
        socket.connect(addr).await
    };
    let stream = tokio::time::timeout(REQUEST_TIMEOUT, connecting)
        .await
        .map_err(|_| format!("connecting to {addr} timed out"))?
        .map_err(|e| format!("cannot connect to {addr}: {e}"))?;
    let _ = stream.set_nodelay(true);
    let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| format!("HTTP handshake with {addr}: {e}"))?;
    tokio::spawn(connection);
    Ok(sender)
}

/// A POST (or DELETE without body) to `/mcp`: status, `Mcp-Session-Id` and body.
async fn exchange(
    sender: &mut Sender,
    request: Request<Full<Bytes>>,
) -> Result<(StatusCode, Option<String>, Bytes), String> {
    let work = async {
        sender
            .ready()
            .await
            .map_err(|e| format!("connection closed: {e}"))?;
        let response = sender
            .send_request(request)
            .await
            .map_err(|e| format!("request failed: {e}"))?;
        let status = response.status();
        let session = response
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let body = response
            .into_body()
            .collect()
            .await
            .map_err(|e| format!("reading the answer: {e}"))?
            .to_bytes();
        Ok((status, session, body))
    };
    tokio::time::timeout(REQUEST_TIMEOUT, work)
        .await
        .map_err(|_| format!("no complete answer within {REQUEST_TIMEOUT:?}"))?
}

/// Whether a body (JSON or SSE) holds a JSON-RPC result; otherwise what it
/// holds instead, for the error message.
fn check_result(status: StatusCode, body: &[u8]) -> Result<(), String> {
    let head = |b: &[u8]| String::from_utf8_lossy(&b[..b.len().min(200)]).into_owned();
    if status != StatusCode::OK {
        return Err(format!(
            "expected 200 with a result, got {status}: {}",
            head(body)
        ));
    }
    // The message starts at `{"jsonrpc"` (after `data: ` in SSE); only its
    // head is looked at: `{"jsonrpc":"2.0","id":N,"result":…`.
    let start = body
        .windows(10)
        .position(|w| w == b"{\"jsonrpc\"")
        .ok_or_else(|| format!("expected a JSON-RPC message, got: {}", head(body)))?;
    let message = &body[start..];
    let window = &message[..message.len().min(64)];
    if window.windows(8).any(|w| w == b"\"result\"") {
        Ok(())
    } else {
        Err(format!("expected a result, got: {}", head(message)))
    }
}

impl Client {
    async fn open(addr: SocketAddr, mode: Mode, call: &Call) -> Result<Client, String> {
        Self::open_from(addr, None, mode, call).await
    }

    async fn open_from(
        addr: SocketAddr,
        from: Option<IpAddr>,
        mode: Mode,
        call: &Call,
    ) -> Result<Client, String> {
        let sender = connect(addr, from).await?;
        let mut params = call.params.clone();
        if mode == Mode::Stateless {
            params["_meta"] = serde_json::json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "toolmetadata-bench", "version": "0"}
            });
        }
        let tail = serde_json::json!({"method": call.method, "params": params}).to_string();
        let body = (
            String::from("{\"jsonrpc\":\"2.0\",\"id\":"),
            format!(",{}", &tail[1..]),
        );
        let mut client = Client {
            sender,
            host: addr.to_string(),
            mode,
            session: None,
            next_id: 1,
            body,
            method: call.method,
            name: call.name.clone(),
        };
        if mode == Mode::Session {
            client.initialize().await?;
        }
        Ok(client)
    }

    fn post(&self, body: String) -> Request<Full<Bytes>> {
        let mut builder = Request::post("/mcp")
            .header("host", &self.host)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        if let Some(session) = &self.session {
            builder = builder
                .header("mcp-session-id", session)
                .header("mcp-protocol-version", self.mode.version());
        }
        builder
            .body(Full::new(Bytes::from(body)))
            .unwrap_or_else(|_| Request::new(Full::new(Bytes::new())))
    }

    async fn initialize(&mut self) -> Result<(), String> {
        let body = serde_json::json!({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "toolmetadata-bench", "version": "0"}
            }
        })
        .to_string();
        let request = self.post(body);
        let (status, session, body) = exchange(&mut self.sender, request).await?;
        check_result(status, &body).map_err(|e| format!("initialize: {e}"))?;
        self.session = Some(session.ok_or("initialize: expected an Mcp-Session-Id header")?);
        let request =
            self.post(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_owned());
        let (status, _, body) = exchange(&mut self.sender, request).await?;
        if !status.is_success() {
            return Err(format!(
                "notifications/initialized: expected 202, got {status}: {}",
                String::from_utf8_lossy(&body)
            ));
        }
        Ok(())
    }

    /// One request, checked; its round-trip time.
    async fn request(&mut self) -> Result<Duration, String> {
        let id = self.next_id;
        self.next_id += 1;
        let body = format!("{}{id}{}", self.body.0, self.body.1);
        let mut request = self.post(body);
        if self.mode == Mode::Stateless {
            let headers = request.headers_mut();
            headers.insert(
                "mcp-protocol-version",
                hyper::header::HeaderValue::from_static("2026-07-28"),
            );
            headers.insert(
                "mcp-method",
                hyper::header::HeaderValue::from_static(self.method),
            );
            if let Some(name) = self.name.as_deref().and_then(|n| n.parse().ok()) {
                headers.insert("mcp-name", name);
            }
        }
        let start = Instant::now();
        let (status, _, body) = exchange(&mut self.sender, request).await?;
        let elapsed = start.elapsed();
        check_result(status, &body).map_err(|e| format!("{}: {e}", self.method))?;
        Ok(elapsed)
    }

    /// Ends the session, if any (`DELETE`), so that sessions do not pile up
    /// in the server across phases.
    async fn close(mut self) {
        if let Some(session) = self.session.take() {
            let request = Request::delete("/mcp")
                .header("host", &self.host)
                .header("mcp-session-id", session)
                .header("mcp-protocol-version", self.mode.version())
                .body(Full::new(Bytes::new()));
            if let Ok(request) = request {
                let _ = exchange(&mut self.sender, request).await;
            }
        }
    }
}

/// `clients` closed-loop clients for `warmup + measure`; counts the answers
/// completed within the measured window, and the server's (`pid`) and this
/// process's CPU time over it (`schedstat` of their threads).
pub(crate) async fn load(
    addr: SocketAddr,
    pid: u32,
    mode: Mode,
    call: &Call,
    clients: usize,
    warmup: Duration,
    measure: Duration,
) -> Result<Measured, String> {
    let mut opened = Vec::with_capacity(clients);
    for _ in 0..clients {
        opened.push(Client::open(addr, mode, call).await?);
    }
    let begin = Instant::now() + warmup;
    let end = begin + measure;
    let mut tasks = tokio::task::JoinSet::new();
    for mut client in opened {
        tasks.spawn(async move {
            let mut latencies = Vec::new();
            let mut failure = None;
            while Instant::now() < end {
                match client.request().await {
                    Ok(elapsed) => {
                        let now = Instant::now();
                        if now >= begin && now < end {
                            latencies.push(elapsed.as_secs_f64() * 1e6);
                        }
                    }
                    Err(e) => {
                        failure = Some(e);
                        break;
                    }
                }
            }
            client.close().await;
            (latencies, failure)
        });
    }
    let me = std::process::id();
    tokio::time::sleep_until(begin.into()).await;
    let (server0, client0) = (
        crate::common::cpu_ns_seconds(pid),
        crate::common::cpu_ns_seconds(me),
    );
    tokio::time::sleep_until(end.into()).await;
    let (server1, client1) = (
        crate::common::cpu_ns_seconds(pid),
        crate::common::cpu_ns_seconds(me),
    );
    let mut latencies = Vec::new();
    let deadline = end + REQUEST_TIMEOUT + Duration::from_secs(5);
    loop {
        let next = tokio::time::timeout_at(deadline.into(), tasks.join_next()).await;
        match next {
            Err(_) => return Err("clients did not finish in time".to_owned()),
            Ok(None) => break,
            Ok(Some(Err(e))) => return Err(format!("a client task failed: {e}")),
            Ok(Some(Ok((mut l, failure)))) => {
                if let Some(e) = failure {
                    return Err(e);
                }
                latencies.append(&mut l);
            }
        }
    }
    let count = latencies.len();
    if count == 0 {
        return Err("no request completed in the measured window".to_owned());
    }
    Ok(Measured {
        per_s: count as f64 / measure.as_secs_f64(),
        p50_us: crate::common::median(latencies.clone()),
        p99_us: crate::common::percentile(latencies, 0.99),
        server_cpu_us: (server1 - server0) * 1e6 / count as f64,
        client_cpu_us: (client1 - client0) * 1e6 / count as f64,
    })
}

/// The server's resident memory gained per open session: `sessions` sessions
/// opened (`initialize` and `notifications/initialized`, 8 at a time) and
/// kept open while `VmRSS` is read; KiB per session.
///
/// Each session comes from a loopback address of its own (127.1.x.y), as
/// sessions of many users would: the runtime caps the sessions of one client
/// (100 by default), which the bench's count would pass from one address.
pub(crate) async fn rss_per_session(
    addr: SocketAddr,
    pid: u32,
    sessions: usize,
) -> Result<f64, String> {
    let call = Call {
        method: "ping",
        params: serde_json::json!({}),
        name: None,
    };
    // One session first, so that what every server allocates once is in
    // the baseline.
    Client::open(addr, Mode::Session, &call)
        .await?
        .close()
        .await;
    if own_loopback(addr, 0).is_none() && sessions > 100 {
        return Err(format!(
            "{sessions} sessions need addresses of their own, which only a server on IPv4 loopback gives (127.1.x.y); {addr} is not"
        ));
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let before = rss_kib(pid)?;
    let mut open = Vec::with_capacity(sessions);
    for chunk in 0..sessions.div_ceil(8) {
        let mut batch = tokio::task::JoinSet::new();
        for _ in (chunk * 8)..((chunk + 1) * 8).min(sessions) {
            let call = call.clone();
            let from = own_loopback(addr, open.len() + batch.len());
            batch.spawn(async move { Client::open_from(addr, from, Mode::Session, &call).await });
        }
        while let Some(opened) = batch.join_next().await {
            open.push(opened.map_err(|e| format!("a client task failed: {e}"))??);
        }
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let after = rss_kib(pid)?;
    for client in open {
        client.close().await;
    }
    Ok((after - before) / sessions as f64)
}

/// The `index`th client address of its own for a server at `addr`, when the
/// server is on IPv4 loopback (where every 127.x.y.z is this machine).
fn own_loopback(addr: SocketAddr, index: usize) -> Option<IpAddr> {
    if !addr.ip().is_loopback() || !addr.is_ipv4() {
        return None;
    }
    // .0 and .255 left out, as hosts' addresses would be.
    let high = u8::try_from(index / 254).ok()?;
    let low = (index % 254 + 1) as u8;
    Some(IpAddr::V4(std::net::Ipv4Addr::new(127, 1, high, low)))
}

fn rss_kib(pid: u32) -> Result<f64, String> {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .map_err(|e| format!("reading /proc/{pid}/status: {e}"))?
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .ok_or_else(|| format!("expected a VmRSS line in /proc/{pid}/status"))
}
