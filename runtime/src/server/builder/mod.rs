//! [`ServerBuilder`]: generated tool sets and run-time tools, options, and
//! (in `extras`) resources and prompts, checked once into a [`Server`].

mod extras;
mod listed;
mod tasks;

use std::fmt;

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rmcp::model::{RequestStateCodec, Tool};

use super::arguments::Arguments;
use super::asker::AskSettings;
use super::cache::ListCache;
use super::catalog::Catalog;
use super::compat::ListExtras;
use super::prompts::{ServedCompletion, ServedPrompt};
use super::resources::{ServedTemplate, StaticResource};
use super::served::{Invoke, Served};
use super::store::{InMemoryReplayStore, InMemoryTaskStore, LimitStore, ReplayStore, TaskStore};
use super::task::{DEFAULT_TASK_LEASE, DEFAULT_TASK_TTL, Tasks};
use super::{Inner, Server, ServerError, discovery};
use crate::args::{Conversion, DynamicParams};
use crate::metadata::{Confirm, ToolMetadata};
use crate::{CallOutcome, IntoToolOutput, ToolError, ToolSet};
use toolmetadata_core::BoxFuture;
use toolmetadata_core::codegen::ToolEntry;
use toolmetadata_core::seam::Asking;
use toolmetadata_core::seam::ConfirmPlan;

/// Builds a [`Server`] from generated tool sets and run-time tools.
#[must_use]
#[derive(Default)]
pub struct ServerBuilder {
    pub(super) resources: Vec<StaticResource>,
    pub(super) templates: Vec<ServedTemplate>,
    pub(super) prompts: Vec<ServedPrompt>,
    pub(super) completions: Vec<ServedCompletion>,
    pub(super) skills: Option<Arc<super::skills::SkillCatalog>>,
    name: Option<String>,
    version: Option<String>,
    instructions: Option<String>,
    show_all: bool,
    tools: Vec<Served>,
    errors: Vec<String>,
    state_keys: Vec<Vec<u8>>,
    require_confirmation: bool,
    state_ttl: Option<Duration>,
    ask_timeout: Option<Duration>,
    /// Shared with the handlers of run-time tools (see `strict_arguments`).
    strict: Arc<AtomicBool>,
    list_cache: ListCache,
    task_store: Option<Arc<dyn TaskStore>>,
    task_ttl: Option<Duration>,
    task_lease: Option<Duration>,
    /// The tools that ask before they become tasks (`ask_before_task`).
    asks_first: Vec<String>,
    replay_store: Option<Arc<dyn ReplayStore>>,
    limit_store: Option<Arc<dyn LimitStore>>,
    #[cfg(feature = "http")]
    session_store: Option<Arc<dyn super::store::SessionStore>>,
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

    /// A key for the `requestState` of 2026-07-28 questions (at least 32
    /// bytes). Called more than once, it makes a keyring: the first key
    /// signs, every key verifies, so keys rotate without refusing the retries
    /// in flight (add the new key first, keep the old one for a state's
    /// lifetime, then drop it). Instances behind one load balancer need the
    /// same keys to accept each other's retries; without one, each process
    /// draws a random key, so a retry must reach the instance that asked.
    pub fn request_state_key(mut self, key: impl Into<Vec<u8>>) -> Self {
        self.state_keys.push(key.into());
        self
    }

    /// With `true`, every tool with `[confirm]` refuses a call from a client
    /// that cannot ask the person, whatever its `unsupported` says (for a
    /// deployment where nothing destructive may run unconfirmed).
    pub fn require_confirmation(mut self, require: bool) -> Self {
        self.require_confirmation = require;
        self
    }

    /// How long a question's `requestState` stays valid (default 10 minutes).
    pub fn request_state_ttl(mut self, ttl: Duration) -> Self {
        self.state_ttl = Some(ttl);
        self
    }

    /// How long a 2025-11-25 session's question waits for the person before
    /// [`AskError::TimedOut`](crate::ask::AskError::TimedOut) (default 5 minutes).
    pub fn ask_timeout(mut self, timeout: Duration) -> Self {
        self.ask_timeout = Some(timeout);
        self
    }

    /// Adds a generated tool set with its handler (the generated `tool_set`).
    pub fn tool_set<T: Send + Sync + 'static>(self, set: ToolSet<T>) -> Self {
        let info = set.crate_info();
        let entries = set.entries();
        let set = Arc::new(set);
        let handler = move |name: &'static str| -> Invoke {
            let set = set.clone();
            Arc::new(move |args, cx| {
                let set = set.clone();
                Box::pin(async move {
                    // `name` comes from the set's own table, so it is found.
                    match set.start(name, args, cx) {
                        Some(call) => call.await,
                        None => CallOutcome::Failed(ToolError::new(format!(
                            "the tool set has no tool `{name}`"
                        ))),
                    }
                })
            })
        };
        self.add_entries(info, entries, &handler)
    }

    /// The part of [`ServerBuilder::tool_set`] that does not depend on the
    /// handler type, kept out of the generic function so that it is compiled
    /// once, here.
    fn add_entries(
        mut self,
        (name, version): (&'static str, &'static str),
        entries: &'static [ToolEntry],
        handler: &dyn Fn(&'static str) -> Invoke,
    ) -> Self {
        self.name.get_or_insert_with(|| name.to_owned());
        self.version.get_or_insert_with(|| version.to_owned());
        for entry in entries {
            let parsed =
                serde_json::from_str::<serde_json::Value>(entry.entry_json).and_then(|json| {
                    serde_json::from_value::<Tool>(json.clone()).map(|tool| (json, tool))
                });
            let tool: Tool = match parsed {
                Ok((json, tool)) => {
                    self.list_extras.record(&json, &tool);
                    listed::identified(listed::in_program_text(tool, entry), &json, entry.version)
                }
                Err(e) => {
                    self.errors
                        .push(format!("the entry of `{}` is not a tool: {e}", entry.name));
                    continue;
                }
            };
            let confirm = entry.confirm.map(|c| {
                let confirm = Confirm {
                    message: c.message.to_owned(),
                    unsupported: c.unsupported,
                };
                Arc::new(ConfirmPlan::new(confirm, &tool.input_schema))
            });
            self.tools.push(Served {
                description: tool.description.as_deref().unwrap_or_default().to_owned(),
                tool,
                discoverable: entry.discoverable,
                keywords: entry.keywords.iter().map(|k| (*k).to_owned()).collect(),
                handler: handler(entry.name),
                scopes: entry.scopes.iter().map(|s| (*s).to_owned()).collect(),
                confirm,
                task: entry.task,
                limits: super::limits::Limiter::of(entry.limits),
                asks_first: false,
                bound: entry
                    .bound
                    .iter()
                    .map(super::bound::Bound::of_entry)
                    .collect(),
            });
        }
        self
    }

    /// `true` turns off the lenient conversions (`"42"` for an integer,
    /// `"true"` for a boolean, …) for the tools added with
    /// [`ServerBuilder::tool`], before or after this call: only values of the
    /// schema's JSON type are accepted. Default `false`. A generated tool set
    /// keeps what its `build.rs` chose (`Builder::strict_arguments`).
    pub fn strict_arguments(self, strict: bool) -> Self {
        self.strict.store(strict, Ordering::Relaxed);
        self
    }

    /// Adds a tool loaded at run time (from a database, an API, …) with its
    /// handler, which receives the arguments decoded and checked exactly as a
    /// generated tool's: same conversions, same constraints, same errors.
    pub fn tool<F, Fut, O>(mut self, metadata: ToolMetadata, handler: F) -> Self
    where
        F: Fn(Arguments, crate::Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<O, ToolError>> + Send + 'static,
        O: IntoToolOutput + 'static,
    {
        let entry = metadata.to_tools_list_entry();
        let tool: Tool = match serde_json::from_value(entry.clone()) {
            Ok(tool) => {
                self.list_extras.record(&entry, &tool);
                listed::identified(tool, &entry, metadata.version.as_deref())
            }
            Err(e) => {
                self.errors.push(format!(
                    "the entry of `{}` is not a tool: {e}",
                    metadata.name
                ));
                return self;
            }
        };
        let params = DynamicParams::new(&metadata);
        let strict = self.strict.clone();
        let erased: Invoke = Arc::new(move |args, cx| {
            // Read at call time, so `strict_arguments` holds wherever it is
            // called on the builder.
            let conversion = if strict.load(Ordering::Relaxed) {
                Conversion::Strict
            } else {
                Conversion::Lenient
            };
            let asking = Asking::of(&cx, &args);
            let started = params.decode(args, conversion).map(|values| {
                let future = handler(Arguments::new(values), cx);
                Box::pin(async move { future.await.map(O::into_tool_output) }) as BoxFuture<'_, _>
            });
            Box::pin(asking.then(started))
        });
        let confirm = metadata
            .confirm
            .clone()
            .map(|c| Arc::new(ConfirmPlan::new(c, &tool.input_schema)));
        self.tools.push(Served {
            description: metadata.listed_description(),
            tool,
            discoverable: metadata.discoverable,
            keywords: metadata.keywords.clone(),
            handler: erased,
            confirm,
            task: metadata.task,
            scopes: metadata.scopes.clone(),
            limits: super::limits::Limiter::of(metadata.limits),
            asks_first: false,
            bound: super::bound::Bound::of_metadata(&metadata),
        });
        self
    }

    /// Adds a tool whose `tools/list` entry is `tool` as written, its
    /// `inputSchema` whatever JSON Schema (2020-12) says: `$defs` and `$ref`,
    /// `allOf`/`anyOf`, `if`/`then`/`else`, what the metadata format cannot
    /// express. The server checks only that the arguments are an object: the
    /// handler receives them as the client sent them and checks them
    /// against its schema itself. Prefer [`ServerBuilder::tool`] when the
    /// format can say it: its arguments are decoded and checked for you.
    ///
    /// ```
    /// use toolmetadata::server::Server;
    /// use toolmetadata::server::rmcp::model::Tool;
    ///
    /// let schema = serde_json::json!({
    ///     "$schema": "https://json-schema.org/draft/2020-12/schema",
    ///     "type": "object",
    ///     "properties": {"phone": {"type": "string"}, "email": {"type": "string"}},
    ///     "anyOf": [{"required": ["phone"]}, {"required": ["email"]}],
    ///     "additionalProperties": false
    /// });
    /// let serde_json::Value::Object(schema) = schema else { unreachable!() };
    /// let tool = Tool::new("contact", "Records a way to reach someone", schema);
    /// let server = Server::builder()
    ///     .tool_with_schema(tool, |args, _cx| async move {
    ///         let how = args.get("phone").or(args.get("email")).cloned();
    ///         Ok(format!("recorded {}", how.unwrap_or_default()))
    ///     })
    ///     .build();
    /// assert!(server.is_ok());
    /// ```
    pub fn tool_with_schema<F, Fut, O>(mut self, tool: Tool, handler: F) -> Self
    where
        F: Fn(serde_json::Map<String, serde_json::Value>, crate::Context) -> Fut
            + Send
            + Sync
            + 'static,
        Fut: Future<Output = Result<O, ToolError>> + Send + 'static,
        O: IntoToolOutput + 'static,
    {
        let entry = match serde_json::to_value(&tool) {
            Ok(entry) => entry,
            Err(e) => {
                self.errors
                    .push(format!("the entry of `{}` is not JSON: {e}", tool.name));
                return self;
            }
        };
        let tool = listed::identified(tool, &entry, None);
        let erased: Invoke = Arc::new(move |args, cx| {
            let asking = Asking::of(&cx, &args);
            let future = handler(args, cx);
            let started: BoxFuture<'_, _> =
                Box::pin(async move { future.await.map(O::into_tool_output) });
            Box::pin(asking.then(Ok(started)))
        });
        self.tools.push(Served {
            description: tool.description.as_deref().unwrap_or_default().to_owned(),
            tool,
            discoverable: false,
            keywords: Vec::new(),
            handler: erased,
            confirm: None,
            task: crate::metadata::TaskSupport::Forbidden,
            scopes: Vec::new(),
            limits: None,
            asks_first: false,
            bound: Vec::new(),
        });
        self
    }

    /// Keeps only the tools `keep` accepts (given their `tools/list` entry); the
    /// others are neither listed nor callable. For instance a read-only mode:
    /// `.retain(|t| t.annotations.as_ref().and_then(|a| a.read_only_hint) == Some(true))`.
    pub fn retain(mut self, keep: impl Fn(&Tool) -> bool) -> Self {
        self.tools.retain(|t| keep(&t.tool));
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

    /// Where the `requestState`s already used are recorded, so that each
    /// is used once (default: an [`InMemoryReplayStore`]). Instances behind a
    /// round-robin balancer share one, or an accepted confirmation could be
    /// replayed on another instance.
    pub fn replay_store(mut self, store: impl ReplayStore) -> Self {
        self.replay_store = Some(Arc::new(store));
        self
    }

    /// Where 2025-11-25 HTTP sessions are recorded, so that another instance
    /// picks a session up when the one that opened it is gone (default:
    /// nowhere; a session lives and dies with its instance).
    #[cfg(feature = "http")]
    pub fn session_store(mut self, store: impl super::store::SessionStore) -> Self {
        self.session_store = Some(Arc::new(store));
        self
    }

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

    /// One store for tasks, used `requestState`s, sessions and limits (such
    /// as `toolmetadata-store`'s Redis and PostgreSQL stores): what
    /// instances behind one balancer share.
    #[cfg(feature = "http")]
    pub fn store<S: super::store::SharedStore>(mut self, store: Arc<S>) -> Self {
        self.task_store = Some(store.clone());
        self.replay_store = Some(store.clone());
        self.limit_store = Some(store.clone());
        self.session_store = Some(store);
        self
    }

    /// The server; an error when two tools share a name (or a tool takes a
    /// meta-tool's name while discovery is on), when a tool's `[ui]` links a
    /// `ui://` view the server does not serve, or when a `ui://` resource is
    /// not of the MCP Apps MIME type `text/html;profile=mcp-app`.
    pub fn build(mut self) -> Result<Server, ServerError> {
        if let Some(e) = self.errors.first() {
            return Err(ServerError::new(e.clone()));
        }
        if self.require_confirmation {
            for served in &mut self.tools {
                if let Some(confirm) = &mut served.confirm {
                    Arc::make_mut(confirm).confirm.unsupported =
                        crate::metadata::Unsupported::Refuse;
                }
            }
        }
        tasks::mark_asks_first(&mut self.tools, &self.asks_first)?;
        let catalog = Catalog::new(self.tools, self.show_all)?;
        let instructions = match (self.instructions, catalog.discovery()) {
            (Some(i), true) => Some(format!("{i}\n\n{}", discovery::INSTRUCTIONS)),
            (None, true) => Some(discovery::INSTRUCTIONS.to_owned()),
            (i, false) => i,
        };
        extras::check_extras(&self.prompts, &self.templates, &self.completions)?;
        extras::check_views(catalog.served(), &self.resources, &self.templates)?;
        let ask = AskSettings {
            codec: state_codec(self.state_keys)?,
            state_ttl: self.state_ttl.unwrap_or(Duration::from_secs(600)),
            timeout: self.ask_timeout.unwrap_or(Duration::from_secs(300)),
        };
        Ok(Server {
            roots: Arc::default(),
            log_level: Arc::default(),
            subscriber: super::subscriptions::next_subscriber(),
            inner: Arc::new(Inner {
                name: self
                    .name
                    .unwrap_or_else(|| "toolmetadata-server".to_owned()),
                version: self
                    .version
                    .unwrap_or_else(|| env!("CARGO_PKG_VERSION").to_owned()),
                instructions,
                catalog,
                resources: self.resources,
                templates: self.templates,
                skills: super::skills::Skills::new(self.skills),
                prompts: self.prompts,
                completions: self.completions,
                ask,
                list_cache: self.list_cache,
                tasks: Arc::new(Tasks::new(
                    self.task_store
                        .unwrap_or_else(|| Arc::new(InMemoryTaskStore::default())),
                    self.task_ttl.unwrap_or(DEFAULT_TASK_TTL),
                    self.task_lease.unwrap_or(DEFAULT_TASK_LEASE),
                )),
                stores: super::Stores {
                    limits: self.limit_store.map(|store| super::limits::SharedLimits {
                        store,
                        lease: self
                            .task_lease
                            .unwrap_or(DEFAULT_TASK_LEASE)
                            .max(Duration::from_secs(1)),
                    }),
                    replay: self
                        .replay_store
                        .unwrap_or_else(|| Arc::new(InMemoryReplayStore::default())),
                    #[cfg(feature = "http")]
                    sessions: self.session_store,
                },
                list_extras: Arc::new(self.list_extras),
                subscriptions: Default::default(),
            }),
        })
    }
}

/// The codec of `requestState`s: a keyring of the configured keys (the
/// first signs), or a random key.
///
/// A key's id is a digest of the key, so that instances configured with the
/// same keys in another order agree. States sealed by a single key (rmcp's
/// `rs1` format, which this crate wrote before keyrings) still open.
fn state_codec(keys: Vec<Vec<u8>>) -> Result<RequestStateCodec, ServerError> {
    use sha2::Digest;
    let keys = if keys.is_empty() {
        let mut key = vec![0; 32];
        getrandom::fill(&mut key).map_err(|e| {
            ServerError::new(format!("no randomness for the request-state key: {e}"))
        })?;
        vec![key]
    } else {
        keys
    };
    let bad =
        |e: rmcp::model::RequestStateError| ServerError::new(format!("request_state_key: {e}"));
    let ring: Vec<(String, Vec<u8>)> = keys
        .into_iter()
        .map(|key| {
            let digest = sha2::Sha256::digest(&key);
            let id = toolmetadata_core::seam::hex(&digest[..8]);
            (id, key)
        })
        .collect();
    let mut unique = std::collections::HashSet::new();
    let ring: Vec<_> = ring
        .into_iter()
        .filter(|(id, _)| unique.insert(id.clone()))
        .collect();
    let active = ring[0].0.clone();
    let ids: Vec<String> = ring.iter().map(|(id, _)| id.clone()).collect();
    let mut codec = RequestStateCodec::new_with_keyring(active, ring).map_err(bad)?;
    for id in ids {
        codec = codec.with_rs1_fallback(id).map_err(bad)?;
    }
    Ok(codec)
}

impl super::Server {
    /// A builder with no tools.
    pub fn builder() -> ServerBuilder {
        ServerBuilder::default()
    }
}

#[cfg(test)]
mod tests {
    use super::state_codec;

    const OLD: &[u8] = b"the-old-key-of-at-least-32-bytes!!!!";
    const NEW: &[u8] = b"the-new-key-of-at-least-32-bytes!!!!";

    #[test]
    fn keys_rotate_the_first_signing_and_every_one_verifying() {
        let before = state_codec(vec![OLD.to_vec()]).expect("codec");
        let during = state_codec(vec![NEW.to_vec(), OLD.to_vec()]).expect("codec");
        let after = state_codec(vec![NEW.to_vec()]).expect("codec");
        let old_state = before.seal(b"old");
        let new_state = during.seal(b"new");
        assert_eq!(during.open(&old_state).expect("old key verifies"), b"old");
        assert_eq!(after.open(&new_state).expect("new key signs"), b"new");
        assert!(
            after.open(&old_state).is_err(),
            "a dropped key no longer verifies"
        );
        assert!(
            before.open(&new_state).is_err(),
            "an instance without the new key"
        );
        // The order of the verifying keys does not matter to the ids.
        let reordered = state_codec(vec![OLD.to_vec(), NEW.to_vec()]).expect("codec");
        assert_eq!(reordered.open(&new_state).expect("same ids"), b"new");
        // A single-key state of rmcp's first format still opens.
        let legacy = rmcp::model::RequestStateCodec::try_new(OLD).expect("codec");
        assert_eq!(during.open(&legacy.seal(b"rs1")).expect("rs1"), b"rs1");
        assert!(state_codec(vec![b"short".to_vec()]).is_err());
    }
}
