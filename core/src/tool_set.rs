//! [`ToolSet`]: a generated tool set with its handler, what the generated
//! `tool_set(handler)` returns and a server serves; and a call of one of its
//! tools, [`CallFuture`] → [`CallOutcome`].

use crate::args::{Conversion, Map};
use crate::call_future::{CallFuture, CallOutcome, Started};
use crate::metadata::TaskSupport;

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
    /// Whether a call runs as a task (`task` in the metadata).
    pub task: TaskSupport,
    /// The `[confirm]` question, asked before the handler runs.
    pub confirm: Option<ConfirmEntry>,
    /// The OAuth scopes a caller needs to see and call the tool (`scopes`).
    pub scopes: &'static [&'static str],
    /// The tool's `toolVersion`, when declared.
    pub version: Option<&'static str>,
    /// The groups the tool belongs to (`toolGroups`).
    pub groups: &'static [&'static str],
    /// `[limits]`: what the server holds each call to.
    pub limits: crate::metadata::Limits,
    /// The parameters the server fills in (`from`), left out of the entry.
    pub bound: &'static [BoundEntry],
}

/// A generated tool's bound parameter (`from`): the server fills it in from
/// the caller's token or the request, never from the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BoundEntry {
    /// The parameter.
    pub name: &'static str,
    /// `true` for a claim of the verified token, `false` for a header.
    pub claim: bool,
    /// The claim's or the header's name.
    pub key: &'static str,
    /// Whether a call without it is refused.
    pub required: bool,
}

impl BoundEntry {
    /// The parameter `name` bound to the token's claim `key`.
    pub const fn claim(name: &'static str, key: &'static str, required: bool) -> Self {
        BoundEntry {
            name,
            claim: true,
            key,
            required,
        }
    }

    /// The parameter `name` bound to the request's header `key`.
    pub const fn header(name: &'static str, key: &'static str, required: bool) -> Self {
        BoundEntry {
            name,
            claim: false,
            key,
            required,
        }
    }
}

/// A generated tool's `[confirm]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConfirmEntry {
    /// The question, with `{parameter}` placeholders.
    pub message: &'static str,
    /// What happens when the client cannot ask.
    pub unsupported: crate::metadata::Unsupported,
}

impl ToolEntry {
    /// A listed tool: its name and its rendered `tools/list` entry.
    pub const fn new(name: &'static str, entry_json: &'static str) -> Self {
        ToolEntry {
            name,
            entry_json,
            discoverable: false,
            keywords: &[],
            confirm: None,
            task: TaskSupport::Forbidden,
            scopes: &[],
            version: None,
            groups: &[],
            limits: crate::metadata::Limits {
                timeout: None,
                concurrency: None,
                rate: None,
            },
            bound: &[],
        }
    }

    /// The parameters the server fills in (`from`).
    pub const fn bound(mut self, bound: &'static [BoundEntry]) -> Self {
        self.bound = bound;
        self
    }

    /// A call still running after `timeout` is cancelled (`[limits]`).
    pub const fn timeout(mut self, timeout: std::time::Duration) -> Self {
        self.limits.timeout = Some(timeout);
        self
    }

    /// At most `calls` calls run at once (`[limits]`).
    pub const fn concurrency(mut self, calls: u32) -> Self {
        self.limits.concurrency = Some(calls);
        self
    }

    /// At most `calls` calls per caller in each `per` (`[limits]`).
    pub const fn rate(mut self, calls: u32, per: std::time::Duration) -> Self {
        self.limits.rate = Some(crate::metadata::Rate { calls, per });
        self
    }

    /// The tool's `toolVersion`.
    pub const fn version(mut self, version: &'static str) -> Self {
        self.version = Some(version);
        self
    }

    /// The groups the tool belongs to (`toolGroups`).
    pub const fn groups(mut self, groups: &'static [&'static str]) -> Self {
        self.groups = groups;
        self
    }

    /// The OAuth scopes a caller needs to see and call the tool (`scopes`).
    pub const fn scopes(mut self, scopes: &'static [&'static str]) -> Self {
        self.scopes = scopes;
        self
    }

    /// Asks the person `message` before the handler runs (`[confirm]`).
    pub const fn confirm(
        mut self,
        message: &'static str,
        unsupported: crate::metadata::Unsupported,
    ) -> Self {
        self.confirm = Some(ConfirmEntry {
            message,
            unsupported,
        });
        self
    }

    /// Words `tool_search` matches besides the name and description.
    pub const fn keywords(mut self, keywords: &'static [&'static str]) -> Self {
        self.keywords = keywords;
        self
    }

    /// Hidden from a plain `tools/list`, found by `tool_search`.
    pub const fn discoverable(mut self) -> Self {
        self.discoverable = true;
        self
    }

    /// Runs as a task when the client can (`Optional`) or always (`Required`).
    pub const fn task(mut self, task: TaskSupport) -> Self {
        self.task = task;
        self
    }
}

/// One call of a tool, as a generated `dispatch` receives it: the arguments,
/// the handler's context, and how lenient the decoding is.
#[derive(Debug)]
pub struct Call {
    pub(crate) args: Map,
    pub(crate) cx: crate::Context,
    pub(crate) conversion: Conversion,
}

/// The generated `dispatch` function of a tool set, for handler type `T`:
/// `None` when the set has no tool of that name.
pub type DispatchFn<T> = for<'a> fn(&'a T, &str, Call) -> Option<Started<'a>>;

/// A generated tool set with its handler: what a server serves, made by the
/// generated `tool_set(handler)`.
///
/// Besides handing it to toolmetadata's `Server::builder`,
/// a test (or a server of your own) can call its tools directly:
///
/// ```text
/// let set = tools::tool_set(Handler);
/// let outcome = set.call("search_notes", args, Context::new("search_notes")).unwrap().await;
/// ```
pub struct ToolSet<T> {
    pub(crate) handler: T,
    pub(crate) entries: &'static [ToolEntry],
    pub(crate) dispatch: DispatchFn<T>,
    pub(crate) conversion: Conversion,
    pub(crate) crate_name: &'static str,
    pub(crate) crate_version: &'static str,
}

impl<T> ToolSet<T> {
    /// The tools' names, sorted.
    pub fn names(&self) -> impl ExactSizeIterator<Item = &'static str> + use<T> {
        self.entries.iter().map(|entry| entry.name)
    }

    /// The tools' entries, as the generated code made them (the server's).
    #[doc(hidden)]
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

    /// Decodes `args` and calls the tool `name` with them; `None` when the set
    /// has no such tool. Arguments that do not decode end the call with
    /// [`CallOutcome::InvalidArguments`] before the handler runs. A tool with
    /// `[confirm]` asks first, as a served call does: through what `cx` can
    /// reach, and with nobody to ask (a [`Context::new`](crate::Context::new))
    /// as its `unsupported` says, so `"refuse"` never runs the handler.
    pub fn call<'a>(
        &'a self,
        name: &str,
        args: Map,
        cx: crate::Context,
    ) -> Option<impl Future<Output = CallOutcome> + Send + 'a> {
        let cx = self.confirming(name, cx);
        self.start(name, args, cx)
    }

    /// `cx` holding the `[confirm]` of the tool `name`, when the tool has
    /// one and `cx` none (a server's contexts hold it already).
    fn confirming(&self, name: &str, cx: crate::Context) -> crate::Context {
        if cx.confirm_plan().is_some() {
            return cx;
        }
        let Some((entry, confirm)) = self
            .entries
            .iter()
            .find(|entry| entry.name == name)
            .and_then(|entry| Some((entry, entry.confirm?)))
        else {
            return cx;
        };
        // The rendered entry's schema, for the defaults the question names.
        let schema = serde_json::from_str::<serde_json::Value>(entry.entry_json)
            .ok()
            .and_then(|entry| entry.get("inputSchema")?.as_object().cloned())
            .unwrap_or_default();
        let confirm = crate::metadata::Confirm {
            message: confirm.message.to_owned(),
            unsupported: confirm.unsupported,
        };
        cx.with_confirm(crate::confirm_plan::ConfirmPlan::new(confirm, &schema))
    }

    /// [`ToolSet::call`], as the future the server keeps.
    #[doc(hidden)]
    pub fn start<'a>(
        &'a self,
        name: &str,
        args: Map,
        cx: crate::Context,
    ) -> Option<CallFuture<'a>> {
        let asking = crate::confirm::Asking::of(&cx, &args);
        let call = Call {
            args,
            cx,
            conversion: self.conversion,
        };
        (self.dispatch)(&self.handler, name, call).map(|started| asking.then(started))
    }
}

impl<T> std::fmt::Debug for ToolSet<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolSet")
            .field(
                "tools",
                &self.entries.iter().map(|e| e.name).collect::<Vec<_>>(),
            )
            .finish()
    }
}
