//! What the runtime's integration tests share: a server and rmcp's client
//! connected in memory.

use rmcp::service::ClientServiceExt;
use rmcp::service::RunningService;
use rmcp::{ClientHandler, RoleClient, ServerHandler, ServiceExt};

/// Serves `server` to `client` over an in-memory stream; the client's side,
/// started the oldest way the server serves: a 2025-11-25 session with the
/// feature `sessions`, 2026-07-28's discovery without.
#[allow(dead_code, reason = "not every test binary starts a session")]
pub(crate) async fn connect<S: ServerHandler, C: ClientHandler>(
    server: S,
    client: C,
) -> RunningService<RoleClient, C> {
    #[cfg(feature = "sessions")]
    let lifecycle = rmcp::service::ClientLifecycleMode::Initialize;
    #[cfg(not(feature = "sessions"))]
    let lifecycle = rmcp::service::ClientLifecycleMode::Discover {
        preferred_versions: vec![rmcp::model::ProtocolVersion::V_2026_07_28],
    };
    connect_with(server, client, lifecycle).await
}

/// [`connect`], the client starting the way `lifecycle` says: a
/// 2025-11-25 session (`Initialize`), or 2026-07-28's `Discover`.
#[allow(dead_code, reason = "not every test binary speaks both generations")]
pub(crate) async fn connect_with<S: ServerHandler, C: ClientHandler>(
    server: S,
    client: C,
    lifecycle: rmcp::service::ClientLifecycleMode,
) -> RunningService<RoleClient, C> {
    let (a, b) = tokio::io::duplex(64 * 1024);
    let (server_read, server_write) = tokio::io::split(a);
    let (client_read, client_write) = tokio::io::split(b);
    tokio::spawn(async move {
        if let Ok(running) = server.serve((server_read, server_write)).await {
            let _ = running.waiting().await;
        }
    });
    client
        .serve_with_lifecycle((client_read, client_write), lifecycle)
        .await
        .expect("initialize")
}
