//! [`ServerBuilder`]: generated tool sets and run-time tools, static resources
//! and options, checked once into a [`Server`].

use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{Resource, Tool};
use serde_json::{Map, Value};

use super::arguments::Arguments;
use super::cache::ListCache;
use super::call::{Handler, Served};
use super::task::{DEFAULT_TASK_TTL, Tasks};
use super::task_store::{InMemoryTaskStore, TaskStore};
use super::wire::ListExtras;
use super::{Inner, Server, ServerError, discovery};
use crate::args::{ArgErrors, Conversion, Decoder, ParamSpec};
use crate::metadata::ToolMetadata;
use crate::{CallFuture, CallOutcome, IntoToolOutput, ToolEntry, ToolError, ToolSet};

/// A resource served as it is, such as the HTML view of a tool's `[ui]`.
#[derive(Debug, Clone)]
pub(super) struct StaticResource {
    pub(super) resource: Resource,
    pub(super) text: String,
}

/// Builds a [`Server`] from generated tool sets and run-time tools.
#[must_use]
#[derive(Default)]
pub struct ServerBuilder {
    resources: Vec<StaticResource>,
    name: Option<String>,
    version: Option<String>,
    instructions: Option<String>,
    show_all: bool,
    tools: Vec<Served>,
    errors: Vec<String>,
    list_cache: ListCache,
    task_store: Option<Arc<dyn TaskStore>>,
    task_ttl: Option<Duration>,
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

    /// Adds a generated tool set with its handler (the generated `tool_set`).
    pub fn tool_set<T: Send + Sync + 'static>(self, set: ToolSet<T>) -> Self {
        let info = set.crate_info();
        let entries = set.entries();
        let set = Arc::new(set);
        let handler = move |name: &'static str| -> Handler {
            let set = set.clone();
            Arc::new(move |args, cx| {
                let set = set.clone();
                Box::pin(async move {
                    // `name` comes from the set's own table, so it is found.
                    match set.call(name, args, cx) {
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
        handler: &dyn Fn(&'static str) -> Handler,
    ) -> Self {
        self.name.get_or_insert_with(|| name.to_owned());
        self.version.get_or_insert_with(|| version.to_owned());
        for entry in entries {
            let parsed = serde_json::from_str::<Value>(entry.entry_json).and_then(|json| {
                serde_json::from_value::<Tool>(json.clone()).map(|tool| (json, tool))
            });
            let tool: Tool = match parsed {
                Ok((json, tool)) => {
                    self.list_extras.record(&json, &tool);
                    tool
                }
                Err(e) => {
                    self.errors
                        .push(format!("the entry of `{}` is not a tool: {e}", entry.name));
                    continue;
                }
            };
            self.tools.push(Served {
                description: tool.description.as_deref().unwrap_or_default().to_owned(),
                tool,
                discoverable: entry.discoverable,
                keywords: entry.keywords.iter().map(|k| (*k).to_owned()).collect(),
                handler: handler(entry.name),
                task: entry.task,
            });
        }
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
                tool
            }
            Err(e) => {
                self.errors.push(format!(
                    "the entry of `{}` is not a tool: {e}",
                    metadata.name
                ));
                return self;
            }
        };
        let specs: Arc<Vec<ParamSpec>> =
            Arc::new(metadata.parameters.iter().map(ParamSpec::from).collect());
        let defaults: Arc<Vec<Option<Value>>> = Arc::new(
            metadata
                .parameters
                .iter()
                .map(|p| p.default.as_ref().map(|d| d.to_json()))
                .collect(),
        );
        let name: Arc<str> = metadata.name.as_str().into();
        let erased: Handler = Arc::new(move |args, cx| {
            Box::pin(match decode_dynamic(&name, args, &specs, &defaults) {
                Ok(arguments) => {
                    let future = handler(arguments, cx);
                    CallFuture::running(Box::pin(
                        async move { future.await.map(O::into_tool_output) },
                    ))
                }
                Err(errors) => CallFuture::invalid(errors),
            })
        });
        self.tools.push(Served {
            description: metadata.listed_description(),
            tool,
            discoverable: metadata.discoverable,
            keywords: metadata.keywords.clone(),
            handler: erased,
            task: metadata.task,
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

    /// Serves a text resource at `uri` (`resources/list`, `resources/read`):
    /// for a tool's `[ui]`, its HTML view with the MIME type
    /// `text/html;profile=mcp-app`.
    pub fn resource(
        mut self,
        uri: impl Into<String>,
        name: impl Into<String>,
        mime_type: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        let text = text.into();
        let mut resource = Resource::new(uri, name);
        resource.mime_type = Some(mime_type.into());
        resource.size = Some(text.len() as u64);
        self.resources.push(StaticResource { resource, text });
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

    /// Where tasks are kept (default: an [`InMemoryTaskStore`] of at most
    /// 1000 tasks). Several instances behind a round-robin balancer share one
    /// store, such as Redis or a database; see [`TaskStore`] for what it must
    /// guarantee.
    pub fn task_store(mut self, store: impl TaskStore) -> Self {
        self.task_store = Some(Arc::new(store));
        self
    }

    /// How long a task and its result are kept after the call that started
    /// it (default 1 hour). A task still running then is cancelled, so no
    /// work outlives it.
    pub fn task_ttl(mut self, ttl: Duration) -> Self {
        self.task_ttl = Some(ttl);
        self
    }

    /// The server; an error when two tools share a name (or a tool takes a
    /// meta-tool's name while discovery is on).
    pub fn build(mut self) -> Result<Server, ServerError> {
        if let Some(e) = self.errors.first() {
            return Err(ServerError::new(e.clone()));
        }
        self.tools.sort_by(|a, b| a.tool.name.cmp(&b.tool.name));
        for pair in self.tools.windows(2) {
            if pair[0].tool.name == pair[1].tool.name {
                return Err(ServerError::new(format!(
                    "two tools are named `{}`",
                    pair[0].tool.name
                )));
            }
        }
        let discovery = self.tools.iter().any(|t| t.discoverable);
        if discovery
            && let Some(t) = self.tools.iter().find(|t| {
                t.tool.name == discovery::TOOL_SEARCH || t.tool.name == discovery::EXECUTE_TOOL
            })
        {
            return Err(ServerError::new(format!(
                "the tool `{}` has the name of a discovery meta-tool",
                t.tool.name
            )));
        }
        let meta_tools = if discovery {
            discovery::meta_tool_entries()
                .into_iter()
                .map(|v| {
                    serde_json::from_value::<Tool>(v).map_err(|e| ServerError::new(e.to_string()))
                })
                .collect::<Result<Vec<_>, _>>()?
        } else {
            Vec::new()
        };
        let instructions = match (self.instructions, discovery) {
            (Some(i), true) => Some(format!("{i}\n\n{}", discovery::INSTRUCTIONS)),
            (None, true) => Some(discovery::INSTRUCTIONS.to_owned()),
            (i, false) => i,
        };
        let by_name: BTreeMap<String, usize> = self
            .tools
            .iter()
            .enumerate()
            .map(|(i, t)| (t.tool.name.to_string(), i))
            .collect();
        Ok(Server {
            inner: Arc::new(Inner {
                name: self
                    .name
                    .unwrap_or_else(|| "toolmetadata-server".to_owned()),
                version: self
                    .version
                    .unwrap_or_else(|| env!("CARGO_PKG_VERSION").to_owned()),
                instructions,
                show_all: self.show_all,
                tools: self.tools,
                by_name,
                meta_tools,
                resources: self.resources,
                list_cache: self.list_cache,
                tasks: Tasks::new(
                    self.task_store
                        .unwrap_or_else(|| Arc::new(InMemoryTaskStore::default())),
                    self.task_ttl.unwrap_or(DEFAULT_TASK_TTL),
                ),
                list_extras: Arc::new(self.list_extras),
            }),
        })
    }
}

/// The arguments of a run-time tool, decoded by the same decoder as a
/// generated struct's, defaults filled in.
fn decode_dynamic(
    tool: &str,
    args: Map<String, Value>,
    specs: &[ParamSpec],
    defaults: &[Option<Value>],
) -> Result<Arguments, ArgErrors> {
    let mut slots = vec![None; specs.len()];
    let mut decoder = Decoder::new(tool, args, specs, &mut slots, Conversion::Lenient);
    let mut values = Map::new();
    for (i, spec) in specs.iter().enumerate() {
        let value = if spec.is_required() {
            decoder.required::<Value>(i)
        } else {
            decoder.optional::<Value>(i)
        };
        if let Some(v) = value.or_else(|| defaults.get(i).cloned().flatten()) {
            values.insert(spec.name().to_owned(), v);
        }
    }
    decoder.finish(values, |values| Some(Arguments::new(values)))
}
