//! The accept loop: hyper's HTTP/1 server on each connection, with a header
//! read timeout (hyper applies it only with a timer, which `axum::serve` does
//! not set, so idle and half-sent requests stayed open), a cap on open
//! connections, and a graceful shutdown that itself has a deadline.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tower::ServiceExt;

use super::super::ServerError;
use crate::BoxFuture;

/// How long requests in flight may take to finish after the shutdown signal.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);
/// Pause after a failed accept (such as too many open files), so the loop
/// does not spin.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);

/// Connection limits.
#[derive(Debug, Clone, Copy)]
pub(super) struct ConnectionLimits {
    /// Time a client has to send a request's headers, idle connections
    /// included.
    pub(super) header_read_timeout: Duration,
    /// Connections served at once; more wait in the listen backlog.
    pub(super) max_connections: usize,
}

/// Serves `router` on `listener` until `shutdown` resolves.
pub(super) async fn serve(
    listener: TcpListener,
    router: axum::Router,
    limits: ConnectionLimits,
    shutdown: BoxFuture<'static, ()>,
) -> Result<(), ServerError> {
    let permits = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let graceful = GracefulShutdown::new();
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout)
        .keep_alive(true);
    let mut shutdown = shutdown;
    loop {
        let permit = tokio::select! {
            permit = permits.clone().acquire_owned() => permit
                .map_err(|_| ServerError::new("the connection limit was closed"))?,
            () = &mut shutdown => break,
        };
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    // Answers are small writes that wait for nothing more:
                    // with Nagle's algorithm each one waited for the client's
                    // delayed ACK, about 40 ms on Linux.
                    if let Err(e) = stream.set_nodelay(true) {
                        tracing::debug!("TCP_NODELAY not set: {e}");
                    }
                    stream
                }
                Err(e) => {
                    tracing::warn!("accepting a connection failed: {e}");
                    tokio::time::sleep(ACCEPT_BACKOFF).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let router = router.clone();
        let service = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
            router.clone().oneshot(request.map(Body::new))
        });
        let connection = graceful.watch(builder.serve_connection(TokioIo::new(stream), service));
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::trace!("connection ended: {e}");
            }
            drop(permit);
        });
    }
    drop(listener);
    if tokio::time::timeout(SHUTDOWN_GRACE, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!("connections still open {SHUTDOWN_GRACE:?} after shutdown: dropped");
    }
    Ok(())
}
