//! What the store's tests share: callers told apart by their token, and
//! dropping a test's tables.

// Each test crate compiles this module and uses a part of it.
#![allow(dead_code)]

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

/// Drops a test's tables from the machine's database (Redis keys expire by
/// themselves).
pub(crate) async fn clean(url: &str, namespace: &str) {
    if !url.starts_with("postgres") {
        return;
    }
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .expect("connect");
    tokio::spawn(connection);
    client
        .batch_execute(&format!(
            "DROP TABLE IF EXISTS {namespace}_tasks, {namespace}_used_states, {namespace}_sessions,
                 {namespace}_rate, {namespace}_slots"
        ))
        .await
        .expect("drop");
}
