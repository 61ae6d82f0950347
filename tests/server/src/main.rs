//! A test server: the generated tools of `tools/` plus `greet`, a tool loaded
//! at run time from metadata text, served on stdio or Streamable HTTP.
//!
//! ```text
//! toolmetadata-test-server [--show-all] [--instructions TEXT]
//!     [--http ADDR [--token T] [--max-body N] [--allow-non-loopback]]
//! ```
//! With `--http`, it prints `listening on http://ADDR/mcp` on stderr once bound.

mod handler;

use std::process::ExitCode;

use toolmetadata::ToolMetadata;
use toolmetadata::server::{Arguments, HttpOptions, Server};

mod tools {
    toolmetadata::include_tools!();
}

/// The run-time tool: metadata as a database or an API would hand it over.
const GREET: &str = r#"
description = "Greet someone (a tool loaded at run time)"

[[parameters]]
name = "name"
type = "string"
required = true
minLength = 1

[[parameters]]
name = "times"
type = "int"
minimum = 1
maximum = 5
default = 1
"#;

async fn greet(args: Arguments, _cx: toolmetadata::Context) -> toolmetadata::ToolResult {
    let name: String = args.get("name")?;
    let times: i64 = args.get("times")?;
    Ok(
        vec![format!("hello {name}"); usize::try_from(times).unwrap_or(1)]
            .join(", ")
            .into(),
    )
}

struct Options {
    show_all: bool,
    instructions: Option<String>,
    http: Option<HttpOptions>,
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Options, String> {
    let mut options = Options {
        show_all: false,
        instructions: None,
        http: None,
    };
    let mut http = HttpOptions::default();
    let mut use_http = false;
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or_else(|| format!("{name} needs a value"));
        match arg.as_str() {
            "--show-all" => options.show_all = true,
            "--instructions" => options.instructions = Some(value("--instructions")?),
            "--http" => {
                use_http = true;
                let addr = value("--http")?;
                http = http.addr(addr.parse().map_err(|e| format!("--http {addr}: {e}"))?);
            }
            "--token" => http = http.bearer_token(value("--token")?),
            "--max-body" => {
                let n = value("--max-body")?;
                http = http.max_body_bytes(n.parse().map_err(|e| format!("--max-body {n}: {e}"))?);
            }
            "--allow-non-loopback" => http = http.allow_non_loopback(true),
            other => return Err(format!("unknown argument {other}")),
        }
    }
    options.http = use_http.then_some(http);
    Ok(options)
}

#[tokio::main]
async fn main() -> ExitCode {
    use tracing_subscriber::prelude::*;
    let filter: tracing_subscriber::filter::Targets = toolmetadata::server::log_filter()
        .parse()
        .unwrap_or_else(|e| {
            eprintln!("RUST_LOG: {e}");
            toolmetadata::server::DEFAULT_LOG_FILTER
                .parse()
                .unwrap_or_default()
        });
    tracing_subscriber::registry()
        .with(
            tracing_subscriber::fmt::layer()
                .with_writer(std::io::stderr)
                .with_ansi(false),
        )
        .with(filter)
        .init();
    let options = match parse(std::env::args().skip(1)) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let greet_tool = match ToolMetadata::from_toml_str("greet", GREET) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    let mut builder = Server::builder()
        .tool_set(tools::tool_set(handler::Handler::default()))
        .tool(greet_tool, greet)
        .show_all(options.show_all);
    if let Some(i) = options.instructions {
        builder = builder.instructions(i);
    }
    let result = match builder.build() {
        Err(e) => Err(e),
        Ok(server) => match options.http {
            None => server.serve_stdio().await,
            Some(http) => match server.bind_http(http).await {
                Err(e) => Err(e),
                Ok(bound) => {
                    let addr = bound.local_addr();
                    // Signal handlers are in place once `run` returns its future.
                    let running = bound.run();
                    match addr {
                        Ok(addr) => eprintln!("listening on http://{addr}/mcp"),
                        Err(e) => eprintln!("{e}"),
                    }
                    running.await
                }
            },
        },
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
