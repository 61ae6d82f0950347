//! Prompts beside the tools (`prompts/list`, `prompts/get`) and completions of
//! their arguments (`completion/complete`).

use std::sync::Arc;

use rmcp::model::{GetPromptResult, Prompt};

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
