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

/// A server crate on toolmetadata: metadata files, build.rs, handlers.
pub fn write_ours(dir: &Path, n: usize, paths: &Paths) -> std::io::Result<()> {
    write_metadata(dir, n)?;
    std::fs::create_dir_all(dir.join("src"))?;
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            r#"[package]
name = "bench-ours-{n}"
version = "0.1.0"
edition = "2024"
publish = false

[dependencies]
toolmetadata = {{ path = {runtime:?}, default-features = false, features = ["server"] }}
tokio = {{ version = "1", features = ["rt-multi-thread", "macros"] }}

[build-dependencies]
toolmetadata-build = {{ path = {build:?} }}

[workspace]
"#,
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
    main.push_str(
        "}\n\n#[tokio::main]\nasync fn main() -> Result<(), toolmetadata::server::ServerError> {\n    toolmetadata::server::Server::builder()\n        .tool_set(tools::tool_set(Handler))\n        .build()?\n        .serve_stdio()\n        .await\n}\n",
    );
    std::fs::write(dir.join("src/main.rs"), main)
}

/// The same server with rmcp's `#[tool]` macros and serde/schemars derives.
pub fn write_rmcp(dir: &Path, n: usize) -> std::io::Result<()> {
    std::fs::create_dir_all(dir.join("src"))?;
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            r#"[package]
name = "bench-rmcp-{n}"
version = "0.1.0"
edition = "2024"
publish = false

[dependencies]
rmcp = {{ version = "=3.11.0", features = ["server", "macros", "transport-io"] }}
serde = {{ version = "1", features = ["derive"] }}
tokio = {{ version = "1", features = ["rt-multi-thread", "macros"] }}

[workspace]
"#
        ),
    )?;
    // Each tool has its own parameter struct, as each generated tool has its
    // own `…Args`: real tools differ in their parameters, and the derives are
    // part of what rmcp's way costs per tool.
    let mut main = String::from(
        "use rmcp::handler::server::wrapper::Parameters;\nuse rmcp::{ServiceExt, schemars, tool, tool_router};\n\n",
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
    main.push_str(
        "}\n\n#[tokio::main]\nasync fn main() -> Result<(), Box<dyn std::error::Error>> {\n    let running = Handler.serve(rmcp::transport::stdio()).await?;\n    running.waiting().await?;\n    Ok(())\n}\n",
    );
    std::fs::write(dir.join("src/main.rs"), main)
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
