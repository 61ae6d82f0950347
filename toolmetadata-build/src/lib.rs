//! Generate typed MCP tool handlers from tool metadata files, in `build.rs`.
//!
//! With the `cli` feature this crate also builds the `toolmetadata` command-line
//! tool: `toolmetadata check PATH…` prints the diagnostics of metadata files the
//! way rustc prints its own, and `toolmetadata list PATH…` their `tools/list`
//! entries.
