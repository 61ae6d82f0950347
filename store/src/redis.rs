//! The store on Redis.
//!
//! - A task is a JSON string at `{ns}:task:{id}` whose Redis expiry is the
//!   task's; `{ns}:tasks` and `{ns}:owner:{key}` (sorted sets by expiry;
//!   the key is [`TaskRecord::quota_key`]) count them in all and per owner,
//!   so an insert checks both bounds (a full one first giving up its oldest
//!   finished task) and adds in one script. An update reads, applies the
//!   change in Rust ([`TaskRecord::apply`]) and writes back only if nobody
//!   wrote in between (a compare-and-set script), retrying otherwise.
//! - A used state is `{ns}:used:{fingerprint}`, set with `NX` for the time
//!   the state has left by the instance's clock (a duration, so that
//!   Redis's clock, maybe ahead, cannot end it early): the one `SET` that
//!   creates it is its first use. A task's record, too, lives for the time
//!   it has left. They are bounded by their lifetime (each costs the server
//!   a question first).
//! - A session is `{ns}:session:{id}`, kept for the session TTL; its
//!   streams' events are in `redis_events`.
//! - A rate's window is the sorted set `{ns}:rate:{key}` of its admissions
//!   by time, and a tool's slots of concurrency `{ns}:slots:{key}`, its
//!   holders by expiry: each taken in one script, on the Redis server's
//!   clock (instances' clocks may differ), and expiring with their last
//!   entry.
//!
//! The connection manager reconnects by itself; every call is bounded by the
//! timeout.

use std::fmt;

use redis::Script;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use toolmetadata::server::BoxFuture;
use toolmetadata::server::store::{
    LimitStore, ReplayStore, SessionState, SessionStore, SessionStoreError, StoreError, TaskChange,
    TaskRecord, TaskStore,
};

use crate::shared::{self, MAX_UPDATE_TRIES, bounded, unix_ms};
use crate::{ConnectError, Options};

/// Tasks, used request states and sessions on Redis.
pub struct RedisStore {
    pub(crate) connection: ConnectionManager,
    /// For the change bus's pub/sub connections.
    pub(crate) client: redis::Client,
    /// `redis at host:port`, for errors.
    pub(crate) name: String,
    pub(crate) options: Options,
    insert: Script,
    swap: Script,
    rate: Script,
    acquire: Script,
}

impl fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisStore")
            .field("name", &self.name)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

/// Drops the expired ids, checks the owner's quota and the bound (each
/// full one first gives up the oldest finished task it may take:
/// `TaskRecord::reclaimable_by`), then adds the task: 1 added, 2 the owner's
/// quota reached, 0 the store full.
/// KEYS: record, index, owner's index. ARGV: json, expires_at_ms, now_ms,
/// max, id, max per owner, namespace, the owner's quota key. A reclaimed
/// task's own record and owner's index are named from the namespace (a
/// single Redis, not a cluster). `reclaim(index, fair)` looks at the 64
/// tasks of `index` that expire first; when `fair`, another owner's task
/// only if it was delivered or cancelled.
const INSERT: &str = r"
local function reclaim(index, fair)
  for _, id in ipairs(redis.call('ZRANGE', index, 0, 63)) do
    local key = ARGV[7] .. ':task:' .. id
    local json = redis.call('GET', key)
    local take = true
    if json then
      local ok, r = pcall(cjson.decode, json)
      take = ok and type(r) == 'table' and type(r.state) == 'table'
        and r.state.status ~= 'working'
      local quota = '-'
      if take then
        quota = r.counted_as or r.owner
        if type(quota) ~= 'string' then quota = '-' end
        if fair then
          take = quota == ARGV[8] or r.delivered == true or r.state.status == 'cancelled'
        end
      end
      if take then
        redis.call('ZREM', ARGV[7] .. ':owner:' .. quota, id)
      end
    end
    if take then
      redis.call('DEL', key)
      redis.call('ZREM', KEYS[2], id)
      redis.call('ZREM', index, id)
      return true
    end
  end
  return false
end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ARGV[3])
if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[6]) and not reclaim(KEYS[3], false) then return 2 end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4])
  and not reclaim(KEYS[3], false) and not reclaim(KEYS[2], true) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', math.max(1, tonumber(ARGV[2]) - tonumber(ARGV[3])))
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[5])
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[5])
local left = math.max(1, tonumber(ARGV[2]) - tonumber(ARGV[3]))
if redis.call('PTTL', KEYS[3]) < left then
  redis.call('PEXPIRE', KEYS[3], left)
end
return 1
";

/// Writes the new record only over the one that was read.
/// KEYS: record. ARGV: read json, new json.
const SWAP: &str = r"
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
return 1
";

/// Counts an admission in a sliding window, on Redis's clock: 0 admitted,
/// else the milliseconds until the oldest admission leaves the window.
/// KEYS: window, sequence (unique members). ARGV: calls, window ms.
const RATE: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  local wait = tonumber(oldest[2]) + window - now
  if wait < 1 then wait = 1 end
  return wait
end
redis.call('ZADD', KEYS[1], now, now .. ':' .. redis.call('INCR', KEYS[2]))
redis.call('PEXPIRE', KEYS[1], window)
-- Members differ by time once the sequence has lapsed and starts again.
redis.call('PEXPIRE', KEYS[2], window)
return 0
";

/// Takes or extends a slot, on Redis's clock: 1 held, 0 all taken.
/// KEYS: slots. ARGV: holder, max, lease ms.
const ACQUIRE: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if not redis.call('ZSCORE', KEYS[1], ARGV[1])
   and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  return 0
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('PEXPIREAT', KEYS[1], last[2])
return 1
";

impl RedisStore {
    /// Connects to the Redis at `url` (`redis://[:password@]host[:port][/db]`).
    ///
    /// # Errors
    ///
    /// A malformed URL, a bad namespace, or a server that does not answer
    /// within the timeout.
    pub async fn connect(url: &str, options: Options) -> Result<Self, ConnectError> {
        options.check()?;
        let name = shared::name("redis", url);
        let client = redis::Client::open(url).map_err(|e| {
            ConnectError::Invalid(format!("store URL `{}`: {e}", shared::redact(url)))
        })?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(options.timeout))
            .set_response_timeout(Some(options.timeout))
            .set_number_of_retries(1);
        let connection = tokio::time::timeout(
            options.timeout,
            ConnectionManager::new_with_config(client.clone(), config),
        )
        .await
        .map_err(|_| {
            ConnectError::Unreachable(format!(
                "{name}: no answer within {} ms",
                options.timeout.as_millis()
            ))
        })?
        .map_err(|e| ConnectError::Unreachable(format!("{name}: {e}")))?;
        Ok(RedisStore {
            connection,
            client,
            name,
            options,
            insert: Script::new(INSERT),
            swap: Script::new(SWAP),
            rate: Script::new(RATE),
            acquire: Script::new(ACQUIRE),
        })
    }

    fn key(&self, kind: &str, id: &str) -> String {
        format!("{}:{kind}:{id}", self.options.namespace)
    }

    pub(crate) async fn run<T: redis::FromRedisValue>(
        &self,
        command: &redis::Cmd,
    ) -> Result<T, StoreError> {
        let mut connection = self.connection.clone();
        bounded(
            &self.name,
            self.options.timeout,
            command.query_async(&mut connection),
        )
        .await
    }

    async fn get_json(&self, id: &str) -> Result<Option<String>, StoreError> {
        if !shared::storable(id) {
            return Ok(None);
        }
        self.run(redis::cmd("GET").arg(self.key("task", id))).await
    }

    async fn update_task(
        &self,
        id: &str,
        change: TaskChange,
    ) -> Result<Option<TaskRecord>, StoreError> {
        let key = self.key("task", id);
        for _ in 0..MAX_UPDATE_TRIES {
            let Some(read) = self.get_json(id).await? else {
                return Ok(None);
            };
            let mut record = shared::from_json(&self.name, &read)?;
            record.apply(change.clone());
            let written = shared::to_json(&record)?;
            if written == read {
                return Ok(Some(record));
            }
            let mut connection = self.connection.clone();
            let swapped: i64 = bounded(
                &self.name,
                self.options.timeout,
                self.swap
                    .key(&key)
                    .arg(&read)
                    .arg(&written)
                    .invoke_async(&mut connection),
            )
            .await?;
            if swapped == 1 {
                return Ok(Some(record));
            }
        }
        Err(StoreError::Unavailable(format!(
            "{}: the task `{id}` changed {MAX_UPDATE_TRIES} times while being updated",
            self.name
        )))
    }
}

impl TaskStore for RedisStore {
    fn insert(&self, record: TaskRecord) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(async move {
            let json = shared::to_json(&record)?;
            let mut connection = self.connection.clone();
            let inserted: i64 = bounded(
                &self.name,
                self.options.timeout,
                self.insert
                    .key(self.key("task", &record.id))
                    .key(format!("{}:tasks", self.options.namespace))
                    // Quota keys are prefixed by kind (`sub:`, `addr:`…):
                    // `-` is none of them.
                    .key(self.key("owner", record.quota_key().unwrap_or("-")))
                    .arg(json)
                    .arg(record.expires_at_ms)
                    .arg(unix_ms())
                    .arg(self.options.max_tasks)
                    .arg(&record.id)
                    .arg(self.options.max_tasks_per_owner)
                    .arg(&self.options.namespace)
                    .arg(record.quota_key().unwrap_or("-"))
                    .invoke_async(&mut connection),
            )
            .await?;
            match inserted {
                1 => Ok(()),
                2 => Err(shared::owner_full(&self.options)),
                _ => Err(shared::store_full(&self.options)),
            }
        })
    }

    fn get<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        Box::pin(async move {
            let Some(json) = self.get_json(id).await? else {
                return Ok(None);
            };
            let record = shared::from_json(&self.name, &json)?;
            Ok((!record.is_expired()).then_some(record))
        })
    }

    fn update<'a>(
        &'a self,
        id: &'a str,
        change: TaskChange,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, StoreError>> {
        Box::pin(self.update_task(id, change))
    }
}

impl ReplayStore for RedisStore {
    fn first_use<'a>(
        &'a self,
        fingerprint: &'a str,
        expires_at_ms: u64,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let set: Option<String> = self
                .run(
                    redis::cmd("SET")
                        .arg(self.key("used", fingerprint))
                        .arg(1)
                        .arg("NX")
                        // For as long as the state lives by this instance's
                        // clock, which checks its expiry: a duration, which
                        // Redis's own clock (maybe ahead) cannot shorten.
                        .arg("PX")
                        .arg(expires_at_ms.saturating_sub(unix_ms()).max(1)),
                )
                .await?;
            Ok(set.is_some())
        })
    }
}

impl LimitStore for RedisStore {
    fn take_rate<'a>(
        &'a self,
        key: &'a str,
        calls: u32,
        window_ms: u64,
    ) -> BoxFuture<'a, Result<Option<u64>, StoreError>> {
        Box::pin(async move {
            let mut connection = self.connection.clone();
            let wait: u64 = bounded(
                &self.name,
                self.options.timeout,
                self.rate
                    .key(self.key("rate", key))
                    .key(format!("{}:rate_sequence", self.options.namespace))
                    .arg(calls)
                    .arg(window_ms.max(1))
                    .invoke_async(&mut connection),
            )
            .await?;
            Ok((wait > 0).then_some(wait))
        })
    }

    fn acquire<'a>(
        &'a self,
        key: &'a str,
        holder: &'a str,
        max: u32,
        lease_ms: u64,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let mut connection = self.connection.clone();
            let held: i64 = bounded(
                &self.name,
                self.options.timeout,
                self.acquire
                    .key(self.key("slots", key))
                    .arg(holder)
                    .arg(max)
                    .arg(lease_ms.max(1))
                    .invoke_async(&mut connection),
            )
            .await?;
            Ok(held == 1)
        })
    }

    fn release<'a>(
        &'a self,
        key: &'a str,
        holder: &'a str,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let _: i64 = self
                .run(redis::cmd("ZREM").arg(self.key("slots", key)).arg(holder))
                .await?;
            Ok(())
        })
    }
}

#[async_trait::async_trait]
impl SessionStore for RedisStore {
    async fn load(&self, session_id: &str) -> Result<Option<SessionState>, SessionStoreError> {
        if !shared::storable(session_id) {
            return Ok(None);
        }
        let json: Option<String> = self
            .run(redis::cmd("GET").arg(self.key("session", session_id)))
            .await
            .map_err(shared::boxed)?;
        Ok(match json {
            Some(json) => Some(serde_json::from_str(&json)?),
            None => None,
        })
    }

    async fn store(&self, session_id: &str, state: &SessionState) -> Result<(), SessionStoreError> {
        let json = serde_json::to_string(state)?;
        let ttl_ms = u64::try_from(self.options.session_ttl.as_millis()).unwrap_or(u64::MAX);
        let _: () = self
            .run(
                redis::cmd("SET")
                    .arg(self.key("session", session_id))
                    .arg(json)
                    .arg("PX")
                    .arg(ttl_ms.max(1)),
            )
            .await
            .map_err(shared::boxed)?;
        Ok(())
    }

    async fn delete(&self, session_id: &str) -> Result<(), SessionStoreError> {
        let _: i64 = self
            .run(redis::cmd("DEL").arg(self.key("session", session_id)))
            .await
            .map_err(shared::boxed)?;
        Ok(())
    }
}
