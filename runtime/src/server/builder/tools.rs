//! The tools a [`ServerBuilder`] is given: generated tool sets, tools
//! loaded at run time, and which of them to keep.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use rmcp::model::Tool;

use super::ServerBuilder;
use super::listed;
use super::needs;
use crate::args::{Conversion, DynamicParams};
use crate::metadata::{Confirm, ToolMetadata};
use crate::server::arguments::Arguments;
use crate::server::served::{Invoke, Served};
use crate::{CallOutcome, IntoToolOutput, ToolError, ToolSet};
use toolmetadata_core::BoxFuture;
use toolmetadata_core::codegen::ToolEntry;
use toolmetadata_core::seam::Asking;
use toolmetadata_core::seam::ConfirmPlan;

impl ServerBuilder {
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
            self.refuse_unbuilt(entry.name, &needs::Needs::of_entry(entry));
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
                groups: entry.groups.iter().map(|g| (*g).to_owned()).collect(),
                confirm,
                task: entry.task,
                #[cfg(feature = "limits")]
                limits: crate::server::policy::limits::Limiter::of(entry.limits),
                #[cfg(feature = "tasks")]
                asks_first: false,
                bound: entry
                    .bound
                    .iter()
                    .map(crate::server::policy::bound::Bound::of_entry)
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
        let output_text: Option<Arc<str>> = metadata.output_text.as_deref().map(Arc::from);
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
                let output_text = output_text.clone();
                Box::pin(async move {
                    let output = future.await.map(O::into_tool_output);
                    match output_text {
                        Some(template) => output.map(|o| o.with_output_text(&template)),
                        None => output,
                    }
                }) as BoxFuture<'_, _>
            });
            Box::pin(asking.then(started))
        });
        let confirm = metadata
            .confirm
            .clone()
            .map(|c| Arc::new(ConfirmPlan::new(c, &tool.input_schema)));
        self.refuse_unbuilt(&metadata.name, &needs::Needs::of_metadata(&metadata));
        self.tools.push(Served {
            description: metadata.listed_description(),
            tool,
            discoverable: metadata.discoverable,
            keywords: metadata.keywords.clone(),
            handler: erased,
            confirm,
            task: metadata.task,
            scopes: metadata.scopes.clone(),
            groups: metadata.groups.clone(),
            #[cfg(feature = "limits")]
            limits: crate::server::policy::limits::Limiter::of(metadata.limits),
            #[cfg(feature = "tasks")]
            asks_first: false,
            bound: crate::server::policy::bound::Bound::of_metadata(&metadata),
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
            groups: Vec::new(),
            #[cfg(feature = "limits")]
            limits: None,
            #[cfg(feature = "tasks")]
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
}
