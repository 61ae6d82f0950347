//! Running one call: the tool found by name, its handler run in a task of its
//! own (so a panic or a cancellation ends that call only), the outcome turned
//! into a `CallToolResult`. The handler's way back to the client is
//! `call_link`.

use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock, ResourceContents};
use serde_json::{Map, Value};

use super::Server;
use super::call_link::CallLink;
use crate::metadata::FailureClass;
use crate::{CallOutcome, Content, Context, ToolOutput};

impl Server {
    /// Runs the tool at `index` in a task of its own, ended when the client
    /// cancels the call, within the tool's `[limits]`. A handler that
    /// panicked is an `isError` result naming a correlation id.
    pub(super) async fn run_tool(
        &self,
        index: usize,
        args: Map<String, Value>,
        link: CallLink,
    ) -> CallToolResult {
        self.run_tool_or_crash(index, args, link)
            .await
            .unwrap_or_else(Crashed::into_result)
    }

    /// As [`run_tool`](Self::run_tool), with a handler that panicked (or
    /// was stopped from outside) told apart from one that answered: a task
    /// reports it as failed rather than completed.
    pub(super) async fn run_tool_or_crash(
        &self,
        index: usize,
        args: Map<String, Value>,
        mut link: CallLink,
    ) -> Result<CallToolResult, Crashed> {
        let served = self.inner.catalog.tool(index);
        let name = served.tool.name.to_string();
        let mut args = args;
        if let Err(refusal) =
            super::policy::bound::fill(&name, &served.bound, &mut args, Some(&link.request))
        {
            tracing::info!(tool = %name, refusal = ?refusal, "call refused");
            return Ok(error(refusal));
        }
        #[cfg(feature = "limits")]
        let admission = match &served.limits {
            Some(limiter) => {
                let caller = super::policy::access::Caller::of(&link.request);
                let key = caller
                    .counted_as()
                    .or_else(|| caller.owner())
                    .unwrap_or_else(|| "local".to_owned());
                match limiter
                    .admit(&name, &key, self.inner.stores.limits.as_ref())
                    .await
                {
                    Ok(admission) => Some(admission),
                    Err(refusal) => return Ok(refused(&refusal)),
                }
            }
            None => None,
        };
        let cancel = link.cancel.clone();
        // The handler's own token, so that a timeout cancels the call alone.
        let stop = cancel.child_token();
        link.cancel = stop.clone();
        let cx = Context::connected(&name, Arc::new(link), served.confirm.clone());
        let call = (served.handler)(args, cx);
        // The admission (a concurrency permit) is the task's: it is given
        // back when the handler has really stopped, not when the answer left.
        // In the request's span: the handler's own events and spans are
        // part of the client's trace.
        #[cfg(feature = "limits")]
        let call = async move {
            let _held = admission;
            call.await
        };
        let mut task = tokio::spawn(tracing::Instrument::in_current_span(call));
        let abort = task.abort_handle();
        let timeout = served.timeout();
        let expired = async {
            match timeout {
                Some(after) => tokio::time::sleep(after).await,
                None => std::future::pending().await,
            }
        };
        let joined = tokio::select! {
            joined = &mut task => joined,
            () = cancel.cancelled() => {
                abort.abort();
                // Per request, so below INFO: a busy server would log little else.
                tracing::debug!(tool = %name, "call cancelled by the client");
                return Ok(error(format!("the call of `{name}` was cancelled")));
            }
            () = expired => {
                // The handler sees its Context cancelled, and has a moment
                // to stop on its own before it is stopped.
                stop.cancel();
                match tokio::time::timeout(TIMEOUT_GRACE, &mut task).await {
                    // It finished after all: its effect happened, so its
                    // answer is the call's.
                    Ok(Ok(outcome @ (CallOutcome::Output(_) | CallOutcome::Failed(_)))) => {
                        return self.answer(&name, Ok(outcome));
                    }
                    Ok(_) => {}
                    Err(_) => abort.abort(),
                }
                let after = timeout.unwrap_or_default();
                let mut meta = limit_meta("timeout", None);
                // Retrying repeats whatever the call did before it was
                // stopped: only an idempotent tool says that is safe.
                let idempotent = served
                    .tool
                    .annotations
                    .as_ref()
                    .and_then(|a| a.idempotent_hint)
                    .unwrap_or(false);
                let id = tool_failure(&mut meta, FailureClass::Reliability, "timeout", idempotent);
                tracing::info!(tool = %name, correlation_id = %id, "call timed out after {after:?}");
                let mut result = error(format!(
                    "the call of `{name}` timed out after {}, its limit",
                    shown_duration(after)
                ));
                result.meta = Some(meta);
                return Ok(result);
            }
        };
        let joined = match joined {
            Ok(CallOutcome::InvalidArguments(errors)) if !served.bound.is_empty() => {
                Ok(CallOutcome::InvalidArguments(
                    super::policy::bound::redacted(errors, &served.bound),
                ))
            }
            other => other,
        };
        self.answer(&name, joined)
    }

    /// The result of a call of `name` that ended with `joined`.
    fn answer(
        &self,
        name: &str,
        joined: Result<CallOutcome, tokio::task::JoinError>,
    ) -> Result<CallToolResult, Crashed> {
        Ok(match joined {
            Ok(CallOutcome::Output(output)) => to_result(output),
            Ok(CallOutcome::InvalidArguments(errors)) => error(errors.to_string()),
            Ok(CallOutcome::Failed(failure)) => match failure.failure() {
                None => error(failure.message()),
                Some(declared) => {
                    let mut meta = rmcp::model::MetaObject::new();
                    let id = tool_failure(
                        &mut meta,
                        declared.class,
                        &declared.code,
                        declared.retryable,
                    );
                    tracing::warn!(
                        tool = %name,
                        code = %declared.code,
                        correlation_id = %id,
                        message = ?failure.message(),
                        "call failed"
                    );
                    let mut result = error(failure.message());
                    result.meta = Some(meta);
                    result
                }
            },
            Err(e) => {
                let why = if e.is_panic() {
                    "panicked"
                } else {
                    "was stopped"
                };
                let mut meta = rmcp::model::MetaObject::new();
                let id = tool_failure(
                    &mut meta,
                    FailureClass::Reliability,
                    "internal_error",
                    false,
                );
                tracing::error!(tool = %name, correlation_id = %id, "the handler {why}: {e}");
                return Err(Crashed {
                    message: format!(
                        "the tool `{name}` failed: internal error (correlation id {id})"
                    ),
                    meta,
                });
            }
        })
    }
}

/// A handler that panicked or was stopped from outside: its call has no
/// result of its own, only the message and `_meta` (the correlation id)
/// that say so.
pub(super) struct Crashed {
    message: String,
    meta: rmcp::model::MetaObject,
}

impl Crashed {
    /// As a plain call answers it: an `isError` result.
    pub(super) fn into_result(self) -> CallToolResult {
        let mut result = error(self.message);
        result.meta = Some(self.meta);
        result
    }

    /// As a task reports it: a JSON-RPC internal error (`{code, message,
    /// data}`), the failure's `_meta` as its data.
    #[cfg(feature = "tasks")]
    pub(super) fn into_error(self) -> Value {
        serde_json::json!({
            "code": rmcp::model::ErrorCode::INTERNAL_ERROR.0,
            "message": self.message,
            "data": self.meta,
        })
    }
}

/// How long a timed-out handler has to stop on its own once its `Context`
/// is cancelled.
const TIMEOUT_GRACE: std::time::Duration = std::time::Duration::from_secs(1);

/// The `_meta` of a result a limit ended: which limit, and when to retry.
fn limit_meta(limit: &str, retry_after: Option<std::time::Duration>) -> rmcp::model::MetaObject {
    let mut detail = serde_json::json!({"limit": limit});
    if let Some(after) = retry_after {
        detail["retryAfterMs"] =
            serde_json::json!(u64::try_from(after.as_millis()).unwrap_or(u64::MAX));
    }
    let mut meta = rmcp::model::MetaObject::new();
    meta.0.insert(LIMIT_META.to_owned(), detail);
    meta
}

/// Where a result says which `[limits]` ended or refused the call.
pub(crate) const LIMIT_META: &str = "io.toolmetadata/limit";

/// A call a limit refused: its error, with the limit and when to retry.
#[cfg(feature = "limits")]
fn refused(refusal: &super::policy::limits::Refusal) -> CallToolResult {
    let mut meta = limit_meta(refusal.limit, Some(refusal.retry_after));
    let (class, code) = match refusal.limit {
        "rate" => (FailureClass::Governance, "rate_limited"),
        _ => (FailureClass::Reliability, "busy"),
    };
    let id = tool_failure(&mut meta, class, code, true);
    tracing::info!(
        limit = refusal.limit,
        correlation_id = %id,
        message = ?refusal.message,
        "call refused"
    );
    let mut result = error(refusal.message.clone());
    result.meta = Some(meta);
    result
}

/// Where a result says how the call failed, for clients to act on: the
/// shape of SEP-3313's `ToolFailure` (a draft, so the key may change).
pub(crate) const TOOL_FAILURE_META: &str = "io.modelcontextprotocol/toolFailure";

/// Puts the failure into `meta` with a fresh correlation id, which it
/// returns for the log line that goes with it.
fn tool_failure(
    meta: &mut rmcp::model::MetaObject,
    class: FailureClass,
    code: &str,
    retryable: bool,
) -> String {
    let id = uuid::Uuid::new_v4().to_string();
    meta.0.insert(
        TOOL_FAILURE_META.to_owned(),
        serde_json::json!({
            "class": class.as_str(),
            "code": code,
            "retryable": retryable,
            "correlationId": id,
        }),
    );
    id
}

/// `5 s`, `500 ms`, `2 min`.
fn shown_duration(d: std::time::Duration) -> String {
    let ms = d.as_millis();
    if ms.is_multiple_of(60_000) && ms >= 60_000 {
        format!("{} min", ms / 60_000)
    } else if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else {
        format!("{ms} ms")
    }
}

/// An error result (`isError: true`) with one text block.
pub(super) fn error(text: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(text.into())])
}

fn to_result(output: ToolOutput) -> CallToolResult {
    let blocks = output
        .blocks()
        .iter()
        .map(|c| match c {
            Content::Text(t) => ContentBlock::text(t.clone()),
            Content::Image { data, mime_type } => {
                ContentBlock::image(data.clone(), mime_type.clone())
            }
            Content::Audio { data, mime_type } => {
                ContentBlock::audio(data.clone(), mime_type.clone())
            }
            Content::Document {
                uri,
                mime_type,
                text,
            } => ContentBlock::resource(ResourceContents::TextResourceContents {
                uri: uri.clone(),
                mime_type: mime_type.clone(),
                text: text.clone(),
                meta: None,
            }),
            Content::Blob {
                uri,
                mime_type,
                data,
            } => {
                let blob = ResourceContents::blob(data.clone(), uri.clone());
                ContentBlock::resource(match mime_type {
                    Some(m) => blob.with_mime_type(m.clone()),
                    None => blob,
                })
            }
            // The runtime pins toolmetadata-core's exact version, so every
            // kind it has is one of the above; a newer one would be text.
            other => ContentBlock::text(format!("{other:?}")),
        })
        .collect();
    let mut result = CallToolResult::success(blocks);
    result.structured_content = output.structured_content().cloned();
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each kind of content becomes the rmcp block a client expects, as JSON
    /// on the wire.
    #[test]
    fn every_content_kind_renders_to_its_block() {
        let output = ToolOutput::content(vec![
            Content::Text("hi".into()),
            Content::Image {
                data: "aW1n".into(),
                mime_type: "image/png".into(),
            },
            Content::Audio {
                data: "c25k".into(),
                mime_type: "audio/wav".into(),
            },
            Content::Document {
                uri: "test://doc".into(),
                mime_type: Some("text/plain".into()),
                text: "a document".into(),
            },
            Content::Blob {
                uri: "file:///x.bin".into(),
                mime_type: Some("application/octet-stream".into()),
                data: "AAE=".into(),
            },
            Content::Blob {
                uri: "file:///y".into(),
                mime_type: None,
                data: "AA==".into(),
            },
        ]);
        let wire = serde_json::to_value(to_result(output)).expect("serializes");
        assert_eq!(
            wire["content"],
            serde_json::json!([
                {"type": "text", "text": "hi"},
                {"type": "image", "data": "aW1n", "mimeType": "image/png"},
                {"type": "audio", "data": "c25k", "mimeType": "audio/wav"},
                {"type": "resource", "resource": {"uri": "test://doc", "mimeType": "text/plain", "text": "a document"}},
                {"type": "resource", "resource": {"uri": "file:///x.bin", "mimeType": "application/octet-stream", "blob": "AAE="}},
                {"type": "resource", "resource": {"uri": "file:///y", "blob": "AA=="}}
            ])
        );
    }
}
