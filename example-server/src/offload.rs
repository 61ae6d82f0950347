//! File work runs on tokio's blocking pool, not on the async workers, so that
//! a slow disk or a large file delays only its own call. A semaphore bounds how
//! many such calls run at once, and waiting for a turn has a timeout.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Semaphore;
use toolmetadata::ToolError;

/// How many file calls may run at once.
const CONCURRENT: usize = 32;
/// How long a call waits for a turn before it gives up.
const QUEUE_TIMEOUT: Duration = Duration::from_secs(30);

/// The gate shared by all calls of a server.
#[derive(Debug, Clone)]
pub(crate) struct Offload {
    permits: Arc<Semaphore>,
}

impl Default for Offload {
    fn default() -> Self {
        Offload {
            permits: Arc::new(Semaphore::new(CONCURRENT)),
        }
    }
}

impl Offload {
    /// Runs `work` on the blocking pool once a permit is free.
    pub(crate) async fn run<T, F>(&self, work: F) -> Result<T, ToolError>
    where
        F: FnOnce() -> Result<T, ToolError> + Send + 'static,
        T: Send + 'static,
    {
        let permit = tokio::time::timeout(QUEUE_TIMEOUT, self.permits.clone().acquire_owned())
            .await
            .map_err(|_| ToolError::new("the server is busy: try again"))?
            .map_err(|_| ToolError::new("the server is shutting down"))?;
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            work()
        })
        .await
        .map_err(|e| ToolError::new(format!("the call failed: {e}")))?
    }
}
