//! MCP tools described by metadata files: the format, the arguments and results
//! of generated handlers, and the server that serves them.
//!
//! A `build.rs` calls `toolmetadata-build` to turn a directory of metadata files
//! into Rust: an argument struct per tool and a `Tools` trait with one method
//! per tool. What you write and call:
//!
//! - [`include_tools!`] brings the generated code into a module.
//! - Each handler method receives its argument struct and a [`Context`] (the
//!   call's cancellation, progress, the request and, with the feature
//!   `server`, questions for the person), and returns a [`ToolResult`]: a
//!   [`ToolOutput`] (text, JSON, [`Content`] blocks, structured content) or a
//!   [`ToolError`] (any `std::error::Error` converts with `?`).
//! - The generated `tool_set(handler)` gives a [`ToolSet`], which
//!   [`server::Server`] serves on stdio or Streamable HTTP (feature `server`,
//!   on by default), alone or mounted in an rmcp handler of your own
//!   ([`server::Server::mount`]), or whose tools you call yourself with
//!   [`ToolSet::call`].
//! - [`args`]: [`args::FromArg`] for your own parameter types, and the argument
//!   errors a call can end with.
//! - [`metadata`]: the format itself; with the feature `load`, loading tools
//!   at run time (from a database, an API) with every check of the build, and
//!   `Diagnostic`, which renders a problem like rustc.
//!
//! # The tutorial
//!
//! A tool file, the build script that turns it into Rust, the handler, and the
//! server. These are the files of the repository's crate `tests/tutorial`,
//! which is built and tested with the workspace (a test checks that each
//! block here is its file; `build.rs` output cannot be compiled in a doctest).
//! The crate depends on `toolmetadata` with the features `server` and
//! `http`, on `tokio` with `rt-multi-thread` and `macros`, and builds with
//! `toolmetadata-build`.
//!
//! <!-- file: tests/tutorial/tools/search_notes.toml -->
//! ```toml
//! description = "Search the notes for a word"
//! readOnly = true
//!
//! [[parameters]]
//! name = "query"
//! type = "string"
//! description = "The word to look for"
//! required = true
//! minLength = 1
//!
//! [[parameters]]
//! name = "limit"
//! type = "int"
//! description = "At most this many notes"
//! minimum = 1
//! maximum = 50
//! default = 10
//! ```
//!
//! <!-- file: tests/tutorial/build.rs -->
//! ```rust,ignore
//! fn main() -> Result<(), toolmetadata_build::Error> {
//!     toolmetadata_build::compile("tools")
//! }
//! ```
//!
//! <!-- file: tests/tutorial/src/lib.rs -->
//! ```rust,ignore
//! //! The tutorial's tools: the code generated from `tools/`, and the handler
//! //! that implements it.
//!
//! use toolmetadata::{Context, ToolResult};
//!
//! /// The code `build.rs` generated from `tools/`.
//! pub mod tools {
//!     toolmetadata::include_tools!();
//! }
//!
//! const NOTES: &[&str] = &["buy milk", "call Ada", "milk the cow"];
//!
//! /// The tools' handler: one method per tool file.
//! pub struct Notes;
//!
//! impl tools::Tools for Notes {
//!     async fn search_notes(&self, args: tools::SearchNotesArgs, _cx: Context) -> ToolResult {
//!         let hits: Vec<&str> = NOTES
//!             .iter()
//!             .copied()
//!             .filter(|note| note.contains(args.query.as_str()))
//!             .take(args.limit as usize)
//!             .collect();
//!         Ok(hits.join("\n").into())
//!     }
//!
//!     async fn archive_note(&self, args: tools::ArchiveNoteArgs, _cx: Context) -> ToolResult {
//!         // Runs only once the person said yes to the question of `[confirm]`.
//!         Ok(format!("archived \"{}\"", args.note).into())
//!     }
//!
//!     async fn note_stats(
//!         &self,
//!         _args: tools::NoteStatsArgs,
//!         _cx: Context,
//!     ) -> ToolResult<tools::NoteStatsOutput> {
//!         // The typed output of `[[output]]`: a field without `required = true`
//!         // is an `Option`.
//!         Ok(tools::NoteStatsOutput {
//!             count: NOTES.len() as i64,
//!             longest: NOTES
//!                 .iter()
//!                 .max_by_key(|note| note.len())
//!                 .map(|note| note.to_string()),
//!         })
//!     }
//!
//!     async fn count_words(&self, _args: tools::CountWordsArgs, _cx: Context) -> ToolResult {
//!         let words: usize = NOTES
//!             .iter()
//!             .map(|note| note.split_whitespace().count())
//!             .sum();
//!         Ok(format!("{words} words").into())
//!     }
//! }
//! ```
//!
//! <!-- file: tests/tutorial/src/main.rs -->
//! ```rust,ignore
//! use std::io::IsTerminal;
//!
//! use notes::{Notes, tools};
//! use toolmetadata::server::{HttpOptions, Server};
//! use tracing_subscriber::filter::Targets;
//! use tracing_subscriber::prelude::*;
//!
//! #[tokio::main]
//! async fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     // The log goes to stderr (on stdio, stdout is the protocol), in colour
//!     // only on a terminal: `RUST_LOG`, else the library's default (where it
//!     // listens, a line per request, errors, handler panics).
//!     let filter: Targets = toolmetadata::server::log_filter().parse()?;
//!     let log = tracing_subscriber::fmt::layer()
//!         .with_writer(std::io::stderr)
//!         .with_ansi(std::io::stderr().is_terminal());
//!     tracing_subscriber::registry().with(log).with(filter).init();
//!     let server = Server::builder().tool_set(tools::tool_set(Notes)).build()?;
//!     // `--http ADDR` (or `--http=ADDR`) serves Streamable HTTP at `/mcp`;
//!     // stdio otherwise.
//!     match http_address(std::env::args())? {
//!         None => server.serve_stdio().await?,
//!         Some(addr) => {
//!             let http = server.bind_http(HttpOptions::default().addr(addr)).await?;
//!             eprintln!("listening on http://{}/mcp", http.local_addr()?);
//!             http.run().await?;
//!         }
//!     }
//!     Ok(())
//! }
//!
//! /// The address of `--http ADDR` or `--http=ADDR`, if given.
//! fn http_address(
//!     mut args: impl Iterator<Item = String>,
//! ) -> Result<Option<std::net::SocketAddr>, String> {
//!     while let Some(arg) = args.next() {
//!         let value = match arg.strip_prefix("--http") {
//!             Some("") => args.next(),
//!             Some(rest) if rest.starts_with('=') => Some(rest[1..].to_owned()),
//!             _ => continue,
//!         };
//!         let value = value.ok_or("--http needs an address, such as 127.0.0.1:8080")?;
//!         return value.parse().map(Some).map_err(|e| {
//!             format!("--http {value}: {e}; expected an address such as 127.0.0.1:8080")
//!         });
//!     }
//!     Ok(None)
//! }
//! ```

#![cfg_attr(docsrs, feature(doc_cfg))]
// The crate's page is written for a build with the server: without it (the
// format and loading alone) the server it links to is not there.
#![cfg_attr(not(feature = "server"), allow(rustdoc::broken_intra_doc_links))]

// The layers below the server, re-exported whole: what a handler and the
// generated code use is the same at `toolmetadata::` as at
// `toolmetadata_core::`, and with `load` the loader is at `toolmetadata::`
// as at `toolmetadata_load::` (its `metadata` is core's with the loader).
#[doc(hidden)]
pub use toolmetadata_core::codegen;
#[doc(inline)]
pub use toolmetadata_core::fingerprint;
#[cfg(not(feature = "load"))]
#[doc(inline)]
pub use toolmetadata_core::metadata;
#[doc(inline)]
pub use toolmetadata_core::{args, ask, profile, roots, sampling};
#[cfg(feature = "load")]
#[doc(inline)]
pub use toolmetadata_load::{diagnostic, metadata};

#[cfg(feature = "server")]
pub mod server;
#[cfg(feature = "otlp")]
pub mod telemetry;
#[cfg(feature = "testing")]
pub mod testing;

#[cfg(feature = "server")]
pub use server::ContextExt;
pub use toolmetadata_core::{
    CallOutcome, ClientCapability, Content, Context, Failure, IntoToolOutput, LogLevel, ToolError,
    ToolMetadata, ToolOutput, ToolResult, ToolSet,
};
#[cfg(feature = "load")]
pub use toolmetadata_load::{Diagnostic, Diagnostics, Loader, Rule, Severity, SourceFile, Span};

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
