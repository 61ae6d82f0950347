//! [`Context`]: what a handler knows of the call it serves (the tool, and with
//! the `server` feature the request, the client and the HTTP request), and how
//! it talks back: cancellation, progress, and questions for the person.

use std::sync::Arc;

/// The call a handler serves. The server gives each call its own; cloning it
/// is cheap (the request behind it is shared, never copied).
#[derive(Debug, Clone)]
pub struct Context {
    tool: Arc<str>,
    #[cfg(feature = "server")]
    link: Option<crate::server::Link>,
    /// The tool's `[confirm]`, asked before its handler runs.
    #[cfg(feature = "server")]
    confirm: Option<Arc<crate::metadata::Confirm>>,
}

impl Context {
    /// A context for a call of `tool` that no client can cancel or follow
    /// (servers make connected ones; tests and direct calls use this).
    pub fn new(tool: &str) -> Self {
        Context {
            tool: tool.into(),
            #[cfg(feature = "server")]
            link: None,
            #[cfg(feature = "server")]
            confirm: None,
        }
    }

    #[cfg(feature = "server")]
    pub(crate) fn connected(
        tool: &str,
        link: crate::server::Link,
        confirm: Option<Arc<crate::metadata::Confirm>>,
    ) -> Self {
        Context {
            tool: tool.into(),
            link: Some(link),
            confirm,
        }
    }

    /// The tool's `[confirm]` question for these arguments, as a future that
    /// asks it: `Ok` to go on, the refusal otherwise. `None` when the tool asks
    /// nothing (and always for a call outside a server).
    pub(crate) fn confirmation(
        &self,
        args: &crate::args::Map,
    ) -> Option<crate::BoxFuture<'static, Result<(), crate::ToolError>>> {
        #[cfg(feature = "server")]
        if let Some(confirm) = &self.confirm {
            let question = crate::ask::Question::new(confirmation_text(&confirm.message, args));
            let (cx, unsupported) = (self.clone(), confirm.unsupported);
            return Some(Box::pin(
                async move { cx.confirm(question, unsupported).await },
            ));
        }
        #[cfg(not(feature = "server"))]
        let _ = args;
        None
    }

    /// The name of the tool called.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// True once the client has cancelled the call. The server also drops the
    /// handler's future at that point; this is for work done outside it.
    pub fn is_cancelled(&self) -> bool {
        #[cfg(feature = "server")]
        if let Some(link) = &self.link {
            return link.cancel.is_cancelled();
        }
        false
    }

    /// Resolves when the client cancels the call; never, for a call no client
    /// can cancel.
    pub async fn cancelled(&self) {
        #[cfg(feature = "server")]
        if let Some(link) = &self.link {
            return link.cancel.cancelled().await;
        }
        std::future::pending::<()>().await
    }

    /// Reports progress to the client (`notifications/progress`) when it asked
    /// for it with a progress token; otherwise does nothing. `progress` should
    /// grow with each report; `total` is the value it will reach, if known.
    pub async fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        #[cfg(feature = "server")]
        if let Some(link) = &self.link {
            link.progress(progress, total, message).await;
        }
        #[cfg(not(feature = "server"))]
        let _ = (progress, total, message);
    }
}

/// The request behind the call, on a server (feature `server`).
#[cfg(feature = "server")]
impl Context {
    /// Asks the person a question and returns their answer; see
    /// [`crate::ask`] for how it travels on each protocol generation and what
    /// that means for work done before the question.
    pub async fn ask(
        &self,
        question: crate::ask::Question,
    ) -> Result<crate::ask::Answer, crate::ask::AskError> {
        match &self.link {
            Some(link) => link.asker.ask(question).await,
            None => Err(crate::ask::AskError::Unsupported),
        }
    }

    /// Asks the `[confirm]` question: accepted goes on; declined, cancelled
    /// or (with `unsupported = "refuse"`) unaskable refuses the call.
    async fn confirm(
        &self,
        question: crate::ask::Question,
        unsupported: crate::metadata::Unsupported,
    ) -> Result<(), crate::ToolError> {
        use crate::ask::{Answer, AskError};
        let tool = self.tool();
        match self.ask(question).await {
            Ok(Answer::Accept(_)) => Ok(()),
            Ok(Answer::Decline) => Err(crate::ToolError::new(format!(
                "`{tool}` did not run: the user declined"
            ))),
            Ok(Answer::Cancel) => Err(crate::ToolError::new(format!(
                "`{tool}` did not run: the user cancelled the confirmation"
            ))),
            Err(AskError::Unsupported) => match unsupported {
                crate::metadata::Unsupported::Proceed => Ok(()),
                crate::metadata::Unsupported::Refuse => Err(crate::ToolError::new(format!(
                    "`{tool}` needs the user's confirmation, and this client cannot ask for it"
                ))),
            },
            Err(other) => Err(crate::ToolError::new(format!(
                "`{tool}` did not run: {other}"
            ))),
        }
    }

    /// The client's roots (`roots/list`) for this call's session: asked once
    /// per session (within [`crate::server::ROOTS_TIMEOUT`], at most
    /// [`crate::server::MAX_ROOTS`] roots) and kept until the client sends
    /// `notifications/roots/list_changed`, after which the next call asks
    /// again. A failed answer is kept the same way, so that a client that does
    /// not answer delays one call rather than each.
    ///
    /// [`RootsError::Unsupported`](crate::server::RootsError::Unsupported)
    /// when the client did not declare the `roots` capability, on 2026-07-28
    /// requests (no session; roots are deprecated there), and for a context
    /// made with [`Context::new`]. Each session's roots are its own: on
    /// Streamable HTTP one client's roots never reach another's calls.
    ///
    /// The URIs are as the client sent them: check them (`file://`, existing
    /// directories) before using one.
    pub async fn roots(
        &self,
    ) -> Result<Arc<crate::server::ClientRoots>, crate::server::RootsError> {
        match &self.link {
            Some(link) => link.roots.get(&link.request).await,
            None => Err(crate::server::RootsError::Unsupported),
        }
    }

    /// The request as rmcp received it: its id, `_meta`, extensions and the
    /// peer; `None` for a context made with [`Context::new`].
    pub fn request(&self) -> Option<&rmcp::service::RequestContext<rmcp::service::RoleServer>> {
        self.link.as_ref().map(|link| &*link.request)
    }

    /// The protocol version of the call: the request's own on 2026-07-28, the
    /// session's on earlier versions.
    pub fn protocol_version(&self) -> Option<rmcp::model::ProtocolVersion> {
        self.request()?.protocol_version()
    }

    /// The client's name and version, as the request or the session gives it.
    pub fn client_info(&self) -> Option<rmcp::model::Implementation> {
        self.request()?.client_info()
    }

    /// What the client can do (elicitation, sampling, roots, …).
    pub fn client_capabilities(&self) -> Option<rmcp::model::ClientCapabilities> {
        self.request()?.client_capabilities()
    }

    /// The request's `_meta` object (progress token, protocol keys, and
    /// whatever else the client sent there).
    pub fn meta(&self) -> Option<&rmcp::model::RequestMetaObject> {
        Some(&self.request()?.meta)
    }

    /// The HTTP request the call came in (method, URI, headers, extensions),
    /// when served over Streamable HTTP (feature `http`).
    #[cfg(feature = "http")]
    pub fn http_request(&self) -> Option<&axum::http::request::Parts> {
        self.request()?
            .extensions
            .get::<axum::http::request::Parts>()
    }

    /// A value the HTTP layer put in the request's extensions, such as the
    /// principal an authorization layer verified; found in the HTTP request's
    /// extensions, then in rmcp's.
    pub fn extension<T: Send + Sync + 'static>(&self) -> Option<&T> {
        let request = self.request()?;
        #[cfg(feature = "http")]
        if let Some(found) = request
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<T>())
        {
            return Some(found);
        }
        request.extensions.get::<T>()
    }
}

/// A `[confirm]` message with each `{parameter}` replaced by its argument as
/// sent (a string as is, anything else as JSON), shortened so that a huge
/// argument cannot flood the question.
#[cfg(feature = "server")]
fn confirmation_text(message: &str, args: &crate::args::Map) -> String {
    use crate::metadata::{MessagePart, message_parts};
    // The build checked the message; a run-time tool's loader did too.
    let Ok(parts) = message_parts(message) else {
        return message.to_owned();
    };
    let mut text = String::new();
    for part in parts {
        match part {
            MessagePart::Text(t) => text.push_str(t),
            MessagePart::Placeholder(name) => {
                let value = match args.get(name) {
                    Some(serde_json::Value::String(s)) => s.clone(),
                    Some(serde_json::Value::Null) | None => "(not given)".to_owned(),
                    Some(other) => other.to_string(),
                };
                text.push_str(&crate::text::shorten(&value, 200));
            }
        }
    }
    text
}
