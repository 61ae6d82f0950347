//! The access log: one INFO line per request served (`tools/call`,
//! `tools/list`, `prompts/get`, `resources/read`…), of target
//! [`ACCESS_TARGET`]: the method, the tool or prompt, the outcome (`ok`,
//! `tool_error` and its declared code, or the JSON-RPC error's code), the
//! time it took, and over HTTP the session (its digest, never its id) and the
//! principal's subject.
//!
//! It is an event, not the request's span, so a plain `fmt` subscriber
//! prints it; filters turn it off like any target
//! (`RUST_LOG=info,toolmetadata::access=off`). When nothing listens to the
//! target, a request pays one cached check.

use std::time::Instant;

use rmcp::service::{RequestContext, RoleServer};
use toolmetadata_core::seam::shorten;

/// The `tracing` target of the access log's lines, for filters.
pub const ACCESS_TARGET: &str = "toolmetadata::access";

/// A request whose line is wanted, from its start.
pub(super) struct Access {
    method: &'static str,
    name: String,
    session: Option<String>,
    principal: Option<String>,
    started: Instant,
    /// Whether the line was written: a request whose work is dropped before
    /// it ends (its client cancelled it, or went away) is written as
    /// `cancelled` when it drops.
    written: bool,
}

impl Access {
    /// The line's start for the request of `context` about `name` (a tool,
    /// a prompt, a URI; none for `tools/list`), if anyone listens.
    pub(super) fn start(
        method: &'static str,
        name: Option<&str>,
        context: &RequestContext<RoleServer>,
    ) -> Option<Access> {
        if !tracing::enabled!(target: ACCESS_TARGET, tracing::Level::INFO) {
            return None;
        }
        let name = name.map_or_else(String::new, |name| printable(&shorten(name, 256)));
        #[cfg(feature = "http")]
        let (session, principal) = http_seen(context);
        #[cfg(not(feature = "http"))]
        let (session, principal) = {
            let _ = context;
            (None, None)
        };
        Some(Access {
            method,
            name,
            session,
            principal,
            started: Instant::now(),
            written: false,
        })
    }

    /// Names what the request asked for when the server has no such tool
    /// or prompt (the span does not: a name of the client's choosing is no
    /// span name); quoted, so that it reads as the client's words.
    pub(super) fn unknown(&mut self, name: &str) {
        self.name = format!("{:?}", shorten(name, 64));
    }

    /// Writes the line: the request ended with `outcome`.
    pub(super) fn finish(mut self, outcome: &str) {
        self.write(outcome);
    }

    fn write(&mut self, outcome: &str) {
        self.written = true;
        // To a tenth of a millisecond: what a person reads in a log.
        let millis = (self.started.elapsed().as_secs_f64() * 10_000.0).round() / 10.0;
        let name = if self.name.is_empty() {
            "-"
        } else {
            &self.name
        };
        tracing::info!(
            target: ACCESS_TARGET,
            outcome = %outcome,
            duration_ms = millis,
            session = self.session.as_deref().map(tracing::field::display),
            principal = self.principal.as_deref().map(tracing::field::display),
            "{} {name}",
            self.method,
        );
    }
}

impl Drop for Access {
    fn drop(&mut self) {
        if !self.written {
            self.write("cancelled");
        }
    }
}

/// The session's digest and the principal's subject of an HTTP request.
#[cfg(feature = "http")]
fn http_seen(context: &RequestContext<RoleServer>) -> (Option<String>, Option<String>) {
    let Some(parts) = context.extensions.get::<axum::http::request::Parts>() else {
        return (None, None);
    };
    let session = super::http::session_named(&parts.headers);
    let principal = parts
        .extensions
        .get::<super::auth::Principal>()
        .and_then(|p| p.subject())
        .map(|subject| printable(&shorten(subject, 128)));
    (session, principal)
}

/// `text` as it is when it holds no control characters, else quoted with
/// them escaped: a client's URI or a token's subject never starts a line
/// of its own in the log.
fn printable(text: &str) -> String {
    if text.chars().any(char::is_control) {
        format!("{text:?}")
    } else {
        text.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::printable;

    #[test]
    fn control_characters_are_escaped_and_plain_text_is_not() {
        assert_eq!(printable("notes://today"), "notes://today");
        assert_eq!(printable("x\nINFO forged"), r#""x\nINFO forged""#);
        assert_eq!(printable("a\u{1b}[31mred"), r#""a\u{1b}[31mred""#);
    }
}
