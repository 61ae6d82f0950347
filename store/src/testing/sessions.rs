//! [`SessionStore`]'s contract: a 2025-11-25 session recorded through one
//! handle is found, replaced and deleted through the other.

use std::sync::Arc;

use toolmetadata::server::rmcp::model::InitializeRequestParams;
use toolmetadata::server::store::{SessionState, SessionStore};

use super::{Violation, answered, check, unique};

/// Checks that `a` and `b`, two handles on one empty store, keep what
/// rmcp's [`SessionStore`] asks: a session stored through one is loaded
/// through the other as it was stored, a second store replaces it, a delete
/// removes it for both, and an id never stored (a long one, one holding
/// U+0000) is unknown, never an error.
///
/// # Errors
///
/// The first guarantee broken.
pub async fn session_store(
    a: Arc<dyn SessionStore>,
    b: Arc<dyn SessionStore>,
) -> Result<(), Violation> {
    const G: &str = "a session is the fleet's";
    let id = unique("session");
    let first = state("first");
    answered(a.store(&id, &first).await, G, "store")?;
    let loaded = answered(b.load(&id).await, G, "load")?;
    check(named(&loaded) == Some("first"), G, || {
        format!("stored through one handle, loaded through the other as {loaded:?}")
    })?;
    answered(b.store(&id, &state("second")).await, G, "store")?;
    let replaced = answered(a.load(&id).await, G, "load")?;
    check(named(&replaced) == Some("second"), G, || {
        format!("stored again, loaded as {replaced:?}")
    })?;
    answered(a.delete(&id).await, G, "delete")?;
    let deleted = answered(b.load(&id).await, G, "load")?;
    check(deleted.is_none(), G, || {
        format!("deleted through one handle, still loaded through the other: {deleted:?}")
    })?;
    answered(b.delete(&id).await, G, "delete of a session already gone")?;
    const U: &str = "unknown ids are unknown";
    for unknown in [unique("never"), "x".repeat(10_000), "a\0b".to_owned()] {
        let shown: String = unknown.chars().take(20).collect();
        let loaded = a.load(&unknown).await;
        check(matches!(loaded, Ok(None)), U, || {
            format!("load of a session never stored ({shown:?}…) gave {loaded:?}, not Ok(None)")
        })?;
    }
    Ok(())
}

/// A session's state, told apart by its client's name.
fn state(client: &str) -> SessionState {
    let params: InitializeRequestParams = serde_json::from_value(serde_json::json!({
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": client, "version": "1"}
    }))
    .unwrap_or_else(|_| InitializeRequestParams::default());
    SessionState::new(params)
}

fn named(state: &Option<SessionState>) -> Option<&str> {
    state
        .as_ref()
        .map(|s| s.initialize_params.client_info.name.as_str())
}
