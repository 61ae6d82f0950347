//! The builder's prompts (feature `prompts`) and completions of their
//! arguments, and their checks at `build()`.

use std::future::Future;
use std::sync::Arc;

use rmcp::model::{GetPromptResult, Prompt};
use serde_json::{Map, Value};

use super::ServerBuilder;
use crate::server::ServerError;
use crate::server::completions::Completes;
use crate::server::prompts::{PromptFn, ServedPrompt};
use crate::{Context, ToolError};

impl ServerBuilder {
    /// Serves a prompt: `prompts/list` shows `prompt`, `prompts/get` calls
    /// `handler` with the arguments once every required one is given.
    ///
    /// ```no_run
    /// use toolmetadata::server::Server;
    /// use toolmetadata::server::rmcp::model::{GetPromptResult, Prompt, PromptArgument, PromptMessage, Role};
    ///
    /// let server = Server::builder()
    ///     .prompt(
    ///         Prompt::new("review", Some("Review a file"), Some(vec![
    ///             PromptArgument::new("path").with_required(true),
    ///         ])),
    ///         |args, _cx| async move {
    ///             let path = args.get("path").and_then(|v| v.as_str()).unwrap_or_default().to_owned();
    ///             Ok(GetPromptResult::new(vec![PromptMessage::new_text(
    ///                 Role::User,
    ///                 format!("Review {path}"),
    ///             )]))
    ///         },
    ///     )
    ///     .build();
    /// ```
    pub fn prompt<F, Fut>(mut self, prompt: Prompt, handler: F) -> Self
    where
        F: Fn(Map<String, Value>, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<GetPromptResult, ToolError>> + Send + 'static,
    {
        let handler: PromptFn = Arc::new(move |args, cx| Box::pin(handler(args, cx)));
        self.prompts.push(ServedPrompt { prompt, handler });
        self
    }

    /// Completes argument `argument` of prompt `prompt`: `completer` gets what
    /// the person typed so far and suggests values (at most 100 are sent).
    pub fn complete_prompt<F, Fut>(
        self,
        prompt: impl Into<String>,
        argument: impl Into<String>,
        completer: F,
    ) -> Self
    where
        F: Fn(String, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Vec<String>> + Send + 'static,
    {
        self.completion(
            Completes::Prompt {
                name: prompt.into(),
                argument: argument.into(),
            },
            completer,
        )
    }
}

/// Prompt names are unique.
pub(super) fn check_prompts(prompts: &[ServedPrompt]) -> Result<(), ServerError> {
    for (i, p) in prompts.iter().enumerate() {
        if prompts[..i].iter().any(|q| q.prompt.name == p.prompt.name) {
            return Err(ServerError::build(format!(
                "two prompts are named `{}`",
                p.prompt.name
            )));
        }
    }
    Ok(())
}

/// Whether prompt `name` has the argument `argument`.
pub(super) fn has_argument(prompts: &[ServedPrompt], name: &str, argument: &str) -> bool {
    prompts.iter().any(|p| {
        p.prompt.name == name
            && p.prompt
                .arguments
                .iter()
                .flatten()
                .any(|a| a.name == argument)
    })
}
