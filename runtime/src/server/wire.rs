//! The fields of a rendered `tools/list` entry that rmcp's `Tool` cannot hold,
//! put back on the wire.
//!
//! rmcp 3.11's `Tool` has no field for `execution` (`taskSupport`, SEP-1686),
//! so an entry deserialized into it loses that key, and `ListToolsResult` can
//! only carry `Tool`s. The server therefore remembers, per tool, the keys of
//! its pre-rendered entry that the `Tool` dropped, and adds them to each
//! outgoing `tools/list` answer: on stdio by wrapping the transport (the
//! answer is re-typed as a custom result holding the patched JSON), over HTTP
//! in the response body (see `http_wire`). Whatever rmcp learns to hold later
//! is no longer dropped, so nothing is added twice. The `initialize` answer
//! gets 2025-11-25's task capability the same way.

use std::collections::BTreeMap;
use std::future::Future;

use rmcp::RoleServer;
use rmcp::model::{CustomResult, JsonRpcMessage, ServerJsonRpcMessage, ServerResult, Tool};
use rmcp::transport::Transport;
use serde_json::{Map, Value};

/// Per tool name, the top-level keys of its entry that rmcp's `Tool` drops.
#[derive(Debug, Default, Clone)]
pub(crate) struct ListExtras {
    by_tool: BTreeMap<String, Map<String, Value>>,
}

impl ListExtras {
    /// Remembers what `tool`, parsed from `entry`, lost.
    pub(super) fn record(&mut self, entry: &Value, tool: &Tool) {
        let (Value::Object(entry), Ok(Value::Object(kept))) = (entry, serde_json::to_value(tool))
        else {
            return;
        };
        let lost: Map<String, Value> = entry
            .iter()
            .filter(|(key, _)| !kept.contains_key(*key))
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect();
        if !lost.is_empty() {
            self.by_tool.insert(tool.name.to_string(), lost);
        }
    }

    /// True when no tool lost anything: nothing to patch.
    pub(crate) fn is_empty(&self) -> bool {
        self.by_tool.is_empty()
    }

    /// Adds the lost keys to each tool of a `tools/list` result object.
    pub(crate) fn patch_result(&self, result: &mut Value) {
        let Some(tools) = result.get_mut("tools").and_then(Value::as_array_mut) else {
            return;
        };
        for tool in tools.iter_mut().filter_map(Value::as_object_mut) {
            let Some(lost) = tool
                .get("name")
                .and_then(Value::as_str)
                .and_then(|name| self.by_tool.get(name))
            else {
                continue;
            };
            for (key, value) in lost {
                tool.entry(key.clone()).or_insert_with(|| value.clone());
            }
        }
    }
}

/// A server transport whose `tools/list` answers carry the lost keys, and
/// whose `initialize` answer declares 2025-11-25's tasks when some tool runs
/// as a task (see `task_legacy`).
pub(super) struct Patched<T> {
    pub(super) inner: T,
    pub(super) extras: std::sync::Arc<ListExtras>,
    pub(super) legacy_tasks: bool,
}

impl<T> Patched<T> {
    /// An outgoing message with its `tools/list` or `initialize` answer
    /// patched; any other message as it is.
    fn patch_message(&self, message: ServerJsonRpcMessage) -> ServerJsonRpcMessage {
        let JsonRpcMessage::Response(mut response) = message else {
            return message;
        };
        let patched = match &response.result {
            ServerResult::ListToolsResult(list) if !self.extras.is_empty() => {
                serde_json::to_value(list).ok().map(|mut value| {
                    self.extras.patch_result(&mut value);
                    value
                })
            }
            ServerResult::InitializeResult(init) if self.legacy_tasks => {
                serde_json::to_value(init).ok().map(|mut value| {
                    super::task_legacy::patch_initialize(&mut value);
                    value
                })
            }
            _ => None,
        };
        if let Some(value) = patched {
            response.result = ServerResult::CustomResult(CustomResult(value));
        }
        JsonRpcMessage::Response(response)
    }
}

impl<T: Transport<RoleServer>> Transport<RoleServer> for Patched<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let item = self.patch_message(item);
        self.inner.send(item)
    }

    fn receive(
        &mut self,
    ) -> impl Future<Output = Option<rmcp::service::RxJsonRpcMessage<RoleServer>>> + Send {
        self.inner.receive()
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lost_keys_are_put_back_once() {
        let entry = json!({"name": "job", "description": "d",
            "inputSchema": {"type": "object", "properties": {}},
            "execution": {"taskSupport": "optional"}});
        let tool: Tool = serde_json::from_value(entry.clone()).expect("a tool");
        let mut extras = ListExtras::default();
        extras.record(&entry, &tool);
        assert!(!extras.is_empty());
        let mut result =
            json!({"tools": [serde_json::to_value(&tool).expect("json"), {"name": "other"}]});
        extras.patch_result(&mut result);
        assert_eq!(result["tools"][0], entry);
        assert_eq!(result["tools"][1], json!({"name": "other"}));
    }
}
