//! The operator's door (`--admin ADDR`, a loopback address only): tools
//! enabled and disabled while the server runs. With `--store`, a change
//! made through one instance's door is every instance's: each lists the
//! same tools and tells its clients (`notifications/tools/list_changed`).
//!
//! - `GET /tools`: the tools a plain `tools/list` shows now, one per line;
//! - `POST /tools/{name}/enable`, `POST /tools/{name}/disable`: `204` when
//!   done, `404` for a tool the server does not have, `503` when the store
//!   did not take it (nothing changed).
//!
//! Nothing here reads a body. Only this machine can connect, which is all
//! the authorization the door has: bind it where only the operator can
//! reach (a loopback address, in a container of its own).

use std::net::SocketAddr;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use toolmetadata::server::{Server, ToolChangeError};

/// Serves the door on `addr` until the process ends; an error when `addr`
/// is not a loopback address or cannot be listened on.
pub(crate) async fn open(
    addr: SocketAddr,
    server: Server,
) -> Result<tokio::task::JoinHandle<()>, String> {
    if !addr.ip().is_loopback() {
        return Err(format!(
            "--admin {addr}: the operator's door listens on a loopback address only (such as 127.0.0.1:9000)"
        ));
    }
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| format!("--admin {addr}: {e}"))?;
    let bound = listener.local_addr().map_err(|e| e.to_string())?;
    let router = axum::Router::new()
        .route("/tools", get(listed))
        .route("/tools/{name}/enable", post(enable))
        .route("/tools/{name}/disable", post(disable))
        .with_state(server);
    eprintln!("operator's door on http://{bound}/tools");
    Ok(tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, router).await {
            tracing::warn!("the operator's door closed: {e}");
        }
    }))
}

async fn listed(State(server): State<Server>) -> String {
    server
        .listed_tools(false)
        .iter()
        .map(|t| format!("{}\n", t.name))
        .collect()
}

async fn enable(State(server): State<Server>, Path(name): Path<String>) -> (StatusCode, String) {
    answer(server.enable_tool(&name).await)
}

async fn disable(State(server): State<Server>, Path(name): Path<String>) -> (StatusCode, String) {
    answer(server.disable_tool(&name).await)
}

fn answer(outcome: Result<(), ToolChangeError>) -> (StatusCode, String) {
    match outcome {
        Ok(()) => (StatusCode::NO_CONTENT, String::new()),
        Err(e @ ToolChangeError::UnknownTool(_)) => (StatusCode::NOT_FOUND, format!("{e}\n")),
        Err(e) => (StatusCode::SERVICE_UNAVAILABLE, format!("{e}\n")),
    }
}
