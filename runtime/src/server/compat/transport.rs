//! [`Compat`] and [`Transport`]: the one wrapper every transport's messages
//! pass through (stdio's and each HTTP session's), filling in what rmcp's
//! types cannot carry (the gaps of the `compat` module).

use std::future::Future;
use std::sync::Arc;

use futures_util::FutureExt;
use futures_util::future::Either;
use rmcp::RoleServer;
use rmcp::model::{ClientJsonRpcMessage, JsonRpcMessage, ServerJsonRpcMessage};
use rmcp::service::RxJsonRpcMessage;

use super::in_flight;
use super::line_notes::LineNotes;
use super::list::ListExtras;
#[cfg(all(feature = "tasks", feature = "sessions"))]
use super::{task_params, tasks_2025};

/// What a server's transports fill in: built once per server, cheap to
/// clone.
#[derive(Debug, Clone)]
pub(in crate::server) struct Compat {
    pub(super) extras: Arc<ListExtras>,
    /// Whether gaps 2 and 3 apply: some tool runs as a task (2025-11-25's
    /// tasks are only built with `tasks` and `sessions`).
    #[cfg(all(feature = "tasks", feature = "sessions"))]
    pub(in crate::server) tasks: bool,
}

impl Compat {
    pub(in crate::server) fn new(
        extras: Arc<ListExtras>,
        #[cfg(all(feature = "tasks", feature = "sessions"))] tasks: bool,
    ) -> Self {
        Compat {
            extras,
            #[cfg(all(feature = "tasks", feature = "sessions"))]
            tasks,
        }
    }

    /// Nothing to fill in.
    #[cfg(all(test, feature = "http", feature = "sessions"))]
    pub(in crate::server) fn none() -> Self {
        Compat {
            extras: Arc::default(),
            #[cfg(feature = "tasks")]
            tasks: false,
        }
    }

    /// `inner` with the gaps filled; on stdio, `lines` holds what the line
    /// gate read beside the lines (over HTTP the `task` params come with
    /// each request).
    pub(in crate::server) fn transport<T>(
        &self,
        inner: T,
        lines: Option<Arc<LineNotes>>,
    ) -> Transport<T> {
        Transport {
            inner,
            compat: self.clone(),
            stdio: lines.map(|lines| StdioGate {
                lines,
                in_flight: Arc::default(),
            }),
            held: None,
        }
    }

    /// An outgoing message with what rmcp's types dropped put back.
    fn outgoing(&self, message: ServerJsonRpcMessage) -> ServerJsonRpcMessage {
        let JsonRpcMessage::Response(mut response) = message else {
            return message;
        };
        response.result = self.extras.restore(response.result);
        let message = JsonRpcMessage::Response(response);
        #[cfg(all(feature = "tasks", feature = "sessions"))]
        if self.tasks {
            return tasks_2025::patch_initialize_answer(message);
        }
        message
    }
}

/// A server transport with rmcp's gaps filled (see the module
/// documentation): the same for stdio and for each HTTP session.
pub(in crate::server) struct Transport<T> {
    inner: T,
    compat: Compat,
    /// On stdio only; an HTTP session's messages pass straight through.
    stdio: Option<StdioGate>,
    /// A request read while too many were in flight, handed on when one
    /// leaves.
    held: Option<ClientJsonRpcMessage>,
}

/// What stdio's messages pass on their way in.
#[derive(Clone)]
struct StdioGate {
    /// What the line gate read beside the lines.
    lines: Arc<LineNotes>,
    /// stdio's requests in flight, bounded (gap 8); an HTTP session's are
    /// bounded by the HTTP layer's limits.
    in_flight: Arc<in_flight::InFlight>,
}

/// An incoming message with 2025-11-25's task requests renamed (none is
/// when no tool runs as a task); on stdio, `lines` holds the `task` params
/// the line gate read.
#[cfg(all(feature = "tasks", feature = "sessions"))]
fn incoming(
    compat: &Compat,
    lines: Option<&LineNotes>,
    message: ClientJsonRpcMessage,
) -> ClientJsonRpcMessage {
    use rmcp::model::ClientRequest;
    if !compat.tasks {
        return message;
    }
    let task = match &message {
        JsonRpcMessage::Request(request) => match &request.request {
            ClientRequest::CallToolRequest(call) => task_params::taken(
                lines.and_then(|lines| lines.tasks.as_ref()),
                &request.id,
                &call.extensions,
            ),
            _ => None,
        },
        _ => None,
    };
    tasks_2025::reroute(message, task)
}

/// Without 2025-11-25's tasks nothing comes in under another name.
#[cfg(not(all(feature = "tasks", feature = "sessions")))]
fn incoming(
    _: &Compat,
    _: Option<&LineNotes>,
    message: ClientJsonRpcMessage,
) -> ClientJsonRpcMessage {
    message
}

impl<T: rmcp::transport::Transport<RoleServer>> rmcp::transport::Transport<RoleServer>
    for Transport<T>
{
    type Error = T::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        // The id is free once its answer leaves (the client may reuse it
        // as soon as it reads it); the room, once the answer is written.
        let answered = self.stdio.as_ref().and_then(|stdio| {
            let in_flight = stdio.in_flight.clone();
            let id = in_flight::InFlight::answers(&item)?;
            let writing = in_flight.answering(&id)?;
            Some((in_flight, writing))
        });
        let item = self.compat.outgoing(item);
        // Mapped rather than awaited in an `async` block, which would hold
        // the inner future twice (as captured, and as awaited): rmcp's send
        // futures hold the message, about 1.5 KiB, and rmcp spawns each
        // answer's send, copying the future whole.
        self.inner.send(item).map(move |sent| {
            if let Some((in_flight, writing)) = answered {
                in_flight.written(writing);
            }
            sent
        })
    }

    /// The next message, once there is room for it when it is a request.
    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleServer>>> + Send {
        let Some(stdio) = self.stdio.clone() else {
            // An HTTP session's messages, renamed as they come: rmcp makes a
            // new `receive` future for every message and every other event
            // of its loop, so this one stays as small as the inner one.
            let compat = &self.compat;
            let next = self.inner.receive();
            return Either::Left(
                next.map(move |message| message.map(|message| incoming(compat, None, message))),
            );
        };
        // On stdio, boxed: the gate's state would make every future of this
        // type (HTTP's above too) several KiB.
        Either::Right(Box::pin(self.admitted(stdio)))
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

impl<T: rmcp::transport::Transport<RoleServer>> Transport<T> {
    /// The next message on stdio, once there is room for it when it is a
    /// request.
    async fn admitted(&mut self, stdio: StdioGate) -> Option<RxJsonRpcMessage<RoleServer>> {
        let StdioGate { lines, in_flight } = stdio;
        loop {
            // Kept in `held` across every await: rmcp drops this future
            // whenever it has something else to do.
            let message = match self.held.take() {
                Some(message) => message,
                None => self.next(&lines).await?,
            };
            match in_flight.admit(&message) {
                in_flight::Admission::Pass => return Some(message),
                in_flight::Admission::Refuse(answer) => {
                    // Sent beside, as a refused line's answer is.
                    let sent = self.inner.send(*answer);
                    let in_flight = in_flight.clone();
                    tokio::spawn(async move {
                        if sent.await.is_err() {
                            tracing::debug!("the answer to a request past the bound was not sent");
                        }
                        in_flight.refusal_sent();
                    });
                }
                in_flight::Admission::Hold => {
                    self.held = Some(message);
                    in_flight.room().await;
                }
            }
        }
    }

    /// The next message on stdio; the answers to the lines the gate
    /// refused are sent as they come, between messages.
    async fn next(&mut self, lines: &LineNotes) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            // rmcp's line reading keeps a partial line across a cancelled
            // `receive`: dropping it for a refusal loses nothing.
            let next = tokio::select! {
                biased;
                answer = lines.refused.next() => Err(answer),
                message = self.inner.receive() => Ok(message),
            };
            match next {
                Err(answer) => {
                    // Sent beside: `receive` may be cancelled at any await,
                    // and an answer half sent would be lost.
                    let sent = self.inner.send(answer);
                    tokio::spawn(async move {
                        if sent.await.is_err() {
                            tracing::debug!("the answer to a refused line was not sent");
                        }
                    });
                }
                Ok(Some(message)) => return Some(incoming(&self.compat, Some(lines), message)),
                Ok(None) => {
                    // Lines refused just before the end are still answered.
                    while let Some(answer) = lines.refused.pop() {
                        if self.inner.send(answer).await.is_err() {
                            break;
                        }
                    }
                    return None;
                }
            }
        }
    }
}
