//! Tool calls run as tasks: whether a call becomes one, and starting it.

use crate::metadata::TaskSupport;
use crate::server::Server;
use crate::server::asker::{Asker, Seed};
use crate::server::call::Crashed;
use crate::server::call_link::CallLink;
use crate::server::catalog::Entry;
use crate::server::generation::Generation;
use crate::server::policy::access::Caller;
use crate::server::store::{StoreError, TaskRecord};
#[cfg(feature = "sessions")]
use crate::server::task::OnEnd;
use crate::server::task::{NotStarted, wire_task};
use rmcp::ErrorData;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientCapabilities, CreateTaskResult, ErrorCode,
    JsonObject, TASKS_EXTENSION_ID,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;

/// How a `tools/call` runs.
pub(in crate::server) enum Dispatch {
    /// As a task, started: the task's handle.
    Task(CallToolResponse),
    /// As a plain call, with the asker its retry opened already, if any.
    Plain(Option<Arc<Asker>>),
}

/// The server's way into its tasks: whether a call runs as one, and
/// starting it with the server's own way of running a tool.
impl Server {
    /// Starts the call as a task when the tool and the client allow it
    /// (`Dispatch::Task`), or says to run it as a plain call; an error for a
    /// task-only tool called by a client that cannot use tasks.
    pub(in crate::server) async fn maybe_run_as_task(
        &self,
        request: &CallToolRequestParams,
        entry: Option<Entry<'_>>,
        context: &RequestContext<RoleServer>,
    ) -> Result<Dispatch, ErrorData> {
        let Some(Entry::Tool(index, served)) = entry else {
            return Ok(Dispatch::Plain(None));
        };
        let support = served.task;
        if support == TaskSupport::Forbidden {
            return Ok(Dispatch::Plain(None));
        }
        // Asking first needs a client that can answer: for one that cannot,
        // the handler would run its whole work in the plain call.
        let asks_first = served.asks_first
            && !Generation::of(context).is_session()
            && crate::server::asker::client_can_answer(context);
        // A retry bringing answers to this server's input requests continues
        // the plain call that asked them (one that ran as such when the task
        // store was full): its state is checked and used there.
        if request.request_state.is_some() && support == TaskSupport::Optional && !asks_first {
            return Ok(Dispatch::Plain(None));
        }
        let client_can = context
            .client_capabilities()
            .is_some_and(|c| c.supports_tasks());
        if !client_can {
            if support == TaskSupport::Required {
                return Err(task_required(&request.name, context));
            }
            return Ok(Dispatch::Plain(None));
        }
        // A tool that asks before its task: a plain call until a retry
        // brings the answers, which the task then starts with.
        let asker = match (asks_first, &request.request_state) {
            (false, _) => None,
            (true, None) => return Ok(Dispatch::Plain(None)),
            (true, Some(_)) => Some(
                Asker::for_request(
                    &crate::server::attempt::Attempt::of_call(
                        request,
                        crate::server::policy::bound::values(&served.bound, context),
                    ),
                    context,
                    &self.inner.ask,
                    self.inner.stores.replay.as_ref(),
                )
                .await?,
            ),
        };
        let started = self
            .start_task(
                index,
                request.arguments.clone(),
                context,
                self.inner.tasks.ttl,
                asker.as_ref().map(|asker| asker.seed()),
            )
            .await;
        match started {
            Ok(record) => Ok(Dispatch::Task(CallToolResponse::Task(
                CreateTaskResult::new(wire_task(&record)),
            ))),
            // No room for another task: a tool that may run either way runs
            // as a plain call rather than fail, with the answers its retry
            // brought (their state is used already).
            Err(NotStarted::Store(StoreError::Full { .. })) if support == TaskSupport::Optional => {
                tracing::debug!(tool = %request.name, "the task store is full: a plain call");
                Ok(Dispatch::Plain(asker))
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Starts the tool at `index` as a task kept for `ttl`, owned by the
    /// caller. The record as created.
    pub(in crate::server) async fn start_task(
        &self,
        index: usize,
        arguments: Option<JsonObject>,
        context: &RequestContext<RoleServer>,
        ttl: Duration,
        seed: Option<Seed>,
    ) -> Result<TaskRecord, NotStarted> {
        let served = self.inner.catalog.tool(index);
        let caller = Caller::of(context);
        // As `route` does for a plain call: over HTTP the gate has already
        // answered 403.
        let missing = caller.missing(&served.scopes);
        if !missing.is_empty() {
            return Err(NotStarted::Refused(ErrorData::invalid_request(
                crate::server::policy::access::lacking(&served.tool.name, &missing),
                None,
            )));
        }
        let server = self.clone();
        // The call's SSE stream carries the task's handle, not its work: the
        // task cannot close it.
        #[cfg(all(feature = "http", feature = "sessions"))]
        let request = {
            let mut request = context.clone();
            request
                .extensions
                .remove::<crate::server::http::polling::PostStream>();
            Arc::new(request)
        };
        #[cfg(not(all(feature = "http", feature = "sessions")))]
        let request = Arc::new(context.clone());
        let args = arguments.unwrap_or_default();
        self.inner
            .tasks
            .start(
                &served.tool.name,
                caller.owner().as_deref(),
                caller.counted_as(),
                ttl,
                // Without sessions no client is told: each polls `tasks/get`.
                #[cfg(feature = "sessions")]
                told_of_end(context),
                move |cancel, progress, input| {
                    // The task outlives this request: its own cancellation,
                    // progress into the store rather than to a request that
                    // has ended, and questions through the task's record
                    // (through the session, on a 2025-11-25 one).
                    let mut asker = Asker::for_task(&request, input, &server.inner.ask);
                    if let Some(seed) = seed {
                        asker = asker.seeded(seed);
                    }
                    let link = CallLink {
                        cancel,
                        request,
                        asker: Arc::new(asker),
                        roots: server.roots.clone(),
                        log_level: server.log_level.clone(),
                        lacking: Arc::default(),
                        task: Some(progress),
                    };
                    Box::pin(async move {
                        server
                            .run_tool_or_crash(index, args, link)
                            .await
                            .map_err(Crashed::into_error)
                    })
                },
            )
            .await
            .map_err(NotStarted::Store)
    }
}

/// Who is told when a task started by `context` ends: a 2025-11-25
/// session's client (`notifications/tasks/status`). On 2026-07-28 a client
/// polls `tasks/get` (rmcp's `subscriptions/listen` carries no task status
/// yet).
#[cfg(feature = "sessions")]
fn told_of_end(context: &RequestContext<RoleServer>) -> Option<OnEnd> {
    if !Generation::of(context).is_session() {
        return None;
    }
    let peer = context.peer.clone();
    Some(Box::new(move |record: TaskRecord| {
        Box::pin(crate::server::compat::tasks_2025::tell_status(peer, record))
            as toolmetadata_core::BoxFuture<'static, ()>
    }))
}

/// The error for a task-only tool called as a plain call, in the words of the
/// caller's protocol generation.
fn task_required(tool: &str, context: &RequestContext<RoleServer>) -> ErrorData {
    if Generation::of(context).is_session() {
        // 2025-11-25's way: the client asks with `task` in the params
        // (`-32601`, as that version says for a required task called
        // without it).
        return ErrorData::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!(
                "the tool `{tool}` runs only as a task: call it with `\"task\": {{}}` in the tools/call params, \
                 or declare the tasks extension (`{TASKS_EXTENSION_ID}`)"
            ),
            None,
        );
    }
    ErrorData::new(
        ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
        format!(
            "the tool `{tool}` runs only as a task, and this client did not declare the tasks extension \
             (`{TASKS_EXTENSION_ID}` in its capabilities)"
        ),
        Some(json!({
            "requiredCapabilities": ClientCapabilities::builder().enable_tasks().build()
        })),
    )
}
