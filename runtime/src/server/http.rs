//! Streamable HTTP: rmcp's service at `/mcp` on hyper, behind the checks
//! a local server needs: loopback by default, `Host` and `Origin` checked
//! (DNS rebinding), bearer tokens checked by a [`TokenVerifier`] with the
//! tools' scopes (`super::auth`), a request body limit, and a
//! graceful shutdown on Ctrl-C or SIGTERM. Feature `http` (on by default).
//!
//! Every resource a client can hold is bounded: sessions (capped, idle ones
//! closed: `sessions`, feature `sessions`), connections and the time to
//! send headers (`serve`), the time, size and parsing cost of a body
//! (`body`), and what one client may hold of each (`clients`).

pub(super) mod body;
mod card;
mod clients;
mod coarse_timer;
mod endpoint;
mod etag;
mod group_path;
#[cfg(feature = "sessions")]
mod kept_events;
mod options;
mod origins;
#[cfg(feature = "sessions")]
mod owned_store;
#[cfg(feature = "sessions")]
pub(super) mod polling;
mod proxies;
mod serve;
#[cfg(feature = "sessions")]
mod sessions;

pub(super) use clients::ClientKey;
pub use options::HttpOptions;
use options::Verifier;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::{HeaderMap, Request, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use super::auth::Gate;
use super::compat::{self, Compat};
use super::{Server, ServerError, Serves};
use toolmetadata_core::BoxFuture;

/// What logs and spans say of the session a request names: its digest (see
/// `sessions::digest`), never the id; nothing without sessions.
pub(super) fn session_named(headers: &HeaderMap) -> Option<String> {
    #[cfg(feature = "sessions")]
    return headers
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(sessions::digest);
    #[cfg(not(feature = "sessions"))]
    {
        let _ = headers;
        None
    }
}

/// A server bound to its address, not yet serving.
pub struct HttpServer {
    listener: tokio::net::TcpListener,
    guard: Arc<Guard>,
    mcp: endpoint::Mcp,
    cancel: CancellationToken,
    limits: serve::ConnectionLimits,
    proxies: Arc<proxies::TrustedProxies>,
}

impl std::fmt::Debug for HttpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let addr = self.listener.local_addr().ok();
        f.debug_struct("HttpServer")
            .field("addr", &addr)
            .finish_non_exhaustive()
    }
}

impl HttpServer {
    /// The address it listens on.
    pub fn local_addr(&self) -> Result<SocketAddr, ServerError> {
        self.listener
            .local_addr()
            .map_err(|e| ServerError::Transport(format!("no local address: {e}")))
    }

    /// Serves until `shutdown` resolves, then finishes the requests in flight.
    /// Boxed like [`Server::serve_stdio`](super::Server::serve_stdio), and `shutdown` too, so that axum's
    /// server is compiled in this crate whatever the signal.
    pub fn run_until(
        self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> BoxFuture<'static, Result<(), ServerError>> {
        Box::pin(self.serve_until(Box::pin(shutdown)))
    }

    async fn serve_until(self, shutdown: BoxFuture<'static, ()>) -> Result<(), ServerError> {
        let cancel = self.cancel.clone();
        let signal = async move {
            shutdown.await;
            cancel.cancel();
        };
        let (guard, mcp) = (self.guard, self.mcp);
        let timer = guard.timer.clone();
        serve::serve(
            self.listener,
            move |request| check(guard.clone(), request, mcp.clone()),
            self.limits,
            timer,
            self.proxies,
            Box::pin(signal),
        )
        .await
    }

    /// Serves until Ctrl-C or SIGTERM. The signal handlers are installed when
    /// this is called, before the returned future is first polled, so a signal
    /// sent as soon as the address is announced is not lost.
    pub fn run(self) -> BoxFuture<'static, Result<(), ServerError>> {
        let signal = shutdown_signal();
        self.run_until(signal)
    }
}

/// A future that resolves on Ctrl-C, or SIGTERM on Unix. The handlers are
/// installed at the call, not at the first poll.
pub fn shutdown_signal() -> impl Future<Output = ()> + Send {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let interrupt = signal(SignalKind::interrupt());
        let terminate = signal(SignalKind::terminate());
        async move {
            let wait = |s: std::io::Result<tokio::signal::unix::Signal>| async move {
                match s {
                    Ok(mut s) => {
                        s.recv().await;
                    }
                    Err(_) => std::future::pending::<()>().await,
                }
            };
            tokio::select! {
                () = wait(interrupt) => {}
                () = wait(terminate) => {}
            }
            tracing::info!("shutting down");
        }
    }
    #[cfg(not(unix))]
    async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
        tracing::info!("shutting down");
    }
}

struct Guard {
    compat: Compat,
    /// The tools' server, for the groups its endpoint serves beneath it.
    server: Server,
    hosts: Vec<String>,
    origins: Vec<String>,
    gate: Option<Gate>,
    max_body_bytes: usize,
    body_read_timeout: Duration,
    /// For the time limits of a request's headers and body, of seconds.
    timer: coarse_timer::CoarseTimer,
    #[cfg(feature = "sessions")]
    sessions: Arc<sessions::CappedSessions>,
    streams: clients::Slots,
    card: Option<card::ServerCard>,
}

/// Binds the HTTP server of `server` (refusing a non-loopback address
/// unless the options allow it).
pub(super) async fn bind<S: Serves>(
    server: S,
    options: HttpOptions,
) -> Result<HttpServer, ServerError> {
    if !options.addr.ip().is_loopback() && !options.allow_non_loopback {
        return Err(ServerError::config(format!(
            "refusing to listen on {}: it is not a loopback address, so other machines could call these tools. \
             Listen on 127.0.0.1, or allow non-loopback addresses explicitly (and set a bearer token)",
            options.addr
        )));
    }
    if options.verifier.as_ref().is_none_or(|v| !v.0.has_claims())
        && let Some(served) = server
            .tools()
            .inner
            .catalog
            .served()
            .iter()
            .find(|s| super::policy::bound::needs_claims(&s.bound))
    {
        return Err(ServerError::config(format!(
            "the tool `{}` takes a parameter from the caller's token (`from = \"claim:…\"`), and this server verifies no token with claims \
             (none, or the static bearer_token): set one with token_verifier (a JwtVerifier, feature `auth`)",
            served.tool.name
        )));
    }
    if !options.addr.ip().is_loopback() {
        for served in server.tools().inner.catalog.served() {
            if let Some(header) = super::policy::bound::headers(&served.bound)
                .find(|h| !options.trusted_headers.contains(&h.to_ascii_lowercase()))
            {
                return Err(ServerError::config(format!(
                    "the tool `{}` takes a parameter from the header `{header}`, which any client can send: \
                     behind a gateway that sets it (and drops a client's), say so with trust_header(\"{header}\")",
                    served.tool.name
                )));
            }
        }
    }
    let gate = match (options.verifier, &options.resource) {
        (Some(Verifier(verifier)), resource) => Some(Gate::new(
            verifier,
            resource.as_ref(),
            server.tools().clone(),
        )?),
        (None, Some(_)) => {
            return Err(ServerError::config(
                "protected resource metadata needs a token verifier: set one with token_verifier or bearer_token",
            ));
        }
        (None, None) => None,
    };
    let mut proxies = proxies::TrustedProxies::default();
    for cidr in &options.trusted_proxies {
        proxies.add(cidr).map_err(ServerError::config)?;
    }
    if let Some(name) = &options.client_address_header {
        proxies.read_from(proxies::ForwardedBy::named(name).map_err(ServerError::config)?);
    }
    let card = options
        .server_card
        .as_deref()
        .map(card::ServerCard::new)
        .transpose()?;
    let listener = tokio::net::TcpListener::bind(options.addr)
        .await
        .map_err(|source| ServerError::Listen {
            addr: options.addr,
            source,
        })?;
    let cancel = CancellationToken::new();
    // rmcp's own Host check is off: ours (`check`) runs first, before the
    // token check, so that a rebinding page gets 403 and never a challenge
    // (tests/server/tests/http_security.rs shows it), and it checks Origin
    // against the operator's list too.
    let mut config = StreamableHttpServerConfig::default()
        .disable_allowed_hosts()
        .with_max_request_body_bytes(options.max_body_bytes)
        .with_cancellation_token(cancel.clone());
    let compat = server.tools().compat();
    #[cfg(feature = "sessions")]
    let sessions = session_manager(server.tools(), options.sessions, &mut config, &cancel);
    #[cfg(feature = "sessions")]
    let manager = sessions.clone();
    #[cfg(not(feature = "sessions"))]
    let manager = stateless_manager(&mut config);
    let groups_of = server.tools().clone();
    let mcp = StreamableHttpService::new(move || Ok(server.for_session()), manager, config);
    let mut hosts: Vec<String> = ["localhost", "127.0.0.1", "::1"]
        .map(str::to_owned)
        .to_vec();
    hosts.extend(options.allowed_hosts);
    let guard = Arc::new(Guard {
        compat,
        server: groups_of,
        hosts,
        origins: options.allowed_origins,
        gate,
        max_body_bytes: options.max_body_bytes,
        body_read_timeout: options.body_read_timeout,
        timer: coarse_timer::CoarseTimer::within(
            options.header_read_timeout.min(options.body_read_timeout),
        ),
        #[cfg(feature = "sessions")]
        sessions,
        streams: clients::Slots::new(options.max_streams, options.max_streams_per_client),
        card,
    });
    let mcp = endpoint::Mcp::new(mcp);
    // The address bound, port 0 resolved: what a client connects to.
    let addr = listener.local_addr().unwrap_or(options.addr);
    tracing::info!(%addr, "serving MCP over Streamable HTTP at /mcp");
    Ok(HttpServer {
        listener,
        guard,
        mcp,
        cancel,
        limits: serve::ConnectionLimits {
            header_read_timeout: options.header_read_timeout,
            max_connections: options.max_connections,
            max_connections_per_client: options.max_connections_per_client,
            shutdown_grace: options.shutdown_timeout,
        },
        proxies: Arc::new(proxies),
    })
}

/// The manager of `server`'s 2025-11-25 sessions: held to `caps`,
/// recorded in the server's `SessionStore` and their streams' events kept in
/// its `EventStore`, when it has them, and reaped until `cancel`.
#[cfg(feature = "sessions")]
fn session_manager(
    server: &Server,
    caps: options::SessionCaps,
    config: &mut StreamableHttpServerConfig,
    cancel: &CancellationToken,
) -> Arc<sessions::CappedSessions> {
    // A session recorded here is picked up by another instance when the
    // one that opened it is gone (rmcp replays its `initialize`). Each under
    // its owner's key: another principal with the id finds none.
    config.session_store = server.inner.stores.sessions.clone().map(|store| {
        Arc::new(owned_store::OwnedSessionStore::new(store))
            as Arc<dyn rmcp::transport::streamable_http_server::session::store::SessionStore>
    });
    let sessions = Arc::new(
        sessions::CappedSessions::new(caps.max, caps.max_per_client, caps.idle, server.compat())
            .with_store(config.session_store.clone())
            .with_events(server.inner.stores.events.clone()),
    );
    sessions.spawn_reaper(cancel.clone());
    sessions
}

/// Without sessions every request is served alone, as 2026-07-28 says; one
/// without its version in `_meta` is refused (an `initialize` too: no
/// version this server offers has one). rmcp's manager opens no session
/// and, with no event store, keeps no stream (as for a stateless request
/// to a server with sessions): a `GET` is refused.
#[cfg(not(feature = "sessions"))]
fn stateless_manager(
    config: &mut StreamableHttpServerConfig,
) -> Arc<rmcp::transport::streamable_http_server::session::local::LocalSessionManager> {
    config.legacy_session_mode = false;
    config.stateless_protocol_metadata_required = true;
    Arc::default()
}

/// Serves until Ctrl-C or SIGTERM.
pub(super) async fn serve<S: Serves>(server: S, options: HttpOptions) -> Result<(), ServerError> {
    bind(server, options).await?.run().await
}

async fn check(guard: Arc<Guard>, request: Request<Body>, next: endpoint::Mcp) -> Response {
    let headers = request.headers();
    // With two, a check could read one and a later reader the other.
    for name in [header::HOST, header::ORIGIN] {
        if headers.get_all(&name).iter().nth(1).is_some() {
            return (
                StatusCode::BAD_REQUEST,
                format!("the {name} header is given more than once"),
            )
                .into_response();
        }
    }
    if let Some(problem) = origins::host_problem(&guard.hosts, headers) {
        return (StatusCode::FORBIDDEN, problem).into_response();
    }
    // Public, for any origin: read before the Origin and token checks.
    if let Some(card) = &guard.card
        && request.uri().path() == card::PATH
    {
        return card.answer(request.method(), headers);
    }
    if let Some(problem) = origins::origin_problem(&guard.origins, headers) {
        return (StatusCode::FORBIDDEN, problem).into_response();
    }
    let principal = match &guard.gate {
        Some(gate) => {
            if let Some(document) = gate.metadata(request.method(), request.uri().path()) {
                return document;
            }
            match gate.authenticate(headers).await {
                Ok(principal) => Some(principal),
                Err(refused) => return refused,
            }
        }
        None => None,
    };
    // `<endpoint>/<group>`: the group's tools only, for every method (a
    // caller refused at the door learns nothing of the groups here).
    let scope = match group_path::scope_of(&guard.server, request.uri().path()) {
        Ok(scope) => scope,
        Err(unknown) => return (StatusCode::NOT_FOUND, unknown).into_response(),
    };
    let headers = request.headers();
    let length = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    if length.is_some_and(|n| n > guard.max_body_bytes) {
        return (
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("the request body exceeds {} bytes", guard.max_body_bytes),
        )
            .into_response();
    }
    let client = ClientKey::of(
        principal.as_ref().map(super::policy::identity::owner_of),
        request.extensions(),
    );
    let mut request = request;
    request.extensions_mut().insert(scope);
    #[cfg(feature = "sessions")]
    if let Some(refused) = sessions::routes::foreign(&guard.sessions, request.headers(), &client) {
        return refused;
    }
    if request.method() == axum::http::Method::GET {
        // A standalone stream holds its connection for as long as it is
        // open: each client holds a share of them, and all of them a share
        // of the connections.
        let slot = match guard.streams.take(&client) {
            Ok(slot) => slot,
            Err(full) => {
                return (
                    StatusCode::TOO_MANY_REQUESTS,
                    [(header::RETRY_AFTER, "5")],
                    format!("no stream opened: {full} of the standalone streams"),
                )
                    .into_response();
            }
        };
        let response = client
            .scope(next.run(with_principal(request, principal)))
            .await;
        return holding_while_open(response, slot);
    }
    #[cfg(feature = "sessions")]
    if request.method() == axum::http::Method::DELETE {
        if let Some(refused) =
            sessions::routes::closing(&guard.sessions, request.headers(), &client).await
        {
            return refused;
        }
        let response = client
            .scope(next.run(with_principal(request, principal)))
            .await;
        return sessions::routes::closed(response);
    }
    if request.method() != axum::http::Method::POST {
        return client
            .scope(next.run(with_principal(request, principal)))
            .await;
    }
    // rmcp limits a body's size too (the config above), but reads it with no
    // time limit: a client sending half a body would hold the connection.
    #[cfg_attr(not(all(feature = "tasks", feature = "sessions")), allow(unused_mut))]
    let (mut request, messages) = match body::buffered(
        request,
        guard.max_body_bytes,
        guard.body_read_timeout,
        &guard.timer,
    )
    .await
    {
        Ok(buffered) => buffered,
        Err(refused) => return refused,
    };
    // Over HTTP the gate answers 403 for a tool the principal lacks scopes
    // for, before rmcp sees the call.
    if let (Some(gate), Some(principal)) = (&guard.gate, &principal)
        && let Some(refused) = gate.authorize(principal, &messages, scope)
    {
        return refused;
    }
    #[cfg(all(feature = "tasks", feature = "sessions"))]
    if guard.compat.tasks
        && let Some(tasks) = compat::task_params::of_body(&messages)
    {
        request.extensions_mut().insert(tasks);
    }
    #[cfg(feature = "sessions")]
    if let Some(refused) =
        sessions::routes::no_room(&guard.sessions, &client, request.headers(), &messages)
    {
        return refused;
    }
    let patch = compat::http::patches_answer(&guard.compat, request.headers(), &messages);
    let tag = etag::wanted(request.headers(), &messages);
    let mut response = client
        .scope(next.run(with_principal(request, principal)))
        .await;
    if patch {
        response = compat::http::patch_answer(response, &guard.compat).await;
    }
    match tag {
        Some(if_none_match) => etag::tagged(response, if_none_match).await,
        None => response,
    }
}

/// `response`, holding `slot` for as long as its body streams when it is an
/// event stream (and giving it back at once otherwise).
fn holding_while_open(response: Response, slot: clients::Slot) -> Response {
    let streaming = response.status().is_success()
        && response
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
    if !streaming {
        return response;
    }
    let (parts, body) = response.into_parts();
    let body = body.into_data_stream().map(move |piece| {
        let _held = &slot;
        piece
    });
    Response::from_parts(parts, Body::from_stream(body))
}

/// The request with the verified principal in its extensions, where the
/// handlers (and `ContextExt::extension`) find it.
fn with_principal(
    mut request: Request<Body>,
    principal: Option<super::auth::Principal>,
) -> Request<Body> {
    if let Some(principal) = principal {
        request.extensions_mut().insert(principal);
    }
    request
}

/// `X-MCP-Show-All: true` or `?show_all=true` on the HTTP request.
pub(super) fn show_all_requested(
    context: &rmcp::service::RequestContext<rmcp::service::RoleServer>,
) -> bool {
    let Some(parts) = context.extensions.get::<axum::http::request::Parts>() else {
        return false;
    };
    let header = parts
        .headers
        .get("x-mcp-show-all")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"));
    let query = parts.uri.query().is_some_and(|q| {
        q.split('&')
            .any(|pair| pair.eq_ignore_ascii_case("show_all=true"))
    });
    header || query
}

impl Server {
    /// Serves Streamable HTTP at `/mcp` until Ctrl-C or SIGTERM (or the options'
    /// shutdown signal). Boxed like [`Server::serve_stdio`]. Feature `http`
    /// (on by default).
    pub fn serve_http(
        self,
        options: HttpOptions,
    ) -> toolmetadata_core::BoxFuture<'static, Result<(), ServerError>> {
        Box::pin(serve(self, options))
    }

    /// Binds the HTTP server (refusing a non-loopback address unless the
    /// options allow it); serve it with [`HttpServer::run`]. Boxed like
    /// [`Server::serve_stdio`].
    pub fn bind_http(
        self,
        options: HttpOptions,
    ) -> toolmetadata_core::BoxFuture<'static, Result<HttpServer, ServerError>> {
        Box::pin(bind(self, options))
    }
}
