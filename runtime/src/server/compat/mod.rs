//! What rmcp 3.11 cannot say, filled in at one seam.
//!
//! The server is an rmcp `ServerHandler` like any other; what rmcp's types
//! cannot carry is put in and taken out here, on typed messages, by one
//! transport wrapper ([`Transport`]) that stdio and every HTTP session use,
//! and, for the one place rmcp gives no transport to wrap (a stateless
//! 2026-07-28 HTTP request), by the HTTP layer (`http`). Nothing here
//! rewrites a request's bytes: the transports only *read* what rmcp's parsing
//! drops (`stdio::LineGate`, and the HTTP layer's one look at each body)
//! and hand it on beside the message.
//!
//! The gaps, each with where it comes from and when its workaround can go:
//!
//! 1. **`execution` in `tools/list` entries** (`list`). rmcp's `Tool` has no
//!    field for it since rust-sdk commit 3e5ef309 (2025-11-25's task flow
//!    dropped for the Tasks extension), so an entry parsed into a `Tool`
//!    loses it. Remove when `rmcp::model::Tool` holds `execution` (or keeps
//!    unknown keys).
//! 2. **Tasks the 2025-11-25 way** (SEP-1686; `tasks_2025`). The same commit
//!    dropped the `task` param of `tools/call` (`CallToolRequestParams` has
//!    no field for it), the 2025-11-25 shapes of `tasks/get` and
//!    `tasks/cancel` (rmcp answers them only for clients that declared the
//!    2026-07-28 Tasks extension, SEP-2663, and `-32021` to others), and
//!    `tasks/result`. The transport turns those requests, as rmcp parsed
//!    them, into custom requests that `on_custom_request` serves from the
//!    same task store as the new flow. Remove when rmcp serves the
//!    2025-11-25 task flow again, or when 2025-11-25 clients are no longer
//!    served.
//! 3. **`capabilities.tasks` in the `initialize` answer** (`tasks_2025`):
//!    rmcp's `ServerCapabilities` has no field for 2025-11-25's task
//!    capability, so the answer is re-typed on its way out. Remove with
//!    gap 2.
//! 4. **Sessions that are never closed** (`sessions`): rmcp's
//!    `LocalSessionManager` keeps the handle of a session whose worker quit
//!    on its idle timeout until the client deletes it, and has no cap, so
//!    abandoned sessions pile up. Ours caps them and reaps idle ones, and is
//!    where each session gets [`Transport`]. Remove the cap and reaper when
//!    rmcp's manager drops idle sessions and bounds their number (the
//!    wrapper stays as long as gaps 1 to 3 do).
//! 5. **Answers to bodies rmcp reads wrongly** (`http`): a body that is not
//!    JSON gets 415 from rmcp where JSON-RPC asks for -32700, and a
//!    `tools/call` whose `arguments` is not an object is read as an unknown
//!    method where the mistake is in the params (-32602). Remove each when
//!    rmcp answers it so.
//! 6. **Asking without rmcp's `elicitation` feature** (`elicit`): that
//!    feature compiles `url` and the ICU crates into every server for URL
//!    elicitation, which nothing here uses, so `elicitation/create` is sent
//!    as a plain request. Remove when the feature no longer brings them to a
//!    server that only asks forms.
//! 7. **A handler closing its SSE stream** (`polling`, SEP-1699): rmcp's
//!    session handle can close a POST's stream but needs its
//!    `http_request_id`, which handlers never see (rust-sdk #529), and a
//!    response sent before the client resumes is lost. Our session manager
//!    opens each POST's stream itself and names it in the request
//!    (`Context::close_stream`), and the call holds its response until the
//!    client resumed. Remove when rmcp gives handlers the close and keeps
//!    the response for the resumption.
//! 8. **Requests in flight on stdio** (`in_flight`): rmcp spawns a task per
//!    request and per answer and reads on, so a client that writes faster
//!    than it reads grows the server without bound. The stdio transport
//!    stops reading while 128 requests are unanswered. Remove when rmcp
//!    bounds them.
//!
//! rmcp's own `Host` check is turned off (`disable_allowed_hosts`) and ours
//! kept: it must run before the bearer token check, so that a DNS-rebinding
//! page gets 403 and never a challenge, and it checks `Origin` against the
//! operator's list too (rmcp's runs inside its service, after our layers).
//!
//! Why not one layer above the handler instead: rmcp's Streamable HTTP
//! service takes a `ServerHandler` (for `get_tool`), and its blanket
//! `Service` impl for handlers answers `tasks/get` with `-32021` and refuses
//! a task handle to a client without the extension before any handler
//! method runs; so the old requests must be renamed before dispatch.

#[cfg(feature = "http")]
pub(super) mod http;
mod in_flight;
mod list;
#[cfg(feature = "http")]
pub(crate) mod polling;
#[cfg(feature = "http")]
mod sessions;
mod std_streams;
mod stdio;
mod tasks_2025;

use std::future::Future;
use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::model::{ClientJsonRpcMessage, ClientRequest, JsonRpcMessage, ServerJsonRpcMessage};
use rmcp::service::RxJsonRpcMessage;
use serde_json::Value;

pub(super) use list::ListExtras;
#[cfg(feature = "http")]
pub(super) use sessions::{CappedSessions, FULL as SESSIONS_FULL};
pub(super) use stdio::serve_stdio;
pub(in crate::server) use tasks_2025::RELATED_TASK;
pub(crate) use tasks_2025::{is_request as is_2025_task_request, serve as serve_2025_task_request};

use super::Server;

/// What a server's transports fill in: built once per server, cheap to
/// clone.
#[derive(Debug, Clone)]
pub(super) struct Compat {
    extras: Arc<ListExtras>,
    /// Whether some tool runs as a task (gaps 2 and 3 apply).
    tasks: bool,
}

impl Compat {
    pub(super) fn of(server: &Server) -> Self {
        Compat {
            extras: server.inner.list_extras.clone(),
            tasks: server.inner.catalog.runs_tasks(),
        }
    }

    /// Nothing to fill in.
    #[cfg(all(test, feature = "http"))]
    pub(super) fn none() -> Self {
        Compat {
            extras: Arc::default(),
            tasks: false,
        }
    }

    /// `inner` with the gaps filled; on stdio, `lines` holds what the line
    /// gate read beside the lines (over HTTP the `task` params come with
    /// each request).
    pub(super) fn transport<T>(
        &self,
        inner: T,
        lines: Option<Arc<stdio::LineNotes>>,
    ) -> Transport<T> {
        Transport {
            inner,
            compat: self.clone(),
            // stdio's requests in flight are bounded (gap 8); an HTTP
            // session's, by the HTTP layer's limits.
            in_flight: lines.as_ref().map(|_| Arc::default()),
            held: None,
            lines,
        }
    }

    /// An outgoing message with what rmcp's types dropped put back.
    fn outgoing(&self, message: ServerJsonRpcMessage) -> ServerJsonRpcMessage {
        let JsonRpcMessage::Response(mut response) = message else {
            return message;
        };
        response.result = self.extras.restore(response.result);
        let message = JsonRpcMessage::Response(response);
        if self.tasks {
            tasks_2025::patch_initialize_answer(message)
        } else {
            message
        }
    }
}

/// A server transport with rmcp's gaps filled (see the module
/// documentation): the same for stdio and for each HTTP session.
pub(super) struct Transport<T> {
    inner: T,
    compat: Compat,
    lines: Option<Arc<stdio::LineNotes>>,
    in_flight: Option<Arc<in_flight::InFlight>>,
    /// A request read while too many were in flight, handed on when one
    /// leaves.
    held: Option<ClientJsonRpcMessage>,
}

impl<T> Transport<T> {
    /// An incoming message with 2025-11-25's task requests renamed.
    fn incoming(&self, message: ClientJsonRpcMessage) -> ClientJsonRpcMessage {
        if !self.compat.tasks {
            return message;
        }
        let task = match &message {
            JsonRpcMessage::Request(request) => match &request.request {
                ClientRequest::CallToolRequest(call) => {
                    self.task_param(&request.id, &call.extensions)
                }
                _ => None,
            },
            _ => None,
        };
        tasks_2025::reroute(message, task)
    }

    /// The `task` param the transport read for the request `id`.
    fn task_param(
        &self,
        id: &rmcp::model::RequestId,
        extensions: &rmcp::model::Extensions,
    ) -> Option<Value> {
        if let Some(lines) = &self.lines {
            return lines.tasks.as_ref()?.take(id);
        }
        #[cfg(feature = "http")]
        if let Some(parts) = extensions.get::<axum::http::request::Parts>() {
            return parts.extensions.get::<http::TaskParams>()?.of(id);
        }
        let _ = extensions;
        None
    }
}

impl<T: rmcp::transport::Transport<RoleServer>> rmcp::transport::Transport<RoleServer>
    for Transport<T>
{
    type Error = T::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let answered = self
            .in_flight
            .clone()
            .zip(in_flight::InFlight::answers(&item));
        let item = self.compat.outgoing(item);
        let send = self.inner.send(item);
        async move {
            let sent = send.await;
            if let Some((in_flight, id)) = answered {
                in_flight.done(&id);
            }
            sent
        }
    }

    /// The next message, once there is room for it when it is a request.
    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        let Some(in_flight) = self.in_flight.clone() else {
            return self.next().await;
        };
        loop {
            // Kept in `held` across every await: rmcp drops this future
            // whenever it has something else to do.
            let message = match self.held.take() {
                Some(message) => message,
                None => self.next().await?,
            };
            if in_flight.admit(&message) {
                return Some(message);
            }
            self.held = Some(message);
            in_flight.room().await;
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

impl<T: rmcp::transport::Transport<RoleServer>> Transport<T> {
    /// The next message; on stdio, the answers to the lines the gate
    /// refused are sent as they come, between messages.
    async fn next(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        let Some(lines) = self.lines.clone() else {
            let message = self.inner.receive().await?;
            return Some(self.incoming(message));
        };
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
                Ok(Some(message)) => return Some(self.incoming(message)),
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

/// Gap 6: sends `elicitation/create` and waits at most `timeout`, as rmcp's
/// `Peer::create_elicitation_with_timeout` does, without rmcp's
/// `elicitation` feature, which compiles `url` and the ICU crates into every
/// server for URL elicitation, which nothing here uses. Remove when that
/// feature no longer brings them to a server that only asks forms.
pub(super) async fn elicit(
    peer: &rmcp::service::Peer<RoleServer>,
    params: rmcp::model::ElicitRequestParams,
    timeout: std::time::Duration,
) -> Result<rmcp::model::ElicitResult, rmcp::service::ServiceError> {
    let request =
        rmcp::model::ServerRequest::ElicitRequest(rmcp::model::ElicitRequest::new(params));
    match peer
        .send_request_with_option(
            request,
            rmcp::service::PeerRequestOptions::with_timeout(timeout),
        )
        .await?
        .await_response()
        .await?
    {
        rmcp::model::ClientResult::ElicitResult(result) => Ok(result),
        _ => Err(rmcp::service::ServiceError::UnexpectedResponse),
    }
}
