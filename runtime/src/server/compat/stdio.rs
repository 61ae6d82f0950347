//! The stdio transport: rmcp's own line transport inside `compat`'s, and a
//! [`TaskReader`] that reads the `task` param of each `tools/call` line as
//! it passes to rmcp (gap 2; the line itself passes as it is).

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use rmcp::ServiceExt;
use rmcp::model::RequestId;
use rmcp::transport::async_rw::AsyncRwTransport;
use serde_json::Value;
use tokio::io::{AsyncRead, ReadBuf};

use super::Compat;
use crate::server::{ServerError, Serves};

/// The longest line [`TaskReader`] looks at: rmcp's own limit for a line
/// (it drops longer ones), so every line rmcp reads is seen here.
const MAX_LINE: usize = rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH;

/// How many `task` params wait for their request at most. rmcp takes each
/// `tools/call` it parses from here at once; only calls it could not parse
/// leave theirs behind, and the oldest of those go first.
const MAX_WAITING: usize = 256;

/// Serves `server` on stdin/stdout until the client closes stdin.
pub(in crate::server) async fn serve_stdio<S: Serves>(server: S) -> Result<(), ServerError> {
    let (stdin, stdout) = rmcp::transport::stdio();
    let compat = Compat::of(server.tools());
    let seen = compat.tasks.then(|| Arc::new(SeenTasks::default()));
    let lines = AsyncRwTransport::new_server(TaskReader::new(stdin, seen.clone()), stdout);
    let transport = compat.transport(lines, seen);
    let running = match server.serve(transport).await {
        Ok(running) => running,
        // The client went away before saying anything: nothing to serve.
        Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => {
            tracing::info!("stdin closed before the client initialized");
            return Ok(());
        }
        Err(e) => return Err(ServerError::new(format!("cannot start on stdio: {e}"))),
    };
    running
        .waiting()
        .await
        .map_err(|e| ServerError::new(format!("stdio server failed: {e}")))?;
    Ok(())
}

/// The `task` params read from `tools/call` lines, by request id, until the
/// request is handled.
#[derive(Debug, Default)]
pub(in crate::server) struct SeenTasks {
    waiting: Mutex<VecDeque<(RequestId, Value)>>,
}

impl SeenTasks {
    fn waiting(&self) -> std::sync::MutexGuard<'_, VecDeque<(RequestId, Value)>> {
        // Each change is one push or drain: a poisoned queue is consistent.
        self.waiting.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn record(&self, id: RequestId, task: Value) {
        let mut waiting = self.waiting();
        if waiting.len() >= MAX_WAITING {
            waiting.pop_front();
        }
        waiting.push_back((id, task));
    }

    /// The `task` param of the request `id`, taken. rmcp hands on the lines
    /// in order, so what was noted before `id` belongs to lines it did not
    /// take as a `tools/call` (invalid params, say): dropped with it, so
    /// that no later request reusing such an id gets that `task`.
    pub(super) fn take(&self, id: &RequestId) -> Option<Value> {
        let mut waiting = self.waiting();
        let at = waiting.iter().position(|(seen, _)| seen == id)?;
        waiting.drain(..=at).next_back().map(|(_, task)| task)
    }
}

/// The parts of a line that say whether it is a `tools/call` with `task`.
#[derive(serde::Deserialize)]
struct Peek {
    /// As rmcp reads it (`1.0` is the id 1).
    id: RequestId,
    #[serde(default)]
    method: Option<String>,
    #[serde(default)]
    params: Option<PeekParams>,
}

#[derive(serde::Deserialize)]
struct PeekParams {
    #[serde(default)]
    task: Option<Value>,
}

/// The request id and `task` param of a `tools/call` line that has one.
fn task_of(line: &[u8]) -> Option<(RequestId, Value)> {
    // Most lines are no task call: no parse for them.
    if !line.windows(6).any(|w| w == b"\"task\"") {
        return None;
    }
    let peek: Peek = serde_json::from_slice(line).ok()?;
    if peek.method.as_deref() != Some("tools/call") {
        return None;
    }
    let task = peek.params?.task.filter(|t| !t.is_null())?;
    Some((peek.id, task))
}

/// stdin as rmcp reads it, with the `task` param of each `tools/call` line
/// noted in [`SeenTasks`] as the line goes by. Without a table (a server
/// with no task tool) it is stdin as it is.
pub(in crate::server) struct TaskReader<R> {
    inner: R,
    seen: Option<Arc<SeenTasks>>,
    /// The line read so far.
    line: Vec<u8>,
    /// Inside a line longer than [`MAX_LINE`]: not kept.
    oversized: bool,
}

impl<R> TaskReader<R> {
    fn new(inner: R, seen: Option<Arc<SeenTasks>>) -> Self {
        TaskReader {
            inner,
            seen,
            line: Vec::new(),
            oversized: false,
        }
    }

    /// At the end of the input: the last line, which rmcp reads even
    /// without its newline.
    fn note_last(&mut self, seen: &SeenTasks) {
        if !self.oversized
            && let Some((id, task)) = task_of(&self.line)
        {
            seen.record(id, task);
        }
        self.line.clear();
    }

    /// Notes the bytes just read, line by line.
    fn note(&mut self, mut bytes: &[u8], seen: &SeenTasks) {
        while !bytes.is_empty() {
            let newline = bytes.iter().position(|&b| b == b'\n');
            let piece = &bytes[..newline.map_or(bytes.len(), |i| i + 1)];
            if !self.oversized {
                if self.line.len() + piece.len() > MAX_LINE {
                    self.line = Vec::new();
                    self.oversized = true;
                } else {
                    self.line.extend_from_slice(piece);
                }
            }
            if newline.is_some() {
                if !self.oversized
                    && let Some((id, task)) = task_of(&self.line)
                {
                    seen.record(id, task);
                }
                if self.line.capacity() > 1024 * 1024 {
                    // One large message does not keep its buffer for the session.
                    self.line = Vec::new();
                }
                self.line.clear();
                self.oversized = false;
            }
            bytes = &bytes[piece.len()..];
        }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for TaskReader<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let polled = Pin::new(&mut this.inner).poll_read(cx, buf);
        if let (Poll::Ready(Ok(())), Some(seen)) = (&polled, this.seen.clone()) {
            let read = &buf.filled()[before..];
            if read.is_empty() && buf.remaining() > 0 {
                this.note_last(&seen);
            } else {
                this.note(read, &seen);
            }
        }
        polled
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// Reads `input` through a `TaskReader`, `chunk` bytes at a time; what
    /// came out and what was noted.
    async fn read_through(input: &str, chunk: usize) -> (String, Arc<SeenTasks>) {
        let seen = Arc::new(SeenTasks::default());
        let (mut writer, reader) = tokio::io::duplex(chunk);
        let input = input.to_owned();
        let feed = tokio::spawn(async move {
            writer.write_all(input.as_bytes()).await.expect("write");
        });
        let mut out = String::new();
        TaskReader::new(reader, Some(seen.clone()))
            .read_to_string(&mut out)
            .await
            .expect("read");
        feed.await.expect("fed");
        (out, seen)
    }

    #[tokio::test]
    async fn task_params_are_noted_and_every_byte_passes_as_it_is() {
        let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "job", "arguments": {"n": 1}, "task": {"ttl": 5000}}});
        let named_task = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "task", "arguments": {"task": 1}}});
        let null_task = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "job", "task": null}});
        let get = json!({"jsonrpc": "2.0", "id": 4, "method": "tasks/get",
            "params": {"taskId": "t", "task": {}}});
        // An id in float form is the integer rmcp reads; the last line may
        // lack its newline.
        let float_id = r#"{"jsonrpc":"2.0","id":5.0,"method":"tools/call","params":{"name":"job","task":{"ttl":1}}}"#;
        let last = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
            "params": {"name": "job", "task": {}}});
        let input =
            format!("{call}\r\n{named_task}\n{{not json\n{null_task}\n{get}\n{float_id}\n{last}");
        for chunk in [3, 7, 4096] {
            let (out, seen) = read_through(&input, chunk).await;
            assert_eq!(out, input);
            assert_eq!(
                seen.take(&RequestId::Number(1)),
                Some(json!({"ttl": 5000})),
                "{chunk}"
            );
            assert_eq!(seen.take(&RequestId::Number(1)), None, "taken once");
            for id in [2, 3, 4] {
                assert_eq!(seen.take(&RequestId::Number(id)), None, "{id}");
            }
            assert_eq!(
                seen.take(&RequestId::Number(5)),
                Some(json!({"ttl": 1})),
                "{chunk}"
            );
            assert_eq!(seen.take(&RequestId::Number(9)), Some(json!({})), "{chunk}");
        }
    }

    #[tokio::test]
    async fn an_over_long_line_is_passed_on_unread_and_the_next_is_read_again() {
        let call = json!({"jsonrpc": "2.0", "id": "a", "method": "tools/call",
            "params": {"name": "job", "task": {}}});
        let long = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":\"b\",\"method\":\"tools/call\",\"params\":{{\"name\":\"job\",\"task\":{{}},\"pad\":\"{}\"}}}}",
            " ".repeat(MAX_LINE)
        );
        let input = format!("{long}\n{call}\n");
        let (out, seen) = read_through(&input, 64 * 1024).await;
        assert_eq!(out.len(), input.len());
        assert_eq!(seen.take(&RequestId::String("b".into())), None);
        assert_eq!(seen.take(&RequestId::String("a".into())), Some(json!({})));
    }

    #[test]
    fn the_table_keeps_the_newest_params() {
        let seen = SeenTasks::default();
        for id in 0..MAX_WAITING + 10 {
            seen.record(RequestId::Number(id as i64), json!({}));
        }
        assert_eq!(seen.take(&RequestId::Number(0)), None);
        assert_eq!(seen.take(&RequestId::Number(20)), Some(json!({})));
        // Taking 20 dropped what came before it; what came after stays.
        assert_eq!(seen.take(&RequestId::Number(15)), None);
        assert_eq!(
            seen.take(&RequestId::Number((MAX_WAITING + 9) as i64)),
            Some(json!({}))
        );
    }
}
