//! The store on PostgreSQL.
//!
//! Seven tables, created when missing: `{ns}_tasks` (a task's JSON and its
//! expiry), `{ns}_used_states`, `{ns}_sessions`, for `[limits]`
//! `{ns}_rate` (each admission of a rate key, by time) and `{ns}_slots` (the
//! holders of a tool's slots, by expiry), `{ns}_events` (streams' events)
//! and `{ns}_tool_states` (which tools are enabled, kept without expiry). An insert is one
//! statement that adds the task only while fewer than the bound are live, in
//! all and for its owner (the `owner` column holds [`TaskRecord::quota_key`],
//! an anonymous client's address included; so concurrent inserts may pass a bound by as many
//! as are in flight: at most each instance's pool; a full bound first gives
//! up its oldest finished task); an update locks the row (`FOR UPDATE`),
//! applies the change in Rust ([`TaskRecord::apply`]) and writes it back. A
//! state's first use is the `INSERT … ON CONFLICT` that creates (or replaces
//! an expired) marker. A rate or a slot is taken in a transaction that holds
//! an advisory lock on its key, on the database's clock. Expired rows of every table are deleted every 256th
//! write.
//!
//! Connections come from a `deadpool-postgres` pool; a connection that
//! broke (the server restarted) is replaced at its next use. No TLS: run it
//! on a private network or a local socket.

use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use toolmetadata::server::BoxFuture;
use toolmetadata::server::store::{
    LimitStore, ReplayStore, SessionState, SessionStore, SessionStoreError, StoreError, TaskChange,
    TaskRecord, TaskStore,
};

use crate::shared::{self, bounded, unix_ms};
use crate::{ConnectError, Options};

mod bus;
mod events;
mod sql;
mod tools;

use sql::Sql;

/// Tasks, used request states and sessions in PostgreSQL.
pub struct PostgresStore {
    pool: Pool,
    /// For the change bus's listening connections.
    config: tokio_postgres::Config,
    /// `postgres at host`, for errors.
    name: String,
    options: Options,
    sql: Sql,
    writes: AtomicU64,
}

impl fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PostgresStore")
            .field("name", &self.name)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

/// Milliseconds as PostgreSQL's `bigint`.
fn ms(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

impl PostgresStore {
    /// Connects to the PostgreSQL at `url`
    /// (`postgres://user[:password]@host[:port]/database`) and creates the
    /// tables when missing.
    ///
    /// # Errors
    ///
    /// A malformed URL, a bad namespace, a server that does not answer
    /// within the timeout, or tables that cannot be created.
    pub async fn connect(url: &str, options: Options) -> Result<Self, ConnectError> {
        options.check()?;
        let name = shared::name("postgres", url);
        let mut config = tokio_postgres::Config::from_str(url).map_err(|e| {
            ConnectError::Invalid(format!("store URL `{}`: {e}", shared::redact(url)))
        })?;
        config.connect_timeout(options.timeout);
        let manager = Manager::from_config(
            config.clone(),
            tokio_postgres::NoTls,
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(16)
            .runtime(Runtime::Tokio1)
            .wait_timeout(Some(options.timeout))
            .create_timeout(Some(options.timeout))
            .recycle_timeout(Some(options.timeout))
            .build()
            .map_err(|e| ConnectError::Invalid(format!("{name}: {e}")))?;
        let store = PostgresStore {
            pool,
            config,
            sql: Sql::new(&options.namespace),
            name,
            options,
            writes: AtomicU64::new(0),
        };
        store
            .create_tables()
            .await
            .map_err(|e| ConnectError::Unreachable(e.to_string()))?;
        Ok(store)
    }

    async fn create_tables(&self) -> Result<(), StoreError> {
        bounded(&self.name, self.options.timeout, async {
            let mut client = self.pool.get().await.map_err(|e| e.to_string())?;
            let tx = client.transaction().await.map_err(|e| e.to_string())?;
            tx.batch_execute(&self.sql.create)
                .await
                .map_err(|e| e.to_string())?;
            tx.commit().await.map_err(|e| e.to_string())
        })
        .await
    }

    /// Every 256th write also deletes the expired tasks, markers and
    /// sessions (reads skip them meanwhile).
    async fn maybe_purge(&self, client: &deadpool_postgres::Client) -> Result<(), String> {
        if !self
            .writes
            .fetch_add(1, Ordering::Relaxed)
            .is_multiple_of(256)
        {
            return Ok(());
        }
        let now = ms(unix_ms());
        client
            .batch_execute(&self.sql.purge.replace("$1", &now.to_string()))
            .await
            .map_err(|e| e.to_string())
    }

    async fn insert_task(&self, record: TaskRecord) -> Result<(), StoreError> {
        let json = shared::to_json(&record)?;
        let count = |n: usize| i64::try_from(n).unwrap_or(i64::MAX);
        let (max, per_owner) = (
            count(self.options.max_tasks),
            count(self.options.max_tasks_per_owner),
        );
        let refused = bounded(&self.name, self.options.timeout, async {
            let client = self.pool.get().await.map_err(|e| e.to_string())?;
            self.maybe_purge(&client).await?;
            let quota_key = record.quota_key();
            let insert = async || {
                let now = ms(unix_ms());
                client
                    .execute(
                        &self.sql.insert_task,
                        &[
                            &record.id,
                            &json,
                            &ms(record.expires_at_ms),
                            &now,
                            &max,
                            &quota_key,
                            &per_owner,
                        ],
                    )
                    .await
                    .map_err(|e| e.to_string())
            };
            if insert().await? == 1 {
                return Ok(None);
            }
            // Refused: the full bound gives up its oldest finished live task
            // that this owner may take (`TaskRecord::reclaimable_by`; an
            // expired one counts for nothing), once, and the insert is tried
            // again.
            let now = ms(unix_ms());
            let owned: i64 = client
                .query_one(&self.sql.count_owned, &[&quota_key, &now])
                .await
                .map_err(|e| e.to_string())?
                .get(0);
            let owner_full = owned >= per_owner;
            let reclaimed = if owner_full {
                client
                    .execute(&self.sql.reclaim_owned, &[&quota_key, &now])
                    .await
            } else {
                client
                    .execute(&self.sql.reclaim_any, &[&now, &quota_key])
                    .await
            }
            .map_err(|e| e.to_string())?;
            if reclaimed == 1 && insert().await? == 1 {
                return Ok(None);
            }
            Ok::<_, String>(Some(owner_full))
        })
        .await?;
        match refused {
            None => Ok(()),
            Some(true) => Err(shared::owner_full(&self.options)),
            Some(false) => Err(shared::store_full(&self.options)),
        }
    }

    async fn get_task(&self, id: &str) -> Result<Option<TaskRecord>, StoreError> {
        if !shared::storable(id) {
            return Ok(None);
        }
        let json: Option<String> = bounded(&self.name, self.options.timeout, async {
            let client = self.pool.get().await.map_err(|e| e.to_string())?;
            let row = client
                .query_opt(&self.sql.get_task, &[&id, &ms(unix_ms())])
                .await
                .map_err(|e| e.to_string())?;
            Ok::<_, String>(row.map(|row| row.get(0)))
        })
        .await?;
        json.map(|json| shared::from_json(&self.name, &json))
            .transpose()
    }

    async fn update_task(
        &self,
        id: &str,
        change: TaskChange,
    ) -> Result<Option<TaskRecord>, StoreError> {
        if !shared::storable(id) {
            return Ok(None);
        }
        bounded(&self.name, self.options.timeout, async {
            let mut client = self.pool.get().await.map_err(|e| e.to_string())?;
            let tx = client.transaction().await.map_err(|e| e.to_string())?;
            let Some(row) = tx
                .query_opt(&self.sql.lock_task, &[&id, &ms(unix_ms())])
                .await
                .map_err(|e| e.to_string())?
            else {
                return Ok(None);
            };
            let read: String = row.get(0);
            let mut record = shared::from_json(&self.name, &read).map_err(|e| e.to_string())?;
            record.apply(change);
            let written = shared::to_json(&record).map_err(|e| e.to_string())?;
            if written != read {
                let (finished, released) = (record.state.is_terminal(), record.is_released());
                tx.execute(&self.sql.set_task, &[&id, &written, &finished, &released])
                    .await
                    .map_err(|e| e.to_string())?;
            }
            tx.commit().await.map_err(|e| e.to_string())?;
            Ok::<_, String>(Some(record))
        })
        .await
    }
}

impl TaskStore for PostgresStore {
    fn insert(&self, record: TaskRecord) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(self.insert_task(record))
    }

    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        Box::pin(self.get_task(id))
    }

    fn update<'a>(
        &'a self,
        id: &'a str,
        change: TaskChange,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        Box::pin(self.update_task(id, change))
    }
}

impl ReplayStore for PostgresStore {
    fn first_use<'a>(
        &'a self,
        fingerprint: &'a str,
        expires_at_ms: u64,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(bounded(&self.name, self.options.timeout, async move {
            let client = self.pool.get().await.map_err(|e| e.to_string())?;
            self.maybe_purge(&client).await?;
            let now = ms(unix_ms());
            let row = client
                .query_opt(
                    &self.sql.use_state,
                    &[&fingerprint, &ms(expires_at_ms), &now],
                )
                .await
                .map_err(|e| e.to_string())?;
            Ok::<_, String>(row.is_some())
        }))
    }
}

impl PostgresStore {
    async fn take_rate_in(
        &self,
        key: &str,
        calls: u32,
        window_ms: u64,
    ) -> Result<Option<u64>, StoreError> {
        let window = ms(window_ms.max(1));
        bounded(&self.name, self.options.timeout, async {
            let mut client = self.pool.get().await.map_err(|e| e.to_string())?;
            self.maybe_purge(&client).await?;
            let tx = client.transaction().await.map_err(|e| e.to_string())?;
            let now: i64 = tx
                .query_one(&self.sql.lock_limit, &[&key])
                .await
                .map_err(|e| e.to_string())?
                .get(1);
            let since = now.saturating_sub(window);
            tx.execute(&self.sql.forget_rate, &[&key, &since])
                .await
                .map_err(|e| e.to_string())?;
            let row = tx
                .query_one(&self.sql.count_rate, &[&key, &since])
                .await
                .map_err(|e| e.to_string())?;
            let (count, oldest): (i64, Option<i64>) = (row.get(0), row.get(1));
            let wait = if count >= i64::from(calls) {
                let oldest = oldest.unwrap_or(now);
                Some(
                    u64::try_from(oldest.saturating_add(window) - now)
                        .unwrap_or(0)
                        .max(1),
                )
            } else {
                tx.execute(
                    &self.sql.add_rate,
                    &[&key, &now, &now.saturating_add(window)],
                )
                .await
                .map_err(|e| e.to_string())?;
                None
            };
            tx.commit().await.map_err(|e| e.to_string())?;
            Ok::<_, String>(wait)
        })
        .await
    }

    async fn acquire_in(
        &self,
        key: &str,
        holder: &str,
        max: u32,
        lease_ms: u64,
    ) -> Result<bool, StoreError> {
        bounded(&self.name, self.options.timeout, async {
            let mut client = self.pool.get().await.map_err(|e| e.to_string())?;
            let tx = client.transaction().await.map_err(|e| e.to_string())?;
            let now: i64 = tx
                .query_one(&self.sql.lock_limit, &[&key])
                .await
                .map_err(|e| e.to_string())?
                .get(1);
            let expires = now.saturating_add(ms(lease_ms));
            tx.execute(&self.sql.forget_slots, &[&key, &now])
                .await
                .map_err(|e| e.to_string())?;
            let renewed = tx
                .execute(&self.sql.renew_slot, &[&key, &holder, &expires])
                .await
                .map_err(|e| e.to_string())?;
            let held = renewed == 1 || {
                let count: i64 = tx
                    .query_one(&self.sql.count_slots, &[&key])
                    .await
                    .map_err(|e| e.to_string())?
                    .get(0);
                count < i64::from(max)
                    && tx
                        .execute(&self.sql.add_slot, &[&key, &holder, &expires])
                        .await
                        .map_err(|e| e.to_string())?
                        == 1
            };
            tx.commit().await.map_err(|e| e.to_string())?;
            Ok::<_, String>(held)
        })
        .await
    }
}

impl LimitStore for PostgresStore {
    fn take_rate<'a>(
        &'a self,
        key: &'a str,
        calls: u32,
        window_ms: u64,
    ) -> BoxFuture<'a, Result<Option<u64>, StoreError>> {
        Box::pin(self.take_rate_in(key, calls, window_ms))
    }

    fn acquire<'a>(
        &'a self,
        key: &'a str,
        holder: &'a str,
        max: u32,
        lease_ms: u64,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(self.acquire_in(key, holder, max, lease_ms.max(1)))
    }

    fn release<'a>(
        &'a self,
        key: &'a str,
        holder: &'a str,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            bounded(&self.name, self.options.timeout, async {
                let client = self.pool.get().await.map_err(|e| e.to_string())?;
                client
                    .execute(&self.sql.release_slot, &[&key, &holder])
                    .await
                    .map_err(|e| e.to_string())
            })
            .await?;
            Ok(())
        })
    }
}

#[async_trait::async_trait]
impl SessionStore for PostgresStore {
    async fn load(&self, session_id: &str) -> Result<Option<SessionState>, SessionStoreError> {
        if !shared::storable(session_id) {
            return Ok(None);
        }
        let json: Option<String> = bounded(&self.name, self.options.timeout, async {
            let client = self.pool.get().await.map_err(|e| e.to_string())?;
            let row = client
                .query_opt(&self.sql.load_session, &[&session_id, &ms(unix_ms())])
                .await
                .map_err(|e| e.to_string())?;
            Ok::<_, String>(row.map(|row| row.get(0)))
        })
        .await
        .map_err(shared::boxed)?;
        Ok(match json {
            Some(json) => Some(serde_json::from_str(&json)?),
            None => None,
        })
    }

    async fn store(&self, session_id: &str, state: &SessionState) -> Result<(), SessionStoreError> {
        if !shared::storable(session_id) {
            return Ok(());
        }
        let json = serde_json::to_string(state)?;
        let ttl = u64::try_from(self.options.session_ttl.as_millis()).unwrap_or(u64::MAX);
        let expires = ms(unix_ms().saturating_add(ttl));
        bounded(&self.name, self.options.timeout, async {
            let client = self.pool.get().await.map_err(|e| e.to_string())?;
            self.maybe_purge(&client).await?;
            client
                .execute(&self.sql.store_session, &[&session_id, &json, &expires])
                .await
                .map_err(|e| e.to_string())
        })
        .await
        .map_err(shared::boxed)?;
        Ok(())
    }

    async fn delete(&self, session_id: &str) -> Result<(), SessionStoreError> {
        if !shared::storable(session_id) {
            return Ok(());
        }
        bounded(&self.name, self.options.timeout, async {
            let client = self.pool.get().await.map_err(|e| e.to_string())?;
            client
                .execute(&self.sql.delete_session, &[&session_id])
                .await
                .map_err(|e| e.to_string())
        })
        .await
        .map_err(shared::boxed)?;
        Ok(())
    }
}
