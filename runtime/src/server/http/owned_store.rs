//! A 2025-11-25 session in the shared store belongs to the client that
//! opened it: its record is kept under a key that folds in a digest of that
//! client ([`ClientKey`]: the token's principal, else the address), so that
//! another principal holding the session id loads nothing, restores nothing
//! and deletes nothing, exactly as for an id nobody issued.
//!
//! rmcp calls the store inside the request it serves (loading on a request
//! for a session this instance does not hold, storing after `initialize`,
//! deleting on `DELETE`), where [`ClientKey::current`] is that request's
//! client.

use std::sync::Arc;

use rmcp::transport::streamable_http_server::session::store::{
    SessionState, SessionStore, SessionStoreError,
};
use sha2::Digest;

use super::clients::ClientKey;

/// Session ids longer than this are none rmcp issued (they are UUIDs): no
/// key is made for them, and they are unknown.
const MAX_SESSION_ID_LEN: usize = 128;

/// The operator's store, with each session under its owner's key.
pub(super) struct OwnedSessionStore {
    inner: Arc<dyn SessionStore>,
}

impl OwnedSessionStore {
    pub(super) fn new(inner: Arc<dyn SessionStore>) -> Self {
        OwnedSessionStore { inner }
    }
}

/// The store's key of session `id` opened by `owner`: 32 hex digits of the
/// owner's digest, a dot, the id.
fn key(owner: &ClientKey, id: &str) -> Option<String> {
    if id.len() > MAX_SESSION_ID_LEN {
        return None;
    }
    let digest = sha2::Sha256::digest(owner.to_string().as_bytes());
    let mut key = String::with_capacity(33 + id.len());
    for byte in &digest[..16] {
        key.push_str(&format!("{byte:02x}"));
    }
    key.push('.');
    key.push_str(id);
    Some(key)
}

#[async_trait::async_trait]
impl SessionStore for OwnedSessionStore {
    async fn load(&self, session_id: &str) -> Result<Option<SessionState>, SessionStoreError> {
        match key(&ClientKey::current(), session_id) {
            Some(key) => self.inner.load(&key).await,
            None => Ok(None),
        }
    }

    async fn store(&self, session_id: &str, state: &SessionState) -> Result<(), SessionStoreError> {
        match key(&ClientKey::current(), session_id) {
            Some(key) => self.inner.store(&key, state).await,
            None => Ok(()),
        }
    }

    async fn delete(&self, session_id: &str) -> Result<(), SessionStoreError> {
        match key(&ClientKey::current(), session_id) {
            Some(key) => self.inner.delete(&key).await,
            None => Ok(()),
        }
    }
}

/// Session stores for the tests of this module and of `sessions`.
#[cfg(test)]
pub(super) mod testing {
    use super::*;
    use std::collections::HashMap;
    use std::sync::Mutex;

    /// Sessions in a map, by the key they are stored under.
    #[derive(Default)]
    pub(in crate::server::http) struct Memory(
        pub(in crate::server::http) Mutex<HashMap<String, SessionState>>,
    );

    #[async_trait::async_trait]
    impl SessionStore for Memory {
        async fn load(&self, id: &str) -> Result<Option<SessionState>, SessionStoreError> {
            Ok(self.0.lock().expect("lock").get(id).cloned())
        }
        async fn store(&self, id: &str, state: &SessionState) -> Result<(), SessionStoreError> {
            self.0
                .lock()
                .expect("lock")
                .insert(id.to_owned(), state.clone());
            Ok(())
        }
        async fn delete(&self, id: &str) -> Result<(), SessionStoreError> {
            self.0.lock().expect("lock").remove(id);
            Ok(())
        }
    }

    /// A store that never answers.
    pub(in crate::server::http) struct Silent;

    #[async_trait::async_trait]
    impl SessionStore for Silent {
        async fn load(&self, _: &str) -> Result<Option<SessionState>, SessionStoreError> {
            std::future::pending().await
        }
        async fn store(&self, _: &str, _: &SessionState) -> Result<(), SessionStoreError> {
            std::future::pending().await
        }
        async fn delete(&self, _: &str) -> Result<(), SessionStoreError> {
            std::future::pending().await
        }
    }
}

#[cfg(test)]
mod tests {
    use super::testing::Memory;
    use super::*;
    use rmcp::model::InitializeRequestParams;

    #[tokio::test]
    async fn another_client_neither_loads_nor_deletes_a_session() {
        let memory = Arc::new(Memory::default());
        let store = OwnedSessionStore::new(memory.clone());
        let alice = ClientKey::Principal("sub:alice".into());
        let bob = ClientKey::Principal("sub:bob".into());
        let bobs_address = ClientKey::Address([10, 0, 0, 2].into());
        let state = SessionState::new(InitializeRequestParams::default());
        alice
            .clone()
            .scope(store.store("s-1", &state))
            .await
            .expect("stored");
        for other in [&bob, &bobs_address, &ClientKey::Unknown] {
            let loaded = other.clone().scope(store.load("s-1")).await.expect("load");
            assert!(loaded.is_none(), "{other} loaded Alice's session");
            other
                .clone()
                .scope(store.delete("s-1"))
                .await
                .expect("delete");
        }
        assert_eq!(memory.0.lock().expect("lock").len(), 1, "still there");
        let loaded = alice.clone().scope(store.load("s-1")).await.expect("load");
        assert!(loaded.is_some());
        let long = "x".repeat(MAX_SESSION_ID_LEN + 1);
        assert!(
            alice
                .clone()
                .scope(store.load(&long))
                .await
                .expect("load")
                .is_none()
        );
        alice.scope(store.delete("s-1")).await.expect("delete");
        assert!(memory.0.lock().expect("lock").is_empty());
    }
}
