//! MCP tools described by metadata files: the format, and what the code that
//! `toolmetadata-build` generates calls at run time.
//!
//! - [`metadata`]: the tool metadata format (TOML and JSON, as the Go package
//!   `toolmetadata` reads it), loaded with every check and rendered as the
//!   `tools/list` entry. Usable at run time to load tools from any source.
//! - [`args`]: decoding `tools/call` arguments, with lenient conversions and
//!   errors that name every bad argument.
//! - [`ToolResult`], [`ToolOutput`], [`ToolError`]: what handlers return.
//! - [`include_tools!`]: brings the generated code into a module.
//! - [`Diagnostic`]: what is wrong in a metadata file, rendered like rustc.

pub mod args;
mod context;
pub mod diagnostic;
pub mod dispatch;
pub mod metadata;
mod result;
#[cfg(feature = "server")]
pub mod server;

pub use context::Context;
pub use diagnostic::{Diagnostic, Diagnostics, Rule, Severity, SourceFile, Span};
pub use metadata::{Loader, ToolMetadata};
pub use result::{
    Content, IntoJson, IntoToolOutput, Structured, ToolError, ToolOutput, ToolResult, put_field,
};

/// The `serde_json` this crate uses, for generated code.
pub use serde_json;

/// Includes the code `toolmetadata-build` generated into `OUT_DIR`, like
/// `tonic::include_proto!`.
///
/// `include_tools!()` includes `tools.rs` (the default module name);
/// `include_tools!("admin")` includes `admin.rs`.
///
/// ```text
/// pub mod tools {
///     toolmetadata::include_tools!();
/// }
/// ```
#[macro_export]
macro_rules! include_tools {
    () => {
        include!(concat!(env!("OUT_DIR"), "/tools.rs"));
    };
    ($module:literal) => {
        include!(concat!(env!("OUT_DIR"), "/", $module, ".rs"));
    };
}
