//! Completions (`completion/complete`) of what the server serves: a prompt's
//! arguments (feature `prompts`) and a resource template's variables
//! (feature `resources`).

use std::sync::Arc;

use crate::Context;
use toolmetadata_core::BoxFuture;

/// A completer, erased: the value typed so far in, suggestions out.
pub(super) type Completer =
    Arc<dyn Fn(String, Context) -> BoxFuture<'static, Vec<String>> + Send + Sync>;

/// What a completer completes: an argument of a prompt or a variable of a
/// resource template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Completes {
    #[cfg(feature = "prompts")]
    Prompt { name: String, argument: String },
    #[cfg(feature = "resources")]
    Template {
        uri_template: String,
        variable: String,
    },
}

/// One completer the server serves.
pub(super) struct ServedCompletion {
    pub(super) completes: Completes,
    pub(super) completer: Completer,
}
