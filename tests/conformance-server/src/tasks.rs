//! The tasks extension's fixtures (SEP-2663 scenarios `tasks-*`): a
//! sync-only tool, and task tools that wait, fail as a tool, or crash.

use std::time::Duration;

use toolmetadata::{Context, ToolError, ToolResult};

use crate::tools::*;

/// `greet`: never a task.
pub(crate) fn greet(a: GreetArgs) -> ToolResult {
    Ok(format!("Hello, {}!", a.name).into())
}

/// `slow_compute`: waits `seconds` (bounded to ten minutes), unless the
/// task is cancelled first, which drops it.
pub(crate) async fn slow_compute(a: SlowComputeArgs, cx: Context) -> ToolResult {
    let seconds = a.seconds.clamp(0.0, 600.0);
    let label = a.label.as_deref().unwrap_or("compute");
    if seconds > 0.0 {
        cx.progress(0.0, Some(seconds), Some("computing")).await;
        tokio::time::sleep(Duration::from_secs_f64(seconds)).await;
    }
    Ok(format!("{label}: done after {seconds} s").into())
}

/// `failing_job`: a tool error after about a second.
pub(crate) async fn failing_job() -> ToolResult {
    tokio::time::sleep(Duration::from_secs(1)).await;
    Err(ToolError::new("failing_job failed, as it always does"))
}

/// `protocol_error_job`: a handler that crashes, which the server reports
/// as a failed task rather than a tool's error.
pub(crate) async fn protocol_error_job() -> ToolResult {
    tokio::task::yield_now().await;
    let crash: Option<()> = None;
    crash.expect("protocol_error_job crashes on purpose");
    Ok("unreachable".into())
}
