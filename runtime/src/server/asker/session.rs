//! Asking on a 2025-11-25 session (feature `sessions`): the request goes
//! to the session's client, and the handler waits (bounded) for its answer.
//! A task started on the session names itself in each request
//! (`related-task`) and shows `input_required` while it waits (SEP-1686).

#[cfg(feature = "tasks")]
use rmcp::model::ElicitRequestParams;
use rmcp::service::{Peer, RoleServer, ServiceError};

#[cfg(feature = "tasks")]
use super::super::task_input::RELATED_TASK;
use super::Asker;
#[cfg(feature = "tasks")]
use super::wire::related;
use super::wire::{form_params, sampling_params};
use crate::ask::{Answer, AskError, Question};
use crate::sampling::{Sampled, Sampling};

impl Asker {
    /// `elicitation/create` to the session's client.
    pub(super) async fn ask_session(
        &self,
        peer: &Peer<RoleServer>,
        key: &str,
        question: Question,
    ) -> Result<Answer, AskError> {
        #[cfg_attr(not(feature = "tasks"), expect(unused_mut))]
        let mut params = form_params(&question)?;
        #[cfg(feature = "tasks")]
        let _shown = match &self.task_on_session {
            Some(task) => {
                if let ElicitRequestParams::FormElicitationParams { meta, .. } = &mut params {
                    meta.get_or_insert_with(Default::default)
                        .0
                        .0
                        .insert(RELATED_TASK.to_owned(), related(task));
                }
                let request = serde_json::json!({
                    "method": "elicitation/create",
                    "params": params,
                });
                Some(task.mark(key, request).await)
            }
            None => None,
        };
        #[cfg(not(feature = "tasks"))]
        let _ = key;
        match super::elicit::elicit(peer, params, self.timeout).await {
            Ok(result) => {
                let result =
                    serde_json::to_value(result).map_err(|e| AskError::Failed(e.to_string()))?;
                Answer::from_result(&result)
            }
            Err(ServiceError::Timeout { .. }) => Err(AskError::TimedOut),
            Err(e) => Err(AskError::Failed(e.to_string())),
        }
    }

    /// `sampling/createMessage` to the session's client.
    #[expect(
        deprecated,
        reason = "sampling is deprecated by SEP-2577 and still served"
    )]
    pub(super) async fn sample_session(
        &self,
        peer: &Peer<RoleServer>,
        key: &str,
        sampling: Sampling,
    ) -> Result<Sampled, AskError> {
        #[cfg_attr(not(feature = "tasks"), expect(unused_mut))]
        let mut params = sampling_params(&sampling);
        #[cfg(feature = "tasks")]
        let _shown = match &self.task_on_session {
            Some(task) => {
                params
                    .meta
                    .get_or_insert_with(Default::default)
                    .0
                    .0
                    .insert(RELATED_TASK.to_owned(), related(task));
                let request = serde_json::json!({
                    "method": "sampling/createMessage",
                    "params": params,
                });
                Some(task.mark(key, request).await)
            }
            None => None,
        };
        #[cfg(not(feature = "tasks"))]
        let _ = key;
        match tokio::time::timeout(self.timeout, peer.create_message(params)).await {
            Err(_) | Ok(Err(ServiceError::Timeout { .. })) => Err(AskError::TimedOut),
            Ok(Err(e)) => Err(AskError::Failed(e.to_string())),
            Ok(Ok(result)) => {
                let result =
                    serde_json::to_value(result).map_err(|e| AskError::Failed(e.to_string()))?;
                Sampled::from_result(&result)
            }
        }
    }
}
