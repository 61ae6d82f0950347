//! MCP tools described by metadata files: the format, and what the code that
//! `toolmetadata-build` generates calls at run time.
//!
//! - [`metadata`]: the tool metadata format (TOML and JSON, as the Go package
//!   `toolmetadata` reads it), loaded with every check and rendered as the
//!   `tools/list` entry. Usable at run time to load tools from any source.
//! - [`Diagnostic`]: what is wrong in a metadata file, rendered like rustc.

pub mod diagnostic;
pub mod metadata;

pub use diagnostic::{Diagnostic, Diagnostics, Rule, Severity, SourceFile, Span};
pub use metadata::{Loader, ToolMetadata};

#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;
