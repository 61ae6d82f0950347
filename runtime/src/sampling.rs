//! Asking the client's model ([`Context::sample`](crate::Context::sample)):
//! MCP sampling, `sampling/createMessage`. On a 2025-11-25 session the
//! request goes to the client and the handler waits (bounded); on a
//! 2026-07-28 request it is an input request of the call's
//! `InputRequiredResult`, and the handler runs again with the answer, as
//! with a question ([`crate::ask`]).

use serde_json::Value;

use crate::ask::AskError;

/// Who said a message of the conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Speaker {
    User,
    Assistant,
}

/// A request for the client's model: the conversation so far (text), the
/// most tokens to answer with, and an optional system prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct Sampling {
    messages: Vec<(Speaker, String)>,
    max_tokens: u32,
    system_prompt: Option<String>,
    key: Option<String>,
}

impl Sampling {
    /// One user message, answered in at most `max_tokens` tokens.
    pub fn new(prompt: impl Into<String>, max_tokens: u32) -> Self {
        Sampling {
            messages: vec![(Speaker::User, prompt.into())],
            max_tokens,
            system_prompt: None,
            key: None,
        }
    }

    /// The key the request goes by in a 2026-07-28 `InputRequiredResult`,
    /// as [`Question::key`](crate::ask::Question::key).
    pub fn key(mut self, key: impl Into<String>) -> Self {
        self.key = Some(key.into());
        self
    }

    /// The key given with [`key`](Self::key).
    pub fn given_key(&self) -> Option<&str> {
        self.key.as_deref()
    }

    /// A message the model answered before (for a conversation).
    pub fn assistant(mut self, text: impl Into<String>) -> Self {
        self.messages.push((Speaker::Assistant, text.into()));
        self
    }

    /// A further user message.
    pub fn user(mut self, text: impl Into<String>) -> Self {
        self.messages.push((Speaker::User, text.into()));
        self
    }

    /// The system prompt the client may use.
    pub fn system_prompt(mut self, text: impl Into<String>) -> Self {
        self.system_prompt = Some(text.into());
        self
    }

    /// The request's `params`, built as rmcp's type rather than parsed from
    /// JSON: parsing would compile rmcp's deserializers of every sampling
    /// type into each server, for a request the server only sends.
    #[cfg(feature = "server")]
    #[expect(
        deprecated,
        reason = "sampling is deprecated by SEP-2577 and still served"
    )]
    pub(crate) fn params(&self) -> rmcp::model::CreateMessageRequestParams {
        use rmcp::model::{CreateMessageRequestParams, Role, SamplingMessage};
        let messages = self
            .messages
            .iter()
            .map(|(speaker, text)| {
                let role = match speaker {
                    Speaker::User => Role::User,
                    Speaker::Assistant => Role::Assistant,
                };
                SamplingMessage::new(role, rmcp::model::SamplingMessageContentBlock::text(text))
            })
            .collect();
        let params = CreateMessageRequestParams::new(messages, self.max_tokens);
        match &self.system_prompt {
            Some(system) => params.with_system_prompt(system),
            None => params,
        }
    }
}

/// What the client's model answered.
#[derive(Debug, Clone, PartialEq)]
pub struct Sampled {
    text: Option<String>,
    model: String,
    stop_reason: Option<String>,
    result: Value,
}

impl Sampled {
    /// The answer's text (its text blocks joined), if it has any.
    pub fn text(&self) -> Option<&str> {
        self.text.as_deref()
    }

    /// The model that answered, as the client names it.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// Why it stopped (`endTurn`, `maxTokens`…), if the client says.
    pub fn stop_reason(&self) -> Option<&str> {
        self.stop_reason.as_deref()
    }

    /// The whole `CreateMessageResult`, for content other than text.
    pub fn result(&self) -> &Value {
        &self.result
    }

    /// The answer of a `CreateMessageResult` as JSON.
    // The server's: only it receives answers.
    #[cfg_attr(not(feature = "server"), allow(dead_code))]
    pub(crate) fn from_result(result: &Value) -> Result<Sampled, AskError> {
        let Some(model) = result.get("model").and_then(Value::as_str) else {
            return Err(AskError::Failed(format!(
                "the client's sampling answer names no model: {}",
                crate::text::shorten(&result.to_string(), 120)
            )));
        };
        let blocks: Vec<&Value> = match result.get("content") {
            Some(Value::Array(blocks)) => blocks.iter().collect(),
            Some(block) => vec![block],
            None => Vec::new(),
        };
        let texts: Vec<&str> = blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect();
        Ok(Sampled {
            text: (!texts.is_empty()).then(|| texts.join("")),
            model: model.to_owned(),
            stop_reason: result
                .get("stopReason")
                .and_then(Value::as_str)
                .map(str::to_owned),
            result: result.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[cfg(feature = "server")]
    #[test]
    fn a_request_reads_as_mcp_writes_it() {
        let request = Sampling::new("Capital of France?", 100)
            .assistant("Paris.")
            .user("And of Italy?")
            .system_prompt("Be brief");
        assert_eq!(
            serde_json::to_value(request.params()).expect("JSON"),
            json!({
                "messages": [
                    {"role": "user", "content": {"type": "text", "text": "Capital of France?"}},
                    {"role": "assistant", "content": {"type": "text", "text": "Paris."}},
                    {"role": "user", "content": {"type": "text", "text": "And of Italy?"}}
                ],
                "maxTokens": 100,
                "systemPrompt": "Be brief"
            })
        );
    }

    #[test]
    fn an_answer_reads_as_mcp_writes_it() {
        let answer = Sampled::from_result(&json!({
            "model": "m", "role": "assistant", "stopReason": "endTurn",
            "content": {"type": "text", "text": "Rome."}
        }))
        .expect("an answer");
        assert_eq!(
            (answer.text(), answer.model(), answer.stop_reason()),
            (Some("Rome."), "m", Some("endTurn"))
        );
        assert!(Sampled::from_result(&json!({"content": []})).is_err());
    }
}
