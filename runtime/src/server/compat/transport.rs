//! [`Compat`] and [`Transport`]: the one wrapper every transport's messages
//! pass through (stdio's and each HTTP session's), filling in what rmcp's
//! types cannot carry (the gaps of the `compat` module).

use std::future::Future;
use std::sync::Arc;

use futures_util::FutureExt;
use futures_util::future::Either;
use rmcp::RoleServer;
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, JsonRpcMessage, ServerJsonRpcMessage};
use rmcp::service::RxJsonRpcMessage;
use serde_json::Value;

#[cfg(feature = "http")]
use rmcp::model::RequestId;

use super::in_flight;
use super::line_notes::LineNotes;
use super::list::ListExtras;
#[cfg(all(feature = "tasks", feature = "sessions"))]
use super::tasks_2025;
#[cfg(feature = "http")]
use crate::server::peek::Peek;

/// What a server's transports fill in: built once per server, cheap to
/// clone.
#[derive(Debug, Clone)]
pub(in crate::server) struct Compat {
    pub(super) extras: Arc<ListExtras>,
    /// Whether gaps 2 and 3 apply: some tool runs as a task, and sessions
    /// (2025-11-25) are served.
    pub(in crate::server) tasks: bool,
}

impl Compat {
    pub(in crate::server) fn new(extras: Arc<ListExtras>, tasks: bool) -> Self {
        Compat { extras, tasks }
    }

    /// Nothing to fill in.
    #[cfg(all(test, feature = "http", feature = "sessions"))]
    pub(in crate::server) fn none() -> Self {
        Compat {
            extras: Arc::default(),
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
/// without the feature `tasks`: no tool runs as a task); on stdio, `lines`
/// holds the `task` params the line gate read.
fn incoming(
    compat: &Compat,
    lines: Option<&LineNotes>,
    message: ClientJsonRpcMessage,
) -> ClientJsonRpcMessage {
    if !compat.tasks {
        return message;
    }
    let task = match &message {
        JsonRpcMessage::Request(request) => match &request.request {
            ClientRequest::CallToolRequest(call) => {
                task_param(lines, &request.id, &call.extensions)
            }
            _ => None,
        },
        _ => None,
    };
    #[cfg(all(feature = "tasks", feature = "sessions"))]
    return tasks_2025::reroute(message, task);
    #[cfg(not(all(feature = "tasks", feature = "sessions")))]
    {
        let _ = task;
        message
    }
}

/// The `task` param read for the request `id`: by the line gate on stdio,
/// by the HTTP layer (in the request's extensions) over HTTP.
fn task_param(
    lines: Option<&LineNotes>,
    id: &rmcp::model::RequestId,
    extensions: &rmcp::model::Extensions,
) -> Option<Value> {
    if let Some(lines) = lines {
        return lines.tasks.as_ref()?.take(id);
    }
    #[cfg(feature = "http")]
    if let Some(parts) = extensions.get::<axum::http::request::Parts>() {
        return parts.extensions.get::<TaskParams>()?.of(id);
    }
    let _ = extensions;
    None
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

#[cfg(feature = "http")]
/// The `task` params that the HTTP layer read from the `tools/call`
/// requests of a body (one body may hold a batch), by request id, in the
/// request's extensions.
#[derive(Debug, Clone, Default)]
pub(in crate::server) struct TaskParams(std::sync::Arc<[(RequestId, Value)]>);

#[cfg(feature = "http")]
impl TaskParams {
    /// The `task` param of the request `id`.
    pub(in crate::server) fn of(&self, id: &RequestId) -> Option<Value> {
        self.0
            .iter()
            .find(|(seen, _)| seen == id)
            .map(|(_, task)| task.clone())
    }
}

/// The `task` params of the `tools/call` requests among `messages`; `None`
/// when there are none.
#[cfg(feature = "http")]
pub(in crate::server) fn task_params(messages: &[Peek]) -> Option<TaskParams> {
    let found: Vec<(RequestId, Value)> = messages
        .iter()
        .filter(|m| m.method.as_deref() == Some("tools/call"))
        .filter_map(|m| {
            let task = m.params.as_ref()?.task.as_ref()?;
            // As rmcp reads the id (`1.0` is the id 1).
            let id = serde_json::from_value::<RequestId>(m.id.clone()).ok()?;
            (!task.is_null()).then(|| (id, task.clone()))
        })
        .collect();
    (!found.is_empty()).then(|| TaskParams(found.into()))
}

#[cfg(all(test, feature = "http"))]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_the_task_params_of_tool_calls_are_taken() {
        let messages: Vec<Peek> = serde_json::from_value(json!([
            {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "job", "arguments": {"task": 1}, "task": {"ttl": 5}}},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "job", "task": null}},
            {"jsonrpc": "2.0", "id": 3, "method": "tasks/get", "params": {"taskId": "t", "task": {}}},
            {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "task"}},
        ]))
        .expect("peeks");
        let found = task_params(&messages).expect("one");
        assert_eq!(&found.0[..], &[(RequestId::Number(1), json!({"ttl": 5}))]);
        assert!(task_params(&messages[1..]).is_none());
        // An id in float form is the integer rmcp reads.
        let float: Vec<Peek> = serde_json::from_value(json!([
            {"jsonrpc": "2.0", "id": 7.0, "method": "tools/call", "params": {"name": "job", "task": {}}}
        ]))
        .expect("peeks");
        let found = task_params(&float).expect("one");
        assert_eq!(found.of(&RequestId::Number(7)), Some(json!({})));
    }
}
