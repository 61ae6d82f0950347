use toolmetadata::server::{HttpOptions, Server};
use toolmetadata_tutorial::{Notes, tools};
use tracing_subscriber::filter::Targets;
use tracing_subscriber::prelude::*;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The log goes to stderr (on stdio, stdout is the protocol): `RUST_LOG`,
    // else the library's default (where it listens, errors, handler panics).
    let filter: Targets = toolmetadata::server::log_filter().parse()?;
    tracing_subscriber::registry()
        .with(tracing_subscriber::fmt::layer().with_writer(std::io::stderr))
        .with(filter)
        .init();
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
