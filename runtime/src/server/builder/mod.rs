//! [`ServerBuilder`]: generated tool sets and run-time tools, options, and
//! (in `extras`) resources and prompts, checked once into a [`Server`].

#[cfg(feature = "ask")]
mod ask_options;
#[cfg(feature = "ask")]
mod asking;
mod build;
#[cfg(any(feature = "prompts", feature = "resources"))]
mod completions;
mod listed;
mod needs;
#[cfg(feature = "prompts")]
mod prompts;
#[cfg(feature = "resources")]
mod resources;
#[cfg(feature = "skills")]
mod skills;
#[cfg(feature = "tasks")]
mod task_settings;
#[cfg(feature = "tasks")]
mod tasks;
mod tools;
mod views;

use std::fmt;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use super::compat::ListExtras;
use super::policy::cache::ListCache;
use super::served::Served;
#[cfg(feature = "limits")]
use super::store::LimitStore;

/// Builds a [`Server`](super::Server) from generated tool sets and run-time tools.
#[must_use]
#[derive(Default)]
pub struct ServerBuilder {
    #[cfg(feature = "resources")]
    pub(super) resources: Vec<super::resources::StaticResource>,
    #[cfg(feature = "resources")]
    pub(super) templates: Vec<super::resources::ServedTemplate>,
    #[cfg(feature = "prompts")]
    pub(super) prompts: Vec<super::prompts::ServedPrompt>,
    #[cfg(any(feature = "prompts", feature = "resources"))]
    pub(super) completions: Vec<super::completions::ServedCompletion>,
    pub(super) skills: Option<Arc<super::skills::SkillCatalog>>,
    name: Option<String>,
    version: Option<String>,
    instructions: Option<String>,
    show_all: bool,
    /// Serve only the tools of these groups (`ServerBuilder::groups`).
    only_groups: Option<Vec<String>>,
    tools: Vec<Served>,
    errors: Vec<String>,
    #[cfg(feature = "ask")]
    ask: ask_options::AskOptions,
    /// Shared with the handlers of run-time tools (see `strict_arguments`).
    strict: Arc<AtomicBool>,
    list_cache: ListCache,
    #[cfg(feature = "tasks")]
    tasks: task_settings::TaskSettings,
    /// How long a running task's lease, and a leased slot of `[limits]`'
    /// concurrency, last.
    lease: Option<Duration>,
    #[cfg(feature = "limits")]
    limit_store: Option<Arc<dyn LimitStore>>,
    #[cfg(all(feature = "http", feature = "sessions"))]
    session_store: Option<Arc<dyn super::store::SessionStore>>,
    #[cfg(all(feature = "http", feature = "sessions"))]
    event_store: Option<Arc<dyn super::store::EventStore>>,
    #[cfg(feature = "subscriptions")]
    change_bus: Option<Arc<dyn super::store::ChangeBus>>,
    /// Tools change at run time, these disabled to begin with.
    #[cfg(feature = "subscriptions")]
    changing_tools: Option<Vec<String>>,
    #[cfg(feature = "subscriptions")]
    tool_states: Option<Arc<dyn super::store::ToolStateStore>>,
    list_extras: ListExtras,
}

impl fmt::Debug for ServerBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerBuilder")
            .field("name", &self.name)
            .field(
                "tools",
                &self
                    .tools
                    .iter()
                    .map(|t| t.tool.name.as_ref())
                    .collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl ServerBuilder {
    /// The name the server gives in `initialize` (default: the crate that
    /// generated the first tool set).
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// The version the server gives (default: that crate's version).
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.version = Some(version.into());
        self
    }

    /// Instructions for the model, sent in `initialize`.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// List every tool, discoverable ones included, and no meta-tools (for
    /// clients that cannot search). On 2025-11-25 sessions an HTTP client can
    /// also ask per request; a 2026-07-28 `tools/list` follows only this
    /// option, since it may not vary by connection.
    pub fn show_all(mut self, show_all: bool) -> Self {
        self.show_all = show_all;
        self
    }

    /// Serves only the tools of these groups (`toolGroups`): a tool in any
    /// of them is served, every other is neither listed nor callable, on
    /// every transport. What a stdio server for one audience is started
    /// with (example-server's `--group`). Over HTTP each group is also
    /// served at `<endpoint>/<group>`, for the groups chosen (a tool also in
    /// a group not chosen is not served there). A second call replaces the
    /// first. A name that no tool's `toolGroups` holds fails
    /// [`build`](Self::build), naming the groups there are, as does an empty
    /// list.
    pub fn groups<I, S>(mut self, groups: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.only_groups = Some(groups.into_iter().map(Into::into).collect());
        self
    }

    /// How long a client may keep `tools/list` and `resources/list` answers
    /// (`ttlMs` on 2026-07-28; default 5 minutes). The catalog is fixed once
    /// the server is built, so only a redeploy changes it: a longer time
    /// saves re-fetches, `Duration::ZERO` asks clients not to keep lists.
    pub fn list_ttl(mut self, ttl: Duration) -> Self {
        self.list_cache.ttl = ttl;
        self
    }

    /// Say that lists depend on the caller's authorization (a server that
    /// hides tools from callers without the scopes they need): their
    /// `cacheScope` is then `private`, so no shared cache hands one caller's
    /// list to another. Default `false`: `public`, one catalog for everyone.
    pub fn lists_depend_on_authorization(mut self, yes: bool) -> Self {
        self.list_cache.per_caller = yes;
        self
    }

    /// Where 2025-11-25 HTTP sessions are recorded, so that another instance
    /// picks a session up when the one that opened it is gone (default:
    /// nowhere; a session lives and dies with its instance). Feature
    /// `sessions`.
    #[cfg(all(feature = "http", feature = "sessions"))]
    pub fn session_store(mut self, store: impl super::store::SessionStore) -> Self {
        self.session_store = Some(Arc::new(store));
        self
    }

    /// Where the events of 2025-11-25 HTTP streams are kept, so that a
    /// client whose stream broke resumes it with `Last-Event-ID` on any
    /// instance, the balancer's choice (default: nowhere; each instance
    /// keeps the last events of its own streams, and a stream resumes on
    /// the instance that sent it). Each event sent is kept first: a round
    /// trip to the store per message (an event over 256 KiB is kept as a
    /// gap: a resumption from before it fails, the client starts again).
    /// When the store fails, events are sent unkept (one WARN), and a
    /// resumption across them fails rather than skip them. Feature
    /// `sessions`.
    #[cfg(all(feature = "http", feature = "sessions"))]
    pub fn event_store(mut self, store: impl super::store::EventStore) -> Self {
        self.event_store = Some(Arc::new(store));
        self
    }

    #[cfg(feature = "limits")]
    /// Where `[limits]` are counted, so that a tool's concurrency and each
    /// caller's rate are the fleet's rather than each instance's (default:
    /// nowhere; each instance holds them alone). A slot of concurrency is
    /// leased for the [`task_lease`](Self::task_lease), renewed while its
    /// call runs. When the store fails, each instance holds the limits
    /// alone until it answers again.
    pub fn limit_store(mut self, store: impl LimitStore) -> Self {
        self.limit_store = Some(Arc::new(store));
        self
    }

    /// How long the lease on a running task, and on a slot of a tool's
    /// `[limits]` concurrency counted in a shared store, lasts (default 10
    /// seconds, at least 1): the instance holding it renews it every third
    /// of that; when the instance dies, its tasks read as failed and its
    /// slots are free again, from every instance, once the lease has lapsed.
    pub fn task_lease(mut self, lease: Duration) -> Self {
        self.lease = Some(lease);
        self
    }

    /// One store for every kind of state the server keeps: used
    /// `requestState`s, streams' events, and with their features sessions,
    /// tasks, limits and changes (such as `toolmetadata-store`'s
    /// Redis and PostgreSQL stores): what instances behind one balancer
    /// share.
    #[cfg(feature = "http")]
    #[cfg_attr(
        not(any(
            feature = "tasks",
            feature = "ask",
            feature = "limits",
            feature = "subscriptions",
            feature = "sessions"
        )),
        expect(unused_mut, reason = "nothing is kept in a store in this build")
    )]
    pub fn store<S: super::store::SharedStore>(mut self, store: Arc<S>) -> Self {
        #[cfg(feature = "tasks")]
        {
            self.tasks.store = Some(store.clone());
        }
        #[cfg(feature = "ask")]
        {
            self.ask.replay_store = Some(store.clone());
        }
        #[cfg(feature = "limits")]
        {
            self.limit_store = Some(store.clone());
        }
        #[cfg(feature = "subscriptions")]
        {
            self.change_bus = Some(store.clone());
            self.tool_states = Some(store.clone());
        }
        #[cfg(feature = "sessions")]
        {
            self.session_store = Some(store.clone());
            self.event_store = Some(store.clone());
        }
        let _ = store;
        self
    }

    /// Where this instance and the others serving with it tell each other
    /// of changes: a resource's change reported on one instance
    /// (`Server::resource_updated`, feature `resources`)
    /// reaches its subscribers on every instance, and a tool enabled or
    /// disabled on one ([`Server::enable_tool`](crate::server::Server::enable_tool))
    /// is listed or not by all, whose clients are told. [`store`](Self::store)
    /// sets it too. Without one, changes reach this instance's clients
    /// only. The server listens from [`build`](Self::build) on, which must
    /// then run inside a Tokio runtime.
    // `store`, linked above, needs `http`.
    #[cfg_attr(not(feature = "http"), allow(rustdoc::broken_intra_doc_links))]
    #[cfg(feature = "subscriptions")]
    pub fn change_bus(mut self, bus: Arc<dyn super::store::ChangeBus>) -> Self {
        self.change_bus = Some(bus);
        self
    }

    /// Lets tools be enabled and disabled while the server runs
    /// ([`Server::enable_tool`](crate::server::Server::enable_tool),
    /// [`Server::disable_tool`](crate::server::Server::disable_tool)), those
    /// named in `disabled` disabled until then: a disabled tool is not
    /// listed, searched or called (a call gets "unknown tool"). The server
    /// declares `tools.listChanged` and tells its clients when the list
    /// changes: every 2025-11-25 session, and 2026-07-28
    /// `subscriptions/listen` streams that ask for `toolsListChanged`.
    /// [`build`](Self::build) fails when `disabled` names no tool of the
    /// server. Behind a balancer, [`store`](Self::store) (or
    /// [`tool_state_store`](Self::tool_state_store) with a
    /// [`change_bus`](Self::change_bus)) makes a change the fleet's.
    // `store`, linked above, needs `http`.
    #[cfg_attr(not(feature = "http"), allow(rustdoc::broken_intra_doc_links))]
    #[cfg(feature = "subscriptions")]
    pub fn changing_tools<I, S>(mut self, disabled: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.changing_tools = Some(disabled.into_iter().map(Into::into).collect());
        self
    }

    /// Where the instances serving with this one keep which tools are
    /// enabled (see [`changing_tools`](Self::changing_tools));
    /// [`store`](Self::store) sets it too. The server reads it as it
    /// starts and every 30 seconds, and at once when the
    /// [`change_bus`](Self::change_bus) says it changed. Without one, each
    /// instance keeps its own. A tool the store names is enabled or not as
    /// the store says, whatever `changing_tools` disables.
    // `store`, linked above, needs `http`.
    #[cfg_attr(not(feature = "http"), allow(rustdoc::broken_intra_doc_links))]
    #[cfg(feature = "subscriptions")]
    pub fn tool_state_store(mut self, store: impl super::store::ToolStateStore) -> Self {
        self.tool_states = Some(Arc::new(store));
        self
    }
}

impl super::Server {
    /// A builder with no tools.
    pub fn builder() -> ServerBuilder {
        ServerBuilder::default()
    }
}
