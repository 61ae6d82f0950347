//! Trusted proxies: behind a reverse proxy every connection comes from the
//! proxy's address, so fairness keyed on the address would make all its
//! users one client. From the peers the operator names (and from those
//! only), the client is taken from what the proxy says of it:
//!
//! - the PROXY protocol (v1 text or v2 binary, HAProxy's `send-proxy`), at
//!   the start of the connection: the whole connection is that client's,
//!   and its per-client connection cap is that client's;
//! - else, per request, the header the operator says the proxies write
//!   (`X-Forwarded-For` unless told `Forwarded`, RFC 7239): the rightmost
//!   hop that is not itself a trusted proxy is the client. Only that one:
//!   a proxy that appends to `X-Forwarded-For` passes a client's own
//!   `Forwarded` through untouched, so reading both would let the client
//!   choose.
//!
//! From any other peer these headers are ignored (and a PROXY line is just
//! a malformed request): a client cannot choose who it is. The address
//! found replaces the peer's in the request (`ConnectInfo`), where every
//! per-client limit, the session owner, the task quota and telemetry read
//! it.

use std::net::{IpAddr, SocketAddr};
use std::str::FromStr;
use std::time::Duration;

use axum::http::HeaderMap;
use ipnet::IpNet;
use tokio::io::AsyncReadExt;
use tokio::net::TcpStream;

/// The longest PROXY header read: a v1 line is at most 107 bytes, and a v2
/// header this long carries more TLVs than any proxy sends.
const MAX_HEADER: usize = 4096;

/// The v2 header's first twelve bytes.
const V2_SIGNATURE: &[u8; 12] = b"\r\n\r\n\0\r\nQUIT\n";

/// How many hops of `Forwarded` or `X-Forwarded-For` are looked at, from
/// the right.
const MAX_HOPS: usize = 32;

/// The header trusted proxies write the client into.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(in crate::server) enum ForwardedBy {
    /// `X-Forwarded-For: client, proxy1, …` (nginx, HAProxy's `option
    /// forwardfor`, cloud balancers).
    #[default]
    XForwardedFor,
    /// `Forwarded: for=client, for=proxy1` (RFC 7239).
    Forwarded,
}

impl ForwardedBy {
    /// The header named `name`, if it is one of the two.
    pub(in crate::server) fn named(name: &str) -> Result<Self, String> {
        match name.trim().to_ascii_lowercase().as_str() {
            "x-forwarded-for" => Ok(ForwardedBy::XForwardedFor),
            "forwarded" => Ok(ForwardedBy::Forwarded),
            other => Err(format!(
                "`{other}` is not a header that names the client: expected `x-forwarded-for` or `forwarded`"
            )),
        }
    }

    fn header(self) -> &'static str {
        match self {
            ForwardedBy::XForwardedFor => "x-forwarded-for",
            ForwardedBy::Forwarded => "forwarded",
        }
    }
}

/// The networks whose connections are trusted proxies, and the header they
/// write the client into.
#[derive(Debug, Clone, Default)]
pub(in crate::server) struct TrustedProxies {
    nets: Vec<IpNet>,
    header: ForwardedBy,
}

impl TrustedProxies {
    /// Reads the client from `header` (see [`ForwardedBy`]).
    pub(in crate::server) fn read_from(&mut self, header: ForwardedBy) {
        self.header = header;
    }

    /// Adds `cidr` (`10.0.0.0/8`, `::1/128`, or one address).
    pub(in crate::server) fn add(&mut self, cidr: &str) -> Result<(), String> {
        let cidr = cidr.trim();
        let net = IpNet::from_str(cidr)
            .or_else(|_| IpAddr::from_str(cidr).map(IpNet::from))
            .map_err(|_| {
                format!(
                    "`{cidr}` is not a network of trusted proxies: expected an address or a CIDR range such as 10.0.0.0/8"
                )
            })?;
        self.nets.push(net);
        Ok(())
    }

    /// Whether `ip` is a trusted proxy.
    pub(in crate::server) fn trusts(&self, ip: IpAddr) -> bool {
        let ip = match ip {
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
            IpAddr::V4(_) => ip,
        };
        self.nets.iter().any(|net| net.contains(&ip))
    }

    /// The client of a connection from `peer`: from a trusted proxy that
    /// starts it with a PROXY header, the header's source (the header is
    /// consumed); otherwise `peer`, nothing read. `Err` when a trusted
    /// proxy's header is malformed or does not come within `timeout`.
    pub(in crate::server) async fn accept(
        &self,
        stream: &mut TcpStream,
        peer: SocketAddr,
        timeout: Duration,
    ) -> std::io::Result<SocketAddr> {
        if !self.trusts(peer.ip()) {
            return Ok(peer);
        }
        tokio::time::timeout(timeout, proxy_header(stream, peer))
            .await
            .map_err(|_| std::io::Error::other("no PROXY header or request in time"))?
    }

    /// The client of a request from `peer` (the connection's client): from
    /// a trusted proxy, the rightmost untrusted hop it forwards for.
    pub(in crate::server) fn client(&self, peer: SocketAddr, headers: &HeaderMap) -> SocketAddr {
        if !self.trusts(peer.ip()) {
            return peer;
        }
        let mut client = peer;
        for hop in hops(headers, self.header) {
            let Some(hop) = hop else {
                // `unknown` or an obfuscated name: the proxy that wrote it
                // is the last one known.
                break;
            };
            client = hop;
            if !self.trusts(hop.ip()) {
                break;
            }
        }
        client
    }
}

/// Reads a PROXY header if the connection starts with one.
async fn proxy_header(stream: &mut TcpStream, peer: SocketAddr) -> std::io::Result<SocketAddr> {
    let mut buf = vec![0u8; MAX_HEADER];
    loop {
        let seen = stream.peek(&mut buf).await?;
        if seen == 0 {
            return Err(std::io::Error::other("closed before a request"));
        }
        let head = &buf[..seen];
        let v1 = b"PROXY ";
        let v2 = &V2_SIGNATURE[..];
        let maybe =
            |signature: &[u8]| signature.starts_with(&head[..head.len().min(signature.len())]);
        if !maybe(v1) && !maybe(v2) {
            return Ok(peer);
        }
        let length = if head.starts_with(v2) && seen >= 16 {
            Some(16 + usize::from(u16::from_be_bytes([head[14], head[15]])))
        } else if head.starts_with(v1) {
            head.windows(2).position(|w| w == b"\r\n").map(|at| at + 2)
        } else {
            None
        };
        match length {
            Some(length) if length > MAX_HEADER => {
                return Err(std::io::Error::other("a PROXY header too long"));
            }
            Some(length) if length <= seen => {
                let mut header = vec![0u8; length];
                stream.read_exact(&mut header).await?;
                return source(&header, peer);
            }
            _ if seen >= MAX_HEADER => {
                return Err(std::io::Error::other("a PROXY header too long"));
            }
            // Sent in pieces: the rest comes (within the caller's timeout).
            _ => tokio::time::sleep(Duration::from_millis(5)).await,
        }
    }
}

/// The source address of a complete PROXY header; `peer` for a header
/// that names none (v1 `UNKNOWN`, v2 `LOCAL`: the proxy's own connection).
fn source(header: &[u8], peer: SocketAddr) -> std::io::Result<SocketAddr> {
    let malformed =
        |e: &dyn std::fmt::Display| std::io::Error::other(format!("a malformed PROXY header: {e}"));
    match ppp::HeaderResult::parse(header) {
        ppp::HeaderResult::V1(Ok(header)) => Ok(match header.addresses {
            ppp::v1::Addresses::Tcp4(a) => SocketAddr::from((a.source_address, a.source_port)),
            ppp::v1::Addresses::Tcp6(a) => SocketAddr::from((a.source_address, a.source_port)),
            ppp::v1::Addresses::Unknown => peer,
        }),
        ppp::HeaderResult::V2(Ok(header)) => Ok(match (header.command, header.addresses) {
            (ppp::v2::Command::Local, _) => peer,
            (_, ppp::v2::Addresses::IPv4(a)) => SocketAddr::from((a.source_address, a.source_port)),
            (_, ppp::v2::Addresses::IPv6(a)) => SocketAddr::from((a.source_address, a.source_port)),
            (_, _) => peer,
        }),
        ppp::HeaderResult::V1(Err(e)) => Err(malformed(&e)),
        ppp::HeaderResult::V2(Err(e)) => Err(malformed(&e)),
    }
}

/// The hops a request was forwarded for, as `header` lists them, the
/// rightmost (the last proxy's view) first, at most [`MAX_HOPS`]; `None`
/// for a hop that names no address. Split as bytes: a hop a client wrote
/// that is not text spoils no other on its line.
fn hops(headers: &HeaderMap, header: ForwardedBy) -> Vec<Option<SocketAddr>> {
    let lines: Vec<&[u8]> = headers
        .get_all(header.header())
        .iter()
        .map(|v| v.as_bytes())
        .collect();
    let mut hops = Vec::new();
    for line in lines.into_iter().rev() {
        for hop in line.rsplit(|&b| b == b',') {
            let hop = hop.trim_ascii();
            if hop.is_empty() {
                continue;
            }
            hops.push(std::str::from_utf8(hop).ok().and_then(|hop| match header {
                ForwardedBy::XForwardedFor => address(hop),
                ForwardedBy::Forwarded => hop.split(';').find_map(|pair| {
                    let (key, value) = pair.split_once('=')?;
                    key.trim()
                        .eq_ignore_ascii_case("for")
                        .then(|| address(value.trim().trim_matches('"')))?
                }),
            }));
            if hops.len() == MAX_HOPS {
                return hops;
            }
        }
    }
    hops
}

/// An address with or without a port: `192.0.2.1`, `192.0.2.1:80`,
/// `2001:db8::1`, `[2001:db8::1]` or `[2001:db8::1]:80`.
fn address(text: &str) -> Option<SocketAddr> {
    if let Ok(ip) = IpAddr::from_str(text) {
        return Some(SocketAddr::new(ip, 0));
    }
    if let Ok(addr) = SocketAddr::from_str(text) {
        return Some(addr);
    }
    let bracketed = text.strip_prefix('[')?.strip_suffix(']')?;
    IpAddr::from_str(bracketed)
        .ok()
        .map(|ip| SocketAddr::new(ip, 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proxies(nets: &[&str]) -> TrustedProxies {
        let mut proxies = TrustedProxies::default();
        for net in nets {
            proxies.add(net).expect("a network");
        }
        proxies
    }

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (k, v) in pairs {
            map.append(
                axum::http::HeaderName::from_str(k).expect("name"),
                v.parse().expect("value"),
            );
        }
        map
    }

    fn at(ip: &str) -> SocketAddr {
        SocketAddr::new(ip.parse().expect("ip"), 40000)
    }

    #[test]
    fn only_a_trusted_peer_says_who_the_client_is() {
        let trusted = proxies(&["10.0.0.0/8", "::1"]);
        let forged = headers(&[("x-forwarded-for", "203.0.113.9")]);
        assert_eq!(trusted.client(at("192.0.2.7"), &forged), at("192.0.2.7"));
        assert_eq!(
            trusted.client(at("10.1.2.3"), &forged).ip(),
            at("203.0.113.9").ip()
        );
        assert_eq!(
            trusted.client(at("::1"), &forged).ip(),
            at("203.0.113.9").ip()
        );
        // The rightmost untrusted hop: what a client wrote to the left of
        // it is its own invention.
        let chain = headers(&[
            ("x-forwarded-for", "198.51.100.1, 203.0.113.9"),
            ("x-forwarded-for", "10.9.9.9"),
        ]);
        assert_eq!(
            trusted.client(at("10.1.2.3"), &chain).ip(),
            at("203.0.113.9").ip()
        );
        // Only the header the proxies write: a client's own `Forwarded`,
        // passed through by a proxy that appends to X-Forwarded-For, is not
        // read.
        let both = headers(&[
            ("forwarded", "for=198.51.100.66"),
            ("x-forwarded-for", "203.0.113.9"),
        ]);
        assert_eq!(
            trusted.client(at("10.1.2.3"), &both).ip(),
            at("203.0.113.9").ip()
        );
        let mut by_forwarded = proxies(&["10.0.0.0/8"]);
        by_forwarded.read_from(ForwardedBy::Forwarded);
        assert_eq!(
            by_forwarded.client(at("10.1.2.3"), &both).ip(),
            at("198.51.100.66").ip()
        );
        let forwarded = headers(&[(
            "forwarded",
            "for=198.51.100.1, for=\"[2001:db8:cafe::17]:4711\";proto=https, for=10.2.2.2",
        )]);
        assert_eq!(
            by_forwarded.client(at("10.1.2.3"), &forwarded),
            "[2001:db8:cafe::17]:4711".parse().expect("addr")
        );
        let unknown = headers(&[("forwarded", "for=198.51.100.1, for=unknown")]);
        assert_eq!(
            by_forwarded.client(at("10.1.2.3"), &unknown),
            at("10.1.2.3")
        );
        let garbage = headers(&[("x-forwarded-for", "not an address")]);
        assert_eq!(trusted.client(at("10.1.2.3"), &garbage), at("10.1.2.3"));
        assert!(proxies(&[]).client(at("10.1.2.3"), &forged) == at("10.1.2.3"));
        // A client's hop that is not text spoils only itself: the proxy's
        // appended hop on the same line still counts.
        let mut spoiled = HeaderMap::new();
        spoiled.append(
            "x-forwarded-for",
            axum::http::HeaderValue::from_bytes(b"\xff\xfe, 203.0.113.9").expect("value"),
        );
        assert_eq!(
            trusted.client(at("10.1.2.3"), &spoiled).ip(),
            at("203.0.113.9").ip()
        );
        // Thousands of hops: only the last few are looked at.
        let long = vec!["10.0.0.1"; 10_000].join(", ");
        let many = headers(&[("x-forwarded-for", long.as_str())]);
        assert_eq!(hops(&many, ForwardedBy::XForwardedFor).len(), MAX_HOPS);
        assert!(ForwardedBy::named("X-Real-IP").is_err());
        assert_eq!(
            ForwardedBy::named(" Forwarded "),
            Ok(ForwardedBy::Forwarded)
        );
    }

    #[test]
    fn networks_are_checked_when_given() {
        let mut p = TrustedProxies::default();
        for bad in ["10.0.0.0/33", "ten", "", "10.0.0.1/8/1"] {
            assert!(p.add(bad).is_err(), "{bad}");
        }
        p.add("192.168.0.0/16").expect("cidr");
        assert!(p.trusts("192.168.4.4".parse().expect("ip")));
        assert!(p.trusts("::ffff:192.168.4.4".parse().expect("ip")));
        assert!(!p.trusts("192.169.0.1".parse().expect("ip")));
    }

    async fn connected(first: &[u8]) -> (TcpStream, SocketAddr, tokio::net::TcpStream) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let mut client = TcpStream::connect(listener.local_addr().expect("addr"))
            .await
            .expect("connect");
        tokio::io::AsyncWriteExt::write_all(&mut client, first)
            .await
            .expect("write");
        let (server, peer) = listener.accept().await.expect("accept");
        (server, peer, client)
    }

    #[tokio::test]
    async fn proxy_headers_name_the_client_and_are_consumed() {
        let trusted = proxies(&["127.0.0.1"]);
        let second = Duration::from_secs(1);
        let v1 = b"PROXY TCP4 203.0.113.9 10.0.0.1 5555 443\r\nGET / HTTP/1.1\r\n";
        let (mut stream, peer, _client) = connected(v1).await;
        let client = trusted.accept(&mut stream, peer, second).await.expect("v1");
        assert_eq!(client, "203.0.113.9:5555".parse().expect("addr"));
        let mut rest = [0u8; 5];
        stream.read_exact(&mut rest).await.expect("read");
        assert_eq!(&rest, b"GET /");

        let mut v2 = V2_SIGNATURE.to_vec();
        v2.extend([
            0x21, 0x11, 0, 12, 198, 51, 100, 7, 10, 0, 0, 1, 0x1f, 0x90, 1, 187,
        ]);
        v2.extend(b"POST");
        let (mut stream, peer, _client) = connected(&v2).await;
        let client = trusted.accept(&mut stream, peer, second).await.expect("v2");
        assert_eq!(client, "198.51.100.7:8080".parse().expect("addr"));
        let mut rest = [0u8; 4];
        stream.read_exact(&mut rest).await.expect("read");
        assert_eq!(&rest, b"POST");

        // A plain request from a trusted proxy: nothing read.
        let (mut stream, peer, _client) = connected(b"GET / HTTP/1.1\r\n").await;
        assert_eq!(
            trusted
                .accept(&mut stream, peer, second)
                .await
                .expect("plain"),
            peer
        );
        let mut rest = [0u8; 3];
        stream.read_exact(&mut rest).await.expect("read");
        assert_eq!(&rest, b"GET");

        // From anyone else a PROXY line is not read: the request is then
        // malformed, and the client is the peer.
        let (mut stream, peer, _client) = connected(v1).await;
        assert_eq!(
            proxies(&[])
                .accept(&mut stream, peer, second)
                .await
                .expect("untrusted"),
            peer
        );

        // Malformed, or never finished: refused within the timeout.
        let (mut stream, peer, _client) = connected(b"PROXY TCP4 nonsense\r\n").await;
        assert!(trusted.accept(&mut stream, peer, second).await.is_err());
        let (mut stream, peer, _client) = connected(b"PROXY TCP4 203.0.113.9").await;
        let started = std::time::Instant::now();
        assert!(
            trusted
                .accept(&mut stream, peer, Duration::from_millis(200))
                .await
                .is_err()
        );
        assert!(started.elapsed() < Duration::from_secs(1));
        let mut long = b"PROXY ".to_vec();
        long.extend(std::iter::repeat_n(b'x', MAX_HEADER));
        let (mut stream, peer, _client) = connected(&long).await;
        assert!(trusted.accept(&mut stream, peer, second).await.is_err());
    }
}
