//! [`JwtVerifier`]: access tokens as JWTs (RFC 9068) signed by an
//! authorization server whose keys are published as a JWKS; checked with the
//! `jsonwebtoken` crate for signature, issuer, audience and time.

use std::str::FromStr;
use std::time::Duration;

use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, Validation};
use serde_json::{Map, Value};

use super::jwks::{KeySet, Timing};
use super::{Principal, Rejection, TokenVerifier};
use crate::server::ServerError;
use toolmetadata_core::BoxFuture;

/// The asymmetric algorithms accepted unless told otherwise. Never HMAC: the
/// keys come from a public JWKS, and a public key used as an HMAC secret is
/// the classic forgery.
const DEFAULT_ALGORITHMS: &[Algorithm] = &[
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// Checks bearer tokens as JWTs from one issuer for one audience, signed with
/// a key of the issuer's JWKS. The keys are fetched when first needed, kept,
/// and fetched again for a token signed with a key not seen yet (a rotation),
/// no more often than [`JwtVerifier::min_refresh_interval`].
///
/// The principal's subject is `sub`, its scopes `scope` (space-separated,
/// RFC 9068) or `scp` (a list or a string, as some providers write it).
pub struct JwtVerifier {
    issuer: String,
    audience: Vec<String>,
    algorithms: Vec<Algorithm>,
    leeway: Duration,
    jwks_url: String,
    timing: Timing,
    keys: Option<KeySet>,
}

impl std::fmt::Debug for JwtVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JwtVerifier")
            .field("issuer", &self.issuer)
            .field("audience", &self.audience)
            .field("jwks_url", &self.jwks_url)
            .finish_non_exhaustive()
    }
}

impl JwtVerifier {
    /// Tokens whose `iss` is `issuer` and whose `aud` holds `audience` (this
    /// server's resource identifier), signed with a key from `jwks_url`
    /// (https, or http on a loopback host). Defaults: RS, PS, ES and EdDSA
    /// algorithms, 60 s of leeway on `exp` and `nbf`, a refresh at most every
    /// 30 s, keys refetched after 10 minutes, fetches limited to 10 s.
    pub fn new(
        issuer: impl Into<String>,
        audience: impl Into<String>,
        jwks_url: impl Into<String>,
    ) -> Result<Self, ServerError> {
        if jsonwebtoken::crypto::CryptoProvider::try_get_default().is_none() {
            return Err(ServerError::config(
                "jsonwebtoken has no crypto provider: enable exactly one of its `rust_crypto` and `aws_lc_rs` features",
            ));
        }
        let mut verifier = JwtVerifier {
            issuer: issuer.into(),
            audience: vec![audience.into()],
            algorithms: DEFAULT_ALGORITHMS.to_vec(),
            leeway: Duration::from_secs(60),
            jwks_url: jwks_url.into(),
            timing: Timing {
                min_refresh: Duration::from_secs(30),
                max_age: Duration::from_secs(600),
                timeout: Duration::from_secs(10),
            },
            keys: None,
        };
        verifier.rebuild()?;
        Ok(verifier)
    }

    fn rebuild(&mut self) -> Result<(), ServerError> {
        self.keys = Some(KeySet::new(&self.jwks_url, self.timing)?);
        Ok(())
    }

    /// Accept only these algorithms (`"RS256"`, `"ES256"`, …); HMAC ones
    /// (`HS*`) are refused, since the keys are public.
    pub fn algorithms(mut self, names: &[&str]) -> Result<Self, ServerError> {
        let mut algorithms = Vec::new();
        for name in names {
            let algorithm = Algorithm::from_str(name).map_err(|_| {
                ServerError::config(format!(
                    "unknown JWT algorithm `{name}`: expected one of RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, EdDSA"
                ))
            })?;
            if !DEFAULT_ALGORITHMS.contains(&algorithm) {
                return Err(ServerError::config(format!(
                    "the JWT algorithm `{name}` is symmetric: a verifier with public keys accepts only RS, PS, ES and EdDSA algorithms"
                )));
            }
            algorithms.push(algorithm);
        }
        if algorithms.is_empty() {
            return Err(ServerError::config("at least one JWT algorithm is needed"));
        }
        self.algorithms = algorithms;
        Ok(self)
    }

    /// Also accept tokens for this audience.
    pub fn audience(mut self, audience: impl Into<String>) -> Self {
        self.audience.push(audience.into());
        self
    }

    /// The clock skew allowed on `exp` and `nbf` (default 60 s).
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// The least time between two fetches of the JWKS (default 30 s): the
    /// bound on how often tokens naming unknown keys can make it fetch.
    pub fn min_refresh_interval(mut self, interval: Duration) -> Result<Self, ServerError> {
        self.timing.min_refresh = interval;
        self.rebuild()?;
        Ok(self)
    }

    /// How long a fetch of the JWKS may take (default 10 s).
    pub fn fetch_timeout(mut self, timeout: Duration) -> Result<Self, ServerError> {
        self.timing.timeout = timeout;
        self.rebuild()?;
        Ok(self)
    }

    async fn check(&self, token: &str) -> Result<Principal, Rejection> {
        // `alg: none` and unknown algorithms fail here: the header does not
        // parse into an algorithm.
        let header = jsonwebtoken::decode_header(token).map_err(|_| {
            Rejection::invalid_token("the token is not a JWT signed with a supported algorithm")
        })?;
        if !self.algorithms.contains(&header.alg) {
            return Err(Rejection::invalid_token(format!(
                "tokens signed with {:?} are not accepted; expected one of {}",
                header.alg,
                self.algorithms
                    .iter()
                    .map(|a| format!("{a:?}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        let keys = self
            .keys
            .as_ref()
            .ok_or_else(|| Rejection::unavailable("the verifier has no key set"))?;
        let key = keys.key(header.kid.as_deref()).await?;
        if key.decoding.family() != header.alg.family()
            || key.algorithm.is_some_and(|a| a != header.alg)
        {
            return Err(Rejection::invalid_token(
                "the token's algorithm is not the one its key is for",
            ));
        }
        let mut validation = Validation::new(header.alg);
        validation.set_issuer(&[&self.issuer]);
        validation.set_audience(&self.audience);
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        validation.validate_nbf = true;
        validation.leeway = self.leeway.as_secs();
        let data = jsonwebtoken::decode::<Map<String, Value>>(token, &key.decoding, &validation)
            .map_err(|e| Rejection::invalid_token(self.describe(e.kind())))?;
        Ok(principal(data.claims))
    }

    /// What was wrong, in words that quote nothing of the token.
    fn describe(&self, kind: &ErrorKind) -> String {
        match kind {
            ErrorKind::ExpiredSignature => "the token has expired".to_owned(),
            ErrorKind::ImmatureSignature => "the token is not valid yet (nbf)".to_owned(),
            ErrorKind::InvalidIssuer => {
                format!("the token's issuer is not `{}`", self.issuer)
            }
            ErrorKind::InvalidAudience => format!(
                "the token is not for this resource: its audience must include `{}`",
                self.audience.join("` or `")
            ),
            ErrorKind::InvalidSignature => "the token's signature does not verify".to_owned(),
            ErrorKind::MissingRequiredClaim(claim) => {
                format!("the token has no `{claim}` claim")
            }
            ErrorKind::InvalidAlgorithm => {
                "the token's algorithm is not the one its key is for".to_owned()
            }
            _ => "the token is not a well-formed JWT".to_owned(),
        }
    }
}

impl TokenVerifier for JwtVerifier {
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Principal, Rejection>> {
        Box::pin(self.check(token))
    }
}

/// The principal of verified claims.
fn principal(claims: Map<String, Value>) -> Principal {
    let subject = claims.get("sub").and_then(Value::as_str).map(str::to_owned);
    let mut scopes: Vec<String> = Vec::new();
    for claim in ["scope", "scp"] {
        match claims.get(claim) {
            Some(Value::String(s)) => scopes.extend(s.split_whitespace().map(str::to_owned)),
            Some(Value::Array(items)) => {
                scopes.extend(items.iter().filter_map(Value::as_str).map(str::to_owned))
            }
            _ => {}
        }
    }
    Principal::new(subject, scopes).with_claims(claims)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_come_from_scope_or_scp() {
        let claims = serde_json::json!({"sub": "ada", "scope": "a b", "scp": ["c"]});
        let Value::Object(claims) = claims else {
            unreachable!("an object literal")
        };
        let p = principal(claims);
        assert_eq!(p.subject(), Some("ada"));
        assert!(p.has_scope("a") && p.has_scope("b") && p.has_scope("c"));
        assert!(!p.has_scope("a b"));
    }

    #[test]
    fn hmac_and_unknown_algorithms_are_refused() {
        let v = JwtVerifier::new("https://i", "https://r", "https://i/jwks").expect("valid");
        let e = v.algorithms(&["HS256"]).expect_err("symmetric");
        assert!(e.to_string().contains("symmetric"));
        let v = JwtVerifier::new("https://i", "https://r", "https://i/jwks").expect("valid");
        assert!(v.algorithms(&["none"]).is_err());
        assert!(JwtVerifier::new("https://i", "https://r", "http://idp.example/jwks").is_err());
    }
}
