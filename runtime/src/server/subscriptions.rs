//! Who wants to hear of a change ([`Topic`]): that a resource changed
//! (`resources/subscribe` on a 2025-11-25 session, `subscriptions/listen`
//! with `resourceSubscriptions` on 2026-07-28), told by
//! [`Server::resource_updated`](super::Server::resource_updated); and that
//! the tools' list changed (every 2025-11-25 session of a server whose
//! tools change, `subscriptions/listen` with `toolsListChanged`), told when
//! a tool is enabled or disabled.
//!
//! Subscriptions live on the instance that holds the session or the listen
//! stream: behind a balancer, a change bus (`fleet`) carries a change to
//! the other instances, each telling its own. Only URIs the server serves
//! can be subscribed to, at most [`MAX_PER_SUBSCRIBER`] topics each and
//! [`MAX_SUBSCRIPTIONS`] in all, so a client cannot grow the table.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use rmcp::ErrorData;
use rmcp::model::{
    ResourceUpdatedNotification, ResourceUpdatedNotificationParam, ServerNotification,
    ToolListChangedNotification,
};
use rmcp::service::SubscriptionSink;
#[cfg(feature = "sessions")]
use rmcp::service::{Peer, RoleServer};

/// What a subscriber hears of.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) enum Topic {
    /// The resource at this URI changed.
    Resource(String),
    /// The tools' list changed.
    ToolList,
}

impl Topic {
    fn notification(&self) -> ServerNotification {
        match self {
            Topic::Resource(uri) => {
                ServerNotification::ResourceUpdatedNotification(ResourceUpdatedNotification::new(
                    ResourceUpdatedNotificationParam::new(uri.clone()),
                ))
            }
            Topic::ToolList => ServerNotification::ToolListChangedNotification(
                ToolListChangedNotification::default(),
            ),
        }
    }
}

/// How many resources one session or listen stream may watch (the tools'
/// list besides). With the HTTP
/// limit of sessions per client, one client holds at most a few thousand.
pub(super) const MAX_PER_SUBSCRIBER: usize = 32;
/// How many subscriptions the instance keeps in all.
pub(super) const MAX_SUBSCRIPTIONS: usize = 100_000;
/// How long one notification may take to leave: a client that stops
/// reading does not hold the others back.
const SEND_TIMEOUT: Duration = Duration::from_secs(2);

/// A session's or a listen stream's identity in the table.
pub(super) fn next_subscriber() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// Where a notification goes.
#[derive(Clone)]
pub(super) enum Target {
    /// A 2025-11-25 session's client.
    #[cfg(feature = "sessions")]
    Session(Peer<RoleServer>),
    /// A 2026-07-28 `subscriptions/listen` stream.
    Listen(SubscriptionSink),
}

/// The size of the table from which gone sessions are swept out.
const SWEEP_FROM: usize = 1_024;

/// The subscriptions of this instance, by topic.
#[derive(Default)]
pub(super) struct Subscriptions {
    by_topic: Mutex<HashMap<Topic, HashMap<u64, Target>>>,
    /// The table's size that starts the next sweep: twice what the last
    /// one left, so that sweeping costs each entry a constant.
    sweep_at: AtomicUsize,
}

impl Subscriptions {
    fn table(&self) -> std::sync::MutexGuard<'_, HashMap<Topic, HashMap<u64, Target>>> {
        self.by_topic.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(super) fn add(
        &self,
        subscriber: u64,
        topics: &[Topic],
        target: &Target,
    ) -> Result<(), ErrorData> {
        let mut table = self.table();
        // A session gone without unsubscribing leaves its entries (every
        // 2025-11-25 session of a server whose tools change watches their
        // list): they go each time the table has doubled since the last
        // sweep, and when it would otherwise refuse.
        let total: usize = table.values().map(HashMap::len).sum();
        let sweep_at = self.sweep_at.load(Ordering::Relaxed).max(SWEEP_FROM);
        if total + topics.len() > MAX_SUBSCRIPTIONS.min(sweep_at) {
            table.retain(|_, subscribers| {
                subscribers.retain(|_, target| match target {
                    #[cfg(feature = "sessions")]
                    Target::Session(peer) => !peer.is_transport_closed(),
                    Target::Listen(_) => true,
                });
                !subscribers.is_empty()
            });
            let left: usize = table.values().map(HashMap::len).sum();
            self.sweep_at
                .store(left.saturating_mul(2), Ordering::Relaxed);
        }
        let total: usize = table.values().map(HashMap::len).sum();
        let resource = |topic: &Topic| matches!(topic, Topic::Resource(_));
        let own = table
            .iter()
            .filter(|(topic, subscribers)| resource(topic) && subscribers.contains_key(&subscriber))
            .count();
        let fresh: Vec<&Topic> = topics
            .iter()
            .filter(|topic| {
                !table
                    .get(*topic)
                    .is_some_and(|s| s.contains_key(&subscriber))
            })
            .collect();
        let fresh_resources = fresh.iter().filter(|topic| resource(topic)).count();
        let fresh = fresh.len();
        if own + fresh_resources > MAX_PER_SUBSCRIBER {
            return Err(ErrorData::invalid_request(
                format!(
                    "too many resource subscriptions: at most {MAX_PER_SUBSCRIBER} per session or stream; unsubscribe from some first"
                ),
                None,
            ));
        }
        if total + fresh > MAX_SUBSCRIPTIONS {
            return Err(ErrorData::invalid_request(
                "the server keeps no more subscriptions now; try again later",
                None,
            ));
        }
        for topic in topics {
            table
                .entry(topic.clone())
                .or_default()
                .insert(subscriber, target.clone());
        }
        Ok(())
    }

    pub(super) fn remove(&self, subscriber: u64, topics: &[Topic]) {
        let mut table = self.table();
        for topic in topics {
            if let Some(subscribers) = table.get_mut(topic) {
                subscribers.remove(&subscriber);
                if subscribers.is_empty() {
                    table.remove(topic);
                }
            }
        }
    }

    /// Removes every subscription of `subscriber`.
    pub(super) fn forget(&self, subscriber: u64) {
        self.table().retain(|_, subscribers| {
            subscribers.remove(&subscriber);
            !subscribers.is_empty()
        });
    }

    /// How many are subscribed to `topic`.
    #[cfg(feature = "testing")]
    pub(super) fn watching(&self, topic: &Topic) -> usize {
        self.table().get(topic).map_or(0, HashMap::len)
    }

    /// Whether `subscriber` is subscribed to `topic`.
    #[cfg(all(feature = "testing", feature = "sessions"))]
    pub(super) fn watches(&self, subscriber: u64, topic: &Topic) -> bool {
        self.table()
            .get(topic)
            .is_some_and(|subscribers| subscribers.contains_key(&subscriber))
    }

    /// Tells everyone subscribed to `topic`; how many were told.
    pub(super) async fn notify(&self, topic: &Topic) -> usize {
        let targets: Vec<(u64, Target)> = match self.table().get(topic) {
            Some(subscribers) => subscribers
                .iter()
                .map(|(id, target)| (*id, target.clone()))
                .collect(),
            None => return 0,
        };
        let mut sends = tokio::task::JoinSet::new();
        for (id, target) in targets {
            let notification = topic.notification();
            sends.spawn(async move {
                let sent = match &target {
                    #[cfg(feature = "sessions")]
                    Target::Session(peer) => {
                        tokio::time::timeout(SEND_TIMEOUT, peer.send_notification(notification))
                            .await
                            .map(|r| r.is_ok())
                    }
                    Target::Listen(sink) => {
                        tokio::time::timeout(SEND_TIMEOUT, sink.send(notification))
                            .await
                            .map(|r| r.is_ok())
                    }
                };
                (id, sent)
            });
        }
        let mut told = 0;
        while let Some(joined) = sends.join_next().await {
            match joined {
                Ok((_, Ok(true))) => told += 1,
                // Gone: the session closed, or the stream ended.
                Ok((id, Ok(false))) => self.forget(id),
                Ok((_, Err(_))) => {
                    tracing::debug!(?topic, "a subscriber too slow to notify: skipped");
                }
                Err(e) => tracing::debug!(?topic, "a notification's send stopped: {e}"),
            }
        }
        told
    }
}
