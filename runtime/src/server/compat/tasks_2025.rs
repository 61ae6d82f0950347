//! Gaps 2 and 3 of `compat`: tasks as a 2025-11-25 session asks for them
//! (SEP-1686). The client adds `"task": {"ttl": …}` to the params of
//! `tools/call` and gets `{"task": …}` back at once; `tasks/get` answers the
//! task's fields, `tasks/result` waits for the end and answers the call's own
//! result, `tasks/cancel` answers the cancelled task. The server declares
//! `capabilities.tasks` in its `initialize` answer.
//!
//! rmcp 3.11 speaks only the Tasks extension of 2026-07-28, which is not
//! wire-compatible (see the parent module for what it drops). So, as the
//! extension's own compatibility section suggests, the old flow is served
//! beside the new one: the transports read the `task` param that rmcp's
//! parsing drops, and [`answer`] serves the old requests of a session whose
//! client did not declare the extension. Both flows share the store, the
//! runner and the owner check of `task`; a client that declared the
//! extension gets the extension's shapes from `tasks/get` and
//! `tasks/cancel`, whichever flow started the task.

use std::time::Duration;

use rmcp::ErrorData;
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientJsonRpcMessage, ClientRequest, CustomRequest,
    CustomResult, ErrorCode, JsonRpcMessage, ServerJsonRpcMessage, ServerResult,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::{Map, Value, json};

use crate::metadata::TaskSupport;
use crate::server::Server;
use crate::server::access::Caller;
use crate::server::catalog::Entry;
use crate::server::generation::Generation;
use crate::server::store::{TaskRecord, TaskState};
use crate::server::task::{POLL_INTERVAL, already_ended, status_name};
use toolmetadata_core::seam::shorten;

/// Unknown to rmcp: it reaches `on_custom_request` under its own name.
const RESULT: &str = "tasks/result";

/// The least time a task asked for with `task` is kept: a client's `ttl`
/// below it is raised (2025-11-25 lets the server decide).
const MIN_TTL: Duration = Duration::from_secs(60);

/// Where the related task is named in the `_meta` of `tasks/result`'s answer
/// and of a task's requests to its client.
pub(in crate::server) const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";

/// The `initialize` answer with 2025-11-25's task capability added, when
/// `message` is one (gap 3): re-typed as a custom result holding the
/// patched JSON. Any other message as it is.
pub(crate) fn patch_initialize_answer(message: ServerJsonRpcMessage) -> ServerJsonRpcMessage {
    let JsonRpcMessage::Response(mut response) = message else {
        return message;
    };
    if let ServerResult::InitializeResult(init) = &response.result
        && let Ok(mut value) = serde_json::to_value(init)
    {
        patch_initialize(&mut value);
        response.result = ServerResult::CustomResult(CustomResult(value));
    }
    JsonRpcMessage::Response(response)
}

/// Adds 2025-11-25's task capability to an `initialize` result: tool calls
/// may be tasks, and tasks may be cancelled. Not on 2026-07-28, where the
/// extension says it.
fn patch_initialize(result: &mut Value) {
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
        "status": status_name(record),
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

/// `tools/call` with `task` in its params, renamed for `on_custom_request`.
const CALL: &str = "io.toolmetadata/2025-11-25/tools/call";
/// `tasks/get` from a 2025-11-25 session, renamed.
const GET: &str = "io.toolmetadata/2025-11-25/tasks/get";
/// `tasks/cancel` from a 2025-11-25 session, renamed.
const CANCEL: &str = "io.toolmetadata/2025-11-25/tasks/cancel";

/// Whether `method` is one of the requests [`serve`] serves.
pub(crate) fn is_request(method: &str) -> bool {
    matches!(
        method,
        CALL | GET | CANCEL | RESULT | "tasks/get" | "tasks/cancel"
    )
}

/// A request of 2025-11-25's task flow, as rmcp parsed it, turned into the
/// custom request that `on_custom_request` serves: a `tools/call` whose
/// `task` param the transport read (`task`), `tasks/get` and
/// `tasks/cancel`. Every other message, and each request that names a
/// 2026-07-28 version in its `_meta`, as it is.
pub(super) fn reroute(message: ClientJsonRpcMessage, task: Option<Value>) -> ClientJsonRpcMessage {
    let JsonRpcMessage::Request(mut request) = message else {
        return message;
    };
    if !Generation::of_request(&request.request).is_session() {
        return JsonRpcMessage::Request(request);
    }
    let renamed = match &request.request {
        ClientRequest::CallToolRequest(call) => task.and_then(|task| {
            let mut params = serde_json::to_value(&call.params).ok()?;
            params.as_object_mut()?.insert("task".to_owned(), task);
            Some((CALL, params, call.extensions.clone()))
        }),
        ClientRequest::GetTaskRequest(get) => serde_json::to_value(&get.params)
            .ok()
            .map(|params| (GET, params, get.extensions.clone())),
        ClientRequest::CancelTaskRequest(cancel) => serde_json::to_value(&cancel.params)
            .ok()
            .map(|params| (CANCEL, params, cancel.extensions.clone())),
        _ => None,
    };
    if let Some((method, params, extensions)) = renamed {
        let mut custom = CustomRequest::new(method, Some(params));
        custom.extensions = extensions;
        request.request = ClientRequest::CustomRequest(custom);
    }
    JsonRpcMessage::Request(request)
}

/// The requests of 2025-11-25's tasks; any other custom method is unknown,
/// and so are these on 2026-07-28 or when no tool runs as a task.
pub(crate) async fn serve(
    server: &Server,
    request: CustomRequest,
    context: RequestContext<RoleServer>,
) -> Result<Value, ErrorData> {
    let session = Generation::of(&context).is_session();
    let has_tasks = server.inner.catalog.runs_tasks();
    let extension = context
        .client_capabilities()
        .is_some_and(|c| c.supports_tasks());
    let params = request.params.as_ref();
    let caller = Caller::of(&context);
    // rmcp hands on a `tasks/get` or `tasks/cancel` whose params it could
    // not parse (no `taskId`) as a custom request: the same request.
    let method = match request.method.as_str() {
        "tasks/get" => GET,
        "tasks/cancel" => CANCEL,
        other => other,
    };
    match method {
        CALL if session && has_tasks => call_as_task(server, params, &context).await,
        // A session whose client declared the extension asks the new way
        // under the old names: it gets the new shapes.
        GET if session && has_tasks && extension => {
            let state = server.inner.tasks.state(task_id(params)?, &caller).await?;
            Ok(legacy_shape(ServerResult::GetTaskResult(state)))
        }
        CANCEL if session && has_tasks && extension => {
            server.inner.tasks.cancel(task_id(params)?, &caller).await?;
            Ok(legacy_shape(ServerResult::task_ack(())))
        }
        GET if session && has_tasks => {
            let record = server
                .inner
                .tasks
                .visible(task_id(params)?, &caller)
                .await?;
            Ok(task_json(&record))
        }
        CANCEL if session && has_tasks => {
            let record = server.inner.tasks.cancel(task_id(params)?, &caller).await?;
            match already_ended(&record) {
                Some(error) => Err(error),
                None => Ok(task_json(&record)),
            }
        }
        RESULT if session && has_tasks => result(server, task_id(params)?, &context).await,
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
async fn call_as_task(
    server: &Server,
    params: Option<&Value>,
    context: &RequestContext<RoleServer>,
) -> Result<Value, ErrorData> {
    let params = params.cloned().unwrap_or_else(|| Value::Object(Map::new()));
    let requested_ttl = match params.get("task") {
        Some(Value::Object(task)) => match task.get("ttl") {
            None | Some(Value::Null) => None,
            Some(ttl) => Some(ttl.as_u64().ok_or_else(|| {
                ErrorData::invalid_params("`task.ttl` must be a whole number of milliseconds", None)
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
    let inner = &server.inner;
    let name = shorten(&request.name, 100);
    let index = match inner.catalog.find(&request.name) {
        Some(Entry::Tool(index, served)) if served.task != TaskSupport::Forbidden => index,
        None => {
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
    let most = inner.tasks.ttl;
    let ttl = requested_ttl
        .map(Duration::from_millis)
        .map_or(most, |t| t.clamp(MIN_TTL.min(most), most));
    let record = server
        .start_task(index, request.arguments, context, ttl, None)
        .await?;
    Ok(json!({"task": task_json(&record)}))
}

/// `tasks/result`: waits for the task to end (bounded by its time to
/// live and by the client cancelling the request), then answers what the
/// call itself would have.
async fn result(
    server: &Server,
    id: &str,
    context: &RequestContext<RoleServer>,
) -> Result<Value, ErrorData> {
    let record = loop {
        // Taken before the look, so an end in between is not missed: a
        // `Notified` hears `notify_waiters` from its creation on.
        let ending = server.inner.tasks.ending_of(id);
        let ended = ending.as_ref().map(|n| n.notified());
        // A task run elsewhere has nothing to wake on here: the poll sees it.
        let ended = async move {
            match ended {
                Some(ended) => ended.await,
                None => std::future::pending().await,
            }
        };
        let record = server.inner.tasks.visible(id, &Caller::of(context)).await?;
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

#[cfg(test)]
mod tests {
    use super::*;

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
