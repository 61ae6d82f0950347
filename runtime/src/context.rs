//! [`Context`]: what a handler knows of the call it serves, and how it talks
//! back: cancellation and progress.

use std::sync::Arc;

/// The call a handler serves. The server gives each call its own.
#[derive(Debug, Clone)]
pub struct Context {
    tool: Arc<str>,
    #[cfg(feature = "server")]
    link: Option<crate::server::Link>,
}

impl Context {
    /// A context for a call of `tool` that no client can cancel or follow
    /// (servers make connected ones; tests and direct calls use this).
    pub fn new(tool: &str) -> Self {
        Context {
            tool: tool.into(),
            #[cfg(feature = "server")]
            link: None,
        }
    }

    #[cfg(feature = "server")]
    pub(crate) fn connected(tool: &str, link: crate::server::Link) -> Self {
        Context {
            tool: tool.into(),
            link: Some(link),
        }
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
