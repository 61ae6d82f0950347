use notes::{Notes, tools};
use toolmetadata::server::rmcp::ServerHandler;
use toolmetadata::server::rmcp::model::{Implementation, ServerCapabilities, ServerConfig};
use toolmetadata::server::{HttpOptions, Server};

/// A hand-written rmcp server: its own name and instructions, and whatever
/// else it serves by hand; the generated tools are mounted in it.
#[derive(Clone)]
struct MyServer;

impl ServerHandler for MyServer {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(ServerCapabilities::default());
        info.server_info = Implementation::new("my-server", "1.0.0");
        info.instructions = Some("Notes: search them, count their words, archive them".into());
        info
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let tools = Server::builder().tool_set(tools::tool_set(Notes)).build()?;
    let server = tools.mount(MyServer);
    // `--http ADDR` serves Streamable HTTP at `/mcp`; stdio otherwise.
    match std::env::args().skip_while(|arg| arg != "--http").nth(1) {
        None => server.serve_stdio().await?,
        Some(addr) => {
            let http = server
                .bind_http(HttpOptions::default().addr(addr.parse()?))
                .await?;
            eprintln!("listening on http://{}/mcp", http.local_addr()?);
            http.run().await?;
        }
    }
    Ok(())
}
