//! The one boxed future every layer passes around: handlers' calls, the
//! seam a [`crate::Context`] reaches the server by, and stores of your own.

use std::future::Future;
use std::pin::Pin;

/// A boxed, sendable future.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;
