//! The tool metadata format: data types, the `tools/list` entry, and (feature
//! `load`) loading from TOML and JSON with every check of the format.
//!
//! One file describes one tool; the tool name is the file stem. The format is the
//! one of the Go package `toolmetadata`, so the same files drive a Go server and a
//! Rust one, and it is stricter where Go silently accepts a mistake: every
//! problem is a [`Diagnostic`](crate::diagnostic::Diagnostic) with a stable
//! code, a position and, where one fits, a suggestion.
//!

// Loading and checking: only a build script, or a server that loads tools at
// run time, compiles the parsers and the diagnostics' renderer.
#[cfg(feature = "load")]
mod check;
#[cfg(feature = "load")]
mod json;
#[cfg(feature = "load")]
mod load;
// Naming rules the build script shares with the checks; not user API.
pub mod group;
#[cfg(feature = "load")]
pub(crate) mod keys;
#[cfg(feature = "load")]
#[doc(hidden)]
pub mod names;
pub mod output_text;
pub(crate) mod pattern;
mod policy;
#[cfg(feature = "load")]
pub(crate) mod read;
mod render;
#[cfg(feature = "load")]
mod report;
#[cfg(feature = "load")]
mod toml;
#[cfg(feature = "load")]
mod tree;
mod types;
#[cfg(feature = "load")]
mod uri;
mod version;
#[cfg(all(feature = "load", feature = "yaml"))]
mod yaml;

#[cfg(feature = "load")]
pub use load::{Format, Loaded, Loader};
// What `toolmetadata-build` shares with the loader (finding tool files,
// naming tools, the YAML feature's help); not user API.
#[cfg(feature = "load")]
#[doc(hidden)]
pub use load::{
    NESTED_SEARCH_ENTRIES, ToolFiles, YAML_FEATURE_HELP, is_yaml, tool_files, tool_name,
};
pub use types::{
    Confirm, Constraints, DeclaredFailure, FailureClass, Hints, Icon, Limits, LintLevel, Literal,
    Number, ParamType, Rate, ScalarType, Source, TaskSupport, Theme, ToolMetadata, ToolParameter,
    UiMeta, UnknownType, Unsupported, Visibility,
};
pub use version::Version;
// The parts of a `[confirm]` message, for the build script's check and the
// server's wording of the question; not user API.
#[doc(hidden)]
pub use types::{MessagePart, message_parts};
