//! The change bus on Redis: `PUBLISH` on the channel `{ns}:changes`, each
//! listener on a pub/sub connection of its own. Pub/sub rather than a
//! stream: the bus keeps no history (an instance that was away missed what
//! was said, as its clients did), and a message costs Redis nothing once
//! delivered.

use futures_util::StreamExt;
use tokio::sync::mpsc;
use toolmetadata::server::BoxFuture;
use toolmetadata::server::store::{ChangeBus, LISTEN_BACKLOG, Published, StoreError};

use crate::redis::RedisStore;
use crate::shared::bounded;

impl RedisStore {
    fn channel(&self) -> String {
        format!("{}:changes", self.options.namespace)
    }
}

impl ChangeBus for RedisStore {
    fn publish<'a>(&'a self, message: &'a Published) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let Some(json) = message.to_json() else {
                return Ok(());
            };
            self.run::<i64>(redis::cmd("PUBLISH").arg(self.channel()).arg(json))
                .await
                .map(drop)
        })
    }

    fn listen(&self) -> BoxFuture<'_, Result<mpsc::Receiver<Published>, StoreError>> {
        Box::pin(async move {
            let mut pubsub = bounded(
                &self.name,
                self.options.timeout,
                self.client.get_async_pubsub(),
            )
            .await?;
            bounded(
                &self.name,
                self.options.timeout,
                pubsub.subscribe(self.channel()),
            )
            .await?;
            let (sender, receiver) = mpsc::channel(LISTEN_BACKLOG);
            tokio::spawn(async move {
                // Ends with the connection (the listener then sees the
                // channel closed) or when nobody listens any more.
                let mut messages = pubsub.into_on_message();
                loop {
                    let message = tokio::select! {
                        // Nobody listens (the server is gone): the
                        // connection goes now, not at the next message.
                        () = sender.closed() => return,
                        message = messages.next() => match message {
                            Some(message) => message,
                            None => return,
                        },
                    };
                    let Ok(payload) = message.get_payload::<String>() else {
                        continue;
                    };
                    let Some(published) = Published::from_json(&payload) else {
                        continue;
                    };
                    // A listener that falls behind loses changes, never
                    // memory: what does not fit its backlog is dropped.
                    if let Err(mpsc::error::TrySendError::Closed(_)) = sender.try_send(published) {
                        return;
                    }
                }
            });
            Ok(receiver)
        })
    }
}
