//! A test server: the generated tools of `tools/` plus `greet`, a tool loaded
//! at run time from metadata text, served on stdio or Streamable HTTP.
//!
//! ```text
//! toolmetadata-test-server [--show-all] [--instructions TEXT] [--max-tasks N [--max-tasks-per-owner N]]
//!     [--http ADDR [--token T] [--max-body N] [--allow-non-loopback]]
//! ```
//! With `--http`, it prints `listening on http://ADDR/mcp` on stderr once bound.

mod handler;
mod tools;

use std::process::ExitCode;
use toolmetadata::metadata::Load as _;

use toolmetadata::ToolMetadata;
use toolmetadata::server::{Arguments, HttpOptions, Server};

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
    strict: bool,
    instructions: Option<String>,
    state_key: Option<String>,
    ask_timeout_ms: Option<u64>,
    state_ttl_ms: Option<u64>,
    max_tasks: Option<usize>,
    max_tasks_per_owner: Option<usize>,
    http: Option<HttpOptions>,
}

fn parse(mut args: impl Iterator<Item = String>) -> Result<Options, String> {
    let mut options = Options {
        show_all: false,
        strict: false,
        instructions: None,
        state_key: None,
        ask_timeout_ms: None,
        state_ttl_ms: None,
        max_tasks: None,
        max_tasks_per_owner: None,
        http: None,
    };
    let mut http = HttpOptions::default();
    let mut use_http = false;
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or_else(|| format!("{name} needs a value"));
        match arg.as_str() {
            "--show-all" => options.show_all = true,
            "--strict" => options.strict = true,
            "--instructions" => options.instructions = Some(value("--instructions")?),
            "--state-key" => options.state_key = Some(value("--state-key")?),
            "--state-ttl-ms" => {
                let n = value("--state-ttl-ms")?;
                options.state_ttl_ms =
                    Some(n.parse().map_err(|e| format!("--state-ttl-ms {n}: {e}"))?);
            }
            "--max-tasks" => {
                let n = value("--max-tasks")?;
                options.max_tasks = Some(n.parse().map_err(|e| format!("--max-tasks {n}: {e}"))?);
            }
            "--max-tasks-per-owner" => {
                let n = value("--max-tasks-per-owner")?;
                options.max_tasks_per_owner = Some(
                    n.parse()
                        .map_err(|e| format!("--max-tasks-per-owner {n}: {e}"))?,
                );
            }
            "--ask-timeout-ms" => {
                let n = value("--ask-timeout-ms")?;
                options.ask_timeout_ms = Some(
                    n.parse()
                        .map_err(|e| format!("--ask-timeout-ms {n}: {e}"))?,
                );
            }
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
        .strict_arguments(options.strict)
        .show_all(options.show_all);
    builder = with_prompts_and_notes(builder);
    if let Some(i) = options.instructions {
        builder = builder.instructions(i);
    }
    if let Some(key) = options.state_key {
        builder = builder.request_state_key(key);
    }
    if let Some(ms) = options.state_ttl_ms {
        builder = builder.request_state_ttl(std::time::Duration::from_millis(ms));
    }
    if let Some(n) = options.max_tasks {
        let store = toolmetadata::server::store::InMemoryTaskStore::new(n)
            .with_owner_quota(options.max_tasks_per_owner.unwrap_or(n));
        builder = builder.task_store(store);
    }
    if let Some(ms) = options.ask_timeout_ms {
        builder = builder.ask_timeout(std::time::Duration::from_millis(ms));
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

const NOTES: &[(&str, &str)] = &[("groceries", "milk, eggs"), ("todo list", "call Ada")];

/// A prompt with a completed argument, and notes served through a resource
/// template with a completed variable.
fn with_prompts_and_notes(
    builder: toolmetadata::server::ServerBuilder,
) -> toolmetadata::server::ServerBuilder {
    use toolmetadata::server::rmcp::model::{
        GetPromptResult, Prompt, PromptArgument, PromptMessage, ResourceContents, ResourceTemplate,
        Role,
    };
    let names = || NOTES.iter().map(|(name, _)| (*name).to_owned());
    builder
        .prompt(
            Prompt::new(
                "summarize",
                Some("Summarize a note"),
                Some(vec![
                    PromptArgument::new("note").with_required(true),
                    PromptArgument::new("style"),
                ]),
            ),
            |args, cx| async move {
                let note = args
                    .get("note")
                    .and_then(|v| v.as_str())
                    .unwrap_or_default();
                let style = args
                    .get("style")
                    .and_then(|v| v.as_str())
                    .unwrap_or("short");
                Ok(GetPromptResult::new(vec![PromptMessage::new_text(
                    Role::User,
                    format!("Summarize the note {note} ({style}, via {})", cx.tool()),
                )]))
            },
        )
        .complete_prompt("summarize", "note", move |typed, _cx| {
            let found: Vec<String> = names().filter(|n| n.starts_with(&typed)).collect();
            async move { found }
        })
        .resource_template(
            ResourceTemplate::new("notes://{name}", "notes").with_mime_type("text/plain"),
            |uri, vars, _cx| async move {
                let name = vars.get("name").cloned().unwrap_or_default();
                match NOTES.iter().find(|(n, _)| *n == name) {
                    Some((_, text)) => Ok(vec![ResourceContents::text(*text, uri)]),
                    None => Err(toolmetadata::ToolError::new(format!(
                        "no note named {name:?}"
                    ))),
                }
            },
        )
        .complete_resource("notes://{name}", "name", move |typed, _cx| {
            let found: Vec<String> = names().filter(|n| n.starts_with(&typed)).collect();
            async move { found }
        })
}
