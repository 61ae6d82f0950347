//! Helpers shared by the cross-crate tests: the conformance corpus and its
//! expectations, and the command-line tool built by cargo.

pub mod cargo_project;
pub mod cli;
pub mod conformance;
pub mod mcp;
pub mod official_suite;
pub mod otlp;
pub mod python;
pub mod raw;
pub mod stores;
