//! The change bus on PostgreSQL: `NOTIFY` on the channel `{ns}_changes`
//! (`pg_notify`, delivered at commit, at most 8000 bytes: a message is
//! smaller), each listener on a connection of its own that `LISTEN`s.

use futures_util::StreamExt;
use tokio::sync::{mpsc, oneshot};
use tokio_postgres::AsyncMessage;
use toolmetadata::server::BoxFuture;
use toolmetadata::server::store::{ChangeBus, LISTEN_BACKLOG, Published, StoreError};

use super::PostgresStore;
use crate::shared::bounded;

impl PostgresStore {
    fn channel(&self) -> String {
        format!("{}_changes", self.options.namespace)
    }
}

impl ChangeBus for PostgresStore {
    fn publish<'a>(&'a self, message: &'a Published) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let Some(json) = message.to_json() else {
                return Ok(());
            };
            let channel = self.channel();
            bounded(&self.name, self.options.timeout, async {
                let client = self.pool.get().await.map_err(|e| e.to_string())?;
                client
                    .execute("SELECT pg_notify($1, $2)", &[&channel, &json])
                    .await
                    .map_err(|e| e.to_string())
            })
            .await
            .map(drop)
        })
    }

    fn listen(&self) -> BoxFuture<'_, Result<mpsc::Receiver<Published>, StoreError>> {
        Box::pin(async move {
            let (client, mut connection) = bounded(
                &self.name,
                self.options.timeout,
                self.config.connect(tokio_postgres::NoTls),
            )
            .await?;
            // The namespace is letters, digits and `_` (checked by Options).
            let listen = format!("LISTEN {}", self.channel());
            let (sender, receiver) = mpsc::channel(LISTEN_BACKLOG);
            let (listening, started) = oneshot::channel::<Result<(), String>>();
            tokio::spawn(async move {
                let mut messages =
                    futures_util::stream::poll_fn(move |cx| connection.poll_message(cx));
                // LISTEN, driving the connection meanwhile.
                {
                    let asked = client.batch_execute(&listen);
                    tokio::pin!(asked);
                    loop {
                        tokio::select! {
                            done = &mut asked => {
                                let ok = done.is_ok();
                                let _ = listening.send(done.map_err(|e| e.to_string()));
                                if !ok {
                                    return;
                                }
                                break;
                            }
                            message = messages.next() => {
                                if !matches!(message, Some(Ok(_))) {
                                    return;
                                }
                            }
                        }
                    }
                }
                // Ends with the connection (the listener then sees the
                // channel closed) or when nobody listens any more.
                loop {
                    let message = tokio::select! {
                        // Nobody listens (the server is gone): the
                        // connection goes now, not at the next message.
                        () = sender.closed() => break,
                        message = messages.next() => match message {
                            Some(Ok(message)) => message,
                            _ => break,
                        },
                    };
                    let AsyncMessage::Notification(notification) = message else {
                        continue;
                    };
                    let Some(published) = Published::from_json(notification.payload()) else {
                        continue;
                    };
                    // A listener that falls behind loses changes, never
                    // memory: what does not fit its backlog is dropped.
                    if let Err(mpsc::error::TrySendError::Closed(_)) = sender.try_send(published) {
                        break;
                    }
                }
                drop(client);
            });
            bounded(&self.name, self.options.timeout, async {
                started
                    .await
                    .map_err(|_| "the listening connection ended".to_owned())?
            })
            .await?;
            Ok(receiver)
        })
    }
}
