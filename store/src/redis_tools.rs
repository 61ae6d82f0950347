//! Which tools are enabled, on Redis: the hash `{ns}:tools` of tool name to
//! `1` (enabled) or `0`, without expiry (the fleet's configuration), read
//! whole in one script that refuses a hash past
//! [`MAX_TOOL_STATES`] entries.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use redis::Script;
use toolmetadata::server::BoxFuture;
use toolmetadata::server::store::{
    MAX_TOOL_STATES, StoreError, TOO_MANY_TOOL_STATES, ToolStateStore,
};

use crate::redis::RedisStore;
use crate::shared::bounded;

/// The hash's fields and values, or false past `ARGV[1]` fields.
/// KEYS: the hash. ARGV: the most fields read.
static READ: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r"
if redis.call('HLEN', KEYS[1]) > tonumber(ARGV[1]) then return false end
return redis.call('HGETALL', KEYS[1])
",
    )
});

impl RedisStore {
    fn tools_key(&self) -> String {
        format!("{}:tools", self.options.namespace)
    }
}

impl ToolStateStore for RedisStore {
    fn tool_states(&self) -> BoxFuture<'_, Result<BTreeMap<String, bool>, StoreError>> {
        Box::pin(async move {
            let mut connection = self.connection.clone();
            let read: Option<Vec<(String, String)>> = bounded(
                &self.name,
                self.options.timeout,
                READ.key(self.tools_key())
                    .arg(MAX_TOOL_STATES)
                    .invoke_async(&mut connection),
            )
            .await?;
            let Some(fields) = read else {
                return Err(TOO_MANY_TOOL_STATES);
            };
            Ok(fields
                .into_iter()
                .map(|(tool, enabled)| (tool, enabled == "1"))
                .collect())
        })
    }

    fn set_tool_state<'a>(
        &'a self,
        tool: &'a str,
        enabled: bool,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            self.run::<i64>(
                redis::cmd("HSET")
                    .arg(self.tools_key())
                    .arg(tool)
                    .arg(if enabled { "1" } else { "0" }),
            )
            .await
            .map(drop)
        })
    }
}
