//! The server's manifests, from the same sources as its code: `Cargo.toml`'s
//! package and its `[package.metadata.mcp]` table, and the tool files.
//!
//! - [`Manifests::server_json`]: the MCP registry's `server.json` (schema
//!   2025-12-11), the crate as a `cargo` package run over stdio;
//! - [`Manifests::bundle`]: an MCP bundle's `manifest.json` (`.mcpb`,
//!   manifest version 0.3), the binary with the user's configuration;
//! - [`Manifests::server_card`]: the server card of the
//!   `io.modelcontextprotocol/server-card` extension (schema v1).
//!
//! ```toml
//! [package.metadata.mcp]
//! name = "io.github.owner/notes"        # the registry name (required)
//! title = "Notes"                       # display name
//! description = "Search and archive notes"  # 1 to 100 characters; default: the package's
//! author = "Ada"                        # default: the package's first author
//! bin = "notes"                         # the binary; default: the package's name
//!
//! [[package.metadata.mcp.remotes]]      # deployments reachable over HTTP
//! type = "streamable-http"              # or "sse"
//! url = "https://notes.example/mcp"
//! protocol-versions = ["2025-11-25"]    # the card's supportedProtocolVersions
//!
//! [[package.metadata.mcp.arguments]]    # the binary's command-line arguments
//! name = "--root"                       # a flag, or a word for a positional argument
//! description = "A directory of notes"  # required
//! kind = "directory"                    # string (default), number, boolean, directory, file
//! required = true
//! repeated = true                       # several values (after one flag, in a bundle)
//! # also: title, default, secret, value-hint (a positional argument's)
//!
//! [[package.metadata.mcp.env]]          # environment variables the binary reads
//! name = "NOTES_TOKEN"
//! description = "The notes service's token"
//! secret = true
//! # also: title, kind, required, default
//! ```
//!
//! In a bundle, each argument and variable becomes a `user_config` entry the
//! host asks the person for (an argument's key is its name without dashes,
//! `-` as `_`; a variable's, its name in lower case), passed to the binary
//! as `--flag=VALUE` (a boolean as `--flag=true` or `--flag=false`), a
//! repeated flag as the flag followed by each value, a positional argument
//! as its value. An optional value the person leaves unset is passed empty
//! (`--flag=`, an empty variable; a boolean as `false`), since the host
//! substitutes only values it has; an optional repeated or positional
//! argument needs a `default`. The binary must take these forms (clap:
//! `num_args = 1..` for a repeated flag; `num_args = 0..=1` with
//! `default_missing_value = "true"` for a boolean one).
//!
//! The registry's ownership check of a `cargo` package reads the crate's
//! README on crates.io: it must show the line `mcp-name: NAME` (as text:
//! crates.io drops HTML comments).

mod inputs;
mod table;

use std::path::Path;
use std::sync::Arc;

use serde_json::{Map, Value, json};
use toolmetadata_load::metadata::ToolMetadata;
use toolmetadata_load::metadata::group::GROUPS_META;
use toolmetadata_load::{Diagnostic, Diagnostics, Rule, SourceFile};

use inputs::{Argument, ServerTable, Variable};

/// The registry's `server.json` schema these are written for.
pub const SERVER_JSON_SCHEMA: &str =
    "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";
/// The server card schema these are written for.
pub const SERVER_CARD_SCHEMA: &str =
    "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json";
/// The MCP bundle manifest version written.
pub const BUNDLE_MANIFEST_VERSION: &str = "0.3";

/// What Cargo says of the package (in a build script, its `CARGO_PKG_*`
/// variables; for the CLI, `cargo metadata`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Package {
    /// The crate's name: the registry package's identifier.
    pub name: String,
    /// The crate's version.
    pub version: String,
    /// `description`, if any.
    pub description: Option<String>,
    /// `repository`, if any.
    pub repository: Option<String>,
    /// `homepage`, if any.
    pub homepage: Option<String>,
    /// `authors` (`Name <email>`).
    pub authors: Vec<String>,
    /// `license`, if any.
    pub license: Option<String>,
    /// The operating system the binary is built for, as Rust names it
    /// (`linux`, `macos`, `windows`): a bundle holds one binary.
    pub target_os: String,
}

impl Package {
    /// The package a build script is building, from Cargo's variables.
    pub fn from_build_env() -> Package {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        Package {
            name: var("CARGO_PKG_NAME").unwrap_or_default(),
            version: var("CARGO_PKG_VERSION").unwrap_or_default(),
            description: var("CARGO_PKG_DESCRIPTION"),
            repository: var("CARGO_PKG_REPOSITORY"),
            homepage: var("CARGO_PKG_HOMEPAGE"),
            authors: var("CARGO_PKG_AUTHORS")
                .map(|a| a.split(':').map(str::to_owned).collect())
                .unwrap_or_default(),
            license: var("CARGO_PKG_LICENSE"),
            target_os: var("CARGO_CFG_TARGET_OS")
                .unwrap_or_else(|| std::env::consts::OS.to_owned()),
        }
    }
}

impl Package {
    /// The package of `cargo_toml`, as `cargo metadata` reads it (workspace
    /// inheritance resolved), built for this machine's OS.
    ///
    /// # Errors
    ///
    /// Cargo cannot be run, or does not read the package.
    pub fn from_cargo_metadata(cargo_toml: &Path) -> Result<Package, String> {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let output = std::process::Command::new(cargo)
            .args([
                "metadata",
                "--no-deps",
                "--format-version",
                "1",
                "--manifest-path",
            ])
            .arg(cargo_toml)
            .output()
            .map_err(|e| format!("cannot run cargo metadata: {e}"))?;
        if !output.status.success() {
            return Err(format!(
                "cargo metadata failed for {}: {}",
                cargo_toml.display(),
                String::from_utf8_lossy(&output.stderr).trim()
            ));
        }
        let metadata: Value = serde_json::from_slice(&output.stdout)
            .map_err(|e| format!("cargo metadata printed no JSON: {e}"))?;
        let wanted = std::fs::canonicalize(cargo_toml)
            .map_err(|e| format!("{}: {e}", cargo_toml.display()))?;
        let package = metadata["packages"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|p| {
                p["manifest_path"]
                    .as_str()
                    .and_then(|m| std::fs::canonicalize(m).ok())
                    .is_some_and(|m| m == wanted)
            })
            .ok_or_else(|| format!("{} is not a package's manifest", cargo_toml.display()))?;
        let text = |key: &str| package[key].as_str().map(str::to_owned);
        Ok(Package {
            name: text("name").unwrap_or_default(),
            version: text("version").unwrap_or_default(),
            description: text("description"),
            repository: text("repository"),
            homepage: text("homepage"),
            authors: package["authors"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|a| a.as_str().map(str::to_owned))
                .collect(),
            license: text("license"),
            target_os: std::env::consts::OS.to_owned(),
        })
    }
}

/// The three manifests, as JSON.
#[derive(Debug, Clone, PartialEq)]
pub struct Manifests {
    /// The MCP registry's `server.json`.
    pub server_json: Value,
    /// The MCP bundle's `manifest.json`.
    pub bundle: Value,
    /// The server card.
    pub server_card: Value,
}

impl Manifests {
    /// The manifests of `package` with the `[package.metadata.mcp]` table of
    /// `cargo_toml` (its text, shown in diagnostics as `path`) and `tools`;
    /// a diagnostic located in `Cargo.toml` for each problem.
    pub fn new<'a>(
        package: &Package,
        path: &Path,
        cargo_toml: &str,
        tools: impl IntoIterator<Item = &'a ToolMetadata>,
    ) -> Result<Manifests, Diagnostics> {
        let file = Arc::new(SourceFile::new(
            path.display().to_string(),
            cargo_toml.to_owned(),
        ));
        let table = table::read(&file)?;
        let mut problems = Vec::new();
        let description = table
            .description
            .clone()
            .or_else(|| {
                package
                    .description
                    .clone()
                    .map(|d| inputs::Located::new(d, table.span))
            })
            .unwrap_or_else(|| inputs::Located::new(String::new(), table.span));
        let chars = description.value.chars().count();
        if chars == 0 || chars > 100 {
            problems.push(
                Diagnostic::error(
                    Rule::ServerManifest,
                    file.clone(),
                    format!(
                        "the server's description is {chars} characters; the registry and the server card take 1 to 100"
                    ),
                )
                .with_primary(description.span, "this description")
                .with_help("give `description` in [package.metadata.mcp], of at most 100 characters"),
            );
        }
        let author = table
            .author
            .as_ref()
            .map(|a| a.value.trim().to_owned())
            .or_else(|| package.authors.first().map(|a| author_name(a)))
            .filter(|a| !a.is_empty());
        if author.is_none() {
            problems.push(
                Diagnostic::error(
                    Rule::ServerManifest,
                    file.clone(),
                    "an MCP bundle names its author, and the package has none",
                )
                .with_primary(table.span, "in this table")
                .with_help("give `author = \"Your Name\"` in [package.metadata.mcp], or `authors` in [package]"),
            );
        }
        if !problems.is_empty() {
            return Err(Diagnostics::new(problems));
        }
        let mut tools: Vec<&ToolMetadata> = tools.into_iter().collect();
        tools.sort_by(|a, b| a.name.cmp(&b.name));
        let facts = Facts {
            package,
            table: &table,
            description: &description.value,
            author: author.unwrap_or_default(),
        };
        Ok(Manifests {
            server_json: facts.server_json(),
            bundle: facts.bundle(&tools),
            server_card: facts.server_card(&tools),
        })
    }
}

/// What the three manifests are written from.
struct Facts<'a> {
    package: &'a Package,
    table: &'a ServerTable,
    description: &'a str,
    author: String,
}

impl Facts<'_> {
    fn server_json(&self) -> Value {
        let mut package = json!({
            "registryType": "cargo",
            "identifier": self.package.name,
            "version": self.package.version,
            "transport": {"type": "stdio"},
        });
        let arguments: Vec<Value> = self
            .table
            .arguments
            .iter()
            .map(Argument::registry)
            .collect();
        if !arguments.is_empty() {
            package["packageArguments"] = Value::Array(arguments);
        }
        let env: Vec<Value> = self.table.env.iter().map(Variable::registry).collect();
        if !env.is_empty() {
            package["environmentVariables"] = Value::Array(env);
        }
        let mut server = self.identity("$schema", SERVER_JSON_SCHEMA);
        server.insert("packages".into(), json!([package]));
        self.add_remotes(&mut server, false);
        Value::Object(server)
    }

    fn server_card(&self, tools: &[&ToolMetadata]) -> Value {
        let mut card = self.identity("$schema", SERVER_CARD_SCHEMA);
        self.add_remotes(&mut card, true);
        let groups = self.groups(tools);
        if !groups.is_empty() {
            card.insert("_meta".into(), json!({ GROUPS_META: groups }));
        }
        Value::Object(card)
    }

    /// The tool groups, by name: each with its tools and, for each
    /// Streamable HTTP remote, the URL it is served at (`<url>/<group>`).
    fn groups(&self, tools: &[&ToolMetadata]) -> Vec<Value> {
        let mut groups: std::collections::BTreeMap<&str, Vec<&str>> = Default::default();
        for tool in tools {
            for group in &tool.groups {
                groups.entry(group).or_default().push(&tool.name);
            }
        }
        groups
            .into_iter()
            .map(|(name, tools)| {
                let urls: Vec<String> = self
                    .table
                    .remotes
                    .iter()
                    .filter(|r| r.transport.value == "streamable-http")
                    .map(|r| {
                        // Beneath the path, before a query or fragment.
                        let url = &r.url.value;
                        let end = url.find(['?', '#']).unwrap_or(url.len());
                        let (path, rest) = url.split_at(end);
                        format!("{}/{name}{rest}", path.trim_end_matches('/'))
                    })
                    .collect();
                let mut group = json!({"name": name, "tools": tools});
                if !urls.is_empty() {
                    group["urls"] = json!(urls);
                }
                group
            })
            .collect()
    }

    /// `$schema`, name, version, description, title, website and repository,
    /// which the registry entry and the card share.
    fn identity(&self, schema_key: &str, schema: &str) -> Map<String, Value> {
        let mut object = Map::new();
        object.insert(schema_key.into(), json!(schema));
        object.insert("name".into(), json!(self.table.name.value));
        if let Some(title) = &self.table.title {
            object.insert("title".into(), json!(title.value));
        }
        object.insert("description".into(), json!(self.description));
        object.insert("version".into(), json!(self.package.version));
        if let Some(url) = &self.package.homepage {
            object.insert("websiteUrl".into(), json!(url));
        }
        if let Some((url, source)) = self
            .package
            .repository
            .as_ref()
            .and_then(|url| Some((url, repository_source(url)?)))
        {
            object.insert("repository".into(), json!({"url": url, "source": source}));
        }
        object
    }

    fn add_remotes(&self, object: &mut Map<String, Value>, card: bool) {
        if self.table.remotes.is_empty() {
            return;
        }
        let remotes = self
            .table
            .remotes
            .iter()
            .map(|r| {
                let mut remote = json!({"type": r.transport.value, "url": r.url.value});
                if card && !r.protocol_versions.is_empty() {
                    remote["supportedProtocolVersions"] = json!(r.protocol_versions);
                }
                remote
            })
            .collect();
        object.insert("remotes".into(), Value::Array(remotes));
    }

    fn bundle(&self, tools: &[&ToolMetadata]) -> Value {
        let bin = self
            .table
            .bin
            .as_ref()
            .map_or(self.package.name.as_str(), |b| b.value.as_str());
        let exe = if self.package.target_os == "windows" {
            format!("{bin}.exe")
        } else {
            bin.to_owned()
        };
        let mut args = Vec::new();
        let mut user_config = Map::new();
        for argument in &self.table.arguments {
            argument.bundle(&mut args, &mut user_config);
        }
        let mut env = Map::new();
        for variable in &self.table.env {
            variable.bundle(&mut env, &mut user_config);
        }
        let mut manifest = json!({
            "manifest_version": BUNDLE_MANIFEST_VERSION,
            "name": self.package.name,
            "version": self.package.version,
            "description": self.description,
            "author": {"name": self.author},
            "server": {
                "type": "binary",
                "entry_point": format!("server/{exe}"),
                "mcp_config": {
                    "command": format!("${{__dirname}}/server/{exe}"),
                    "args": args,
                    "env": env,
                },
            },
            "tools": tools.iter().map(|t| json!({"name": t.name, "description": t.description})).collect::<Vec<_>>(),
        });
        // A bundle's platforms are these three; a binary for another OS is
        // bundled without the claim.
        if let Some(platform) = bundle_platform(&self.package.target_os) {
            manifest["compatibility"] = json!({"platforms": [platform]});
        }
        if let Some(title) = &self.table.title {
            manifest["display_name"] = json!(title.value);
        }
        if !user_config.is_empty() {
            manifest["user_config"] = Value::Object(user_config);
        }
        if let Some(license) = &self.package.license {
            manifest["license"] = json!(license);
        }
        if let Some(url) = &self.package.homepage {
            manifest["homepage"] = json!(url);
        }
        if let Some(url) = &self.package.repository {
            manifest["repository"] = json!({"type": "git", "url": url});
        }
        manifest
    }
}

/// `Name` of `Name <email>`.
fn author_name(author: &str) -> String {
    author.split('<').next().unwrap_or(author).trim().to_owned()
}

/// The registry's `source` of an http(s) repository URL: its host's name
/// without its top-level domain (`github` for github.com). None for other
/// URLs (`git@host:…` is no URL the registry takes).
fn repository_source(url: &str) -> Option<String> {
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))?;
    let host = rest
        .split(['/', ':', '?', '#'])
        .next()
        .unwrap_or_default()
        .trim_start_matches("www.");
    let name = host.rsplit_once('.').map_or(host, |(name, _)| name);
    (!name.is_empty()).then(|| name.to_owned())
}

/// A bundle's platform name of a Rust target OS, when it has one.
fn bundle_platform(os: &str) -> Option<&'static str> {
    match os {
        "linux" => Some("linux"),
        "macos" => Some("darwin"),
        "windows" => Some("win32"),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
