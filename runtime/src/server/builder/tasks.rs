//! The builder's settings for tasks (feature `tasks`): where they are kept,
//! for how long, and which tools gather their input before they become one.

use std::sync::Arc;
use std::time::Duration;

use super::ServerBuilder;
use crate::server::store::TaskStore;

impl ServerBuilder {
    /// Where tasks are kept (default: an
    /// [`InMemoryTaskStore`](crate::server::store::InMemoryTaskStore) of at
    /// most 1000 tasks). Several instances behind a round-robin balancer share one
    /// store, such as Redis or a database; see [`TaskStore`] for what it must
    /// guarantee.
    pub fn task_store(mut self, store: impl TaskStore) -> Self {
        self.tasks.store = Some(Arc::new(store));
        self
    }

    /// How long a task and its result are kept after the call that started
    /// it (default 1 hour). A task still running then is cancelled, so no
    /// work outlives it.
    pub fn task_ttl(mut self, ttl: Duration) -> Self {
        self.tasks.ttl = Some(ttl);
        self
    }

    /// The tool `name` asks its questions before it becomes a task (the
    /// tasks extension's MRTR-then-task composition, 2026-07-28). A call that
    /// brings no answers runs as a plain call: the questions its handler asks
    /// end it with an `InputRequiredResult`, and the retry that answers them
    /// starts the task, whose handler, run from the start, finds those
    /// answers. A question the task asks later is a task's question
    /// (`input_required` in `tasks/get`). Without this, a task tool becomes
    /// a task as its call starts and asks from inside it.
    ///
    /// The handler should ask before any long work: until it asks, its call
    /// is a plain one. A client that can answer nothing (no elicitation,
    /// sampling or roots) gets the task at once, as without this; a
    /// 2025-11-25 session is not affected either: its client chooses to
    /// start a task, and the task asks through the session.
    ///
    /// The answers' state is used once, as the task starts: when the task
    /// store is full, an optional task tool goes on as a plain call with
    /// them; otherwise (a required one, a store that is down) the retry
    /// fails and the call starts over without them.
    ///
    /// [`build`](Self::build) fails when the server has no tool `name`, or
    /// when that tool never runs as a task (`task = "forbidden"`).
    pub fn ask_before_task(mut self, name: impl Into<String>) -> Self {
        self.tasks.asks_first.push(name.into());
        self
    }
}
