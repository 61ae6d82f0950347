//! Tasks as a 2025-11-25 session asks for them (SEP-1686): the client adds
//! `"task": {"ttl": …}` to the params of `tools/call` and gets `{"task": …}`
//! back at once; `tasks/get` answers the task's fields, `tasks/result` waits
//! for the end and answers the call's own result, `tasks/cancel` answers the
//! cancelled task. The server declares `capabilities.tasks` in its
//! `initialize` answer.
//!
//! rmcp 3.11 speaks only the Tasks extension of 2026-07-28, which is not
//! wire-compatible: its `CallToolRequestParams` has no `task` field (the
//! request would silently run as a plain call), its `tasks/get` and
//! `tasks/cancel` want the extension declared and answer in the new shapes,
//! and it has no `tasks/result`. So, as the extension's own compatibility
//! section suggests, the old flow is served beside the new one: before rmcp
//! parses a message, [`reroute`] renames the three old-style requests to
//! methods of ours, which rmcp hands to `on_custom_request` with the request's
//! context; `tasks/result` is unknown to rmcp and arrives there as it is.
//! Both flows share the store, the runner and the owner check of `task`. A
//! session client that declared the extension gets the extension's shapes
//! from `tasks/get` and `tasks/cancel`, whichever flow started the task.

use std::time::Duration;

use rmcp::ErrorData;
use rmcp::model::{CallToolRequestParams, CallToolResult, CustomRequest, ErrorCode, ServerResult};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWriteExt};

use super::Server;
use super::task::{POLL_INTERVAL, status_name};
use super::task_store::{TaskRecord, TaskState};
use crate::metadata::TaskSupport;
use crate::text::shorten;

/// `tools/call` with `task` in its params, renamed.
const CALL: &str = "io.toolmetadata/2025-11-25/tools/call";
/// `tasks/get` from a 2025-11-25 client, renamed.
const GET: &str = "io.toolmetadata/2025-11-25/tasks/get";
/// `tasks/cancel` from a 2025-11-25 client, renamed.
const CANCEL: &str = "io.toolmetadata/2025-11-25/tasks/cancel";
/// Unknown to rmcp: it reaches `on_custom_request` under its own name.
const RESULT: &str = "tasks/result";

/// The least time a task asked for with `task` is kept: a client's `ttl`
/// below it is raised (2025-11-25 lets the server decide).
const MIN_TTL: Duration = Duration::from_secs(60);

/// Where the related task is named in the `_meta` of `tasks/result`'s answer.
const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";

/// The longest stdio line [`reroute_lines`] looks at; longer ones pass as
/// they are (a message that large is no task request worth rerouting, and
/// holding it twice would double what a client can make us keep).
const MAX_REROUTED_LINE: usize = 16 * 1024 * 1024;

/// The message renamed when it is a 2025-11-25 task request; `None` for every
/// other message, including each 2026-07-28 request (it names its protocol
/// version in `_meta`).
pub(crate) fn reroute(message: &[u8]) -> Option<Vec<u8>> {
    // Most messages are not task requests: no parse for them.
    if !message.windows(5).any(|w| w == b"\"task") {
        return None;
    }
    let mut value: Value = serde_json::from_slice(message).ok()?;
    let object = value.as_object_mut()?;
    let params = object.get("params").and_then(Value::as_object);
    let modern = params
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get("io.modelcontextprotocol/protocolVersion"))
        .is_some();
    if modern {
        return None;
    }
    let renamed = match object.get("method")?.as_str()? {
        "tools/call"
            if params
                .and_then(|p| p.get("task"))
                .is_some_and(|t| !t.is_null()) =>
        {
            CALL
        }
        "tasks/get" => GET,
        "tasks/cancel" => CANCEL,
        _ => return None,
    };
    object.insert("method".to_owned(), Value::from(renamed));
    serde_json::to_vec(&value).ok()
}

/// `input`, one JSON-RPC message per line as on stdio, with each line passed
/// through [`reroute`]. A task of its own copies the lines; it ends with the
/// input or when the reader is dropped.
pub(super) fn reroute_lines(
    input: impl AsyncRead + Unpin + Send + 'static,
) -> tokio::io::DuplexStream {
    let (ours, theirs) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        if let Err(e) = pump(input, theirs, MAX_REROUTED_LINE).await {
            tracing::debug!("stdin: {e}");
        }
    });
    ours
}

async fn pump(
    input: impl AsyncRead + Unpin,
    mut out: impl tokio::io::AsyncWrite + Unpin,
    max_line: usize,
) -> std::io::Result<()> {
    let mut input = tokio::io::BufReader::with_capacity(64 * 1024, input);
    let mut line = Vec::new();
    // Inside a line longer than `max_line`: passed on as it comes.
    let mut oversized = false;
    loop {
        let chunk = input.fill_buf().await?;
        if chunk.is_empty() {
            // The last line may lack its newline.
            match reroute(&line).filter(|_| !oversized) {
                Some(renamed) => out.write_all(&renamed).await?,
                None => out.write_all(&line).await?,
            }
            return out.shutdown().await;
        }
        let newline = chunk.iter().position(|&b| b == b'\n');
        let piece = &chunk[..newline.map_or(chunk.len(), |i| i + 1)];
        let taken = piece.len();
        if oversized {
            out.write_all(piece).await?;
        } else if line.len() + taken > max_line {
            out.write_all(&line).await?;
            out.write_all(piece).await?;
            line.clear();
            oversized = true;
        } else {
            line.extend_from_slice(piece);
        }
        input.consume(taken);
        if newline.is_some() {
            if !oversized {
                match reroute(&line) {
                    Some(mut renamed) => {
                        renamed.push(b'\n');
                        out.write_all(&renamed).await?;
                    }
                    None => out.write_all(&line).await?,
                }
            }
            if line.capacity() > 1024 * 1024 {
                // One large message does not keep its buffer for the session.
                line = Vec::new();
            }
            line.clear();
            oversized = false;
        }
    }
}

/// Adds 2025-11-25's task capability to an `initialize` result: tool calls
/// may be tasks, and tasks may be cancelled (rmcp's `ServerCapabilities` has
/// no field for it). Not on 2026-07-28, where the extension says it.
pub(crate) fn patch_initialize(result: &mut Value) {
    if let Some(capabilities) = result
        .get_mut("capabilities")
        .and_then(Value::as_object_mut)
    {
        capabilities
            .entry("tasks")
            .or_insert_with(|| json!({"cancel": {}, "requests": {"tools": {"call": {}}}}));
    }
}

/// A stored `CallToolResult` as a session's client expects it: in the shape
/// rmcp gives such clients (no `resultType`, object-only structured
/// content), with the task named in `_meta`.
fn call_result_for_session(stored: Value, id: &str) -> Value {
    let mut result = match serde_json::from_value::<CallToolResult>(stored.clone()) {
        Ok(result) => legacy_shape(ServerResult::CallToolResult(result)),
        Err(_) => stored,
    };
    if let Some(object) = result.as_object_mut() {
        let meta = object
            .entry("_meta")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Some(meta) = meta.as_object_mut() {
            meta.insert(RELATED_TASK.to_owned(), json!({"taskId": id}));
        }
    }
    result
}

/// An answer of rmcp's as rmcp would have sent it to a session's client.
fn legacy_shape(mut result: ServerResult) -> Value {
    result.strip_result_type_for_legacy_peer();
    result.strip_non_object_output_for_legacy_peer();
    serde_json::to_value(result).unwrap_or_default()
}

/// A task as 2025-11-25 shows it.
fn task_json(record: &TaskRecord) -> Value {
    let mut task = json!({
        "taskId": record.id,
        "status": status_name(&record.state),
        "createdAt": record.created_at,
        "lastUpdatedAt": record.updated_at,
        "ttl": record.ttl_ms,
        "pollInterval": u64::try_from(POLL_INTERVAL.as_millis()).unwrap_or(1000),
    });
    if let Some(message) = &record.status_message {
        task["statusMessage"] = Value::from(message.clone());
    }
    task
}

fn task_id(params: Option<&Value>) -> Result<&str, ErrorData> {
    params
        .and_then(|p| p.get("taskId"))
        .and_then(Value::as_str)
        .ok_or_else(|| ErrorData::invalid_params("`taskId` (a string) is required", None))
}

impl Server {
    /// The requests of 2025-11-25's tasks; any other custom method is
    /// unknown, and so are these on 2026-07-28 or when no tool runs as a task.
    pub(super) async fn legacy_task_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<Value, ErrorData> {
        let session = context
            .protocol_version()
            .is_none_or(|v| v.has_initialize());
        let has_tasks = self.runs_tasks();
        let extension = context
            .client_capabilities()
            .is_some_and(|c| c.supports_tasks());
        let params = request.params.as_ref();
        match request.method.as_str() {
            CALL if session && has_tasks => self.legacy_call(params, &context).await,
            // A session whose client declared the extension asks the new
            // way under the old names: it gets the new shapes.
            GET if session && has_tasks && extension => {
                let state = self.task_state(task_id(params)?, &context).await?;
                Ok(legacy_shape(ServerResult::GetTaskResult(state)))
            }
            CANCEL if session && has_tasks && extension => {
                self.cancel_task_by_id(task_id(params)?, &context).await?;
                Ok(legacy_shape(ServerResult::task_ack(())))
            }
            GET if session && has_tasks => {
                let record = self.visible_task(task_id(params)?, &context).await?;
                Ok(task_json(&record))
            }
            CANCEL if session && has_tasks => {
                let record = self.cancel_task_by_id(task_id(params)?, &context).await?;
                Ok(task_json(&record))
            }
            RESULT if session && has_tasks => self.legacy_result(task_id(params)?, &context).await,
            other => {
                let shown = match other {
                    CALL => "tools/call",
                    GET => "tasks/get",
                    CANCEL => "tasks/cancel",
                    other => other,
                };
                Err(ErrorData::new(
                    ErrorCode::METHOD_NOT_FOUND,
                    shorten(shown, 100),
                    None,
                ))
            }
        }
    }

    /// `tools/call` with `task`: the task started, its handle at once.
    async fn legacy_call(
        &self,
        params: Option<&Value>,
        context: &RequestContext<RoleServer>,
    ) -> Result<Value, ErrorData> {
        let params = params.cloned().unwrap_or_else(|| Value::Object(Map::new()));
        let requested_ttl = match params.get("task") {
            Some(Value::Object(task)) => match task.get("ttl") {
                None | Some(Value::Null) => None,
                Some(ttl) => Some(ttl.as_u64().ok_or_else(|| {
                    ErrorData::invalid_params(
                        "`task.ttl` must be a whole number of milliseconds",
                        None,
                    )
                })?),
            },
            _ => {
                return Err(ErrorData::invalid_params(
                    "`task` must be an object, such as {\"ttl\": 60000}",
                    None,
                ));
            }
        };
        let request: CallToolRequestParams = serde_json::from_value(params)
            .map_err(|e| ErrorData::invalid_params(format!("tools/call: {e}"), None))?;
        let name = shorten(&request.name, 100);
        let found = self.inner.by_name.get(request.name.as_ref());
        let index = match found {
            Some(&index) if self.inner.tools[index].task != TaskSupport::Forbidden => index,
            None if !self.inner.meta_tools.iter().any(|t| t.name == request.name) => {
                return Err(ErrorData::invalid_params(
                    format!("unknown tool `{name}`"),
                    None,
                ));
            }
            // As 2025-11-25 says for a tool whose `taskSupport` is forbidden
            // (tool_search and execute_tool included).
            _ => {
                return Err(ErrorData::new(
                    ErrorCode::METHOD_NOT_FOUND,
                    format!("the tool `{name}` does not run as a task: call it without `task`"),
                    None,
                ));
            }
        };
        // The client may ask for less time than the server keeps tasks, not
        // more, nor so little that the task is gone before it can be read.
        let most = self.inner.tasks.ttl;
        let ttl = requested_ttl
            .map(Duration::from_millis)
            .map_or(most, |t| t.clamp(MIN_TTL.min(most), most));
        let record = self
            .start_task(index, request.arguments, context, ttl)
            .await?;
        Ok(json!({"task": task_json(&record)}))
    }

    /// `tasks/result`: waits for the task to end (bounded by its time to
    /// live and by the client cancelling the request), then answers what the
    /// call itself would have.
    async fn legacy_result(
        &self,
        id: &str,
        context: &RequestContext<RoleServer>,
    ) -> Result<Value, ErrorData> {
        let record = loop {
            // Taken before the look, so an end in between is not missed: a
            // `Notified` hears `notify_waiters` from its creation on.
            let ending = self.ending_of(id);
            let ended = ending.as_ref().map(|n| n.notified());
            // A task run elsewhere has nothing to wake on here: the poll sees it.
            let ended = async move {
                match ended {
                    Some(ended) => ended.await,
                    None => std::future::pending().await,
                }
            };
            let record = self.visible_task(id, context).await?;
            if record.state.is_terminal() {
                break record;
            }
            tokio::select! {
                () = ended => {}
                // A task run by another instance sharing the store.
                () = tokio::time::sleep(POLL_INTERVAL) => {}
                () = context.ct.cancelled() => {
                    return Err(ErrorData::invalid_request("tasks/result was cancelled by the client", None));
                }
            }
        };
        match record.state {
            TaskState::Completed { result } => Ok(call_result_for_session(result, &record.id)),
            TaskState::Failed { error } => {
                let code = error
                    .get("code")
                    .and_then(Value::as_i64)
                    .and_then(|c| i32::try_from(c).ok())
                    .unwrap_or(ErrorCode::INTERNAL_ERROR.0);
                let message = error
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("the task failed")
                    .to_owned();
                Err(ErrorData::new(
                    ErrorCode(code),
                    message,
                    error.get("data").cloned(),
                ))
            }
            TaskState::Cancelled => Err(ErrorData::invalid_params(
                format!(
                    "the task `{}` was cancelled: it has no result",
                    shorten(id, 100)
                ),
                None,
            )),
            TaskState::Working => Err(ErrorData::internal_error("the task is still working", None)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rerouted(message: Value) -> Option<Value> {
        let bytes = reroute(message.to_string().as_bytes())?;
        Some(serde_json::from_slice(&bytes).expect("JSON"))
    }

    #[test]
    fn only_old_style_task_requests_are_renamed() {
        let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "job", "arguments": {"n": 1}, "task": {"ttl": 5000}}});
        let renamed = rerouted(call.clone()).expect("rerouted");
        assert_eq!(renamed["method"], CALL);
        assert_eq!(renamed["params"], call["params"]);
        assert_eq!(renamed["id"], 1);

        for method in ["tasks/get", "tasks/cancel"] {
            let message =
                json!({"jsonrpc": "2.0", "id": 2, "method": method, "params": {"taskId": "t"}});
            assert_ne!(rerouted(message).expect("rerouted")["method"], method);
        }
        // A plain call, a null task, a 2026-07-28 request, other methods, not JSON.
        let untouched = [
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "task"}}),
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "job", "task": null}}),
            json!({"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"taskId": "t",
                "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}}),
            json!({"jsonrpc": "2.0", "id": 1, "method": "tasks/result", "params": {"taskId": "t"}}),
            json!({"jsonrpc": "2.0", "id": 1, "result": {"task": {}}}),
            json!(["tasks/get"]),
        ];
        for message in untouched {
            assert_eq!(rerouted(message.clone()), None, "{message}");
        }
        assert_eq!(reroute(b"{\"task"), None);
    }

    async fn pumped(input: &[u8], max_line: usize) -> Vec<u8> {
        let mut out = Vec::new();
        pump(input, &mut out, max_line).await.expect("pumped");
        out
    }

    #[tokio::test]
    async fn stdio_lines_are_rerouted_one_by_one_and_long_ones_pass_as_they_are() {
        let get =
            json!({"jsonrpc": "2.0", "id": 2, "method": "tasks/get", "params": {"taskId": "t"}});
        let input = format!("{{\"jsonrpc\":\"2.0\",\"method\":\"x\"}}\n{get}\n{{not json\nlast");
        let out = String::from_utf8(pumped(input.as_bytes(), 1024).await).expect("UTF-8");
        let lines: Vec<&str> = out.split('\n').collect();
        assert_eq!(lines.len(), 4, "{out}");
        assert_eq!(lines[0], "{\"jsonrpc\":\"2.0\",\"method\":\"x\"}");
        let renamed: Value = serde_json::from_str(lines[1]).expect("JSON");
        assert_eq!(renamed["method"], GET);
        assert_eq!(lines[2], "{not json");
        assert_eq!(lines[3], "last");

        // Over the limit: byte for byte, and the next line is looked at again.
        let long = format!("{get}{}", " ".repeat(100));
        let input = format!("{long}\n{get}\n");
        let out = String::from_utf8(pumped(input.as_bytes(), 128).await).expect("UTF-8");
        let mut lines = out.lines();
        assert_eq!(lines.next(), Some(long.as_str()));
        let renamed: Value = serde_json::from_str(lines.next().expect("line")).expect("JSON");
        assert_eq!(renamed["method"], GET);
    }

    /// Lines arriving a few bytes at a time are put back together.
    #[tokio::test]
    async fn lines_split_across_reads_are_rerouted_whole() {
        let get =
            json!({"jsonrpc": "2.0", "id": 2, "method": "tasks/get", "params": {"taskId": "t"}});
        let input = format!("{get}\r\n{get}");
        let (mut writer, reader) = tokio::io::duplex(7);
        let feed = tokio::spawn(async move {
            writer.write_all(input.as_bytes()).await.expect("write");
        });
        let mut out = Vec::new();
        pump(reader, &mut out, 1024).await.expect("pumped");
        feed.await.expect("fed");
        let out = String::from_utf8(out).expect("UTF-8");
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 2, "{out}");
        for line in lines {
            let renamed: Value = serde_json::from_str(line).expect("JSON");
            assert_eq!(renamed["method"], GET, "{out}");
        }
    }

    #[test]
    fn a_stored_result_reaches_a_session_in_its_shape() {
        let stored = serde_json::to_value(CallToolResult::success(vec![])).expect("JSON");
        assert_eq!(stored["resultType"], "complete");
        let sent = call_result_for_session(stored, "t-1");
        assert_eq!(sent.get("resultType"), None, "{sent}");
        assert_eq!(sent["_meta"][RELATED_TASK]["taskId"], "t-1");
    }

    #[test]
    fn initialize_gains_the_old_task_capability() {
        let mut result = json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}});
        patch_initialize(&mut result);
        assert_eq!(
            result["capabilities"]["tasks"],
            json!({"cancel": {}, "requests": {"tools": {"call": {}}}})
        );
    }
}
