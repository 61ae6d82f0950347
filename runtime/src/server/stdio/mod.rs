//! The stdio transport: rmcp's own line transport inside `compat`'s, fed by
//! a [`LineGate`] that holds each line until it is whole and then either
//! hands it to rmcp as it is, noting the `task` param of a `tools/call` on
//! the way (gap 2, with `tasks` and `sessions`), or refuses it: a line
//! longer than rmcp reads, or one that would cost too much to parse
//! (`parse_budget`), never reaches rmcp's parser, and its sender gets a
//! JSON-RPC error rather than silence.

mod std_streams;

pub(crate) use std_streams::{Input, Output};

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};

use rmcp::ServiceExt;
use rmcp::transport::async_rw::AsyncRwTransport;
use tokio::io::{AsyncRead, ReadBuf};

use crate::server::compat::{LineNotes, Refusals};
#[cfg(all(feature = "tasks", feature = "sessions"))]
use crate::server::compat::{SeenTasks, task_params};
use crate::server::policy::parse_budget::{self, ValueCount};
use crate::server::{ServerError, Serves};

/// The longest line handed on: rmcp's own limit for a line (it drops longer
/// ones without a word), so that each one it would drop is answered here.
const MAX_LINE: usize = rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH;

/// How much of a refused line is kept, for its request id.
const HEAD: usize = 4096;

/// How much is read from stdin at once.
const CHUNK: usize = 64 * 1024;

/// Serves `server` on stdin/stdout until the client closes stdin.
pub(in crate::server) async fn serve_stdio<S: Serves>(server: S) -> Result<(), ServerError> {
    serve_lines(server, std_streams::stdin(), std_streams::stdout()).await
}

/// Serves `server` on `stdin` and `stdout`, whatever streams they are (the
/// process's own, or one end of an in-process pipe for `testing`), until
/// `stdin` ends: the same gate, bounds and compat layer either way.
pub(crate) async fn serve_lines<S: Serves>(
    server: S,
    stdin: Input,
    stdout: Output,
) -> Result<(), ServerError> {
    let compat = server.tools().compat();
    let notes = Arc::new(LineNotes {
        #[cfg(all(feature = "tasks", feature = "sessions"))]
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
        Err(e) => {
            return Err(ServerError::Transport(format!(
                "cannot start on stdio: {e}"
            )));
        }
    };
    running
        .waiting()
        .await
        .map_err(|e| ServerError::Transport(format!("stdio server failed: {e}")))?;
    Ok(())
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
                #[cfg(all(feature = "tasks", feature = "sessions"))]
                if let Some(tasks) = &self.notes.tasks
                    && let Some((id, task)) = task_params::of_line(&self.line)
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

impl crate::server::Server {
    /// Serves on stdin/stdout until the client closes stdin (also before it
    /// initialized, which is not an error). Logs go to stderr.
    ///
    /// When stdin and stdout are pipes or sockets, as a client that starts
    /// the server makes them, they are set non-blocking and read and written
    /// by the runtime itself (it needs its I/O driver, as `#[tokio::main]`
    /// has), with no thread hop per message; they are blocking again when
    /// serving ends, unless a signal ends the process first. A terminal, a
    /// file, a stdout that is also stderr, or one socket for both, is read
    /// and written through tokio's blocking pool. Nothing else may use stdin
    /// or stdout while serving (nor child processes that inherit them): it
    /// would break the protocol, and on a non-blocking pipe a `println!` can
    /// fail, and panic, when the pipe is full.
    ///
    /// At most 128 requests are answered at once: past that, a request is
    /// answered at once with an error that names the bound (`ping` and
    /// `tasks/cancel` are still served, 32 at a time, as are notifications
    /// and answers to the server's own requests), and stdin is read again
    /// only when those refusals are written, so a client that does not read
    /// its answers holds the server's memory to a bound, and a client whose
    /// requests all wait can still ping and cancel.
    ///
    /// The future is boxed here so that rmcp's server machinery is compiled
    /// once, in this crate, rather than again in every crate that awaits it
    /// (an `async fn` is compiled where it is polled): that alone is most of a
    /// small server's debug build time.
    pub fn serve_stdio(self) -> toolmetadata_core::BoxFuture<'static, Result<(), ServerError>> {
        Box::pin(serve_stdio(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(all(feature = "tasks", feature = "sessions"))]
    use crate::server::compat::line_notes::MAX_WAITING;
    #[cfg(all(feature = "tasks", feature = "sessions"))]
    use rmcp::model::RequestId;
    use serde_json::{Value, json};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// Reads `input` through a `LineGate`, `chunk` bytes at a time; what
    /// came out and what was noted.
    async fn read_through(input: &str, chunk: usize) -> (String, Arc<LineNotes>) {
        let notes = Arc::new(LineNotes {
            #[cfg(all(feature = "tasks", feature = "sessions"))]
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

    #[cfg(all(feature = "tasks", feature = "sessions"))]
    fn tasks(notes: &LineNotes) -> &SeenTasks {
        notes.tasks.as_ref().expect("tasks noted")
    }

    #[cfg(all(feature = "tasks", feature = "sessions"))]
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
        #[cfg(all(feature = "tasks", feature = "sessions"))]
        {
            let seen = tasks(&notes);
            assert_eq!(seen.take(&RequestId::String("b".into())), None);
            assert_eq!(seen.take(&RequestId::String("a".into())), Some(json!({})));
        }
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

    /// A hostile `task` param: a megabyte of string, nesting past what
    /// serde_json parses, and the word in a string where no param is. Each
    /// line passes to rmcp byte for byte (rmcp answers it), none is
    /// refused here, and with 2025-11-25's tasks only the well-formed
    /// param is noted; without them nothing is read for it.
    #[tokio::test]
    async fn hostile_task_params_pass_as_they_are_and_only_a_sound_one_is_noted() {
        let big = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "job", "task": {"note": "x".repeat(1 << 20)}}});
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"job","task":{}1{}}}}}"#,
            "[".repeat(500),
            "]".repeat(500)
        );
        let named = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "job", "arguments": {"q": "\"task\": {}"}}});
        let input = format!("{big}\n{deep}\n{named}\n");
        let (out, notes) = read_through(&input, 64 * 1024).await;
        assert!(out == input, "every byte handed on as it came");
        assert!(notes.refused.pop().is_none());
        #[cfg(all(feature = "tasks", feature = "sessions"))]
        {
            let seen = tasks(&notes);
            assert_eq!(seen.take(&RequestId::Number(2)), None, "too deep to read");
            assert_eq!(seen.take(&RequestId::Number(3)), None, "no param");
            let task = seen.take(&RequestId::Number(1)).expect("noted");
            assert_eq!(task["note"].as_str().map(str::len), Some(1 << 20));
        }
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

    #[cfg(all(feature = "tasks", feature = "sessions"))]
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
