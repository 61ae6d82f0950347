//! `run_command`: an allowed program, in a directory under the roots, with a
//! timeout and capped output.

use std::process::Stdio;
use std::time::Duration;

use tokio::io::AsyncReadExt;
use toolmetadata::{ToolError, ToolResult};

use crate::roots::Roots;
use crate::tools::*;

/// Output kept per stream.
const MAX_OUTPUT: usize = 1024 * 1024;

pub(crate) async fn run_command(
    roots: &Roots,
    allowed: &[String],
    args: RunCommandArgs,
) -> ToolResult<RunCommandOutput> {
    if !allowed.contains(&args.program) {
        return Err(ToolError::new(if allowed.is_empty() {
            format!(
                "`{}` is not allowed: this server allows no programs (start it with --allow-command PROGRAM)",
                args.program
            )
        } else {
            format!(
                "`{}` is not allowed; allowed programs: {}",
                args.program,
                allowed.join(", ")
            )
        }));
    }
    let cwd = roots.existing(&args.cwd)?;
    if !cwd.is_dir() {
        return Err(ToolError::new(format!(
            "cwd {} is not a directory",
            args.cwd
        )));
    }
    let mut child = tokio::process::Command::new(&args.program)
        .args(&args.args)
        .current_dir(&cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| ToolError::new(format!("cannot start `{}`: {e}", args.program)))?;
    let mut stdout = child
        .stdout
        .take()
        .ok_or_else(|| ToolError::new("no stdout"))?;
    let mut stderr = child
        .stderr
        .take()
        .ok_or_else(|| ToolError::new("no stderr"))?;
    let read_out = tokio::spawn(async move { capped(&mut stdout).await });
    let read_err = tokio::spawn(async move { capped(&mut stderr).await });
    let timeout = Duration::from_secs(u64::try_from(args.timeout_secs).unwrap_or(30));
    let (exit_code, timed_out) = match tokio::time::timeout(timeout, child.wait()).await {
        Ok(status) => (status?.code().map(i64::from), false),
        Err(_) => {
            child.kill().await?;
            (None, true)
        }
    };
    let (out, out_cut) = read_out
        .await
        .map_err(|e| ToolError::new(e.to_string()))??;
    let (err, err_cut) = read_err
        .await
        .map_err(|e| ToolError::new(e.to_string()))??;
    Ok(RunCommandOutput {
        exit_code,
        stdout: out,
        stderr: err,
        timed_out,
        truncated: out_cut || err_cut,
    })
}

/// Reads a stream to its end, keeping the first MAX_OUTPUT bytes.
async fn capped(stream: &mut (impl AsyncReadExt + Unpin)) -> std::io::Result<(String, bool)> {
    let mut kept = Vec::new();
    let mut buf = [0u8; 8192];
    let mut cut = false;
    loop {
        let n = stream.read(&mut buf).await?;
        if n == 0 {
            break;
        }
        let room = MAX_OUTPUT.saturating_sub(kept.len());
        kept.extend_from_slice(&buf[..n.min(room)]);
        cut |= n > room;
    }
    Ok((String::from_utf8_lossy(&kept).into_owned(), cut))
}
