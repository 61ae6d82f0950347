//! Testing a server the way its clients use it, in this process (feature
//! `testing`).
//!
//! [`Client::connect`] serves a [`Server`] on an in-process pipe, through the
//! same transport as stdio (its line gate, its bounds, its compat layer), and
//! connects rmcp's client to it: what a test sees is what a client on stdio
//! sees, on either protocol generation ([`Protocol`]). The client calls tools
//! by name with [`json!`] arguments, plays the person who answers
//! confirmations and questions ([`Person`]) and keeps what was asked, drives
//! tasks ([`Task`]: progress, result, cancel), keeps the notifications the
//! server sends, and reads resources and prompts.
//!
//! ```
//! # async fn archive(server: &toolmetadata::server::Server) -> Result<(), toolmetadata::testing::Error> {
//! use toolmetadata::testing::{Client, Person, Reply, json};
//!
//! // A person who says yes to every question.
//! let client = Client::builder()
//!     .person(Person::replying(Reply::yes()))
//!     .connect(server)
//!     .await?;
//! let archived = client.call("archive_note", json!({"note": "buy milk"})).await?;
//! assert_eq!(archived.text(), "archived \"buy milk\"");
//! assert_eq!(client.asked()[0].message, "Archive the note \"buy milk\"?");
//! # Ok(())
//! # }
//! ```
//!
//! Every wait is bounded by the client's timeout ([`Builder::timeout`], 10
//! seconds unless set): a test that waits for something that never comes
//! fails with [`Error::Timeout`] rather than hanging.

mod called;
mod client_side;
mod connection;
mod error;
mod person;
mod task;

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use rmcp::RoleClient;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, GetPromptRequestParams, GetPromptResult,
    NumberOrString, ProgressToken, ReadResourceRequestParams, ReadResourceResult, Tool,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt};
use serde_json::{Map, Value};

use crate::server::Server;
use client_side::{ClientSide, Heard};
use connection::Connection;
use person::Answerer;

pub use called::Called;
pub use client_side::Notification;
pub use connection::Protocol;
pub use error::Error;
pub use person::{Asked, Person, Reply};
/// A task's status, as [`TaskState`] holds it.
pub use rmcp::model::TaskStatus;
/// `json!`, to write a call's arguments.
pub use serde_json::json;
pub use task::{Task, TaskState};

/// How a test client connects ([`Client::builder`]).
#[derive(Debug, Clone)]
pub struct Builder {
    protocol: Protocol,
    person: Option<Person>,
    tasks: bool,
    timeout: Duration,
}

impl Builder {
    /// Speak `protocol` (2025-11-25 unless set).
    pub fn protocol(mut self, protocol: Protocol) -> Self {
        self.protocol = protocol;
        self
    }

    /// Answer the server's questions as `person` does. Without one, the
    /// client declares no elicitation, and a `[confirm]` follows its
    /// `unsupported` setting.
    pub fn person(mut self, person: Person) -> Self {
        self.person = Some(person);
        self
    }

    /// On 2026-07-28, declare the Tasks extension: a tool whose `task` is
    /// `"optional"` then runs as a task ([`Client::call`] waits for it).
    /// (On 2025-11-25 a client asks for each task: [`Client::start`].)
    pub fn tasks(mut self) -> Self {
        self.tasks = true;
        self
    }

    /// The longest any one wait takes: the connection, an answer, a task's
    /// end, a notification (10 seconds unless set).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Serves a session of `server` in this process and connects to it.
    pub async fn connect(self, server: &Server) -> Result<Client, Error> {
        let (client_end, server_end) = tokio::io::duplex(PIPE_BYTES);
        let (server_read, server_write) = tokio::io::split(server_end);
        let session = server.for_session();
        let served = tokio::spawn(crate::server::stdio::serve_lines(
            session.clone(),
            Box::new(server_read),
            Box::new(server_write),
        ));
        let heard = Arc::new(Heard::default());
        let side = ClientSide {
            answerer: self.person.map(|person| Arc::new(Answerer::new(person))),
            heard: heard.clone(),
            tasks_extension: self.tasks && self.protocol == Protocol::V2026_07_28,
        };
        let answerer = side.answerer.clone();
        let lifecycle = match self.protocol {
            Protocol::V2025_11_25 => ClientLifecycleMode::Initialize,
            Protocol::V2026_07_28 => ClientLifecycleMode::Discover {
                preferred_versions: vec![rmcp::model::ProtocolVersion::V_2026_07_28],
            },
        };
        let connecting = side.serve_with_lifecycle(tokio::io::split(client_end), lifecycle);
        let service = match tokio::time::timeout(self.timeout, connecting).await {
            Ok(Ok(service)) => service,
            Ok(Err(e)) => return Err(Error::Connection(format!("cannot connect: {e}"))),
            Err(_) => {
                return Err(Error::Timeout {
                    waiting_for: "answer to the client's first request".to_owned(),
                    after: self.timeout,
                });
            }
        };
        Ok(Client {
            connection: Connection {
                service,
                answerer,
                protocol: self.protocol,
                timeout: self.timeout,
            },
            server: session,
            heard,
            listening: Listening::default(),
            served,
            progress_tokens: AtomicI64::new(1),
        })
    }
}

/// How much the in-process pipe holds each way, as a stdout pipe does.
const PIPE_BYTES: usize = 1 << 20;

/// How many `input_required` rounds one call may take: a server that asks
/// without end fails the test rather than looping.
const MAX_ROUNDS: usize = 16;

/// rmcp's client connected to a server in this process; see the [module
/// documentation](self).
pub struct Client {
    connection: Connection,
    /// The session's server (a clone shares its state): how many listen.
    #[cfg_attr(
        not(feature = "subscriptions"),
        expect(dead_code, reason = "only listening asks the server")
    )]
    server: Server,
    heard: Arc<Heard>,
    /// The 2026-07-28 subscription streams this client listens on.
    #[cfg_attr(
        not(feature = "subscriptions"),
        expect(
            dead_code,
            reason = "only resources and the tools' list are listened to"
        )
    )]
    listening: Listening,
    served: tokio::task::JoinHandle<Result<(), crate::server::ServerError>>,
    progress_tokens: AtomicI64,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("protocol", &self.connection.protocol)
            .finish_non_exhaustive()
    }
}

/// The tasks that forward subscription streams, stopped with their client.
#[derive(Default)]
struct Listening(std::sync::Mutex<Vec<tokio::task::JoinHandle<()>>>);

impl Drop for Listening {
    fn drop(&mut self) {
        for forwarding in person::lock(&self.0).drain(..) {
            forwarding.abort();
        }
    }
}

impl Client {
    /// How to connect: the protocol, the person, tasks, the timeout.
    pub fn builder() -> Builder {
        Builder {
            protocol: Protocol::default(),
            person: None,
            tasks: false,
            timeout: Duration::from_secs(10),
        }
    }

    /// Connects to `server` on 2025-11-25, with nobody to answer questions.
    pub async fn connect(server: &Server) -> Result<Client, Error> {
        Client::builder().connect(server).await
    }

    /// The protocol generation this client speaks.
    pub fn protocol(&self) -> Protocol {
        self.connection.protocol
    }

    /// Calls the tool `name` with `arguments` (a JSON object, or `null` for
    /// none) and returns its result, a tool error included
    /// ([`Called::is_error`]). Questions the server asks on the way are
    /// answered by the person; a call the server runs as a task is waited
    /// for. A progress token goes with the call, so the handler's
    /// progress arrives as `notifications/progress`.
    pub async fn call(&self, name: &str, arguments: Value) -> Result<Called, Error> {
        let mut params = self.call_params(name, arguments)?;
        self.connection
            .within(&format!("answer to tools/call {name}"), async {
                for _ in 0..MAX_ROUNDS {
                    let response = self
                        .connection
                        .service
                        .call_tool_once(params.clone())
                        .await
                        .map_err(Error::from_service)?;
                    match response {
                        CallToolResponse::Complete(result) => return Ok(Called(result)),
                        CallToolResponse::Task(created) => {
                            let task = Task {
                                connection: &self.connection,
                                id: created.task.task_id,
                            };
                            return Box::pin(task.result()).await;
                        }
                        CallToolResponse::InputRequired(asked) => {
                            let responses = self
                                .connection
                                .fulfil(asked.input_requests.unwrap_or_default())?;
                            params.input_responses = (!responses.is_empty()).then_some(responses);
                            params.request_state = asked.request_state;
                        }
                        other => {
                            return Err(Error::Connection(format!(
                                "not an answer to tools/call: {other:?}"
                            )));
                        }
                    }
                }
                Err(Error::Connection(format!(
                    "tools/call {name} still asked for input after {MAX_ROUNDS} rounds"
                )))
            })
            .await
    }

    /// Calls the tool `name` as a task and returns the task at once, to
    /// follow its progress, wait for its result or cancel it. The tool's
    /// `task` must be `"optional"` or `"required"`; on 2026-07-28 the
    /// client must declare tasks ([`Builder::tasks`]).
    pub async fn start(&self, name: &str, arguments: Value) -> Result<Task<'_>, Error> {
        let params = self.call_params(name, arguments)?;
        let id = match self.connection.protocol {
            Protocol::V2025_11_25 => {
                let mut request =
                    serde_json::to_value(&params).map_err(|e| Error::Connection(e.to_string()))?;
                request["task"] = json!({"ttl": 600_000});
                let answer = self.connection.custom("tools/call", request).await?;
                answer["task"]["taskId"]
                    .as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| {
                        Error::Connection(format!("tools/call {name} made no task: {answer}"))
                    })?
            }
            Protocol::V2026_07_28 => {
                let response = self
                    .connection
                    .within(&format!("answer to tools/call {name}"), async {
                        self.connection
                            .service
                            .call_tool_once(params)
                            .await
                            .map_err(Error::from_service)
                    })
                    .await?;
                match response {
                    CallToolResponse::Task(created) => created.task.task_id,
                    other => {
                        return Err(Error::Connection(format!(
                            "tools/call {name} made no task (does the client declare tasks?): {other:?}"
                        )));
                    }
                }
            }
        };
        Ok(Task {
            connection: &self.connection,
            id,
        })
    }

    /// The tools `tools/list` shows this client, every page.
    pub async fn list_tools(&self) -> Result<Vec<Tool>, Error> {
        self.connection
            .within("answer to tools/list", async {
                self.connection
                    .service
                    .list_all_tools()
                    .await
                    .map_err(Error::from_service)
            })
            .await
    }

    /// Reads the resource at `uri` (`resources/read`).
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, Error> {
        self.connection
            .within(&format!("answer to resources/read {uri}"), async {
                self.connection
                    .service
                    .read_resource(ReadResourceRequestParams::new(uri))
                    .await
                    .map_err(Error::from_service)
            })
            .await
    }

    /// Gets the prompt `name` with `arguments` (an object of strings, or
    /// `null`) (`prompts/get`).
    pub async fn get_prompt(&self, name: &str, arguments: Value) -> Result<GetPromptResult, Error> {
        let mut params = GetPromptRequestParams::new(name.to_owned());
        if let Some(arguments) = object(arguments, "prompt arguments")? {
            params = params.with_arguments(arguments);
        }
        self.connection
            .within(&format!("answer to prompts/get {name}"), async {
                self.connection
                    .service
                    .get_prompt(params)
                    .await
                    .map_err(Error::from_service)
            })
            .await
    }

    /// Subscribes to changes of the resource at `uri`: `resources/subscribe`
    /// on 2025-11-25, a `subscriptions/listen` stream on 2026-07-28. Each
    /// change arrives as a `notifications/resources/updated`
    /// ([`Client::notified`]).
    #[cfg(feature = "resources")]
    pub async fn subscribe(&self, uri: &str) -> Result<(), Error> {
        match self.connection.protocol {
            Protocol::V2025_11_25 => {
                self.connection
                    .within(&format!("answer to resources/subscribe {uri}"), async {
                        #[expect(deprecated, reason = "2025-11-25's way, which this speaks")]
                        self.connection
                            .service
                            .subscribe(rmcp::model::SubscribeRequestParams::new(uri))
                            .await
                            .map_err(Error::from_service)
                    })
                    .await
            }
            Protocol::V2026_07_28 => {
                let mut filter = rmcp::model::SubscriptionFilter::new();
                filter.resource_subscriptions = Some(vec![uri.to_owned()]);
                self.listen(filter, uri, || self.server.watchers(uri)).await
            }
        }
    }

    /// Listens for changes of the tools' list, of a server built with
    /// `changing_tools`: a 2025-11-25 session hears them from its start
    /// (this waits until the server counts it), a 2026-07-28 client opens a
    /// `subscriptions/listen` stream with `toolsListChanged`. Each change
    /// arrives as a `notifications/tools/list_changed`
    /// ([`Client::notified`]). With the feature `subscriptions`.
    #[cfg(feature = "subscriptions")]
    pub async fn watch_tool_list(&self) -> Result<(), Error> {
        match self.connection.protocol {
            #[cfg(feature = "sessions")]
            Protocol::V2025_11_25 => {
                self.connection
                    .within("the session to hear of the tools' list", async {
                        while !self.server.hears_tool_list() {
                            tokio::time::sleep(Duration::from_millis(5)).await;
                        }
                        Ok(())
                    })
                    .await
            }
            // No such client connects to a server without sessions.
            #[cfg(not(feature = "sessions"))]
            Protocol::V2025_11_25 => Err(Error::Connection(
                "the server was built without the feature `sessions`: it has no session to tell"
                    .into(),
            )),
            Protocol::V2026_07_28 => {
                let filter = rmcp::model::SubscriptionFilter::builder()
                    .tools_list_changed()
                    .build();
                self.listen(filter, "the tools' list", || {
                    self.server.tool_list_watchers()
                })
                .await
            }
        }
    }

    /// A `subscriptions/listen` stream of `filter` (for `what`), its
    /// notifications kept, once the server counts it among `watching`.
    #[cfg(feature = "subscriptions")]
    async fn listen(
        &self,
        filter: rmcp::model::SubscriptionFilter,
        what: &str,
        watching: impl Fn() -> usize,
    ) -> Result<(), Error> {
        let before = watching();
        let mut stream = self
            .connection
            .within(&format!("answer to subscriptions/listen {what}"), async {
                self.connection
                    .service
                    .listen(filter)
                    .await
                    .map_err(Error::from_service)
            })
            .await?;
        let heard = self.heard.clone();
        let forwarding = tokio::spawn(async move {
            while let Ok(Some(notification)) = stream.next().await {
                heard.keep_typed(&notification);
            }
        });
        person::lock(&self.listening.0).push(forwarding);
        // rmcp acknowledged before the server's side watches: wait until
        // it does, so that a change made next is heard.
        self.connection
            .within(&format!("watch of {what} to start"), async {
                while watching() <= before {
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
                Ok(())
            })
            .await
    }

    /// The questions the server asked, in order.
    pub fn asked(&self) -> Vec<Asked> {
        self.connection
            .answerer
            .as_ref()
            .map(|answerer| answerer.asked())
            .unwrap_or_default()
    }

    /// The notifications the server sent, in order: progress, log messages
    /// (`notifications/message`), resource updates, list changes…
    pub fn notifications(&self) -> Vec<Notification> {
        self.heard.all()
    }

    /// The first notification of `method`, waiting for it (bounded by the
    /// client's timeout) if none came yet.
    pub async fn notified(&self, method: &str) -> Result<Notification, Error> {
        self.heard
            .first(method, self.connection.timeout)
            .await
            .ok_or_else(|| Error::Timeout {
                waiting_for: method.to_owned(),
                after: self.connection.timeout,
            })
    }

    /// rmcp's client, for any request this API does not cover.
    pub fn rmcp(&self) -> &rmcp::service::Peer<RoleClient> {
        self.connection.service.peer()
    }

    /// Closes the connection and waits (bounded) for the server's session
    /// to end; what it ended with.
    pub async fn close(self) -> Result<(), Error> {
        let timeout = self.connection.timeout;
        let Client {
            connection, served, ..
        } = self;
        let _ = connection.service.cancel().await;
        match tokio::time::timeout(timeout, served).await {
            Ok(Ok(Ok(()))) => Ok(()),
            Ok(Ok(Err(e))) => Err(Error::Connection(format!("the server failed: {e}"))),
            Ok(Err(e)) => Err(Error::Connection(format!("the server panicked: {e}"))),
            Err(_) => Err(Error::Timeout {
                waiting_for: "end of the server's session".to_owned(),
                after: timeout,
            }),
        }
    }

    fn call_params(&self, name: &str, arguments: Value) -> Result<CallToolRequestParams, Error> {
        let mut params = CallToolRequestParams::new(name.to_owned());
        if let Some(arguments) = object(arguments, "tool arguments")? {
            params = params.with_arguments(arguments);
        }
        let token = self.progress_tokens.fetch_add(1, Ordering::Relaxed);
        let mut meta = rmcp::model::RequestMetaObject::new();
        meta.set_progress_token(ProgressToken(NumberOrString::Number(token)));
        params.meta = Some(meta);
        Ok(params)
    }
}

/// `value` as the object of a request's arguments: `None` for `null`.
fn object(value: Value, what: &str) -> Result<Option<Map<String, Value>>, Error> {
    match value {
        Value::Null => Ok(None),
        Value::Object(map) => Ok(Some(map)),
        other => Err(Error::Connection(format!(
            "{what} must be a JSON object, not {other}"
        ))),
    }
}
