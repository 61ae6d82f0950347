//! MCP tools described by metadata files: the format, the arguments and results
//! of generated handlers, and the server that serves them.
//!
//! A `build.rs` calls `toolmetadata-build` to turn a directory of metadata files
//! into Rust: an argument struct per tool and a `Tools` trait with one method
//! per tool. What you write and call:
//!
//! - [`include_tools!`] brings the generated code into a module.
//! - Each handler method receives its argument struct and a [`Context`] (the
//!   call's cancellation and progress), and returns a [`ToolResult`]: a
//!   [`ToolOutput`] (text, JSON, [`Content`] blocks, structured content) or a
//!   [`ToolError`] (any `std::error::Error` converts with `?`).
//! - The generated `tool_set(handler)` gives a [`ToolSet`], which
//!   [`server::Server`] serves on stdio or Streamable HTTP (feature `server`,
//!   on by default), or whose tools you call yourself with [`ToolSet::call`].
//! - [`args`]: [`args::FromArg`] for your own parameter types, and the argument
//!   errors a call can end with.
//! - [`metadata`]: the format itself; with the feature `load`, loading tools
//!   at run time (from a database, an API) with every check of the build, and
//!   `Diagnostic`, which renders a problem like rustc.

pub mod args;
#[cfg(feature = "server")]
pub mod ask;
#[doc(hidden)]
pub mod codegen;
mod context;
#[cfg(feature = "load")]
pub mod diagnostic;
pub mod metadata;
mod result;
#[cfg(feature = "server")]
pub mod server;
mod text;
mod tool_set;

pub use context::Context;
#[cfg(feature = "load")]
pub use diagnostic::{Diagnostic, Diagnostics, Rule, Severity, SourceFile, Span};
#[cfg(feature = "load")]
pub use metadata::Loader;
pub use metadata::ToolMetadata;
pub use result::{Content, IntoToolOutput, ToolError, ToolOutput, ToolResult};
pub use tool_set::{BoxFuture, CallFuture, CallOutcome, ConfirmEntry, ToolEntry, ToolSet};

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
