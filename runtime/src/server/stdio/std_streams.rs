//! stdin and stdout as the stdio server reads and writes them.
//!
//! Pipes and Unix sockets, as clients that start a server make them, are
//! read and written non-blocking by the runtime itself, so that a request
//! and its answer cross no thread. tokio's `stdin` and `stdout` read and
//! write on the blocking pool instead, a thread hop per message; they stay
//! for a terminal or a file, for a stdout that is also stderr (the logs'
//! blocking writes would then fail on a full pipe), and for one socket that
//! is both stdin and stdout.
//!
//! The non-blocking flag belongs to the pipe or socket, shared with whoever
//! else holds it (a shell that runs something after the server): each
//! stream clears it when it is dropped, that is when its last user, rmcp's
//! transport, lets it go. A server killed by a signal leaves it set.
//!
//! On Linux a stdout pipe is also made to hold [`PIPE_BYTES`]: a pipe holds
//! 64 KiB by default, less than one `tools/list` answer of a large tool set,
//! so the server would wait for the client to read each answer before it
//! could write the next. The larger pipe stays when the server ends (a
//! pipe's size is never made smaller again, and holding more is harmless).

use tokio::io::{AsyncRead, AsyncWrite};

/// What the server reads its requests from.
pub(crate) type Input = Box<dyn AsyncRead + Send + Unpin>;
/// What the server writes its answers to.
pub(crate) type Output = Box<dyn AsyncWrite + Send + Unpin>;

/// What a stdout pipe is made to hold: a few answers of a 200-tool
/// `tools/list` (130 KB each), so that writing one does not wait for the
/// client to read the one before. Linux's default limit for a process
/// without privileges (`/proc/sys/fs/pipe-max-size`).
#[cfg(target_os = "linux")]
const PIPE_BYTES: usize = 1 << 20;

/// stdin: a pipe or socket through the reactor, anything else through
/// tokio's blocking `stdin`.
pub(super) fn stdin() -> Input {
    #[cfg(unix)]
    if let Some(input) = unix::stdin() {
        return input;
    }
    Box::new(tokio::io::stdin())
}

/// stdout: as [`stdin`], unless it is also stderr.
pub(super) fn stdout() -> Output {
    #[cfg(unix)]
    if let Some(output) = unix::stdout() {
        return output;
    }
    Box::new(tokio::io::stdout())
}

#[cfg(unix)]
mod unix {
    use std::io;
    use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    use std::pin::Pin;
    use std::task::{Context, Poll};

    use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
    use tokio::net::UnixStream;
    use tokio::net::unix::pipe;

    use super::{Input, Output};

    pub(super) fn stdin() -> Option<Input> {
        let stdin = io::stdin();
        // One socket for both: the end of reading would make writing block.
        if same_file(stdin.as_fd(), io::stdout().as_fd()) {
            return None;
        }
        let fd = stdin.as_fd().try_clone_to_owned().ok()?;
        let input: Input = if is_socket(&fd)? {
            Box::new(Nonblocking::new(socket(fd)?))
        } else {
            Box::new(Nonblocking::new(pipe::Receiver::from_owned_fd(fd).ok()?))
        };
        Some(input)
    }

    pub(super) fn stdout() -> Option<Output> {
        let stdout = io::stdout();
        if same_file(stdout.as_fd(), io::stderr().as_fd())
            || same_file(stdout.as_fd(), io::stdin().as_fd())
        {
            return None;
        }
        let fd = stdout.as_fd().try_clone_to_owned().ok()?;
        let output: Output = if is_socket(&fd)? {
            Box::new(Nonblocking::new(socket(fd)?))
        } else {
            #[cfg(target_os = "linux")]
            enlarge(&fd);
            Box::new(Nonblocking::new(pipe::Sender::from_owned_fd(fd).ok()?))
        };
        Some(output)
    }

    /// Makes the pipe hold [`PIPE_BYTES`](super::PIPE_BYTES), unless it
    /// already holds as much. A failure (the user's pipes are over
    /// `pipe-user-pages-soft`) leaves the pipe as it was: the server only
    /// writes in smaller steps.
    #[cfg(target_os = "linux")]
    fn enlarge(fd: &OwnedFd) {
        use rustix::pipe::{fcntl_getpipe_size, fcntl_setpipe_size};
        if fcntl_getpipe_size(fd).is_ok_and(|size| size < super::PIPE_BYTES)
            && let Err(e) = fcntl_setpipe_size(fd, super::PIPE_BYTES)
        {
            tracing::debug!("stdout pipe not enlarged: {e}");
        }
    }

    /// `Some(true)` for a socket, `Some(false)` for a pipe, `None` for
    /// anything else (a terminal, a file), which stays blocking.
    fn is_socket(fd: &OwnedFd) -> Option<bool> {
        let file = std::fs::File::from(fd.try_clone().ok()?);
        let kind = file.metadata().ok()?.file_type();
        if kind.is_socket() {
            Some(true)
        } else if kind.is_fifo() {
            Some(false)
        } else {
            None
        }
    }

    /// Whether two descriptors are the same pipe, socket or file (`2>&1`).
    fn same_file(a: BorrowedFd<'_>, b: BorrowedFd<'_>) -> bool {
        let meta = |fd: BorrowedFd<'_>| {
            let file = std::fs::File::from(fd.try_clone_to_owned().ok()?);
            let meta = file.metadata().ok()?;
            Some((meta.dev(), meta.ino()))
        };
        match (meta(a), meta(b)) {
            (Some(a), Some(b)) => a == b,
            // Unknown: as if they were, the blocking way.
            _ => true,
        }
    }

    fn socket(fd: OwnedFd) -> Option<UnixStream> {
        let socket = std::os::unix::net::UnixStream::from(fd);
        socket.set_nonblocking(true).ok()?;
        match UnixStream::from_std(socket) {
            Ok(socket) => Some(socket),
            Err(e) => {
                tracing::debug!("stdio socket not registered, read blocking: {e}");
                None
            }
        }
    }

    /// A stream made blocking again once it is let go.
    pub(super) trait Restore {
        fn restore(self);
    }

    impl Restore for pipe::Receiver {
        fn restore(self) {
            let _ = self.into_blocking_fd();
        }
    }

    impl Restore for pipe::Sender {
        fn restore(self) {
            let _ = self.into_blocking_fd();
        }
    }

    impl Restore for UnixStream {
        fn restore(self) {
            if let Ok(socket) = self.into_std() {
                let _ = socket.set_nonblocking(false);
            }
        }
    }

    /// A non-blocking stream over a copy of a standard descriptor.
    pub(super) struct Nonblocking<S: Restore> {
        /// `None` only while being dropped.
        inner: Option<S>,
    }

    impl<S: Restore> Nonblocking<S> {
        fn new(inner: S) -> Self {
            Nonblocking { inner: Some(inner) }
        }
    }

    impl<S: Restore> Drop for Nonblocking<S> {
        fn drop(&mut self) {
            if let Some(inner) = self.inner.take() {
                inner.restore();
            }
        }
    }

    fn gone() -> io::Error {
        io::Error::new(io::ErrorKind::BrokenPipe, "the stream was let go")
    }

    impl<S: Restore + AsyncRead + Unpin> AsyncRead for Nonblocking<S> {
        fn poll_read(
            mut self: Pin<&mut Self>,
            cx: &mut Context<'_>,
            buf: &mut ReadBuf<'_>,
        ) -> Poll<io::Result<()>> {
            match self.inner.as_mut() {
                Some(inner) => Pin::new(inner).poll_read(cx, buf),
                None => Poll::Ready(Err(gone())),
            }
        }
    }

    impl<S: Restore + AsyncWrite + Unpin> AsyncWrite for Nonblocking<S> {
        fn poll_write(
            mut self: Pin<&mut Self>,
            cx: &mut Context<'_>,
            buf: &[u8],
        ) -> Poll<io::Result<usize>> {
            match self.inner.as_mut() {
                Some(inner) => Pin::new(inner).poll_write(cx, buf),
                None => Poll::Ready(Err(gone())),
            }
        }

        fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
            match self.inner.as_mut() {
                Some(inner) => Pin::new(inner).poll_flush(cx),
                None => Poll::Ready(Err(gone())),
            }
        }

        fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
            match self.inner.as_mut() {
                Some(inner) => Pin::new(inner).poll_shutdown(cx),
                None => Poll::Ready(Err(gone())),
            }
        }
    }
}
