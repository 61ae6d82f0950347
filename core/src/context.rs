//! [`Context`]: what a handler knows of the call it serves (the tool, and on a
//! server the request, the client and the HTTP request), and how it talks
//! back: cancellation, progress, questions for the person, the client's
//! roots.
//!
//! A context stands alone: the server plugs itself in behind [`Link`], so
//! that a context made with [`Context::new`] (tests, direct calls) behaves as
//! a call no client can cancel, follow or answer.

use std::fmt;
use std::sync::Arc;

use crate::ask::{Answer, AskError, NotConfirmed, Question};
use crate::confirm_plan::ConfirmPlan;
use crate::metadata::Unsupported;
use crate::roots::{ClientRoots, RootsError};
use crate::sampling::{Sampled, Sampling};
use crate::{BoxFuture, LogLevel};

/// The server's side of one call, as a [`Context`] reaches it: what a
/// server implements to plug itself in behind the contexts it makes.
pub trait Link: Send + Sync + fmt::Debug {
    /// True once the call is cancelled.
    fn is_cancelled(&self) -> bool;
    /// Resolves when the call is cancelled.
    fn cancelled(&self) -> BoxFuture<'_, ()>;
    /// Reports progress to whoever follows the call.
    fn progress<'a>(
        &'a self,
        progress: f64,
        total: Option<f64>,
        message: Option<&'a str>,
    ) -> BoxFuture<'a, ()>;
    /// Asks the person.
    fn ask(&self, question: Question) -> BoxFuture<'_, Result<Answer, AskError>>;
    /// Asks the client's model.
    fn sample(&self, sampling: Sampling) -> BoxFuture<'_, Result<Sampled, AskError>>;
    /// The session's roots.
    fn roots(&self) -> BoxFuture<'_, Result<Arc<ClientRoots>, RootsError>>;
    /// Sends the client a log message of `tool`, if it wants ones of `level`.
    fn log<'a>(
        &'a self,
        tool: &'a str,
        level: LogLevel,
        data: serde_json::Value,
    ) -> BoxFuture<'a, ()>;
    /// Whether the client declared `capability`; `None` when the server
    /// does not know what the client declared.
    fn declares(&self, capability: ClientCapability) -> Option<bool>;
    /// Records that the call needs `capability`, which the client lacks.
    fn lacks(&self, capability: ClientCapability);
    /// Ends the SSE stream the call is answered on, for the client to come
    /// back after `retry`; false where there is none to close.
    fn close_stream(&self, retry: std::time::Duration) -> BoxFuture<'_, bool>;
    /// The server's own side of the link, for the server's accessors of a
    /// [`Context`] (the request it received, say) to find it again.
    fn as_any(&self) -> &dyn std::any::Any;
}

/// A capability a client declares, which a handler may need
/// ([`Context::require`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ClientCapability {
    /// `sampling`: the client runs its model for the server.
    Sampling,
    /// `elicitation`: the client asks its user.
    Elicitation,
    /// `roots`: the client says which directories the server may use.
    Roots,
}

impl ClientCapability {
    /// Its name in `capabilities`.
    pub fn as_str(self) -> &'static str {
        match self {
            ClientCapability::Sampling => "sampling",
            ClientCapability::Elicitation => "elicitation",
            ClientCapability::Roots => "roots",
        }
    }
}

/// The call a handler serves. The server gives each call its own; cloning it
/// is cheap (the request behind it is shared, never copied).
#[derive(Debug, Clone)]
pub struct Context {
    tool: Arc<str>,
    link: Option<Arc<dyn Link>>,
    /// The tool's `[confirm]`, asked before its handler runs.
    confirm: Option<Arc<ConfirmPlan>>,
}

impl Context {
    /// A context for a call of `tool` that no client can cancel or follow
    /// (servers make connected ones; tests and direct calls use this).
    pub fn new(tool: &str) -> Self {
        Context {
            tool: tool.into(),
            link: None,
            confirm: None,
        }
    }

    /// [`Context::new`] for a tool with `[confirm]`, for tests of what runs
    /// before the question.
    #[cfg(test)]
    pub(crate) fn confirming(tool: &str, plan: ConfirmPlan) -> Self {
        Context::new(tool).with_confirm(plan)
    }

    /// This context, asking `plan` before the handler runs.
    pub(crate) fn with_confirm(mut self, plan: ConfirmPlan) -> Self {
        self.confirm = Some(Arc::new(plan));
        self
    }

    /// A context the server's `link` serves; `confirm` is the tool's
    /// `[confirm]`. The server's, through [`crate::seam`].
    #[doc(hidden)]
    pub fn connected(tool: &str, link: Arc<dyn Link>, confirm: Option<Arc<ConfirmPlan>>) -> Self {
        Context {
            tool: tool.into(),
            link: Some(link),
            confirm,
        }
    }

    /// The server's side of the call, if a server made this context.
    #[doc(hidden)]
    pub fn link(&self) -> Option<&dyn Link> {
        self.link.as_deref()
    }

    /// The tool's `[confirm]`, if it has one.
    #[doc(hidden)]
    pub fn confirm_plan(&self) -> Option<&ConfirmPlan> {
        self.confirm.as_deref()
    }

    /// The name of the tool called.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// True once the client has cancelled the call. The server also drops the
    /// handler's future at that point; this is for work done outside it.
    pub fn is_cancelled(&self) -> bool {
        self.link.as_ref().is_some_and(|link| link.is_cancelled())
    }

    /// Resolves when the client cancels the call; never, for a call no client
    /// can cancel.
    pub async fn cancelled(&self) {
        match &self.link {
            Some(link) => link.cancelled().await,
            None => std::future::pending().await,
        }
    }

    /// Reports progress to the client (`notifications/progress`) when it asked
    /// for it with a progress token (for a task: its status message);
    /// otherwise does nothing. `progress` should grow with each report;
    /// `total` is the value it will reach, if known.
    pub async fn progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        if let Some(link) = &self.link {
            link.progress(progress, total, message).await;
        }
    }

    /// Sends the client a log message (`notifications/message`, its logger
    /// the tool's name) when it asked for messages of `level` or more severe
    /// (`logging/setLevel`, or a 2026-07-28 request's `logLevel`); otherwise,
    /// and for a context made with [`Context::new`], does nothing. For the
    /// client's user or model to see; the server's own log is `tracing`'s.
    pub async fn log(&self, level: LogLevel, message: impl Into<String>) {
        if let Some(link) = &self.link {
            link.log(&self.tool, level, serde_json::Value::String(message.into()))
                .await;
        }
    }

    /// [`log`](Self::log) with any JSON as the message's `data`.
    pub async fn log_data(&self, level: LogLevel, data: serde_json::Value) {
        if let Some(link) = &self.link {
            link.log(&self.tool, level, data).await;
        }
    }

    /// Asks the person a question and returns their answer; see
    /// [`crate::ask`] for how it travels on each protocol generation and what
    /// that means for work done before the question.
    pub async fn ask(&self, question: Question) -> Result<Answer, AskError> {
        match &self.link {
            Some(link) => link.ask(question).await,
            None => Err(AskError::Unsupported),
        }
    }

    /// Asks the client's model (MCP sampling, `sampling/createMessage`) and
    /// returns its answer; it travels as a question does (see
    /// [`crate::sampling`]). [`AskError::Unsupported`] when the client did
    /// not declare `sampling`, and for a context made with [`Context::new`].
    ///
    /// ```no_run
    /// # use toolmetadata_core::{Context, ToolError, ToolResult};
    /// # use toolmetadata_core::sampling::Sampling;
    /// async fn title(cx: Context, text: String) -> ToolResult {
    ///     let answer = cx
    ///         .sample(Sampling::new(format!("A title for: {text}"), 30))
    ///         .await
    ///         .map_err(|e| ToolError::new(e.to_string()))?;
    ///     Ok(answer.text().unwrap_or_default().to_owned().into())
    /// }
    /// ```
    pub async fn sample(&self, sampling: Sampling) -> Result<Sampled, AskError> {
        match &self.link {
            Some(link) => link.sample(sampling).await,
            None => Err(AskError::Unsupported),
        }
    }

    /// Asks the person to confirm (a yes/no [`Question`], or a form whose
    /// answers do not matter): `Ok` when they accept, and, with
    /// [`Unsupported::Proceed`], when the client cannot ask at all; why not
    /// otherwise. What a tool's `[confirm]` runs before its handler, for a
    /// handler that decides itself what to confirm.
    pub async fn confirm(
        &self,
        question: Question,
        unsupported: Unsupported,
    ) -> Result<(), NotConfirmed> {
        match self.ask(question).await {
            Ok(Answer::Accept(_)) => Ok(()),
            Ok(Answer::Decline) => Err(NotConfirmed::Declined),
            Ok(Answer::Cancel) => Err(NotConfirmed::Cancelled),
            Err(AskError::Unsupported) => match unsupported {
                Unsupported::Proceed => Ok(()),
                Unsupported::Refuse => Err(NotConfirmed::CannotAsk),
            },
            Err(other) => Err(NotConfirmed::Failed(other)),
        }
    }

    /// The client's roots (`roots/list`) for this call's session: asked once
    /// per session (within [`crate::roots::ROOTS_TIMEOUT`], at most
    /// [`crate::roots::MAX_ROOTS`] roots) and kept until the client sends
    /// `notifications/roots/list_changed`, after which the next call asks
    /// again. A failed answer is kept the same way, so that a client that does
    /// not answer delays one call rather than each.
    ///
    /// A 2026-07-28 request has no session: its roots are asked as a question
    /// is (see [`crate::ask`]), through the call's `InputRequiredResult` (the
    /// call returns [`RootsError::InputRequired`] and is made again with the
    /// answer), or through the task's record in a task. Propagate that error
    /// with `?`: a fallback taken instead still ends the attempt with the
    /// question, and runs again on the retry.
    ///
    /// [`RootsError::Unsupported`] when the client did not declare the
    /// `roots` capability, and for a context made with [`Context::new`]. Each
    /// session's roots are its own: on Streamable HTTP one client's roots
    /// never reach another's calls.
    ///
    /// The URIs are as the client sent them: check them (`file://`, existing
    /// directories) before using one.
    pub async fn roots(&self) -> Result<Arc<ClientRoots>, RootsError> {
        match &self.link {
            Some(link) => link.roots().await,
            None => Err(RootsError::Unsupported),
        }
    }
}

/// What a call needs of its client, and the stream it is answered on.
impl Context {
    /// `Ok` when the client declared `capability`; otherwise an error to
    /// return, and a tool call that then fails is answered not with its
    /// error result but with the protocol's
    /// `MissingRequiredClientCapabilityError` (-32021, HTTP 400) naming it,
    /// so that the client knows to declare it rather than the model to
    /// retry. A handler that falls back to something else and succeeds is
    /// answered with its result. A call run as a task, a prompt and a
    /// resource read fail with the error's text. A context made with
    /// [`Context::new`] has no client, which declared nothing.
    ///
    /// ```no_run
    /// # use toolmetadata_core::{ClientCapability, Context, ToolResult};
    /// async fn summarize(cx: Context) -> ToolResult {
    ///     cx.require(ClientCapability::Sampling)?;
    ///     // … ask the client's model …
    ///     # Ok("".into())
    /// }
    /// ```
    pub fn require(&self, capability: ClientCapability) -> Result<(), crate::ToolError> {
        let declared = self
            .link
            .as_ref()
            .and_then(|link| link.declares(capability))
            .unwrap_or(false);
        if declared {
            return Ok(());
        }
        if let Some(link) = &self.link {
            link.lacks(capability);
        }
        Err(crate::ToolError::new(format!(
            "the client did not declare the `{}` capability, which `{}` needs",
            capability.as_str(),
            self.tool
        )))
    }

    /// Ends the SSE stream this call is answered on, telling the client to
    /// come back for the rest after `retry` (SEP-1699 polling), so that a
    /// long call holds no connection open through proxies that cut idle
    /// ones. The client reconnects (`GET` with `Last-Event-ID`) and gets
    /// there the result, which waits for the reconnection (at most the
    /// longest `retry` below and 30 seconds more, then it is sent to no
    /// one). A stream the client resumed may be closed again.
    ///
    /// `retry` is shortened to a quarter of the session's idle timeout (at
    /// most 10 minutes), so that the session outlives the wait. While the
    /// stream is closed, the progress and the questions the handler sends
    /// wait for the client too: rmcp keeps the last 16 of them, and the time
    /// the person has to answer a question runs meanwhile. The reconnection
    /// must reach this instance, as a session's requests do behind a sticky
    /// balancer.
    ///
    /// ```no_run
    /// # use std::time::Duration;
    /// # use toolmetadata_core::{Context, ToolResult};
    /// async fn export(cx: Context) -> ToolResult {
    ///     // Minutes of work ahead: let the connection go meanwhile.
    ///     cx.close_stream(Duration::from_secs(5)).await;
    ///     // … the work, reporting progress …
    ///     Ok("exported".into())
    /// }
    /// ```
    ///
    /// Only a `tools/call` of a 2025-11-25 session over Streamable HTTP is
    /// answered on such a stream: `false` elsewhere (stdio, a 2026-07-28
    /// request, a call run as a task, a prompt), and when the stream is
    /// closed or being closed already.
    pub async fn close_stream(&self, retry: std::time::Duration) -> bool {
        match &self.link {
            Some(link) => link.close_stream(retry).await,
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A context no client stands behind: nothing to cancel, nobody to ask,
    /// no roots; a confirmation goes on only where that is allowed.
    #[tokio::test]
    async fn a_context_with_no_client() {
        let cx = Context::new("t");
        assert_eq!(cx.tool(), "t");
        assert!(!cx.is_cancelled());
        assert!(matches!(
            cx.ask(Question::new("?")).await,
            Err(AskError::Unsupported)
        ));
        assert_eq!(
            cx.confirm(Question::new("Go?"), Unsupported::Proceed).await,
            Ok(())
        );
        let refused = cx.confirm(Question::new("Go?"), Unsupported::Refuse).await;
        assert_eq!(refused, Err(NotConfirmed::CannotAsk));
        assert_eq!(
            refused.map_err(|e| e.to_string()),
            Err(AskError::Unsupported.to_string())
        );
        assert_eq!(cx.roots().await.map(|_| ()), Err(RootsError::Unsupported));
        assert!(
            !cx.close_stream(std::time::Duration::from_secs(1)).await,
            "no stream to close"
        );
        cx.progress(1.0, None, None).await;
        let never = tokio::time::timeout(std::time::Duration::from_millis(10), cx.cancelled());
        assert!(never.await.is_err(), "no client cancels it");
    }
}
