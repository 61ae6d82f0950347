//! Gap 8 of `compat`: how many of a stdio client's requests are answered at
//! once.
//!
//! rmcp spawns a task for every request it reads and another for every
//! answer it sends, and reads on whatever those do, so a client that writes
//! requests faster than it reads the answers (or never reads them: the pipe
//! fills and every answer waits) grows the server without bound. The stdio
//! transport stops reading while [`MAX_IN_FLIGHT`] requests are unanswered
//! (their answers not yet written), so that the pipe holds the rest.
//!
//! A request leaves when its answer is written, or when the client cancels
//! it (rmcp then drops its answer, and the call's handler is stopped). The
//! client's answers to the server's own requests wait behind a held request
//! too: were every request in flight waiting for one (a handler asking the
//! person on a 2025-11-25 session), they would end at the ask timeout.
//! Remove when rmcp bounds its requests in flight.

use std::collections::HashSet;
use std::sync::{Mutex, MutexGuard, PoisonError};

use rmcp::model::{
    ClientJsonRpcMessage, ClientNotification, JsonRpcMessage, RequestId, ServerJsonRpcMessage,
};
use tokio::sync::Notify;

/// How many requests of one stdio client are answered at once, at most.
pub(super) const MAX_IN_FLIGHT: usize = 128;

/// The requests being answered, by id.
#[derive(Debug, Default)]
pub(super) struct InFlight {
    ids: Mutex<HashSet<RequestId>>,
    freed: Notify,
}

impl InFlight {
    fn ids(&self) -> MutexGuard<'_, HashSet<RequestId>> {
        self.ids.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether `message` may be handed on now: anything but a request, or a
    /// request while there is room (it is then counted).
    pub(super) fn admit(&self, message: &ClientJsonRpcMessage) -> bool {
        match message {
            JsonRpcMessage::Request(request) => {
                let mut ids = self.ids();
                if ids.len() >= MAX_IN_FLIGHT && !ids.contains(&request.id) {
                    return false;
                }
                ids.insert(request.id.clone());
                true
            }
            JsonRpcMessage::Notification(notification) => {
                if let ClientNotification::CancelledNotification(cancelled) =
                    &notification.notification
                    && let Some(id) = &cancelled.params.request_id
                {
                    self.done(id);
                }
                true
            }
            _ => true,
        }
    }

    /// Waits until a request has left since `admit` refused one.
    pub(super) async fn room(&self) {
        let freed = self.freed.notified();
        tokio::pin!(freed);
        freed.as_mut().enable();
        if self.ids().len() < MAX_IN_FLIGHT {
            return;
        }
        freed.await;
    }

    /// The id `message` answers, if it is an answer.
    pub(super) fn answers(message: &ServerJsonRpcMessage) -> Option<RequestId> {
        match message {
            JsonRpcMessage::Response(response) => Some(response.id.clone()),
            JsonRpcMessage::Error(error) => error.id.clone(),
            _ => None,
        }
    }

    /// The request `id` has left: answered, or cancelled.
    pub(super) fn done(&self, id: &RequestId) {
        if self.ids().remove(id) {
            self.freed.notify_waiters();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::{ClientRequest, JsonRpcRequest, PingRequest};

    fn ping(id: i64) -> ClientJsonRpcMessage {
        JsonRpcMessage::Request(JsonRpcRequest::new(
            RequestId::Number(id),
            ClientRequest::PingRequest(PingRequest::default()),
        ))
    }

    #[tokio::test]
    async fn a_request_past_the_bound_waits_for_one_to_leave() {
        let in_flight = InFlight::default();
        for id in 0..MAX_IN_FLIGHT as i64 {
            assert!(in_flight.admit(&ping(id)));
        }
        assert!(!in_flight.admit(&ping(-1)), "no room");
        // The same id again takes no more room.
        assert!(in_flight.admit(&ping(0)));
        let waiting = tokio::time::timeout(std::time::Duration::from_millis(20), in_flight.room());
        assert!(waiting.await.is_err(), "still no room");
        let room = in_flight.room();
        in_flight.done(&RequestId::Number(7));
        tokio::time::timeout(std::time::Duration::from_secs(1), room)
            .await
            .expect("room once one left");
        assert!(in_flight.admit(&ping(-1)));
    }
}
