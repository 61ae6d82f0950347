//! What a [`ServerBuilder`](super::ServerBuilder) was told of asking
//! (feature `ask`), and the server's settings built from it.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::RequestStateCodec;

use crate::server::ServerError;
use crate::server::asker::AskSettings;
use crate::server::served::Served;
use crate::server::store::{InMemoryReplayStore, ReplayStore};

/// How long a question's `requestState` stays valid by default.
const DEFAULT_STATE_TTL: Duration = Duration::from_secs(600);
/// How long a 2025-11-25 session's question waits for the person by default.
const DEFAULT_ASK_TIMEOUT: Duration = Duration::from_secs(300);

/// What the builder was told of asking.
#[derive(Default)]
pub(super) struct AskOptions {
    pub(super) state_keys: Vec<Vec<u8>>,
    pub(super) require_confirmation: bool,
    pub(super) state_ttl: Option<Duration>,
    pub(super) timeout: Option<Duration>,
    pub(super) replay_store: Option<Arc<dyn ReplayStore>>,
}

impl AskOptions {
    /// The server's settings for asking and the store of used states; with
    /// `require_confirmation`, every tool of `tools` with `[confirm]` made
    /// to refuse a client that cannot ask.
    pub(super) fn build(
        self,
        tools: &mut [Served],
    ) -> Result<(AskSettings, Arc<dyn ReplayStore>), ServerError> {
        if self.require_confirmation {
            for served in tools.iter_mut() {
                if let Some(confirm) = &mut served.confirm {
                    Arc::make_mut(confirm).confirm.unsupported =
                        crate::metadata::Unsupported::Refuse;
                }
            }
        }
        let settings = AskSettings {
            codec: state_codec(self.state_keys)?,
            state_ttl: self.state_ttl.unwrap_or(DEFAULT_STATE_TTL),
            timeout: self.timeout.unwrap_or(DEFAULT_ASK_TIMEOUT),
        };
        let replay = self
            .replay_store
            .unwrap_or_else(|| Arc::new(InMemoryReplayStore::default()));
        Ok((settings, replay))
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
            ServerError::build(format!("no randomness for the request-state key: {e}"))
        })?;
        vec![key]
    } else {
        keys
    };
    let bad =
        |e: rmcp::model::RequestStateError| ServerError::build(format!("request_state_key: {e}"));
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
