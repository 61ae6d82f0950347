//! [`ServerError`]: why a server could not be built or served.

use std::fmt;

/// Why a server could not be built or served: which step failed, and the
/// message that says what to change. `Display` is the message; `source`
/// gives the I/O error beneath, where there is one.
#[derive(Debug)]
#[non_exhaustive]
pub enum ServerError {
    /// What the builder was given cannot be served: two tools with one
    /// name, a tool that needs a feature this build lacks, a `[ui]` view the
    /// server does not serve, a setting out of range
    /// ([`ServerBuilder::build`](super::ServerBuilder::build)).
    Build(String),
    /// HTTP options that cannot be served as given: a non-loopback address
    /// not allowed, a bound parameter no token or trusted header fills, an
    /// authorization or server card setting that does not hold
    /// (`Server::bind_http`, `JwtVerifier`).
    Config(String),
    /// The address could not be listened on (in use, not this machine's,
    /// not allowed), or its local address not read.
    Listen {
        /// The address asked for.
        addr: std::net::SocketAddr,
        /// Why not.
        source: std::io::Error,
    },
    /// The transport failed while starting or serving (stdio closed in a
    /// way rmcp could not recover from, the connection limit gone).
    Transport(String),
}

impl ServerError {
    /// A [`ServerError::Build`].
    pub(crate) fn build(message: impl Into<String>) -> Self {
        ServerError::Build(message.into())
    }

    /// A [`ServerError::Config`].
    #[cfg(feature = "http")]
    pub(crate) fn config(message: impl Into<String>) -> Self {
        ServerError::Config(message.into())
    }
}

impl fmt::Display for ServerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServerError::Build(message)
            | ServerError::Config(message)
            | ServerError::Transport(message) => f.write_str(message),
            ServerError::Listen { addr, source } => write!(f, "cannot listen on {addr}: {source}"),
        }
    }
}

impl std::error::Error for ServerError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ServerError::Listen { source, .. } => Some(source),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ServerError;
    use crate::ToolMetadata;
    use crate::server::Server;

    /// Two tools with one name: the builder's error, saying which.
    #[test]
    fn a_clash_is_a_build_error() {
        let tool = || ToolMetadata {
            name: "twice".into(),
            description: "d".into(),
            ..ToolMetadata::default()
        };
        let handler = |_, _| async { Ok("ok") };
        let refused = Server::builder()
            .tool(tool(), handler)
            .tool(tool(), handler)
            .build()
            .map(drop)
            .unwrap_err();
        assert!(
            matches!(&refused, ServerError::Build(m) if m.contains("`twice`")),
            "{refused:?}"
        );
    }

    /// An address already taken: `Listen`, with the address and the I/O
    /// error beneath.
    #[cfg(feature = "http")]
    #[tokio::test]
    async fn a_taken_address_is_a_listen_error_with_its_source() {
        use std::error::Error as _;
        let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
        let addr = taken.local_addr().expect("its address");
        let server = Server::builder().build().expect("server");
        let options = crate::server::HttpOptions::default().addr(addr);
        let refused = server.bind_http(options).await.map(drop).unwrap_err();
        let ServerError::Listen { addr: at, source } = &refused else {
            panic!("{refused:?}");
        };
        assert_eq!(*at, addr);
        assert_eq!(source.kind(), std::io::ErrorKind::AddrInUse);
        assert!(refused.source().is_some());
        assert!(
            refused
                .to_string()
                .starts_with(&format!("cannot listen on {addr}"))
        );
    }

    /// A non-loopback address without saying so: a configuration error.
    #[cfg(feature = "http")]
    #[tokio::test]
    async fn a_public_address_unasked_is_a_config_error() {
        let server = Server::builder().build().expect("server");
        let options = crate::server::HttpOptions::default().addr(([0, 0, 0, 0], 0).into());
        let refused = server.bind_http(options).await.map(drop).unwrap_err();
        assert!(
            matches!(&refused, ServerError::Config(m) if m.contains("loopback")),
            "{refused:?}"
        );
    }
}
