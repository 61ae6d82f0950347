//! The `rmcp::ServerHandler` of [`Server`]: `initialize`, `tools/list` and
//! `tools/call`, resources, and the tool lookup rmcp uses to check
//! `Mcp-Param-*` headers.

use std::borrow::Cow;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, ErrorCode, GetTaskParams,
    GetTaskResult, Implementation, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, ResourceContents,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler};

use super::Server;
use super::call::Link;

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
        let mut capabilities = capabilities;
        self.declare_tasks(&mut capabilities);
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
        let mut result =
            ListToolsResult::with_all_items(self.listed_tools(self.shows_all(&context)));
        if let Some((ttl_ms, scope)) = self.list_hints(&context) {
            result = result.with_ttl_ms(ttl_ms).with_cache_scope(scope);
        }
        Ok(result)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // A tool with `task` metadata, called by a client that can poll:
        // answered with a task handle, the handler running on.
        if let Some(response) = self.maybe_run_as_task(&request, &context).await? {
            return Ok(response);
        }
        let link = Link {
            cancel: context.ct.clone(),
            progress_token: context.meta.get_progress_token(),
            peer: context.peer.clone(),
            task: None,
        };
        let args = request.arguments.unwrap_or_default();
        match self.route(&request.name, args, link).await {
            Some(result) => Ok(result.into()),
            None => Err(ErrorData::new(
                ErrorCode::INVALID_PARAMS,
                format!(
                    "unknown tool `{}`",
                    crate::text::shorten(&request.name, 100)
                ),
                None,
            )),
        }
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        if self.inner.resources.is_empty() {
            return Err(ErrorData::new(
                ErrorCode::METHOD_NOT_FOUND,
                "resources/list",
                None,
            ));
        }
        let mut result = ListResourcesResult::with_all_items(
            self.inner
                .resources
                .iter()
                .map(|r| r.resource.clone())
                .collect(),
        );
        if let Some((ttl_ms, scope)) = self.list_hints(&context) {
            result = result.with_ttl_ms(ttl_ms).with_cache_scope(scope);
        }
        Ok(result)
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
                format!("no resource `{}`", crate::text::shorten(&request.uri, 200)),
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

    async fn get_task(
        &self,
        request: GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        self.task_state(&request.task_id).await
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.cancel_task_by_id(&request.task_id).await
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [rmcp::model::ProtocolVersion]> {
        Cow::Borrowed(rmcp::model::ProtocolVersion::KNOWN_VERSIONS)
    }
}
