//! The test client's side of the connection: what it declares, how it
//! answers the server's requests, and the notifications it keeps.

use std::sync::{Arc, Mutex};

use rmcp::model::{
    ClientConfig, ClientResult, ElicitationCapability, FormElicitationCapability, Implementation,
    JsonObject, ServerNotification, ServerRequest, TASKS_EXTENSION_ID,
};
use rmcp::service::{NotificationContext, RequestContext, Service};
use rmcp::{ErrorData, RoleClient};
use serde_json::Value;

use super::person::{Answerer, lock};

/// A notification the server sent.
#[derive(Debug, Clone, PartialEq)]
pub struct Notification {
    /// Its method, such as `notifications/resources/updated`.
    pub method: String,
    /// Its params (`Null` when it has none).
    pub params: Value,
}

/// The most notifications kept: a server that notifies without end fills
/// no memory (later ones are counted, not kept).
const MAX_KEPT: usize = 10_000;

#[derive(Debug, Default)]
pub(super) struct Heard {
    kept: Mutex<Vec<Notification>>,
    /// Woken on each notification, for those who wait for one.
    arrived: tokio::sync::Notify,
}

impl Heard {
    pub(super) fn all(&self) -> Vec<Notification> {
        lock(&self.kept).clone()
    }

    /// The first notification of `method`, waiting for it up to `within`.
    pub(super) async fn first(
        &self,
        method: &str,
        within: std::time::Duration,
    ) -> Option<Notification> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let arrived = self.arrived.notified();
            if let Some(found) = lock(&self.kept).iter().find(|n| n.method == method) {
                return Some(found.clone());
            }
            if tokio::time::timeout_at(deadline, arrived).await.is_err() {
                return None;
            }
        }
    }

    /// Keeps `notification` as its method and params.
    pub(super) fn keep_typed(&self, notification: &ServerNotification) {
        let mut value = serde_json::to_value(notification).unwrap_or(Value::Null);
        let method = value["method"].as_str().unwrap_or_default().to_owned();
        let params = value
            .get_mut("params")
            .map(Value::take)
            .unwrap_or(Value::Null);
        self.keep(Notification { method, params });
    }

    fn keep(&self, notification: Notification) {
        let mut kept = lock(&self.kept);
        if kept.len() < MAX_KEPT {
            kept.push(notification);
        }
        drop(kept);
        self.arrived.notify_waiters();
    }
}

/// The test client as rmcp serves it.
#[derive(Clone)]
pub(super) struct ClientSide {
    pub(super) answerer: Option<Arc<Answerer>>,
    pub(super) heard: Arc<Heard>,
    /// Declare the 2026-07-28 Tasks extension.
    pub(super) tasks_extension: bool,
}

impl Service<RoleClient> for ClientSide {
    async fn handle_request(
        &self,
        request: ServerRequest,
        _: RequestContext<RoleClient>,
    ) -> Result<ClientResult, ErrorData> {
        match request {
            ServerRequest::PingRequest(_) => Ok(ClientResult::empty(())),
            ServerRequest::ElicitRequest(request) => match &self.answerer {
                Some(answerer) => Ok(ClientResult::ElicitResult(answerer.answer(&request.params))),
                None => Err(ErrorData::method_not_found::<
                    rmcp::model::ElicitationCreateRequestMethod,
                >()),
            },
            // It declared neither sampling nor roots.
            other => {
                let method = serde_json::to_value(&other).unwrap_or(Value::Null)["method"].take();
                Err(ErrorData::invalid_request(
                    format!("the test client does not answer {method}"),
                    None,
                ))
            }
        }
    }

    async fn handle_notification(
        &self,
        notification: ServerNotification,
        _: NotificationContext<RoleClient>,
    ) -> Result<(), ErrorData> {
        self.heard.keep_typed(&notification);
        Ok(())
    }

    fn get_info(&self) -> ClientConfig {
        let mut config = ClientConfig::default();
        config.client_info = Implementation::new("toolmetadata-testing", env!("CARGO_PKG_VERSION"));
        if self.answerer.is_some() {
            config.capabilities.elicitation =
                Some(ElicitationCapability::new().with_form(FormElicitationCapability::default()));
        }
        if self.tasks_extension {
            config.capabilities.extensions =
                Some([(TASKS_EXTENSION_ID.to_owned(), JsonObject::new())].into());
        }
        config
    }
}
