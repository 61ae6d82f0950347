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
//! reach (a loopback address, in a container of its own). A browser on
//! this machine is kept out: a request that carries an `Origin` (any page's
//! `fetch`, even one that cannot read the answer) or names a `Host` other
//! than a loopback one (a DNS rebinding) is refused with `403`.

use std::net::SocketAddr;

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
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
        .route("/tools/{name}/{action}", post(switch))
        .with_state(server);
    eprintln!("operator's door on http://{bound}/tools");
    Ok(tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, router).await {
            tracing::warn!("the operator's door closed: {e}");
        }
    }))
}

/// Why a request is refused: it comes from a browser's page, or names a
/// host that is not this machine's loopback.
fn refused(headers: &HeaderMap) -> Option<(StatusCode, String)> {
    if headers.contains_key(header::ORIGIN) {
        return Some((
            StatusCode::FORBIDDEN,
            "the operator's door takes no requests from web pages\n".to_owned(),
        ));
    }
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    if !host.is_some_and(is_loopback_host) {
        return Some((
            StatusCode::FORBIDDEN,
            "the operator's door answers to a loopback Host only (127.0.0.1, [::1], localhost)\n"
                .to_owned(),
        ));
    }
    None
}

/// Whether `host` (a `Host` header, port included) names a loopback
/// address.
fn is_loopback_host(host: &str) -> bool {
    let name = match host.rsplit_once(':') {
        // `[::1]:9000`, `127.0.0.1:9000`, `localhost:9000`
        Some((name, port)) if !name.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => host,
    };
    let name = name.trim_start_matches('[').trim_end_matches(']');
    name.eq_ignore_ascii_case("localhost")
        || name
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

async fn listed(State(server): State<Server>, headers: HeaderMap) -> (StatusCode, String) {
    if let Some(refused) = refused(&headers) {
        return refused;
    }
    let names = server
        .listed_tools(false)
        .iter()
        .map(|t| format!("{}\n", t.name))
        .collect();
    (StatusCode::OK, names)
}

/// `POST /tools/{name}/enable` and `POST /tools/{name}/disable`.
async fn switch(
    State(server): State<Server>,
    headers: HeaderMap,
    Path((name, action)): Path<(String, String)>,
) -> (StatusCode, String) {
    if let Some(refused) = refused(&headers) {
        return refused;
    }
    let outcome = match action.as_str() {
        "enable" => server.enable_tool(&name).await,
        "disable" => server.disable_tool(&name).await,
        _ => {
            return (
                StatusCode::NOT_FOUND,
                "POST /tools/NAME/enable or /tools/NAME/disable\n".to_owned(),
            );
        }
    };
    match outcome {
        Ok(()) => (StatusCode::NO_CONTENT, String::new()),
        Err(e @ ToolChangeError::UnknownTool(_)) => (StatusCode::NOT_FOUND, format!("{e}\n")),
        Err(e) => (StatusCode::SERVICE_UNAVAILABLE, format!("{e}\n")),
    }
}

#[cfg(test)]
mod tests {
    use super::is_loopback_host;

    #[test]
    fn only_loopback_hosts_pass() {
        for host in [
            "127.0.0.1:9000",
            "localhost:9000",
            "[::1]:9000",
            "LOCALHOST",
            "127.8.0.1",
        ] {
            assert!(is_loopback_host(host), "{host}");
        }
        for host in [
            "evil.example:9000",
            "10.0.0.5:9000",
            "",
            ":9000",
            "localhost.evil:1",
            "[::2]:9000",
        ] {
            assert!(!is_loopback_host(host), "{host}");
        }
    }
}
