//! The seam between the HTTP server and whatever vouches for a token:
//! [`TokenVerifier`], its [`Rejection`], and the shared [`StaticToken`].

use std::fmt;

use super::Principal;
use toolmetadata_core::BoxFuture;

/// Checks a bearer token and says whom it stands for. The HTTP server calls
/// it once per request with the token from `Authorization: Bearer …`.
///
/// Implementations must never log the token, nor put it in a rejection.
pub trait TokenVerifier: Send + Sync + 'static {
    /// The principal `token` stands for, or why it is refused.
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Principal, Rejection>>;

    /// Whether the principals it verifies carry a token's claims (default
    /// `true`): a server whose tools take parameters from claims (`from =
    /// "claim:…"`) does not bind with a verifier that has none to give.
    fn has_claims(&self) -> bool {
        true
    }
}

/// Why a token was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    unavailable: bool,
    description: String,
}

impl Rejection {
    /// The token is not valid (malformed, expired, wrong issuer or audience,
    /// bad signature, …): `401` with `error="invalid_token"`. The
    /// description is sent to the client: say what was expected, never
    /// quote the token.
    pub fn invalid_token(description: impl Into<String>) -> Self {
        Rejection {
            unavailable: false,
            description: description.into(),
        }
    }

    /// The token cannot be checked now (the authorization server's keys are
    /// unreachable): `503`, so that a client keeps its token and retries
    /// rather than signing in again.
    pub fn unavailable(description: impl Into<String>) -> Self {
        Rejection {
            unavailable: true,
            description: description.into(),
        }
    }

    /// Whether the verifier could not check the token at all.
    pub fn is_unavailable(&self) -> bool {
        self.unavailable
    }

    /// What was wrong, for the client.
    pub fn description(&self) -> &str {
        &self.description
    }
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.description)
    }
}

impl std::error::Error for Rejection {}

/// One token shared by every caller, compared in constant time. The
/// principal it yields holds every scope unless [`StaticToken::scopes`] says
/// otherwise: the mode that predates OAuth, kept for single-user servers.
#[derive(Clone)]
pub struct StaticToken {
    token: String,
    principal: Principal,
}

impl StaticToken {
    /// Accepts exactly `token`.
    pub fn new(token: impl Into<String>) -> Self {
        StaticToken {
            token: token.into(),
            principal: Principal::unrestricted(None),
        }
    }

    /// Grants only `scopes` to the token's bearer.
    pub fn scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.principal = Principal::new(None, scopes);
        self
    }
}

impl fmt::Debug for StaticToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never the token itself.
        f.debug_struct("StaticToken")
            .field("principal", &self.principal)
            .finish_non_exhaustive()
    }
}

impl TokenVerifier for StaticToken {
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Principal, Rejection>> {
        let (a, b) = (token.as_bytes(), self.token.as_bytes());
        // Time independent of where the two differ.
        let same =
            a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0;
        let outcome = if same {
            Ok(self.principal.clone())
        } else {
            Err(Rejection::invalid_token(
                "the bearer token is not the one this server was started with",
            ))
        };
        Box::pin(std::future::ready(outcome))
    }

    /// The static token stands for no one in particular: no claims.
    fn has_claims(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_static_token_accepts_only_itself() {
        let verifier = StaticToken::new("s3cret");
        assert!(verifier.verify("s3cret").await.is_ok());
        for wrong in ["s3cre", "s3cret!", "S3cret", ""] {
            let refused = verifier.verify(wrong).await.expect_err(wrong);
            assert!(!refused.is_unavailable());
            assert!(!refused.description().contains(wrong) || wrong.is_empty());
        }
        assert!(!format!("{verifier:?}").contains("s3cret"));
        let limited = StaticToken::new("t").scopes(["a"]);
        let p = limited.verify("t").await.expect("accepted");
        assert!(p.has_scope("a") && !p.has_scope("b"));
    }
}
