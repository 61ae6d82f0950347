//! A tool's `[confirm]`, run before its handler: the one place that words the
//! question from the call's arguments and refuses the call when the person
//! does not say yes, for generated and run-time tools alike.

use crate::ToolError;
use crate::args::Map;
use crate::ask::{NotConfirmed, Question};
use crate::call_future::{CallFuture, Started};
use crate::confirm_plan::wording;
use crate::context::Context;
use crate::metadata::Unsupported;

/// The question a call's `[confirm]` asks, worded from its arguments as
/// sent, before decoding takes them apart; nothing for a tool without one.
///
/// A call is started in two steps around its decoding: [`Asking::of`] words
/// the question, [`Asking::then`] starts the decoded call, asking first. The
/// handler's future is not polled until the person accepts, and the question
/// is asked only once the arguments decode. Decoding is generic (each tool
/// has its own argument type); the two steps are not, so a generated server
/// compiles the confirmation once, not once per tool.
pub struct Asking(Option<(Context, Question, Unsupported)>);

impl Asking {
    /// The question of a call of `cx`'s tool with `args`, if it has one.
    pub fn of(cx: &Context, args: &Map) -> Self {
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
    pub fn then<'a>(self, started: Started<'a>) -> CallFuture<'a> {
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
