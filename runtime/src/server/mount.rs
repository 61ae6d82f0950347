//! [`Mounted`]: a server of your own (an rmcp `ServerHandler`) with the
//! tools of a [`Server`] mounted in it, served exactly as the `Server` alone
//! serves them.

use std::borrow::Cow;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, CancelledNotificationParam,
    CompleteRequestParams, CompleteResult, CustomNotification, CustomRequest, CustomResult,
    DiscoverResult, GetPromptRequestParams, GetPromptResponse, GetSkillRequestParams,
    GetSkillResult, GetTaskParams, GetTaskResult, InitializeRequestParams, InitializeResult,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListSkillsResult,
    ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, ProtocolVersion,
    ReadResourceDirectoryRequestParams, ReadResourceDirectoryResult, ReadResourceRequestParams,
    ReadResourceResponse, ServerCapabilities, ServerConfig, SubscribeRequestParams,
    SubscriptionFilter, Tool, UnsubscribeRequestParams, UpdateTaskParams,
};
use rmcp::service::{NotificationContext, RequestContext, RoleServer, SubscriptionContext};
use rmcp::{ErrorData, ServerHandler};

use super::{Server, ServerError, Serves};
use toolmetadata_core::BoxFuture;

/// Your own rmcp `ServerHandler` with the tools of a [`Server`] mounted in
/// it: made by [`Server::mount`], served with [`Mounted::serve_stdio`] or
/// [`Mounted::serve_http`].
///
/// The tools' requests (`tools/list`, `tools/call`, and when some tool runs
/// as a task the task requests of both protocol generations) go to the
/// `Server`, with everything it serves
/// them with: argument decoding and errors, `[confirm]`, scopes, tasks, the
/// entries as rendered (`execution` included), cache hints. So do prompts,
/// skills and completions when the `Server` was built with some (its skills
/// then replace any of the handler's), resources when it has some of its own
/// (a skill's files alone are served beside the handler's resources), and the
/// subscriptions to the `Server`'s resources (a `subscriptions/listen`
/// stream reaches your handler too, for the rest of what it asks). Every
/// other request goes to your handler: `initialize` (your name, version and
/// instructions, with the tools' capabilities added), `ping`, logging,
/// subscriptions to your resources, and your own prompts and resources. Each
/// HTTP session gets a clone of your handler.
///
/// ```no_run
/// # use toolmetadata::server::rmcp::{ServerHandler, model::ServerConfig};
/// #[derive(Clone)]
/// struct MyServer;
///
/// impl ServerHandler for MyServer {
///     fn get_info(&self) -> ServerConfig {
///         ServerConfig::default()
///     }
/// }
///
/// # async fn run(tools: toolmetadata::server::Server) -> Result<(), toolmetadata::server::ServerError> {
/// tools.mount(MyServer).serve_stdio().await
/// # }
/// ```
///
/// `Mounted` is itself a `ServerHandler`, so it can also be served with
/// rmcp's own `serve`: then the requests rmcp's types cannot carry (the
/// 2025-11-25 task flow, an entry's `execution`) are not served; the serve
/// methods here serve them.
#[cfg_attr(not(feature = "http"), allow(rustdoc::broken_intra_doc_links))]
#[derive(Clone)]
pub struct Mounted<H> {
    tools: Server,
    handler: H,
}

impl<H> std::fmt::Debug for Mounted<H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mounted")
            .field("tools", &self.tools)
            .finish_non_exhaustive()
    }
}

impl Server {
    /// Mounts these tools in `handler`, a server of your own: see
    /// [`Mounted`].
    pub fn mount<H: ServerHandler + Clone>(self, handler: H) -> Mounted<H> {
        Mounted {
            tools: self,
            handler,
        }
    }
}

impl<H: ServerHandler + Clone> Mounted<H> {
    /// Serves on stdin/stdout, as [`Server::serve_stdio`] does.
    pub fn serve_stdio(self) -> BoxFuture<'static, Result<(), ServerError>> {
        Box::pin(super::stdio::serve_stdio(self))
    }

    /// Serves Streamable HTTP at `/mcp`, as [`Server::serve_http`] does.
    /// Feature `http` (on by default).
    #[cfg(feature = "http")]
    pub fn serve_http(
        self,
        options: super::HttpOptions,
    ) -> BoxFuture<'static, Result<(), ServerError>> {
        Box::pin(super::http::serve(self, options))
    }

    /// Binds the HTTP server, as [`Server::bind_http`] does. Feature `http`.
    #[cfg(feature = "http")]
    pub fn bind_http(
        self,
        options: super::HttpOptions,
    ) -> BoxFuture<'static, Result<super::HttpServer, ServerError>> {
        Box::pin(super::http::bind(self, options))
    }

    /// What the handler says of itself, with what the tools serve added:
    /// their capabilities where it has none, their instructions where it
    /// gives none.
    fn add_tools(&self, capabilities: &mut ServerCapabilities, instructions: &mut Option<String>) {
        let tools = self.tools.get_info();
        add_capabilities(capabilities, tools.capabilities);
        if instructions.is_none() {
            *instructions = tools.instructions;
        }
    }

    /// Whether the task requests are the tools' (some tool runs as a task)
    /// rather than the handler's.
    #[cfg(feature = "tasks")]
    fn tools_run_tasks(&self) -> bool {
        self.tools.inner.catalog.runs_tasks()
    }
}

impl<H: ServerHandler + Clone> Serves for Mounted<H> {
    fn tools(&self) -> &Server {
        &self.tools
    }

    #[cfg(feature = "http")]
    fn for_session(&self) -> Self {
        Mounted {
            tools: self.tools.for_session(),
            handler: self.handler.clone(),
        }
    }
}

/// What the handler accepts of a listen, with what the tools' server
/// accepts added (its resources, its tools' list).
#[cfg(feature = "subscriptions")]
fn with_tools_server(
    handler: Option<SubscriptionFilter>,
    tools: SubscriptionFilter,
) -> SubscriptionFilter {
    let mut accepted = handler.unwrap_or_default();
    if tools.tools_list_changed == Some(true) {
        accepted.tools_list_changed = Some(true);
    }
    let mut uris = accepted.resource_subscriptions.take().unwrap_or_default();
    for uri in tools.resource_subscriptions.into_iter().flatten() {
        if !uris.contains(&uri) {
            uris.push(uri);
        }
    }
    accepted.resource_subscriptions = (!uris.is_empty()).then_some(uris);
    accepted
}

/// `into` with what `tools` serves added: the tools' capabilities where
/// `into` has none, and the tools' extensions (tasks) beside its own.
fn add_capabilities(into: &mut ServerCapabilities, tools: ServerCapabilities) {
    let list_changed = tools.tools.as_ref().and_then(|t| t.list_changed);
    into.tools = into.tools.take().or(tools.tools);
    // The tools' list changes whatever the handler says.
    if let (Some(into), Some(true)) = (into.tools.as_mut(), list_changed) {
        into.list_changed = Some(true);
    }
    into.prompts = into.prompts.take().or(tools.prompts);
    let subscribe = tools.resources.as_ref().and_then(|r| r.subscribe);
    into.resources = into.resources.take().or(tools.resources);
    // The tools' resources can be subscribed to whatever the handler says.
    if let (Some(resources), Some(true)) = (into.resources.as_mut(), subscribe) {
        resources.subscribe = Some(true);
    }
    into.completions = into.completions.take().or(tools.completions);
    into.logging = into.logging.take().or(tools.logging);
    if let Some(extensions) = tools.extensions {
        let mine = into.extensions.get_or_insert_with(Default::default);
        for (id, settings) in extensions {
            // The tools' skills are the ones served (with their settings),
            // whatever the handler declares of its own.
            if id == rmcp::model::SKILLS_EXTENSION_ID {
                mine.insert(id, settings);
            } else {
                mine.entry(id).or_insert(settings);
            }
        }
    }
}

impl<H: ServerHandler + Clone> ServerHandler for Mounted<H> {
    fn get_info(&self) -> ServerConfig {
        let mut info = self.handler.get_info();
        self.add_tools(&mut info.capabilities, &mut info.instructions);
        info
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        super::generation::supported_versions(self.handler.supported_protocol_versions())
    }

    // The handler's own requests, with the tools' capabilities added to what
    // it says of itself.

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
        let mut result = self.handler.initialize(request, context).await?;
        self.add_tools(&mut result.capabilities, &mut result.instructions);
        Ok(result)
    }

    fn negotiate_initialize(
        &self,
        request: &InitializeRequestParams,
    ) -> Result<InitializeResult, ErrorData> {
        if !cfg!(feature = "sessions") {
            return Err(super::generation::initialize_refused(
                &request.protocol_version,
                &self.supported_protocol_versions(),
            ));
        }
        let mut result = self.handler.negotiate_initialize(request)?;
        self.add_tools(&mut result.capabilities, &mut result.instructions);
        Ok(result)
    }

    async fn discover(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<DiscoverResult, ErrorData> {
        let mut result = self.handler.discover(context).await?;
        self.add_tools(&mut result.capabilities, &mut result.instructions);
        // The handler's own list may name versions with `initialize`, which
        // a build without sessions refuses.
        if !cfg!(feature = "sessions") {
            result.supported_versions.retain(|v| !v.has_initialize());
        }
        Ok(result)
    }

    async fn ping(&self, context: RequestContext<RoleServer>) -> Result<(), ErrorData> {
        self.handler.ping(context).await
    }

    // Deprecated by rmcp for 2026-07-28, still dispatched for sessions.
    #[allow(deprecated)]
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        // The tools log at the level a session's client set
        // (`Context::log`), whether or not the handler logs too.
        #[cfg(feature = "sessions")]
        self.tools.log_level.set(request.level);
        match self.handler.set_level(request, context).await {
            Err(e)
                if cfg!(feature = "sessions")
                    && e.code == rmcp::model::ErrorCode::METHOD_NOT_FOUND =>
            {
                Ok(())
            }
            other => other,
        }
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        // What the handler takes (its list changes, its resources), and
        // what the tools' server serves (its resources, its tools' list).
        let handler = self.handler.accepted_subscription_filter(requested);
        #[cfg(feature = "subscriptions")]
        if self.tools.listens() {
            return Some(with_tools_server(
                handler,
                self.tools.accepted_filter(requested),
            ));
        }
        handler
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        // The tools' server watches its resources and its tools' list beside
        // the handler's own listen, for as long as that runs.
        #[cfg(feature = "subscriptions")]
        let _watching = if self.tools.listens() {
            Some(self.tools.watch(&context)?)
        } else {
            None
        };
        self.handler.listen(context).await
    }

    // Deprecated by rmcp for 2026-07-28, still dispatched for sessions.
    #[allow(deprecated)]
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        #[cfg(all(feature = "resources", feature = "sessions"))]
        if self.tools.serves_uri(&request.uri) {
            return self.tools.subscribe(request, context).await;
        }
        self.handler.subscribe(request, context).await
    }

    // Deprecated by rmcp for 2026-07-28, still dispatched for sessions.
    #[allow(deprecated)]
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        #[cfg(all(feature = "resources", feature = "sessions"))]
        if self.tools.serves_uri(&request.uri) {
            return self.tools.unsubscribe(request, context).await;
        }
        self.handler.unsubscribe(request, context).await
    }

    async fn list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, ErrorData> {
        if self.tools.serves_skills() {
            return self.tools.list_skills(request, context).await;
        }
        self.handler.list_skills(request, context).await
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, ErrorData> {
        if self.tools.serves_skills() {
            return self.tools.get_skill(request, context).await;
        }
        self.handler.get_skill(request, context).await
    }

    async fn read_resource_directory(
        &self,
        request: ReadResourceDirectoryRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceDirectoryResult, ErrorData> {
        if self.tools.serves_skills() {
            return self.tools.read_resource_directory(request, context).await;
        }
        self.handler.read_resource_directory(request, context).await
    }

    // The tools' requests.

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        self.tools.list_tools(request, context).await
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.tools.call_tool(request, context).await
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.get_tool(name)
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        #[cfg(feature = "tasks")]
        if self.tools_run_tasks() {
            return self.tools.get_task(request, context).await;
        }
        self.handler.get_task(request, context).await
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        #[cfg(feature = "tasks")]
        if self.tools_run_tasks() {
            return self.tools.update_task(request, context).await;
        }
        self.handler.update_task(request, context).await
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        #[cfg(feature = "tasks")]
        if self.tools_run_tasks() {
            return self.tools.cancel_task(request, context).await;
        }
        self.handler.cancel_task(request, context).await
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        #[cfg(all(feature = "tasks", feature = "sessions"))]
        if self.tools_run_tasks() && super::compat::is_2025_task_request(&request.method) {
            return self.tools.on_custom_request(request, context).await;
        }
        // The groups extension's methods are the tools' when they have
        // groups.
        let groups = [super::protocol::groups::LIST, super::protocol::groups::GET];
        if !self.tools.inner.catalog.groups().is_empty()
            && groups.contains(&request.method.as_str())
        {
            return self.tools.on_custom_request(request, context).await;
        }
        self.handler.on_custom_request(request, context).await
    }

    // Prompts, resources and completions: the tools' server's when it was
    // built with some, the handler's otherwise.

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        if self.tools.serves_prompts() {
            return self.tools.list_prompts(request, context).await;
        }
        self.handler.list_prompts(request, context).await
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        if self.tools.serves_prompts() {
            return self.tools.get_prompt(request, context).await;
        }
        self.handler.get_prompt(request, context).await
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        if self.tools.serves_completions() {
            return self.tools.complete(request, context).await;
        }
        self.handler.complete(request, context).await
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        if self.tools.serves_resources() {
            return self.tools.list_resources(request, context).await;
        }
        if !self.tools.serves_skills() {
            return self.handler.list_resources(request, context).await;
        }
        // The handler's resources, and the skills' after them on its last
        // page (or alone when the handler has none).
        let mut listed = match self.handler.list_resources(request, context).await {
            Ok(listed) => listed,
            Err(e) if e.code == rmcp::model::ErrorCode::METHOD_NOT_FOUND => {
                ListResourcesResult::default()
            }
            Err(e) => return Err(e),
        };
        if listed.next_cursor.is_none() {
            listed.resources.extend(self.tools.skill_resources());
        }
        Ok(listed)
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        if self.tools.serves_resources() {
            return self.tools.list_resource_templates(request, context).await;
        }
        self.handler.list_resource_templates(request, context).await
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if self.tools.serves_resources() {
            return self.tools.read_resource(request, context).await;
        }
        if let Some(file) = self.tools.read_skill_file(&request.uri) {
            return Ok(file.into());
        }
        self.handler.read_resource(request, context).await
    }

    // Notifications: the handler's, and the roots' change for the tools too.

    async fn on_cancelled(
        &self,
        notification: CancelledNotificationParam,
        context: NotificationContext<RoleServer>,
    ) {
        self.handler.on_cancelled(notification, context).await;
    }

    async fn on_progress(
        &self,
        notification: ProgressNotificationParam,
        context: NotificationContext<RoleServer>,
    ) {
        self.handler.on_progress(notification, context).await;
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        #[cfg(all(feature = "subscriptions", feature = "sessions"))]
        self.tools.watch_tool_list(&context.peer);
        self.handler.on_initialized(context).await;
    }

    async fn on_roots_list_changed(&self, context: NotificationContext<RoleServer>) {
        // The tools' handlers read the session's roots too.
        self.tools.on_roots_list_changed(context.clone()).await;
        self.handler.on_roots_list_changed(context).await;
    }

    async fn on_custom_notification(
        &self,
        notification: CustomNotification,
        context: NotificationContext<RoleServer>,
    ) {
        self.handler
            .on_custom_notification(notification, context)
            .await;
    }
}
