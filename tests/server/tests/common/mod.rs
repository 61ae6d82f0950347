//! Starting the test server and connecting rmcp's client to it.
#![allow(dead_code, unreachable_pub)]

use std::process::Stdio;
use std::sync::{Arc, Mutex};

use rmcp::model::{CallToolRequestParams, CallToolResult, ProgressNotificationParam};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::{ConfigureCommandExt, StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader};

pub const BIN: &str = env!("CARGO_BIN_EXE_toolmetadata-test-server");

/// A client that records the progress notifications it receives.
#[derive(Clone, Default)]
pub struct Recorder {
    pub progress: Arc<Mutex<Vec<ProgressNotificationParam>>>,
}

impl ClientHandler for Recorder {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _: NotificationContext<RoleClient>,
    ) {
        self.progress.lock().expect("lock").push(params);
    }
}

pub type Client = RunningService<RoleClient, Recorder>;

/// The server as a child process on stdio, with extra arguments.
pub async fn stdio(args: &[&str]) -> (Client, Recorder) {
    let recorder = Recorder::default();
    let transport = TokioChildProcess::new(tokio::process::Command::new(BIN).configure(|c| {
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

/// A server on HTTP (port chosen by the OS), with extra arguments; kill it by
/// dropping the child.
pub struct HttpServer {
    pub child: tokio::process::Child,
    pub url: String,
}

pub async fn http_server(args: &[&str]) -> HttpServer {
    let mut child = tokio::process::Command::new(BIN)
        .args(["--http", "127.0.0.1:0"])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn the server");
    let stdout = child.stdout.take().expect("stdout");
    let mut lines = BufReader::new(stdout).lines();
    let line = lines.next_line().await.expect("read").expect("a line");
    let url = line
        .strip_prefix("listening on ")
        .expect("the address line")
        .to_owned();
    HttpServer { child, url }
}

/// rmcp's client on Streamable HTTP.
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

pub fn is_error(result: &CallToolResult) -> bool {
    result.is_error == Some(true)
}

pub fn json_of(result: &CallToolResult) -> Value {
    serde_json::from_str(&text(result)).unwrap_or(Value::Null)
}
