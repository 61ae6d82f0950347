//! The `Host` and `Origin` checks of every request (DNS rebinding, pages of
//! other sites): a name the operator allowed, or loopback.

use std::net::IpAddr;

use axum::http::{HeaderMap, header};

/// The host name of a `Host` header or an origin's authority, without port.
fn host_name(authority: &str) -> &str {
    let authority = authority.trim();
    match authority.strip_prefix('[') {
        Some(rest) => rest.split(']').next().unwrap_or_default(),
        None => authority.split(':').next().unwrap_or_default(),
    }
}

/// Why the request's `Host` is refused, if it is: a name not among `hosts`
/// (compared without copying, in any case: it runs on every request).
pub(super) fn host_problem(hosts: &[String], headers: &HeaderMap) -> Option<String> {
    let host = headers.get(header::HOST)?.to_str().ok().map(host_name)?;
    let allowed = hosts.iter().any(|h| h.eq_ignore_ascii_case(host));
    (!allowed).then(|| format!("the Host `{}` is not allowed", host.to_ascii_lowercase()))
}

/// Why the request's `Origin` is refused, if it has one: neither among
/// `origins` nor a loopback page.
pub(super) fn origin_problem(origins: &[String], headers: &HeaderMap) -> Option<String> {
    let origin = headers
        .get(header::ORIGIN)?
        .to_str()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    if origins.contains(&origin) {
        return None;
    }
    let loopback = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
        .map(host_name)
        .is_some_and(|h| h == "localhost" || h.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback()));
    (!loopback).then(|| format!("the Origin `{origin}` is not allowed"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_host(host: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::HOST, host.parse().expect("a header value"));
        headers
    }

    #[test]
    fn a_host_is_its_name_in_any_case_without_its_port() {
        let hosts = [
            "localhost".to_owned(),
            "::1".to_owned(),
            "mcp.example".to_owned(),
        ];
        for allowed in ["localhost", "LocalHost:8080", "[::1]:80", " MCP.example "] {
            assert_eq!(host_problem(&hosts, &with_host(allowed)), None, "{allowed}");
        }
        assert_eq!(
            host_problem(&hosts, &with_host("Evil.example:80")).as_deref(),
            Some("the Host `evil.example` is not allowed")
        );
        assert!(host_problem(&hosts, &with_host("localhost.evil.example")).is_some());
    }
}
