//! What the store's instance tests share: callers told apart by their token.

use toolmetadata::server::BoxFuture;
use toolmetadata::server::auth::{Principal, Rejection, TokenVerifier};

/// Each token is its subject's name: `Bearer alice` is the principal
/// `alice`, so that a test names its callers.
pub(crate) struct Names;

impl TokenVerifier for Names {
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Principal, Rejection>> {
        Box::pin(async move { Ok(Principal::unrestricted(Some(token.to_owned()))) })
    }
}
