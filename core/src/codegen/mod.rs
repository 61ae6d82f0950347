//! The one door of the code `toolmetadata-build` generates: every path it
//! names is under `toolmetadata::codegen`, as `tonic::codegen` is for
//! `tonic-build`. Here are the argument decoder and its parameter table, the
//! per-tool call plumbing, output structs as structured content, and the
//! crate's own types that generated code names (re-exported). Not for
//! hand-written code, and not covered by the crate's semver promises beyond
//! what the generated code of the same version uses.

mod enums;
mod output;

use std::future::Future;

pub use enums::{enum_from_arg, not_one_of};
pub use output::{Structured, ToJson, put_field};
pub use serde_json;

pub use crate::args::decoder::{Decoder, Params, Placeholder};
pub use crate::args::spec::ParamSpec;
pub use crate::args::{ArgErrors, ArgProblem, Conversion, FromArg, FromArguments, Map};
pub use crate::boxed::BoxFuture;
pub use crate::call_future::{CallFuture, Started};
pub use crate::context::Context;
pub use crate::metadata::{FailureClass, TaskSupport, Unsupported};
pub use crate::result::{ToolError, ToolOutput, ToolResult};
pub use crate::tool_set::{BoundEntry, Call, ConfirmEntry, DispatchFn, ToolEntry, ToolSet};

/// A tool set: what the generated `tool_set(handler)` returns. The crate name
/// and version name the server by default.
pub fn tool_set<T>(
    handler: T,
    entries: &'static [ToolEntry],
    dispatch: DispatchFn<T>,
    conversion: Conversion,
    crate_name: &'static str,
    crate_version: &'static str,
) -> ToolSet<T> {
    ToolSet {
        handler,
        entries,
        dispatch,
        conversion,
        crate_name,
        crate_version,
    }
}

/// Decodes the call's arguments into `A` and, when they decode, starts
/// `method` of `handler` with them: one arm of a generated `dispatch`. The
/// handler's future is boxed here, where its type is known, so that what
/// follows is shared by all tools.
pub fn run<'a, H, A, F>(
    handler: &'a H,
    method: impl FnOnce(&'a H, A, Context) -> F,
    call: Call,
) -> Started<'a>
where
    A: FromArguments,
    F: Future<Output = ToolResult> + Send + 'a,
{
    // Compiled once per tool: only what depends on the tool is here (no
    // closure, whose body would be generic too); asking the person and
    // awaiting are not.
    let Call {
        args,
        cx,
        conversion,
    } = call;
    match A::from_arguments(args, conversion) {
        Ok(args) => Ok(Box::pin(method(handler, args, cx))),
        Err(errors) => Err(errors),
    }
}

/// [`run`] for a tool with `[[output]]`: its output struct becomes structured
/// content.
pub fn run_structured<'a, H, A, O, F>(
    handler: &'a H,
    method: impl FnOnce(&'a H, A, Context) -> F,
    call: Call,
) -> Started<'a>
where
    A: FromArguments,
    O: Structured + 'a,
    F: Future<Output = ToolResult<O>> + Send + 'a,
{
    run_output(handler, method, call, None)
}

/// [`run_structured`] for a tool with `outputText`: the text content is
/// `template` rendered from the output, beside the structured content.
pub fn run_with_text<'a, H, A, O, F>(
    handler: &'a H,
    method: impl FnOnce(&'a H, A, Context) -> F,
    call: Call,
    template: &'static str,
) -> Started<'a>
where
    A: FromArguments,
    O: Structured + 'a,
    F: Future<Output = ToolResult<O>> + Send + 'a,
{
    run_output(handler, method, call, Some(template))
}

/// The output struct as structured content, its text the JSON copy or the
/// `outputText` rendered.
fn run_output<'a, H, A, O, F>(
    handler: &'a H,
    method: impl FnOnce(&'a H, A, Context) -> F,
    call: Call,
    template: Option<&'static str>,
) -> Started<'a>
where
    A: FromArguments,
    O: Structured + 'a,
    F: Future<Output = ToolResult<O>> + Send + 'a,
{
    run(
        handler,
        move |handler, args, cx| {
            let future = method(handler, args, cx);
            async move {
                future.await.map(|o| match template {
                    Some(template) => ToolOutput::structured_as_text(o.to_structured(), template),
                    None => ToolOutput::structured(o.to_structured()),
                })
            }
        },
        call,
    )
}

#[cfg(test)]
mod tests {
    use std::pin::Pin;
    use std::task::{Context as TaskContext, Poll, Waker};

    use super::*;
    use crate::ToolError;
    use crate::args::{ArgError, ArgErrors};
    use crate::call_future::CallOutcome;

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

    /// Counts its calls, so a test can tell whether a handler ran.
    #[derive(Default)]
    struct Handler {
        calls: std::sync::atomic::AtomicUsize,
    }

    impl Handler {
        async fn count(&self, c: Count, _: crate::Context) -> ToolResult {
            self.calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            Ok(ToolOutput::text(format!("{} calls", c.0)))
        }

        async fn fail(&self, _: Count, _: crate::Context) -> ToolResult {
            Err(ToolError::new("no such thing"))
        }

        async fn words(&self, c: Count, _: crate::Context) -> ToolResult<Words> {
            Ok(Words(c.0 as usize))
        }
    }

    /// Every future here completes on its first poll.
    fn ready(started: Started<'_>) -> CallOutcome {
        let mut call = match started {
            Ok(handler) => CallFuture::running(handler),
            Err(errors) => CallFuture::invalid(errors),
        };
        let mut cx = TaskContext::from_waker(Waker::noop());
        match Pin::new(&mut call).poll(&mut cx) {
            Poll::Ready(outcome) => outcome,
            Poll::Pending => panic!("the call did not complete"),
        }
    }

    fn call(value: serde_json::Value) -> Call {
        Call {
            args: value.as_object().cloned().unwrap_or_default(),
            cx: crate::Context::new("count"),
            conversion: Conversion::Lenient,
        }
    }

    #[test]
    fn a_call_decodes_then_runs_the_handler_once() {
        let handler = Handler::default();
        match ready(run(
            &handler,
            Handler::count,
            call(serde_json::json!({"n": 3})),
        )) {
            CallOutcome::Output(o) => assert_eq!(o.text_content(), "3 calls"),
            other => panic!("{other:?}"),
        }
        assert_eq!(handler.calls.into_inner(), 1);
    }

    #[test]
    fn bad_arguments_never_reach_the_handler() {
        let handler = Handler::default();
        match ready(run(&handler, Handler::count, call(serde_json::json!({})))) {
            CallOutcome::InvalidArguments(e) => {
                assert!(e.to_string().contains("missing `n`"), "{e}")
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(handler.calls.into_inner(), 0);
    }

    /// Issue 47: a direct call (`ToolSet::call`, the README's way to test a
    /// tool) ran the handler of a tool whose `[confirm]` says `refuse`.
    #[test]
    fn a_direct_call_follows_what_confirm_says_when_nobody_can_answer() {
        use crate::metadata::Unsupported;
        use crate::tool_set::{ToolEntry, ToolSet};
        fn dispatch<'a>(h: &'a Handler, name: &str, call: Call) -> Option<Started<'a>> {
            (name == "count").then(|| run(h, Handler::count, call))
        }
        const ENTRY: &str = r#"{"name": "count", "inputSchema": {"type": "object",
            "properties": {"n": {"type": "integer", "default": 1}}}}"#;
        static REFUSE: [ToolEntry; 1] =
            [ToolEntry::new("count", ENTRY).confirm("Count to {n}?", Unsupported::Refuse)];
        static PROCEED: [ToolEntry; 1] =
            [ToolEntry::new("count", ENTRY).confirm("Count to {n}?", Unsupported::Proceed)];
        for (entries, runs) in [(&REFUSE, false), (&PROCEED, true)] {
            let set = ToolSet {
                handler: Handler::default(),
                entries,
                dispatch,
                conversion: Conversion::Lenient,
                crate_name: "test",
                crate_version: "0",
            };
            let args = serde_json::json!({"n": 3})
                .as_object()
                .cloned()
                .unwrap_or_default();
            let call = set
                .call("count", args, crate::Context::new("count"))
                .expect("a tool");
            let mut call = std::pin::pin!(call);
            let mut cx = TaskContext::from_waker(Waker::noop());
            let Poll::Ready(outcome) = call.as_mut().poll(&mut cx) else {
                panic!("the call did not complete");
            };
            match outcome {
                CallOutcome::Output(o) if runs => assert_eq!(o.text_content(), "3 calls"),
                CallOutcome::Failed(e) if !runs => {
                    assert!(e.to_string().contains("cannot ask"), "{e}")
                }
                other => panic!("unsupported = {:?}: {other:?}", entries[0].confirm),
            }
            let calls = set.handler.calls.load(std::sync::atomic::Ordering::SeqCst);
            assert_eq!(calls, usize::from(runs));
        }
    }

    #[test]
    fn a_confirmed_tool_with_bad_arguments_is_refused_without_asking() {
        // A context with no client: asking would fail with "cannot ask", so
        // an answer about the arguments shows the question was never put.
        let plan = crate::confirm_plan::ConfirmPlan::new(
            crate::metadata::Confirm {
                message: "Count to {n}?".into(),
                unsupported: Default::default(),
            },
            &serde_json::Map::new(),
        );
        let handler = Handler::default();
        let call = Call {
            args: serde_json::Map::new(),
            cx: crate::Context::confirming("count", plan),
            conversion: Conversion::Lenient,
        };
        match ready(run(&handler, Handler::count, call)) {
            CallOutcome::InvalidArguments(e) => {
                assert!(e.to_string().contains("missing `n`"), "{e}")
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(handler.calls.into_inner(), 0);
    }

    #[test]
    fn handler_errors_and_structured_outputs_come_through() {
        let handler = Handler::default();
        let failed = ready(run(
            &handler,
            Handler::fail,
            call(serde_json::json!({"n": 1})),
        ));
        assert!(matches!(failed, CallOutcome::Failed(e) if e.message() == "no such thing"));
        let structured = ready(run_structured(
            &handler,
            Handler::words,
            call(serde_json::json!({"n": 2})),
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
