//! Which tools are enabled, in PostgreSQL: the table `{ns}_tool_states`, a
//! row per tool enabled or disabled at run time, without expiry (the
//! fleet's configuration); read whole, refused past [`MAX_TOOL_STATES`]
//! rows.

use std::collections::BTreeMap;

use toolmetadata::server::BoxFuture;
use toolmetadata::server::store::{
    MAX_TOOL_STATES, StoreError, TOO_MANY_TOOL_STATES, ToolStateStore,
};

use super::PostgresStore;
use crate::shared::bounded;

impl ToolStateStore for PostgresStore {
    fn tool_states(&self) -> BoxFuture<'_, Result<BTreeMap<String, bool>, StoreError>> {
        Box::pin(async move {
            let limit = i64::try_from(MAX_TOOL_STATES + 1).unwrap_or(i64::MAX);
            let rows = bounded(&self.name, self.options.timeout, async {
                let client = self.pool.get().await.map_err(|e| e.to_string())?;
                client
                    .query(&self.sql.tool_states, &[&limit])
                    .await
                    .map_err(|e| e.to_string())
            })
            .await?;
            if rows.len() > MAX_TOOL_STATES {
                return Err(TOO_MANY_TOOL_STATES);
            }
            Ok(rows
                .iter()
                .map(|row| (row.get::<_, String>(0), row.get::<_, bool>(1)))
                .collect())
        })
    }

    fn set_tool_state<'a>(
        &'a self,
        tool: &'a str,
        enabled: bool,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            bounded(&self.name, self.options.timeout, async {
                let client = self.pool.get().await.map_err(|e| e.to_string())?;
                client
                    .execute(&self.sql.set_tool_state, &[&tool, &enabled])
                    .await
                    .map_err(|e| e.to_string())
            })
            .await
            .map(drop)
        })
    }
}
