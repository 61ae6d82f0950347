//! A tool's `[confirm]`, run before its handler: the one place that words the
//! question from the call's arguments and refuses the call when the person
//! does not say yes, for generated and run-time tools alike.

use crate::args::{ArgErrors, Map};
use crate::ask::{NotConfirmed, Question};
use crate::context::Context;
use crate::metadata::{MessagePart, message_parts};
use crate::tool_set::{BoxFuture, CallFuture};
use crate::{ToolError, ToolResult};

/// Starts a call: `run` decodes the arguments and starts the handler; when
/// the tool has a `[confirm]`, the person is asked first and the handler's
/// future is not polled until they accept. The question is worded from the
/// arguments as sent, before decoding takes them apart, and asked only once
/// they decode.
pub(crate) fn start<'a>(
    cx: Context,
    args: Map,
    run: impl FnOnce(Map, Context) -> Result<BoxFuture<'a, ToolResult>, ArgErrors>,
) -> CallFuture<'a> {
    let question = cx.confirm_metadata().map(|confirm| {
        (
            cx.clone(),
            Question::new(wording(&confirm.message, &args)),
            confirm.unsupported,
        )
    });
    match run(args, cx) {
        Ok(handler) => match question {
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

/// The error of a call whose confirmation did not get a yes.
fn refusal(tool: &str, why: NotConfirmed) -> ToolError {
    ToolError::new(match why {
        NotConfirmed::CannotAsk => {
            format!("`{tool}` needs the user's confirmation, and this client cannot ask for it")
        }
        other => format!("`{tool}` did not run: {other}"),
    })
}

/// A `[confirm]` message with each `{parameter}` replaced by its argument as
/// sent (a string as is, anything else as JSON), shown so that it cannot
/// hide what it does: invisible characters escaped, long runs of spaces
/// counted, and a long value cut in the middle, its end always shown.
fn wording(message: &str, args: &Map) -> String {
    // The build checked the message; a run-time tool's loader did too.
    let Ok(parts) = message_parts(message) else {
        return message.to_owned();
    };
    let mut text = String::new();
    for part in parts {
        match part {
            MessagePart::Text(t) => text.push_str(t),
            MessagePart::Placeholder(name) => {
                let value = match args.get(name) {
                    Some(serde_json::Value::String(s)) => s.clone(),
                    Some(serde_json::Value::Null) | None => "(not given)".to_owned(),
                    Some(other) => other.to_string(),
                };
                text.push_str(&crate::text::visible(&value, 200));
            }
        }
    }
    text
}
