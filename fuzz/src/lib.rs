//! The bodies of the fuzz targets, one function per target, each taking the
//! fuzzer's bytes. The replay test in `tests/` includes `targets.rs` too, so
//! a normal `cargo test` runs the kept corpora through the same code.

mod targets;

pub use targets::{check, decode_args, json_reader, toml_loader, yaml_loader};
