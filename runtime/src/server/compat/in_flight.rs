//! Gap 8 of `compat`: how many of a stdio client's requests are answered at
//! once.
//!
//! rmcp spawns a task for every request it reads and another for every
//! answer it sends, and reads on whatever those do, so a client that writes
//! requests faster than it reads the answers (or never reads them: the pipe
//! fills and every answer waits) grows the server without bound. The stdio
//! transport stops reading while [`MAX_IN_FLIGHT`] requests are unanswered
//! (their answers not yet written) except for control requests (`ping`,
//! `tasks/cancel`) and what is not a request (`notifications/cancelled`,
//! answers to the server's own requests): a request past the bound is
//! answered at once with an error that names it, so that a client whose
//! requests all wait (on `tasks/result`, say) is never left unheard. Only
//! when the client reads none of those refusals either does the transport
//! stop reading, so that the pipe holds the rest.
//!
//! A request leaves when its answer is written, or when the client cancels
//! it (rmcp then drops its answer, and the call's handler is stopped). Its
//! id is free again as soon as its answer is being written (the client may
//! read the answer and send a request with the same id before the write
//! returns here), while the answer still counts until it is written. The
//! client's answers to the server's own requests wait behind a held request
//! too: were every request in flight waiting for one (a handler asking the
//! person on a 2025-11-25 session), they would end at the ask timeout.
//! Remove when rmcp bounds its requests in flight.

use std::collections::HashSet;
use std::sync::{Mutex, MutexGuard, PoisonError};

use rmcp::model::{
    ClientJsonRpcMessage, ClientNotification, ClientRequest, ErrorCode, ErrorData, JsonRpcMessage,
    RequestId, ServerJsonRpcMessage,
};
use tokio::sync::Notify;

/// How many requests of one stdio client are answered at once, at most.
pub(super) const MAX_IN_FLIGHT: usize = 128;

/// How many control requests (`ping`, `tasks/cancel`) are answered at once
/// beyond [`MAX_IN_FLIGHT`]: a client whose every slot waits (on
/// `tasks/result`, say) can still ping the server and cancel its tasks.
const MAX_CONTROL: usize = 32;

/// How many refusals of requests past the bound may wait to be written: a
/// client that reads none of them is then no longer read either.
const MAX_REFUSALS: usize = 64;

/// What happens to a message read.
#[derive(Debug)]
pub(super) enum Admission {
    /// Handed on to rmcp.
    Pass,
    /// Answered at once with this error: a request past the bound. The
    /// answer counts until [`InFlight::refusal_sent`].
    Refuse(Box<ServerJsonRpcMessage>),
    /// Kept until [`InFlight::room`]: too many refusals wait to be written.
    Hold,
}

/// The requests being answered, by id.
#[derive(Debug, Default)]
pub(super) struct InFlight {
    state: Mutex<State>,
    freed: Notify,
}

#[derive(Debug, Default)]
struct State {
    requests: HashSet<RequestId>,
    control: HashSet<RequestId>,
    /// Answers being written, of requests and of control requests: their
    /// ids are free, their room not yet.
    writing: usize,
    writing_control: usize,
    refusals: usize,
}

impl State {
    fn has_room(&self) -> bool {
        self.requests.len() + self.writing < MAX_IN_FLIGHT || self.refusals < MAX_REFUSALS
    }
}

/// An answer being written, which counts until [`InFlight::written`].
#[derive(Debug)]
#[must_use]
pub(super) struct Writing {
    control: bool,
}

/// Whether `request` is one a client needs answered while all else waits.
fn is_control(request: &ClientRequest) -> bool {
    match request {
        ClientRequest::PingRequest(_) | ClientRequest::CancelTaskRequest(_) => true,
        #[cfg(all(feature = "tasks", feature = "sessions"))]
        ClientRequest::CustomRequest(custom) => custom.method == super::tasks_2025::CANCEL,
        _ => false,
    }
}

impl InFlight {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// What to do with `message`: anything but a request passes; a request
    /// passes while there is room (it is then counted), a control request
    /// while there is room for it, and any other is refused with an error
    /// that names the bound, unless too many refusals wait to be written.
    pub(super) fn admit(&self, message: &ClientJsonRpcMessage) -> Admission {
        match message {
            JsonRpcMessage::Request(request) => {
                let mut state = self.state();
                let id = &request.id;
                // rmcp would run it beside the first, uncounted: a client
                // sending one id again and again would grow the server.
                let again = state.requests.contains(id) || state.control.contains(id);
                if !again && state.requests.len() + state.writing < MAX_IN_FLIGHT {
                    state.requests.insert(id.clone());
                    return Admission::Pass;
                }
                if !again
                    && is_control(&request.request)
                    && state.control.len() + state.writing_control < MAX_CONTROL
                {
                    state.control.insert(id.clone());
                    return Admission::Pass;
                }
                if state.refusals >= MAX_REFUSALS {
                    return Admission::Hold;
                }
                state.refusals += 1;
                let message = if again {
                    format!(
                        "a request with this id is being answered: this `{}` was not started; \
                         a request's id must differ from those of the requests in flight",
                        request.request.method()
                    )
                } else {
                    format!(
                        "the server is answering {MAX_IN_FLIGHT} requests of this client, the most it answers at once; \
                         this `{}` was not started: send it again once some are answered",
                        request.request.method()
                    )
                };
                let error = ErrorData::new(ErrorCode(-32000), message, None);
                Admission::Refuse(Box::new(ServerJsonRpcMessage::error(
                    error,
                    Some(id.clone()),
                )))
            }
            JsonRpcMessage::Notification(notification) => {
                if let ClientNotification::CancelledNotification(cancelled) =
                    &notification.notification
                    && let Some(id) = &cancelled.params.request_id
                {
                    self.done(id);
                }
                Admission::Pass
            }
            _ => Admission::Pass,
        }
    }

    /// Waits until a request or a refusal has left since a message was held.
    pub(super) async fn room(&self) {
        let freed = self.freed.notified();
        tokio::pin!(freed);
        freed.as_mut().enable();
        if self.state().has_room() {
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

    /// The answer to `id` is being written: its id is free, its room is
    /// not until [`InFlight::written`]. `None` for no request in flight.
    pub(super) fn answering(&self, id: &RequestId) -> Option<Writing> {
        let mut state = self.state();
        if state.requests.remove(id) {
            state.writing += 1;
            Some(Writing { control: false })
        } else if state.control.remove(id) {
            state.writing_control += 1;
            Some(Writing { control: true })
        } else {
            None
        }
    }

    /// The answer `writing` was written (or could not be): its room is free.
    pub(super) fn written(&self, writing: Writing) {
        let mut state = self.state();
        if writing.control {
            state.writing_control = state.writing_control.saturating_sub(1);
        } else {
            state.writing = state.writing.saturating_sub(1);
        }
        drop(state);
        self.freed.notify_waiters();
    }

    /// The request `id` has left: cancelled.
    pub(super) fn done(&self, id: &RequestId) {
        let mut state = self.state();
        if state.requests.remove(id) || state.control.remove(id) {
            drop(state);
            self.freed.notify_waiters();
        }
    }

    /// A refusal has been written (or could not be).
    pub(super) fn refusal_sent(&self) {
        let mut state = self.state();
        state.refusals = state.refusals.saturating_sub(1);
        drop(state);
        self.freed.notify_waiters();
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

    fn request(id: i64, request: ClientRequest) -> ClientJsonRpcMessage {
        JsonRpcMessage::Request(JsonRpcRequest::new(RequestId::Number(id), request))
    }

    fn list(id: i64) -> ClientJsonRpcMessage {
        request(
            id,
            ClientRequest::ListToolsRequest(rmcp::model::ListToolsRequest::default()),
        )
    }

    #[tokio::test]
    async fn past_the_bound_control_passes_and_the_rest_is_refused_then_held() {
        let in_flight = InFlight::default();
        for id in 0..MAX_IN_FLIGHT as i64 {
            assert!(matches!(in_flight.admit(&list(id)), Admission::Pass));
        }
        // The same id again is refused, not run uncounted.
        let Admission::Refuse(again) = in_flight.admit(&list(0)) else {
            panic!("an id in flight sent again is refused");
        };
        let text = serde_json::to_string(&again).expect("JSON");
        assert!(text.contains("is being answered"), "{text}");
        in_flight.refusal_sent();
        // Control requests pass, up to their own bound.
        for id in 0..MAX_CONTROL as i64 {
            assert!(matches!(in_flight.admit(&ping(1000 + id)), Admission::Pass));
        }
        let Admission::Refuse(refusal) = in_flight.admit(&ping(-1)) else {
            panic!("a ping past both bounds is refused");
        };
        let text = serde_json::to_string(&refusal).expect("JSON");
        assert!(
            text.contains("\"id\":-1") && text.contains("128 requests"),
            "{text}"
        );
        for id in 1..MAX_REFUSALS as i64 {
            assert!(matches!(
                in_flight.admit(&list(-1 - id)),
                Admission::Refuse(_)
            ));
        }
        // Nothing of the refusals written: held.
        assert!(matches!(in_flight.admit(&list(-999)), Admission::Hold));
        let waiting = tokio::time::timeout(std::time::Duration::from_millis(20), in_flight.room());
        assert!(waiting.await.is_err(), "still no room");
        let room = in_flight.room();
        in_flight.refusal_sent();
        tokio::time::timeout(std::time::Duration::from_secs(1), room)
            .await
            .expect("room once a refusal is written");
        assert!(matches!(in_flight.admit(&list(-999)), Admission::Refuse(_)));
        // A request that leaves makes room for another.
        in_flight.done(&RequestId::Number(7));
        assert!(matches!(in_flight.admit(&list(5000)), Admission::Pass));
    }

    #[test]
    fn an_answered_id_is_free_at_once_and_its_room_once_written() {
        let in_flight = InFlight::default();
        for id in 0..MAX_IN_FLIGHT as i64 {
            assert!(matches!(in_flight.admit(&list(id)), Admission::Pass));
        }
        let writing = in_flight
            .answering(&RequestId::Number(3))
            .expect("in flight");
        // The client read the answer and sends the same id again: it is a
        // new request, refused for room (the answer is not written), never
        // as "being answered".
        let Admission::Refuse(refusal) = in_flight.admit(&list(3)) else {
            panic!("no room while the answer is written");
        };
        let text = serde_json::to_string(&refusal).expect("JSON");
        assert!(text.contains("128 requests"), "{text}");
        in_flight.refusal_sent();
        in_flight.written(writing);
        assert!(matches!(in_flight.admit(&list(3)), Admission::Pass));
        assert!(in_flight.answering(&RequestId::Number(-5)).is_none());
    }
}
