//! [`CallLink`]: the server's side of a call, the way back to the client
//! that a handler's `Context` holds (cancellation, progress, questions,
//! roots, logs, the capabilities the client declared, its stream).

use std::fmt;
use std::sync::Arc;

use rmcp::model::ProgressNotificationParam;
use rmcp::service::{RequestContext, RoleServer};
use tokio_util::sync::CancellationToken;

#[cfg(feature = "ask")]
use super::asker::Asker;
#[cfg(feature = "tasks")]
use super::task::TaskProgress;
use crate::ask::{Answer, AskError, Question};
use crate::roots::{ClientRoots, RootsError};
use toolmetadata_core::BoxFuture;

/// The server's side of a call, behind its handler's [`Context`](crate::Context): the
/// request itself (kept whole and shared, so reading a header clones
/// nothing), the way to ask the person, the session's roots.
#[derive(Clone)]
pub(crate) struct CallLink {
    pub(crate) request: Arc<RequestContext<RoleServer>>,
    /// The call's cancellation: the request's own, or a task's, which
    /// outlives the request.
    pub(crate) cancel: CancellationToken,
    /// How the call asks its client: questions, its model, its roots.
    #[cfg(feature = "ask")]
    pub(crate) asker: Arc<Asker>,
    /// The session's roots, for `Context::roots`.
    pub(crate) roots: Arc<super::roots::SessionRoots>,
    /// The log level the session's client set, for `Context::log`.
    pub(crate) log_level: Arc<super::client_log::SessionLogLevel>,
    /// For a call run as a task: progress goes to the task's status message.
    #[cfg(feature = "tasks")]
    pub(super) task: Option<TaskProgress>,
    /// A capability the handler needed and the client lacks
    /// (`Context::require`): the call is answered with -32021.
    pub(crate) lacking: Arc<std::sync::OnceLock<crate::ClientCapability>>,
}

impl fmt::Debug for CallLink {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CallLink")
            .field("id", &self.request.id)
            .field("cancelled", &self.cancel.is_cancelled())
            .finish()
    }
}

impl CallLink {
    async fn report_progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        #[cfg(feature = "tasks")]
        if let Some(task) = &self.task {
            task.report(progress, total, message).await;
            return;
        }
        let Some(token) = self.request.meta.get_progress_token() else {
            return;
        };
        let mut param = ProgressNotificationParam::new(token, progress);
        param.total = total;
        param.message = message.map(str::to_owned);
        // A client that stops reading does not hold the handler.
        let sent = tokio::time::timeout(
            std::time::Duration::from_secs(2),
            self.request.peer.notify_progress(param),
        )
        .await;
        match sent {
            Ok(Ok(())) => {}
            Ok(Err(e)) => tracing::debug!("progress notification not sent: {e}"),
            Err(_) => tracing::debug!("progress notification dropped: the client is not reading"),
        }
    }
}

/// What a handler's question gets from a server built without the feature
/// `ask`: the `Unsupported` a context no client stands behind gets, and,
/// once per process, a warning that says why, for the developer who
/// expected the question to reach the client.
#[cfg(not(feature = "ask"))]
async fn unbuilt<T, E>(what: &str, unsupported: E) -> Result<T, E> {
    static WARNED: std::sync::Once = std::sync::Once::new();
    WARNED.call_once(|| {
        tracing::warn!(
            "{what}: this server was built without toolmetadata's feature `ask`, so it asks its clients nothing; add \"ask\" to toolmetadata's features"
        );
    });
    Err(unsupported)
}

/// How a handler's `Context` reaches the server.
impl toolmetadata_core::seam::Link for CallLink {
    fn is_cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    fn cancelled(&self) -> BoxFuture<'_, ()> {
        Box::pin(self.cancel.cancelled())
    }

    fn progress<'a>(
        &'a self,
        progress: f64,
        total: Option<f64>,
        message: Option<&'a str>,
    ) -> BoxFuture<'a, ()> {
        Box::pin(self.report_progress(progress, total, message))
    }

    fn ask(&self, question: Question) -> BoxFuture<'_, Result<Answer, AskError>> {
        #[cfg(feature = "ask")]
        return Box::pin(self.asker.ask(question));
        #[cfg(not(feature = "ask"))]
        {
            let _ = question;
            Box::pin(unbuilt("Context::ask", AskError::Unsupported))
        }
    }

    fn sample(
        &self,
        sampling: crate::sampling::Sampling,
    ) -> BoxFuture<'_, Result<crate::sampling::Sampled, AskError>> {
        #[cfg(feature = "ask")]
        return Box::pin(self.asker.sample(sampling));
        #[cfg(not(feature = "ask"))]
        {
            let _ = sampling;
            Box::pin(unbuilt("Context::sample", AskError::Unsupported))
        }
    }

    fn roots(&self) -> BoxFuture<'_, Result<Arc<ClientRoots>, RootsError>> {
        Box::pin(async move {
            // A session keeps its roots; a 2026-07-28 call or task asks them.
            if super::generation::Generation::of(&self.request).is_session() {
                return self.roots.get(&self.request).await;
            }
            #[cfg(feature = "ask")]
            return Ok(Arc::new(ClientRoots::new(self.asker.roots().await?)));
            #[cfg(not(feature = "ask"))]
            unbuilt("Context::roots", RootsError::Unsupported).await
        })
    }

    fn log<'a>(
        &'a self,
        tool: &'a str,
        level: crate::LogLevel,
        data: serde_json::Value,
    ) -> BoxFuture<'a, ()> {
        Box::pin(super::client_log::send(
            &self.request,
            &self.log_level,
            tool,
            level,
            data,
        ))
    }

    fn declares(&self, capability: crate::ClientCapability) -> Option<bool> {
        use crate::ClientCapability;
        let c = self.request.client_capabilities()?;
        Some(match capability {
            ClientCapability::Sampling => c.sampling.is_some(),
            // Form elicitation, what `ask` uses (or neither mode: 2025-06-18
            // clients only had forms).
            ClientCapability::Elicitation => c
                .elicitation
                .as_ref()
                .is_some_and(|e| e.form.is_some() || e.url.is_none()),
            ClientCapability::Roots => c.roots.is_some(),
            // A capability this server does not know is not declared.
            _ => false,
        })
    }

    fn lacks(&self, capability: crate::ClientCapability) {
        let _ = self.lacking.set(capability);
    }

    #[cfg(all(feature = "http", feature = "sessions"))]
    fn close_stream(&self, retry: std::time::Duration) -> BoxFuture<'_, bool> {
        Box::pin(async move {
            // Only a session's tools/call over HTTP is answered on a stream
            // of its own (the session manager put it in the extensions).
            match self
                .request
                .extensions
                .get::<super::http::polling::PostStream>()
            {
                Some(stream) => stream.close(retry).await,
                None => false,
            }
        })
    }

    #[cfg(not(all(feature = "http", feature = "sessions")))]
    fn close_stream(&self, _retry: std::time::Duration) -> BoxFuture<'_, bool> {
        // stdio answers on no stream of the call's own, nor does a
        // stateless request over HTTP.
        Box::pin(std::future::ready(false))
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}
