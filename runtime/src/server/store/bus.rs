//! [`ChangeBus`]: what one instance tells the others, so that a client
//! hears of a change wherever it was made: a resource's change
//! ([`Change::ResourceUpdated`]), for its subscribers on every instance,
//! and a tool enabled or disabled ([`Change::ToolsChanged`]), for every
//! client.
//!
//! Each instance delivers what it hears to its own clients, once: an
//! instance delivers its own changes at once (and ignores them when they
//! come back on the bus), so that with the bus down its clients are still
//! told, and nothing is told twice.

use serde::{Deserialize, Serialize};
use tokio::sync::{broadcast, mpsc};

use super::error::StoreError;
use toolmetadata_core::BoxFuture;

/// The most bytes one message may take on the bus (a URI is at most a few
/// kilobytes; PostgreSQL's `NOTIFY` takes 8000 bytes).
pub const MAX_MESSAGE_BYTES: usize = 7_000;

/// How many messages a listener may have waiting; past that, what arrives
/// is dropped (a listener that falls behind loses changes, never memory).
pub const LISTEN_BACKLOG: usize = 1_024;

/// A change that clients of every instance are told of.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
#[non_exhaustive]
pub enum Change {
    /// The resource at `uri` changed: its subscribers are sent
    /// `notifications/resources/updated`.
    ResourceUpdated {
        /// The resource.
        uri: String,
    },
    /// A tool was enabled or disabled: each instance reads the tools'
    /// states from its [`ToolStateStore`](super::ToolStateStore) and sends
    /// its clients `notifications/tools/list_changed` if its list changed.
    ToolsChanged,
}

/// One message on the bus: a change, and the instance it comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Published {
    /// The instance that made the change (its own random id), which
    /// delivered it already and so ignores it when it comes back.
    pub origin: String,
    /// What changed. No more than a client would see: no caller, no
    /// arguments.
    pub change: Change,
}

impl Published {
    /// The message as the bus carries it: JSON, or `None` past
    /// [`MAX_MESSAGE_BYTES`].
    pub fn to_json(&self) -> Option<String> {
        serde_json::to_string(self)
            .ok()
            .filter(|json| json.len() <= MAX_MESSAGE_BYTES)
    }

    /// A message read from the bus; `None` for anything else (a message of
    /// a later version, another program's, one too large).
    pub fn from_json(json: &str) -> Option<Published> {
        (json.len() <= MAX_MESSAGE_BYTES)
            .then(|| serde_json::from_str(json).ok())
            .flatten()
    }
}

/// Where instances tell each other of changes.
///
/// An implementation delivers every message published by any instance, in
/// the order it was published, to every listener connected when it was
/// published (not to later ones: the bus keeps no history), each once.
/// A listener that cannot be kept (the connection is lost) ends: its
/// receiver is closed, and the server listens again; what was published
/// in between is lost. Every method returns within a few seconds, with
/// [`StoreError::Unavailable`] naming the bus when it cannot.
pub trait ChangeBus: Send + Sync + 'static {
    /// Tells every listening instance, this one included, of `message`.
    fn publish<'a>(&'a self, message: &'a Published) -> BoxFuture<'a, Result<(), StoreError>>;

    /// Starts listening: the messages published from now on, as they
    /// arrive, at most [`LISTEN_BACKLOG`] waiting.
    fn listen(&self) -> BoxFuture<'_, Result<mpsc::Receiver<Published>, StoreError>>;
}

impl<T: ChangeBus + ?Sized> ChangeBus for std::sync::Arc<T> {
    fn publish<'a>(&'a self, message: &'a Published) -> BoxFuture<'a, Result<(), StoreError>> {
        (**self).publish(message)
    }

    fn listen(&self) -> BoxFuture<'_, Result<mpsc::Receiver<Published>, StoreError>> {
        (**self).listen()
    }
}

/// A bus in this process's memory: for several servers in one process
/// (and tests); instances in other processes need a shared one
/// (`toolmetadata-store`'s Redis and PostgreSQL stores are).
#[derive(Debug)]
pub struct InMemoryBus {
    sender: broadcast::Sender<Published>,
}

impl Default for InMemoryBus {
    fn default() -> Self {
        InMemoryBus {
            sender: broadcast::channel(LISTEN_BACKLOG).0,
        }
    }
}

impl ChangeBus for InMemoryBus {
    fn publish<'a>(&'a self, message: &'a Published) -> BoxFuture<'a, Result<(), StoreError>> {
        // No listener is no error: nobody is told.
        let _ = self.sender.send(message.clone());
        Box::pin(async { Ok(()) })
    }

    fn listen(&self) -> BoxFuture<'_, Result<mpsc::Receiver<Published>, StoreError>> {
        let mut heard = self.sender.subscribe();
        let (sender, receiver) = mpsc::channel(LISTEN_BACKLOG);
        tokio::spawn(async move {
            loop {
                let heard = tokio::select! {
                    () = sender.closed() => return,
                    heard = heard.recv() => heard,
                };
                match heard {
                    // Falling behind loses changes, never memory.
                    Ok(message) => {
                        if let Err(mpsc::error::TrySendError::Closed(_)) = sender.try_send(message)
                        {
                            return;
                        }
                    }
                    Err(broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(broadcast::error::RecvError::Closed) => return,
                }
            }
        });
        Box::pin(async move { Ok(receiver) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_round_trip_as_json_within_their_bound() {
        let message = Published {
            origin: "a".into(),
            change: Change::ResourceUpdated {
                uri: "file:///x".into(),
            },
        };
        let json = message.to_json().expect("small");
        assert_eq!(
            json,
            r#"{"origin":"a","change":{"kind":"resourceUpdated","uri":"file:///x"}}"#
        );
        assert_eq!(Published::from_json(&json), Some(message));
        let huge = Published {
            origin: "a".into(),
            change: Change::ResourceUpdated {
                uri: "x".repeat(MAX_MESSAGE_BYTES),
            },
        };
        assert_eq!(huge.to_json(), None);
        let tools = Published {
            origin: "b".into(),
            change: Change::ToolsChanged,
        };
        let json = tools.to_json().expect("small");
        assert_eq!(json, r#"{"origin":"b","change":{"kind":"toolsChanged"}}"#);
        assert_eq!(Published::from_json(&json), Some(tools));
        assert_eq!(Published::from_json("{\"kind\":\"other\"}"), None);
    }
}
