//! A tool's `[confirm]` made ready to ask: its message worded from a call's
//! arguments, with the defaults that take effect for those not given.

use crate::args::Map;
use crate::metadata::{Confirm, MessagePart, message_parts};

/// A tool's `[confirm]`, with what its question needs besides the
/// arguments: the defaults of the parameters, which take effect when an
/// argument is not given.
#[derive(Debug, Clone)]
pub struct ConfirmPlan {
    /// The tool's `[confirm]`.
    pub confirm: Confirm,
    /// The parameters' defaults, by name.
    pub defaults: Map,
}

impl ConfirmPlan {
    /// The plan of `confirm` for a tool whose input schema is `schema`.
    pub fn new(confirm: Confirm, schema: &Map) -> Self {
        let defaults = schema
            .get("properties")
            .and_then(serde_json::Value::as_object)
            .map(|properties| {
                properties
                    .iter()
                    .filter_map(|(name, property)| {
                        Some((name.clone(), property.get("default")?.clone()))
                    })
                    .collect()
            })
            .unwrap_or_default();
        ConfirmPlan { confirm, defaults }
    }
}

/// A `[confirm]` message with each `{parameter}` replaced by its argument as
/// sent (a string as is, anything else as JSON), or by its default when it
/// is not given (what will then happen), shown so that it cannot hide what
/// it does: invisible characters escaped, long runs of spaces counted, and
/// a long value cut in the middle, its end always shown.
pub(crate) fn wording(message: &str, args: &Map, defaults: &Map) -> String {
    // The build checked the message; a run-time tool's loader did too.
    let Ok(parts) = message_parts(message) else {
        return message.to_owned();
    };
    let mut text = String::new();
    for part in parts {
        match part {
            MessagePart::Text(t) => text.push_str(t),
            MessagePart::Placeholder(name) => {
                let given = args.get(name).filter(|v| !v.is_null());
                let value = match given.or_else(|| defaults.get(name)) {
                    Some(serde_json::Value::String(s)) => s.clone(),
                    Some(other) => other.to_string(),
                    None => "(not given)".to_owned(),
                };
                text.push_str(&crate::text::visible(&value, 200));
            }
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(value: serde_json::Value) -> Map {
        value.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn a_missing_argument_shows_the_default_that_takes_effect() {
        let schema = map(json!({"type": "object", "properties": {
            "path": {"type": "string"},
            "overwrite": {"type": "boolean", "default": false},
            "mode": {"type": "string", "default": "fast"}
        }}));
        let confirm = Confirm {
            message: "Move {path}? Overwrite: {overwrite}, mode {mode}".into(),
            unsupported: Default::default(),
        };
        let plan = ConfirmPlan::new(confirm, &schema);
        let asked = |args| wording(&plan.confirm.message, &map(args), &plan.defaults);
        assert_eq!(
            asked(json!({"path": "a"})),
            "Move a? Overwrite: false, mode fast"
        );
        assert_eq!(
            asked(json!({"overwrite": true, "mode": null})),
            "Move (not given)? Overwrite: true, mode fast"
        );
    }
}
