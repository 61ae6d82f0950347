//! The store on PostgreSQL.
//!
//! Five tables, created when missing: `{ns}_tasks` (a task's JSON and its
//! expiry), `{ns}_used_states`, `{ns}_sessions`, and for `[limits]`
//! `{ns}_rate` (each admission of a rate key, by time) and `{ns}_slots` (the
//! holders of a tool's slots, by expiry). An insert is one
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

use crate::shared::{self, MAX_ID_LEN, bounded, unix_ms};
use crate::{ConnectError, Options};

/// Tasks, used request states and sessions in PostgreSQL.
pub struct PostgresStore {
    pool: Pool,
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

/// The statements, with the namespace's table names.
struct Sql {
    create: String,
    insert_task: String,
    count_owned: String,
    reclaim_owned: String,
    reclaim_any: String,
    get_task: String,
    lock_task: String,
    set_task: String,
    use_state: String,
    purge: String,
    load_session: String,
    store_session: String,
    delete_session: String,
    lock_limit: String,
    forget_rate: String,
    count_rate: String,
    add_rate: String,
    forget_slots: String,
    renew_slot: String,
    count_slots: String,
    add_slot: String,
    release_slot: String,
}

impl Sql {
    fn new(ns: &str) -> Self {
        Sql {
            create: format!(
                "SELECT pg_advisory_xact_lock(hashtext('{ns}/schema'));
                 CREATE TABLE IF NOT EXISTS {ns}_tasks (
                     id text PRIMARY KEY, record text NOT NULL, expires_at_ms bigint NOT NULL);
                 CREATE INDEX IF NOT EXISTS {ns}_tasks_expiry ON {ns}_tasks (expires_at_ms);
                 ALTER TABLE {ns}_tasks ADD COLUMN IF NOT EXISTS owner text;
                 CREATE INDEX IF NOT EXISTS {ns}_tasks_owner ON {ns}_tasks (owner);
                 CREATE TABLE IF NOT EXISTS {ns}_used_states (
                     fingerprint text PRIMARY KEY, expires_at_ms bigint NOT NULL);
                 CREATE TABLE IF NOT EXISTS {ns}_sessions (
                     id text PRIMARY KEY, state text NOT NULL, expires_at_ms bigint NOT NULL);
                 CREATE TABLE IF NOT EXISTS {ns}_rate (
                     key text NOT NULL, at_ms bigint NOT NULL, expires_at_ms bigint NOT NULL);
                 CREATE INDEX IF NOT EXISTS {ns}_rate_key ON {ns}_rate (key, at_ms);
                 CREATE INDEX IF NOT EXISTS {ns}_rate_expiry ON {ns}_rate (expires_at_ms);
                 CREATE TABLE IF NOT EXISTS {ns}_slots (
                     key text NOT NULL, holder text NOT NULL, expires_at_ms bigint NOT NULL,
                     PRIMARY KEY (key, holder));
                 CREATE INDEX IF NOT EXISTS {ns}_slots_expiry ON {ns}_slots (expires_at_ms);"
            ),
            insert_task: format!(
                "INSERT INTO {ns}_tasks (id, record, expires_at_ms, owner)
                 SELECT $1, $2, $3, $6
                 WHERE (SELECT count(*) FROM {ns}_tasks WHERE expires_at_ms > $4) < $5
                   AND (SELECT count(*) FROM {ns}_tasks
                        WHERE owner IS NOT DISTINCT FROM $6 AND expires_at_ms > $4) < $7"
            ),
            count_owned: format!(
                "SELECT count(*) FROM {ns}_tasks
                 WHERE owner IS NOT DISTINCT FROM $1 AND expires_at_ms > $2"
            ),
            reclaim_owned: format!(
                "DELETE FROM {ns}_tasks WHERE id = (
                     SELECT id FROM {ns}_tasks
                     WHERE owner IS NOT DISTINCT FROM $1 AND expires_at_ms > $2
                       AND record::json #>> '{{state,status}}' <> 'working'
                     ORDER BY expires_at_ms LIMIT 1)"
            ),
            reclaim_any: format!(
                "DELETE FROM {ns}_tasks WHERE id = (
                     SELECT id FROM {ns}_tasks
                     WHERE expires_at_ms > $1 AND record::json #>> '{{state,status}}' <> 'working'
                     ORDER BY expires_at_ms LIMIT 1)"
            ),
            get_task: format!("SELECT record FROM {ns}_tasks WHERE id = $1 AND expires_at_ms > $2"),
            lock_task: format!(
                "SELECT record FROM {ns}_tasks WHERE id = $1 AND expires_at_ms > $2 FOR UPDATE"
            ),
            set_task: format!("UPDATE {ns}_tasks SET record = $2 WHERE id = $1"),
            use_state: format!(
                "INSERT INTO {ns}_used_states AS u (fingerprint, expires_at_ms) VALUES ($1, $2)
                 ON CONFLICT (fingerprint) DO UPDATE SET expires_at_ms = EXCLUDED.expires_at_ms
                 WHERE u.expires_at_ms <= $3
                 RETURNING 1"
            ),
            purge: format!(
                "DELETE FROM {ns}_tasks WHERE expires_at_ms <= $1;
                 DELETE FROM {ns}_used_states WHERE expires_at_ms <= $1;
                 DELETE FROM {ns}_sessions WHERE expires_at_ms <= $1;
                 DELETE FROM {ns}_rate WHERE expires_at_ms <= {NOW_MS};
                 DELETE FROM {ns}_slots WHERE expires_at_ms <= {NOW_MS}"
            ),
            load_session: format!(
                "SELECT state FROM {ns}_sessions WHERE id = $1 AND expires_at_ms > $2"
            ),
            store_session: format!(
                "INSERT INTO {ns}_sessions (id, state, expires_at_ms) VALUES ($1, $2, $3)
                 ON CONFLICT (id) DO UPDATE SET state = EXCLUDED.state,
                     expires_at_ms = EXCLUDED.expires_at_ms"
            ),
            delete_session: format!("DELETE FROM {ns}_sessions WHERE id = $1"),
            // One key's rate or slots at a time, on the database's clock.
            lock_limit: format!(
                "SELECT pg_advisory_xact_lock(hashtextextended('{ns}/limits/' || $1, 0)),
                        {NOW_MS}"
            ),
            forget_rate: format!("DELETE FROM {ns}_rate WHERE key = $1 AND at_ms <= $2"),
            count_rate: format!(
                "SELECT count(*), min(at_ms) FROM {ns}_rate WHERE key = $1 AND at_ms > $2"
            ),
            add_rate: format!(
                "INSERT INTO {ns}_rate (key, at_ms, expires_at_ms) VALUES ($1, $2, $3)"
            ),
            forget_slots: format!("DELETE FROM {ns}_slots WHERE key = $1 AND expires_at_ms <= $2"),
            renew_slot: format!(
                "UPDATE {ns}_slots SET expires_at_ms = $3 WHERE key = $1 AND holder = $2"
            ),
            count_slots: format!("SELECT count(*) FROM {ns}_slots WHERE key = $1"),
            add_slot: format!(
                "INSERT INTO {ns}_slots (key, holder, expires_at_ms) VALUES ($1, $2, $3)"
            ),
            release_slot: format!("DELETE FROM {ns}_slots WHERE key = $1 AND holder = $2"),
        }
    }
}

/// The database's clock in Unix milliseconds, as SQL.
const NOW_MS: &str = "(extract(epoch from clock_timestamp()) * 1000)::bigint";

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
            config,
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
            // (an expired one counts for nothing), once, and the insert is
            // tried again. `json`, not `jsonb`: a result may hold U+0000.
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
                client.execute(&self.sql.reclaim_any, &[&now]).await
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
        if id.len() > MAX_ID_LEN {
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
        if id.len() > MAX_ID_LEN {
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
                tx.execute(&self.sql.set_task, &[&id, &written])
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
        if session_id.len() > MAX_ID_LEN {
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
