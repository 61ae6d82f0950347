//! Generate typed MCP tool handlers from tool metadata files, in `build.rs`.
//!
//! Each `.toml` or `.json` file of a directory describes one tool (see the
//! `toolmetadata` crate's `metadata` module for the format). At build time this
//! crate checks every file, failing the build with rustc-style diagnostics on bad
//! metadata, and generates into `OUT_DIR`:
//!
//! - per tool, an argument struct (`GetUserArgs`) decoded from the call's
//!   arguments with every constraint checked, an enum per `enum` parameter, and an
//!   output struct (`GetUserOutput`) for tools with `[[output]]`;
//! - a trait `Tools` with one method per tool, so a tool added to the metadata is
//!   a compile error until it is handled;
//! - `TOOL_ENTRIES`, the `tools/list` entries rendered at build time, and
//!   `tool_set(handler)`, the tool set a server serves.
//!
//! ```no_run
//! // build.rs
//! fn main() -> Result<(), toolmetadata_build::Error> {
//!     toolmetadata_build::compile("tools")
//! }
//! ```
//!
//! ```text
//! // src/main.rs
//! mod tools {
//!     toolmetadata::include_tools!();
//! }
//! ```
//!
//! With the `cli` feature this crate also builds the `toolmetadata` command:
//! `toolmetadata check PATH…` prints the diagnostics of metadata files, and
//! `toolmetadata list PATH…` their `tools/list` entries.

#![cfg_attr(docsrs, feature(doc_cfg))]
mod check;
mod checked;
mod emit;
mod error;
mod features;
mod lints;
mod load;
mod locate;
pub mod lock;
pub mod manifest;
mod model;
mod profiles;
mod quality;
#[cfg(feature = "tokens")]
pub mod tokens;
mod write;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub use checked::Checked;
pub use error::Error;
pub use toolmetadata_core::profile::Profile;
pub use toolmetadata_load::Severity;
use toolmetadata_load::metadata::ToolMetadata;
use toolmetadata_load::{Diagnostic, Diagnostics};

/// Generates `OUT_DIR/tools.rs` from the metadata files of `dir`, with the
/// default options: the one call a `build.rs` needs.
///
/// ```no_run
/// fn main() -> Result<(), toolmetadata_build::Error> {
///     toolmetadata_build::compile("tools")
/// }
/// ```
pub fn compile(dir: impl AsRef<Path>) -> Result<(), Error> {
    Builder::new().dir(dir).compile()
}

/// Options for generating a tool set; [`compile`] uses the defaults.
///
/// ```no_run
/// # fn main() -> Result<(), toolmetadata_build::Error> {
/// toolmetadata_build::Builder::new()
///     .dir("tools")
///     .file("extra/search.json")
///     .module("tools")
///     .strict_arguments(false)
///     .unknown_keys(toolmetadata_build::Severity::Error)
///     .client_names(Some(toolmetadata_build::Severity::Warning))
///     .param_type("get_user", "user_id", "::toolmetadata::args::Id")
///     .compile()
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct Builder {
    sources: Vec<load::Source>,
    module: String,
    strict: bool,
    unknown_keys: Severity,
    client_names: Option<Severity>,
    custom_types: BTreeMap<(String, String), String>,
    out_dir: Option<PathBuf>,
    emit_cargo: bool,
    lock: Option<PathBuf>,
    lock_changes: Severity,
    locked: Option<bool>,
    manifests: Option<PathBuf>,
    targets: profiles::Targets,
    /// The quality check's findings, and how loud: warnings by default.
    quality: Option<Severity>,
}

impl Default for Builder {
    fn default() -> Self {
        Self::new()
    }
}

impl Builder {
    /// No files yet; module `tools`, lenient arguments, unknown keys are errors.
    pub fn new() -> Self {
        Builder {
            sources: Vec::new(),
            module: "tools".to_owned(),
            strict: false,
            unknown_keys: Severity::Error,
            client_names: Some(Severity::Warning),
            custom_types: BTreeMap::new(),
            out_dir: None,
            emit_cargo: true,
            lock: None,
            lock_changes: Severity::Error,
            locked: None,
            manifests: None,
            targets: profiles::Targets::default(),
            quality: Some(Severity::Warning),
        }
    }

    /// Adds the `.toml` and `.json` files directly in `dir` (sorted by name).
    pub fn dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.sources
            .push(load::Source::Dir(dir.as_ref().to_owned()));
        self
    }

    /// Adds one metadata file.
    pub fn file(mut self, file: impl AsRef<Path>) -> Self {
        self.sources
            .push(load::Source::File(file.as_ref().to_owned()));
        self
    }

    /// The generated file's name: `OUT_DIR/{module}.rs`, included with
    /// `toolmetadata::include_tools!("{module}")`. Default `tools`.
    pub fn module(mut self, module: impl Into<String>) -> Self {
        self.module = module.into();
        self
    }

    /// `true` turns off the lenient conversions of arguments (`"42"` for an
    /// integer, `"true"` for a boolean, …): only values of the schema's JSON type
    /// are accepted. Default `false`.
    pub fn strict_arguments(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// Whether an unknown key in a metadata file fails the build
    /// ([`Severity::Error`], the default) or is a `cargo:warning`.
    pub fn unknown_keys(mut self, severity: Severity) -> Self {
        self.unknown_keys = severity;
        self
    }

    /// What a tool name that MCP allows but OpenAI's and Anthropic's APIs
    /// refuse (anything but `^[a-zA-Z0-9_-]{1,64}$`, such as `api.v1.get-user`)
    /// is: a warning (`Some(Severity::Warning)`, the default), an error that
    /// fails the build (`Some(Severity::Error)`), or nothing (`None`), for a
    /// server whose clients all take MCP's wider names.
    pub fn client_names(mut self, severity: Option<Severity>) -> Self {
        self.client_names = severity;
        self
    }

    /// Gives parameter `param` of tool `tool` the Rust type `rust_type` (a path
    /// such as `crate::UserId`) instead of the one its metadata type maps to. The
    /// type implements `toolmetadata::args::FromArg` and receives the argument as
    /// the client sent it.
    pub fn param_type(
        mut self,
        tool: impl Into<String>,
        param: impl Into<String>,
        rust_type: impl Into<String>,
    ) -> Self {
        self.custom_types
            .insert((tool.into(), param.into()), rust_type.into());
        self
    }

    /// Keeps the catalog lock at `path` (such as `tools/tools.lock`): each
    /// tool's rendered entry and `toolVersion` as last accepted. A tool that
    /// changed since is let through only with the `toolVersion` bump its
    /// change needs (breaking: major; compatible: minor; wording: patch, as
    /// Cargo reads semver), else the build fails with a diagnostic that
    /// shows what changed and the version it needs ([`lock`] module). A
    /// missing lock is written; a lock whose changes were all bumped is
    /// rewritten (commit it). `toolmetadata lock --update` accepts any
    /// change as it is.
    pub fn lock(mut self, path: impl AsRef<Path>) -> Self {
        self.lock = Some(path.as_ref().to_owned());
        self
    }

    /// What a change without its bump is: an error that fails the build
    /// (the default) or a warning (the lock is then rewritten anyway).
    pub fn lock_changes(mut self, severity: Severity) -> Self {
        self.lock_changes = severity;
        self
    }

    /// `true` never writes the lock: any difference from it fails the
    /// build, as `cargo --locked` does for `Cargo.lock` (for CI). By default
    /// it is frozen when the environment variable `TOOLMETADATA_LOCKED` is
    /// set to anything but `0` or `false`.
    pub fn locked(mut self, locked: bool) -> Self {
        self.locked = Some(locked);
        self
    }

    /// Also generates the server's manifests (module [`manifest`]) from the
    /// `[package.metadata.mcp]` table of `cargo_toml` (the package's
    /// `Cargo.toml`), Cargo's `CARGO_PKG_*` variables and the tools, as
    /// string constants of the generated module's `manifests` module:
    /// `SERVER_JSON` (the MCP registry's `server.json`), `BUNDLE_MANIFEST`
    /// (an MCP bundle's `manifest.json`) and `SERVER_CARD` (the server
    /// card, for `HttpOptions::server_card`). A table that cannot make them
    /// fails the build with diagnostics located in `Cargo.toml`.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), toolmetadata_build::Error> {
    /// toolmetadata_build::Builder::new()
    ///     .dir("tools")
    ///     .manifests("Cargo.toml")
    ///     .compile()
    /// # }
    /// ```
    pub fn manifests(mut self, cargo_toml: impl AsRef<Path>) -> Self {
        self.manifests = Some(cargo_toml.as_ref().to_owned());
        self
    }

    /// Checks every tool against these provider profiles (module
    /// `toolmetadata::profile`): a tool whose definition a profile's
    /// provider would still refuse after export (a name hosts show as it
    /// is, a limit it exceeds), or that loses constraints on the way (bounds
    /// a strict grammar cannot carry, said in the description instead), gets
    /// a `provider-profile` diagnostic in its file naming the profile, the
    /// rule, its source and the fix. Warnings unless
    /// [`Builder::profile_severity`] says otherwise.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), toolmetadata_build::Error> {
    /// use toolmetadata_build::{Builder, Profile, Severity};
    /// Builder::new()
    ///     .dir("tools")
    ///     .profiles([Profile::OpenAiStrict, Profile::McpHosts])
    ///     .server_name("notes")
    ///     .profile_severity(Severity::Error)
    ///     .compile()
    /// # }
    /// ```
    pub fn profiles(mut self, profiles: impl IntoIterator<Item = Profile>) -> Self {
        self.targets.profiles.extend(profiles);
        self
    }

    /// Whether a profile's findings fail the build ([`Severity::Error`]) or
    /// are warnings (the default).
    pub fn profile_severity(mut self, severity: Severity) -> Self {
        self.targets.severity = Some(severity);
        self
    }

    /// How loud the quality check is: its findings as warnings
    /// (`Some(Severity::Warning)`, the default), as errors that fail the
    /// build (`Some(Severity::Error)`), or not at all (`None`). It finds a
    /// tool or parameter with no description or one that only repeats its
    /// name (`quality-description`), an `enum` described nowhere
    /// (`quality-enum`), a tool that says neither `readOnly = true` nor
    /// whether it is `destructive` (`quality-hints`), a destructive tool
    /// that asks no one (`quality-confirm`), and two tools with nearly the
    /// same description (`quality-duplicate`). A tool's `[lints]` sets the
    /// level of a rule for that tool alone (`quality-confirm = "allow"` for
    /// one whose handler asks); `toolmetadata check` runs the check too.
    pub fn quality(mut self, severity: Option<Severity>) -> Self {
        self.quality = severity;
        self
    }

    /// The server's name as hosts configure it, for the hosts' prefixed
    /// tool names (`mcp__<server>__<tool>` in 64 characters,
    /// [`Profile::McpHosts`]).
    pub fn server_name(mut self, name: impl Into<String>) -> Self {
        self.targets.server_name = Some(name.into());
        self
    }

    /// Writes into `dir` instead of `$OUT_DIR` (for tools and tests that run
    /// outside a build script).
    pub fn out_dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.out_dir = Some(dir.as_ref().to_owned());
        self
    }

    /// Whether to print `cargo:rerun-if-changed` and `cargo:warning` lines,
    /// and bad metadata's errors on stderr as soon as they are found (then
    /// the returned error's `Debug`, which `main` prints, is only their
    /// count); default `true`, turn off outside build scripts.
    pub fn emit_cargo_directives(mut self, emit: bool) -> Self {
        self.emit_cargo = emit;
        self
    }

    /// Loads and checks every file, with every check the build runs (those
    /// across files and of the generated names included), without generating:
    /// what `toolmetadata check` runs. `Err` only when a file or directory
    /// cannot be read or an option does not fit; bad metadata is in
    /// [`Checked::diagnostics`].
    pub fn check(&self) -> Result<Checked, Error> {
        let loaded = load::load(&self.sources, self.unknown_keys)?;
        let mut diagnostics = loaded.diagnostics;
        diagnostics.extend(check::across_files(
            &loaded.tools,
            &self.custom_types,
            self.client_names,
        )?);
        diagnostics.extend(self.targets.check(&loaded.tools));
        if let Some(severity) = self.quality {
            diagnostics.extend(quality::check(&loaded.tools, severity));
        }
        if let Some(features) = features::RuntimeFeatures::from_build_env() {
            diagnostics.extend(features.check(&loaded.tools));
        }
        Ok(Checked {
            tools: loaded.tools,
            files: loaded.files,
            diagnostics: Diagnostics::new(diagnostics),
            ignored: loaded.ignored,
            watched: loaded.watched,
            notes: Vec::new(),
        })
    }

    /// Loads, checks and generates; the generated source, without writing it.
    pub fn generate(&self) -> Result<String, Error> {
        self.run(false)
    }

    /// Loads, checks, generates and writes `OUT_DIR/{module}.rs` (only if its
    /// bytes change). Every error of every file is reported at once.
    pub fn compile(&self) -> Result<(), Error> {
        self.run(true).map(|_| ())
    }

    fn run(&self, write: bool) -> Result<String, Error> {
        if !valid_module_name(&self.module) {
            return Err(Error::config(format!(
                "module name `{}` must be a file stem of letters, digits and `_`",
                self.module
            )));
        }
        let mut checked = self.check()?;
        if !checked.has_errors() {
            self.apply_lock(&mut checked)?;
        }
        if self.emit_cargo {
            checked.print_cargo_directives();
            if self.lock.is_some() && self.locked.is_none() {
                println!("cargo:rerun-if-env-changed=TOOLMETADATA_LOCKED");
            }
            // Set by Cargo from toolmetadata's features (`features.rs`).
            println!("cargo:rerun-if-env-changed=DEP_TOOLMETADATA_FEATURES");
        }
        if checked.has_errors() {
            return Err(self.bad_metadata(checked.diagnostics));
        }
        let mut module = model::build(&checked.tools, &self.custom_types, self.strict);
        if let Some(cargo_toml) = &self.manifests {
            if self.emit_cargo {
                println!("cargo:rerun-if-changed={}", cargo_toml.display());
            }
            let text = std::fs::read_to_string(cargo_toml).map_err(|e| Error::io(cargo_toml, e))?;
            let manifests = manifest::Manifests::new(
                &manifest::Package::from_build_env(),
                cargo_toml,
                &text,
                checked.tools.iter().map(|t| &t.tool),
            )
            .map_err(|d| self.bad_metadata(d))?;
            module.manifests = Some(manifests);
        }
        let source = write::render(&module).map_err(Error::config)?;
        if write {
            let dir = match &self.out_dir {
                Some(dir) => dir.clone(),
                None => std::env::var_os("OUT_DIR")
                    .map(PathBuf::from)
                    .ok_or_else(|| {
                        Error::config(
                            "OUT_DIR is not set: call compile() from build.rs, or set Builder::out_dir",
                        )
                    })?,
            };
            let path = dir.join(format!("{}.rs", self.module));
            write::write_if_changed(&path, source.as_bytes()).map_err(|e| Error::io(&path, e))?;
        }
        Ok(source)
    }
}

impl Builder {
    /// The error of bad metadata: in a build script its errors are printed
    /// on stderr at once, first and alone, and `main`'s `Error: ` line adds
    /// only their count.
    fn bad_metadata(&self, diagnostics: toolmetadata_load::Diagnostics) -> Error {
        if self.emit_cargo {
            Error::metadata_shown(diagnostics)
        } else {
            Error::metadata(diagnostics)
        }
    }

    /// Checks the catalog of `checked` against the lock
    /// ([`Builder::lock`]), as `compile` does: its diagnostics join
    /// `checked`'s, the lock is written when it may be, and what the author
    /// should know of that is in [`Checked::notes`]. Nothing without a lock.
    ///
    /// # Errors
    ///
    /// A lock file that exists but cannot be read, or cannot be written.
    pub fn apply_lock(&self, checked: &mut Checked) -> Result<(), Error> {
        let Some(path) = &self.lock else {
            return Ok(());
        };
        if self.emit_cargo && building_a_dependency() {
            // A crate built from the registry, a git checkout or `cargo
            // package`'s copy: its author checked the lock; its sources
            // are not to be written, nor its build failed by a renderer
            // that changed since.
            return Ok(());
        }
        let text = match std::fs::read_to_string(path) {
            Ok(text) => Some(text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(Error::io(path, e)),
        };
        let frozen = self.locked.unwrap_or_else(|| {
            std::env::var("TOOLMETADATA_LOCKED")
                .is_ok_and(|v| !matches!(v.trim(), "" | "0" | "false"))
        });
        let outcome = lock::gate::check(
            path,
            text.as_deref(),
            &checked.tools,
            self.lock_changes,
            frozen,
        );
        checked
            .diagnostics
            .extend(Diagnostics::new(outcome.diagnostics));
        checked.watched.push(path.clone());
        if let Some(new) = outcome.rewrite {
            write::write_if_changed(path, new.as_bytes()).map_err(|e| Error::io(path, e))?;
        }
        if let Some(note) = outcome.note {
            checked.notes.push(note);
        }
        Ok(())
    }
}

/// Whether the build script runs for a crate that is not being worked on:
/// one from the registry, a git dependency, vendored sources or the copy
/// `cargo package` verifies.
fn building_a_dependency() -> bool {
    let Some(dir) = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from) else {
        return false;
    };
    let cargo_home = std::env::var_os("CARGO_HOME").map(PathBuf::from);
    let under_home = cargo_home.is_some_and(|home| dir.starts_with(home));
    let text = dir.to_string_lossy().replace('\\', "/");
    under_home
        || [
            "/registry/src/",
            "/git/checkouts/",
            "/target/package/",
            "/vendor/",
        ]
        .iter()
        .any(|part| text.contains(part))
}

/// One line of `toolmetadata list --format json-lines`: `{"file","tool",
/// "discoverable","keywords"}` for a tool, `{"file","errors"}` for a file with
/// errors (each `{"code","message","line","column"}`), the shape the
/// conformance corpus's expectations are written in.
pub fn json_lines_record<'a>(
    file: &str,
    outcome: Result<&ToolMetadata, impl IntoIterator<Item = &'a Diagnostic>>,
) -> serde_json::Value {
    match outcome {
        Ok(tool) => {
            let mut record = serde_json::json!({
                "file": file,
                "tool": tool.to_tools_list_entry(),
                "discoverable": tool.discoverable,
                "keywords": tool.keywords,
            });
            // Only when given, so that records of tools without scopes keep
            // the shape the corpus was written in.
            if !tool.scopes.is_empty() {
                record["scopes"] = serde_json::json!(tool.scopes);
            }
            record
        }
        Err(errors) => serde_json::json!({
            "file": file,
            "errors": errors.into_iter().map(|d| {
                let (line, column) = d.line_column().unzip();
                serde_json::json!({
                    "code": d.rule().code(),
                    "message": d.message(),
                    "line": line,
                    "column": column,
                })
            }).collect::<Vec<_>>(),
        }),
    }
}

fn valid_module_name(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}
