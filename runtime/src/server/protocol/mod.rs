//! The protocol as a [`Server`](super::Server) answers it: each request's
//! work, on the server's state below (the catalog, tasks, subscriptions,
//! skills, prompts), for the transports above.

mod answers;
pub(crate) mod groups;
mod lists;
#[cfg(feature = "prompts")]
mod prompts;
mod skills;
mod subscriptions;
#[cfg(feature = "tasks")]
mod tasks;
#[cfg(feature = "tasks")]
mod tasks_2025;
mod tool_changes;

#[cfg(feature = "tasks")]
pub(super) use tasks::Dispatch;
#[cfg(feature = "tasks")]
pub(super) use tasks_2025::serve as serve_2025_task_request;

pub use tool_changes::ToolChangeError;
pub(super) use tool_changes::keep_reading as keep_reading_tool_states;
