//! Gap 2 of `compat`: the `task` param of a 2025-11-25 `tools/call`, which
//! rmcp's types drop. The transports read it beside rmcp (stdio by line,
//! HTTP by body) and [`Transport`](super::Transport) takes it back by
//! request id when rmcp hands the call on. Without `tasks` or `sessions`
//! none of this is built: no line or body is read for it.

use rmcp::model::RequestId;
use serde_json::Value;

use super::line_notes::SeenTasks;
#[cfg(feature = "http")]
use crate::server::peek::Peek;

/// The parts of a stdin line that say whether it is a `tools/call` with
/// `task`.
#[derive(serde::Deserialize)]
struct LinePeek {
    /// As rmcp reads it (`1.0` is the id 1).
    id: RequestId,
    #[serde(default)]
    method: Option<String>,
    #[serde(default)]
    params: Option<LinePeekParams>,
}

#[derive(serde::Deserialize)]
struct LinePeekParams {
    #[serde(default)]
    task: Option<Value>,
}

/// The request id and `task` param of a `tools/call` line that has one.
pub(in crate::server) fn of_line(line: &[u8]) -> Option<(RequestId, Value)> {
    // Most lines are no task call: no parse for them.
    if !line.windows(6).any(|w| w == b"\"task\"") {
        return None;
    }
    let peek: LinePeek = serde_json::from_slice(line).ok()?;
    if peek.method.as_deref() != Some("tools/call") {
        return None;
    }
    let task = peek.params?.task.filter(|t| !t.is_null())?;
    Some((peek.id, task))
}

/// The `task` params that the HTTP layer read from the `tools/call`
/// requests of a body (one body may hold a batch), by request id, in the
/// request's extensions.
#[cfg(feature = "http")]
#[derive(Debug, Clone, Default)]
pub(in crate::server) struct TaskParams(std::sync::Arc<[(RequestId, Value)]>);

#[cfg(feature = "http")]
impl TaskParams {
    /// The `task` param of the request `id`.
    pub(in crate::server) fn of(&self, id: &RequestId) -> Option<Value> {
        self.0
            .iter()
            .find(|(seen, _)| seen == id)
            .map(|(_, task)| task.clone())
    }
}

/// The `task` params of the `tools/call` requests among a body's
/// `messages`; `None` when there are none.
#[cfg(feature = "http")]
pub(in crate::server) fn of_body(messages: &[Peek]) -> Option<TaskParams> {
    let found: Vec<(RequestId, Value)> = messages
        .iter()
        .filter(|m| m.method.as_deref() == Some("tools/call"))
        .filter_map(|m| {
            let task = m.params.as_ref()?.task.as_ref()?;
            // As rmcp reads the id (`1.0` is the id 1).
            let id = serde_json::from_value::<RequestId>(m.id.clone()).ok()?;
            (!task.is_null()).then(|| (id, task.clone()))
        })
        .collect();
    (!found.is_empty()).then(|| TaskParams(found.into()))
}

/// The `task` param read for the request `id`: from what stdio's line gate
/// noted (`stdio`, on stdio), or from what the HTTP layer put in the
/// request's extensions.
pub(super) fn taken(
    stdio: Option<&SeenTasks>,
    id: &RequestId,
    extensions: &rmcp::model::Extensions,
) -> Option<Value> {
    if let Some(seen) = stdio {
        return seen.take(id);
    }
    #[cfg(feature = "http")]
    if let Some(parts) = extensions.get::<axum::http::request::Parts>() {
        return parts.extensions.get::<TaskParams>()?.of(id);
    }
    let _ = extensions;
    None
}

#[cfg(all(test, feature = "http"))]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_the_task_params_of_tool_calls_are_taken() {
        let messages: Vec<Peek> = serde_json::from_value(json!([
            {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "job", "arguments": {"task": 1}, "task": {"ttl": 5}}},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "job", "task": null}},
            {"jsonrpc": "2.0", "id": 3, "method": "tasks/get", "params": {"taskId": "t", "task": {}}},
            {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "task"}},
        ]))
        .expect("peeks");
        let found = of_body(&messages).expect("one");
        assert_eq!(&found.0[..], &[(RequestId::Number(1), json!({"ttl": 5}))]);
        assert!(of_body(&messages[1..]).is_none());
        // An id in float form is the integer rmcp reads.
        let float: Vec<Peek> = serde_json::from_value(json!([
            {"jsonrpc": "2.0", "id": 7.0, "method": "tools/call", "params": {"name": "job", "task": {}}}
        ]))
        .expect("peeks");
        let found = of_body(&float).expect("one");
        assert_eq!(found.of(&RequestId::Number(7)), Some(json!({})));
    }
}
