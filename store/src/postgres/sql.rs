//! The store's SQL, with the namespace's table names.

/// The statements, with the namespace's table names.
pub(super) struct Sql {
    pub(super) create: String,
    pub(super) insert_task: String,
    pub(super) count_owned: String,
    pub(super) reclaim_owned: String,
    pub(super) reclaim_any: String,
    pub(super) get_task: String,
    pub(super) lock_task: String,
    pub(super) set_task: String,
    pub(super) use_state: String,
    pub(super) purge: String,
    pub(super) load_session: String,
    pub(super) store_session: String,
    pub(super) delete_session: String,
    pub(super) lock_limit: String,
    pub(super) forget_rate: String,
    pub(super) count_rate: String,
    pub(super) add_rate: String,
    pub(super) forget_slots: String,
    pub(super) renew_slot: String,
    pub(super) count_slots: String,
    pub(super) add_slot: String,
    pub(super) release_slot: String,
    pub(super) keep_event: String,
    pub(super) stream_bounds: String,
    pub(super) replay_events: String,
    pub(super) tool_states: String,
    pub(super) set_tool_state: String,
}

impl Sql {
    pub(super) fn new(ns: &str) -> Self {
        Sql {
            create: format!(
                "SELECT pg_advisory_xact_lock(hashtext('{ns}/schema'));
                 CREATE TABLE IF NOT EXISTS {ns}_tasks (
                     id text PRIMARY KEY, record text NOT NULL, expires_at_ms bigint NOT NULL);
                 CREATE INDEX IF NOT EXISTS {ns}_tasks_expiry ON {ns}_tasks (expires_at_ms);
                 ALTER TABLE {ns}_tasks ADD COLUMN IF NOT EXISTS owner text;
                 CREATE INDEX IF NOT EXISTS {ns}_tasks_owner ON {ns}_tasks (owner);
                 ALTER TABLE {ns}_tasks ADD COLUMN IF NOT EXISTS finished boolean;
                 ALTER TABLE {ns}_tasks ADD COLUMN IF NOT EXISTS released boolean;
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
                 CREATE INDEX IF NOT EXISTS {ns}_slots_expiry ON {ns}_slots (expires_at_ms);
                 CREATE TABLE IF NOT EXISTS {ns}_events (
                     stream text NOT NULL, seq bigint NOT NULL, event text NOT NULL,
                     expires_at_ms bigint NOT NULL, PRIMARY KEY (stream, seq));
                 CREATE INDEX IF NOT EXISTS {ns}_events_expiry ON {ns}_events (expires_at_ms);
                 ALTER TABLE {ns}_events ADD COLUMN IF NOT EXISTS epoch bigint NOT NULL DEFAULT 0;
                 CREATE TABLE IF NOT EXISTS {ns}_tool_states (
                     tool text PRIMARY KEY, enabled boolean NOT NULL);"
            ),
            insert_task: format!(
                "INSERT INTO {ns}_tasks (id, record, expires_at_ms, owner, finished, released)
                 SELECT $1, $2, $3, $6, false, false
                 WHERE (SELECT count(*) FROM {ns}_tasks WHERE expires_at_ms > $4) < $5
                   AND (SELECT count(*) FROM {ns}_tasks
                        WHERE owner IS NOT DISTINCT FROM $6 AND expires_at_ms > $4) < $7"
            ),
            count_owned: format!(
                "SELECT count(*) FROM {ns}_tasks
                 WHERE owner IS NOT DISTINCT FROM $1 AND expires_at_ms > $2"
            ),
            // What a task is (finished; released: nobody waits for it) is
            // in columns of its own, never read from the record: a result
            // may hold anything, U+0000 included, which PostgreSQL's JSON
            // operators refuse. A task written before these columns is
            // neither, so it stays until it expires.
            reclaim_owned: format!(
                "DELETE FROM {ns}_tasks WHERE id = (
                     SELECT id FROM {ns}_tasks
                     WHERE owner IS NOT DISTINCT FROM $1 AND expires_at_ms > $2 AND finished
                     ORDER BY expires_at_ms LIMIT 1)"
            ),
            reclaim_any: format!(
                "DELETE FROM {ns}_tasks WHERE id = (
                     SELECT id FROM {ns}_tasks
                     WHERE expires_at_ms > $1 AND finished
                       AND (released OR owner IS NOT DISTINCT FROM $2)
                     ORDER BY expires_at_ms LIMIT 1)"
            ),
            get_task: format!("SELECT record FROM {ns}_tasks WHERE id = $1 AND expires_at_ms > $2"),
            lock_task: format!(
                "SELECT record FROM {ns}_tasks WHERE id = $1 AND expires_at_ms > $2 FOR UPDATE"
            ),
            set_task: format!(
                "UPDATE {ns}_tasks SET record = $2, finished = $3, released = $4 WHERE id = $1"
            ),
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
                 DELETE FROM {ns}_slots WHERE expires_at_ms <= {NOW_MS};
                 DELETE FROM {ns}_events WHERE expires_at_ms <= $1"
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
            // The next number of the stream in its epoch (`$5` for a new
            // stream; none when another instance took the number at once:
            // the caller tries again), and the stream trimmed to its newest
            // `$4`, in one statement.
            keep_event: format!(
                "WITH cur AS (
                     SELECT max(seq) AS seq, max(epoch) AS epoch
                     FROM {ns}_events WHERE stream = $1),
                 new AS (
                     INSERT INTO {ns}_events (stream, seq, epoch, event, expires_at_ms)
                     SELECT $1, coalesce(cur.seq, 0) + 1, coalesce(cur.epoch, $5), $2, $3
                     FROM cur
                     ON CONFLICT DO NOTHING
                     RETURNING seq, epoch),
                 trimmed AS (
                     DELETE FROM {ns}_events
                     WHERE stream = $1 AND seq <= (SELECT seq FROM new) - $4)
                 SELECT seq, epoch FROM new"
            ),
            stream_bounds: format!(
                "SELECT min(seq), max(seq), max(epoch) FROM {ns}_events
                 WHERE stream = $1 AND expires_at_ms > $2"
            ),
            replay_events: format!(
                "SELECT seq, event FROM {ns}_events
                 WHERE stream = $1 AND expires_at_ms > $2 AND seq > $3 ORDER BY seq"
            ),
            // One more than the most read: more is refused, not cut.
            tool_states: format!("SELECT tool, enabled FROM {ns}_tool_states LIMIT $1"),
            set_tool_state: format!(
                "INSERT INTO {ns}_tool_states (tool, enabled) VALUES ($1, $2)
                 ON CONFLICT (tool) DO UPDATE SET enabled = EXCLUDED.enabled"
            ),
        }
    }
}

/// The database's clock in Unix milliseconds, as SQL.
const NOW_MS: &str = "(extract(epoch from clock_timestamp()) * 1000)::bigint";
