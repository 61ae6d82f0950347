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

/// How often a waiting handler looks at its record for an answer given on
/// another instance; one given here wakes it at once.
const ANSWER_POLL: Duration = Duration::from_millis(250);

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

    /// Asks `request` (an `InputRequest` as JSON) under `key` and waits for
    /// the answer, as long as the task lives: its cancellation, its expiry
    /// or a lost lease stops the handler, and this wait with it.
    pub(super) async fn request(&self, key: &str, request: Value) -> Result<Value, AskError> {
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
                        return Err(AskError::Failed("the task has ended".to_owned()));
                    }
                }
                Ok(None) => return Err(AskError::Failed("the task is gone".to_owned())),
                // A store out of reach now may answer at the next look.
                Err(e) => tracing::warn!(task = %self.id, "waiting for an answer: {e}"),
            }
            tokio::select! {
                () = &mut woken => {}
                () = tokio::time::sleep(ANSWER_POLL) => {}
            }
        }
    }
}
