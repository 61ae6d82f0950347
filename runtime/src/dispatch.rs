//! What the generated dispatch calls: a tool set's static table, and one call
//! decoded, run and turned into an outcome.

use std::future::Future;
use std::pin::Pin;

use crate::args::{ArgErrors, Conversion, FromArguments, Map};
use crate::result::{IntoToolOutput, ToolError, ToolOutput};

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

/// Decodes `args` into `A` and calls `handler` with them: the body of each arm
/// of a generated `dispatch`.
pub fn call<'a, A, F, Fut, O>(
    args: Map,
    conversion: Conversion,
    handler: F,
) -> BoxFuture<'a, CallOutcome>
where
    A: FromArguments,
    F: FnOnce(A) -> Fut,
    Fut: Future<Output = Result<O, ToolError>> + Send + 'a,
    O: IntoToolOutput + 'a,
{
    run(args, conversion, handler, O::into_tool_output)
}

/// Like [`call`], for a tool with `[[output]]`: its output struct becomes
/// structured content.
pub fn call_structured<'a, A, F, Fut, O>(
    args: Map,
    conversion: Conversion,
    handler: F,
) -> BoxFuture<'a, CallOutcome>
where
    A: FromArguments,
    F: FnOnce(A) -> Fut,
    Fut: Future<Output = Result<O, ToolError>> + Send + 'a,
    O: crate::result::Structured + 'a,
{
    run(args, conversion, handler, |o: O| {
        ToolOutput::structured(o.to_structured())
    })
}

fn run<'a, A, F, Fut, O>(
    args: Map,
    conversion: Conversion,
    handler: F,
    output: fn(O) -> ToolOutput,
) -> BoxFuture<'a, CallOutcome>
where
    A: FromArguments,
    F: FnOnce(A) -> Fut,
    Fut: Future<Output = Result<O, ToolError>> + Send + 'a,
    O: 'a,
{
    outcome(A::from_arguments(args, conversion), handler, output)
}

/// The call of a handler with decoded arguments, or the argument errors: shared
/// by generated tools and tools loaded at run time.
pub(crate) fn outcome<'a, A, F, Fut, O>(
    decoded: Result<A, ArgErrors>,
    handler: F,
    output: fn(O) -> ToolOutput,
) -> BoxFuture<'a, CallOutcome>
where
    F: FnOnce(A) -> Fut,
    Fut: Future<Output = Result<O, ToolError>> + Send + 'a,
    O: 'a,
{
    match decoded {
        Err(errors) => Box::pin(std::future::ready(CallOutcome::InvalidArguments(errors))),
        Ok(decoded) => {
            let future = handler(decoded);
            Box::pin(async move {
                match future.await {
                    Ok(o) => CallOutcome::Output(output(o)),
                    Err(error) => CallOutcome::Failed(error),
                }
            })
        }
    }
}

/// The generated `dispatch` function of a tool set, for handler type `T`.
pub type DispatchFn<T> =
    for<'a> fn(&'a T, &str, Map, crate::Context) -> Option<BoxFuture<'a, CallOutcome>>;

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
    pub fn call<'a>(
        &'a self,
        name: &str,
        args: Map,
        cx: crate::Context,
    ) -> Option<BoxFuture<'a, CallOutcome>> {
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
