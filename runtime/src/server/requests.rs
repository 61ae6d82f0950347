//! The `rmcp::ServerHandler` of [`Server`]: `initialize`, `tools/list` and
//! `tools/call`, resources and resource templates (and subscriptions to
//! them), prompts and completions, tasks, and the tool lookup rmcp uses to
//! check `Mcp-Param-*` headers.

use std::borrow::Cow;

#[cfg(feature = "subscriptions")]
use rmcp::model::SubscriptionFilter;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CustomRequest, CustomResult, DiscoverResult,
    ErrorCode, GetSkillRequestParams, GetSkillResult, Implementation, InitializeRequestParams,
    InitializeResult, JsonObject, ListResourceTemplatesResult, ListResourcesResult,
    ListSkillsResult, ListToolsResult, PaginatedRequestParams, PromptsCapability,
    ReadResourceDirectoryRequestParams, ReadResourceDirectoryResult, ReadResourceRequestParams,
    ReadResourceResponse, ResourcesCapability, ServerCapabilities, ServerConfig,
    TASKS_EXTENSION_ID, Tool,
};
#[cfg(feature = "tasks")]
use rmcp::model::{CancelTaskParams, GetTaskParams, GetTaskResult, UpdateTaskParams};
#[cfg(any(feature = "prompts", feature = "resources"))]
use rmcp::model::{CompleteRequestParams, CompleteResult, CompletionInfo, Reference};
#[cfg(feature = "prompts")]
use rmcp::model::{GetPromptRequestParams, GetPromptResponse, ListPromptsResult};
#[cfg(all(feature = "resources", feature = "sessions"))]
use rmcp::model::{SubscribeRequestParams, UnsubscribeRequestParams};
#[cfg(feature = "subscriptions")]
use rmcp::service::SubscriptionContext;
use rmcp::service::{NotificationContext, RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler};

use super::Server;
#[cfg(any(feature = "prompts", feature = "resources"))]
use super::completions::Completes;
#[cfg(feature = "tasks")]
use super::policy::access::Caller;
use super::telemetry::{Operation, Target};
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
        if self.inner.catalog.changing()
            && let Some(tools) = capabilities.tools.as_mut()
        {
            tools.list_changed = Some(true);
        }
        if self.serves_resources() || self.serves_skills() {
            // Subscriptions to its own resources: `resources/subscribe` on
            // sessions, `subscriptions/listen` on 2026-07-28 (a skill's files
            // change only with a reload of its catalog).
            let mut resources = ResourcesCapability::default();
            resources.subscribe = self.serves_resources().then_some(true);
            capabilities.resources = Some(resources);
        }
        self.inner.skills.declare(&mut capabilities);
        self.declare_groups(&mut capabilities);
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

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        if !cfg!(feature = "sessions") {
            return Err(super::generation::initialize_refused(
                &request.protocol_version,
                &self.supported_protocol_versions(),
            ));
        }
        context.peer.set_peer_info(request.clone());
        let mut result = self.negotiate_initialize(&request)?;
        result.instructions = self.instructions_for(self.scope(&context));
        Ok(result)
    }

    async fn discover(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<DiscoverResult, ErrorData> {
        let mut result = DiscoverResult::from_server_info(
            self.supported_protocol_versions().into_owned(),
            self.get_info(),
        );
        result.instructions = self.instructions_for(self.scope(&context));
        Ok(result)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // A name the server has not is no span's name nor a metric's series.
        // The call is resolved here, once: the rest of its path carries
        // what the catalog found.
        let entry = self.inner.catalog.find(&request.name, self.scope(&context));
        let target = match entry {
            Some(_) => Target::Tool(&request.name),
            None => Target::None,
        };
        let mut operation = Operation::start("tools/call", target, &context);
        if entry.is_none() {
            operation.unknown(&request.name);
        }
        let span = operation.span().clone();
        let response = Box::pin(self.serve_call(request, entry, context))
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
        #[cfg(feature = "resources")]
        let mut resources: Vec<_> = self
            .inner
            .resources
            .iter()
            .map(|r| r.resource.clone())
            .collect();
        #[cfg(not(feature = "resources"))]
        let mut resources = Vec::new();
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
        // Skills have none: without `resources`, the list is empty.
        #[cfg(feature = "resources")]
        let templates = self
            .inner
            .templates
            .iter()
            .map(|t| t.template.clone())
            .collect();
        #[cfg(not(feature = "resources"))]
        let templates = Vec::new();
        Ok(ListResourceTemplatesResult::with_all_items(templates))
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

    #[cfg(feature = "prompts")]
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

    #[cfg(feature = "prompts")]
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
        let mut operation = Operation::start("prompts/get", target, &context);
        if !known {
            operation.unknown(&request.name);
        }
        let span = operation.span().clone();
        let response = Box::pin(self.serve_prompt(request, context))
            .instrument(span)
            .await;
        operation.finish_with(&response);
        response
    }

    #[cfg(any(feature = "prompts", feature = "resources"))]
    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let wanted = match &request.r#ref {
            #[cfg(feature = "prompts")]
            Reference::Prompt(p) => Completes::Prompt {
                name: p.name.clone(),
                argument: request.argument.name.clone(),
            },
            #[cfg(feature = "resources")]
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

    // A session's level; 2026-07-28 requests say theirs in `_meta`.
    #[cfg(feature = "sessions")]
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

    #[cfg(feature = "tasks")]
    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        let operation = Operation::start("tasks/get", Target::None, &context);
        let outcome = Box::pin(
            self.inner
                .tasks
                .state(&request.task_id, &Caller::of(&context)),
        )
        .instrument(operation.span().clone())
        .await;
        operation.finish_with(&outcome);
        outcome
    }

    #[cfg(all(feature = "resources", feature = "sessions"))]
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let session = super::generation::Generation::of(&context).is_session();
        self.subscribe_session(&request.uri, &context.peer, session)
    }

    #[cfg(all(feature = "resources", feature = "sessions"))]
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.unsubscribe_session(&request.uri);
        Ok(())
    }

    #[cfg(feature = "subscriptions")]
    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        // A server that serves resources, or whose tools change, takes a
        // listen, acknowledged with what of it is served (perhaps nothing).
        self.listens().then(|| self.accepted_filter(requested))
    }

    #[cfg(feature = "subscriptions")]
    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        Box::pin(Server::listen(self, context)).await
    }

    #[cfg(feature = "tasks")]
    async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let operation = Operation::start("tasks/update", Target::None, &context);
        let outcome = Box::pin(self.inner.tasks.answer(
            &request.task_id,
            &Caller::of(&context),
            request.input_responses,
        ))
        .instrument(operation.span().clone())
        .await;
        operation.finish_with(&outcome);
        outcome
    }

    #[cfg(feature = "tasks")]
    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let operation = Operation::start("tasks/cancel", Target::None, &context);
        let outcome = Box::pin(
            self.inner
                .tasks
                .cancel(&request.task_id, &Caller::of(&context)),
        )
        .instrument(operation.span().clone())
        .await
        .map(drop);
        operation.finish_with(&outcome);
        outcome
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        // The methods of our own: the groups extension's, and 2025-11-25's
        // tasks (see `compat`), each with its span and access line under
        // the name it was sent as.
        let groups = match request.method.as_str() {
            super::protocol::groups::LIST => Some(super::protocol::groups::LIST),
            super::protocol::groups::GET => Some(super::protocol::groups::GET),
            _ => None,
        };
        if let Some(method) = groups {
            let operation = Operation::start(method, Target::None, &context);
            let _entered = operation.span().clone().entered();
            let outcome = self
                .serve_groups(&request, &context)
                .unwrap_or_else(|| Err(ErrorData::new(ErrorCode::METHOD_NOT_FOUND, method, None)));
            operation.finish_with(&outcome);
            return outcome.map(CustomResult);
        }
        #[cfg(all(feature = "tasks", feature = "sessions"))]
        return self.serve_custom_task(request, context).await;
        #[cfg(not(all(feature = "tasks", feature = "sessions")))]
        {
            let _ = context;
            Err(ErrorData::new(
                ErrorCode::METHOD_NOT_FOUND,
                request.method,
                None,
            ))
        }
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        // A 2025-11-25 session hears of the tools' list's changes. (Kept
        // without the features too: rmcp's own would log each session. A
        // server without sessions has none: a stray notification is no
        // subscription.)
        #[cfg(all(feature = "subscriptions", feature = "sessions"))]
        self.watch_tool_list(&context.peer);
        #[cfg(not(all(feature = "subscriptions", feature = "sessions")))]
        let _ = context;
    }

    #[cfg(feature = "sessions")]
    async fn on_roots_list_changed(&self, _context: NotificationContext<RoleServer>) {
        // This server value is the session's own (see `Server::for_session`).
        self.roots.changed();
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [rmcp::model::ProtocolVersion]> {
        super::generation::supported_versions(Cow::Borrowed(
            rmcp::model::ProtocolVersion::KNOWN_VERSIONS,
        ))
    }
}

impl Server {
    /// A 2025-11-25 task request (see `compat`), in its span and access
    /// line under the name it was sent as.
    #[cfg(all(feature = "tasks", feature = "sessions"))]
    async fn serve_custom_task(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        let (method, tool) = super::compat::tasks_2025::sent_as(&request);
        let scope = self.scope(&context);
        let known = tool.filter(|name| self.inner.catalog.find(name, scope).is_some());
        let mut operation =
            Operation::start(method, known.map_or(Target::None, Target::Tool), &context);
        if let (Some(name), None) = (tool, known) {
            operation.unknown(name);
        }
        let span = operation.span().clone();
        let outcome = Box::pin(super::protocol::serve_2025_task_request(
            self, request, context,
        ))
        .instrument(span)
        .await;
        operation.finish_with(&outcome);
        outcome.map(CustomResult)
    }
}
