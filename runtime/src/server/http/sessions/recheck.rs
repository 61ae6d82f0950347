//! A session its client closed through another instance is closed here
//! too: the client's `DELETE` leaves a tombstone in the shared store, which
//! each instance holding the session looks for, at most once a second,
//! beside the request that prompts the look.

use rmcp::transport::streamable_http_server::session::SessionId;
use tokio::time::Instant;

use std::sync::atomic::Ordering;

use super::tombstones::{RECHECK, tombstone};
use super::{CappedSessions, ClientKey, digest};

impl CappedSessions {
    /// Looks, beside the caller, at whether the session `id`'s client
    /// closed it through another instance, when the last look is older than
    /// [`RECHECK`] and none is under way: at most one read of the store per
    /// session a second, as its owner. What it finds closed is closed here
    /// by the next request or reaper tick; a store that does not answer
    /// closes nothing.
    pub(super) fn recheck(&self, id: &SessionId) {
        let Some(store) = self.store.clone() else {
            return;
        };
        let owner = {
            let mut table = self.table();
            let Some(entry) = table.get_mut(id) else {
                return;
            };
            if entry.confirmed.elapsed() < RECHECK || !self.rechecks.under_way().insert(id.clone())
            {
                return;
            }
            entry.confirmed = Instant::now();
            entry.client.clone()
        };
        let (id, rechecks) = (id.clone(), self.rechecks.clone());
        tokio::spawn(async move {
            match owner.scope(store.load(&tombstone(&id))).await {
                Ok(Some(_)) => {
                    rechecks.found_closed().insert(id.clone());
                }
                Ok(None) => {}
                Err(e) => {
                    tracing::warn!(session = %digest(&id), "the session store did not answer: {e}");
                }
            }
            rechecks.under_way().remove(&id);
        });
    }

    /// Whether the session `id` was found closed elsewhere; it is then
    /// closed here.
    pub(super) async fn closed_elsewhere(&self, id: &SessionId) -> bool {
        // Only a look at the store finds one.
        if self.store.is_none() || !self.rechecks.found_closed().remove(id) {
            return false;
        }
        self.table().remove(id);
        self.close(vec![id.clone()]).await;
        true
    }

    /// Closes every session found closed elsewhere.
    pub(super) async fn close_found_closed(&self) {
        let found: Vec<SessionId> = self.rechecks.found_closed().drain().collect();
        let doomed: Vec<SessionId> = {
            let mut table = self.table();
            found
                .into_iter()
                .filter(|id| table.remove(id).is_some())
                .collect()
        };
        self.close(doomed).await;
    }

    /// Marks the session `id` of `client` closed in the store, for the other
    /// instances that hold it (see [`tombstone`]); a store that does not
    /// answer is logged, and they keep it until it goes idle.
    pub(in crate::server) async fn closing(&self, id: &str, client: &ClientKey) {
        let Some(store) = &self.store else {
            return;
        };
        let mark = rmcp::transport::streamable_http_server::session::store::SessionState::new(
            rmcp::model::InitializeRequestParams::default(),
        );
        if let Err(e) = client
            .clone()
            .scope(store.store(&tombstone(id), &mark))
            .await
        {
            tracing::warn!(session = %digest(id), "the session's close was not recorded: {e}");
        }
    }

    /// Whether `client` may act on the session `id`: one it opened here, or
    /// one the store holds under its key (opened through another instance).
    pub(in crate::server) async fn known(&self, id: &str, client: &ClientKey) -> bool {
        if self.owns(id, client) {
            return true;
        }
        match &self.store {
            Some(store) => !matches!(client.clone().scope(store.load(id)).await, Ok(None)),
            None => false,
        }
    }

    /// Looks again at the sessions with a stream open (see
    /// [`Self::recheck`]): they may send no request for a long time.
    pub(super) fn recheck_streaming(&self) {
        if self.store.is_none() {
            return;
        }
        let streaming: Vec<SessionId> = self
            .table()
            .iter()
            .filter(|(_, entry)| entry.streams.load(Ordering::Relaxed) > 0)
            .map(|(id, _)| id.clone())
            .collect();
        for id in streaming {
            self.recheck(&id);
        }
    }
}
