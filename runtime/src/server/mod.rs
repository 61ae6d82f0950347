//! The MCP server on rmcp: generated tool sets and tools loaded at run time,
//! served on stdio or (with the `http` feature, on by default) Streamable HTTP,
//! with Go's discovery mode.
//!
//! ```no_run
//! # mod tools {
//! #     pub fn tool_set<T: Send + Sync + 'static>(t: T) -> toolmetadata::ToolSet<T> {
//! #         fn dispatch<'a, T>(_: &'a T, _: &str, _: toolmetadata::codegen::Call)
//! #             -> Option<toolmetadata::codegen::Started<'a>> { None }
//! #         toolmetadata::codegen::tool_set(t, &[], dispatch::<T>,
//! #             toolmetadata::args::Conversion::Lenient, "demo", "0.1.0")
//! #     }
//! # }
//! # struct Handler;
//! # async fn run() -> Result<(), toolmetadata::server::ServerError> {
//! let server = toolmetadata::server::Server::builder()
//!     .tool_set(tools::tool_set(Handler))
//!     .instructions("Tools for the workspace")
//!     .build()?;
//! server.serve_stdio().await
//! # }
//! ```
//!
//! A server of your own (an rmcp `ServerHandler`) serves the same tools the
//! same way once they are mounted in it ([`Server::mount`]).
//!
//! One job per file, in layers. The state a server holds: `catalog` (the
//! tools, and their groups; `scope`, what one request sees of them), `served`, `task` (feature `tasks`), `subscriptions`, `skills`,
//! `prompts` and `resources` (their features), `asker` (feature `ask`),
//! `store`. What it enforces on every request, in `policy`: `access` (scopes,
//! with `identity` over HTTP), `bound` parameters, `limits`, the
//! `parse_budget` and the lists' `cache` hints. The protocol on that state:
//! `protocol`, `call` (one call: decoding, panics, cancellation, progress),
//! `discovery` (the two meta-tools), and `requests`, the one `ServerHandler`
//! of `Server`, which `mount` serves beside a handler of yours. The
//! transports: `stdio`, and `http` (its sessions and SSE polling, feature
//! `sessions`, and `peek`, its one look at a body); `generation` tells a
//! session's request (2025-11-25, feature `sessions`) from a stateless one
//! (2026-07-28); `compat` fills what rmcp 3.11 cannot say (each
//! gap named with its removal condition). `builder` assembles it all; `auth`
//! checks HTTP bearer tokens.

mod access_log;
mod arguments;
#[cfg(feature = "ask")]
mod asker;
#[cfg(feature = "ask")]
mod attempt;
#[cfg(feature = "http")]
pub mod auth;
mod builder;
mod call;
mod call_link;
mod catalog;
mod client_log;
pub(crate) mod compat;
#[cfg(any(feature = "prompts", feature = "resources"))]
mod completions;
mod context_ext;
mod discovery;
mod error;
#[cfg(feature = "subscriptions")]
mod fleet;
mod generation;
#[cfg(feature = "http")]
mod http;
mod log;
mod mount;
#[cfg(feature = "http")]
mod peek;
mod policy;
#[cfg(feature = "prompts")]
mod prompts;
mod protocol;
mod requests;
#[cfg(feature = "resources")]
mod resources;
mod roots;
mod scope;
mod served;
mod skills;
pub(crate) mod stdio;
pub mod store;
#[cfg(feature = "subscriptions")]
mod subscriptions;
#[cfg(feature = "tasks")]
mod task;
#[cfg(feature = "tasks")]
mod task_input;
mod telemetry;
#[cfg(feature = "resources")]
mod uri_template;

use std::fmt;
use std::sync::Arc;

use rmcp::model::Tool;

pub use access_log::ACCESS_TARGET;
pub use arguments::Arguments;
pub use builder::ServerBuilder;
pub use context_ext::ContextExt;
pub use error::ServerError;
#[cfg(feature = "http")]
pub use http::{HttpOptions, HttpServer, shutdown_signal};
pub use log::{DEFAULT_LOG_FILTER, log_filter};
pub use mount::Mounted;
#[cfg(feature = "subscriptions")]
pub use protocol::ToolChangeError;
/// The rmcp this crate serves with, for its types in [`crate::Context`]'s
/// accessors and for mounting tool sets in your own `ServerHandler`.
pub use rmcp;
pub use telemetry::SPAN_TARGET;
/// A boxed, sendable future: what the serve methods return, and what a
/// [`store::TaskStore`] or a [`auth::TokenVerifier`] of your own returns.
#[cfg_attr(
    not(all(feature = "tasks", feature = "auth")),
    allow(rustdoc::broken_intra_doc_links)
)]
pub use toolmetadata_core::BoxFuture;

/// The server's stores, shared by every session of one server.
struct Stores {
    /// The `requestState`s already used.
    #[cfg(feature = "ask")]
    replay: Arc<dyn store::ReplayStore>,
    /// Where `[limits]` are counted; `None`: on each instance.
    #[cfg(feature = "limits")]
    limits: Option<policy::limits::SharedLimits>,
    /// Where 2025-11-25 HTTP sessions are recorded; `None`: on each instance.
    #[cfg(all(feature = "http", feature = "sessions"))]
    sessions: Option<Arc<dyn store::SessionStore>>,
    /// Where 2025-11-25 streams' events are kept; `None`: on each instance.
    #[cfg(all(feature = "http", feature = "sessions"))]
    events: Option<Arc<dyn store::EventStore>>,
}

struct Inner {
    name: String,
    version: String,
    /// The instructions, with discovery's when some tool is discoverable.
    instructions: Option<String>,
    /// The builder's instructions alone: a group without a discoverable
    /// tool has no meta-tools to tell of.
    plain_instructions: Option<String>,
    /// The tools: lookup, listing per caller, scopes, search.
    catalog: catalog::Catalog,
    #[cfg(feature = "resources")]
    resources: Vec<resources::StaticResource>,
    #[cfg(feature = "resources")]
    templates: Vec<resources::ServedTemplate>,
    skills: skills::Skills,
    #[cfg(feature = "prompts")]
    prompts: Vec<prompts::ServedPrompt>,
    #[cfg(any(feature = "prompts", feature = "resources"))]
    completions: Vec<completions::ServedCompletion>,
    #[cfg(feature = "ask")]
    ask: asker::AskSettings,
    list_cache: policy::cache::ListCache,
    #[cfg(feature = "tasks")]
    tasks: Arc<task::Tasks>,
    #[cfg_attr(
        not(any(
            feature = "ask",
            feature = "limits",
            all(feature = "http", feature = "sessions")
        )),
        expect(
            dead_code,
            reason = "a server of plain tools without sessions keeps nothing"
        )
    )]
    stores: Stores,
    /// Who is told of a resource's change, and of the tools' list's.
    #[cfg(feature = "subscriptions")]
    subscriptions: Arc<subscriptions::Subscriptions>,
    /// Which tools are enabled, as the instances last set them.
    #[cfg(feature = "subscriptions")]
    tool_states: Arc<dyn store::ToolStateStore>,
    /// One change of the enabled tools at a time: each reads the store's
    /// states and applies them, so none applies an older read over a newer.
    #[cfg(feature = "subscriptions")]
    applying: tokio::sync::Mutex<()>,
    /// The other instances, told of this one's changes (a change bus).
    #[cfg(feature = "subscriptions")]
    fleet: Option<fleet::Fleet>,
    /// What rmcp's `Tool` drops from the entries, put back by `compat`.
    list_extras: Arc<compat::ListExtras>,
}

/// An MCP server over generated tool sets and run-time tools; cheap to clone
/// (each HTTP session gets a clone of its own, see [`Server::for_session`]).
#[derive(Clone)]
pub struct Server {
    inner: Arc<Inner>,
    /// The client's roots, per session: a clone shares them, a
    /// [`Server::for_session`] starts afresh.
    roots: Arc<roots::SessionRoots>,
    /// The level of log messages the session's client asked for.
    log_level: Arc<client_log::SessionLogLevel>,
    /// The session's identity among the subscriptions.
    #[cfg(all(feature = "subscriptions", feature = "sessions"))]
    subscriber: u64,
}

impl fmt::Debug for Server {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Server")
            .field("name", &self.inner.name)
            .field("tools", &self.inner.catalog.len())
            .finish()
    }
}

impl Server {
    /// The same server for a new session: the tools and settings shared, the
    /// session's state (the client's roots, its log level, its resource
    /// subscriptions) its own. A `clone` shares that state: serve each
    /// connection with a `for_session`, never two with clones of one. Streamable HTTP makes
    /// one per session and per stateless request; serve each connection of a
    /// transport of your own with one.
    pub fn for_session(&self) -> Server {
        Server {
            inner: self.inner.clone(),
            roots: Arc::default(),
            log_level: Arc::default(),
            #[cfg(all(feature = "subscriptions", feature = "sessions"))]
            subscriber: subscriptions::next_subscriber(),
        }
    }

    /// The tools a `tools/list` shows a caller without a token: every
    /// non-discoverable tool, plus the meta-tools when discoverable ones
    /// exist; or every tool with `show_all`.
    pub fn listed_tools(&self, show_all: bool) -> Vec<Tool> {
        self.inner.catalog.listed(
            show_all,
            &policy::access::Caller::anonymous(),
            catalog::Scope::Whole,
        )
    }

    /// What the transports fill in of what rmcp cannot say, for this
    /// server's tools.
    pub(in crate::server) fn compat(&self) -> compat::Compat {
        // Gaps 2 and 3 are 2025-11-25's tasks: a server without them reads
        // no `task` param on any line or body.
        compat::Compat::new(
            self.inner.list_extras.clone(),
            #[cfg(all(feature = "tasks", feature = "sessions"))]
            self.inner.catalog.runs_tasks(),
        )
    }

    /// Every scope some tool needs, sorted, once each: what the protected
    /// resource metadata advertises.
    pub fn catalog_scopes(&self) -> Vec<String> {
        self.inner.catalog.all_scopes()
    }
}

/// What the transports serve: an rmcp handler over a [`Server`]'s tools
/// (the `Server` itself, or a [`Mounted`] handler), made afresh for each
/// session.
pub(crate) trait Serves: rmcp::ServerHandler + Sized {
    /// The tools' server: its catalog, tasks and scopes.
    fn tools(&self) -> &Server;
    /// The same for a new session (see [`Server::for_session`]): each HTTP
    /// session gets one.
    #[cfg(feature = "http")]
    fn for_session(&self) -> Self;
}

impl Serves for Server {
    fn tools(&self) -> &Server {
        self
    }

    #[cfg(feature = "http")]
    fn for_session(&self) -> Self {
        Server::for_session(self)
    }
}
