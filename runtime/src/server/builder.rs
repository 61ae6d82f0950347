//! [`ServerBuilder`]: generated tool sets and run-time tools, static resources
//! and options, checked once into a [`Server`].

use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{RequestStateCodec, Tool};
use serde_json::{Map, Value};

use super::arguments::Arguments;
use super::asker::AskSettings;
use super::call::{Handler, Served};
use super::prompts::{Completes, ServedCompletion, ServedPrompt};
use super::resources::{ServedTemplate, StaticResource};
use super::{Inner, Server, ServerError, discovery};
use crate::args::{ArgErrors, Conversion, Decoder, ParamSpec};
use crate::metadata::{Confirm, ToolMetadata};
use crate::{CallFuture, CallOutcome, IntoToolOutput, ToolEntry, ToolError, ToolSet};

/// Builds a [`Server`] from generated tool sets and run-time tools.
#[must_use]
#[derive(Default)]
pub struct ServerBuilder {
    pub(super) resources: Vec<StaticResource>,
    pub(super) templates: Vec<ServedTemplate>,
    pub(super) prompts: Vec<ServedPrompt>,
    pub(super) completions: Vec<ServedCompletion>,
    name: Option<String>,
    version: Option<String>,
    instructions: Option<String>,
    show_all: bool,
    tools: Vec<Served>,
    errors: Vec<String>,
    state_key: Option<Vec<u8>>,
    state_ttl: Option<Duration>,
    ask_timeout: Option<Duration>,
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
    /// clients that cannot search; HTTP clients can ask per request).
    pub fn show_all(mut self, show_all: bool) -> Self {
        self.show_all = show_all;
        self
    }

    /// The key that signs the `requestState` of 2026-07-28 questions (at
    /// least 32 bytes). Instances behind one load balancer need the same key
    /// to accept each other's retries; without one, each process draws a
    /// random key, so a retry must reach the instance that asked.
    pub fn request_state_key(mut self, key: impl Into<Vec<u8>>) -> Self {
        self.state_key = Some(key.into());
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
            let tool: Tool = match serde_json::from_str(entry.entry_json) {
                Ok(tool) => tool,
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
                scopes: entry.scopes.iter().map(|s| (*s).to_owned()).collect(),
                confirm: entry.confirm.map(|c| {
                    Arc::new(Confirm {
                        message: c.message.to_owned(),
                        unsupported: c.unsupported,
                    })
                }),
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
        let tool: Tool = match serde_json::from_value(metadata.to_tools_list_entry()) {
            Ok(tool) => tool,
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
            let confirm = cx.confirmation(&args);
            Box::pin(match decode_dynamic(&name, args, &specs, &defaults) {
                Ok(arguments) => {
                    let future = handler(arguments, cx);
                    let future = Box::pin(async move { future.await.map(O::into_tool_output) });
                    match confirm {
                        None => CallFuture::running(future),
                        Some(confirm) => CallFuture::confirming(confirm, future),
                    }
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
            confirm: metadata.confirm.clone().map(Arc::new),
            scopes: metadata.scopes.clone(),
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
        check_extras(&self.prompts, &self.templates, &self.completions)?;
        let ask = AskSettings {
            codec: state_codec(self.state_key)?,
            state_ttl: self.state_ttl.unwrap_or(Duration::from_secs(600)),
            timeout: self.ask_timeout.unwrap_or(Duration::from_secs(300)),
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
                templates: self.templates,
                prompts: self.prompts,
                completions: self.completions,
                ask,
            }),
        })
    }
}

/// Prompt names are unique, templates parse, and each completion completes
/// an argument or variable that exists.
fn check_extras(
    prompts: &[ServedPrompt],
    templates: &[ServedTemplate],
    completions: &[ServedCompletion],
) -> Result<(), ServerError> {
    for (i, p) in prompts.iter().enumerate() {
        if prompts[..i].iter().any(|q| q.prompt.name == p.prompt.name) {
            return Err(ServerError::new(format!(
                "two prompts are named `{}`",
                p.prompt.name
            )));
        }
    }
    for t in templates {
        if let Err(why) = &t.parsed {
            return Err(ServerError::new(format!("resource template {why}")));
        }
    }
    for c in completions {
        let found = match &c.completes {
            Completes::Prompt { name, argument } => prompts.iter().any(|p| {
                &p.prompt.name == name
                    && p.prompt
                        .arguments
                        .iter()
                        .flatten()
                        .any(|a| &a.name == argument)
            }),
            Completes::Template {
                uri_template,
                variable,
            } => templates.iter().any(|t| {
                &t.template.uri_template == uri_template
                    && t.parsed
                        .as_ref()
                        .is_ok_and(|p| p.variables().any(|v| v == variable))
            }),
        };
        if !found {
            return Err(ServerError::new(format!(
                "a completion completes {:?}, which the server does not serve",
                c.completes
            )));
        }
    }
    Ok(())
}

/// The codec of `requestState`s: the configured key, or a random one.
fn state_codec(key: Option<Vec<u8>>) -> Result<RequestStateCodec, ServerError> {
    let key = match key {
        Some(key) => key,
        None => {
            let mut key = vec![0; 32];
            getrandom::fill(&mut key).map_err(|e| {
                ServerError::new(format!("no randomness for the request-state key: {e}"))
            })?;
            key
        }
    };
    RequestStateCodec::try_new(key).map_err(|e| ServerError::new(format!("request_state_key: {e}")))
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
