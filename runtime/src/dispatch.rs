//! What the generated dispatch calls: a tool set's static table, and one call
//! decoded, run and turned into an outcome.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context as TaskContext, Poll};

use crate::args::{ArgErrors, Conversion, FromArguments, Map};
use crate::result::{Structured, ToolError, ToolOutput, ToolResult};

/// A boxed, sendable future.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// One tool of a generated tool set, as the server lists it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolEntry {
    /// The tool name.
    pub name: &'static str,
    /// The `tools/list` entry, rendered to compact JSON at build time.
    pub entry_json: &'static str,
    /// Hidden from a plain `tools/list`; found with `tool_search`.
    pub discoverable: bool,
    /// Words `tool_search` matches.
    pub keywords: &'static [&'static str],
}

/// How a call ended.
#[derive(Debug)]
pub enum CallOutcome {
    /// The handler returned a result.
    Output(ToolOutput),
    /// The arguments did not decode; the handler was not called.
    InvalidArguments(ArgErrors),
    /// The handler returned an error.
    Failed(ToolError),
}

/// A started call of one tool: a future of its [`CallOutcome`]. A generated
/// `dispatch` returns one; it owns the handler's boxed future, or the argument
/// errors when decoding failed and the handler was never called.
///
/// This is a plain type rather than an `async` block so that the code shared by
/// every tool (awaiting the handler, sorting out the outcome) is compiled once,
/// here, and not once per tool in the crate that generated them.
pub struct Call<'a> {
    state: CallState<'a>,
}

enum CallState<'a> {
    Running(BoxFuture<'a, ToolResult>),
    Invalid(Option<ArgErrors>),
}

impl<'a> Call<'a> {
    /// A call whose handler is running as `future`.
    pub fn running(future: BoxFuture<'a, ToolResult>) -> Self {
        Call {
            state: CallState::Running(future),
        }
    }

    /// A call refused before its handler ran: the arguments did not decode.
    pub fn invalid(errors: ArgErrors) -> Self {
        Call {
            state: CallState::Invalid(Some(errors)),
        }
    }
}

impl Future for Call<'_> {
    type Output = CallOutcome;

    fn poll(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<CallOutcome> {
        match &mut self.get_mut().state {
            CallState::Running(future) => future.as_mut().poll(cx).map(|result| match result {
                Ok(output) => CallOutcome::Output(output),
                Err(error) => CallOutcome::Failed(error),
            }),
            CallState::Invalid(errors) => match errors.take() {
                Some(errors) => Poll::Ready(CallOutcome::InvalidArguments(errors)),
                // Polled again after it completed: a caller's bug, as with any
                // future; there is nothing left to give.
                None => Poll::Pending,
            },
        }
    }
}

impl std::fmt::Debug for Call<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.state {
            CallState::Running(_) => f.write_str("Call::Running"),
            CallState::Invalid(errors) => f.debug_tuple("Call::Invalid").field(errors).finish(),
        }
    }
}

/// Decodes `args` into `A` and, when they decode, starts `handler` with them:
/// the body of each arm of a generated `dispatch`. The handler boxes its own
/// future, so this is the only generic code instantiated per tool besides the
/// handler and the decoder.
pub fn call<'a, A: FromArguments>(
    args: Map,
    conversion: Conversion,
    handler: impl FnOnce(A) -> BoxFuture<'a, ToolResult>,
) -> Call<'a> {
    match A::from_arguments(args, conversion) {
        Ok(args) => Call::running(handler(args)),
        Err(errors) => Call::invalid(errors),
    }
}

/// The future of a handler of a tool with `[[output]]`, its output struct
/// turned into structured content.
pub fn structured<'a, O: Structured + 'a>(
    future: impl Future<Output = Result<O, ToolError>> + Send + 'a,
) -> BoxFuture<'a, ToolResult> {
    Box::pin(async move {
        future
            .await
            .map(|o| ToolOutput::structured(o.to_structured()))
    })
}

/// The generated `dispatch` function of a tool set, for handler type `T`.
pub type DispatchFn<T> = for<'a> fn(&'a T, &str, Map, crate::Context) -> Option<Call<'a>>;

/// A generated tool set with its handler: what a server serves. Made by the
/// generated `tool_set(handler)`.
pub struct Handled<T> {
    handler: T,
    entries: &'static [ToolEntry],
    dispatch: DispatchFn<T>,
    crate_name: &'static str,
    crate_version: &'static str,
}

impl<T> Handled<T> {
    /// A tool set: its handler, its table and its dispatch function; the crate
    /// name and version name the server by default.
    pub fn new(
        handler: T,
        entries: &'static [ToolEntry],
        dispatch: DispatchFn<T>,
        crate_name: &'static str,
        crate_version: &'static str,
    ) -> Self {
        Handled {
            handler,
            entries,
            dispatch,
            crate_name,
            crate_version,
        }
    }

    /// The tools, sorted by name.
    pub fn entries(&self) -> &'static [ToolEntry] {
        self.entries
    }

    /// The handler.
    pub fn handler(&self) -> &T {
        &self.handler
    }

    /// The name and version of the crate that generated the set.
    pub fn crate_info(&self) -> (&'static str, &'static str) {
        (self.crate_name, self.crate_version)
    }

    /// Decodes the arguments and calls the tool `name`; `None` when the set has
    /// no such tool.
    pub fn call<'a>(&'a self, name: &str, args: Map, cx: crate::Context) -> Option<Call<'a>> {
        (self.dispatch)(&self.handler, name, args, cx)
    }
}

impl<T> std::fmt::Debug for Handled<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Handled")
            .field(
                "tools",
                &self.entries.iter().map(|e| e.name).collect::<Vec<_>>(),
            )
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::{ArgError, ArgErrors};
    use std::task::Waker;

    /// Arguments with one required integer `n`, decoded by hand.
    struct Count(i64);

    impl FromArguments for Count {
        const TOOL: &'static str = "count";

        fn from_arguments(mut args: Map, _: Conversion) -> Result<Self, ArgErrors> {
            match args.remove("n").and_then(|n| n.as_i64()) {
                Some(n) => Ok(Count(n)),
                None => Err(ArgErrors::new(
                    Self::TOOL,
                    vec![ArgError::other(Some("n"), "missing `n`".to_owned())],
                )),
            }
        }
    }

    struct Words(usize);

    impl Structured for Words {
        fn to_structured(&self) -> serde_json::Value {
            serde_json::json!({ "words": self.0 })
        }
    }

    /// Every future here completes on its first poll.
    fn ready(mut call: Call<'_>) -> CallOutcome {
        let mut cx = TaskContext::from_waker(Waker::noop());
        match Pin::new(&mut call).poll(&mut cx) {
            Poll::Ready(outcome) => outcome,
            Poll::Pending => panic!("the call did not complete"),
        }
    }

    fn args(value: serde_json::Value) -> Map {
        value.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn a_call_decodes_then_runs_the_handler_once() {
        let outcome = ready(call(
            args(serde_json::json!({"n": 3})),
            Conversion::Lenient,
            |c: Count| Box::pin(async move { Ok(ToolOutput::text(format!("{} calls", c.0))) }),
        ));
        match outcome {
            CallOutcome::Output(o) => assert_eq!(o.text_content(), "3 calls"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn bad_arguments_never_reach_the_handler() {
        let outcome = ready(call(
            args(serde_json::json!({})),
            Conversion::Lenient,
            |_: Count| -> BoxFuture<'static, ToolResult> { panic!("the handler ran") },
        ));
        match outcome {
            CallOutcome::InvalidArguments(e) => {
                assert!(e.to_string().contains("missing `n`"), "{e}")
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn handler_errors_and_structured_outputs_come_through() {
        let failed = ready(call(
            args(serde_json::json!({"n": 1})),
            Conversion::Lenient,
            |_: Count| Box::pin(async { Err(ToolError::new("no such thing")) }),
        ));
        assert!(matches!(failed, CallOutcome::Failed(e) if e.message() == "no such thing"));
        let structured = ready(call(
            args(serde_json::json!({"n": 2})),
            Conversion::Lenient,
            |c: Count| structured(async move { Ok(Words(c.0 as usize)) }),
        ));
        match structured {
            CallOutcome::Output(o) => {
                assert_eq!(
                    o.structured_content(),
                    Some(&serde_json::json!({"words": 2}))
                );
            }
            other => panic!("{other:?}"),
        }
    }
}
