//! The tool metadata format, as toolmetadata-core has it, and loading it
//! from TOML and JSON (YAML with the feature `yaml`) with every check of the
//! format.
//!
//! One file describes one tool; the tool name is the file stem. The format is the
//! one of the Go package `toolmetadata`, so the same files drive a Go server and a
//! Rust one, and it is stricter where Go silently accepts a mistake: every
//! problem is a [`Diagnostic`](crate::diagnostic::Diagnostic) with a stable
//! code, a position and, where one fits, a suggestion.

pub use toolmetadata_core::metadata::*;

mod check;
mod json;
pub(crate) mod keys;
mod load;
// Naming rules the build script shares with the checks; not user API.
#[doc(hidden)]
pub mod names;
#[cfg(feature = "pattern-check")]
pub(crate) mod pattern;
pub(crate) mod read;
mod report;
mod toml;
mod tree;
mod uri;
#[cfg(feature = "yaml")]
mod yaml;

pub use load::{Format, Load, Loaded, Loader};
// What `toolmetadata-build` shares with the loader (finding tool files,
// naming tools, the YAML feature's help); not user API.
#[doc(hidden)]
pub use load::{
    NESTED_SEARCH_ENTRIES, ToolFiles, YAML_FEATURE_HELP, is_yaml, tool_files, tool_name,
};
