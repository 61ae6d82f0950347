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
#[non_exhaustive]
pub enum Speaker {
    /// The person's side (the server's prompt).
    User,
    /// The model.
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

    /// The conversation, in order: who said each message, and its text.
    pub fn messages(&self) -> impl Iterator<Item = (Speaker, &str)> {
        self.messages
            .iter()
            .map(|(speaker, text)| (*speaker, text.as_str()))
    }

    /// The most tokens the model may answer with.
    pub fn max_tokens(&self) -> u32 {
        self.max_tokens
    }

    /// The system prompt given with [`system_prompt`](Self::system_prompt).
    pub fn given_system_prompt(&self) -> Option<&str> {
        self.system_prompt.as_deref()
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
    #[doc(hidden)]
    pub fn from_result(result: &Value) -> Result<Sampled, AskError> {
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
