//! Equivalent workloads for both sides of the benchmark: N tools with six
//! parameters each (two required strings, an optional integer, number, boolean
//! and string array), written as metadata files for toolmetadata and as
//! `#[tool]` methods with `Parameters<T>` for rmcp's macros. Every handler
//! returns a text built from its arguments.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Generated tools are named `tool_000`, `tool_001`, ….
pub fn tool_name(i: usize) -> String {
    format!("tool_{i:03}")
}

/// One metadata file per tool, in `dir/tools`.
pub fn write_metadata(dir: &Path, n: usize) -> std::io::Result<()> {
    let tools = dir.join("tools");
    std::fs::create_dir_all(&tools)?;
    for i in 0..n {
        let name = tool_name(i);
        let text = format!(
            r#"description = "Benchmark tool {i}: echoes its arguments"

[[parameters]]
name = "query"
type = "string"
description = "What to look for"
required = true

[[parameters]]
name = "scope"
type = "string"
description = "Where to look"
required = true

[[parameters]]
name = "limit"
type = "int"
description = "At most this many"

[[parameters]]
name = "ratio"
type = "float"
description = "A ratio"

[[parameters]]
name = "verbose"
type = "bool"
description = "Say more"

[[parameters]]
name = "tags"
type = "array:string"
description = "Labels"
"#
        );
        std::fs::write(tools.join(format!("{name}.toml")), text)?;
    }
    Ok(())
}

/// Paths to the workspace's crates, for the generated manifests.
pub struct Paths {
    /// `runtime/`.
    pub runtime: PathBuf,
    /// `toolmetadata-build/`.
    pub build: PathBuf,
}

impl Paths {
    /// The crates of the workspace this benchmark belongs to.
    pub fn workspace() -> Paths {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .unwrap_or(Path::new("."))
            .to_owned();
        Paths {
            runtime: root.join("runtime"),
            build: root.join("toolmetadata-build"),
        }
    }
}

/// How a generated server is reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// stdin and stdout.
    Stdio,
    /// Streamable HTTP on `127.0.0.1` at a free port, which the server prints
    /// as its first line on stdout (`127.0.0.1:PORT`).
    Http,
}

/// The suffix of a generated crate's name and directory for a transport.
fn transport_suffix(transport: Transport) -> &'static str {
    match transport {
        Transport::Stdio => "",
        Transport::Http => "http-",
    }
}

/// A server crate on toolmetadata: metadata files, build.rs, handlers.
pub fn write_ours(dir: &Path, n: usize, paths: &Paths) -> std::io::Result<()> {
    write_ours_on(dir, n, paths, Transport::Stdio)
}

/// [`write_ours`] served over `transport`: the same handlers; over HTTP with
/// the `http` feature and `Server::bind_http`'s defaults (sessions and
/// stateless requests, rmcp's `StreamableHttpService` behind our checks).
pub fn write_ours_on(
    dir: &Path,
    n: usize,
    paths: &Paths,
    transport: Transport,
) -> std::io::Result<()> {
    write_metadata(dir, n)?;
    std::fs::create_dir_all(dir.join("src"))?;
    let features = match transport {
        // Today's clients open sessions (2025-11-25), as the bench's do.
        Transport::Stdio => r#"["server", "sessions"]"#,
        Transport::Http => r#"["server", "sessions", "http"]"#,
    };
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            r#"[package]
name = "bench-ours-{suffix}{n}"
version = "0.1.0"
edition = "2024"
publish = false

[dependencies]
toolmetadata = {{ path = {runtime:?}, default-features = false, features = {features} }}
tokio = {{ version = "1", features = ["rt-multi-thread", "macros"] }}

[build-dependencies]
toolmetadata-build = {{ path = {build:?}, default-features = false }}

[workspace]
"#,
            suffix = transport_suffix(transport),
            runtime = paths.runtime.display().to_string(),
            build = paths.build.display().to_string(),
        ),
    )?;
    std::fs::write(
        dir.join("build.rs"),
        "fn main() -> Result<(), toolmetadata_build::Error> {\n    toolmetadata_build::compile(\"tools\")\n}\n",
    )?;
    let mut main = String::from(
        "use toolmetadata::{Context, ToolResult};\n\nmod tools {\n    toolmetadata::include_tools!();\n}\nuse tools::*;\n\nstruct Handler;\n\nimpl Tools for Handler {\n",
    );
    for i in 0..n {
        let (name, args, body) = (tool_name(i), args_type(i), handler_body(i));
        let _ = write!(
            main,
            "    async fn {name}(&self, a: {args}, _cx: Context) -> ToolResult {{\n        Ok({body}.into())\n    }}\n"
        );
    }
    main.push_str(match transport {
        Transport::Stdio => "}\n\n#[tokio::main]\nasync fn main() -> Result<(), toolmetadata::server::ServerError> {\n    toolmetadata::server::Server::builder()\n        .tool_set(tools::tool_set(Handler))\n        .build()?\n        .serve_stdio()\n        .await\n}\n",
        Transport::Http => "}\n\n#[tokio::main]\nasync fn main() -> Result<(), toolmetadata::server::ServerError> {\n    let options = toolmetadata::server::HttpOptions::default().addr(([127, 0, 0, 1], 0).into());\n    let server = toolmetadata::server::Server::builder()\n        .tool_set(tools::tool_set(Handler))\n        .build()?\n        .bind_http(options)\n        .await?;\n    println!(\"{}\", server.local_addr()?);\n    server.run().await\n}\n",
    });
    std::fs::write(dir.join("src/main.rs"), main)
}

/// [`write_ours`] with every protocol feature a stdio server may use turned
/// on (`[limits]`, tasks, asking, resources, prompts) and the build crate's
/// default pattern checks: what the 10-tool server of the earlier cold rows
/// compiled, when all of it came with the feature `server`. (Matching
/// patterns, the runtime's `regex`, was a feature of its own then too.)
pub fn write_ours_full_featured(dir: &Path, n: usize, paths: &Paths) -> std::io::Result<()> {
    write_ours(dir, n, paths)?;
    let manifest = dir.join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest)?
        .replace(
            &format!("name = \"bench-ours-{n}\""),
            &format!("name = \"bench-ours-full-{n}\""),
        )
        .replace(
            r#"features = ["server", "sessions"]"#,
            r#"features = ["server", "sessions", "limits", "tasks", "ask", "resources", "prompts"]"#,
        )
        .replace(", default-features = false }", " }");
    std::fs::write(&manifest, text)
}

/// [`write_ours`] with policy: every tool under `[limits]` (a timeout, a
/// concurrency and a rate no benchmark reaches, so that each call pays for
/// them and none is refused), the runtime's `otlp` feature, and a `main`
/// that exports spans and metrics to `BENCH_OTLP_ENDPOINT` when it is set
/// (exporter on) and installs nothing otherwise (exporter off: the spans
/// are made for no subscriber, the metric recorded on the no-op meter).
pub fn write_ours_with_policy(dir: &Path, n: usize, paths: &Paths) -> std::io::Result<()> {
    write_ours(dir, n, paths)?;
    for i in 0..n {
        let file = dir.join("tools").join(format!("{}.toml", tool_name(i)));
        let mut text = std::fs::read_to_string(&file)?;
        text.push_str("\n[limits]\ntimeout = \"30s\"\nconcurrency = 64\nrate = \"10000/s\"\n");
        std::fs::write(&file, text)?;
    }
    let manifest = dir.join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest)?
        .replace(
            &format!("name = \"bench-ours-{n}\""),
            &format!("name = \"bench-ours-policy-{n}\""),
        )
        .replace(
            r#"features = ["server", "sessions"]"#,
            r#"features = ["server", "sessions", "limits", "otlp"]"#,
        )
        .replace(
            "[build-dependencies]",
            "tracing = \"0.1\"\ntracing-subscriber = { version = \"0.3\", default-features = false, features = [\"registry\", \"std\"] }\n\n[build-dependencies]",
        );
    std::fs::write(&manifest, text)?;
    let main = dir.join("src/main.rs");
    let text = std::fs::read_to_string(&main)?;
    let Some(at) = text.find("#[tokio::main]") else {
        return Err(std::io::Error::other("no main in the generated server"));
    };
    let mut text = text[..at].to_owned();
    text.push_str(
        r#"#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let telemetry = match std::env::var("BENCH_OTLP_ENDPOINT") {
        Ok(url) => {
            use tracing_subscriber::prelude::*;
            let telemetry = toolmetadata::telemetry::Otlp::new(url)
                .metrics_interval(std::time::Duration::from_secs(1))
                .install()?;
            let only_ours = tracing_subscriber::filter::Targets::new()
                .with_target("toolmetadata", tracing::Level::INFO);
            tracing_subscriber::registry()
                .with(telemetry.layer().with_filter(only_ours))
                .init();
            Some(telemetry)
        }
        Err(_) => None,
    };
    toolmetadata::server::Server::builder()
        .tool_set(tools::tool_set(Handler))
        .build()?
        .serve_stdio()
        .await?;
    if let Some(telemetry) = telemetry {
        telemetry.shutdown().await?;
    }
    Ok(())
}
"#,
    );
    std::fs::write(&main, text)
}

/// The same server with rmcp's `#[tool]` macros and serde/schemars derives.
pub fn write_rmcp(dir: &Path, n: usize) -> std::io::Result<()> {
    write_rmcp_on(dir, n, Transport::Stdio)
}

/// [`write_rmcp`] served over `transport`: over HTTP, rmcp's own
/// `StreamableHttpService` with its default configuration (sessions for
/// `initialize`d clients, stateless 2026-07-28 requests, its `Host` check) and
/// a `LocalSessionManager`, mounted at `/mcp` on axum as its documentation
/// shows, with no other middleware, and with `TCP_NODELAY` on its
/// connections (`ListenerExt::tap_io`, as axum documents it): `axum::serve`
/// leaves Nagle's algorithm on, and then every answer written in more than
/// one part (SSE) waits 40 ms for the client's delayed ACK, which would
/// measure TCP, not rmcp.
pub fn write_rmcp_on(dir: &Path, n: usize, transport: Transport) -> std::io::Result<()> {
    std::fs::create_dir_all(dir.join("src"))?;
    let (features, extra) = match transport {
        Transport::Stdio => (r#"["server", "macros", "transport-io"]"#, ""),
        Transport::Http => (
            r#"["server", "macros", "transport-streamable-http-server"]"#,
            "axum = { version = \"0.8\", default-features = false, features = [\"http1\", \"tokio\"] }\n",
        ),
    };
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            r#"[package]
name = "bench-rmcp-{suffix}{n}"
version = "0.1.0"
edition = "2024"
publish = false

[dependencies]
rmcp = {{ version = "=3.11.0", features = {features} }}
serde = {{ version = "1", features = ["derive"] }}
tokio = {{ version = "1", features = ["rt-multi-thread", "macros", "net"] }}
{extra}
[workspace]
"#,
            suffix = transport_suffix(transport),
        ),
    )?;
    // Each tool has its own parameter struct, as each generated tool has its
    // own `…Args`: real tools differ in their parameters, and the derives are
    // part of what rmcp's way costs per tool.
    let mut main = String::from(
        "use rmcp::handler::server::wrapper::Parameters;\nuse rmcp::{schemars, tool, tool_router};\n\n",
    );
    for i in 0..n {
        let args = args_type(i);
        let _ = write!(
            main,
            "#[derive(serde::Deserialize, schemars::JsonSchema)]\npub struct {args} {{\n    /// What to look for\n    pub query: String,\n    /// Where to look\n    pub scope: String,\n    /// At most this many\n    pub limit: Option<i64>,\n    /// A ratio\n    pub ratio: Option<f64>,\n    /// Say more\n    pub verbose: Option<bool>,\n    /// Labels\n    pub tags: Option<Vec<String>>,\n}}\n\n"
        );
    }
    main.push_str("struct Handler;\n\n#[tool_router(server_handler)]\nimpl Handler {\n");
    for i in 0..n {
        let (name, args, body) = (tool_name(i), args_type(i), handler_body(i));
        let _ = write!(
            main,
            "    #[tool(description = \"Benchmark tool {i}: echoes its arguments\")]\n    async fn {name}(&self, Parameters(a): Parameters<{args}>) -> String {{\n        {body}\n    }}\n"
        );
    }
    main.push_str(match transport {
        Transport::Stdio => "}\n\n#[tokio::main]\nasync fn main() -> Result<(), Box<dyn std::error::Error>> {\n    use rmcp::ServiceExt;\n    let running = Handler.serve(rmcp::transport::stdio()).await?;\n    running.waiting().await?;\n    Ok(())\n}\n",
        Transport::Http => "}\n\n#[tokio::main]\nasync fn main() -> Result<(), Box<dyn std::error::Error>> {\n    use rmcp::transport::streamable_http_server::{\n        StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,\n    };\n    let service = StreamableHttpService::new(\n        || Ok(Handler),\n        std::sync::Arc::new(LocalSessionManager::default()),\n        StreamableHttpServerConfig::default(),\n    );\n    let router = axum::Router::new().nest_service(\"/mcp\", service);\n    let listener = tokio::net::TcpListener::bind(\"127.0.0.1:0\").await?;\n    println!(\"{}\", listener.local_addr()?);\n    // TCP_NODELAY, as axum's documentation shows: without it an answer\n    // written in two parts (SSE) waits for the client's delayed ACK, 40 ms.\n    use axum::serve::ListenerExt;\n    let listener = listener.tap_io(|tcp| {\n        let _ = tcp.set_nodelay(true);\n    });\n    axum::serve(listener, router).await?;\n    Ok(())\n}\n",
    });
    std::fs::write(dir.join("src/main.rs"), main)
}

/// runtime/Cargo.toml's rmcp and tokio as its feature `server` has them
/// (what the minimal server compiles: `ask` adds rmcp's request-state), and
/// the servers' own tokio features: the dependencies of every floor on rmcp.
const RMCP_FLOOR_DEPENDENCIES: &str = r#"[dependencies]
rmcp = { version = "=3.11.0", default-features = false, features = ["server", "transport-io"] }
tokio = { version = "1", features = ["rt", "rt-multi-thread", "macros", "net", "io-std", "sync", "time"] }
"#;

/// A handler with nothing in it, and `serve_empty` serving it on stdio until
/// the client leaves: the serving floors' server.
const EMPTY_SERVER: &str = "struct Empty;\n\nimpl rmcp::ServerHandler for Empty {}\n\nasync fn serve_empty() -> Result<(), Box<dyn std::error::Error>> {\n    use rmcp::ServiceExt;\n    let running = Empty.serve(rmcp::transport::stdio()).await?;\n    running.waiting().await?;\n    Ok(())\n}\n\n";

/// A bench crate's manifest: its name and its `[dependencies]` table.
fn manifest(name: &str, dependencies: &str) -> String {
    format!(
        "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n{dependencies}\n[workspace]\n"
    )
}

/// What every server on rmcp compiles before any code of its own: rmcp and
/// tokio with the features the runtime's `server` feature asks for. With
/// `serve` false, a `main` that only names one of rmcp's items: the floor of
/// a cold build, which a server on the runtime cannot build faster than.
/// With `serve` true, a `main` that serves a handler with nothing in it on
/// stdio: rmcp's service and its messages' serde compiled for one handler,
/// what any server on rmcp compiles too, macros or not (the serving floor).
pub fn write_rmcp_floor(dir: &Path, serve: bool) -> std::io::Result<()> {
    std::fs::create_dir_all(dir.join("src"))?;
    let name = if serve {
        "bench-rmcp-serve-floor"
    } else {
        "bench-rmcp-floor"
    };
    std::fs::write(
        dir.join("Cargo.toml"),
        manifest(name, RMCP_FLOOR_DEPENDENCIES),
    )?;
    let main = if serve {
        format!(
            "{EMPTY_SERVER}#[tokio::main]\nasync fn main() -> Result<(), Box<dyn std::error::Error>> {{\n    serve_empty().await\n}}\n"
        )
    } else {
        "fn main() {\n    println!(\"{:?}\", rmcp::model::ProtocolVersion::LATEST);\n}\n".to_owned()
    };
    std::fs::write(dir.join("src/main.rs"), main)
}

/// The compile-time floor: the same handlers as plain `async fn`s over
/// argument structs (deriving `Debug`, `Clone` and `PartialEq`, as the
/// generated `…Args` do), called by name from a line of stdin, with no MCP,
/// no serde and no schema at all. Its only dependency is tokio, to run the
/// handlers' futures.
pub fn write_plain(dir: &Path, n: usize) -> std::io::Result<()> {
    let manifest = r#"[dependencies]
tokio = { version = "1", features = ["rt-multi-thread", "macros"] }
"#;
    let main = "#[tokio::main]\nasync fn main() {\n    run_by_name().await;\n}\n";
    write_plain_crate(dir, &format!("bench-plain-{n}"), manifest, n, main)
}

/// The plain handlers of [`write_plain`] in a server on rmcp that serves
/// an empty `ServerHandler` on stdio (the serving floor of
/// [`write_rmcp_floor`]), the handlers run by name when the binary is given
/// an argument. What any server on rmcp with these handlers compiles and
/// links at least, however it routes and decodes their calls: a floor for
/// the compile rows that a bare handler crate, linking no MCP at all, is not.
pub fn write_plain_served(dir: &Path, n: usize) -> std::io::Result<()> {
    let main = format!(
        "{EMPTY_SERVER}#[tokio::main]\nasync fn main() -> Result<(), Box<dyn std::error::Error>> {{\n    if std::env::args().nth(1).is_some() {{\n        run_by_name().await;\n        return Ok(());\n    }}\n    serve_empty().await\n}}\n"
    );
    write_plain_crate(
        dir,
        &format!("bench-plain-served-{n}"),
        RMCP_FLOOR_DEPENDENCIES,
        n,
        &main,
    )
}

/// A crate of `n` plain handlers, `run_by_name` calling the one a line of
/// stdin names, and `main`.
fn write_plain_crate(
    dir: &Path,
    name: &str,
    dependencies: &str,
    n: usize,
    main: &str,
) -> std::io::Result<()> {
    std::fs::create_dir_all(dir.join("src"))?;
    std::fs::write(dir.join("Cargo.toml"), manifest(name, dependencies))?;
    let mut source = String::new();
    for i in 0..n {
        let (name, args, body) = (tool_name(i), args_type(i), handler_body(i));
        let _ = write!(
            source,
            "#[derive(Debug, Clone, PartialEq)]\npub struct {args} {{\n    pub query: String,\n    pub scope: String,\n    pub limit: Option<i64>,\n    pub ratio: Option<f64>,\n    pub verbose: Option<bool>,\n    pub tags: Option<Vec<String>>,\n}}\n\nasync fn {name}(a: {args}) -> String {{\n    {body}\n}}\n\n"
        );
    }
    source.push_str("async fn run_by_name() {\n    let mut line = String::new();\n    let _ = std::io::stdin().read_line(&mut line);\n    let mut words = line.split_whitespace();\n    let tool = words.next().unwrap_or_default().to_owned();\n    let query = words.next().unwrap_or_default().to_owned();\n    let scope = words.next().unwrap_or_default().to_owned();\n    let out = match tool.as_str() {\n");
    for i in 0..n {
        let (name, args) = (tool_name(i), args_type(i));
        let _ = writeln!(
            source,
            "        \"{name}\" => {name}({args} {{ query, scope, limit: Some(10), ratio: None, verbose: None, tags: None }}).await,"
        );
    }
    source.push_str(
        "        _ => String::from(\"no such tool\"),\n    };\n    println!(\"{out}\");\n}\n\n",
    );
    source.push_str(main);
    std::fs::write(dir.join("src/main.rs"), source)
}

/// The argument struct of tool `i`: the generated one's name, which rmcp's
/// side uses for its own struct.
fn args_type(i: usize) -> String {
    format!(
        "{}Args",
        toolmetadata::metadata::names::type_stem(&tool_name(i))
    )
}

/// The expression every handler of both sides returns, its argument bound to `a`.
fn handler_body(i: usize) -> String {
    let name = tool_name(i);
    format!(
        "format!(\"{name}: {{}} in {{}} limit={{:?}} ratio={{:?}} verbose={{:?}} tags={{:?}}\", a.query, a.scope, a.limit, a.ratio, a.verbose, a.tags)"
    )
}

/// The arguments every benchmark call sends.
pub fn call_arguments() -> serde_json::Map<String, serde_json::Value> {
    let serde_json::Value::Object(map) = serde_json::json!({
        "query": "needle", "scope": "haystack", "limit": 10, "ratio": 0.5, "verbose": true, "tags": ["a", "b"]
    }) else {
        return serde_json::Map::new();
    };
    map
}

/// The generated decoder of the decoding benchmark's tool.
pub mod decode_target {
    toolmetadata::include_tools!();
}
