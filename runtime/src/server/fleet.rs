//! The server's side of the [`ChangeBus`]: its own changes published for
//! the other instances, theirs delivered to its own subscribers, once each.
//! With the bus out of reach the server goes on telling its own clients,
//! says so once (a WARN), listens again with a growing pause, and says when
//! the bus is back; a resource's change published in between is lost to
//! it, and the tools' states are read again from the store (so a tool
//! enabled meanwhile is listed, and the clients told).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::store::{Change, ChangeBus, Published};
use toolmetadata_core::BoxFuture;

/// The longest pause between two attempts to listen again.
const MAX_PAUSE: Duration = Duration::from_secs(30);

/// What a server does with what it hears on the bus.
pub(super) trait Hears: Send + Sync + 'static {
    /// Another instance made `change`: tell this one's clients.
    fn heard(&self, change: Change) -> BoxFuture<'_, ()>;
    /// The bus is listened to again (or for the first time): catch up with
    /// what is kept elsewhere (the tools' states).
    fn listening(&self) -> BoxFuture<'_, ()>;
}

/// A server's place on the bus.
pub(super) struct Fleet {
    shared: Arc<Shared>,
    /// Ends the listener when the server goes.
    stop: CancellationToken,
}

/// What the server and its listener share.
struct Shared {
    bus: Arc<dyn ChangeBus>,
    /// This instance's id on the bus: its own changes come back with it.
    origin: String,
    /// Whether the bus is known to be out of reach (said once per outage).
    down: AtomicBool,
}

impl Drop for Fleet {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

impl Fleet {
    pub(super) fn new(bus: Arc<dyn ChangeBus>) -> Fleet {
        Fleet {
            shared: Arc::new(Shared {
                bus,
                origin: uuid::Uuid::new_v4().to_string(),
                down: AtomicBool::new(false),
            }),
            stop: CancellationToken::new(),
        }
    }

    /// Tells the other instances of `change` (this one told its own
    /// clients already).
    pub(super) async fn publish(&self, change: Change) {
        let message = Published {
            origin: self.shared.origin.clone(),
            change,
        };
        if message.to_json().is_none() {
            tracing::warn!(
                "a change too large for the bus is told to this instance's clients only"
            );
            return;
        }
        match self.shared.bus.publish(&message).await {
            Ok(()) => self.shared.back(),
            Err(e) => self.shared.lost(&e.to_string()),
        }
    }

    /// Starts delivering what the other instances publish to the server's
    /// subscribers, for as long as the server lives. Needs a Tokio runtime.
    pub(super) fn listen(&self, server: Weak<dyn Hears>) {
        let (shared, stop) = (self.shared.clone(), self.stop.clone());
        tokio::spawn(async move {
            tokio::select! {
                () = stop.cancelled() => {}
                () = shared.deliver(server) => {}
            }
        });
    }
}

impl Shared {
    fn lost(&self, why: &str) {
        if !self.down.swap(true, Ordering::Relaxed) {
            tracing::warn!(
                "the change bus is out of reach ({why}): changes are told to this instance's clients only until it is back"
            );
        }
    }

    fn back(&self) {
        if self.down.swap(false, Ordering::Relaxed) {
            tracing::info!("the change bus is back");
        }
    }

    async fn deliver(&self, server: Weak<dyn Hears>) {
        let mut pause = Duration::from_millis(250);
        loop {
            match self.bus.listen().await {
                Ok(mut heard) => {
                    self.back();
                    pause = Duration::from_millis(250);
                    // What changed while nobody listened (this is also the
                    // first read after the server starts).
                    match server.upgrade() {
                        Some(server) => server.listening().await,
                        None => return,
                    }
                    while let Some(message) = heard.recv().await {
                        if message.origin == self.origin {
                            continue;
                        }
                        let Some(server) = server.upgrade() else {
                            return;
                        };
                        server.heard(message.change).await;
                    }
                    self.lost("it stopped delivering");
                }
                Err(e) => self.lost(&e.to_string()),
            }
            if server.strong_count() == 0 {
                return;
            }
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(MAX_PAUSE);
        }
    }
}
