//! A started call and how it ends: what a generated `dispatch` returns, and
//! the future the server awaits, shared by every tool so that it is compiled
//! once.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context as TaskContext, Poll};

use crate::BoxFuture;
use crate::args::ArgErrors;
use crate::result::{ToolError, ToolOutput, ToolResult};

/// A call as a generated `dispatch` starts it: the handler's future, or the
/// errors of arguments that did not decode (the handler never called). What
/// comes after (asking the person, awaiting, the outcome) is the same for
/// every tool and compiled once, in [`ToolSet::start`](crate::ToolSet::start).
pub type Started<'a> = Result<BoxFuture<'a, ToolResult>, ArgErrors>;

/// How a call ended.
#[derive(Debug)]
pub enum CallOutcome {
    /// The handler returned a result.
    Output(ToolOutput),
    /// The arguments did not decode; the handler was not called.
    InvalidArguments(ArgErrors),
    /// The handler returned an error.
    Failed(ToolError),
}

/// A started call of one tool: a future of its [`CallOutcome`], from
/// [`ToolSet::call`](crate::ToolSet::call). It owns the handler's boxed future, or the argument errors
/// when decoding failed and the handler was never called.
///
/// This is a plain type rather than an `async` block so that the code shared by
/// every tool (awaiting the handler, sorting out the outcome) is compiled once,
/// here, and not once per tool in the crate that generated them.
pub struct CallFuture<'a> {
    state: State<'a>,
}

enum State<'a> {
    /// The person is asked first; the handler's future is not polled (so
    /// its body does not run) until they accept.
    Confirming {
        confirm: BoxFuture<'a, Result<(), ToolError>>,
        then: Option<BoxFuture<'a, ToolResult>>,
    },
    Running(BoxFuture<'a, ToolResult>),
    Invalid(Option<ArgErrors>),
}

impl<'a> CallFuture<'a> {
    /// A call whose handler is running as `future`.
    pub(crate) fn running(future: BoxFuture<'a, ToolResult>) -> Self {
        CallFuture {
            state: State::Running(future),
        }
    }

    /// A call whose handler runs once `confirm` resolves to `Ok`.
    pub(crate) fn confirming(
        confirm: BoxFuture<'a, Result<(), ToolError>>,
        then: BoxFuture<'a, ToolResult>,
    ) -> Self {
        CallFuture {
            state: State::Confirming {
                confirm,
                then: Some(then),
            },
        }
    }

    /// A call refused before its handler ran: the arguments did not decode.
    pub(crate) fn invalid(errors: ArgErrors) -> Self {
        CallFuture {
            state: State::Invalid(Some(errors)),
        }
    }
}

impl Future for CallFuture<'_> {
    type Output = CallOutcome;

    fn poll(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<CallOutcome> {
        let this = self.get_mut();
        if let State::Confirming { confirm, then } = &mut this.state {
            match confirm.as_mut().poll(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Err(refused)) => return Poll::Ready(CallOutcome::Failed(refused)),
                Poll::Ready(Ok(())) => match then.take() {
                    Some(handler) => this.state = State::Running(handler),
                    None => return Poll::Pending,
                },
            }
        }
        match &mut this.state {
            State::Running(future) => future.as_mut().poll(cx).map(|result| match result {
                Ok(output) => CallOutcome::Output(output),
                Err(error) => CallOutcome::Failed(error),
            }),
            State::Confirming { .. } => Poll::Pending,
            State::Invalid(errors) => match errors.take() {
                Some(errors) => Poll::Ready(CallOutcome::InvalidArguments(errors)),
                // Polled again after it completed: a caller's bug, as with any
                // future; there is nothing left to give.
                None => Poll::Pending,
            },
        }
    }
}

impl std::fmt::Debug for CallFuture<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.state {
            State::Confirming { .. } => f.write_str("CallFuture::Confirming"),
            State::Running(_) => f.write_str("CallFuture::Running"),
            State::Invalid(errors) => f.debug_tuple("CallFuture::Invalid").field(errors).finish(),
        }
    }
}
