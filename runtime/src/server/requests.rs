//! The `rmcp::ServerHandler` of [`Server`]: `initialize`, `tools/list` and
//! `tools/call`, resources and resource templates (and subscriptions to
//! them), prompts and completions, tasks, and the tool lookup rmcp uses to
//! check `Mcp-Param-*` headers.

use std::borrow::Cow;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams,
    CompleteRequestParams, CompleteResult, CompletionInfo, CustomRequest, CustomResult, ErrorCode,
    GetPromptRequestParams, GetPromptResponse, GetSkillRequestParams, GetSkillResult,
    GetTaskParams, GetTaskResult, Implementation, JsonObject, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListSkillsResult, ListToolsResult,
    PaginatedRequestParams, PromptsCapability, ReadResourceDirectoryRequestParams,
    ReadResourceDirectoryResult, ReadResourceRequestParams, ReadResourceResponse,
    ReadResourceResult, Reference, ResourcesCapability, ServerCapabilities, ServerConfig,
    SubscribeRequestParams, SubscriptionFilter, TASKS_EXTENSION_ID, Tool, UnsubscribeRequestParams,
    UpdateTaskParams,
};
use rmcp::service::{NotificationContext, RequestContext, RoleServer, SubscriptionContext};
use rmcp::{ErrorData, ServerHandler};
use serde_json::{Map, Value};

use std::sync::Arc;

use super::Server;
use super::access::Caller;
use super::asker::Asker;
use super::attempt::Attempt;
use super::call::CallLink;
use super::catalog::Entry;
use super::prompts::Completes;
use super::protocol::Dispatch;
use super::telemetry::{Operation, Target};
use crate::Context;
use crate::metadata::TaskSupport;
use tracing::Instrument;

// A method whose work awaits boxes that work's future. rmcp's dispatch over
// these methods (`Service::handle_request`) is an async body that a release
// build copies into every codegen unit that polls it: over HTTP rmcp polls it
// in two (sessions, stateless requests), and each copy took every method's
// future with it, inlined. Behind a box, a copy holds only the dispatch.
impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        // Any handler may log (`Context::log`): a client that sets a level
        // gets its messages.
        #[expect(
            deprecated,
            reason = "logging is deprecated by SEP-2577 and still served"
        )]
        let mut capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_logging()
            .build();
        if self.serves_resources() || self.serves_skills() {
            // Subscriptions to its own resources: `resources/subscribe` on
            // sessions, `subscriptions/listen` on 2026-07-28 (a skill's files
            // change only with a reload of its catalog).
            let mut resources = ResourcesCapability::default();
            resources.subscribe = self.serves_resources().then_some(true);
            capabilities.resources = Some(resources);
        }
        self.inner.skills.declare(&mut capabilities);
        if self.serves_prompts() {
            capabilities.prompts = Some(PromptsCapability::default());
        }
        if self.serves_completions() {
            capabilities.completions = Some(Default::default());
        }
        if self.inner.catalog.runs_tasks() {
            capabilities
                .extensions
                .get_or_insert_with(Default::default)
                .insert(TASKS_EXTENSION_ID.to_owned(), JsonObject::new());
        }
        let mut info = ServerConfig::new(capabilities);
        info.server_info = Implementation::new(self.inner.name.clone(), self.inner.version.clone());
        info.instructions = self.inner.instructions.clone();
        info
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // A name the server has not is no span's name nor a metric's series.
        let target = match self.inner.catalog.find(&request.name) {
            Some(_) => Target::Tool(&request.name),
            None => Target::None,
        };
        let operation = Operation::start("tools/call", target, &context);
        let span = operation.span().clone();
        let response = Box::pin(self.serve_call(request, context))
            .instrument(span)
            .await;
        match &response {
            Ok(CallToolResponse::Complete(result)) => operation.finish_call(result),
            other => operation.finish_with(other),
        }
        response
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let operation = Operation::start("tools/list", Target::None, &context);
        let span = operation.span().clone();
        let response = self.serve_list(request, context).instrument(span).await;
        operation.finish_with(&response);
        response
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        if !self.serves_resources() && !self.serves_skills() {
            return Err(ErrorData::new(
                ErrorCode::METHOD_NOT_FOUND,
                "resources/list",
                None,
            ));
        }
        let mut resources: Vec<_> = self
            .inner
            .resources
            .iter()
            .map(|r| r.resource.clone())
            .collect();
        resources.extend(self.skill_resources());
        let mut result = ListResourcesResult::with_all_items(resources);
        if let Some((ttl_ms, scope)) = self.list_hints(&context) {
            result = result.with_ttl_ms(ttl_ms).with_cache_scope(scope);
        }
        Ok(result)
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        if !self.serves_resources() && !self.serves_skills() {
            return Err(ErrorData::new(
                ErrorCode::METHOD_NOT_FOUND,
                "resources/templates/list",
                None,
            ));
        }
        Ok(ListResourceTemplatesResult::with_all_items(
            self.inner
                .templates
                .iter()
                .map(|t| t.template.clone())
                .collect(),
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let operation =
            Operation::start("resources/read", Target::Resource(&request.uri), &context);
        let span = operation.span().clone();
        let response = Box::pin(self.serve_read(request, context))
            .instrument(span)
            .await;
        operation.finish_with(&response);
        response
    }

    async fn list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, ErrorData> {
        let operation = Operation::start("skills/list", Target::None, &context);
        let response = self.serve_list_skills(request.as_ref(), &context);
        operation.finish_with(&response);
        response
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, ErrorData> {
        let operation = Operation::start("skills/get", Target::Resource(&request.uri), &context);
        let response = self.serve_get_skill(&request.uri, &context);
        operation.finish_with(&response);
        response
    }

    async fn read_resource_directory(
        &self,
        request: ReadResourceDirectoryRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceDirectoryResult, ErrorData> {
        let target = Target::Resource(&request.uri);
        let operation = Operation::start("resources/directory/read", target, &context);
        let response = self.inner.skills.read_directory(&request.uri);
        operation.finish_with(&response);
        response
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        if self.inner.prompts.is_empty() {
            return Err(ErrorData::new(
                ErrorCode::METHOD_NOT_FOUND,
                "prompts/list",
                None,
            ));
        }
        Ok(ListPromptsResult::with_all_items(
            self.inner
                .prompts
                .iter()
                .map(|p| p.prompt.clone())
                .collect(),
        ))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let known = self
            .inner
            .prompts
            .iter()
            .any(|p| p.prompt.name == request.name);
        let target = if known {
            Target::Prompt(&request.name)
        } else {
            Target::None
        };
        let operation = Operation::start("prompts/get", target, &context);
        let span = operation.span().clone();
        let response = Box::pin(self.serve_prompt(request, context))
            .instrument(span)
            .await;
        operation.finish_with(&response);
        response
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let wanted = match &request.r#ref {
            Reference::Prompt(p) => Completes::Prompt {
                name: p.name.clone(),
                argument: request.argument.name.clone(),
            },
            Reference::Resource(r) => Completes::Template {
                uri_template: r.uri.clone(),
                variable: request.argument.name.clone(),
            },
            _ => return Ok(CompleteResult::default()),
        };
        let found = self
            .inner
            .completions
            .iter()
            .find(|c| c.completes == wanted);
        let mut values = match found {
            Some(c) => {
                let cx = self.plain_context(&request.argument.name, context);
                (c.completer)(request.argument.value.clone(), cx).await
            }
            None => Vec::new(),
        };
        let total = values.len();
        values.truncate(CompletionInfo::MAX_VALUES);
        let mut info = CompletionInfo::new(values)
            .map_err(|e| ErrorData::internal_error(format!("completion: {e}"), None))?;
        info.total = u32::try_from(total).ok();
        info.has_more = Some(total > CompletionInfo::MAX_VALUES);
        Ok(CompleteResult::new(info))
    }

    #[expect(
        deprecated,
        reason = "logging is deprecated by SEP-2577 and still served"
    )]
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        // This server value is the session's own (see `Server::for_session`).
        self.log_level.set(request.level);
        Ok(())
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.inner.catalog.entry(name)
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        Box::pin(
            self.inner
                .tasks
                .state(&request.task_id, &Caller::of(&context)),
        )
        .await
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let session = super::generation::Generation::of(&context).is_session();
        self.subscribe_session(&request.uri, &context.peer, session)
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.unsubscribe_session(&request.uri);
        Ok(())
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        // The server declares subscriptions when it serves resources: a
        // listen is acknowledged with what of it is served (perhaps nothing).
        self.serves_resources()
            .then(|| self.accepted_filter(requested))
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        Box::pin(Server::listen(self, context)).await
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        Box::pin(self.inner.tasks.answer(
            &request.task_id,
            &Caller::of(&context),
            request.input_responses,
        ))
        .await
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        Box::pin(
            self.inner
                .tasks
                .cancel(&request.task_id, &Caller::of(&context)),
        )
        .await
        .map(drop)
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        // The only methods of our own: 2025-11-25's tasks (see `compat`).
        Box::pin(super::protocol::serve_2025_task_request(
            self, request, context,
        ))
        .await
        .map(CustomResult)
    }

    async fn on_roots_list_changed(&self, _context: NotificationContext<RoleServer>) {
        // This server value is the session's own (see `Server::for_session`).
        self.roots.changed();
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [rmcp::model::ProtocolVersion]> {
        Cow::Borrowed(rmcp::model::ProtocolVersion::KNOWN_VERSIONS)
    }
}

impl Server {
    /// `tools/list`, in its span.
    async fn serve_list(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let caller = Caller::of(&context);
        let (tools, tag) = self
            .inner
            .catalog
            .listing(self.shows_all(&context), &caller);
        let mut result = ListToolsResult::with_all_items(tools);
        let mut meta = rmcp::model::MetaObject::default();
        meta.0.insert(
            super::catalog::LIST_TAG_META.to_owned(),
            serde_json::Value::String(tag),
        );
        result.meta = Some(meta);
        if let Some((ttl_ms, scope)) = self.list_hints(&context) {
            // A list filtered for an authenticated caller varies by
            // authorization: no shared cache may hand it to another caller.
            let scope = if caller.is_authenticated() {
                rmcp::model::CacheScope::Private
            } else {
                scope
            };
            result = result.with_ttl_ms(ttl_ms).with_cache_scope(scope);
        }
        Ok(result)
    }

    /// `resources/read`, in its span.
    async fn serve_read(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        // Naming the URI in `data`, never an empty `contents`: invalid params
        // on 2026-07-28 (SEP-2164), -32002 on a 2025-11-25 session, as each
        // specification says.
        let session = super::generation::Generation::of(&context).is_session();
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
        if let Some(found) = self
            .inner
            .resources
            .iter()
            .find(|r| r.resource.uri == request.uri)
        {
            return Ok(ReadResourceResult::new(vec![found.contents.clone()]).into());
        }
        if let Some(file) = self.read_skill_file(&request.uri) {
            return Ok(file.into());
        }
        let Some((template, vars)) = self.inner.templates.iter().find_map(|t| {
            let vars = t.parsed.as_ref().ok()?.matches(&request.uri)?;
            Some((t, vars))
        }) else {
            return Err(not_found());
        };
        let cx = self.plain_context(&template.template.name, context);
        match (template.handler)(request.uri.clone(), vars, cx).await {
            Ok(contents) => Ok(ReadResourceResult::new(contents).into()),
            Err(e) => Err(ErrorData::invalid_params(
                format!(
                    "cannot read `{}`: {}",
                    toolmetadata_core::seam::shorten(&request.uri, 200),
                    e.message()
                ),
                None,
            )),
        }
    }

    /// `tools/call`, in its span.
    async fn serve_call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // A tool with `task` metadata, called by a client that can poll:
        // answered with a task handle, the handler running on.
        let asker = match self.maybe_run_as_task(&request, &context).await? {
            Dispatch::Task(response) => return Ok(response),
            Dispatch::Plain(Some(asker)) => asker,
            Dispatch::Plain(None) => {
                Asker::for_request(
                    &Attempt::of_call(&request),
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
            asker: asker.clone(),
            roots: self.roots.clone(),
            log_level: self.log_level.clone(),
            lacking: lacking.clone(),
            task: None,
        };
        let args = request.arguments.unwrap_or_default();
        let result = self.route(&request.name, args, link).await;
        // A handler that closed its stream is answered once the client is back.
        #[cfg(feature = "http")]
        super::http::polling::resumed(&context).await;
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
        match asker.input_required(&self.inner.ask)? {
            Some(input) => Ok(input.into()),
            None => Ok(result.into()),
        }
    }

    /// Runs one call: a meta-tool, or a tool by name. `None` for an unknown
    /// tool (a protocol error).
    async fn route(
        &self,
        name: &str,
        args: Map<String, Value>,
        link: CallLink,
    ) -> Option<CallToolResult> {
        let caller = Caller::of(&link.request);
        let index = match self.inner.catalog.find(name)? {
            Entry::Search => return Some(self.inner.catalog.search(&args, &caller)),
            Entry::Execute => return Some(self.execute_tool(args, link).await),
            Entry::Tool(index, served) => {
                // Over HTTP the gate has already answered 403; this refuses a
                // call that reached the handler some other way with a
                // principal.
                let missing = caller.missing(&served.scopes);
                if !missing.is_empty() {
                    return Some(super::call::error(super::access::lacking(name, &missing)));
                }
                index
            }
        };
        Some(self.run_tool(index, args, link).await)
    }

    /// `execute_tool`: a tool by name, with `parameters` (or `arguments`).
    async fn execute_tool(&self, mut args: Map<String, Value>, link: CallLink) -> CallToolResult {
        let Some(name) = args.get("name").and_then(Value::as_str).map(str::to_owned) else {
            return super::call::error("execute_tool: `name` (the tool to call) is required");
        };
        let params = match args
            .remove("parameters")
            .or_else(|| args.remove("arguments"))
        {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(m)) => m,
            Some(other) => {
                return super::call::error(format!(
                    "execute_tool: `parameters` must be an object, got {}",
                    toolmetadata_core::seam::describe(&other)
                ));
            }
        };
        let caller = Caller::of(&link.request);
        // A tool the caller lacks scopes for is absent, as from the search.
        let found = match self.inner.catalog.find(&name) {
            Some(Entry::Tool(index, served)) if caller.permits(&served.scopes) => {
                Some((index, served))
            }
            _ => None,
        };
        match found {
            // execute_tool's own call is plain: a task-only tool cannot run
            // inside it.
            Some((_, served)) if served.task == TaskSupport::Required => {
                super::call::error(format!(
                    "execute_tool: the tool `{name}` runs only as a task; call it with tools/call as a task instead"
                ))
            }
            Some((index, _)) => self.run_tool(index, params, link).await,
            None => super::call::error(format!(
                "execute_tool: there is no tool `{name}`; find tools with tool_search"
            )),
        }
    }

    pub(super) fn serves_prompts(&self) -> bool {
        !self.inner.prompts.is_empty()
    }

    pub(super) fn serves_completions(&self) -> bool {
        !self.inner.completions.is_empty()
    }

    /// Whether the server has resources of its own (static or templates),
    /// besides the files of its skills.
    pub(super) fn serves_resources(&self) -> bool {
        !self.inner.resources.is_empty() || !self.inner.templates.is_empty()
    }

    /// The context of a read or a completion: the request and the session's
    /// roots, and no way to ask the person (a prompt's asks: see
    /// `asking_context`).
    fn plain_context(&self, name: &str, context: RequestContext<RoleServer>) -> Context {
        self.asking_context(name, context, Arc::new(Asker::unsupported()))
    }

    /// A handler's context that asks the client through `asker`.
    pub(super) fn asking_context(
        &self,
        name: &str,
        context: RequestContext<RoleServer>,
        asker: Arc<Asker>,
    ) -> Context {
        let link = CallLink {
            cancel: context.ct.clone(),
            request: Arc::new(context),
            asker,
            roots: self.roots.clone(),
            log_level: self.log_level.clone(),
            lacking: Arc::default(),
            task: None,
        };
        Context::connected(name, Arc::new(link), None)
    }
}
