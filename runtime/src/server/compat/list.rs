//! Gap 1 of `compat`: the keys of a rendered `tools/list` entry that rmcp's
//! `Tool` cannot hold (`execution`, SEP-1686), put back into the answer.
//!
//! `ListToolsResult` can only carry `Tool`s, so the server remembers, per
//! tool, the keys of its pre-rendered entry that the `Tool` dropped, and the
//! `tools/list` answer is re-typed as a custom result holding the entries
//! whole. Whatever rmcp learns to hold later is no longer dropped, so
//! nothing is added twice, and this module can go once nothing is.

use std::collections::BTreeMap;

use rmcp::model::{CustomResult, ServerResult, Tool};
use serde_json::{Map, Value};

/// Per tool name, the top-level keys of its entry that rmcp's `Tool` drops.
#[derive(Debug, Default, Clone)]
pub(in crate::server) struct ListExtras {
    by_tool: BTreeMap<String, Map<String, Value>>,
}

impl ListExtras {
    /// Remembers what `tool`, parsed from `entry`, lost.
    pub(in crate::server) fn record(&mut self, entry: &Value, tool: &Tool) {
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

    /// A `tools/list` answer with the lost keys back: the same answer when
    /// no tool lost anything.
    pub(super) fn restore(&self, result: ServerResult) -> ServerResult {
        if self.by_tool.is_empty() {
            return result;
        }
        let ServerResult::ListToolsResult(list) = &result else {
            return result;
        };
        match serde_json::to_value(list) {
            Ok(mut value) => {
                self.patch_result(&mut value);
                ServerResult::CustomResult(CustomResult(value))
            }
            Err(_) => result,
        }
    }

    /// True when no tool lost anything: nothing to patch.
    #[cfg(feature = "http")]
    pub(super) fn is_empty(&self) -> bool {
        self.by_tool.is_empty()
    }

    /// Adds the lost keys to each tool of a `tools/list` result object.
    pub(in crate::server) fn patch_result(&self, result: &mut Value) {
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
        let other = Tool::new("other", "o", serde_json::Map::new());
        let list = rmcp::model::ListToolsResult::with_all_items(vec![tool, other.clone()]);
        let ServerResult::CustomResult(CustomResult(result)) =
            extras.restore(ServerResult::ListToolsResult(list))
        else {
            panic!("not restored");
        };
        assert_eq!(result["tools"][0], entry);
        assert_eq!(
            result["tools"][1],
            serde_json::to_value(&other).expect("json")
        );
    }
}
