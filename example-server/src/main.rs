//! `example-server`: an MCP server for a workspace. Its tools read, search and
//! change files under the directories it is given, and run the programs it is
//! allowed to; every tool is described by a metadata file in `tools/`, and
//! rustc checks the handlers against them.

mod admin;
mod atomic;
mod catalog;
mod changes;
mod command;
mod confinement;
mod edit;
mod exclude;
mod extras;
mod files;
mod handler;
mod handles;
mod ignores;
mod limits;
mod lines;
mod listing;
mod offload;
mod path_error;
#[cfg(test)]
mod race_tests;
mod scope;
mod search;
#[cfg(test)]
mod served_tests;
mod spelling;
mod tools;

use std::io::IsTerminal;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use toolmetadata::server::auth::{JwtVerifier, ProtectedResource};
use toolmetadata::server::{HttpOptions, Server};

use crate::limits::Limits;

/// jemalloc, with its background thread, gives freed memory back to the
/// system within seconds; with glibc's allocator a burst of HTTP sessions
/// left the process at several times its baseline long after every session
/// was closed (the freed memory was fragmented, so never trimmed).
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// When the stop signal came (HTTP), for the time telemetry has left.
static STOPPING_SINCE: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();

/// An MCP server for a workspace: read, search and change files under the
/// given roots, and run allowed commands.
#[derive(Parser)]
#[command(name = "example-server", version, about)]
struct Cli {
    /// A directory the tools may use (repeatable). A client that offers its
    /// roots (MCP roots/list) replaces them for its session; with neither,
    /// the file tools refuse every path.
    // Taken as given, empty too: an empty one is warned about and skipped
    // like any root that cannot be served, rather than stopping the server.
    //
    // Several may follow one `--root` (`--root a b`): an MCP bundle passes a
    // list of directories that way (Cargo.toml's [package.metadata.mcp]).
    #[arg(
        long = "root",
        value_name = "DIR",
        num_args = 1..,
        value_parser = clap::builder::TypedValueParser::map(
            clap::builder::OsStringValueParser::new(),
            PathBuf::from
        )
    )]
    roots: Vec<PathBuf>,
    /// Offer only the tools that change nothing (`--read-only=false` and
    /// `--read-only false` too, as an MCP bundle or a registry client
    /// passes the setting).
    #[arg(
        long,
        num_args = 0..=1,
        default_missing_value = "true",
        default_value = "false",
        action = clap::ArgAction::Set
    )]
    read_only: bool,
    /// Serve only the tools of this group (repeatable: the tools of any of
    /// them): `read` (the tools that change nothing) or `edit` (the ones
    /// that write, edit, move and create). Over HTTP each group is also
    /// served at `/mcp/<group>`, whatever this says.
    #[arg(long = "group", value_name = "NAME")]
    groups: Vec<String>,
    /// A program run_command may start, optionally with the arguments a call
    /// must begin with, such as 'git status' (repeatable; none by default).
    /// Looked up at startup on the absolute entries of PATH.
    #[arg(long = "allow-command", value_name = "PROGRAM [ARG…]")]
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
    /// Listen on a non-loopback address (use with --token or --auth-issuer).
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
    /// Accept OAuth access tokens (JWTs) from this issuer on HTTP instead of a
    /// static token; needs --auth-audience and --auth-jwks.
    #[arg(
        long = "auth-issuer",
        value_name = "URL",
        requires_all = ["auth_audience", "auth_jwks"],
        conflicts_with = "token"
    )]
    auth_issuer: Option<String>,
    /// The audience tokens must be issued for: this server's URL as clients
    /// reach it (such as `https://mcp.example.com/mcp`), also its resource
    /// identifier in the protected resource metadata.
    #[arg(long = "auth-audience", value_name = "URL", requires = "auth_issuer")]
    auth_audience: Option<String>,
    /// Where the issuer publishes its signing keys (a JWKS; https, or http on
    /// loopback).
    #[arg(long = "auth-jwks", value_name = "URL", requires = "auth_issuer")]
    auth_jwks: Option<String>,
    /// The authorization server the metadata names for clients (repeatable;
    /// default: the issuer).
    #[arg(long = "auth-server", value_name = "URL", requires = "auth_issuer")]
    auth_servers: Vec<String>,
    /// Largest HTTP request body (a write_file of 10 MB of text fits).
    #[arg(long, value_name = "BYTES", default_value_t = 16 * 1024 * 1024)]
    max_body_bytes: usize,
    /// Most HTTP sessions kept; a new one beyond closes its own client's least
    /// recently used, or another client's inactive one, or is refused.
    #[arg(long, value_name = "N", default_value_t = 1000)]
    max_sessions: usize,
    /// Most HTTP sessions one client (its token's principal, or else its
    /// address) keeps; its new one beyond closes its least recently used.
    /// Behind a proxy, name it with --trusted-proxy so that each client
    /// counts by its own address.
    #[arg(long, value_name = "N", default_value_t = 100)]
    max_sessions_per_client: usize,
    /// Most HTTP connections one address (an IPv6 host by its /64) holds at
    /// once, of 1024. A trusted proxy that forwards no client (no PROXY
    /// protocol) is held to none of its own.
    #[arg(long, value_name = "N", default_value_t = 256)]
    max_connections_per_client: usize,
    /// Seconds a stop (SIGTERM, Ctrl-C, stdin closed) may take: requests in
    /// flight finish meanwhile, then what telemetry has left is sent in
    /// what remains of it.
    #[arg(long, value_name = "SECS", default_value_t = 5)]
    shutdown_secs: u64,
    /// Peers that are reverse proxies (an address or a CIDR range;
    /// repeatable): from them only, the client is read from the PROXY
    /// protocol (HAProxy's send-proxy, v1 or v2), else from
    /// --client-address-header, and every per-client limit counts that
    /// client.
    #[arg(long = "trusted-proxy", value_name = "CIDR")]
    trusted_proxies: Vec<String>,
    /// The header trusted proxies write the client's address into:
    /// x-forwarded-for (nginx, HAProxy's option forwardfor) or forwarded.
    #[arg(long, value_name = "HEADER", default_value = "x-forwarded-for")]
    client_address_header: String,
    /// Most standalone SSE streams (GET /mcp) open at once.
    #[arg(long, value_name = "N", default_value_t = 512)]
    max_streams: usize,
    /// Most standalone SSE streams one client holds open at once.
    #[arg(long, value_name = "N", default_value_t = 16)]
    max_streams_per_client: usize,
    /// Seconds an HTTP session may stay unused before it is closed.
    #[arg(long, value_name = "SECS", default_value_t = 300)]
    session_idle_secs: u64,
    /// Seconds an HTTP client has to send a request's headers (idle connections
    /// close after it too) and, separately, its body.
    #[arg(long, value_name = "SECS", default_value_t = 10)]
    request_timeout_secs: u64,
    /// List every tool, discoverable ones included, and no tool_search/execute_tool.
    #[arg(long)]
    show_all: bool,
    /// Largest file read whole or edited by replace_in_file or edit_file, most
    /// bytes a read of lines returns, and most a batch read returns in all.
    #[arg(long, value_name = "BYTES", default_value_t = Limits::default().max_file_bytes)]
    max_file_bytes: u64,
    /// Most bytes of paths or matches in one search, find, listing or tree reply
    /// (a reply that reaches it says `truncated: true`).
    #[arg(long, value_name = "BYTES", default_value_t = Limits::default().max_reply_bytes)]
    max_reply_bytes: usize,
    /// Longest matching line a search returns; longer ones are cut and end in `…`.
    #[arg(long, value_name = "BYTES", default_value_t = Limits::default().max_line_bytes)]
    max_line_bytes: usize,
    /// Refuse move_path, replace_in_file, edit_file (unless a dry run) and
    /// replacing a file with write_file when the client cannot ask the user to
    /// confirm (by default they run).
    #[arg(long)]
    require_confirmation: bool,
    /// A key (32 bytes or more) for the state of a question asked on a
    /// 2026-07-28 request; repeat it (or give a comma-separated list) to
    /// rotate keys: the first signs, every one verifies. Instances given the
    /// same keys accept each other's retries. Random per process when absent.
    #[arg(
        long,
        env = "EXAMPLE_SERVER_STATE_KEY",
        value_name = "KEY",
        value_delimiter = ',',
        hide_env_values = true
    )]
    state_key: Vec<String>,
    /// Where tasks, used question states and HTTP sessions are kept, shared
    /// by every instance given the same URL: `redis://host:port` or
    /// `postgres://user@host/database`. In this process's memory when absent.
    #[arg(long, env = "EXAMPLE_SERVER_STORE", value_name = "URL")]
    store: Option<String>,
    /// Seconds a running task's lease lasts: a task whose instance died
    /// reads as failed, from every instance, once it has lapsed.
    #[arg(long, value_name = "SECS", default_value_t = 10)]
    task_lease_secs: u64,
    /// Export spans and metrics over OTLP/HTTP to this base URL (an
    /// OpenTelemetry collector's, `http://127.0.0.1:4318`): spans to
    /// URL/v1/traces, metrics to URL/v1/metrics.
    #[arg(long, value_name = "URL")]
    otlp_endpoint: Option<String>,
    /// Serve the operator's door on this loopback address (such as
    /// 127.0.0.1:9000): `GET /tools`, `POST /tools/NAME/enable`,
    /// `POST /tools/NAME/disable`. With --store, a change is every instance's.
    #[arg(long, value_name = "ADDR")]
    admin: Option<SocketAddr>,
    /// Start with this tool disabled (repeatable), until the operator's door
    /// enables it on some instance sharing the --store.
    #[arg(long = "disable-tool", value_name = "NAME")]
    disabled_tools: Vec<String>,
    /// Print the tool catalog and exit.
    #[arg(long)]
    list: bool,
}

const HOW_TO_CONNECT: &str = "example-server speaks MCP on stdin/stdout: start it from an MCP client rather than a terminal.
  Client configuration:  {\"mcpServers\": {\"workspace\": {\"command\": \"example-server\", \"args\": [\"--root\", \"/path/to/project\"]}}}
                         (or no args, with a client that offers its roots)
  MCP Inspector:         npx @modelcontextprotocol/inspector example-server --root /path/to/project
  Over HTTP instead:     example-server --http 127.0.0.1:8080   (then connect to http://127.0.0.1:8080/mcp)
Press Ctrl-D to stop.";

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    if cli.list {
        print!("{}", catalog::table(cli.read_only));
        return ExitCode::SUCCESS;
    }
    // rmcp's per-request INFO lines stay out unless RUST_LOG asks for them.
    use tracing_subscriber::prelude::*;
    let filter: tracing_subscriber::filter::Targets = toolmetadata::server::log_filter()
        .parse()
        .unwrap_or_else(|_| {
            toolmetadata::server::DEFAULT_LOG_FILTER
                .parse()
                .unwrap_or_default()
        });
    // The requests' spans are for --otlp-endpoint: in the log they would
    // repeat their attributes on every line (a line names its tool already).
    let filter = filter.with_target(
        toolmetadata::server::SPAN_TARGET,
        tracing_subscriber::filter::LevelFilter::OFF,
    );
    let log = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_filter(filter);
    let telemetry = match &cli.otlp_endpoint {
        None => None,
        Some(url) => match toolmetadata::telemetry::Otlp::new(url)
            .service_name(env!("CARGO_PKG_NAME"))
            .install()
        {
            Ok(telemetry) => Some(telemetry),
            Err(e) => {
                eprintln!("error: --otlp-endpoint: {e}");
                return ExitCode::FAILURE;
            }
        },
    };
    // The exported spans do not follow RUST_LOG: the requests' spans and
    // what happens in them, but rmcp's own.
    let traced = telemetry.as_ref().map(|t| {
        t.layer().with_filter(
            tracing_subscriber::filter::Targets::new()
                .with_default(tracing::Level::INFO)
                .with_target("rmcp", tracing::Level::WARN),
        )
    });
    tracing_subscriber::registry().with(log).with(traced).init();
    let budget = Duration::from_secs(cli.shutdown_secs);
    let outcome = run(cli).await;
    // What is left of the stop's time once the server has stopped; at least
    // half a second, for what the last requests left to send.
    let spent = STOPPING_SINCE.get().map(std::time::Instant::elapsed);
    let left = budget
        .saturating_sub(spent.unwrap_or_default())
        .max(Duration::from_millis(500));
    if let Some(telemetry) = telemetry
        && let Err(e) = telemetry.shutdown_within(left).await
    {
        eprintln!("warning: {e}");
    }
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The server `cli` describes: its tools over the `--root` directories, its
/// store, its limits (what `run` serves, and what the in-process tests of
/// `served_tests` call).
async fn server(cli: &Cli) -> Result<Server, Box<dyn std::error::Error>> {
    let roots = startup_roots(&cli.roots)?;
    let offload = offload::Offload::default();
    // Over HTTP a client's roots may only narrow the --root directories
    // (scope.rs says why).
    let policy = match cli.http {
        None => scope::ClientRootsPolicy::Replace,
        Some(_) => scope::ClientRootsPolicy::Within,
    };
    let scope = scope::Scope::new(roots, offload.clone(), policy);
    let changes = changes::Changes::default();
    let workspace = handler::Workspace {
        scope: scope.clone(),
        read_only: cli.read_only,
        allowed_commands: command::Allowed::resolve(
            &cli.allowed_commands,
            std::env::var_os("PATH"),
        )?,
        limits: Limits {
            max_file_bytes: cli.max_file_bytes,
            max_reply_bytes: cli.max_reply_bytes,
            max_line_bytes: cli.max_line_bytes,
        },
        offload,
        require_confirmation: cli.require_confirmation,
        changes: changes.clone(),
    };
    let (limits, offload) = (workspace.limits, workspace.offload.clone());
    let read_only = cli.read_only;
    let mut builder = Server::builder()
        .tool_set(tools::tool_set(workspace))
        .require_confirmation(cli.require_confirmation);
    for key in &cli.state_key {
        builder = builder.request_state_key(key.clone().into_bytes());
    }
    builder = builder.task_lease(Duration::from_secs(cli.task_lease_secs.max(1)));
    if let Some(url) = &cli.store {
        let store =
            toolmetadata_store::connect(url, toolmetadata_store::Options::default()).await?;
        // The store's Debug names its host, never a password.
        tracing::info!("state kept in {store:?}");
        builder = builder.store(store);
    }
    if !cli.groups.is_empty() {
        builder = builder.groups(cli.groups.iter().cloned());
    }
    let server = extras::add(builder, &scope, limits, &offload)
        .retain(|t| {
            !read_only || t.annotations.as_ref().and_then(|a| a.read_only_hint) == Some(true)
        })
        .instructions(format!(
            "Tools for the files under {}.{}",
            if scope.command_line().is_empty() {
                "the client's roots (list_allowed_directories names them)".to_owned()
            } else {
                scope
                    .command_line()
                    .dirs()
                    .iter()
                    .map(|d| d.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            },
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
        // Tools change at run time through the operator's door: every
        // instance follows the store, so each is built to.
        .changing_tools(cli.disabled_tools.iter().cloned())
        .build()?;
    changes.tell(&server);
    Ok(server)
}

/// The `--root` directories that can be served. One that cannot (missing,
/// not a directory, empty) is skipped with a warning, as the reference
/// filesystem server does; if roots were given and none can be served, that
/// is an error. With none given, the server starts with none and waits for
/// the client's roots.
fn startup_roots(dirs: &[PathBuf]) -> Result<confinement::Confinement, String> {
    let (roots, refused) = confinement::Confinement::open(dirs);
    for why in &refused {
        tracing::warn!("skipping a --root: {why}");
    }
    if dirs.is_empty() {
        tracing::info!(
            "started without --root: the file tools wait for the client's roots (MCP roots/list)"
        );
    } else if roots.is_empty() {
        return Err(format!(
            "none of the {} --root directories can be served: {}",
            dirs.len(),
            refused.join("; ")
        ));
    }
    Ok(roots)
}

async fn run(cli: Cli) -> Result<(), Box<dyn std::error::Error>> {
    let server = server(&cli).await?;
    let _door = match cli.admin {
        Some(addr) => Some(admin::open(addr, server.clone()).await?),
        None => None,
    };
    match cli.http {
        None => {
            if std::io::stdin().is_terminal() {
                eprintln!("{HOW_TO_CONNECT}");
            }
            server.serve_stdio().await?;
        }
        Some(addr) => {
            let request_timeout = Duration::from_secs(cli.request_timeout_secs.max(1));
            let mut options = HttpOptions::default()
                .addr(addr)
                .allow_non_loopback(cli.allow_non_loopback)
                .max_body_bytes(cli.max_body_bytes)
                .max_sessions(cli.max_sessions)
                .max_sessions_per_client(cli.max_sessions_per_client)
                .max_connections_per_client(cli.max_connections_per_client)
                .max_streams(cli.max_streams)
                .max_streams_per_client(cli.max_streams_per_client)
                .session_idle_timeout(Duration::from_secs(cli.session_idle_secs.max(1)))
                .header_read_timeout(request_timeout)
                .body_read_timeout(request_timeout)
                .server_card(tools::manifests::SERVER_CARD);
            for origin in cli.allowed_origins {
                options = options.allow_origin(origin);
            }
            for host in cli.allowed_hosts {
                options = options.allow_host(host);
            }
            for proxy in cli.trusted_proxies {
                options = options.trust_proxy(proxy);
            }
            options = options.client_address_header(cli.client_address_header);
            if let Some(token) = cli.token {
                options = options.bearer_token(token);
            }
            if let (Some(issuer), Some(audience), Some(jwks)) =
                (cli.auth_issuer, cli.auth_audience, cli.auth_jwks)
            {
                // Read tools need no scope; writes need workspace:write and
                // run_command workspace:exec (tools/*.toml).
                let verifier = JwtVerifier::new(&issuer, &audience, jwks)?;
                let servers = if cli.auth_servers.is_empty() {
                    vec![issuer]
                } else {
                    cli.auth_servers
                };
                let resource = servers
                    .into_iter()
                    .fold(ProtectedResource::new(audience), |r, s| {
                        r.authorization_server(s)
                    });
                options = options
                    .token_verifier(verifier)
                    .protected_resource(resource);
            }
            let options = options.shutdown_timeout(Duration::from_secs(cli.shutdown_secs));
            let bound = server.bind_http(options).await?;
            let addr = bound.local_addr()?;
            let signal = toolmetadata::server::shutdown_signal();
            let running = bound.run_until(async move {
                signal.await;
                let _ = STOPPING_SINCE.set(std::time::Instant::now());
            });
            eprintln!("listening on http://{addr}/mcp");
            running.await?;
        }
    }
    Ok(())
}
