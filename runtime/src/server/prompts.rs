//! Prompts beside the tools (`prompts/list`, `prompts/get`; feature
//! `prompts`).

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

/// One prompt the server serves.
pub(super) struct ServedPrompt {
    pub(super) prompt: Prompt,
    pub(super) handler: PromptFn,
}
