//! Where tasks live between the call that starts one and the `tasks/get` that
//! collects its result: the [`TaskStore`] trait, and [`InMemoryTaskStore`],
//! bounded in count and time.
//!
//! The store holds state only; the instance that started a task runs it. On
//! 2026-07-28 any request may reach any instance, so a store shared by
//! several instances (Redis, a database) lets `tasks/get` and `tasks/cancel`
//! land anywhere: the running instance sees a cancellation through the store,
//! and renews a lease on the task while its handler runs, so that a task
//! whose instance died reads as failed once the lease has lapsed (see
//! [`TaskStore`] for what an implementation must guarantee).

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::error::{StoreError, unix_ms};
use toolmetadata_core::BoxFuture;

/// A task's state as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum TaskState {
    /// The handler is running.
    Working,
    /// The handler finished; `result` is the `CallToolResult` as JSON (an
    /// `isError` result included).
    Completed {
        /// The call's result object.
        result: Value,
    },
    /// The call failed with a JSON-RPC error (`{code, message, data?}`).
    Failed {
        /// The error object.
        error: Value,
    },
    /// Cancelled through `tasks/cancel` before it finished.
    Cancelled,
}

impl TaskState {
    /// True for the states a task never leaves: completed, failed, cancelled.
    pub fn is_terminal(&self) -> bool {
        !matches!(self, TaskState::Working)
    }
}

/// One task, as a store keeps it. Plain data with serde, so that a shared
/// store can keep it as JSON.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskRecord {
    /// The task id the client polls with: random, unguessable (it is all a
    /// client needs to read the result).
    pub id: String,
    /// The tool called.
    pub tool: String,
    /// Where the task is.
    pub state: TaskState,
    /// The latest progress message of the handler.
    pub status_message: Option<String>,
    /// When the task was created (RFC 3339).
    pub created_at: String,
    /// When it last changed (RFC 3339).
    pub updated_at: String,
    /// How long after its creation the task is kept, in milliseconds.
    pub ttl_ms: u64,
    /// When the store may drop it: Unix time in milliseconds.
    pub expires_at_ms: u64,
    /// The subject of the principal that started it, if any: only that
    /// principal may read or cancel it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// Whom the per-owner quota counts it against when that is not its
    /// owner: the address (`addr:…`) of a client no principal names. Only
    /// for fairness, never for access.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counted_as: Option<String>,
    /// While it is working: until when (Unix time in milliseconds) the
    /// instance running it vouches for it. Past that, nobody runs it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lease_until_ms: Option<u64>,
    /// What the handler asked its client and is waiting for, by key: each
    /// an `InputRequest` (`{method, params}`) as JSON. A working task with
    /// any is `input_required` on the wire.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub input_requests: BTreeMap<String, Value>,
    /// Answers the client gave (`tasks/update`) that the handler has not
    /// taken yet, by key.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub input_responses: BTreeMap<String, Value>,
    /// Whether its client has been handed the outcome (`tasks/get` or
    /// `tasks/result` of the finished task): until then, a full store
    /// keeps it for its owner (see [`reclaimable_by`](Self::reclaimable_by)).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub delivered: bool,
}

impl TaskRecord {
    /// A working task of `tool`, created now, kept for `ttl`.
    pub fn working(id: String, tool: String, ttl: Duration) -> Self {
        let now = timestamp();
        let ttl_ms = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX);
        TaskRecord {
            id,
            tool,
            state: TaskState::Working,
            status_message: None,
            created_at: now.clone(),
            updated_at: now,
            ttl_ms,
            expires_at_ms: unix_ms().saturating_add(ttl_ms),
            owner: None,
            counted_as: None,
            lease_until_ms: None,
            input_requests: BTreeMap::new(),
            input_responses: BTreeMap::new(),
            delivered: false,
        }
    }

    /// Whether a full store may drop this task to make room for a task
    /// counted against `quota` ([`quota_key`](Self::quota_key)): a live
    /// finished task of the same quota, or of anyone once its outcome was
    /// delivered or it was cancelled. Another owner's unread result is kept
    /// until its time to live: the flooder is refused, not its neighbours.
    pub fn reclaimable_by(&self, quota: Option<&str>) -> bool {
        self.state.is_terminal()
            && !self.is_expired()
            && (self.quota_key() == quota || self.is_released())
    }

    /// True once nobody waits for the task any more: its outcome was
    /// delivered, or it was cancelled.
    pub fn is_released(&self) -> bool {
        self.state.is_terminal() && (self.delivered || self.state == TaskState::Cancelled)
    }

    /// Whom the per-owner quota counts it against: [`counted_as`](Self::counted_as),
    /// or else its owner (callers without either together).
    pub fn quota_key(&self) -> Option<&str> {
        self.counted_as.as_deref().or(self.owner.as_deref())
    }

    /// True once the task has outlived its time to live.
    pub fn is_expired(&self) -> bool {
        unix_ms() > self.expires_at_ms
    }

    /// True for a working task whose lease has lapsed: the instance that
    /// ran it has stopped (or lost the store for longer than the lease).
    pub fn is_orphaned(&self) -> bool {
        self.state == TaskState::Working && self.lease_until_ms.is_some_and(|t| unix_ms() > t)
    }

    /// Applies a change: a terminal state is final, so a change of a
    /// finished task is ignored (a cancel racing a completion: the first
    /// wins).
    pub fn apply(&mut self, change: TaskChange) {
        if change == TaskChange::Delivered {
            // Not a change a client sees: `updated_at` stays.
            self.delivered |= self.state.is_terminal();
            return;
        }
        if self.state.is_terminal() {
            return;
        }
        match change {
            TaskChange::StatusMessage(message) => self.status_message = Some(message),
            TaskChange::Finish(state) => {
                self.state = state;
                self.input_requests.clear();
                self.input_responses.clear();
            }
            TaskChange::Ask { key, request } => {
                self.input_requests.insert(key, request);
            }
            TaskChange::Answer(responses) => {
                // Only what is asked is answered: a key nobody asked (or
                // already answered) is ignored, so a client cannot plant an
                // answer ahead of a question.
                let mut answered = false;
                for (key, response) in responses {
                    if self.input_requests.remove(&key).is_some() {
                        self.input_responses.insert(key, response);
                        answered = true;
                    }
                }
                if !answered {
                    return;
                }
            }
            TaskChange::Withdraw { key } => {
                let asked = self.input_requests.remove(&key).is_some();
                self.input_responses.remove(&key);
                if !asked {
                    return;
                }
            }
            // Not a change a client sees: `updated_at` stays.
            TaskChange::Take { key } => {
                self.input_responses.remove(&key);
                return;
            }
            // Not a change a client sees: `updated_at` stays.
            TaskChange::Renew { until_ms } => {
                self.lease_until_ms = Some(until_ms);
                return;
            }
            TaskChange::Delivered => return,
            TaskChange::FailIfOrphaned => {
                if !self.is_orphaned() {
                    return;
                }
                self.state = TaskState::Failed {
                    error: serde_json::json!({
                        "code": -32603,
                        "message": "the server instance running this task stopped, or lost the task store, \
                                    before its end was recorded: the call may have run, in part or in full, \
                                    and its result is lost; check what it would have changed before starting it again",
                    }),
                };
            }
        }
        self.updated_at = timestamp();
    }
}

/// A change to a stored task. More kinds may come: a store applies them
/// with [`TaskRecord::apply`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum TaskChange {
    /// The handler reported progress.
    StatusMessage(String),
    /// The handler asks its client: `request` (an `InputRequest` as JSON)
    /// awaits an answer under `key`.
    Ask {
        /// The key the client answers under.
        key: String,
        /// The `{method, params}` of the request.
        request: Value,
    },
    /// The client answered (`tasks/update`): each response whose key is
    /// asked moves from the requests to the responses; others are ignored.
    Answer(BTreeMap<String, Value>),
    /// The handler took the answer under `key`.
    Take {
        /// The key answered.
        key: String,
    },
    /// The handler no longer waits for the answer under `key` (it timed
    /// out, or stopped waiting): the question and any answer go.
    Withdraw {
        /// The key asked.
        key: String,
    },
    /// The task finished, failed or was cancelled.
    Finish(TaskState),
    /// The running instance extends its lease (a working task only).
    Renew {
        /// The new end of the lease, Unix time in milliseconds.
        until_ms: u64,
    },
    /// The client has been handed the finished task's outcome (ignored
    /// while it works): a full store may now drop it for anyone's task.
    Delivered,
    /// Fails the task when it is working and its lease has lapsed, and
    /// leaves it alone otherwise: decided inside the store's atomic update,
    /// so that a renewal racing it wins or loses cleanly.
    FailIfOrphaned,
}

/// Where the server keeps its tasks.
///
/// An implementation must guarantee, for every instance that shares it:
///
/// 1. **Read after create**: once [`insert`](TaskStore::insert) returns `Ok`,
///    [`get`](TaskStore::get) of that id returns the record on every instance
///    (the server hands out the task id only then).
/// 2. **Terminal is final**: [`update`](TaskStore::update) applies changes
///    atomically per record, as [`TaskRecord::apply`] does: once a record is
///    completed, failed or cancelled, later changes are ignored. This decides
///    a cancellation racing a completion the same way on every instance.
/// 3. **Kept until it expires**: a record is returned until
///    `expires_at_ms`; after that the store may drop it (and should, to stay
///    bounded). `get` must not return an expired record.
/// 4. **Bounded**: the store refuses an insert beyond its capacity with
///    [`StoreError::Full`] rather than growing without limit, and may hold
///    each owner ([`TaskRecord::quota_key`]: the principal, or an anonymous
///    client's address; callers told apart by neither together) to a quota
///    of their own, so that one principal cannot fill it for everyone. To
///    make room it may drop only what [`TaskRecord::reclaimable_by`] allows:
///    never another owner's result before it was delivered
///    ([`TaskChange::Delivered`]) or expired.
/// 5. **Bounded waits**: every method returns within a few seconds, with
///    [`StoreError::Unavailable`] naming the store when it cannot answer.
///
/// The instance that started a task watches its record (a `get` every half
/// second, so a `tasks/cancel` answered by any instance reaches the handler
/// within about a second) and cancels the handler when the record is no
/// longer working or is gone. It renews the task's lease
/// ([`TaskChange::Renew`]) every third of the lease; any instance that reads
/// a working task past its lease fails it ([`TaskChange::FailIfOrphaned`]).
pub trait TaskStore: Send + Sync + 'static {
    /// Adds a new (working) task.
    fn insert(&self, record: TaskRecord) -> BoxFuture<'_, Result<(), StoreError>>;

    /// The task `id`, or `None` when unknown or expired.
    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>>;

    /// Applies `change` to the task `id` (see guarantee 2) and returns the
    /// record as it now is; `None` when unknown or expired.
    fn update<'a>(
        &'a self,
        id: &'a str,
        change: TaskChange,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>>;
}

impl<T: TaskStore + ?Sized> TaskStore for Arc<T> {
    fn insert(&self, record: TaskRecord) -> BoxFuture<'_, Result<(), StoreError>> {
        (**self).insert(record)
    }

    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        (**self).get(id)
    }

    fn update<'a>(
        &'a self,
        id: &'a str,
        change: TaskChange,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        (**self).update(id, change)
    }
}

/// The default store: tasks in this process's memory, at most `max_tasks` of
/// them, each dropped once its time to live has passed. Enough for one
/// instance (or sticky sessions); several instances behind a round-robin
/// balancer need a shared [`TaskStore`].
#[derive(Debug)]
pub struct InMemoryTaskStore {
    max_tasks: usize,
    max_per_owner: usize,
    records: Mutex<HashMap<String, TaskRecord>>,
}

impl InMemoryTaskStore {
    /// The default limit on tasks held at once.
    pub const DEFAULT_MAX_TASKS: usize = 1000;

    /// The default limit on the tasks of one owner (the default store's).
    pub const DEFAULT_MAX_PER_OWNER: usize = 100;

    /// A store holding at most `max_tasks` tasks (at least 1), with no quota
    /// per owner until [`with_owner_quota`](Self::with_owner_quota).
    pub fn new(max_tasks: usize) -> Self {
        let max_tasks = max_tasks.max(1);
        InMemoryTaskStore {
            max_tasks,
            max_per_owner: max_tasks,
            records: Mutex::new(HashMap::new()),
        }
    }

    /// At most `max` live tasks per owner (at least 1): one principal
    /// cannot fill the store for everyone. A task counts against its
    /// [`TaskRecord::quota_key`]: its owner, or the address of an anonymous
    /// HTTP client; callers told apart by neither share one quota. A full
    /// quota first gives up the owner's oldest finished task.
    #[must_use]
    pub fn with_owner_quota(mut self, max: usize) -> Self {
        self.max_per_owner = max.max(1);
        self
    }

    fn with_records<T>(&self, f: impl FnOnce(&mut HashMap<String, TaskRecord>) -> T) -> T {
        // A panic while holding the lock leaves the map consistent (every
        // change is one insert or one field write), so a poisoned lock is
        // still safe to use.
        let mut records = self
            .records
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        f(&mut records)
    }
}

impl Default for InMemoryTaskStore {
    /// 1000 tasks, 100 per owner.
    fn default() -> Self {
        InMemoryTaskStore::new(Self::DEFAULT_MAX_TASKS)
            .with_owner_quota(Self::DEFAULT_MAX_PER_OWNER)
    }
}

/// Drops the least recently changed task that `which` picks among those a
/// task counted against `quota` may take ([`TaskRecord::reclaimable_by`]);
/// false when there is none.
fn reclaim(
    records: &mut HashMap<String, TaskRecord>,
    quota: Option<&str>,
    which: impl Fn(&TaskRecord) -> bool,
) -> bool {
    let oldest = records
        .values()
        // An expired task counts for nothing: taking it makes no room.
        .filter(|r| r.reclaimable_by(quota) && which(r))
        .min_by(|a, b| a.updated_at.cmp(&b.updated_at))
        .map(|r| r.id.clone());
    oldest.is_some_and(|id| records.remove(&id).is_some())
}

impl TaskStore for InMemoryTaskStore {
    fn insert(&self, record: TaskRecord) -> BoxFuture<'_, Result<(), StoreError>> {
        let result = self.with_records(|records| {
            let same_owner = |r: &TaskRecord| r.quota_key() == record.quota_key();
            if self.max_per_owner < self.max_tasks {
                let held = records
                    .values()
                    .filter(|r| same_owner(r) && !r.is_expired())
                    .count();
                if held >= self.max_per_owner && !reclaim(records, record.quota_key(), same_owner) {
                    return Err(StoreError::Full {
                        of: "tasks for one principal",
                        max: self.max_per_owner,
                    });
                }
            }
            // Expired tasks are swept only when they are in the way: each
            // other operation touches one record. Then finished ones go,
            // oldest first, before a new task is refused.
            if records.len() >= self.max_tasks {
                records.retain(|_, r| !r.is_expired());
            }
            if records.len() >= self.max_tasks && !reclaim(records, record.quota_key(), |_| true) {
                return Err(StoreError::Full {
                    of: "tasks",
                    max: self.max_tasks,
                });
            }
            records.insert(record.id.clone(), record);
            Ok(())
        });
        Box::pin(std::future::ready(result))
    }

    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        let found =
            self.with_records(|records| records.get(id).filter(|r| !r.is_expired()).cloned());
        Box::pin(std::future::ready(Ok(found)))
    }

    fn update<'a>(
        &'a self,
        id: &'a str,
        change: TaskChange,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        let updated = self.with_records(|records| {
            if records.get(id).is_some_and(TaskRecord::is_expired) {
                records.remove(id);
            }
            records.get_mut(id).map(|record| {
                record.apply(change);
                record.clone()
            })
        });
        Box::pin(std::future::ready(Ok(updated)))
    }
}

/// Now, in RFC 3339 (what `Task.createdAt` carries).
fn timestamp() -> String {
    rmcp::task_manager::current_timestamp()
}

#[cfg(test)]
mod tests;
