//! A tool call running as a task, driven the way the connection's protocol
//! does it: the 2026-07-28 Tasks extension (`tasks/get`, `tasks/update`,
//! `tasks/cancel`), or 2025-11-25's task flow (`tasks/get`,
//! `tasks/result`, `tasks/cancel`).

use std::time::Duration;

use rmcp::model::{
    CancelTaskParams, ErrorData, GetTaskParams, TaskPayload, TaskStatus, UpdateTaskParams,
};
use serde_json::{Value, json};

use super::called::{Called, called_from};
use super::connection::{Connection, Protocol};
use super::error::Error;

/// How often a task's state is asked for while waiting: tests run in one
/// process, so a short wait is cheap.
const POLL: Duration = Duration::from_millis(20);

/// A task's state as `tasks/get` answers it.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskState {
    /// Working, input required, completed, failed or cancelled.
    pub status: TaskStatus,
    /// The status message: what the handler last reported with
    /// `Context::progress` (the message, else "3 of 10").
    pub message: Option<String>,
}

impl TaskState {
    /// Whether the task has ended (completed, failed or cancelled).
    pub fn ended(&self) -> bool {
        matches!(
            self.status,
            TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
        )
    }
}

/// A tool call the server runs as a task ([`super::Client::start`]).
#[derive(Debug)]
pub struct Task<'c> {
    pub(super) connection: &'c Connection,
    pub(super) id: String,
}

impl Task<'_> {
    /// The task's id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The task's state now (`tasks/get`).
    pub async fn status(&self) -> Result<TaskState, Error> {
        Ok(self.poll().await?.0)
    }

    /// Asks for the task's state until `done` says so, answering the
    /// questions the task asks on the way (through the client's person);
    /// the state that satisfied it. Bounded by the client's timeout.
    pub async fn wait_until(&self, done: impl Fn(&TaskState) -> bool) -> Result<TaskState, Error> {
        let connection = self.connection;
        connection
            .within(&format!("task {} state wanted", self.id), async {
                loop {
                    let (state, _) = self.poll().await?;
                    if done(&state) {
                        return Ok(state);
                    }
                    tokio::time::sleep(POLL).await;
                }
            })
            .await
    }

    /// Waits for the task's end and returns the call's result; a task that
    /// failed is the error it failed with, a cancelled one
    /// [`Error::Cancelled`]. Bounded by the client's timeout.
    pub async fn result(&self) -> Result<Called, Error> {
        let connection = self.connection;
        connection
            .within(&format!("end of task {}", self.id), async {
                match connection.protocol {
                    // `tasks/result` waits for the end itself.
                    Protocol::V2025_11_25 => {
                        let answer = connection
                            .custom("tasks/result", json!({"taskId": self.id}))
                            .await?;
                        called_from(answer)
                    }
                    Protocol::V2026_07_28 => loop {
                        let (state, payload) = self.poll().await?;
                        match payload {
                            Some(TaskPayload::Completed { result }) => {
                                return called_from(Value::Object(result));
                            }
                            Some(TaskPayload::Failed { error }) => {
                                return Err(
                                    match serde_json::from_value::<ErrorData>(Value::Object(error))
                                    {
                                        Ok(error) => Error::Protocol(error),
                                        Err(e) => Error::Connection(format!(
                                            "task {} failed with an unreadable error: {e}",
                                            self.id
                                        )),
                                    },
                                );
                            }
                            _ if state.status == TaskStatus::Cancelled => {
                                return Err(Error::Cancelled);
                            }
                            _ => tokio::time::sleep(POLL).await,
                        }
                    },
                }
            })
            .await
    }

    /// Asks the server to cancel the task (`tasks/cancel`); its state after.
    pub async fn cancel(&self) -> Result<TaskState, Error> {
        let connection = self.connection;
        match connection.protocol {
            Protocol::V2025_11_25 => {
                let answer = connection
                    .custom("tasks/cancel", json!({"taskId": self.id}))
                    .await?;
                state_from(&answer)
            }
            Protocol::V2026_07_28 => {
                connection
                    .within("tasks/cancel answer", async {
                        connection
                            .service
                            .cancel_task(CancelTaskParams::new(self.id.clone()))
                            .await
                            .map_err(Error::from_service)
                    })
                    .await?;
                self.status().await
            }
        }
    }

    /// One `tasks/get`: the state, and on 2026-07-28 its payload. The
    /// questions an `input_required` task asks are answered on the way
    /// (`tasks/update`).
    async fn poll(&self) -> Result<(TaskState, Option<TaskPayload>), Error> {
        let connection = self.connection;
        match connection.protocol {
            Protocol::V2025_11_25 => {
                let answer = connection
                    .custom("tasks/get", json!({"taskId": self.id}))
                    .await?;
                Ok((state_from(&answer)?, None))
            }
            Protocol::V2026_07_28 => {
                let got = connection
                    .within("tasks/get answer", async {
                        connection
                            .service
                            .get_task(GetTaskParams::new(self.id.clone()))
                            .await
                            .map_err(Error::from_service)
                    })
                    .await?;
                let state = TaskState {
                    status: got.task.status(),
                    message: got.task.task.status_message.clone(),
                };
                if let TaskPayload::InputRequired { input_requests } = &got.task.payload {
                    let responses = connection.fulfil(input_requests.clone())?;
                    connection
                        .within("tasks/update answer", async {
                            connection
                                .service
                                .update_task(UpdateTaskParams::new(self.id.clone(), responses))
                                .await
                                .map_err(Error::from_service)
                        })
                        .await?;
                }
                Ok((state, Some(got.task.payload)))
            }
        }
    }
}

/// A task's state from the JSON of a 2025-11-25 answer (`tasks/get`'s
/// fields, or `tasks/cancel`'s).
fn state_from(answer: &Value) -> Result<TaskState, Error> {
    let task = answer.get("task").unwrap_or(answer);
    let status = serde_json::from_value(task["status"].clone()).map_err(|e| {
        Error::Connection(format!("a task answer without a status ({e}): {answer}"))
    })?;
    Ok(TaskState {
        status,
        message: task["statusMessage"].as_str().map(str::to_owned),
    })
}
