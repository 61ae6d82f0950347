//! Loading and checking tool metadata files: TOML and JSON (YAML with the
//! feature `yaml`), every check of the format, and [`Diagnostic`]s rendered
//! like rustc's (file, line, column, the source line and a suggestion).
//!
//! Use it through `toolmetadata` (feature `load`, which re-exports it at the
//! same paths) to load tools at run time from a database or an API; a build
//! script uses it through `toolmetadata-build`. The format's types are
//! toolmetadata-core's, re-exported in [`metadata`] beside the loader.
//!
//! ```
//! use toolmetadata_load::metadata::{Load, ToolMetadata};
//!
//! let tool = ToolMetadata::from_toml_str("get_user", "description = \"Look up a user\"\n")?;
//! assert_eq!(tool.name, "get_user");
//! # Ok::<(), toolmetadata_load::Diagnostics>(())
//! ```

#![cfg_attr(docsrs, feature(doc_cfg))]
pub mod diagnostic;
pub mod metadata;

pub use diagnostic::{Diagnostic, Diagnostics, Rule, Severity, SourceFile, Span};
pub use metadata::{Load, Loader};
