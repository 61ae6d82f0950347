//! `example-server`: an MCP server for a workspace. Its tools read, search and
//! change files under the directories it is given, and run the programs it is
//! allowed to; every tool is described by a metadata file in `tools/`, and
//! rustc checks the handlers against them.

mod catalog;
mod command;
mod files;
mod handler;
mod roots;
mod search;

use std::io::IsTerminal;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use toolmetadata::server::{HttpOptions, Server};

mod tools {
    toolmetadata::include_tools!();
}

/// An MCP server for a workspace: read, search and change files under the
/// given roots, and run allowed commands.
#[derive(Parser)]
#[command(name = "example-server", version, about)]
struct Cli {
    /// A directory the tools may use (repeatable; default: the current directory).
    #[arg(long = "root", value_name = "DIR")]
    roots: Vec<PathBuf>,
    /// Offer only the tools that change nothing.
    #[arg(long)]
    read_only: bool,
    /// A program run_command may start (repeatable; none by default).
    #[arg(long = "allow-command", value_name = "PROGRAM")]
    allowed_commands: Vec<String>,
    /// Serve Streamable HTTP on this address (such as 127.0.0.1:8080) instead of stdio.
    #[arg(long, value_name = "ADDR")]
    http: Option<SocketAddr>,
    /// Accept this browser Origin on HTTP besides loopback ones (repeatable).
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    allowed_origins: Vec<String>,
    /// Accept this Host on HTTP besides loopback names (repeatable).
    #[arg(long = "allow-host", value_name = "HOST")]
    allowed_hosts: Vec<String>,
    /// Listen on a non-loopback address (use with --token).
    #[arg(long)]
    allow_non_loopback: bool,
    /// Require `Authorization: Bearer TOKEN` on HTTP.
    #[arg(
        long,
        env = "EXAMPLE_SERVER_TOKEN",
        value_name = "TOKEN",
        hide_env_values = true
    )]
    token: Option<String>,
    /// List every tool, discoverable ones included, and no tool_search/execute_tool.
    #[arg(long)]
    show_all: bool,
    /// Print the tool catalog and exit.
    #[arg(long)]
    list: bool,
}

const HOW_TO_CONNECT: &str = "example-server speaks MCP on stdin/stdout: start it from an MCP client rather than a terminal.
  Client configuration:  {\"mcpServers\": {\"workspace\": {\"command\": \"example-server\", \"args\": [\"--root\", \"/path/to/project\"]}}}
  MCP Inspector:         npx @modelcontextprotocol/inspector example-server --root /path/to/project
  Over HTTP instead:     example-server --http 127.0.0.1:8080   (then connect to http://127.0.0.1:8080/mcp)
Press Ctrl-D to stop.";

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    // rmcp's per-request INFO lines stay out unless RUST_LOG asks for them.
    use tracing_subscriber::prelude::*;
    let filter: tracing_subscriber::filter::Targets = toolmetadata::server::log_filter()
        .parse()
        .unwrap_or_else(|_| {
            toolmetadata::server::DEFAULT_LOG_FILTER
                .parse()
                .unwrap_or_default()
        });
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .finish()
        .with(filter)
        .init();
    if cli.list {
        print!("{}", catalog::table(cli.read_only));
        return ExitCode::SUCCESS;
    }
    match run(cli).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run(cli: Cli) -> Result<(), Box<dyn std::error::Error>> {
    let dirs = if cli.roots.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        cli.roots
    };
    let roots = roots::Roots::new(&dirs)?;
    let workspace = handler::Workspace {
        roots: roots.clone(),
        read_only: cli.read_only,
        allowed_commands: cli.allowed_commands,
    };
    let read_only = cli.read_only;
    let server = Server::builder()
        .tool_set(tools::tool_set(workspace))
        .retain(|t| {
            !read_only || t.annotations.as_ref().and_then(|a| a.read_only_hint) == Some(true)
        })
        .instructions(format!(
            "Tools for the files under {}.{}",
            roots
                .dirs()
                .iter()
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
            if read_only {
                " The server is read-only."
            } else {
                ""
            }
        ))
        .resource(
            "ui://workspace/tree",
            "Workspace tree",
            "text/html;profile=mcp-app",
            include_str!("tree_view.html"),
        )
        .show_all(cli.show_all)
        .build()?;
    match cli.http {
        None => {
            if std::io::stdin().is_terminal() {
                eprintln!("{HOW_TO_CONNECT}");
            }
            server.serve_stdio().await?;
        }
        Some(addr) => {
            let mut options = HttpOptions::default()
                .addr(addr)
                .allow_non_loopback(cli.allow_non_loopback);
            for origin in cli.allowed_origins {
                options = options.allow_origin(origin);
            }
            for host in cli.allowed_hosts {
                options = options.allow_host(host);
            }
            if let Some(token) = cli.token {
                options = options.bearer_token(token);
            }
            let bound = server.bind_http(options).await?;
            let addr = bound.local_addr()?;
            let running = bound.run();
            eprintln!("listening on http://{addr}/mcp");
            running.await?;
        }
    }
    Ok(())
}
