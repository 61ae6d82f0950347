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

/// The machine's Redis (`TOOLMETADATA_TEST_REDIS` to point elsewhere).
pub(crate) fn redis_url() -> String {
    std::env::var("TOOLMETADATA_TEST_REDIS").unwrap_or_else(|_| "redis://127.0.0.1:6379".into())
}

/// The machine's PostgreSQL (`TOOLMETADATA_TEST_POSTGRES` to point
/// elsewhere).
pub(crate) fn postgres_url() -> String {
    std::env::var("TOOLMETADATA_TEST_POSTGRES")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into())
}

/// Both, each test running on each store in turn.
pub(crate) fn urls() -> [String; 2] {
    [redis_url(), postgres_url()]
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
