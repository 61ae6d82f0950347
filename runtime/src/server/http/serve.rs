//! The accept loop: hyper's HTTP/1 server on each connection, with a header
//! read timeout (hyper applies it only with a timer, which `axum::serve` does
//! not set, so idle and half-sent requests stayed open; ours is coarse,
//! `coarse_timer`), a cap on open
//! connections (each client a share of them: the client a trusted proxy
//! names, `proxies`), and a graceful shutdown that itself has a deadline.

use std::sync::Arc;
use std::time::Duration;

use std::convert::Infallible;

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::Request;
use axum::response::Response;
use futures_util::FutureExt;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::TokioIo;
use hyper_util::server::graceful::GracefulShutdown;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::super::ServerError;
use super::clients::{ClientKey, Slots};
use super::coarse_timer::CoarseTimer;
use super::proxies::TrustedProxies;
use crate::server::policy::identity::address_of;
use toolmetadata_core::BoxFuture;

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
    /// Connections one address may hold at once; more are answered 503 and
    /// closed, so that one client cannot take every slot.
    pub(super) max_connections_per_client: usize,
    /// How long requests in flight may take to finish after the shutdown
    /// signal.
    pub(super) shutdown_grace: Duration,
}

/// How long the answer to a connection over its address's share may take
/// to write.
const REFUSAL_TIMEOUT: Duration = Duration::from_secs(1);

/// Why a connection over its address's share is closed.
const REFUSAL: &str = "this address holds its share of connections; retry after one closes\n";

/// Serves `endpoint` (the answer to each request) on `listener` until
/// `shutdown` resolves; `timer` times the headers' reading.
pub(super) async fn serve<E, F>(
    listener: TcpListener,
    endpoint: E,
    limits: ConnectionLimits,
    timer: CoarseTimer,
    proxies: Arc<TrustedProxies>,
    shutdown: BoxFuture<'static, ()>,
) -> Result<(), ServerError>
where
    E: Fn(Request<Body>) -> F + Clone + Send + Sync + 'static,
    F: Future<Output = Response> + Send + 'static,
{
    let permits = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let per_address = Slots::new(limits.max_connections, limits.max_connections_per_client);
    let graceful = GracefulShutdown::new();
    let mut builder = http1::Builder::new();
    builder
        .timer(timer)
        .header_read_timeout(limits.header_read_timeout)
        .keep_alive(true);
    let mut shutdown = shutdown;
    loop {
        let permit = tokio::select! {
            permit = permits.clone().acquire_owned() => permit
                .map_err(|_| ServerError::Transport("the connection limit was closed".to_owned()))?,
            () = &mut shutdown => break,
        };
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, peer)) => {
                    // Answers are small writes that wait for nothing more:
                    // with Nagle's algorithm each one waited for the client's
                    // delayed ACK, about 40 ms on Linux.
                    if let Err(e) = stream.set_nodelay(true) {
                        tracing::debug!("TCP_NODELAY not set: {e}");
                    }
                    (stream, peer)
                }
                Err(e) => {
                    tracing::warn!("accepting a connection failed: {e}");
                    tokio::time::sleep(ACCEPT_BACKOFF).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let (per_address, endpoint, proxies) =
            (per_address.clone(), endpoint.clone(), proxies.clone());
        let builder = builder.clone();
        let watcher = graceful.watcher();
        tokio::spawn(async move {
            let mut stream = stream;
            let client = match proxies
                .accept(&mut stream, peer, limits.header_read_timeout)
                .await
            {
                Ok(client) => client,
                Err(e) => {
                    tracing::debug!(%peer, "connection closed: {e}");
                    return;
                }
            };
            // A trusted proxy that forwards for many clients over one
            // connection is not one client.
            let slot = if proxies.trusts(client.ip()) {
                None
            } else {
                match per_address.take(&ClientKey::Address(address_of(client.ip()))) {
                    Ok(slot) => Some(slot),
                    Err(full) => {
                        tracing::debug!(%client, "connection refused: {full}");
                        refuse(stream, permit).await;
                        return;
                    }
                }
            };
            let service = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
                let mut request = request.map(Body::new);
                // Where axum's `into_make_service_with_connect_info` puts
                // it, so that a mounted router keyed by address reads it the
                // same way: the client a trusted proxy names, else the peer.
                let client = proxies.client(client, request.headers());
                request.extensions_mut().insert(ConnectInfo(client));
                endpoint(request).map(Ok::<_, Infallible>)
            });
            let connection = watcher.watch(builder.serve_connection(TokioIo::new(stream), service));
            if let Err(e) = connection.await {
                tracing::trace!("connection ended: {e}");
            }
            drop((permit, slot));
        });
    }
    drop(listener);
    if tokio::time::timeout(limits.shutdown_grace, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!(
            "connections still open {:?} after shutdown: dropped",
            limits.shutdown_grace
        );
    }
    Ok(())
}

/// Answers a connection over its address's share with 503, briefly, and
/// closes it; its slot of the total is held until then.
async fn refuse(mut stream: TcpStream, permit: OwnedSemaphorePermit) {
    let answer = format!(
        "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 5\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{REFUSAL}",
        REFUSAL.len()
    );
    let _ = tokio::time::timeout(REFUSAL_TIMEOUT, stream.write_all(answer.as_bytes())).await;
    let _ = tokio::time::timeout(REFUSAL_TIMEOUT, stream.shutdown()).await;
    drop(permit);
}
