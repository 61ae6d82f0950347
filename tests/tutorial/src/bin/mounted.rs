use toolmetadata::server::Server;
use toolmetadata::server::rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use toolmetadata::server::rmcp::service::{RequestContext, RoleServer};
use toolmetadata::server::rmcp::{ErrorData, ServerHandler, ServiceExt};
use toolmetadata::{Context, ToolResult};

mod tools {
    toolmetadata::include_tools!();
}

struct Notes;

impl tools::Tools for Notes {
    async fn search_notes(&self, args: tools::SearchNotesArgs, _cx: Context) -> ToolResult {
        Ok(format!("no note mentions {}", args.query).into())
    }
}

/// A hand-written rmcp server that serves its own things and mounts the
/// generated tools: the calls go to `tools`, with its argument decoding and
/// errors, and `get_tool` lets rmcp check `Mcp-Param-*` headers.
struct MyServer {
    tools: Server,
}

impl ServerHandler for MyServer {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build());
        info.server_info = Implementation::new("my-server", "1.0.0");
        info
    }

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
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let tools = Server::builder().tool_set(tools::tool_set(Notes)).build()?;
    let running = MyServer { tools }
        .serve(toolmetadata::server::rmcp::transport::stdio())
        .await?;
    running.waiting().await?;
    Ok(())
}
