//! Tasks the 2025-11-25 way, served (gap 2 of `compat`): the requests `compat`'s
//! transport renamed, answered from the same task store as the Tasks extension.

use crate::metadata::TaskSupport;
use crate::server::Server;
use crate::server::catalog::Entry;
use crate::server::compat::tasks_2025::{
    CALL, CANCEL, GET, MIN_TTL, RESULT, call_result_for_session, legacy_shape, task_id, task_json,
};
use crate::server::generation::Generation;
use crate::server::policy::access::Caller;
use crate::server::store::TaskState;
use crate::server::task::{POLL_INTERVAL, already_ended};
use rmcp::ErrorData;
use rmcp::model::{CallToolRequestParams, CustomRequest, ErrorCode, ServerResult};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::{Map, Value, json};
use std::time::Duration;
use toolmetadata_core::seam::shorten;

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
    let index = match inner.catalog.find(&request.name, server.scope(context)) {
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
    server.inner.tasks.delivered(&record).await;
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
