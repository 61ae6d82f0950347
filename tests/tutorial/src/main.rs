use std::io::IsTerminal;

use notes::{Notes, tools};
use toolmetadata::server::{HttpOptions, Server};
use tracing_subscriber::filter::Targets;
use tracing_subscriber::prelude::*;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The log goes to stderr (on stdio, stdout is the protocol), in colour
    // only on a terminal: `RUST_LOG`, else the library's default (where it
    // listens, a line per request, errors, handler panics).
    let filter: Targets = toolmetadata::server::log_filter().parse()?;
    let log = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal());
    tracing_subscriber::registry().with(log).with(filter).init();
    let server = Server::builder().tool_set(tools::tool_set(Notes)).build()?;
    // `--http ADDR` (or `--http=ADDR`) serves Streamable HTTP at `/mcp`;
    // stdio otherwise.
    match http_address(std::env::args())? {
        None => server.serve_stdio().await?,
        Some(addr) => {
            let http = server.bind_http(HttpOptions::default().addr(addr)).await?;
            eprintln!("listening on http://{}/mcp", http.local_addr()?);
            http.run().await?;
        }
    }
    Ok(())
}

/// The address of `--http ADDR` or `--http=ADDR`, if given.
fn http_address(
    mut args: impl Iterator<Item = String>,
) -> Result<Option<std::net::SocketAddr>, String> {
    while let Some(arg) = args.next() {
        let value = match arg.strip_prefix("--http") {
            Some("") => args.next(),
            Some(rest) if rest.starts_with('=') => Some(rest[1..].to_owned()),
            _ => continue,
        };
        let value = value.ok_or("--http needs an address, such as 127.0.0.1:8080")?;
        return value.parse().map(Some).map_err(|e| {
            format!("--http {value}: {e}; expected an address such as 127.0.0.1:8080")
        });
    }
    Ok(None)
}
