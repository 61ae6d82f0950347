//! The code `build.rs` generated from `tools/`: an argument struct per tool,
//! the `Tools` trait the handler implements, and the tool set.

toolmetadata::include_tools!();
