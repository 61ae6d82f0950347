//! What an asker sends and keeps, as the protocol has it: the input
//! requests it has pending, rmcp's params for a question or a sampling
//! request, the digests a `requestState` binds answers to, and a task's
//! related-task meta.

use crate::ask::{AskError, Question};
use crate::sampling::Sampling;
#[cfg(all(feature = "tasks", feature = "sessions"))]
use crate::server::task_input::TaskInput;
use rmcp::ErrorData;
use rmcp::model::{ElicitRequest, ElicitRequestParams, ElicitationSchema, InputRequest};
use serde_json::Value;

/// The request's `params`, built as rmcp's type rather than parsed from
/// JSON: parsing would compile rmcp's deserializers of every sampling
/// type into each server, for a request the server only sends.
#[expect(
    deprecated,
    reason = "sampling is deprecated by SEP-2577 and still served"
)]
pub(super) fn sampling_params(sampling: &Sampling) -> rmcp::model::CreateMessageRequestParams {
    use crate::sampling::Speaker;
    use rmcp::model::{CreateMessageRequestParams, Role, SamplingMessage};
    let messages = sampling
        .messages()
        .map(|(speaker, text)| {
            let role = match speaker {
                Speaker::Assistant => Role::Assistant,
                // The user, and any speaker newer than this server.
                _ => Role::User,
            };
            SamplingMessage::new(role, rmcp::model::SamplingMessageContentBlock::text(text))
        })
        .collect();
    let params = CreateMessageRequestParams::new(messages, sampling.max_tokens());
    match sampling.given_system_prompt() {
        Some(system) => params.with_system_prompt(system),
        None => params,
    }
}

/// A question as shown, for `State::shown`: its message and its form.
pub(super) fn digest(question: &Question) -> Value {
    use sha2::Digest;
    let mut hash = sha2::Sha256::new();
    hash.update(question.message().as_bytes());
    hash.update([0]);
    hash.update(question.schema().to_string().as_bytes());
    Value::String(toolmetadata_core::seam::hex(&hash.finalize()[..16]))
}

/// What identifies a state in the replay store: a digest of it, so that a
/// long state costs a store no more than a short one.
pub(super) fn fingerprint(sealed: &str) -> String {
    use sha2::Digest;
    toolmetadata_core::seam::hex(&sha2::Sha256::digest(sealed.as_bytes()))
}

pub(super) fn form_params(question: &Question) -> Result<ElicitRequestParams, AskError> {
    let requested_schema: ElicitationSchema =
        serde_json::from_value(question.schema()).map_err(|e| {
            AskError::Failed(format!("the form is not a valid elicitation schema: {e}"))
        })?;
    Ok(ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: question.message().to_owned(),
        requested_schema,
    })
}

/// The `related-task` metadata of a task's request to its client.
#[cfg(all(feature = "tasks", feature = "sessions"))]
pub(super) fn related(task: &TaskInput) -> Value {
    serde_json::json!({ "taskId": task.id() })
}

/// An input request this attempt could not answer yet.
pub(super) enum Pending {
    Question(Question),
    Sampling(Sampling),
    Roots,
}

impl Pending {
    /// The input request, as the `InputRequiredResult` carries it, built as
    /// rmcp's types rather than written as JSON and parsed back.
    #[expect(
        deprecated,
        reason = "sampling and roots are deprecated by SEP-2577 and still served"
    )]
    pub(super) fn request(&self) -> Result<InputRequest, ErrorData> {
        Ok(match self {
            Pending::Question(question) => InputRequest::Elicitation(ElicitRequest::new(
                form_params(question)
                    .map_err(|e| ErrorData::internal_error(e.to_string(), None))?,
            )),
            Pending::Sampling(sampling) => InputRequest::CreateMessage(
                rmcp::model::CreateMessageRequest::new(sampling_params(sampling)),
            ),
            Pending::Roots => InputRequest::ListRoots(rmcp::model::ListRootsRequest::default()),
        })
    }

    /// The input request as JSON, for a task's record.
    #[cfg(feature = "tasks")]
    pub(super) fn request_json(&self) -> Result<Value, AskError> {
        self.request()
            .and_then(|request| {
                serde_json::to_value(request)
                    .map_err(|e| ErrorData::internal_error(e.to_string(), None))
            })
            .map_err(|e| AskError::Failed(e.message.into_owned()))
    }

    /// A digest of the request as it was made (see `State::shown`).
    pub(super) fn digest(&self) -> Value {
        match self {
            Pending::Question(question) => digest(question),
            Pending::Sampling(sampling) => {
                use sha2::Digest;
                // The JSON value's text, sorted keys: the bytes states sealed
                // by earlier versions were bound to.
                let params = serde_json::to_value(sampling_params(sampling))
                    .map(|params| params.to_string())
                    .unwrap_or_default();
                let hash = sha2::Sha256::digest(params.as_bytes());
                Value::String(toolmetadata_core::seam::hex(&hash[..16]))
            }
            Pending::Roots => Value::String("roots/list".to_owned()),
        }
    }
}
