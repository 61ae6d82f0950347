//! Prompts beside the tools (`prompts/list`, `prompts/get`) and completions of
//! their arguments (`completion/complete`).

use std::future::Future;
use std::sync::Arc;

use rmcp::model::{GetPromptResult, Prompt};
use serde_json::{Map, Value};

use super::builder::ServerBuilder;
use crate::{BoxFuture, Context, ToolError};

/// A prompt's handler, erased: its arguments in, its messages out.
pub(super) type PromptHandler = Arc<
    dyn Fn(Map<String, Value>, Context) -> BoxFuture<'static, Result<GetPromptResult, ToolError>>
        + Send
        + Sync,
>;

/// A completer, erased: the value typed so far in, suggestions out.
pub(super) type Completer =
    Arc<dyn Fn(String, Context) -> BoxFuture<'static, Vec<String>> + Send + Sync>;

/// One prompt the server serves.
pub(super) struct ServedPrompt {
    pub(super) prompt: Prompt,
    pub(super) handler: PromptHandler,
}

/// What a completer completes: an argument of a prompt or a variable of a
/// resource template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Completes {
    Prompt {
        name: String,
        argument: String,
    },
    Template {
        uri_template: String,
        variable: String,
    },
}

pub(super) struct ServedCompletion {
    pub(super) completes: Completes,
    pub(super) completer: Completer,
}

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
        let handler: PromptHandler = Arc::new(move |args, cx| Box::pin(handler(args, cx)));
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

    /// Completes variable `variable` of the resource template `uri_template`
    /// (as given to [`ServerBuilder::resource_template`]).
    pub fn complete_resource<F, Fut>(
        self,
        uri_template: impl Into<String>,
        variable: impl Into<String>,
        completer: F,
    ) -> Self
    where
        F: Fn(String, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Vec<String>> + Send + 'static,
    {
        self.completion(
            Completes::Template {
                uri_template: uri_template.into(),
                variable: variable.into(),
            },
            completer,
        )
    }

    fn completion<F, Fut>(mut self, completes: Completes, completer: F) -> Self
    where
        F: Fn(String, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Vec<String>> + Send + 'static,
    {
        let completer: Completer = Arc::new(move |typed, cx| Box::pin(completer(typed, cx)));
        self.completions.push(ServedCompletion {
            completes,
            completer,
        });
        self
    }
}
