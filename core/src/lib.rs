//! The part of [toolmetadata](https://docs.rs/toolmetadata) below the MCP
//! server: the tool metadata format, argument decoding, results, questions
//! for the person, and the [`Context`] a handler receives.
//!
//! Use it through `toolmetadata`, which re-exports all of it beside the
//! server; a build script gets it through `toolmetadata-build`. It holds no
//! rmcp, tokio or HTTP, so that it compiles beside them rather than after
//! them, and a build script compiles nothing of the server.
//!
//! - [`args`]: [`args::FromArg`] for your own parameter types, and the argument
//!   errors a call can end with.
//! - [`metadata`]: the format itself (loading it, with every check of the
//!   build, is toolmetadata-load's, and `toolmetadata`'s with its feature
//!   `load`).
//! - [`ToolOutput`], [`ToolError`] and [`ToolResult`]: what a handler returns.
//! - [`Context`]: what a handler knows of its call and how it talks back; a
//!   server plugs itself in behind it ([`seam`]), and without one a context
//!   is a call no client can cancel, follow or answer.

#![cfg_attr(docsrs, feature(doc_cfg))]
pub mod args;
pub mod ask;
mod boxed;
mod call_future;
#[doc(hidden)]
pub mod codegen;
mod confirm;
mod confirm_plan;
mod context;
pub mod fingerprint;
mod log_level;
pub mod metadata;
pub mod profile;
mod result;
pub mod roots;
pub mod sampling;
#[doc(hidden)]
pub mod seam;
mod text;
mod tool_set;

pub use boxed::BoxFuture;
pub use call_future::CallOutcome;
pub use context::{ClientCapability, Context};
pub use log_level::LogLevel;
pub use metadata::ToolMetadata;
pub use result::{Content, Failure, IntoToolOutput, ToolError, ToolOutput, ToolResult};
pub use tool_set::ToolSet;
// The "did you mean" of the format's diagnostics and the loader's other
// text helpers, for toolmetadata-load and the build script; not user API.
#[doc(hidden)]
pub use text::{closest, exact_integer, shorten};
