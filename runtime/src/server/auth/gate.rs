//! The HTTP answers of authorization: the metadata document, `401` with a
//! challenge that points at it, `403 insufficient_scope` for a `tools/call`
//! the token's scopes do not cover, `503` when tokens cannot be checked.
//!
//! Scopes are checked here, on the HTTP request, because the specification
//! (2025-11-25 "Scope Challenge Handling", unchanged in 2026-07-28) asks for
//! the `403` status with the challenge, which a JSON-RPC result cannot carry.

use std::sync::Arc;

use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::resource_metadata::Published;
use super::{Principal, ProtectedResource, TokenVerifier};
use crate::server::peek::Peek;
use crate::server::scope::Scope;
use crate::server::{Server, ServerError};

/// What the HTTP server's guard asks about authorization.
pub(crate) struct Gate {
    verifier: Arc<dyn TokenVerifier>,
    published: Option<Published>,
    server: Server,
}

impl Gate {
    /// A gate for `server`'s tools; the metadata's URLs are checked here.
    pub(crate) fn new(
        verifier: Arc<dyn TokenVerifier>,
        resource: Option<&ProtectedResource>,
        server: Server,
    ) -> Result<Self, ServerError> {
        let published = resource
            .map(|r| r.publish(server.catalog_scopes()))
            .transpose()?;
        Ok(Gate {
            verifier,
            published,
            server,
        })
    }

    /// The metadata document, when `path` is where it is published; served
    /// to anyone (a client reads it before it has a token).
    pub(crate) fn metadata(&self, method: &Method, path: &str) -> Option<Response> {
        let published = self.published.as_ref()?;
        if !published.paths.iter().any(|p| p == path) {
            return None;
        }
        if method != Method::GET && method != Method::HEAD {
            return Some(
                (
                    StatusCode::METHOD_NOT_ALLOWED,
                    [(header::ALLOW, "GET, HEAD")],
                    "the protected resource metadata is read with GET",
                )
                    .into_response(),
            );
        }
        Some(
            (
                [(header::CONTENT_TYPE, "application/json")],
                published.document.clone(),
            )
                .into_response(),
        )
    }

    /// The principal of the request's bearer token, or the response that
    /// refuses the request.
    pub(crate) async fn authenticate(&self, headers: &HeaderMap) -> Result<Principal, Response> {
        let mut given = headers.get_all(header::AUTHORIZATION).iter();
        let (Some(value), None) = (given.next(), given.next()) else {
            return Err(self.unauthorized(
                None,
                "a bearer token is required: send `Authorization: Bearer <token>`",
            ));
        };
        let token = value
            .to_str()
            .ok()
            .and_then(|v| v.split_once(' '))
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .map(|(_, token)| token.trim())
            .filter(|t| !t.is_empty());
        let Some(token) = token else {
            return Err(self.unauthorized(
                Some("invalid_request"),
                "the Authorization header must be `Bearer <token>`",
            ));
        };
        match self.verifier.verify(token).await {
            Ok(principal) => Ok(principal),
            Err(rejection) if rejection.is_unavailable() => {
                tracing::warn!("a token could not be checked: {rejection}");
                Err((
                    StatusCode::SERVICE_UNAVAILABLE,
                    [(header::RETRY_AFTER, "30")],
                    format!("the token cannot be checked now: {rejection}"),
                )
                    .into_response())
            }
            Err(rejection) => {
                tracing::debug!("a token was refused: {rejection}");
                Err(self.unauthorized(Some("invalid_token"), rejection.description()))
            }
        }
    }

    /// `403 insufficient_scope` when the body calls a tool (`tools/call`,
    /// alone or in a batch) of `scope` whose scopes `principal` does not
    /// hold (a tool of another group is unknown there, as the handler says).
    pub(crate) fn authorize(
        &self,
        principal: &Principal,
        messages: &[Peek],
        scope: Scope,
    ) -> Option<Response> {
        for message in messages {
            let Some(name) = message
                .params
                .as_ref()
                .and_then(|p| p.name.as_deref())
                .filter(|_| message.method.as_deref() == Some("tools/call"))
            else {
                continue;
            };
            let Some(needed) = self.server.inner.catalog.scopes(name, scope) else {
                continue;
            };
            let missing = principal.missing(needed);
            if !missing.is_empty() {
                return Some(self.insufficient_scope(principal, needed, name, &missing));
            }
        }
        None
    }

    fn insufficient_scope(
        &self,
        principal: &Principal,
        needed: &[String],
        tool: &str,
        missing: &[&str],
    ) -> Response {
        // The scopes held and the ones needed together (the specification's
        // recommendation), so that stepping up does not lose what was held.
        let mut scope: std::collections::BTreeSet<&str> =
            needed.iter().map(String::as_str).collect();
        if let Some(held) = principal.scopes() {
            scope.extend(held.iter().map(String::as_str));
        }
        let scope: Vec<&str> = scope.into_iter().collect();
        let description = format!(
            "the tool `{}` needs the scope{} {}",
            toolmetadata_core::seam::shorten(tool, 100),
            if missing.len() == 1 { "" } else { "s" },
            missing.join(" ")
        );
        let mut params = vec![
            ("error", "insufficient_scope".to_owned()),
            ("scope", scope.join(" ")),
        ];
        if let Some(published) = &self.published {
            params.push(("resource_metadata", published.url.clone()));
        }
        params.push(("error_description", description.clone()));
        (
            StatusCode::FORBIDDEN,
            [(header::WWW_AUTHENTICATE, challenge(&params))],
            description,
        )
            .into_response()
    }

    fn unauthorized(&self, error: Option<&str>, description: &str) -> Response {
        let mut params = Vec::new();
        if let Some(error) = error {
            params.push(("error", error.to_owned()));
            params.push(("error_description", description.to_owned()));
        }
        if let Some(published) = &self.published {
            params.push(("resource_metadata", published.url.clone()));
        }
        (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, challenge(&params))],
            description.to_owned(),
        )
            .into_response()
    }
}

/// `Bearer k="v", …` (RFC 6750 §3), each value reduced to characters a
/// quoted string may hold unescaped.
fn challenge(params: &[(&str, String)]) -> HeaderValue {
    let quoted = |v: &str| -> String {
        v.chars()
            .map(|c| match c {
                '"' | '\\' => '\'',
                c if c == ' ' || c.is_ascii_graphic() => c,
                _ => '?',
            })
            .collect()
    };
    let text = if params.is_empty() {
        "Bearer".to_owned()
    } else {
        let list: Vec<String> = params
            .iter()
            .map(|(k, v)| format!("{k}=\"{}\"", quoted(v)))
            .collect();
        format!("Bearer {}", list.join(", "))
    };
    // Only visible ASCII and spaces are left, which a header value accepts.
    HeaderValue::from_str(&text).unwrap_or_else(|_| HeaderValue::from_static("Bearer"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn challenges_are_quoted_and_safe() {
        let value = challenge(&[
            ("error", "invalid_token".to_owned()),
            ("error_description", "bad \"quote\" and é\n".to_owned()),
        ]);
        assert_eq!(
            value.to_str().expect("ascii"),
            "Bearer error=\"invalid_token\", error_description=\"bad 'quote' and ??\""
        );
        assert_eq!(challenge(&[]), "Bearer");
    }
}
