//! The stdio transport: rmcp's own line transport inside `compat`'s, fed by
//! a [`LineGate`] that holds each line until it is whole and then either
//! hands it to rmcp as it is, noting the `task` param of a `tools/call` on
//! the way (gap 2), or refuses it: a line longer than rmcp reads, or one
//! that would cost too much to parse (`parse_budget`), never reaches rmcp's
//! parser, and its sender gets a JSON-RPC error rather than silence.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, ready};

use rmcp::ServiceExt;
use rmcp::model::{ErrorData, RequestId, ServerJsonRpcMessage};
use rmcp::transport::async_rw::AsyncRwTransport;
use serde_json::Value;
use tokio::io::{AsyncRead, ReadBuf};

use super::Compat;
use crate::server::parse_budget::{self, ValueCount};
use crate::server::{ServerError, Serves};

/// The longest line handed on: rmcp's own limit for a line (it drops longer
/// ones without a word), so that each one it would drop is answered here.
const MAX_LINE: usize = rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH;

/// How much of a refused line is kept, for its request id.
const HEAD: usize = 4096;

/// How many `task` params (or refusals) wait at most. rmcp takes each
/// `tools/call` it parses from here at once; only calls it could not parse
/// leave theirs behind, and the oldest of those go first.
const MAX_WAITING: usize = 256;

/// How much is read from stdin at once.
const CHUNK: usize = 64 * 1024;

/// Serves `server` on stdin/stdout until the client closes stdin.
pub(in crate::server) async fn serve_stdio<S: Serves>(server: S) -> Result<(), ServerError> {
    let (stdin, stdout) = (super::std_streams::stdin(), super::std_streams::stdout());
    let compat = Compat::of(server.tools());
    let notes = Arc::new(LineNotes {
        tasks: compat.tasks.then(SeenTasks::default),
        refused: Refusals::default(),
    });
    let lines = AsyncRwTransport::new_server(LineGate::new(stdin, notes.clone()), stdout);
    let transport = compat.transport(lines, Some(notes));
    // Behind `dyn`, rmcp's request handling for `S` is compiled once. A
    // release build copies an async body into every codegen unit that polls
    // it, and rmcp polls it in two: where it awaits `initialize` and where
    // it spawns each later request. That was 170 KB of machine code twice.
    let running = match server.into_dyn().serve(transport).await {
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

/// What the [`LineGate`] hands `compat`'s transport beside the lines: the
/// `task` params it read (when some tool runs as a task) and the answers to
/// the lines it refused.
#[derive(Debug, Default)]
pub(in crate::server) struct LineNotes {
    pub(super) tasks: Option<SeenTasks>,
    pub(super) refused: Refusals,
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

/// The errors that answer refused lines, waiting to be sent.
#[derive(Debug, Default)]
pub(in crate::server) struct Refusals {
    waiting: Mutex<VecDeque<ServerJsonRpcMessage>>,
    added: tokio::sync::Notify,
}

impl Refusals {
    fn waiting(&self) -> std::sync::MutexGuard<'_, VecDeque<ServerJsonRpcMessage>> {
        // Each change is one push or pop: a poisoned queue is consistent.
        self.waiting.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn refuse(&self, id: Option<RequestId>, why: String) {
        let answer = ServerJsonRpcMessage::error(ErrorData::invalid_request(why, None), id);
        let mut waiting = self.waiting();
        if waiting.len() >= MAX_WAITING {
            waiting.pop_front();
        }
        waiting.push_back(answer);
        drop(waiting);
        self.added.notify_one();
    }

    /// The next answer, if one waits.
    pub(super) fn pop(&self) -> Option<ServerJsonRpcMessage> {
        self.waiting().pop_front()
    }

    /// The next answer, when there is one.
    pub(super) async fn next(&self) -> ServerJsonRpcMessage {
        loop {
            if let Some(answer) = self.pop() {
                return answer;
            }
            // `notify_one` keeps a permit when nobody waits: no wake is lost
            // between the pop above and this wait.
            self.added.notified().await;
        }
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

/// stdin as rmcp reads it: whole lines, each one admitted or refused once
/// it has ended (see the module documentation).
pub(in crate::server) struct LineGate<R> {
    inner: R,
    notes: Arc<LineNotes>,
    /// The line being read (only its head once it is over-long).
    line: Vec<u8>,
    /// The length of the line being read, all of it.
    length: usize,
    values: ValueCount,
    /// Admitted lines, and how much of them rmcp has read.
    admitted: Vec<u8>,
    handed: usize,
    chunk: Box<[u8]>,
    ended: bool,
}

impl<R> LineGate<R> {
    fn new(inner: R, notes: Arc<LineNotes>) -> Self {
        LineGate {
            inner,
            notes,
            line: Vec::new(),
            length: 0,
            values: ValueCount::default(),
            admitted: Vec::new(),
            handed: 0,
            chunk: vec![0; CHUNK].into_boxed_slice(),
            ended: false,
        }
    }

    /// Takes in the bytes just read, line by line.
    fn take_in(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            let newline = bytes.iter().position(|&b| b == b'\n');
            let piece = &bytes[..newline.map_or(bytes.len(), |i| i + 1)];
            self.length += piece.len();
            if self.length <= MAX_LINE {
                self.line.extend_from_slice(piece);
                self.values.feed(piece);
            } else if self.line.len() > HEAD {
                self.line.truncate(HEAD);
                self.line.shrink_to_fit();
            }
            if newline.is_some() {
                self.end_line();
            }
            bytes = &bytes[piece.len()..];
        }
    }

    /// The line read is whole: admitted, or refused with an answer.
    fn end_line(&mut self) {
        let refused = if self.length > MAX_LINE {
            Some(format!(
                "the message is {} bytes long, more than the {MAX_LINE} a line may be",
                self.length
            ))
        } else {
            self.values.excess(self.length)
        };
        match refused {
            Some(why) => {
                let head = &self.line[..self.line.len().min(HEAD)];
                tracing::warn!("refusing a stdin line: {why}");
                self.notes
                    .refused
                    .refuse(parse_budget::request_id(head), why);
                self.line.clear();
            }
            None => {
                if let Some(tasks) = &self.notes.tasks
                    && let Some((id, task)) = task_of(&self.line)
                {
                    tasks.record(id, task);
                }
                if self.admitted.is_empty() {
                    std::mem::swap(&mut self.admitted, &mut self.line);
                    self.line.clear();
                } else {
                    self.admitted.extend_from_slice(&self.line);
                    self.line.clear();
                }
            }
        }
        if self.line.capacity() > 1024 * 1024 {
            // One large message does not keep its buffer for the session.
            self.line = Vec::new();
        }
        self.length = 0;
        self.values = ValueCount::default();
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for LineGate<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = self.get_mut();
        loop {
            if this.handed < this.admitted.len() {
                let n = buf.remaining().min(this.admitted.len() - this.handed);
                buf.put_slice(&this.admitted[this.handed..this.handed + n]);
                this.handed += n;
                if this.handed == this.admitted.len() {
                    this.handed = 0;
                    this.admitted.clear();
                    if this.admitted.capacity() > 1024 * 1024 {
                        this.admitted = Vec::new();
                    }
                }
                return Poll::Ready(Ok(()));
            }
            if this.ended {
                // The last line, without its newline: rmcp drops such a
                // line at the end of input, but a refused one is answered.
                if this.length > 0 {
                    this.end_line();
                    continue;
                }
                return Poll::Ready(Ok(()));
            }
            let mut chunk = std::mem::take(&mut this.chunk);
            let mut read = ReadBuf::new(&mut chunk);
            let polled = Pin::new(&mut this.inner).poll_read(cx, &mut read);
            let n = read.filled().len();
            if let Poll::Ready(Ok(())) = polled {
                if n == 0 {
                    this.ended = true;
                } else {
                    this.take_in(&chunk[..n]);
                }
            }
            this.chunk = chunk;
            ready!(polled)?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// Reads `input` through a `LineGate`, `chunk` bytes at a time; what
    /// came out and what was noted.
    async fn read_through(input: &str, chunk: usize) -> (String, Arc<LineNotes>) {
        let notes = Arc::new(LineNotes {
            tasks: Some(SeenTasks::default()),
            refused: Refusals::default(),
        });
        let (mut writer, reader) = tokio::io::duplex(chunk);
        let input = input.to_owned();
        let feed = tokio::spawn(async move {
            writer.write_all(input.as_bytes()).await.expect("write");
        });
        let mut out = String::new();
        LineGate::new(reader, notes.clone())
            .read_to_string(&mut out)
            .await
            .expect("read");
        feed.await.expect("fed");
        (out, notes)
    }

    fn tasks(notes: &LineNotes) -> &SeenTasks {
        notes.tasks.as_ref().expect("tasks noted")
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
            let (out, notes) = read_through(&input, chunk).await;
            let seen = tasks(&notes);
            assert_eq!(out, input);
            assert!(notes.refused.pop().is_none());
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

    /// The error that answers a refused line, as JSON.
    fn refusal(notes: &LineNotes) -> Value {
        let answer = notes.refused.pop().expect("a refusal");
        serde_json::to_value(answer).expect("JSON")
    }

    #[tokio::test]
    async fn an_over_long_line_is_refused_by_its_id_and_the_next_is_read_again() {
        let call = json!({"jsonrpc": "2.0", "id": "a", "method": "tools/call",
            "params": {"name": "job", "task": {}}});
        let long = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":\"b\",\"method\":\"tools/call\",\"params\":{{\"name\":\"job\",\"task\":{{}},\"pad\":\"{}\"}}}}",
            " ".repeat(MAX_LINE)
        );
        let input = format!("{long}\n{call}\n");
        let (out, notes) = read_through(&input, 64 * 1024).await;
        assert_eq!(out, format!("{call}\n"));
        let seen = tasks(&notes);
        assert_eq!(seen.take(&RequestId::String("b".into())), None);
        assert_eq!(seen.take(&RequestId::String("a".into())), Some(json!({})));
        let refused = refusal(&notes);
        assert_eq!(refused["id"], "b");
        assert_eq!(refused["error"]["code"], -32600);
        let message = refused["error"]["message"].as_str().expect("message");
        assert!(
            message.contains("more than the 16777216 a line may be"),
            "{message}"
        );
        assert!(notes.refused.pop().is_none());
    }

    #[tokio::test]
    async fn a_line_of_tiny_values_is_refused_before_rmcp_parses_it() {
        let costly = format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"job","arguments":{{"a":[{}0]}}}}}}"#,
            "0,".repeat(100_000)
        );
        let fine = r#"{"jsonrpc":"2.0","id":4,"method":"ping"}"#;
        for last in ["\n", ""] {
            let input = format!("{fine}\n{costly}{last}");
            let (out, notes) = read_through(&input, 4096).await;
            assert_eq!(out, format!("{fine}\n"));
            let refused = refusal(&notes);
            assert_eq!(refused["id"], 3);
            let message = refused["error"]["message"].as_str().expect("message");
            assert!(message.contains("JSON values in"), "{message}");
        }
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
