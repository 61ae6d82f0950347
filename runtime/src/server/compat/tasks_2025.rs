//! Gaps 2 and 3 of `compat`: tasks as a 2025-11-25 session asks for them
//! (SEP-1686). The client adds `"task": {"ttl": …}` to the params of
//! `tools/call` and gets `{"task": …}` back at once; `tasks/get` answers the
//! task's fields, `tasks/result` waits for the end and answers the call's own
//! result, `tasks/cancel` answers the cancelled task, and when the task ends
//! (here, or cancelled through another instance) the session's client is
//! sent `notifications/tasks/status`. The server declares
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
    CallToolResult, ClientJsonRpcMessage, ClientRequest, CustomNotification, CustomRequest,
    CustomResult, JsonRpcMessage, ServerJsonRpcMessage, ServerNotification, ServerResult,
};
use rmcp::service::{Peer, RoleServer};
use serde_json::{Map, Value, json};

use crate::server::generation::Generation;
use crate::server::store::TaskRecord;
use crate::server::task::{POLL_INTERVAL, status_name};
use crate::server::task_input::RELATED_TASK;

/// The method `request` was sent as (before the transport renamed it), and
/// for a `tools/call` the tool it names: what its span and access line say.
pub(in crate::server) fn sent_as(request: &CustomRequest) -> (&'static str, Option<&str>) {
    match request.method.as_str() {
        CALL => (
            "tools/call",
            request
                .params
                .as_ref()
                .and_then(|p| p.get("name"))
                .and_then(Value::as_str),
        ),
        GET | "tasks/get" => ("tasks/get", None),
        CANCEL | "tasks/cancel" => ("tasks/cancel", None),
        RESULT => ("tasks/result", None),
        _ => ("custom", None),
    }
}

/// Unknown to rmcp: it reaches `on_custom_request` under its own name.
pub(in crate::server) const RESULT: &str = "tasks/result";

/// The least time a task asked for with `task` is kept: a client's `ttl`
/// below it is raised (2025-11-25 lets the server decide).
pub(in crate::server) const MIN_TTL: Duration = Duration::from_secs(60);

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
pub(in crate::server) fn call_result_for_session(stored: Value, id: &str) -> Value {
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
pub(in crate::server) fn legacy_shape(mut result: ServerResult) -> Value {
    result.strip_result_type_for_legacy_peer();
    result.strip_non_object_output_for_legacy_peer();
    serde_json::to_value(result).unwrap_or_default()
}

/// A task as 2025-11-25 shows it.
pub(in crate::server) fn task_json(record: &TaskRecord) -> Value {
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

/// How long telling a client of its task's end may take: one that does not
/// read is not waited for.
const TELL_TIMEOUT: Duration = Duration::from_secs(2);

/// Tells a session's client that its task ended
/// (`notifications/tasks/status`, the task as `tasks/get` shows it).
pub(in crate::server) async fn tell_status(peer: Peer<RoleServer>, record: TaskRecord) {
    let notification = ServerNotification::CustomNotification(CustomNotification::new(
        "notifications/tasks/status",
        Some(task_json(&record)),
    ));
    match tokio::time::timeout(TELL_TIMEOUT, peer.send_notification(notification)).await {
        Ok(Ok(())) => {}
        Ok(Err(e)) => tracing::debug!(task = %record.id, "the task's end not told: {e}"),
        Err(_) => {
            tracing::debug!(task = %record.id, "the task's end not told: the client does not read")
        }
    }
}

pub(in crate::server) fn task_id(params: Option<&Value>) -> Result<&str, ErrorData> {
    params
        .and_then(|p| p.get("taskId"))
        .and_then(Value::as_str)
        .ok_or_else(|| ErrorData::invalid_params("`taskId` (a string) is required", None))
}

/// `tools/call` with `task` in its params, renamed for `on_custom_request`.
pub(in crate::server) const CALL: &str = "io.toolmetadata/2025-11-25/tools/call";
/// `tasks/get` from a 2025-11-25 session, renamed.
pub(in crate::server) const GET: &str = "io.toolmetadata/2025-11-25/tasks/get";
/// `tasks/cancel` from a 2025-11-25 session, renamed.
pub(in crate::server) const CANCEL: &str = "io.toolmetadata/2025-11-25/tasks/cancel";

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
