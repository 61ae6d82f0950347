//! The connection a test client's requests go through: rmcp's client, the
//! protocol it speaks, the person who answers, and the bound on each wait.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use rmcp::RoleClient;
use rmcp::model::{ClientRequest, CustomRequest, InputRequest, InputRequests, InputResponses};
use rmcp::service::RunningService;
use serde_json::Value;

use super::client_side::ClientSide;
use super::error::Error;
use super::person::Answerer;

/// The protocol generation the test client speaks. The default is the
/// oldest the server was built to serve: 2025-11-25 with the feature
/// `sessions`, 2026-07-28 without.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Protocol {
    /// 2025-11-25: a session opened with `initialize`; the server asks its
    /// questions with requests of its own, and tasks are asked for with
    /// the `task` param (`tasks/get`, `tasks/result`, `tasks/cancel`). A
    /// server built without the feature `sessions` refuses the
    /// `initialize`.
    #[cfg_attr(feature = "sessions", default)]
    V2025_11_25,
    /// 2026-07-28: `server/discover`, then requests that each carry the
    /// client's capabilities; questions come back as `input_required`
    /// results, answered by calling again, and tasks are the Tasks
    /// extension (`tasks/get`, `tasks/update`, `tasks/cancel`).
    #[cfg_attr(not(feature = "sessions"), default)]
    V2026_07_28,
}

/// rmcp's client and how it is used; what a [`super::Task`] borrows.
pub(super) struct Connection {
    pub(super) service: RunningService<RoleClient, ClientSide>,
    pub(super) answerer: Option<Arc<Answerer>>,
    pub(super) protocol: Protocol,
    pub(super) timeout: Duration,
}

impl Connection {
    /// Answers what a 2026-07-28 `input_required` answer asks: questions
    /// through the person.
    pub(super) fn fulfil(&self, requests: InputRequests) -> Result<InputResponses, Error> {
        let mut responses = InputResponses::new();
        for (key, request) in requests {
            let response = match request {
                InputRequest::Elicitation(question) => {
                    let answerer = self.answerer.as_ref().ok_or_else(|| {
                        Error::Connection(
                            "the server asked a question of a client that declared no elicitation"
                                .to_owned(),
                        )
                    })?;
                    serde_json::to_value(answerer.answer(&question.params))
                }
                // It declared neither sampling nor roots.
                other => {
                    return Err(Error::Connection(format!(
                        "the server asked the test client what it cannot answer: {other:?}"
                    )));
                }
            };
            responses.insert(key, response.map_err(|e| Error::Connection(e.to_string()))?);
        }
        Ok(responses)
    }

    /// A request rmcp has no type for (2025-11-25's task flow), as JSON.
    pub(super) async fn custom(&self, method: &str, params: Value) -> Result<Value, Error> {
        self.within(&format!("answer to {method}"), async {
            let request = ClientRequest::CustomRequest(CustomRequest::new(method, Some(params)));
            let answer = self
                .service
                .send_request(request)
                .await
                .map_err(Error::from_service)?;
            serde_json::to_value(answer).map_err(|e| Error::Connection(e.to_string()))
        })
        .await
    }

    /// `work`, bounded by the client's timeout.
    pub(super) async fn within<T>(
        &self,
        waiting_for: &str,
        work: impl Future<Output = Result<T, Error>>,
    ) -> Result<T, Error> {
        tokio::time::timeout(self.timeout, work)
            .await
            .unwrap_or_else(|_| {
                Err(Error::Timeout {
                    waiting_for: waiting_for.to_owned(),
                    after: self.timeout,
                })
            })
    }
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("protocol", &self.protocol)
            .finish_non_exhaustive()
    }
}
