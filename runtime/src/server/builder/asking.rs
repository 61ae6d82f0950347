//! The builder's settings for asking the client (feature `ask`): the keys
//! and lifetime of `requestState`s, where used ones are recorded, how long
//! a session's question waits, and whether `[confirm]` may ever proceed
//! unasked.

use std::sync::Arc;
use std::time::Duration;

use super::ServerBuilder;
use crate::server::store::ReplayStore;

impl ServerBuilder {
    /// A key for the `requestState` of 2026-07-28 questions (at least 32
    /// bytes). Called more than once, it makes a keyring: the first key
    /// signs, every key verifies, so keys rotate without refusing the retries
    /// in flight (add the new key first, keep the old one for a state's
    /// lifetime, then drop it). Instances behind one load balancer need the
    /// same keys to accept each other's retries; without one, each process
    /// draws a random key, so a retry must reach the instance that asked.
    pub fn request_state_key(mut self, key: impl Into<Vec<u8>>) -> Self {
        self.ask.state_keys.push(key.into());
        self
    }

    /// With `true`, every tool with `[confirm]` refuses a call from a client
    /// that cannot ask the person, whatever its `unsupported` says (for a
    /// deployment where nothing destructive may run unconfirmed).
    pub fn require_confirmation(mut self, require: bool) -> Self {
        self.ask.require_confirmation = require;
        self
    }

    /// How long a question's `requestState` stays valid (default 10 minutes).
    pub fn request_state_ttl(mut self, ttl: Duration) -> Self {
        self.ask.state_ttl = Some(ttl);
        self
    }

    /// How long a 2025-11-25 session's question waits for the person before
    /// [`AskError::TimedOut`](crate::ask::AskError::TimedOut) (default 5 minutes).
    pub fn ask_timeout(mut self, timeout: Duration) -> Self {
        self.ask.timeout = Some(timeout);
        self
    }

    /// Where the `requestState`s already used are recorded, so that each
    /// is used once (default: an [`InMemoryReplayStore`](crate::server::store::InMemoryReplayStore)). Instances behind a
    /// round-robin balancer share one, or an accepted confirmation could be
    /// replayed on another instance.
    pub fn replay_store(mut self, store: impl ReplayStore) -> Self {
        self.ask.replay_store = Some(Arc::new(store));
        self
    }
}
