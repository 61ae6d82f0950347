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

mod check;
mod emit;
mod load;
mod model;
mod write;

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

pub use toolmetadata::Severity;
use toolmetadata::{Diagnostic, Diagnostics};

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
///     .param_type("get_user", "user_id", "::toolmetadata::args::Id")
///     .compile()
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct Builder {
    dirs: Vec<PathBuf>,
    files: Vec<PathBuf>,
    module: String,
    strict: bool,
    unknown_keys: Severity,
    custom_types: BTreeMap<(String, String), String>,
    out_dir: Option<PathBuf>,
    emit_cargo: bool,
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
            dirs: Vec::new(),
            files: Vec::new(),
            module: "tools".to_owned(),
            strict: false,
            unknown_keys: Severity::Error,
            custom_types: BTreeMap::new(),
            out_dir: None,
            emit_cargo: true,
        }
    }

    /// Adds the `.toml` and `.json` files directly in `dir` (sorted by name).
    pub fn dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.dirs.push(dir.as_ref().to_owned());
        self
    }

    /// Adds one metadata file.
    pub fn file(mut self, file: impl AsRef<Path>) -> Self {
        self.files.push(file.as_ref().to_owned());
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

    /// Writes into `dir` instead of `$OUT_DIR` (for tools and tests that run
    /// outside a build script).
    pub fn out_dir(mut self, dir: impl AsRef<Path>) -> Self {
        self.out_dir = Some(dir.as_ref().to_owned());
        self
    }

    /// Whether to print `cargo:rerun-if-changed` and `cargo:warning` lines
    /// (default `true`; turn off outside build scripts).
    pub fn emit_cargo_directives(mut self, emit: bool) -> Self {
        self.emit_cargo = emit;
        self
    }

    /// Loads, checks and generates; the generated source, without writing it.
    pub fn generate(&self) -> Result<String, Error> {
        self.run(false).map(|(source, _)| source)
    }

    /// Loads, checks, generates and writes `OUT_DIR/{module}.rs` (only if its
    /// bytes change). Every error of every file is reported at once.
    pub fn compile(&self) -> Result<(), Error> {
        self.run(true).map(|_| ())
    }

    fn run(&self, write: bool) -> Result<(String, Option<PathBuf>), Error> {
        if !valid_module_name(&self.module) {
            return Err(Error::config(format!(
                "module name `{}` must be a file stem of letters, digits and `_`",
                self.module
            )));
        }
        let loaded = load::load(&self.dirs, &self.files, self.unknown_keys)?;
        if self.emit_cargo {
            for path in &loaded.watched {
                println!("cargo:rerun-if-changed={}", path.display());
            }
            for warning in &loaded.warnings {
                for line in warning.lines() {
                    println!("cargo:warning={line}");
                }
            }
        }
        let mut errors = loaded.errors;
        errors.extend(check::clashes(&loaded.tools));
        if !errors.is_empty() {
            return Err(Error::metadata(errors));
        }
        self.check_custom_types(&loaded.tools)?;
        let module = model::build(&loaded.tools, &self.custom_types, self.strict)
            .map_err(Error::metadata)?;
        let source =
            write::render(emit::module(&module), &module.sources).map_err(Error::config)?;
        if !write {
            return Ok((source, None));
        }
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
        Ok((source, Some(path)))
    }

    fn check_custom_types(&self, tools: &[load::LoadedTool]) -> Result<(), Error> {
        for ((tool, param), ty) in &self.custom_types {
            let Some(found) = tools.iter().find(|t| &t.tool.name == tool) else {
                return Err(Error::config(format!(
                    "param_type(\"{tool}\", \"{param}\", \"{ty}\"): there is no tool `{tool}`"
                )));
            };
            if found.tool.parameter(param).is_none() {
                let names: Vec<&str> = found
                    .tool
                    .parameters
                    .iter()
                    .map(|p| p.name.as_str())
                    .collect();
                return Err(Error::config(format!(
                    "param_type(\"{tool}\", \"{param}\", \"{ty}\"): the tool `{tool}` has no parameter `{param}` (its parameters: {})",
                    names.join(", ")
                )));
            }
            if syn::parse_str::<syn::Type>(ty).is_err() {
                return Err(Error::config(format!(
                    "param_type(\"{tool}\", \"{param}\", \"{ty}\"): `{ty}` is not a Rust type"
                )));
            }
        }
        Ok(())
    }
}

fn valid_module_name(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Why generating failed: bad metadata (every diagnostic of every file), a file
/// that could not be read or written, or a builder option that does not fit.
///
/// `Display` and `Debug` print the same rustc-style text, so both
/// `fn main() -> Result<(), Error>` and `.unwrap()` read well.
pub struct Error {
    kind: ErrorKind,
}

enum ErrorKind {
    Metadata(Diagnostics),
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    Config(String),
}

impl Error {
    fn metadata(errors: Vec<Diagnostic>) -> Self {
        Error {
            kind: ErrorKind::Metadata(Diagnostics::new(errors)),
        }
    }

    fn io(path: &Path, error: std::io::Error) -> Self {
        Error {
            kind: ErrorKind::Io {
                path: path.to_owned(),
                error,
            },
        }
    }

    fn config(message: impl Into<String>) -> Self {
        Error {
            kind: ErrorKind::Config(message.into()),
        }
    }

    /// The diagnostics, when the metadata was bad.
    pub fn diagnostics(&self) -> Option<&Diagnostics> {
        match &self.kind {
            ErrorKind::Metadata(d) => Some(d),
            _ => None,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ErrorKind::Metadata(d) => f.write_str(&d.render(false)),
            ErrorKind::Io { path, error } => {
                write!(f, "error: cannot read or write {}: {error}", path.display())
            }
            ErrorKind::Config(message) => write!(f, "error: {message}"),
        }
    }
}

impl fmt::Debug for Error {
    /// The same text as `Display`: `main` returning `Err` prints it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f)?;
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for Error {}
