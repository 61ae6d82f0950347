//! The protocol as a [`Server`](super::Server) answers it: each request's
//! work, on the server's state below (the catalog, tasks, subscriptions,
//! skills, prompts), for the transports above.

mod answers;
pub(crate) mod groups;
mod lists;
#[cfg(feature = "prompts")]
mod prompts;
mod skills;
#[cfg(feature = "subscriptions")]
mod subscriptions;
#[cfg(feature = "tasks")]
mod tasks;
#[cfg(all(feature = "tasks", feature = "sessions"))]
mod tasks_2025;
#[cfg(feature = "subscriptions")]
mod tool_changes;

#[cfg(feature = "tasks")]
pub(super) use tasks::Dispatch;
#[cfg(all(feature = "tasks", feature = "sessions"))]
pub(super) use tasks_2025::serve as serve_2025_task_request;

#[cfg(feature = "subscriptions")]
pub use tool_changes::ToolChangeError;
#[cfg(feature = "subscriptions")]
pub(super) use tool_changes::keep_reading as keep_reading_tool_states;
