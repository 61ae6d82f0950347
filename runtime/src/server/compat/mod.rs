//! What rmcp 3.11 cannot say, filled in at one seam.
//!
//! The server is an rmcp `ServerHandler` like any other; what rmcp's types
//! cannot carry is put in and taken out here, on typed messages, by one
//! transport wrapper ([`Transport`]) that stdio and every HTTP session use,
//! and, for the one place rmcp gives no transport to wrap (a stateless
//! 2026-07-28 HTTP request), by the HTTP layer (`http`). Nothing here
//! rewrites a request's bytes: the transports only *read* what rmcp's parsing
//! drops (`server::stdio`'s `LineGate`, and the HTTP layer's one look at each body)
//! and hand it on beside the message.
//!
//! The gaps, each with where it comes from and when its workaround can go:
//!
//! 1. **`execution` in `tools/list` entries** (`list`). rmcp's `Tool` has no
//!    field for it since rust-sdk commit 3e5ef309 (2025-11-25's task flow
//!    dropped for the Tasks extension), so an entry parsed into a `Tool`
//!    loses it. Remove when `rmcp::model::Tool` holds `execution` (or keeps
//!    unknown keys).
//! 2. **Tasks the 2025-11-25 way** (SEP-1686; `tasks_2025`, and
//!    `task_params` for the `task` param read beside rmcp). The same commit
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
//! 4. **Sessions that are never closed** (`http::sessions`): rmcp's
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
//! 6. **Asking without rmcp's `elicitation` feature** (`asker::elicit`): that
//!    feature compiles `url` and the ICU crates into every server for URL
//!    elicitation, which nothing here uses, so `elicitation/create` is sent
//!    as a plain request. Remove when the feature no longer brings them to a
//!    server that only asks forms.
//! 7. **A handler closing its SSE stream** (`http::polling`, SEP-1699): rmcp's
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
//!    answers at most 128 requests at once (and 32 `ping`s and
//!    `tasks/cancel`s beyond them), refuses the others at once with an
//!    error naming the bound, and stops reading only while 64 refusals
//!    wait to be written. Remove when rmcp bounds them.
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
pub(super) mod line_notes;
mod list;
#[cfg(all(feature = "tasks", feature = "sessions"))]
pub(super) mod task_params;
#[cfg(all(feature = "tasks", feature = "sessions"))]
pub(super) mod tasks_2025;
mod transport;

#[cfg(all(feature = "tasks", feature = "sessions"))]
pub(super) use line_notes::SeenTasks;
pub(super) use line_notes::{LineNotes, Refusals};
pub(super) use list::ListExtras;
#[cfg(all(feature = "tasks", feature = "sessions"))]
pub(crate) use tasks_2025::is_request as is_2025_task_request;
pub(super) use transport::Compat;
#[cfg(all(feature = "http", feature = "sessions"))]
pub(super) use transport::Transport;
