//! [`HttpOptions`]: how the HTTP server listens, whom it accepts, and the
//! bounds of what each client may hold.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use crate::server::auth::{ProtectedResource, StaticToken, TokenVerifier};

/// How the HTTP server listens and whom it accepts.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    pub(super) addr: SocketAddr,
    pub(super) allow_non_loopback: bool,
    pub(super) allowed_hosts: Vec<String>,
    pub(super) allowed_origins: Vec<String>,
    pub(super) verifier: Option<Verifier>,
    pub(super) resource: Option<ProtectedResource>,
    pub(super) max_body_bytes: usize,
    #[cfg(feature = "sessions")]
    pub(super) sessions: SessionCaps,
    pub(super) header_read_timeout: Duration,
    pub(super) body_read_timeout: Duration,
    pub(super) max_connections: usize,
    pub(super) max_connections_per_client: usize,
    pub(super) max_streams: usize,
    pub(super) max_streams_per_client: usize,
    pub(super) server_card: Option<String>,
    pub(super) trusted_headers: Vec<String>,
    pub(super) trusted_proxies: Vec<String>,
    pub(super) client_address_header: Option<String>,
    pub(super) shutdown_timeout: Duration,
}

/// What 2025-11-25 sessions are held to (see `sessions`).
#[cfg(feature = "sessions")]
#[derive(Debug, Clone, Copy)]
pub(super) struct SessionCaps {
    /// The most sessions kept at once.
    pub(super) max: usize,
    /// The most one client keeps at once.
    pub(super) max_per_client: usize,
    /// How long a session may go unused before it is closed.
    pub(super) idle: Duration,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            addr: SocketAddr::from(([127, 0, 0, 1], 8080)),
            allow_non_loopback: false,
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            verifier: None,
            resource: None,
            max_body_bytes: 4 * 1024 * 1024,
            #[cfg(feature = "sessions")]
            sessions: SessionCaps {
                max: 1000,
                max_per_client: 100,
                idle: Duration::from_secs(300),
            },
            header_read_timeout: Duration::from_secs(10),
            body_read_timeout: Duration::from_secs(30),
            max_connections: 1024,
            max_connections_per_client: 256,
            max_streams: 512,
            max_streams_per_client: 16,
            server_card: None,
            trusted_headers: Vec::new(),
            trusted_proxies: Vec::new(),
            client_address_header: None,
            shutdown_timeout: Duration::from_secs(5),
        }
    }
}

impl HttpOptions {
    /// Listen on `addr` (default `127.0.0.1:8080`; port 0 picks a free port).
    pub fn addr(mut self, addr: SocketAddr) -> Self {
        self.addr = addr;
        self
    }

    /// Allow listening on an address other than loopback (such as `0.0.0.0`).
    /// Without this, such an address is refused at startup.
    pub fn allow_non_loopback(mut self, allow: bool) -> Self {
        self.allow_non_loopback = allow;
        self
    }

    /// Accept this `Host` (a host name, without port) besides the loopback
    /// names `localhost`, `127.0.0.1` and `::1`.
    pub fn allow_host(mut self, host: impl Into<String>) -> Self {
        self.allowed_hosts.push(host.into().to_ascii_lowercase());
        self
    }

    /// Accept requests whose `Origin` is exactly this (`https://app.example`)
    /// besides loopback origins.
    pub fn allow_origin(mut self, origin: impl Into<String>) -> Self {
        self.allowed_origins
            .push(origin.into().to_ascii_lowercase());
        self
    }

    /// Require `Authorization: Bearer <token>` with exactly this token on
    /// every request; its bearer holds every scope ([`StaticToken`]).
    pub fn bearer_token(self, token: impl Into<String>) -> Self {
        self.token_verifier(StaticToken::new(token))
    }

    /// Require a bearer token on every request and check it with
    /// `verifier` (such as a `JwtVerifier`, feature `auth`), which also says
    /// which scopes it grants; replaces [`HttpOptions::bearer_token`].
    pub fn token_verifier(mut self, verifier: impl TokenVerifier) -> Self {
        self.verifier = Some(Verifier(Arc::new(verifier)));
        self
    }

    /// Publish Protected Resource Metadata (RFC 9728) at
    /// `/.well-known/oauth-protected-resource` (and its form with the
    /// resource's path), and point `401` answers at it. Needs a token
    /// verifier.
    pub fn protected_resource(mut self, resource: ProtectedResource) -> Self {
        self.resource = Some(resource);
        self
    }

    /// The largest request body accepted (default 4 MiB); larger ones get 413.
    pub fn max_body_bytes(mut self, bytes: usize) -> Self {
        self.max_body_bytes = bytes;
        self
    }

    /// The most 2025-11-25 sessions kept at once (default 1000; feature
    /// `sessions`). A new session beyond
    /// it closes its own client's least recently used session, or else
    /// another client's that is inactive (no stream open, unused for a
    /// minute or a quarter of the idle timeout); a closed session's client
    /// gets 404 on its next request and starts over, as the protocol
    /// provides. Without such a session the new one is refused with 503:
    /// one client never closes another's active sessions.
    #[cfg(feature = "sessions")]
    pub fn max_sessions(mut self, sessions: usize) -> Self {
        self.sessions.max = sessions;
        self
    }

    /// The most sessions one client keeps at once (default 100); its new
    /// session beyond it closes its own least recently used one. A client is
    /// the principal its token names or, without one (or with the shared
    /// [`bearer_token`](Self::bearer_token)), its address: behind a proxy
    /// every client has the proxy's, so raise this there or authenticate.
    #[cfg(feature = "sessions")]
    pub fn max_sessions_per_client(mut self, sessions: usize) -> Self {
        self.sessions.max_per_client = sessions;
        self
    }

    /// How long a session may go unused before it is closed (default 5
    /// minutes).
    #[cfg(feature = "sessions")]
    pub fn session_idle_timeout(mut self, timeout: Duration) -> Self {
        self.sessions.idle = timeout;
        self
    }

    /// How long a client has to send a request's headers, and how long an
    /// idle connection stays open (default 10 seconds).
    pub fn header_read_timeout(mut self, timeout: Duration) -> Self {
        self.header_read_timeout = timeout;
        self
    }

    /// How long a client has to send a request's body (default 30 seconds);
    /// a late body gets 408.
    pub fn body_read_timeout(mut self, timeout: Duration) -> Self {
        self.body_read_timeout = timeout;
        self
    }

    /// The most connections served at once (default 1024); more wait to be
    /// accepted.
    pub fn max_connections(mut self, connections: usize) -> Self {
        self.max_connections = connections;
        self
    }

    /// The most connections one address (an IPv6 host by its /64) holds at
    /// once (default 256); more are answered 503 and closed. Connections
    /// are counted before any token is read, so behind a proxy, where every
    /// client has the proxy's address, this caps them all: raise it there.
    pub fn max_connections_per_client(mut self, connections: usize) -> Self {
        self.max_connections_per_client = connections;
        self
    }

    /// The most standalone SSE streams (`GET /mcp`) open at once (default
    /// 512), so that streams, each holding a connection, leave the other
    /// connections to requests; more get 429.
    pub fn max_streams(mut self, streams: usize) -> Self {
        self.max_streams = streams;
        self
    }

    /// The most standalone SSE streams one client holds open at once
    /// (default 16); more get 429. A client is the principal its token names
    /// or, without one (or with the shared
    /// [`bearer_token`](Self::bearer_token)), its address.
    pub fn max_streams_per_client(mut self, streams: usize) -> Self {
        self.max_streams_per_client = streams;
        self
    }

    /// Serve this server card (a JSON document of the
    /// `io.modelcontextprotocol/server-card` extension, such as the
    /// `SERVER_CARD` that `toolmetadata-build` generates from `Cargo.toml`)
    /// at `GET /mcp/server-card`, as `application/mcp-server-card+json`, to
    /// any origin and without a token: it describes the server to clients
    /// that have not connected yet. It carries an ETag, and `If-None-Match`
    /// is answered `304`. A card that is not a JSON object with `$schema`,
    /// `name`, `version` and `description` fails the bind.
    pub fn server_card(mut self, card: impl Into<String>) -> Self {
        self.server_card = Some(card.into());
        self
    }

    /// Trust the request header `name` as a bound parameter's source
    /// (`from = "header:NAME"`) on an address other than loopback: the
    /// server takes it as sent, so only do this behind a gateway that sets
    /// it and drops any value a client sent. Without it, such a server does
    /// not bind beyond loopback.
    pub fn trust_header(mut self, name: impl Into<String>) -> Self {
        self.trusted_headers.push(name.into().to_ascii_lowercase());
        self
    }

    /// Trust the peers in `cidr` (`10.0.0.0/8`, `fd00::/8`, or one address)
    /// as reverse proxies: from them only, the client is the source of the
    /// PROXY protocol header a connection starts with (v1 or v2, HAProxy's
    /// `send-proxy`), or else the rightmost hop of the
    /// [`client_address_header`](Self::client_address_header) that is not
    /// itself a trusted proxy. Every
    /// per-client limit (connections, streams, sessions, task quotas, rates)
    /// and the owner of a session then count that client, not the proxy;
    /// a trusted proxy that forwards no client is held to no per-client
    /// connection cap of its own. From any other peer those headers are
    /// ignored. Repeatable; a range that does not parse fails the bind.
    pub fn trust_proxy(mut self, cidr: impl Into<String>) -> Self {
        self.trusted_proxies.push(cidr.into());
        self
    }

    /// The header the trusted proxies write the client's address into:
    /// `x-forwarded-for` (the default: nginx, HAProxy's `option forwardfor`,
    /// cloud load balancers) or `forwarded` (RFC 7239). Only that one is
    /// read, since a proxy passes the other through as the client sent it;
    /// another name fails the bind.
    pub fn client_address_header(mut self, name: impl Into<String>) -> Self {
        self.client_address_header = Some(name.into());
        self
    }

    /// How long requests in flight may take to finish once the server is
    /// told to stop (default 5 seconds); connections still open then are
    /// dropped, so that a stop takes no longer.
    pub fn shutdown_timeout(mut self, timeout: Duration) -> Self {
        self.shutdown_timeout = timeout;
        self
    }
}

/// A token verifier, shared by every request.
#[derive(Clone)]
pub(super) struct Verifier(pub(super) Arc<dyn TokenVerifier>);

impl std::fmt::Debug for Verifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TokenVerifier")
    }
}
