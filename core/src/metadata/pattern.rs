//! `pattern`: compiled with the Rust regex crate, the same way when the format
//! is checked and when an argument is matched.

/// Compiles a `pattern` with the Rust regex crate; the error is the parser's own
/// one-line reason (`look-around … is not supported`).
#[cfg(feature = "load")]
pub(crate) fn compile(pattern: &str) -> Result<regex::Regex, String> {
    if let Err(e) = regex_syntax::ast::parse::Parser::new().parse(pattern) {
        return Err(e.kind().to_string());
    }
    regex::Regex::new(pattern).map_err(|e| match e {
        regex::Error::Syntax(text) => text.lines().last().unwrap_or("invalid").trim().to_owned(),
        other => other.to_string(),
    })
}

/// The regex of a `pattern`, for the argument decoder: the one `compile`
/// gives, without its shorter reason when there is none.
#[cfg(feature = "regex")]
pub(crate) fn compiled(pattern: &str) -> Option<regex::Regex> {
    regex::Regex::new(pattern).ok()
}
