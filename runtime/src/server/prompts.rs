//! Prompts beside the tools (`prompts/list`, `prompts/get`) and completions of
//! their arguments (`completion/complete`).

use std::sync::Arc;

use rmcp::ErrorData;
use rmcp::model::{GetPromptRequestParams, GetPromptResponse, GetPromptResult, Prompt};
use rmcp::service::{RequestContext, RoleServer};

use super::asker::Asker;
use super::attempt::Attempt;
use serde_json::{Map, Value};

use crate::{Context, ToolError};
use toolmetadata_core::BoxFuture;

/// A prompt's handler, erased: its arguments in, its messages out.
pub(super) type PromptFn = Arc<
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
    pub(super) handler: PromptFn,
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

impl super::Server {
    /// `prompts/get`, in its span.
    pub(super) async fn serve_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let Some(served) = self
            .inner
            .prompts
            .iter()
            .find(|p| p.prompt.name == request.name)
        else {
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown prompt `{}`",
                    toolmetadata_core::seam::shorten(&request.name, 100)
                ),
                None,
            ));
        };
        let args = request.arguments.clone().unwrap_or_default();
        let missing: Vec<&str> = served
            .prompt
            .arguments
            .iter()
            .flatten()
            .filter(|a| a.required == Some(true) && !args.contains_key(&a.name))
            .map(|a| a.name.as_str())
            .collect();
        if !missing.is_empty() {
            return Err(ErrorData::invalid_params(
                format!(
                    "prompt `{}`: missing required argument{} {}",
                    served.prompt.name,
                    if missing.len() == 1 { "" } else { "s" },
                    missing
                        .iter()
                        .map(|m| format!("`{m}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                None,
            ));
        }
        // A prompt's handler may ask the client too (`Context::ask`,
        // `sample`, `roots`): on 2026-07-28 the questions go out in an
        // `InputRequiredResult`, as a tool's do.
        let asker = Asker::for_request(
            &Attempt::of_prompt(&request),
            &context,
            &self.inner.ask,
            self.inner.stores.replay.as_ref(),
        )
        .await?;
        let cx = self.asking_context(&served.prompt.name, context, asker.clone());
        let answered = (served.handler)(args, cx).await;
        if let Some(input) = asker.input_required(&self.inner.ask)? {
            return Ok(input.into());
        }
        match answered {
            Ok(result) => Ok(result.into()),
            Err(e) => Err(ErrorData::invalid_params(
                format!("prompt `{}`: {}", served.prompt.name, e.message()),
                None,
            )),
        }
    }
}
