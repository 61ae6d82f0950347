//! The servers' default log filter: quiet per request, loud on what a person
//! must see.
//!
//! rmcp logs several INFO lines for every request it serves (a stateless
//! 2026-07-28 request starts and ends a whole service: "Service initialized",
//! "serve finished", …). At INFO those drown the lines that matter: where the
//! server listens, errors, handler panics. So the default keeps INFO for
//! everything but rmcp, which only gets to say warnings and errors.

/// The filter a server's log uses when `RUST_LOG` is not set: `info`, but
/// `warn` for rmcp's per-request lines. Same syntax as `RUST_LOG`
/// (`tracing_subscriber`'s `Targets` and `EnvFilter` parse it).
pub const DEFAULT_LOG_FILTER: &str = "info,rmcp=warn";

/// `RUST_LOG` when it is set and not blank, else [`DEFAULT_LOG_FILTER`]:
/// `RUST_LOG=debug` (or `rmcp=info`) goes deeper.
///
/// With `tracing_subscriber` (a bad `RUST_LOG` falls back to the default):
///
/// ```text
/// use tracing_subscriber::{filter::Targets, prelude::*};
/// let filter: Targets = log_filter().parse().unwrap_or_else(|e| {
///     eprintln!("RUST_LOG: {e}; using {DEFAULT_LOG_FILTER}");
///     DEFAULT_LOG_FILTER.parse().unwrap_or_default()
/// });
/// tracing_subscriber::registry()
///     .with(tracing_subscriber::fmt::layer().with_writer(std::io::stderr))
///     .with(filter)
///     .init();
/// ```
pub fn log_filter() -> String {
    match std::env::var("RUST_LOG") {
        Ok(value) if !value.trim().is_empty() => value,
        _ => DEFAULT_LOG_FILTER.to_owned(),
    }
}
