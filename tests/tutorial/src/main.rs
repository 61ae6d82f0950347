use toolmetadata::server::{HttpOptions, Server};
use toolmetadata_tutorial::{Notes, tools};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = Server::builder().tool_set(tools::tool_set(Notes)).build()?;
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
