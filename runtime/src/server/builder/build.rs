//! [`ServerBuilder::build`]: every check across what was added, and the
//! [`Server`] assembled from it.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::RequestStateCodec;

use super::ServerBuilder;
use super::extras;
use crate::server::asker::AskSettings;
use crate::server::catalog::Catalog;
use crate::server::store::InMemoryReplayStore;
use crate::server::{Inner, Server, ServerError, discovery};

/// How long a running task's lease, and a slot of concurrency leased in a
/// shared `LimitStore`, last by default: an instance that dies leaves its
/// working tasks and its slots, which lapse once this has passed.
#[cfg(any(feature = "tasks", feature = "limits"))]
const DEFAULT_LEASE: Duration = Duration::from_secs(10);

impl ServerBuilder {
    /// The server; an error when two tools share a name (or a tool takes a
    /// meta-tool's name while discovery is on), when a tool's `[ui]` links a
    /// `ui://` view the server does not serve, or when a `ui://` resource is
    /// not of the MCP Apps MIME type `text/html;profile=mcp-app`.
    pub fn build(mut self) -> Result<Server, ServerError> {
        if let Some(e) = self.errors.first() {
            return Err(ServerError::new(e.clone()));
        }
        if self.require_confirmation {
            for served in &mut self.tools {
                if let Some(confirm) = &mut served.confirm {
                    Arc::make_mut(confirm).confirm.unsupported =
                        crate::metadata::Unsupported::Refuse;
                }
            }
        }
        #[cfg(any(feature = "tasks", feature = "limits"))]
        let lease = self
            .lease
            .unwrap_or(DEFAULT_LEASE)
            .max(Duration::from_secs(1));
        #[cfg(feature = "tasks")]
        let tasks = Arc::new(self.tasks.build(&mut self.tools, lease)?);
        let catalog = Catalog::new(self.tools, self.show_all)?;
        let instructions = match (self.instructions, catalog.discovery()) {
            (Some(i), true) => Some(format!("{i}\n\n{}", discovery::INSTRUCTIONS)),
            (None, true) => Some(discovery::INSTRUCTIONS.to_owned()),
            (i, false) => i,
        };
        extras::check_extras(&self.prompts, &self.templates, &self.completions)?;
        extras::check_views(catalog.served(), &self.resources, &self.templates)?;
        let ask = AskSettings {
            codec: state_codec(self.state_keys)?,
            state_ttl: self.state_ttl.unwrap_or(Duration::from_secs(600)),
            timeout: self.ask_timeout.unwrap_or(Duration::from_secs(300)),
        };
        Ok(Server {
            roots: Arc::default(),
            log_level: Arc::default(),
            subscriber: crate::server::subscriptions::next_subscriber(),
            inner: Arc::new(Inner {
                name: self
                    .name
                    .unwrap_or_else(|| "toolmetadata-server".to_owned()),
                version: self
                    .version
                    .unwrap_or_else(|| env!("CARGO_PKG_VERSION").to_owned()),
                instructions,
                catalog,
                resources: self.resources,
                templates: self.templates,
                skills: crate::server::skills::Skills::new(self.skills),
                prompts: self.prompts,
                completions: self.completions,
                ask,
                list_cache: self.list_cache,
                #[cfg(feature = "tasks")]
                tasks,
                stores: crate::server::Stores {
                    #[cfg(feature = "limits")]
                    limits: self
                        .limit_store
                        .map(|store| crate::server::limits::SharedLimits { store, lease }),
                    replay: self
                        .replay_store
                        .unwrap_or_else(|| Arc::new(InMemoryReplayStore::default())),
                    #[cfg(feature = "http")]
                    sessions: self.session_store,
                },
                list_extras: Arc::new(self.list_extras),
                subscriptions: Default::default(),
            }),
        })
    }
}

/// The codec of `requestState`s: a keyring of the configured keys (the
/// first signs), or a random key.
///
/// A key's id is a digest of the key, so that instances configured with the
/// same keys in another order agree. States sealed by a single key (rmcp's
/// `rs1` format, which this crate wrote before keyrings) still open.
fn state_codec(keys: Vec<Vec<u8>>) -> Result<RequestStateCodec, ServerError> {
    use sha2::Digest;
    let keys = if keys.is_empty() {
        let mut key = vec![0; 32];
        getrandom::fill(&mut key).map_err(|e| {
            ServerError::new(format!("no randomness for the request-state key: {e}"))
        })?;
        vec![key]
    } else {
        keys
    };
    let bad =
        |e: rmcp::model::RequestStateError| ServerError::new(format!("request_state_key: {e}"));
    let ring: Vec<(String, Vec<u8>)> = keys
        .into_iter()
        .map(|key| {
            let digest = sha2::Sha256::digest(&key);
            let id = toolmetadata_core::seam::hex(&digest[..8]);
            (id, key)
        })
        .collect();
    let mut unique = std::collections::HashSet::new();
    let ring: Vec<_> = ring
        .into_iter()
        .filter(|(id, _)| unique.insert(id.clone()))
        .collect();
    let active = ring[0].0.clone();
    let ids: Vec<String> = ring.iter().map(|(id, _)| id.clone()).collect();
    let mut codec = RequestStateCodec::new_with_keyring(active, ring).map_err(bad)?;
    for id in ids {
        codec = codec.with_rs1_fallback(id).map_err(bad)?;
    }
    Ok(codec)
}

#[cfg(test)]
mod tests {
    use super::state_codec;

    const OLD: &[u8] = b"the-old-key-of-at-least-32-bytes!!!!";
    const NEW: &[u8] = b"the-new-key-of-at-least-32-bytes!!!!";

    #[test]
    fn keys_rotate_the_first_signing_and_every_one_verifying() {
        let before = state_codec(vec![OLD.to_vec()]).expect("codec");
        let during = state_codec(vec![NEW.to_vec(), OLD.to_vec()]).expect("codec");
        let after = state_codec(vec![NEW.to_vec()]).expect("codec");
        let old_state = before.seal(b"old");
        let new_state = during.seal(b"new");
        assert_eq!(during.open(&old_state).expect("old key verifies"), b"old");
        assert_eq!(after.open(&new_state).expect("new key signs"), b"new");
        assert!(
            after.open(&old_state).is_err(),
            "a dropped key no longer verifies"
        );
        assert!(
            before.open(&new_state).is_err(),
            "an instance without the new key"
        );
        // The order of the verifying keys does not matter to the ids.
        let reordered = state_codec(vec![OLD.to_vec(), NEW.to_vec()]).expect("codec");
        assert_eq!(reordered.open(&new_state).expect("same ids"), b"new");
        // A single-key state of rmcp's first format still opens.
        let legacy = rmcp::model::RequestStateCodec::try_new(OLD).expect("codec");
        assert_eq!(during.open(&legacy.seal(b"rs1")).expect("rs1"), b"rs1");
        assert!(state_codec(vec![b"short".to_vec()]).is_err());
    }
}
