//! Starting an MCP server binary and connecting rmcp's client to it, on stdio
//! or Streamable HTTP.

use std::process::Stdio;
use std::sync::{Arc, Mutex};

use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientConfig, ElicitRequestParams, ElicitResult,
    ElicitationCapability, Implementation, ProgressNotificationParam,
};
use rmcp::service::{NotificationContext, RequestContext, RunningService};
use rmcp::transport::{ConfigureCommandExt, StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, ErrorData, RoleClient, ServiceExt};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};

/// A client that records the progress notifications it receives.
#[derive(Clone, Default)]
pub struct Recorder {
    /// The notifications, in the order they were handled.
    pub progress: Arc<Mutex<Vec<ProgressNotificationParam>>>,
    /// The URIs of the `notifications/resources/updated` received, in order.
    pub updated: Arc<Mutex<Vec<String>>>,
    /// Declare the tasks extension (SEP-2663) in the client's capabilities.
    pub tasks: bool,
    /// Declare form elicitation: the client can answer questions (this one
    /// answers them only through `tasks/update`, by hand).
    pub ask: bool,
}

impl ClientHandler for Recorder {
    fn get_info(&self) -> rmcp::model::ClientConfig {
        let mut info = rmcp::model::ClientConfig::default();
        if self.tasks {
            // Built by hand: rmcp's capability builders need its server feature.
            info.capabilities.extensions = Some(
                [(
                    rmcp::model::TASKS_EXTENSION_ID.to_owned(),
                    rmcp::model::JsonObject::new(),
                )]
                .into(),
            );
        }
        if self.ask {
            info.capabilities.elicitation = Some(
                rmcp::model::ElicitationCapability::new()
                    .with_form(rmcp::model::FormElicitationCapability::default()),
            );
        }
        info
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _: NotificationContext<RoleClient>,
    ) {
        self.progress.lock().expect("lock").push(params);
    }

    async fn on_resource_updated(
        &self,
        params: rmcp::model::ResourceUpdatedNotificationParam,
        _: NotificationContext<RoleClient>,
    ) {
        self.updated.lock().expect("lock").push(params.uri);
    }
}

/// rmcp's client, connected.
pub type Client = RunningService<RoleClient, Recorder>;

/// The rmcp client connection.
/// The server binary `bin` as a child process on stdio, with arguments.
pub async fn stdio(bin: &str, args: &[&str]) -> (Client, Recorder) {
    let recorder = Recorder::default();
    let transport = TokioChildProcess::new(tokio::process::Command::new(bin).configure(|c| {
        c.args(args).stderr(Stdio::null());
    }))
    .expect("spawn the server");
    let client = recorder
        .clone()
        .serve(transport)
        .await
        .expect("initialize over stdio");
    (client, recorder)
}

/// A server on HTTP (port chosen by the OS); dropping it kills the process.
pub struct HttpServer {
    /// The server process.
    pub child: tokio::process::Child,
    /// `http://127.0.0.1:PORT/mcp`.
    pub url: String,
    /// The lines the server wrote on stderr before announcing its address.
    pub startup: Vec<String>,
    /// The lines the server wrote on stderr after announcing its address.
    pub logs: Arc<Mutex<Vec<String>>>,
}

/// Starts `bin --http 127.0.0.1:0 ARGS…` and waits for the
/// `listening on http://…/mcp` line it prints on stderr.
pub async fn http_server(bin: &str, args: &[&str]) -> HttpServer {
    http_server_with_env(bin, args, &[]).await
}

/// [`http_server`] with `env` added to the server's environment.
pub async fn http_server_with_env(bin: &str, args: &[&str], env: &[(&str, &str)]) -> HttpServer {
    let mut child = tokio::process::Command::new(bin)
        .args(["--http", "127.0.0.1:0"])
        .args(args)
        .envs(env.iter().copied())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        // The default log level is what the tests look at.
        .env_remove("RUST_LOG")
        .kill_on_drop(true)
        .spawn()
        .expect("spawn the server");
    let stderr = child.stderr.take().expect("stderr");
    let mut lines = BufReader::new(stderr).lines();
    let mut before = Vec::new();
    let url = loop {
        let line = lines
            .next_line()
            .await
            .expect("read")
            .expect("the server announces its address");
        if let Some(at) = line.find("listening on ") {
            break line[at + "listening on ".len()..].trim().to_owned();
        }
        before.push(line);
    };
    // Keep draining the logs so the server never blocks on a full pipe; keep
    // the first ones for tests that look at what the server says.
    let logs = Arc::new(Mutex::new(Vec::new()));
    let kept = logs.clone();
    tokio::spawn(async move {
        while let Ok(Some(line)) = lines.next_line().await {
            let mut kept = kept.lock().expect("lock");
            if kept.len() < 10_000 {
                kept.push(line);
            }
        }
    });
    HttpServer {
        child,
        url,
        startup: before,
        logs,
    }
}

/// rmcp's client on Streamable HTTP at `url`.
pub async fn http_client(url: &str) -> (Client, Recorder) {
    let recorder = Recorder::default();
    let transport = StreamableHttpClientTransport::from_uri(url.to_owned());
    let client = recorder
        .clone()
        .serve(transport)
        .await
        .expect("initialize over HTTP");
    (client, recorder)
}

/// rmcp's client on Streamable HTTP at `url`, speaking 2026-07-28
/// (`server/discover`, then independent requests with per-request metadata).
pub async fn http_client_2026(url: &str) -> (Client, Recorder) {
    http_client_as(url, Recorder::default(), true).await
}

/// rmcp's client `recorder` on Streamable HTTP at `url`: 2026-07-28
/// (`server/discover`) when `modern`, else a 2025-11-25 session (`initialize`).
pub async fn http_client_as(url: &str, recorder: Recorder, modern: bool) -> (Client, Recorder) {
    http_client_with(url, recorder, modern, &[]).await
}

/// [`http_client_as`], sending `headers` with every HTTP request as well.
pub async fn http_client_with<C: ClientHandler + Clone>(
    url: &str,
    handler: C,
    modern: bool,
    headers: &[(&'static str, &str)],
) -> (RunningService<RoleClient, C>, C) {
    use rmcp::service::ClientServiceExt;
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
    let headers = headers
        .iter()
        .map(|(name, value)| {
            (
                reqwest::header::HeaderName::from_static(name),
                reqwest::header::HeaderValue::from_str(value).expect("a header value"),
            )
        })
        .collect();
    let config =
        StreamableHttpClientTransportConfig::with_uri(url.to_owned()).custom_headers(headers);
    let transport = StreamableHttpClientTransport::from_config(config);
    let client = handler
        .clone()
        .serve_with_lifecycle(transport, lifecycle(modern))
        .await
        .expect("connect over HTTP");
    (client, handler)
}

/// `handler` connected to `url` over Streamable HTTP: 2026-07-28
/// (`server/discover`) when `modern`, else a 2025-11-25 session.
pub async fn connect_http<C: ClientHandler + Clone>(
    url: &str,
    handler: C,
    modern: bool,
) -> RunningService<RoleClient, C> {
    http_client_with(url, handler, modern, &[]).await.0
}

/// `handler` connected to the server `bin` (with `args`) on stdio:
/// 2026-07-28 (`server/discover`) when `modern`, else a 2025-11-25 session.
pub async fn connect_stdio<C: ClientHandler>(
    bin: &str,
    args: &[&str],
    handler: C,
    modern: bool,
) -> RunningService<RoleClient, C> {
    use rmcp::service::ClientServiceExt;
    let transport = TokioChildProcess::new(tokio::process::Command::new(bin).configure(|c| {
        c.args(args).stderr(Stdio::null());
    }))
    .expect("spawn the server");
    handler
        .serve_with_lifecycle(transport, lifecycle(modern))
        .await
        .expect("connect over stdio")
}

/// How rmcp's client starts: `server/discover` and 2026-07-28 when
/// `modern`, else `initialize`.
fn lifecycle(modern: bool) -> rmcp::service::ClientLifecycleMode {
    use rmcp::model::ProtocolVersion;
    use rmcp::service::ClientLifecycleMode;
    if modern {
        ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        }
    } else {
        ClientLifecycleMode::Initialize
    }
}

/// Calls a tool; a protocol error fails the test.
pub async fn call(client: &Client, name: &str, arguments: Value) -> CallToolResult {
    let Value::Object(map) = arguments else {
        panic!("arguments must be an object")
    };
    client
        .call_tool(CallToolRequestParams::new(name.to_owned()).with_arguments(map))
        .await
        .unwrap_or_else(|e| panic!("calling {name}: {e}"))
}

/// The text of all text blocks.
pub fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// True for an `isError` result.
pub fn is_error(result: &CallToolResult) -> bool {
    result.is_error == Some(true)
}

/// The text of the result parsed as JSON (`Null` when it is not JSON).
pub fn json_of(result: &CallToolResult) -> Value {
    serde_json::from_str(&text(result)).unwrap_or(Value::Null)
}

/// A 2026-07-28 request body: the per-request `_meta` rmcp requires.
pub fn request_2026(id: u64, method: &str, params: Value) -> String {
    request_2026_declaring(id, method, params, json!({}))
}

/// [`request_2026`] from a client that declares `capabilities` (the tasks
/// extension, elicitation…).
pub fn request_2026_declaring(
    id: u64,
    method: &str,
    mut params: Value,
    capabilities: Value,
) -> String {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"}
    });
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

/// The capabilities of a client that can poll tasks.
pub fn with_tasks() -> Value {
    json!({"extensions": {"io.modelcontextprotocol/tasks": {}}})
}

/// POSTs a 2026-07-28 request with its standard headers plus `extra`; the
/// status and the body text (JSON or SSE).
pub async fn post_2026(
    url: &str,
    method: &str,
    name: Option<&str>,
    extra: &[(&str, &str)],
    body: String,
) -> (u16, String) {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method);
    if let Some(name) = name {
        request = request.header("mcp-name", name);
    }
    for (k, v) in extra {
        request = request.header(*k, *v);
    }
    let response = request.body(body).send().await.expect("request");
    let status = response.status().as_u16();
    (status, response.text().await.expect("body"))
}

/// Sends the HTTP `method` with `body` (if any) to a 2025-11-25 session `session`
/// (none: outside one) with `extra` headers; the status and the body text.
pub async fn send_2025(
    url: &str,
    method: &str,
    session: Option<&str>,
    extra: &[(&str, &str)],
    body: Option<Value>,
) -> (u16, String) {
    let mut request = reqwest::Client::new()
        .request(
            reqwest::Method::from_bytes(method.as_bytes()).expect("an HTTP method"),
            url,
        )
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .timeout(std::time::Duration::from_secs(30));
    if let Some(session) = session {
        request = request.header("mcp-session-id", session);
    }
    for (k, v) in extra {
        request = request.header(*k, *v);
    }
    if let Some(body) = body {
        request = request
            .header("content-type", "application/json")
            .body(body.to_string());
    }
    let response = request.send().await.expect("request");
    let status = response.status().as_u16();
    (status, response.text().await.expect("body"))
}

/// Opens a 2025-11-25 session (`initialize`, then `initialized`) with
/// `extra` headers; its id.
pub async fn open_session_2025(url: &str, extra: &[(&str, &str)]) -> String {
    open_session_2025_declaring(url, extra, json!({})).await
}

/// [`open_session_2025`] for a client that declares `capabilities` at
/// `initialize` (an extension, elicitation…).
pub async fn open_session_2025_declaring(
    url: &str,
    extra: &[(&str, &str)],
    capabilities: Value,
) -> String {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    for (k, v) in extra {
        request = request.header(*k, *v);
    }
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": capabilities,
        "clientInfo": {"name": "raw", "version": "0"}}});
    let response = request
        .body(initialize.to_string())
        .send()
        .await
        .expect("initialize");
    let session = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_else(|| panic!("no session opened: {}", response.status()))
        .to_owned();
    let _ = response.text().await;
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let (status, body) = send_2025(url, "POST", Some(&session), extra, Some(initialized)).await;
    assert_eq!(status, 202, "initialized: {body}");
    session
}

/// The JSON-RPC message of a response body, whether JSON or one SSE event
/// (`Null` when there is none).
pub fn message_of(body: &str) -> Value {
    let json = body
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .map(str::trim)
        .find(|d| !d.is_empty())
        .unwrap_or(body.trim());
    serde_json::from_str(json).unwrap_or(Value::Null)
}

/// A client that answers every question the same way, after a delay, and
/// records the questions.
#[derive(Clone)]
pub struct Person {
    /// The `ElicitResult` every question gets, as JSON.
    pub answer: Value,
    /// How long the person takes to answer.
    pub delay: Duration,
    /// Whether the client declares elicitation at all.
    pub can_answer: bool,
    /// The questions asked, in order.
    pub asked: Arc<Mutex<Vec<String>>>,
}

impl Person {
    /// A person who answers every question with `answer`, at once.
    pub fn answering(answer: Value) -> Self {
        Person {
            answer,
            delay: Duration::ZERO,
            can_answer: true,
            asked: Arc::default(),
        }
    }

    /// The questions asked so far.
    pub fn asked(&self) -> Vec<String> {
        self.asked.lock().expect("lock").clone()
    }
}

impl ClientHandler for Person {
    fn get_info(&self) -> ClientConfig {
        let mut config = ClientConfig::default();
        config.client_info = Implementation::new("ask-test", "1.2.3");
        if self.can_answer {
            config.capabilities.elicitation = Some(ElicitationCapability::default());
        }
        config
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        if let ElicitRequestParams::FormElicitationParams { message, .. } = &request {
            self.asked.lock().expect("lock").push(message.clone());
        }
        tokio::time::sleep(self.delay).await;
        serde_json::from_value(self.answer.clone())
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))
    }
}

/// The next line a process wrote on stderr, within 30 s: a test that reads
/// a server's log until a line fails, naming what it awaited, rather than
/// hanging or reading past the end.
pub async fn next_log_line<R: tokio::io::AsyncBufRead + Unpin>(
    lines: &mut tokio::io::Lines<R>,
    awaited: &str,
) -> String {
    tokio::time::timeout(Duration::from_secs(30), lines.next_line())
        .await
        .unwrap_or_else(|_| panic!("no log line within 30 s: awaiting {awaited}"))
        .expect("read stderr")
        .unwrap_or_else(|| panic!("the log ended: awaiting {awaited}"))
}
