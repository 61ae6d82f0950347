//! The code `build.rs` generated from `tools/`.

toolmetadata::include_tools!();
