//! A session's subscriptions, served: subscribe, unsubscribe (resources)
//! and the 2026-07-28 listening stream (resources, the tools' list).

use crate::server::Server;
#[cfg(feature = "resources")]
use crate::server::subscriptions::MAX_PER_SUBSCRIBER;
use crate::server::subscriptions::{Subscriptions, Target, Topic, next_subscriber};
use rmcp::ErrorData;
use rmcp::model::SubscriptionFilter;
use rmcp::service::SubscriptionContext;
#[cfg(all(feature = "resources", feature = "sessions"))]
use rmcp::service::{Peer, RoleServer};
#[cfg(all(feature = "resources", feature = "sessions"))]
use toolmetadata_core::seam::shorten;

impl Server {
    /// Tells the clients subscribed to `uri` that it changed
    /// (`notifications/resources/updated`): sessions that sent
    /// `resources/subscribe`, and 2026-07-28 `subscriptions/listen` streams
    /// that named it. How many were told on this instance; with a change
    /// bus ([`ServerBuilder::change_bus`](crate::server::ServerBuilder::change_bus),
    /// or a store) every other instance tells its own. A client that does
    /// not read within two seconds is skipped; one that is gone is
    /// forgotten.
    #[cfg(feature = "resources")]
    pub async fn resource_updated(&self, uri: &str) -> usize {
        let told = self
            .inner
            .subscriptions
            .notify(&Topic::Resource(uri.to_owned()))
            .await;
        if let Some(fleet) = &self.inner.fleet {
            fleet
                .publish(crate::server::store::Change::ResourceUpdated {
                    uri: uri.to_owned(),
                })
                .await;
        }
        told
    }

    /// How many sessions and listen streams on this instance are told of
    /// `uri`'s changes: `testing` waits for a new stream to count, since
    /// rmcp acknowledges a `subscriptions/listen` before the server's
    /// `listen` runs.
    #[cfg(all(feature = "testing", feature = "resources"))]
    pub(crate) fn watchers(&self, uri: &str) -> usize {
        self.inner
            .subscriptions
            .watching(&Topic::Resource(uri.to_owned()))
    }

    /// How many sessions and listen streams on this instance are told of
    /// the tools' list's changes.
    #[cfg(feature = "testing")]
    pub(crate) fn tool_list_watchers(&self) -> usize {
        self.inner.subscriptions.watching(&Topic::ToolList)
    }

    /// Whether this session hears of the tools' list's changes.
    #[cfg(all(feature = "testing", feature = "sessions"))]
    pub(crate) fn hears_tool_list(&self) -> bool {
        self.inner
            .subscriptions
            .watches(self.subscriber, &Topic::ToolList)
    }

    /// Whether `uri` is a resource this server serves: a static one, or
    /// one a template matches.
    #[cfg(feature = "resources")]
    pub(in crate::server) fn serves_uri(&self, uri: &str) -> bool {
        self.inner.resources.iter().any(|r| r.resource.uri == uri)
            || self
                .inner
                .templates
                .iter()
                .any(|t| t.parsed.as_ref().is_ok_and(|p| p.matches(uri).is_some()))
    }

    /// `resources/subscribe` (2025-11-25 sessions).
    #[cfg(all(feature = "resources", feature = "sessions"))]
    pub(in crate::server) fn subscribe_session(
        &self,
        uri: &str,
        peer: &Peer<RoleServer>,
        session: bool,
    ) -> Result<(), ErrorData> {
        if !session {
            return Err(ErrorData::invalid_request(
                "resources/subscribe needs a session (2025-11-25); on 2026-07-28 use subscriptions/listen with resourceSubscriptions",
                None,
            ));
        }
        if !self.serves_uri(uri) {
            let uri = shorten(uri, 200);
            return Err(ErrorData::resource_not_found(
                format!("Resource not found: `{uri}`; subscribe to a resource this server lists"),
                Some(serde_json::json!({ "uri": uri })),
            ));
        }
        self.inner.subscriptions.add(
            self.subscriber,
            &[Topic::Resource(uri.to_owned())],
            &Target::Session(peer.clone()),
        )
    }

    /// `resources/unsubscribe`: nothing to undo is no error.
    #[cfg(all(feature = "resources", feature = "sessions"))]
    pub(in crate::server) fn unsubscribe_session(&self, uri: &str) {
        self.inner
            .subscriptions
            .remove(self.subscriber, &[Topic::Resource(uri.to_owned())]);
    }

    /// Whether a `subscriptions/listen` may hear anything of this server:
    /// it serves resources, or its tools change.
    pub(in crate::server) fn listens(&self) -> bool {
        self.serves_resources() || self.inner.catalog.changing()
    }

    /// What of a `subscriptions/listen` filter this server takes: the
    /// resources it serves, at most `MAX_PER_SUBSCRIBER`, and the tools'
    /// list when its tools change.
    pub(in crate::server) fn accepted_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> SubscriptionFilter {
        let mut accepted = SubscriptionFilter::new();
        if requested.tools_list_changed == Some(true) && self.inner.catalog.changing() {
            accepted.tools_list_changed = Some(true);
        }
        #[cfg(feature = "resources")]
        if let Some(uris) = &requested.resource_subscriptions {
            let served: Vec<String> = uris
                .iter()
                .filter(|uri| self.serves_uri(uri))
                .take(MAX_PER_SUBSCRIBER)
                .cloned()
                .collect();
            if !served.is_empty() {
                accepted.resource_subscriptions = Some(served);
            }
        }
        accepted
    }

    /// A `subscriptions/listen` stream, until the client ends it.
    pub(in crate::server) async fn listen(
        &self,
        context: SubscriptionContext,
    ) -> Result<(), ErrorData> {
        let _watching = self.watch(&context)?;
        context.cancelled().await;
        Ok(())
    }

    /// Registers what a listen stream was granted (the served resources it
    /// named, the tools' list); removed when the returned guard drops,
    /// however the stream ends.
    pub(in crate::server) fn watch(
        &self,
        context: &SubscriptionContext,
    ) -> Result<Listening<'_>, ErrorData> {
        let accepted = context.accepted();
        let mut topics = Vec::new();
        if accepted.tools_list_changed == Some(true) && self.inner.catalog.changing() {
            topics.push(Topic::ToolList);
        }
        #[cfg(feature = "resources")]
        topics.extend(
            accepted
                .resource_subscriptions
                .iter()
                .flatten()
                .filter(|uri| self.serves_uri(uri))
                .map(|uri| Topic::Resource(uri.clone())),
        );
        let stream = next_subscriber();
        self.inner
            .subscriptions
            .add(stream, &topics, &Target::Listen(context.sink().clone()))?;
        Ok(Listening {
            subscriptions: &self.inner.subscriptions,
            stream,
            topics,
        })
    }
}

/// A listen stream's subscriptions, removed when it ends.
pub(in crate::server) struct Listening<'a> {
    subscriptions: &'a Subscriptions,
    stream: u64,
    topics: Vec<Topic>,
}

impl Drop for Listening<'_> {
    fn drop(&mut self) {
        self.subscriptions.remove(self.stream, &self.topics);
    }
}
