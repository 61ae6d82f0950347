//! [`Served`]: one tool as the server holds it, whatever made it (a
//! generated tool set or metadata loaded at run time): its entry, its
//! handler, and what is checked before the handler runs.

use std::sync::Arc;

use rmcp::model::Tool;
use serde_json::{Map, Value};

use crate::metadata::TaskSupport;
use crate::{CallOutcome, Context};
use toolmetadata_core::BoxFuture;

/// A call of one tool, erased: arguments and context in, outcome out (the
/// handler behind it is the user's).
pub(super) type Invoke =
    Arc<dyn Fn(Map<String, Value>, Context) -> BoxFuture<'static, CallOutcome> + Send + Sync>;

/// One tool the server serves.
pub(super) struct Served {
    pub(super) tool: Tool,
    pub(super) description: String,
    pub(super) discoverable: bool,
    pub(super) keywords: Vec<String>,
    pub(super) handler: Invoke,
    pub(super) confirm: Option<Arc<toolmetadata_core::seam::ConfirmPlan>>,
    /// Whether calls may or must run as tasks.
    pub(super) task: TaskSupport,
    /// Whether the tool asks before it becomes a task
    /// (`ServerBuilder::ask_before_task`).
    #[cfg(feature = "tasks")]
    pub(super) asks_first: bool,
    /// The OAuth scopes a caller needs (`scopes`); none for stdio callers.
    pub(super) scopes: Vec<String>,
    /// The groups it is in (`toolGroups`).
    pub(super) groups: Vec<String>,
    /// `[limits]`, held.
    #[cfg(feature = "limits")]
    pub(super) limits: Option<Arc<super::policy::limits::Limiter>>,
    /// The parameters the server fills in (`from`).
    pub(super) bound: Vec<super::policy::bound::Bound>,
}

impl Served {
    /// How long a call may run (`[limits] timeout`), when limits are held.
    pub(super) fn timeout(&self) -> Option<std::time::Duration> {
        #[cfg(feature = "limits")]
        return self.limits.as_ref().and_then(|l| l.limits.timeout);
        #[cfg(not(feature = "limits"))]
        None
    }
}
