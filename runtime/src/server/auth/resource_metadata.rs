//! Protected Resource Metadata (RFC 9728): the document that tells a client
//! which authorization servers issue tokens for this server, and where it is
//! published.

use std::collections::BTreeSet;
use std::net::IpAddr;

use axum::http::Uri;
use serde_json::{Value, json};

use super::super::ServerError;

/// The well-known path of the document (RFC 9728 §3).
const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// What the server publishes about itself as an OAuth protected resource:
/// its resource identifier (the URL clients reach it at, such as
/// `https://mcp.example.com/mcp`, which is also the audience tokens are
/// issued for), the authorization servers that issue its tokens, and the
/// scopes it knows (the catalog's, collected at build time, plus any given
/// here).
#[derive(Debug, Clone)]
pub struct ProtectedResource {
    resource: String,
    authorization_servers: Vec<String>,
    scopes: BTreeSet<String>,
    resource_name: Option<String>,
}

impl ProtectedResource {
    /// The resource identifier: an `https` URL without fragment (plain
    /// `http` only on a loopback host, for local use and tests). Checked
    /// when the server binds.
    pub fn new(resource: impl Into<String>) -> Self {
        ProtectedResource {
            resource: resource.into(),
            authorization_servers: Vec::new(),
            scopes: BTreeSet::new(),
            resource_name: None,
        }
    }

    /// An authorization server (its issuer identifier, an `https` URL) whose
    /// tokens this server accepts.
    pub fn authorization_server(mut self, issuer: impl Into<String>) -> Self {
        self.authorization_servers.push(issuer.into());
        self
    }

    /// Scopes to advertise besides the ones the tools need.
    pub fn scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes.extend(scopes.into_iter().map(Into::into));
        self
    }

    /// A name for people (`resource_name`).
    pub fn resource_name(mut self, name: impl Into<String>) -> Self {
        self.resource_name = Some(name.into());
        self
    }

    /// The resource identifier.
    pub fn resource(&self) -> &str {
        &self.resource
    }

    /// Checks the URLs and fixes the document, with `catalog` (the scopes the
    /// tools need) among the advertised scopes.
    pub(super) fn publish(
        &self,
        catalog: impl IntoIterator<Item = String>,
    ) -> Result<Published, ServerError> {
        let uri = checked_url("the protected resource identifier", &self.resource)?;
        for issuer in &self.authorization_servers {
            let server = checked_url("an authorization server", issuer)?;
            if server.query().is_some() {
                return Err(ServerError::config(format!(
                    "the authorization server `{issuer}` has a query: an issuer identifier has none (RFC 8414)"
                )));
            }
        }
        let path = uri.path().trim_end_matches('/');
        let origin = format!(
            "{}://{}",
            uri.scheme_str().unwrap_or("https"),
            uri.authority().map(|a| a.as_str()).unwrap_or_default()
        );
        let mut paths = vec![WELL_KNOWN.to_owned()];
        if !path.is_empty() {
            paths.push(format!("{WELL_KNOWN}{path}"));
        }
        let url = format!("{origin}{WELL_KNOWN}{path}");
        let mut scopes = self.scopes.clone();
        scopes.extend(catalog);
        let mut document = json!({
            "resource": self.resource,
            "scopes_supported": scopes,
            "bearer_methods_supported": ["header"],
        });
        if !self.authorization_servers.is_empty() {
            document["authorization_servers"] = json!(self.authorization_servers);
        }
        if let Some(name) = &self.resource_name {
            document["resource_name"] = Value::from(name.clone());
        }
        Ok(Published {
            url,
            paths,
            document: document.to_string(),
        })
    }
}

/// The document as served, and where.
#[derive(Debug, Clone)]
pub(super) struct Published {
    /// The document's URL, for `resource_metadata` in challenges.
    pub(super) url: String,
    /// The paths it is served at: the root form, and the form with the
    /// resource's path appended (RFC 9728 §3.1).
    pub(super) paths: Vec<String>,
    /// The JSON.
    pub(super) document: String,
}

/// `url` parsed, when it is `https`, or `http` on a loopback host, and has
/// no fragment.
pub(super) fn checked_url(what: &str, url: &str) -> Result<Uri, ServerError> {
    let fail = |why: &str| {
        ServerError::config(format!(
            "{what} must be an https URL (or http on a loopback host), such as https://auth.example.com; `{url}` {why}"
        ))
    };
    if url.contains('#') {
        return Err(fail("has a fragment"));
    }
    let uri: Uri = url.parse().map_err(|_| fail("is not a URL"))?;
    let host = uri.host().ok_or_else(|| fail("has no host"))?;
    match uri.scheme_str() {
        Some("https") => Ok(uri),
        Some("http") if is_loopback(host) => Ok(uri),
        Some("http") => Err(fail("is plain http on a host that is not loopback")),
        _ => Err(fail("has another scheme")),
    }
}

/// `localhost` or a loopback address (IPv6 in brackets or not).
pub(super) fn is_loopback(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_document_has_rfc_9728s_fields_and_paths() {
        let published = ProtectedResource::new("https://mcp.example.com/mcp")
            .authorization_server("https://auth.example.com")
            .scopes(["extra"])
            .publish(["workspace:write".to_owned()])
            .expect("valid");
        assert_eq!(
            published.url,
            "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(
            published.paths,
            [
                "/.well-known/oauth-protected-resource",
                "/.well-known/oauth-protected-resource/mcp"
            ]
        );
        let doc: Value = serde_json::from_str(&published.document).expect("JSON");
        assert_eq!(doc["resource"], "https://mcp.example.com/mcp");
        assert_eq!(
            doc["authorization_servers"],
            json!(["https://auth.example.com"])
        );
        assert_eq!(doc["scopes_supported"], json!(["extra", "workspace:write"]));
        assert_eq!(doc["bearer_methods_supported"], json!(["header"]));
    }

    #[test]
    fn urls_must_be_https_or_loopback_http() {
        for good in [
            "https://a.example/mcp",
            "http://127.0.0.1:8080/mcp",
            "http://localhost/mcp",
            "http://[::1]:9/mcp",
        ] {
            assert!(checked_url("x", good).is_ok(), "{good}");
        }
        for bad in [
            "http://a.example/mcp",
            "https://a.example/mcp#frag",
            "ftp://a.example",
            "not a url",
            "/mcp",
        ] {
            let e = checked_url("the JWKS URL", bad).expect_err(bad);
            assert!(e.to_string().contains("must be an https URL"), "{e}");
        }
        let query = ProtectedResource::new("https://a.example/mcp")
            .authorization_server("https://auth.example?x=1")
            .publish([]);
        assert!(query.is_err());
    }
}
