//! The MCP server on rmcp: generated tool sets and tools loaded at run time,
//! served on stdio or (with the `http` feature, on by default) Streamable HTTP,
//! with Go's discovery mode.
//!
//! ```no_run
//! # mod tools {
//! #     pub fn tool_set<T: Send + Sync + 'static>(t: T) -> toolmetadata::dispatch::Handled<T> {
//! #         fn dispatch<'a, T>(_: &'a T, _: &str, _: toolmetadata::args::Map, _: toolmetadata::Context)
//! #             -> Option<toolmetadata::dispatch::Call<'a>> { None }
//! #         toolmetadata::dispatch::Handled::new(t, &[], dispatch::<T>, "demo", "0.1.0")
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

mod arguments;
mod discovery;
#[cfg(feature = "http")]
mod http;

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorCode,
    Implementation, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ProgressNotificationParam, ProgressToken, ReadResourceRequestParams, ReadResourceResponse,
    ReadResourceResult, Resource, ResourceContents, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{Peer, RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler};
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

pub use arguments::Arguments;
#[cfg(feature = "http")]
pub use http::{HttpOptions, HttpServer, shutdown_signal};

use crate::args::{ArgErrors, Conversion, Decoder, ParamSpec};
use crate::dispatch::{BoxFuture, Call, CallOutcome, Handled, ToolEntry};
use crate::metadata::ToolMetadata;
use crate::{Content, Context, IntoToolOutput, ToolError, ToolOutput};

/// A call of one tool, erased: arguments and context in, outcome out.
type Caller =
    Arc<dyn Fn(Map<String, Value>, Context) -> BoxFuture<'static, CallOutcome> + Send + Sync>;

/// One tool the server serves.
struct Served {
    tool: Tool,
    description: String,
    discoverable: bool,
    keywords: Vec<String>,
    call: Caller,
}

/// What a handler needs of the call it serves: its cancellation, and the way
/// back to the client for progress.
#[derive(Clone)]
pub(crate) struct CallParts {
    pub(crate) cancel: CancellationToken,
    peer: Peer<RoleServer>,
    progress_token: Option<ProgressToken>,
}

impl fmt::Debug for CallParts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CallParts")
            .field("cancelled", &self.cancel.is_cancelled())
            .field("progress_token", &self.progress_token)
            .finish()
    }
}

impl CallParts {
    pub(crate) async fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        let Some(token) = &self.progress_token else {
            return;
        };
        let mut param = ProgressNotificationParam::new(token.clone(), progress);
        param.total = total;
        param.message = message.map(str::to_owned);
        if let Err(e) = self.peer.notify_progress(param).await {
            tracing::debug!("progress notification not sent: {e}");
        }
    }
}

/// Why a server could not be built or served.
#[derive(Debug)]
pub struct ServerError {
    message: String,
}

impl ServerError {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        ServerError {
            message: message.into(),
        }
    }
}

impl fmt::Display for ServerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ServerError {}

/// A resource served as it is, such as the HTML view of a tool's `[ui]`.
#[derive(Debug, Clone)]
struct StaticResource {
    resource: Resource,
    text: String,
}

/// Builds a [`Server`] from generated tool sets and run-time tools.
#[must_use]
pub struct ServerBuilder {
    resources: Vec<StaticResource>,
    name: Option<String>,
    version: Option<String>,
    instructions: Option<String>,
    show_all: bool,
    tools: Vec<Served>,
    errors: Vec<String>,
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

    /// Adds a generated tool set with its handler (the generated `tool_set`).
    pub fn tool_set<T: Send + Sync + 'static>(self, set: Handled<T>) -> Self {
        let info = set.crate_info();
        let entries = set.entries();
        let set = Arc::new(set);
        let caller = move |name: &'static str| -> Caller {
            let set = set.clone();
            Arc::new(move |args, cx| {
                let set = set.clone();
                Box::pin(async move {
                    match set.call(name, args, cx) {
                        Some(call) => call.await,
                        None => {
                            CallOutcome::Failed(ToolError::new(format!("no handler for `{name}`")))
                        }
                    }
                })
            })
        };
        self.add_entries(info, entries, &caller)
    }

    /// The part of [`ServerBuilder::tool_set`] that does not depend on the
    /// handler type, kept out of the generic function so that it is compiled
    /// once, here.
    fn add_entries(
        mut self,
        (name, version): (&'static str, &'static str),
        entries: &'static [ToolEntry],
        caller: &dyn Fn(&'static str) -> Caller,
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
                call: caller(entry.name),
            });
        }
        self
    }

    /// Adds a tool loaded at run time (from a database, an API, …) with its
    /// handler, which receives the arguments decoded and checked exactly as a
    /// generated tool's: same conversions, same constraints, same errors.
    pub fn tool<F, Fut, O>(mut self, metadata: ToolMetadata, handler: F) -> Self
    where
        F: Fn(Arguments, Context) -> Fut + Send + Sync + 'static,
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
        let call: Caller = Arc::new(move |args, cx| {
            Box::pin(match decode_dynamic(&name, args, &specs, &defaults) {
                Ok(arguments) => {
                    let future = handler(arguments, cx);
                    Call::running(Box::pin(
                        async move { future.await.map(O::into_tool_output) },
                    ))
                }
                Err(errors) => Call::invalid(errors),
            })
        });
        self.tools.push(Served {
            description: metadata.listed_description(),
            tool,
            discoverable: metadata.discoverable,
            keywords: metadata.keywords.clone(),
            call,
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
        let by_name = self
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
            }),
        })
    }
}

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
    decoder.finish().map(|()| Arguments::new(values))
}

struct Inner {
    name: String,
    version: String,
    instructions: Option<String>,
    show_all: bool,
    /// Sorted by name.
    tools: Vec<Served>,
    by_name: BTreeMap<String, usize>,
    /// `tool_search` and `execute_tool`, when discoverable tools exist.
    meta_tools: Vec<Tool>,
    resources: Vec<StaticResource>,
}

/// An MCP server over generated tool sets and run-time tools; cheap to clone
/// (each HTTP session gets a clone).
#[derive(Clone)]
pub struct Server {
    inner: Arc<Inner>,
}

impl fmt::Debug for Server {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Server")
            .field("name", &self.inner.name)
            .field("tools", &self.inner.tools.len())
            .finish()
    }
}

impl Server {
    /// A builder with no tools.
    pub fn builder() -> ServerBuilder {
        ServerBuilder {
            resources: Vec::new(),
            name: None,
            version: None,
            instructions: None,
            show_all: false,
            tools: Vec::new(),
            errors: Vec::new(),
        }
    }

    /// The tools a `tools/list` shows: every non-discoverable tool, plus the
    /// meta-tools when discoverable ones exist; or every tool with `show_all`.
    pub fn listed_tools(&self, show_all: bool) -> Vec<Tool> {
        let inner = &self.inner;
        if show_all || inner.meta_tools.is_empty() {
            return inner.tools.iter().map(|t| t.tool.clone()).collect();
        }
        let mut listed: Vec<Tool> = inner
            .tools
            .iter()
            .filter(|t| !t.discoverable)
            .map(|t| t.tool.clone())
            .chain(inner.meta_tools.iter().cloned())
            .collect();
        listed.sort_by(|a, b| a.name.cmp(&b.name));
        listed
    }

    /// Serves on stdin/stdout until the client closes stdin (also before it
    /// initialized, which is not an error). Logs go to stderr.
    ///
    /// The future is boxed here so that rmcp's server machinery is compiled
    /// once, in this crate, rather than again in every crate that awaits it
    /// (an `async fn` is compiled where it is polled): that alone is most of a
    /// small server's debug build time.
    pub fn serve_stdio(self) -> BoxFuture<'static, Result<(), ServerError>> {
        Box::pin(self.run_stdio())
    }

    async fn run_stdio(self) -> Result<(), ServerError> {
        use rmcp::ServiceExt;
        let running = match self.serve(rmcp::transport::stdio()).await {
            Ok(running) => running,
            // The client went away before saying anything: nothing to serve.
            Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => {
                tracing::info!("stdin closed before the client initialized");
                return Ok(());
            }
            Err(e) => return Err(ServerError::new(format!("cannot start on stdio: {e}"))),
        };
        running
            .waiting()
            .await
            .map_err(|e| ServerError::new(format!("stdio server failed: {e}")))?;
        Ok(())
    }

    /// Serves Streamable HTTP at `/mcp` until Ctrl-C or SIGTERM (or the options'
    /// shutdown signal). Boxed like [`Server::serve_stdio`]. Feature `http`
    /// (on by default).
    #[cfg(feature = "http")]
    pub fn serve_http(self, options: HttpOptions) -> BoxFuture<'static, Result<(), ServerError>> {
        Box::pin(http::serve(self, options))
    }

    /// Runs one call: the meta-tools, or a tool by name. `None` for an unknown
    /// tool (a protocol error).
    async fn call(
        &self,
        name: &str,
        args: Map<String, Value>,
        parts: CallParts,
    ) -> Option<CallToolResult> {
        if !self.inner.meta_tools.is_empty() {
            if name == discovery::TOOL_SEARCH {
                return Some(self.tool_search(&args));
            }
            if name == discovery::EXECUTE_TOOL {
                return Some(self.execute_tool(args, parts).await);
            }
        }
        let index = *self.inner.by_name.get(name)?;
        Some(self.run(index, args, parts).await)
    }

    async fn run(
        &self,
        index: usize,
        args: Map<String, Value>,
        parts: CallParts,
    ) -> CallToolResult {
        let served = &self.inner.tools[index];
        let name = served.tool.name.to_string();
        let cancel = parts.cancel.clone();
        let cx = Context::connected(&name, parts);
        let task = tokio::spawn((served.call)(args, cx));
        let abort = task.abort_handle();
        let joined = tokio::select! {
            joined = task => joined,
            () = cancel.cancelled() => {
                abort.abort();
                tracing::info!(tool = %name, "call cancelled by the client");
                return CallToolResult::error(vec![ContentBlock::text(format!("the call of `{name}` was cancelled"))]);
            }
        };
        match joined {
            Ok(CallOutcome::Output(output)) => to_result(output),
            Ok(CallOutcome::InvalidArguments(errors)) => {
                CallToolResult::error(vec![ContentBlock::text(errors.to_string())])
            }
            Ok(CallOutcome::Failed(error)) => {
                CallToolResult::error(vec![ContentBlock::text(error.message())])
            }
            Err(e) => {
                let why = if e.is_panic() {
                    "panicked"
                } else {
                    "was stopped"
                };
                tracing::error!(tool = %name, "the handler {why}: {e}");
                CallToolResult::error(vec![ContentBlock::text(format!(
                    "the tool `{name}` failed: internal error"
                ))])
            }
        }
    }

    fn tool_search(&self, args: &Map<String, Value>) -> CallToolResult {
        let query = args
            .get("query")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let max = match args.get("max_results") {
            Some(Value::Number(n)) => n.as_f64(),
            Some(Value::String(s)) => s.parse::<f64>().ok(),
            _ => None,
        }
        .filter(|x| x.is_finite())
        .map_or(5, |x| x.clamp(1.0, 100.0) as usize);
        let candidates: Vec<discovery::Candidate<'_>> = self
            .inner
            .tools
            .iter()
            .map(|t| discovery::Candidate {
                name: &t.tool.name,
                description: &t.description,
                keywords: &t.keywords,
            })
            .collect();
        let mut hits: Vec<(f64, &Served)> = discovery::scores(query, &candidates)
            .into_iter()
            .zip(&self.inner.tools)
            .filter(|(s, _)| *s > 0.0)
            .collect();
        hits.sort_by(|a, b| {
            b.0.total_cmp(&a.0)
                .then_with(|| a.1.tool.name.cmp(&b.1.tool.name))
        });
        let results: Vec<Value> = hits
            .into_iter()
            .take(max)
            .map(|(score, t)| {
                let mut hit = serde_json::json!({
                    "name": t.tool.name,
                    "description": t.description,
                    "score": score,
                    "inputSchema": Value::Object((*t.tool.input_schema).clone()),
                });
                if !t.keywords.is_empty() {
                    hit["keywords"] = Value::from(t.keywords.clone());
                }
                hit
            })
            .collect();
        CallToolResult::success(vec![ContentBlock::text(Value::Array(results).to_string())])
    }

    async fn execute_tool(&self, mut args: Map<String, Value>, parts: CallParts) -> CallToolResult {
        let Some(name) = args.get("name").and_then(Value::as_str).map(str::to_owned) else {
            return CallToolResult::error(vec![ContentBlock::text(
                "execute_tool: `name` (the tool to call) is required",
            )]);
        };
        let params = match args
            .remove("parameters")
            .or_else(|| args.remove("arguments"))
        {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(m)) => m,
            Some(other) => {
                return CallToolResult::error(vec![ContentBlock::text(format!(
                    "execute_tool: `parameters` must be an object, got {}",
                    crate::args::not_an_object(&name, &other)
                ))]);
            }
        };
        match self.inner.by_name.get(&name) {
            Some(&index) => self.run(index, params, parts).await,
            None => CallToolResult::error(vec![ContentBlock::text(format!(
                "execute_tool: there is no tool `{name}`; find tools with tool_search"
            ))]),
        }
    }
}

fn to_result(output: ToolOutput) -> CallToolResult {
    let blocks = output
        .blocks()
        .iter()
        .map(|c| match c {
            Content::Text(t) => ContentBlock::text(t.clone()),
            Content::Image { data, mime_type } => {
                ContentBlock::image(data.clone(), mime_type.clone())
            }
        })
        .collect();
    let mut result = CallToolResult::success(blocks);
    result.structured_content = output.structured_content().cloned();
    result
}

/// Without HTTP there is no request to ask for all tools.
#[cfg(not(feature = "http"))]
fn http_show_all(_: &RequestContext<RoleServer>) -> bool {
    false
}

/// `X-MCP-Show-All: true` or `?show_all=true` on the HTTP request.
#[cfg(feature = "http")]
fn http_show_all(context: &RequestContext<RoleServer>) -> bool {
    let Some(parts) = context.extensions.get::<axum::http::request::Parts>() else {
        return false;
    };
    let header = parts
        .headers
        .get("x-mcp-show-all")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
    let query = parts.uri.query().is_some_and(|q| {
        q.split('&')
            .any(|pair| pair.eq_ignore_ascii_case("show_all=true"))
    });
    header || query
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let capabilities = if self.inner.resources.is_empty() {
            ServerCapabilities::builder().enable_tools().build()
        } else {
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .build()
        };
        let mut info = ServerConfig::new(capabilities);
        info.server_info = Implementation::new(self.inner.name.clone(), self.inner.version.clone());
        info.instructions = self.inner.instructions.clone();
        info
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let show_all = self.inner.show_all || http_show_all(&context);
        Ok(ListToolsResult::with_all_items(self.listed_tools(show_all)))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let parts = CallParts {
            cancel: context.ct.clone(),
            progress_token: context.meta.get_progress_token(),
            peer: context.peer.clone(),
        };
        let args = request.arguments.unwrap_or_default();
        match self.call(&request.name, args, parts).await {
            Some(result) => Ok(result.into()),
            None => Err(ErrorData::new(
                ErrorCode::INVALID_PARAMS,
                format!(
                    "unknown tool `{}`",
                    crate::args::shorten(&request.name, 100)
                ),
                None,
            )),
        }
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        if self.inner.resources.is_empty() {
            return Err(ErrorData::new(
                ErrorCode::METHOD_NOT_FOUND,
                "resources/list",
                None,
            ));
        }
        Ok(ListResourcesResult::with_all_items(
            self.inner
                .resources
                .iter()
                .map(|r| r.resource.clone())
                .collect(),
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let Some(found) = self
            .inner
            .resources
            .iter()
            .find(|r| r.resource.uri == request.uri)
        else {
            return Err(ErrorData::resource_not_found(
                format!("no resource `{}`", crate::args::shorten(&request.uri, 200)),
                None,
            ));
        };
        let contents = ResourceContents::TextResourceContents {
            uri: found.resource.uri.clone(),
            mime_type: found.resource.mime_type.clone(),
            text: found.text.clone(),
            meta: None,
        };
        Ok(ReadResourceResult::new(vec![contents]).into())
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        match self.inner.by_name.get(name) {
            Some(&i) => Some(self.inner.tools[i].tool.clone()),
            None => self
                .inner
                .meta_tools
                .iter()
                .find(|t| t.name == name)
                .cloned(),
        }
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [rmcp::model::ProtocolVersion]> {
        Cow::Borrowed(rmcp::model::ProtocolVersion::KNOWN_VERSIONS)
    }
}
