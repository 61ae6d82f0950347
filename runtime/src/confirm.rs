//! A tool's `[confirm]`, run before its handler: the one place that words the
//! question from the call's arguments and refuses the call when the person
//! does not say yes, for generated and run-time tools alike.

use crate::args::{ArgErrors, Map};
use crate::ask::{NotConfirmed, Question};
use crate::context::Context;
use crate::metadata::{Confirm, MessagePart, Unsupported, message_parts};
use crate::tool_set::{BoxFuture, CallFuture};
use crate::{ToolError, ToolResult};

/// The question a call's `[confirm]` asks, worded from its arguments as
/// sent, before decoding takes them apart; nothing for a tool without one.
///
/// A call is started in two steps around its decoding: [`Asking::of`] words
/// the question, [`Asking::then`] starts the decoded call, asking first. The
/// handler's future is not polled until the person accepts, and the question
/// is asked only once the arguments decode. Decoding is generic (each tool
/// has its own argument type); the two steps are not, so a generated server
/// compiles the confirmation once, not once per tool.
pub(crate) struct Asking(Option<(Context, Question, Unsupported)>);

impl Asking {
    /// The question of a call of `cx`'s tool with `args`, if it has one.
    pub(crate) fn of(cx: &Context, args: &Map) -> Self {
        Asking(cx.confirm_plan().map(|plan| {
            (
                cx.clone(),
                Question::new(wording(&plan.confirm.message, args, &plan.defaults)),
                plan.confirm.unsupported,
            )
        }))
    }

    /// The call whose handler `started` is, asked first when there is a
    /// question, or refused when its arguments did not decode.
    pub(crate) fn then<'a>(
        self,
        started: Result<BoxFuture<'a, ToolResult>, ArgErrors>,
    ) -> CallFuture<'a> {
        match started {
            Ok(handler) => match self.0 {
                None => CallFuture::running(handler),
                Some((cx, question, unsupported)) => CallFuture::confirming(
                    Box::pin(async move {
                        cx.confirm(question, unsupported)
                            .await
                            .map_err(|why| refusal(cx.tool(), why))
                    }),
                    handler,
                ),
            },
            Err(errors) => CallFuture::invalid(errors),
        }
    }
}

/// The error of a call whose confirmation did not get a yes.
fn refusal(tool: &str, why: NotConfirmed) -> ToolError {
    ToolError::new(match why {
        NotConfirmed::CannotAsk => {
            format!("`{tool}` needs the user's confirmation, and this client cannot ask for it")
        }
        other => format!("`{tool}` did not run: {other}"),
    })
}

/// A tool's `[confirm]`, with what its question needs besides the
/// arguments: the defaults of the parameters, which take effect when an
/// argument is not given.
#[derive(Debug, Clone)]
pub(crate) struct ConfirmPlan {
    pub(crate) confirm: Confirm,
    pub(crate) defaults: Map,
}

impl ConfirmPlan {
    /// The plan of `confirm` for a tool whose input schema is `schema`.
    #[cfg_attr(not(feature = "server"), allow(dead_code))]
    pub(crate) fn new(confirm: Confirm, schema: &Map) -> Self {
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
fn wording(message: &str, args: &Map, defaults: &Map) -> String {
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
