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
        // The tools' states are the one key kept without expiry.
        let client = redis::Client::open(url).expect("redis url");
        let mut connection = client
            .get_multiplexed_async_connection()
            .await
            .expect("connect");
        let _: i64 = redis::cmd("DEL")
            .arg(format!("{namespace}:tools"))
            .query_async(&mut connection)
            .await
            .expect("del");
        return;
    }
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .expect("connect");
    tokio::spawn(connection);
    client
        .batch_execute(&format!(
            "DROP TABLE IF EXISTS {namespace}_tasks, {namespace}_used_states, {namespace}_sessions,
                 {namespace}_rate, {namespace}_slots, {namespace}_events, {namespace}_tool_states"
        ))
        .await
        .expect("drop");
}

/// The WARN lines logged in this test process, from when
/// [`warnings::start`] is first called: a test counts those of its own
/// store (named by its port) to check that an outage is said once.
pub(crate) mod warnings {
    use std::fmt::Write;
    use std::sync::{Mutex, OnceLock};

    use tracing::field::{Field, Visit};
    use tracing::span::{Attributes, Id, Record};
    use tracing::{Event, Level, Metadata, Subscriber};

    static LOGGED: OnceLock<Mutex<Vec<String>>> = OnceLock::new();

    /// Starts keeping WARN lines (once per process; later calls do nothing).
    pub(crate) fn start() {
        if LOGGED.set(Mutex::default()).is_ok() {
            let _ = tracing::subscriber::set_global_default(Warnings);
        }
    }

    /// The WARN lines kept that contain `needle`.
    pub(crate) fn containing(needle: &str) -> Vec<String> {
        LOGGED
            .get()
            .map(|logged| {
                logged
                    .lock()
                    .map(|l| l.iter().filter(|w| w.contains(needle)).cloned().collect())
                    .unwrap_or_default()
            })
            .unwrap_or_default()
    }

    struct Warnings;

    struct Message(String);

    impl Visit for Message {
        fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
            let _ = write!(self.0, "{}={value:?} ", field.name());
        }
    }

    impl Subscriber for Warnings {
        fn enabled(&self, metadata: &Metadata<'_>) -> bool {
            *metadata.level() <= Level::WARN
        }
        fn new_span(&self, _: &Attributes<'_>) -> Id {
            Id::from_u64(1)
        }
        fn record(&self, _: &Id, _: &Record<'_>) {}
        fn record_follows_from(&self, _: &Id, _: &Id) {}
        fn event(&self, event: &Event<'_>) {
            if *event.metadata().level() != Level::WARN {
                return;
            }
            let mut message = Message(String::new());
            event.record(&mut message);
            if let Some(logged) = LOGGED.get()
                && let Ok(mut logged) = logged.lock()
            {
                logged.push(message.0);
            }
        }
        fn enter(&self, _: &Id) {}
        fn exit(&self, _: &Id) {}
    }
}
