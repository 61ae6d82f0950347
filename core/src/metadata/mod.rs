//! The tool metadata format: data types and the `tools/list` entry (loading
//! from TOML, JSON and YAML with every check of the format is
//! toolmetadata-load's).
//!
//! One file describes one tool; the tool name is the file stem. The format is the
//! one of the Go package `toolmetadata`, so the same files drive a Go server and a
//! Rust one, and it is stricter where Go silently accepts a mistake: every
//! problem the loader finds is a diagnostic with a stable code, a position
//! and, where one fits, a suggestion.
//!

// Loading and checking are toolmetadata-load's (re-exported by
// `toolmetadata` with its feature `load`): a build script and a server then
// compile this crate with the same features, once in a debug build.

// Naming rules the build script shares with the checks; not user API.
pub mod group;
pub mod output_text;
// Compiled patterns, only for a build that matches them.
#[cfg(feature = "regex")]
pub(crate) mod pattern;
mod policy;
mod render;
mod types;
mod version;

pub use types::{
    Confirm, Constraints, DeclaredFailure, FailureClass, Hints, Icon, Limits, LintLevel, Literal,
    Number, ParamType, Rate, ScalarType, Source, TaskSupport, Theme, ToolMetadata, ToolParameter,
    UiMeta, UnknownType, Unsupported, Visibility,
};
pub use version::Version;
// A float as TOML and JSON write it, for the loader's diagnostics; not user
// API.
#[doc(hidden)]
pub use types::format_float;
// The parts of a `[confirm]` message, for the build script's check and the
// server's wording of the question; not user API.
#[doc(hidden)]
pub use types::{MessagePart, message_parts};
