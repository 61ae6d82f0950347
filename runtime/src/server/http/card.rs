//! The server card (the `io.modelcontextprotocol/server-card` extension):
//! a JSON document that describes the server before any connection, served
//! at `GET /mcp/server-card` to any origin, with an ETag for revalidation.

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::etag;
use crate::server::ServerError;

/// Where the card is served: beneath the endpoint, as the extension
/// recommends (`<streamable-http-url>/server-card`).
pub(super) const PATH: &str = "/mcp/server-card";

/// The card's media type.
pub(super) const MEDIA_TYPE: &str = "application/mcp-server-card+json";

/// A server card, checked and tagged once.
#[derive(Debug, Clone)]
pub(super) struct ServerCard {
    bytes: axum::body::Bytes,
    etag: HeaderValue,
}

impl ServerCard {
    /// The card of `text`: a JSON object with at least the extension's
    /// required `$schema`, `name`, `version` and `description` strings.
    pub(super) fn new(text: &str) -> Result<ServerCard, ServerError> {
        let bad = |why: String| ServerError::config(format!("server_card: {why}"));
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| bad(format!("not JSON: {e}")))?;
        let object = value
            .as_object()
            .ok_or_else(|| bad("not a JSON object".to_owned()))?;
        for key in ["$schema", "name", "version", "description"] {
            if !object.get(key).is_some_and(serde_json::Value::is_string) {
                return Err(bad(format!("`{key}` is missing or not a string")));
            }
        }
        // Strong: a digest of the bytes served.
        use sha2::Digest;
        let tag = toolmetadata_core::seam::hex(&sha2::Sha256::digest(text.as_bytes())[..16]);
        let etag = HeaderValue::from_str(&format!("\"{tag}\""))
            .map_err(|e| bad(format!("no ETag: {e}")))?;
        Ok(ServerCard {
            bytes: axum::body::Bytes::from(text.to_owned()),
            etag,
        })
    }

    /// The answer to `method` on [`PATH`]: the card, `304` when
    /// `If-None-Match` names it, the CORS preflight, or `405`.
    pub(super) fn answer(&self, method: &Method, headers: &HeaderMap) -> Response {
        let cors = [
            (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"),
            (header::ACCESS_CONTROL_EXPOSE_HEADERS, "etag"),
        ];
        if method == Method::OPTIONS {
            return (
                StatusCode::NO_CONTENT,
                cors,
                [
                    (header::ACCESS_CONTROL_ALLOW_METHODS, "GET, HEAD, OPTIONS"),
                    (
                        header::ACCESS_CONTROL_ALLOW_HEADERS,
                        "if-none-match, accept",
                    ),
                    (header::ACCESS_CONTROL_MAX_AGE, "86400"),
                ],
            )
                .into_response();
        }
        if method != Method::GET && method != Method::HEAD {
            return (
                StatusCode::METHOD_NOT_ALLOWED,
                cors,
                [(header::ALLOW, "GET, HEAD, OPTIONS")],
                "the server card is read with GET",
            )
                .into_response();
        }
        let if_none_match: Vec<&str> = headers
            .get_all(header::IF_NONE_MATCH)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .collect();
        let fresh = !if_none_match.is_empty()
            && etag::names(
                &if_none_match.join(","),
                self.etag.to_str().unwrap_or_default(),
            );
        let common = [
            (header::ETAG, self.etag.clone()),
            (
                header::CACHE_CONTROL,
                HeaderValue::from_static("public, max-age=3600"),
            ),
        ];
        if fresh {
            return (StatusCode::NOT_MODIFIED, cors, common).into_response();
        }
        let body = if method == Method::HEAD {
            Body::empty()
        } else {
            Body::from(self.bytes.clone())
        };
        let mut response = (
            StatusCode::OK,
            cors,
            common,
            [(header::CONTENT_TYPE, HeaderValue::from_static(MEDIA_TYPE))],
            body,
        )
            .into_response();
        if method == Method::HEAD {
            response
                .headers_mut()
                .insert(header::CONTENT_LENGTH, HeaderValue::from(self.bytes.len()));
        }
        response
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CARD: &str = r#"{"$schema":"https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json","name":"io.github.a/b","version":"1.0.0","description":"d"}"#;

    #[test]
    fn a_card_needs_the_required_fields() {
        assert!(ServerCard::new(CARD).is_ok());
        let err = ServerCard::new(r#"{"name":"a/b"}"#).expect_err("no $schema");
        assert!(err.to_string().contains("`$schema`"), "{err}");
        assert!(ServerCard::new("[]").is_err());
        assert!(ServerCard::new("{").is_err());
    }

    #[test]
    fn the_card_then_not_modified() {
        let card = ServerCard::new(CARD).expect("card");
        let first = card.answer(&Method::GET, &HeaderMap::new());
        assert_eq!(first.status(), StatusCode::OK);
        assert_eq!(first.headers()[header::CONTENT_TYPE], MEDIA_TYPE);
        assert_eq!(first.headers()[header::ACCESS_CONTROL_ALLOW_ORIGIN], "*");
        let tag = first.headers()[header::ETAG].clone();
        let mut headers = HeaderMap::new();
        headers.append(header::IF_NONE_MATCH, HeaderValue::from_static("\"other\""));
        headers.append(header::IF_NONE_MATCH, tag.clone());
        let second = card.answer(&Method::GET, &headers);
        assert_eq!(second.status(), StatusCode::NOT_MODIFIED);
        assert_eq!(second.headers()[header::ETAG], tag);
        assert_eq!(
            card.answer(&Method::POST, &HeaderMap::new()).status(),
            StatusCode::METHOD_NOT_ALLOWED
        );
        assert_eq!(
            card.answer(&Method::OPTIONS, &HeaderMap::new()).status(),
            StatusCode::NO_CONTENT
        );
    }

    /// A hostile `If-None-Match`: thousands of tags, odd spacing, a `*` among them, the card's tag
    /// last. Each is answered, none panics.
    #[test]
    fn hostile_if_none_match_lists_are_read_safely() {
        let card = ServerCard::new(CARD).expect("card");
        let many: String = (0..5000).map(|i| format!("W/\"t{i}\" , ")).collect();
        for (value, expected) in [
            (many.clone(), StatusCode::OK),
            // `*` counts only alone (RFC 9110); the card's own tag anywhere.
            (format!("{many}*"), StatusCode::OK),
            (
                format!("{many}{}", card.etag.to_str().unwrap_or_default()),
                StatusCode::NOT_MODIFIED,
            ),
            (",,,  ,".to_owned(), StatusCode::OK),
            ("\"".to_owned(), StatusCode::OK),
        ] {
            let mut headers = HeaderMap::new();
            headers.insert(
                header::IF_NONE_MATCH,
                HeaderValue::from_str(&value).expect("a header value"),
            );
            assert_eq!(card.answer(&Method::GET, &headers).status(), expected);
        }
    }
}
