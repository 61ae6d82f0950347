//! What a [`ServerBuilder`](super::ServerBuilder) was told of tasks
//! (feature `tasks`), and the server's tasks built from it.

use std::sync::Arc;
use std::time::Duration;

use crate::metadata::TaskSupport;
use crate::server::ServerError;
use crate::server::served::Served;
use crate::server::store::{InMemoryTaskStore, TaskStore};
use crate::server::task::{DEFAULT_TASK_TTL, Tasks};

/// What the builder was told of tasks.
#[derive(Default)]
pub(super) struct TaskSettings {
    pub(super) store: Option<Arc<dyn TaskStore>>,
    pub(super) ttl: Option<Duration>,
    /// The tools that ask before they become tasks (`ask_before_task`).
    pub(super) asks_first: Vec<String>,
}

impl TaskSettings {
    /// The server's tasks, each task leased for `lease`; the tools named by
    /// `ask_before_task` marked in `tools`.
    pub(super) fn build(self, tools: &mut [Served], lease: Duration) -> Result<Tasks, ServerError> {
        mark_asks_first(tools, &self.asks_first)?;
        Ok(Tasks::new(
            self.store
                .unwrap_or_else(|| Arc::new(InMemoryTaskStore::default())),
            self.ttl.unwrap_or(DEFAULT_TASK_TTL),
            lease,
        ))
    }
}

/// Marks the tools `names` as asking before their tasks start: each must be
/// one of `tools`, and one that may run as a task.
fn mark_asks_first(tools: &mut [Served], names: &[String]) -> Result<(), ServerError> {
    for name in names {
        let shown = toolmetadata_core::seam::shorten(name, 100);
        let Some(served) = tools.iter_mut().find(|t| t.tool.name == *name) else {
            return Err(ServerError::build(format!(
                "ask_before_task: the server has no tool `{shown}`"
            )));
        };
        if served.task == TaskSupport::Forbidden {
            return Err(ServerError::build(format!(
                "ask_before_task: the tool `{shown}` never runs as a task; \
                 give it `task = \"optional\"` or `task = \"required\"` in its metadata"
            )));
        }
        served.asks_first = true;
    }
    Ok(())
}
