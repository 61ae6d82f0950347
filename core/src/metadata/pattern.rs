//! `pattern`: the Rust regex crate's syntax, matched when an argument is
//! decoded (toolmetadata-load checks it when the format is loaded).

/// The regex of a `pattern`, for the argument decoder (the loader has
/// checked that it compiles).
pub(crate) fn compiled(pattern: &str) -> Option<regex::Regex> {
    regex::Regex::new(pattern).ok()
}
