//! Tool calls as tasks (the Tasks extension of 2026-07-28, SEP-2663, as rmcp
//! 3.11 speaks it): a call of a tool whose metadata says `task = "optional"`
//! or `"required"` from a client that declares the extension returns a task
//! handle at once; the handler runs on; `tasks/get` reports its status (the
//! handler's progress as the status message) and then its result;
//! `tasks/cancel` cancels the handler through its `Context`; a handler that
//! asks (`Context::ask`, `sample`, `roots`) puts the task `input_required`
//! with its requests until `tasks/update` brings the answers (see
//! `task_input`). A tool built with `ask_before_task` asks through a plain
//! call's `InputRequiredResult` first, and the retry that answers starts its
//! task, seeded with the answers.
//!
//! The state lives in a [`TaskStore`]; this instance only keeps the
//! cancellation of the handlers it runs, and watches the store so that a
//! `tasks/cancel` answered by another instance reaches them too.
//!
//! A task belongs to the principal that started it, when there is one: to
//! anyone else its id is unknown. 2025-11-25 sessions ask for tasks their own
//! way (see `compat`); both ways start and read tasks here. There a task's
//! handler asks through the session, each request naming its task
//! (`related-task`), the task `input_required` while one waits.

use std::collections::{BTreeMap, HashMap};
use std::convert::Infallible;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::ErrorData;
use rmcp::model::{
    CallToolResult, DetailedTask, ErrorCode, GetTaskResult, JsonObject, Task, TaskPayload,
    TaskStatus,
};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::policy::access::Caller;
use super::store::{StoreError, TaskChange, TaskRecord, TaskState, TaskStore, unix_ms};
use super::task_input::TaskInput;
use toolmetadata_core::BoxFuture;
use toolmetadata_core::seam::shorten;

/// How a task's handler ended: its result (an `isError` one included), or
/// the JSON-RPC error (`{code, message, data?}`) of a handler that panicked.
pub(super) type Ran = Result<CallToolResult, Value>;

/// How long a task is kept after it is created, by default: its result
/// stays there for a client that polls slowly, and the store stays bounded.
pub(super) const DEFAULT_TASK_TTL: Duration = Duration::from_secs(3600);

/// How often clients are asked to poll, and how often a `tasks/result`
/// waiting for a task run elsewhere looks at the store.
pub(super) const POLL_INTERVAL: Duration = Duration::from_secs(1);

/// How often a running task looks at its record for a cancellation made on
/// another instance: it reaches the handler within about a second.
const WATCH_INTERVAL: Duration = Duration::from_millis(500);

/// The first wait before a task's end is stored again, doubling up to
/// [`FINISH_RETRY_MAX`].
const FINISH_RETRY: Duration = Duration::from_millis(100);
/// The longest wait between two tries to store a task's end.
const FINISH_RETRY_MAX: Duration = Duration::from_secs(1);

/// What is done with a task's last record when it ends on this instance
/// (completed, failed or cancelled, here or on another instance): a
/// 2025-11-25 session's client is sent `notifications/tasks/status`.
#[cfg(feature = "sessions")]
pub(super) type OnEnd = Box<dyn FnOnce(TaskRecord) -> BoxFuture<'static, ()> + Send>;

/// The server's tasks: the store, the time to live, and the handlers this
/// instance runs.
pub(super) struct Tasks {
    pub(super) store: Arc<dyn TaskStore>,
    pub(super) ttl: Duration,
    /// How long a running task's lease lasts; renewed every third of it.
    lease: Duration,
    /// The tasks whose handlers run here, by task id; an entry lives as long
    /// as its handler, so the map is bounded by the store's capacity.
    running: Mutex<HashMap<String, Running>>,
}

/// A task whose handler runs on this instance.
struct Running {
    cancel: CancellationToken,
    /// Woken when it ends, for the requests waiting on its result.
    ended: Arc<tokio::sync::Notify>,
    /// Woken when the client answers what the handler asked.
    answered: Arc<tokio::sync::Notify>,
    /// Told of the task's last record when it ends.
    #[cfg(feature = "sessions")]
    on_end: Option<OnEnd>,
}

/// How a task's handler reports progress: as the task's status message.
#[derive(Clone)]
pub(super) struct TaskProgress {
    store: Arc<dyn TaskStore>,
    id: String,
}

impl TaskProgress {
    pub(super) fn new(store: Arc<dyn TaskStore>, id: String) -> Self {
        TaskProgress { store, id }
    }

    pub(super) async fn report(&self, progress: f64, total: Option<f64>, message: Option<&str>) {
        let text = match (message, total) {
            (Some(message), _) => message.to_owned(),
            (None, Some(total)) => format!("{progress} of {total}"),
            (None, None) => format!("{progress}"),
        };
        if let Err(e) = self
            .store
            .update(&self.id, TaskChange::StatusMessage(text))
            .await
        {
            tracing::warn!(task = %self.id, "progress not stored: {e}");
        }
    }
}

impl Tasks {
    pub(super) fn new(store: Arc<dyn TaskStore>, ttl: Duration, lease: Duration) -> Self {
        Tasks {
            store,
            ttl,
            lease: lease.max(Duration::from_secs(1)),
            running: Mutex::new(HashMap::new()),
        }
    }

    fn running(&self) -> std::sync::MutexGuard<'_, HashMap<String, Running>> {
        // Every change is one insert or remove: a poisoned map is consistent.
        self.running.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

fn store_error(e: StoreError) -> ErrorData {
    ErrorData::internal_error(format!("task {e}"), None)
}

/// Why a task was not started: the caller may not run the tool, or the
/// store could not take it (a full store lets an optional task run as a
/// plain call instead).
pub(super) enum NotStarted {
    Refused(ErrorData),
    Store(StoreError),
}

impl From<NotStarted> for ErrorData {
    fn from(e: NotStarted) -> Self {
        match e {
            NotStarted::Refused(e) => e,
            NotStarted::Store(e) => store_error(e),
        }
    }
}

fn ms_after(d: Duration) -> u64 {
    unix_ms().saturating_add(u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

fn unknown_task(id: &str) -> ErrorData {
    ErrorData::invalid_params(
        format!(
            "no task `{}`: unknown, or dropped after its time to live",
            shorten(id, 100)
        ),
        None,
    )
}

impl Tasks {
    /// Records a task of `tool` for `owner` (counted against `counted_as`
    /// in the store's quota, when that is someone else), kept for `ttl`, and runs what
    /// `run` makes of its cancellation and progress on a task of its own,
    /// until it ends or is cancelled (here, or on another instance through
    /// the store), then gives `on_end` (with `sessions`) its last record.
    /// The record as created.
    pub(super) async fn start(
        self: &Arc<Self>,
        tool: &str,
        owner: Option<&str>,
        counted_as: Option<String>,
        ttl: Duration,
        #[cfg(feature = "sessions")] on_end: Option<OnEnd>,
        run: impl FnOnce(CancellationToken, TaskProgress, TaskInput) -> BoxFuture<'static, Ran>,
    ) -> Result<TaskRecord, StoreError> {
        let id = uuid::Uuid::new_v4().to_string();
        let mut record = TaskRecord::working(id.clone(), tool.to_owned(), ttl);
        record.owner = owner.map(str::to_owned);
        record.counted_as = counted_as;
        record.lease_until_ms = Some(ms_after(self.lease));
        self.store.insert(record.clone()).await?;
        let cancel = CancellationToken::new();
        let answered = Arc::new(tokio::sync::Notify::new());
        self.running().insert(
            id.clone(),
            Running {
                cancel: cancel.clone(),
                ended: Arc::new(tokio::sync::Notify::new()),
                answered: answered.clone(),
                #[cfg(feature = "sessions")]
                on_end,
            },
        );
        let handler = run(
            cancel.clone(),
            TaskProgress::new(self.store.clone(), id.clone()),
            TaskInput::new(self.store.clone(), id.clone(), answered),
        );
        let tasks = self.clone();
        let lease_until_ms = record.lease_until_ms.unwrap_or_default();
        // A child of the `tools/call` span that started it, which ends
        // with the task handle: the handler's work stays in the trace.
        tokio::spawn(tracing::Instrument::in_current_span(async move {
            tasks.run(id, cancel, handler, lease_until_ms).await
        }));
        Ok(record)
    }

    async fn run(
        &self,
        id: String,
        cancel: CancellationToken,
        handler: BoxFuture<'static, Ran>,
        lease_until_ms: u64,
    ) {
        // Until when the store last heard this instance vouch for the task.
        let lease_until = AtomicU64::new(lease_until_ms);
        let result = tokio::select! {
            result = handler => result,
            never = self.watch(&id, &cancel, &lease_until) => match never {},
        };
        let state = match result {
            _ if cancel.is_cancelled() => TaskState::Cancelled,
            Err(error) => TaskState::Failed { error },
            Ok(result) => match serde_json::to_value(&result) {
                Ok(result) => TaskState::Completed { result },
                Err(e) => TaskState::Failed {
                    error: json!({"code": ErrorCode::INTERNAL_ERROR.0, "message": format!("the result could not be stored: {e}")}),
                },
            },
        };
        self.finish(&id, state, lease_until.load(Ordering::Relaxed))
            .await;
    }

    /// Stores the task's end. A store out of reach should not lose a
    /// result (a command that ran, reported as lost, invites a second
    /// run): the end is kept and tried again until the store takes it or
    /// the lease the store last heard of runs out. Past that, any reader
    /// fails the task, saying that it may have run, so nothing stays
    /// "working" forever either way.
    async fn finish(&self, id: &str, state: TaskState, lease_until_ms: u64) {
        let mut retry = FINISH_RETRY;
        // The record as the store keeps it now: ended here, or already
        // (cancelled on another instance).
        let last = loop {
            match self
                .store
                .update(id, TaskChange::Finish(state.clone()))
                .await
            {
                Ok(last) => break last,
                Err(e) if unix_ms() >= lease_until_ms => {
                    tracing::error!(task = %id, "the task's end could not be stored before its lease ran out: {e}");
                    break None;
                }
                Err(e) => {
                    tracing::warn!(task = %id, "the task's end could not be stored yet: {e}");
                    let left = Duration::from_millis(lease_until_ms.saturating_sub(unix_ms()));
                    tokio::time::sleep(retry.min(left)).await;
                    retry = (retry * 2).min(FINISH_RETRY_MAX);
                }
            }
        };
        let Some(running) = self.running().remove(id) else {
            return;
        };
        running.ended.notify_waiters();
        #[cfg(feature = "sessions")]
        if let (Some(on_end), Some(last)) = (running.on_end, last) {
            on_end(last).await;
        }
        // Without sessions no client is told of the end: each polls.
        #[cfg(not(feature = "sessions"))]
        let _ = last;
    }

    /// Cancels the handler once the task's record is no longer working or
    /// is gone (cancelled on another instance, failed after a lost lease, or
    /// expired), and renews the lease meanwhile. Never resolves: the
    /// handler's side sees the cancellation, stops the handler and ends the
    /// task, so no handler is ever left running detached.
    async fn watch(
        &self,
        id: &str,
        cancel: &CancellationToken,
        lease_until: &AtomicU64,
    ) -> Infallible {
        let renew_every = self.lease / 3;
        let mut renewed = tokio::time::Instant::now();
        loop {
            tokio::select! {
                () = cancel.cancelled() => return std::future::pending().await,
                () = tokio::time::sleep(WATCH_INTERVAL) => {}
            }
            let seen = if renewed.elapsed() >= renew_every {
                let until_ms = ms_after(self.lease);
                let seen = self.store.update(id, TaskChange::Renew { until_ms }).await;
                if seen.is_ok() {
                    renewed = tokio::time::Instant::now();
                    lease_until.store(until_ms, Ordering::Relaxed);
                }
                seen
            } else {
                self.store.get(id).await
            };
            match seen {
                Ok(Some(record)) if record.state == TaskState::Working => {}
                Ok(_) => cancel.cancel(),
                // A store out of reach now may be back at the next look; the
                // handler keeps running meanwhile, up to its lease.
                Err(e) => tracing::warn!(task = %id, "{e}"),
            }
        }
    }

    /// What wakes when the task `id` ends, while its handler runs here;
    /// `None` for a task run elsewhere (or already ended).
    #[cfg(all(feature = "tasks", feature = "sessions"))]
    pub(super) fn ending_of(&self, id: &str) -> Option<Arc<tokio::sync::Notify>> {
        self.running().get(id).map(|r| r.ended.clone())
    }

    /// The task `id` as `caller` may see it: unknown when it belongs to
    /// another principal, so that nobody learns of it.
    pub(super) async fn visible(
        &self,
        id: &str,
        caller: &Caller<'_>,
    ) -> Result<TaskRecord, ErrorData> {
        let record = self.store.get(id).await.map_err(store_error)?;
        match record {
            Some(record) if owned_by(&record, caller) => {
                if !record.is_orphaned() {
                    return Ok(record);
                }
                // Its instance stopped: say so, for every instance alike.
                match self
                    .store
                    .update(id, TaskChange::FailIfOrphaned)
                    .await
                    .map_err(store_error)?
                {
                    Some(record) => Ok(record),
                    None => Err(unknown_task(id)),
                }
            }
            _ => Err(unknown_task(id)),
        }
    }

    /// `tasks/get`.
    pub(super) async fn state(
        &self,
        id: &str,
        caller: &Caller<'_>,
    ) -> Result<GetTaskResult, ErrorData> {
        let record = self.visible(id, caller).await?;
        let answer = GetTaskResult::new(detailed(&record));
        self.delivered(&record).await;
        Ok(answer)
    }

    /// Notes that the client has the finished task's outcome, so that a
    /// full store may let it go (`TaskRecord::reclaimable_by`). A store that
    /// does not answer only keeps the task longer.
    pub(super) async fn delivered(&self, record: &TaskRecord) {
        if !record.state.is_terminal() || record.delivered {
            return;
        }
        if let Err(e) = self.store.update(&record.id, TaskChange::Delivered).await {
            tracing::debug!(task = %record.id, "not noted as delivered: {e}");
        }
    }

    /// `tasks/update`: the client's answers to what the task's handler
    /// asked, written on the record (so the handler sees them wherever it
    /// runs) and handed at once to a handler running here. A key nobody
    /// asked is ignored.
    pub(super) async fn answer(
        &self,
        id: &str,
        caller: &Caller<'_>,
        responses: BTreeMap<String, Value>,
    ) -> Result<(), ErrorData> {
        let record = self.visible(id, caller).await?;
        if responses.is_empty() {
            return Ok(());
        }
        for (key, response) in &responses {
            if let Some(request) = record.input_requests.get(key)
                && let Err(why) = super::task_input::answers(request, response)
            {
                return Err(ErrorData::invalid_params(
                    format!(
                        "inputResponses.{}: {why}; the question stays open",
                        shorten(key, 100)
                    ),
                    None,
                ));
            }
        }
        self.store
            .update(id, TaskChange::Answer(responses))
            .await
            .map_err(store_error)?;
        if let Some(running) = self.running().get(id) {
            running.answered.notify_waiters();
        }
        Ok(())
    }

    /// `tasks/cancel`: the record cancelled (so every instance sees it), and
    /// the handler at once when it runs here. The record as it now is:
    /// cancelled, or the state it had already ended in (the extension's
    /// cancel acknowledges that alike, so that a client racing the task's
    /// end needs no error path; see [`already_ended`] for 2025-11-25's).
    pub(super) async fn cancel(
        &self,
        id: &str,
        caller: &Caller<'_>,
    ) -> Result<TaskRecord, ErrorData> {
        self.visible(id, caller).await?;
        let Some(record) = self
            .store
            .update(id, TaskChange::Finish(TaskState::Cancelled))
            .await
            .map_err(store_error)?
        else {
            return Err(unknown_task(id));
        };
        if let Some(running) = self.running().get(id) {
            running.cancel.cancel();
        }
        Ok(record)
    }
}

/// 2025-11-25's answer to cancelling a task that had already ended
/// (SEP-1686: `-32602`); `None` when `record` is the one cancelled.
#[cfg(all(feature = "tasks", feature = "sessions"))]
pub(super) fn already_ended(record: &TaskRecord) -> Option<ErrorData> {
    match record.state {
        TaskState::Cancelled => None,
        _ => Some(ErrorData::invalid_params(
            format!(
                "the task `{}` has already ended ({}); there is nothing to cancel",
                shorten(&record.id, 100),
                status_name(record)
            ),
            None,
        )),
    }
}

/// Whether `caller` may see `record`: a task started by a principal is that
/// principal's.
fn owned_by(record: &TaskRecord, caller: &Caller<'_>) -> bool {
    record.owner.is_none() || record.owner == caller.owner()
}

/// The status a task shows: `input_required` while it waits for an answer.
#[cfg(all(feature = "tasks", feature = "sessions"))]
pub(super) fn status_name(record: &TaskRecord) -> &'static str {
    match &record.state {
        TaskState::Working if !record.input_requests.is_empty() => "input_required",
        TaskState::Working => "working",
        TaskState::Completed { .. } => "completed",
        TaskState::Failed { .. } => "failed",
        TaskState::Cancelled => "cancelled",
    }
}

fn status(record: &TaskRecord) -> TaskStatus {
    match &record.state {
        TaskState::Working if !record.input_requests.is_empty() => TaskStatus::InputRequired,
        TaskState::Working => TaskStatus::Working,
        TaskState::Completed { .. } => TaskStatus::Completed,
        TaskState::Failed { .. } => TaskStatus::Failed,
        TaskState::Cancelled => TaskStatus::Cancelled,
    }
}

pub(super) fn wire_task(record: &TaskRecord) -> Task {
    let mut task = Task::new(
        record.id.clone(),
        status(record),
        record.created_at.clone(),
        record.updated_at.clone(),
    )
    .with_ttl_ms(record.ttl_ms)
    .with_poll_interval_ms(u64::try_from(POLL_INTERVAL.as_millis()).unwrap_or(1000));
    task.status_message = record.status_message.clone();
    task
}

fn object(value: &Value) -> JsonObject {
    match value {
        Value::Object(map) => map.clone(),
        other => {
            let mut map = JsonObject::new();
            map.insert("value".to_owned(), other.clone());
            map
        }
    }
}

fn detailed(record: &TaskRecord) -> DetailedTask {
    let payload = match &record.state {
        TaskState::Working if !record.input_requests.is_empty() => TaskPayload::InputRequired {
            input_requests: record
                .input_requests
                .iter()
                .filter_map(|(key, request)| {
                    // Written by this server from an `InputRequest`, so it
                    // reads back; a record from a newer server may not.
                    serde_json::from_value(request.clone())
                        .map(|request| (key.clone(), request))
                        .inspect_err(|e| tracing::warn!(task = %record.id, key, "an input request unread: {e}"))
                        .ok()
                })
                .collect(),
        },
        TaskState::Working => TaskPayload::Working,
        TaskState::Completed { result } => TaskPayload::Completed {
            result: object(result),
        },
        TaskState::Failed { error } => TaskPayload::Failed {
            error: object(error),
        },
        TaskState::Cancelled => TaskPayload::Cancelled,
    };
    DetailedTask::new(wire_task(record), payload)
}
