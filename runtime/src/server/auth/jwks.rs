//! The authorization server's signing keys (a JWKS, RFC 7517): fetched over
//! https (plain http only from a loopback host), within a time limit and a
//! size limit, cached, and fetched again when a token names a key the cache
//! lacks (a rotation), at most once per interval whatever the tokens say.

use std::collections::HashMap;
use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, StatusCode, Uri, header};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use jsonwebtoken::jwk::{AlgorithmParameters, Jwk, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey};
use tokio::time::Instant;

use super::Rejection;
use crate::server::ServerError;

/// The largest JWKS accepted; real ones are a few kilobytes.
const MAX_JWKS_BYTES: usize = 256 * 1024;
/// The most keys kept from one JWKS.
const MAX_KEYS: usize = 64;

/// How the key set is fetched and kept.
#[derive(Debug, Clone, Copy)]
pub(super) struct Timing {
    /// The least time between two fetches (the bound on the refresh rate).
    pub(super) min_refresh: Duration,
    /// Keys older than this are fetched again on the next token.
    pub(super) max_age: Duration,
    /// The time a fetch may take, body included.
    pub(super) timeout: Duration,
}

/// The keys of one fetch: by `kid`, and the one usable without a `kid`.
type Keys = (HashMap<String, Arc<Key>>, Option<Arc<Key>>);

/// One signing key.
pub(super) struct Key {
    pub(super) decoding: DecodingKey,
    /// The algorithm the JWKS pins the key to, if it does.
    pub(super) algorithm: Option<Algorithm>,
}

#[derive(Default)]
struct Cache {
    keys: HashMap<String, Arc<Key>>,
    /// Keys without a `kid`, usable only when the set has exactly one key.
    only: Option<Arc<Key>>,
    fetched: Option<Instant>,
    attempted: Option<Instant>,
    /// Why the last fetch failed, when it did.
    failure: Option<String>,
}

/// The keys of one JWKS URL.
pub(super) struct KeySet {
    url: Uri,
    client: Client<HttpsConnector<HttpConnector>, Body>,
    timing: Timing,
    cache: RwLock<Cache>,
    /// One fetch at a time: tokens arriving during a fetch wait for it
    /// rather than start their own.
    fetching: tokio::sync::Mutex<()>,
}

impl KeySet {
    /// The key set at `url` (checked to be https, or http on loopback).
    pub(super) fn new(url: &str, timing: Timing) -> Result<Self, ServerError> {
        let url = super::resource_metadata::checked_url("the JWKS URL", url)?;
        let provider = rustls::crypto::ring::default_provider();
        let connector = hyper_rustls::HttpsConnectorBuilder::new()
            .with_provider_and_webpki_roots(provider)
            .map_err(|e| ServerError::config(format!("no TLS for the JWKS: {e}")))?
            // Plain http passed `checked_url` only for a loopback host.
            .https_or_http()
            .enable_http1()
            .build();
        let client = Client::builder(TokioExecutor::new()).build(connector);
        Ok(KeySet {
            url,
            client,
            timing,
            cache: RwLock::new(Cache::default()),
            fetching: tokio::sync::Mutex::new(()),
        })
    }

    fn cache(&self) -> std::sync::RwLockReadGuard<'_, Cache> {
        // The cache is replaced whole under the lock: a panicking holder
        // cannot leave it half written.
        self.cache.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn lookup(&self, kid: Option<&str>) -> (Option<Arc<Key>>, bool) {
        let cache = self.cache();
        let key = match kid {
            Some(kid) => cache.keys.get(kid).cloned(),
            None => cache.only.clone(),
        };
        let fresh = cache
            .fetched
            .is_some_and(|t| t.elapsed() < self.timing.max_age);
        (key, fresh)
    }

    /// The key a token names by `kid`: from the cache, or after fetching the
    /// set again when the cache lacks it or is old and the last fetch is
    /// older than the refresh interval.
    pub(super) async fn key(&self, kid: Option<&str>) -> Result<Arc<Key>, Rejection> {
        if let (Some(key), true) = self.lookup(kid) {
            return Ok(key);
        }
        let _one_fetch = self.fetching.lock().await;
        // Another token may have fetched the set while this one waited.
        let (key, fresh) = self.lookup(kid);
        if let (Some(key), true) = (&key, fresh) {
            return Ok(key.clone());
        }
        let recently = self
            .cache()
            .attempted
            .is_some_and(|t| t.elapsed() < self.timing.min_refresh);
        if !recently {
            self.refresh().await;
            if let (Some(key), _) = self.lookup(kid) {
                return Ok(key);
            }
        } else if let Some(key) = key {
            // Old, but the set cannot be fetched again yet: still the key.
            return Ok(key);
        }
        let cache = self.cache();
        match (
            &cache.failure,
            cache.keys.is_empty() && cache.only.is_none(),
        ) {
            (Some(why), true) => Err(Rejection::unavailable(format!(
                "the authorization server's keys could not be fetched: {why}"
            ))),
            _ => Err(match kid {
                Some(_) => Rejection::invalid_token(
                    "the token's key id (kid) names no key of the authorization server",
                ),
                None => Rejection::invalid_token(
                    "the token has no key id (kid), and the authorization server has more than one key",
                ),
            }),
        }
    }

    /// Fetches the set and replaces the cache; on failure keeps the keys it
    /// had, and notes why.
    async fn refresh(&self) {
        let outcome = tokio::time::timeout(self.timing.timeout, self.fetch()).await;
        let outcome = match outcome {
            Ok(outcome) => outcome,
            Err(_) => Err(format!("no answer within {:?}", self.timing.timeout)),
        };
        let mut cache = self.cache.write().unwrap_or_else(PoisonError::into_inner);
        cache.attempted = Some(Instant::now());
        match outcome {
            Ok((keys, only)) => {
                tracing::debug!(url = %self.url, keys = keys.len(), "fetched the JWKS");
                cache.keys = keys;
                cache.only = only;
                cache.fetched = Some(Instant::now());
                cache.failure = None;
            }
            Err(why) => {
                tracing::warn!(url = %self.url, "fetching the JWKS failed: {why}");
                cache.failure = Some(why);
            }
        }
    }

    async fn fetch(&self) -> Result<Keys, String> {
        let request = Request::get(self.url.clone())
            .header(header::ACCEPT, "application/json")
            .body(Body::empty())
            .map_err(|e| format!("cannot build the request: {e}"))?;
        let response = self
            .client
            .request(request)
            .await
            .map_err(|e| format!("cannot reach {}: {e}", self.url))?;
        if response.status() != StatusCode::OK {
            return Err(format!(
                "{} answered {}, expected 200 with the key set",
                self.url,
                response.status()
            ));
        }
        let body = axum::body::to_bytes(Body::new(response.into_body()), MAX_JWKS_BYTES)
            .await
            .map_err(|_| {
                format!("the key set is larger than {MAX_JWKS_BYTES} bytes or was cut off")
            })?;
        parse(&body)
    }
}

/// The usable keys of a JWKS document: asymmetric signing keys, by `kid`.
fn parse(body: &[u8]) -> Result<Keys, String> {
    #[derive(serde::Deserialize)]
    struct Set {
        keys: Vec<serde_json::Value>,
    }
    let set: Set = serde_json::from_slice(body)
        .map_err(|e| format!("the key set is not a JWKS (a JSON object with `keys`): {e}"))?;
    let mut keys = HashMap::new();
    let mut unnamed = Vec::new();
    // A key this server cannot use (another type, an encryption key, a
    // symmetric one) is skipped, not an error: sets often hold such keys.
    for value in set.keys.into_iter().take(MAX_KEYS) {
        let Ok(jwk) = serde_json::from_value::<Jwk>(value) else {
            continue;
        };
        if matches!(jwk.algorithm, AlgorithmParameters::OctetKey(_))
            || matches!(jwk.common.public_key_use, Some(ref u) if *u != PublicKeyUse::Signature)
        {
            continue;
        }
        let Ok(decoding) = DecodingKey::from_jwk(&jwk) else {
            continue;
        };
        let algorithm = jwk
            .common
            .key_algorithm
            .and_then(|a| a.to_string().parse::<Algorithm>().ok());
        let key = Arc::new(Key {
            decoding,
            algorithm,
        });
        match jwk.common.key_id {
            Some(kid) => {
                keys.insert(kid, key);
            }
            None => unnamed.push(key),
        }
    }
    let only = match (keys.len(), unnamed.len()) {
        (0, 1) => unnamed.pop(),
        (1, 0) => keys.values().next().cloned(),
        _ => None,
    };
    Ok((keys, only))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symmetric_and_foreign_keys_are_skipped() {
        let body = br#"{"keys": [
            {"kty": "oct", "kid": "h", "k": "c2VjcmV0"},
            {"kty": "weird", "kid": "w"},
            {"kty": "EC", "kid": "e", "use": "enc", "crv": "P-256",
             "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
             "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"},
            {"kty": "EC", "kid": "s", "crv": "P-256", "alg": "ES256",
             "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
             "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}
        ]}"#;
        let (keys, only) = parse(body).expect("parsed");
        assert_eq!(keys.keys().collect::<Vec<_>>(), ["s"]);
        assert_eq!(keys["s"].algorithm, Some(Algorithm::ES256));
        assert!(only.is_some(), "one key: usable without a kid");
        assert!(parse(b"[]").is_err());
    }
}
