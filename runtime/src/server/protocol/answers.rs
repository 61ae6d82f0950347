//! What `tools/list`, `resources/read` and `tools/call` answer, each in its span: the
//! work behind the `ServerHandler` methods of `requests`, and the contexts a handler
//! gets.

use crate::metadata::TaskSupport;
use crate::server::Server;
#[cfg(feature = "ask")]
use crate::server::asker::Asker;
#[cfg(feature = "ask")]
use crate::server::attempt::Attempt;
use crate::server::call_link::CallLink;
use crate::server::catalog::Entry;
use crate::server::policy::access::Caller;
#[cfg(feature = "tasks")]
use crate::server::protocol::Dispatch;
use rmcp::ErrorData;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ErrorCode, ListToolsResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::{Map, Value};
use std::sync::Arc;

impl Server {
    /// `tools/list`, in its span.
    pub(in crate::server) async fn serve_list(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let caller = Caller::of(&context);
        let (tools, tag) =
            self.inner
                .catalog
                .listing(self.shows_all(&context), &caller, self.scope(&context));
        let mut result = ListToolsResult::with_all_items(tools);
        let mut meta = rmcp::model::MetaObject::default();
        meta.0.insert(
            crate::server::catalog::LIST_TAG_META.to_owned(),
            serde_json::Value::String(tag),
        );
        result.meta = Some(meta);
        if let Some((ttl_ms, scope)) = self.tool_list_hints(&context, &caller) {
            result = result.with_ttl_ms(ttl_ms).with_cache_scope(scope);
        }
        Ok(result)
    }

    /// `resources/read`, in its span.
    pub(in crate::server) async fn serve_read(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        // Naming the URI in `data`, never an empty `contents`: invalid params
        // on 2026-07-28 (SEP-2164), -32002 on a 2025-11-25 session, as each
        // specification says.
        let session = crate::server::generation::Generation::of(&context).is_session();
        let not_found = || {
            let uri = toolmetadata_core::seam::shorten(&request.uri, 2048);
            let message = format!(
                "Resource not found: `{}`",
                toolmetadata_core::seam::shorten(&uri, 200)
            );
            let data = Some(serde_json::json!({ "uri": uri }));
            if session {
                ErrorData::resource_not_found(message, data)
            } else {
                ErrorData::invalid_params(message, data)
            }
        };
        #[cfg(feature = "resources")]
        if let Some(found) = self
            .inner
            .resources
            .iter()
            .find(|r| r.resource.uri == request.uri)
        {
            return Ok(rmcp::model::ReadResourceResult::new(vec![found.contents.clone()]).into());
        }
        if let Some(file) = self.read_skill_file(&request.uri) {
            return Ok(file.into());
        }
        #[cfg(feature = "resources")]
        if let Some((template, vars)) = self.inner.templates.iter().find_map(|t| {
            let vars = t.parsed.as_ref().ok()?.matches(&request.uri)?;
            Some((t, vars))
        }) {
            let cx = self.plain_context(&template.template.name, context);
            return match (template.handler)(request.uri.clone(), vars, cx).await {
                Ok(contents) => Ok(rmcp::model::ReadResourceResult::new(contents).into()),
                Err(e) => Err(ErrorData::invalid_params(
                    format!(
                        "cannot read `{}`: {}",
                        toolmetadata_core::seam::shorten(&request.uri, 200),
                        e.message()
                    ),
                    None,
                )),
            };
        }
        #[cfg(not(feature = "resources"))]
        let _ = context;
        Err(not_found())
    }

    /// `tools/call`, in its span, of what the catalog found for its name
    /// (`entry`, looked up once by the caller).
    pub(in crate::server) async fn serve_call(
        &self,
        request: CallToolRequestParams,
        entry: Option<Entry<'_>>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // A tool with `task` metadata, called by a client that can poll:
        // answered with a task handle, the handler running on.
        #[cfg(feature = "tasks")]
        let asked = match self.maybe_run_as_task(&request, entry, &context).await? {
            Dispatch::Task(response) => return Ok(response),
            Dispatch::Plain(asked) => asked,
        };
        #[cfg(all(feature = "ask", not(feature = "tasks")))]
        let asked: Option<Arc<Asker>> = None;
        #[cfg(feature = "ask")]
        let asker = match asked {
            Some(asker) => asker,
            None => {
                let bound = match entry {
                    Some(Entry::Tool(_, served)) => {
                        crate::server::policy::bound::values(&served.bound, &context)
                    }
                    _ => serde_json::Map::new(),
                };
                Asker::for_request(
                    &Attempt::of_call(&request, bound),
                    &context,
                    &self.inner.ask,
                    self.inner.stores.replay.as_ref(),
                )
                .await?
            }
        };
        let lacking: Arc<std::sync::OnceLock<crate::ClientCapability>> = Arc::default();
        let context = Arc::new(context);
        let link = CallLink {
            cancel: context.ct.clone(),
            request: context.clone(),
            #[cfg(feature = "ask")]
            asker: asker.clone(),
            roots: self.roots.clone(),
            log_level: self.log_level.clone(),
            lacking: lacking.clone(),
            #[cfg(feature = "tasks")]
            task: None,
        };
        let args = request.arguments.unwrap_or_default();
        let result = self.route(&request.name, entry, args, link).await;
        // A handler that closed its stream is answered once the client is back.
        #[cfg(all(feature = "http", feature = "sessions"))]
        crate::server::http::polling::resumed(&context).await;
        // The handler failed for want of a capability the client did not
        // declare: the client is told so, as the protocol says, rather than
        // the model.
        let failed = result.as_ref().is_some_and(|r| r.is_error == Some(true));
        if let Some(capability) = lacking.get().filter(|_| failed) {
            let mut required = rmcp::model::ClientCapabilities::default();
            match capability {
                crate::ClientCapability::Sampling => required.sampling = Some(Default::default()),
                crate::ClientCapability::Elicitation => {
                    required.elicitation = Some(Default::default());
                }
                crate::ClientCapability::Roots => required.roots = Some(Default::default()),
                // A capability newer than this server: it cannot be named.
                _ => {}
            }
            return Err(ErrorData::missing_required_client_capability(required));
        }
        let Some(result) = result else {
            return Err(ErrorData::new(
                ErrorCode::INVALID_PARAMS,
                format!(
                    "unknown tool `{}`",
                    toolmetadata_core::seam::shorten(&request.name, 100)
                ),
                None,
            ));
        };
        // A question the client has not answered yet ends this attempt,
        // whatever the handler made of it.
        #[cfg(feature = "ask")]
        if let Some(input) = asker.input_required(&self.inner.ask)? {
            return Ok(input.into());
        }
        Ok(result.into())
    }

    /// Runs one call of `name`: a meta-tool, or a tool (`entry`, what the
    /// catalog found for it). `None` for an unknown tool (a protocol error).
    async fn route(
        &self,
        name: &str,
        entry: Option<Entry<'_>>,
        args: Map<String, Value>,
        link: CallLink,
    ) -> Option<CallToolResult> {
        let caller = Caller::of(&link.request);
        let index = match entry? {
            Entry::Search => {
                let scope = self.scope(&link.request);
                return Some(self.inner.catalog.search(&args, &caller, scope));
            }
            Entry::Execute => return Some(self.execute_tool(args, link).await),
            Entry::Tool(index, served) => {
                // Over HTTP the gate has already answered 403; this refuses a
                // call that reached the handler some other way with a
                // principal.
                let missing = caller.missing(&served.scopes);
                if !missing.is_empty() {
                    return Some(crate::server::call::error(
                        crate::server::policy::access::lacking(name, &missing),
                    ));
                }
                index
            }
        };
        Some(self.run_tool(index, args, link).await)
    }

    /// `execute_tool`: a tool by name, with `parameters` (or `arguments`).
    async fn execute_tool(&self, mut args: Map<String, Value>, link: CallLink) -> CallToolResult {
        let Some(name) = args.get("name").and_then(Value::as_str).map(str::to_owned) else {
            return crate::server::call::error(
                "execute_tool: `name` (the tool to call) is required",
            );
        };
        let params = match args
            .remove("parameters")
            .or_else(|| args.remove("arguments"))
        {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(m)) => m,
            Some(other) => {
                return crate::server::call::error(format!(
                    "execute_tool: `parameters` must be an object, got {}",
                    toolmetadata_core::seam::describe(&other)
                ));
            }
        };
        let caller = Caller::of(&link.request);
        // A tool the caller lacks scopes for is absent, as from the search.
        let found = match self.inner.catalog.find(&name, self.scope(&link.request)) {
            Some(Entry::Tool(index, served)) if caller.permits(&served.scopes) => {
                Some((index, served))
            }
            _ => None,
        };
        match found {
            // execute_tool's own call is plain: a task-only tool cannot run
            // inside it.
            Some((_, served)) if served.task == TaskSupport::Required => {
                crate::server::call::error(format!(
                    "execute_tool: the tool `{name}` runs only as a task; call it with tools/call as a task instead"
                ))
            }
            Some((index, _)) => self.run_tool(index, params, link).await,
            None => crate::server::call::error(format!(
                "execute_tool: there is no tool `{name}`; find tools with tool_search"
            )),
        }
    }

    /// Whether the server has prompts of its own (none without the
    /// feature `prompts`).
    pub(in crate::server) fn serves_prompts(&self) -> bool {
        #[cfg(feature = "prompts")]
        return !self.inner.prompts.is_empty();
        #[cfg(not(feature = "prompts"))]
        false
    }

    /// Whether the server completes something of its own.
    pub(in crate::server) fn serves_completions(&self) -> bool {
        #[cfg(any(feature = "prompts", feature = "resources"))]
        return !self.inner.completions.is_empty();
        #[cfg(not(any(feature = "prompts", feature = "resources")))]
        false
    }

    /// Whether the server has resources of its own (static or templates),
    /// besides the files of its skills (none without the feature
    /// `resources`).
    pub(in crate::server) fn serves_resources(&self) -> bool {
        #[cfg(feature = "resources")]
        return !self.inner.resources.is_empty() || !self.inner.templates.is_empty();
        #[cfg(not(feature = "resources"))]
        false
    }

    /// The context of a read or a completion: the request and the session's
    /// roots, and no way to ask the person (a prompt's asks: see
    /// `asking_context`).
    #[cfg(any(feature = "prompts", feature = "resources"))]
    pub(in crate::server) fn plain_context(
        &self,
        name: &str,
        context: RequestContext<RoleServer>,
    ) -> crate::Context {
        crate::Context::connected(name, Arc::new(self.plain_link(context)), None)
    }

    /// A handler's context that asks the client through `asker`.
    #[cfg(all(feature = "ask", feature = "prompts"))]
    pub(in crate::server) fn asking_context(
        &self,
        name: &str,
        context: RequestContext<RoleServer>,
        asker: Arc<Asker>,
    ) -> crate::Context {
        let link = CallLink {
            asker,
            ..self.plain_link(context)
        };
        crate::Context::connected(name, Arc::new(link), None)
    }

    /// The server's side of a request's handler that asks nothing.
    #[cfg(any(feature = "prompts", feature = "resources"))]
    fn plain_link(&self, context: RequestContext<RoleServer>) -> CallLink {
        CallLink {
            cancel: context.ct.clone(),
            request: Arc::new(context),
            #[cfg(feature = "ask")]
            asker: Arc::new(Asker::unsupported()),
            roots: self.roots.clone(),
            log_level: self.log_level.clone(),
            lacking: Arc::default(),
            #[cfg(feature = "tasks")]
            task: None,
        }
    }
}
