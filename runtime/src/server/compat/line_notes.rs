//! What the stdio transport reads of each line beside rmcp (the `task` params
//! rmcp's types drop, the answers to lines it refuses) and hands the
//! [`Transport`](super::Transport) wrapper.

use std::collections::VecDeque;
use std::sync::{Mutex, PoisonError};

use rmcp::model::{ErrorData, RequestId, ServerJsonRpcMessage};
#[cfg(all(feature = "tasks", feature = "sessions"))]
use serde_json::Value;

/// How many `task` params (or refusals) wait at most. rmcp takes each
/// `tools/call` it parses from here at once; only calls it could not parse
/// leave theirs behind, and the oldest of those go first.
pub(in crate::server) const MAX_WAITING: usize = 256;

/// What the stdio transport's `LineGate` hands `compat`'s transport beside the lines: the
/// `task` params it read (when some tool runs as a task) and the answers to
/// the lines it refused.
#[derive(Debug, Default)]
pub(in crate::server) struct LineNotes {
    #[cfg(all(feature = "tasks", feature = "sessions"))]
    pub(in crate::server) tasks: Option<SeenTasks>,
    pub(in crate::server) refused: Refusals,
}

/// The `task` params read from `tools/call` lines, by request id, until the
/// request is handled (2025-11-25's tasks only).
#[cfg(all(feature = "tasks", feature = "sessions"))]
#[derive(Debug, Default)]
pub(in crate::server) struct SeenTasks {
    waiting: Mutex<VecDeque<(RequestId, Value)>>,
}

#[cfg(all(feature = "tasks", feature = "sessions"))]
impl SeenTasks {
    fn waiting(&self) -> std::sync::MutexGuard<'_, VecDeque<(RequestId, Value)>> {
        // Each change is one push or drain: a poisoned queue is consistent.
        self.waiting.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(in crate::server) fn record(&self, id: RequestId, task: Value) {
        let mut waiting = self.waiting();
        if waiting.len() >= MAX_WAITING {
            waiting.pop_front();
        }
        waiting.push_back((id, task));
    }

    /// The `task` param of the request `id`, taken. rmcp hands on the lines
    /// in order, so what was noted before `id` belongs to lines it did not
    /// take as a `tools/call` (invalid params, say): dropped with it, so
    /// that no later request reusing such an id gets that `task`.
    pub(in crate::server) fn take(&self, id: &RequestId) -> Option<Value> {
        let mut waiting = self.waiting();
        let at = waiting.iter().position(|(seen, _)| seen == id)?;
        waiting.drain(..=at).next_back().map(|(_, task)| task)
    }
}

/// The errors that answer refused lines, waiting to be sent.
#[derive(Debug, Default)]
pub(in crate::server) struct Refusals {
    waiting: Mutex<VecDeque<ServerJsonRpcMessage>>,
    added: tokio::sync::Notify,
}

impl Refusals {
    fn waiting(&self) -> std::sync::MutexGuard<'_, VecDeque<ServerJsonRpcMessage>> {
        // Each change is one push or pop: a poisoned queue is consistent.
        self.waiting.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(in crate::server) fn refuse(&self, id: Option<RequestId>, why: String) {
        let answer = ServerJsonRpcMessage::error(ErrorData::invalid_request(why, None), id);
        let mut waiting = self.waiting();
        if waiting.len() >= MAX_WAITING {
            waiting.pop_front();
        }
        waiting.push_back(answer);
        drop(waiting);
        self.added.notify_one();
    }

    /// The next answer, if one waits.
    pub(in crate::server) fn pop(&self) -> Option<ServerJsonRpcMessage> {
        self.waiting().pop_front()
    }

    /// The next answer, when there is one.
    pub(in crate::server) async fn next(&self) -> ServerJsonRpcMessage {
        loop {
            if let Some(answer) = self.pop() {
                return answer;
            }
            // `notify_one` keeps a permit when nobody waits: no wake is lost
            // between the pop above and this wait.
            self.added.notified().await;
        }
    }
}
