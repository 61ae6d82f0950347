//! A task's handler asking its client (the Tasks extension, SEP-2663, with
//! SEP-2322's input requests): the request is written on the task's record,
//! so `tasks/get` on any instance shows the task `input_required` with it;
//! the client answers with `tasks/update`, on any instance, which moves the
//! answer into the record; the handler, watching its record, takes it and
//! goes on. Several requests may wait at once, each under its own key, and
//! be answered one by one.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::sync::Notify;

use super::store::{TaskChange, TaskStore};
use crate::ask::AskError;

/// Where the related task is named in the `_meta` of `tasks/result`'s answer
/// and of a task's requests to its client.
#[cfg(all(feature = "tasks", feature = "sessions"))]
pub(in crate::server) const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";

/// How often a waiting handler first looks at its record for an answer
/// given on another instance (one given here wakes it at once); the
/// interval doubles up to [`POLL_MAX`], so that idle questions cost a shared
/// store little.
const POLL_FIRST: Duration = Duration::from_millis(250);
const POLL_MAX: Duration = Duration::from_secs(2);

/// One task's way to ask its client.
pub(super) struct TaskInput {
    store: Arc<dyn TaskStore>,
    id: String,
    /// Woken when `tasks/update` reaches this instance.
    answered: Arc<Notify>,
}

impl TaskInput {
    pub(super) fn new(store: Arc<dyn TaskStore>, id: String, answered: Arc<Notify>) -> Self {
        TaskInput {
            store,
            id,
            answered,
        }
    }

    /// The task's id.
    #[cfg(all(feature = "tasks", feature = "sessions"))]
    pub(super) fn id(&self) -> &str {
        &self.id
    }

    /// Shows the task `input_required` with `request` (an `InputRequest` as
    /// JSON) under `key` while a 2025-11-25 session's client is asked
    /// directly; the mark goes when the returned guard drops. A store out
    /// of reach leaves the task `working`: the question is asked anyway.
    #[cfg(all(feature = "tasks", feature = "sessions"))]
    pub(super) async fn mark(&self, key: &str, request: Value) -> impl Drop + use<> {
        let change = TaskChange::Ask {
            key: key.to_owned(),
            request,
        };
        let recorded = self.store.update(&self.id, change).await;
        if let Err(e) = &recorded {
            tracing::debug!(task = %self.id, "a question not shown on its task: {e}");
        }
        Asked {
            store: self.store.clone(),
            id: self.id.clone(),
            key: key.to_owned(),
            open: recorded.is_ok(),
        }
    }

    /// Asks `request` (an `InputRequest` as JSON) under `key` and waits for
    /// the answer, at most `timeout` (the server's ask timeout), and no
    /// longer than the task lives: its cancellation, its expiry or a lost
    /// lease stops the handler, and this wait with it. A question that is
    /// not waited for any more (timed out, or the handler dropped the wait)
    /// is withdrawn from the task.
    pub(super) async fn request(
        &self,
        key: &str,
        request: Value,
        timeout: Duration,
    ) -> Result<Value, AskError> {
        let mut asked = Asked {
            store: self.store.clone(),
            id: self.id.clone(),
            key: key.to_owned(),
            open: true,
        };
        self.store
            .update(
                &self.id,
                TaskChange::Ask {
                    key: key.to_owned(),
                    request,
                },
            )
            .await
            .map_err(|e| AskError::Failed(format!("the question could not be recorded: {e}")))?;
        let deadline = tokio::time::Instant::now() + timeout;
        let mut poll = POLL_FIRST;
        loop {
            // Registered before the record is read, so that an answer
            // landing in between still wakes this wait.
            let woken = self.answered.notified();
            tokio::pin!(woken);
            woken.as_mut().enable();
            match self.store.get(&self.id).await {
                Ok(Some(record)) => {
                    if let Some(response) = record.input_responses.get(key) {
                        let response = response.clone();
                        asked.open = false;
                        let taken = TaskChange::Take {
                            key: key.to_owned(),
                        };
                        if let Err(e) = self.store.update(&self.id, taken).await {
                            // The answer is the handler's either way; a
                            // leftover copy goes with the record.
                            tracing::debug!(task = %self.id, "an answer not cleared: {e}");
                        }
                        return Ok(response);
                    }
                    if record.state.is_terminal() {
                        asked.open = false;
                        return Err(AskError::Failed("the task has ended".to_owned()));
                    }
                }
                Ok(None) => {
                    asked.open = false;
                    return Err(AskError::Failed("the task is gone".to_owned()));
                }
                // A store out of reach now may answer at the next look.
                Err(e) => tracing::warn!(task = %self.id, "waiting for an answer: {e}"),
            }
            tokio::select! {
                () = &mut woken => {}
                () = tokio::time::sleep(poll) => poll = (poll * 2).min(POLL_MAX),
                () = tokio::time::sleep_until(deadline) => return Err(AskError::TimedOut),
            }
        }
    }
}

/// Whether `response` can answer `request` (an `InputRequest` as JSON): the
/// shape its method's result has. A misshapen answer is refused at
/// `tasks/update`, so that the question stays open for a right one.
pub(super) fn answers(request: &Value, response: &Value) -> Result<(), String> {
    let method = request.get("method").and_then(Value::as_str).unwrap_or("");
    let fits = match method {
        "elicitation/create" => {
            matches!(
                response.get("action").and_then(Value::as_str),
                Some("accept" | "decline" | "cancel")
            ) && response.get("content").is_none_or(Value::is_object)
        }
        "sampling/createMessage" => {
            response.get("model").is_some_and(Value::is_string) && response.get("content").is_some()
        }
        "roots/list" => response.get("roots").is_some_and(Value::is_array),
        _ => true,
    };
    if fits {
        Ok(())
    } else {
        Err(format!("not an answer to {method}"))
    }
}

/// A question on the task's record while its handler waits: withdrawn when
/// the wait ends without an answer, so that the task does not stay
/// `input_required` for a question nobody waits for.
struct Asked {
    store: Arc<dyn TaskStore>,
    id: String,
    key: String,
    open: bool,
}

impl Drop for Asked {
    fn drop(&mut self) {
        if !self.open {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let (store, id) = (self.store.clone(), self.id.clone());
        let key = std::mem::take(&mut self.key);
        runtime.spawn(async move {
            if let Err(e) = store.update(&id, TaskChange::Withdraw { key }).await {
                tracing::debug!(task = %id, "a question not withdrawn: {e}");
            }
        });
    }
}
