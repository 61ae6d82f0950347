//! `run_command`: an allowed program, in a directory under the roots, with a
//! timeout and capped output.
//!
//! Programs are resolved to absolute paths once, at startup, from the
//! server's `PATH` without its relative entries: a workspace file named like
//! an allowed program is never what runs. An allowed command may carry
//! leading arguments (`git status`), which a call must then begin with. The
//! child leads its own process group, and the whole group is killed on
//! timeout and when the call is cancelled, so no grandchild outlives it.

use std::ffi::OsString;
use std::os::fd::{AsFd, AsRawFd};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use rustix::process::{Pid, Signal, kill_process_group};
use tokio::io::AsyncReadExt;
use toolmetadata::{ToolError, ToolResult};

use cap_std::fs::Dir;

use crate::confinement::Confinement;
use crate::tools::*;

/// Output kept per stream.
const MAX_OUTPUT: usize = 1024 * 1024;
/// How long to wait for a killed group's exit and its pipes' end.
const AFTER_KILL: Duration = Duration::from_secs(5);

/// One `--allow-command`: a program and the arguments a call must begin with.
#[derive(Debug, Clone)]
struct Rule {
    name: String,
    path: PathBuf,
    prefix: Vec<String>,
}

impl Rule {
    fn shown(&self) -> String {
        std::iter::once(self.name.as_str())
            .chain(self.prefix.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// The commands `run_command` may run, resolved at startup.
#[derive(Debug, Clone, Default)]
pub(crate) struct Allowed {
    rules: Vec<Rule>,
    /// The `PATH` children get: the server's, without relative entries.
    path_env: OsString,
}

/// The absolute entries of a `PATH` value.
fn absolute_entries(path: Option<OsString>) -> Vec<PathBuf> {
    path.map(|p| {
        std::env::split_paths(&p)
            .filter(|d| d.is_absolute())
            .collect()
    })
    .unwrap_or_default()
}

fn executable(path: &Path) -> bool {
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

impl Allowed {
    /// Resolves each spec (`PROGRAM [ARG…]`, split on whitespace) on the
    /// absolute entries of `path` (the server's `PATH`).
    pub(crate) fn resolve(specs: &[String], path: Option<OsString>) -> Result<Allowed, String> {
        let dirs = absolute_entries(path);
        let path_env = std::env::join_paths(&dirs).unwrap_or_default();
        let mut rules = Vec::with_capacity(specs.len());
        for spec in specs {
            let mut words = spec.split_whitespace().map(str::to_owned);
            let Some(name) = words.next() else {
                return Err("--allow-command needs a program name".into());
            };
            let resolved = if name.contains('/') {
                let p = PathBuf::from(&name);
                (p.is_absolute() && executable(&p)).then_some(p)
            } else {
                dirs.iter().map(|d| d.join(&name)).find(|p| executable(p))
            };
            let Some(path) = resolved else {
                return Err(format!(
                    "--allow-command {spec:?}: no executable `{name}` found (a program is looked up on the absolute entries of PATH, or given as an absolute path)"
                ));
            };
            rules.push(Rule {
                name,
                path,
                prefix: words.collect(),
            });
        }
        Ok(Allowed { rules, path_env })
    }

    /// Refuses a call this server does not allow, before any work is done.
    pub(crate) fn check(&self, program: &str, args: &[String]) -> Result<(), ToolError> {
        self.allows(program, args).map(|_| ())
    }

    /// The rule that allows `program` with `args`.
    fn allows(&self, program: &str, args: &[String]) -> Result<&Rule, ToolError> {
        let named: Vec<&Rule> = self.rules.iter().filter(|r| r.name == program).collect();
        if let Some(rule) = named.iter().find(|r| args.starts_with(&r.prefix)) {
            return Ok(rule);
        }
        let list = |rules: &[&Rule]| {
            let mut shown: Vec<String> = rules.iter().map(|r| r.shown()).collect();
            shown.dedup();
            shown.join(", ")
        };
        Err(crate::tools::RunCommandFailure::NotAllowed.error(if self.rules.is_empty() {
            format!(
                "`{program}` is not allowed: this server allows no programs (start it with --allow-command PROGRAM)"
            )
        } else if named.is_empty() {
            let all: Vec<&Rule> = self.rules.iter().collect();
            format!(
                "`{program}` is not allowed; allowed programs: {}",
                list(&all)
            )
        } else {
            format!(
                "these arguments are not allowed; `{program}` may run only as: {}",
                list(&named)
            )
        }))
    }
}

/// Kills the child's process group when dropped, unless disarmed: on timeout,
/// on cancellation (the call's future dropped) and on every early return.
struct Group(Option<Pid>);

impl Group {
    fn kill(&mut self) {
        if let Some(pid) = self.0.take() {
            // ESRCH (the group is gone already) is the expected failure.
            let _ = kill_process_group(pid, Signal::KILL);
        }
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The working directory of a call, opened beneath its root. Blocking file
/// system work: the handler runs it on the blocking pool.
pub(crate) fn open_cwd(roots: &Confinement, cwd: &str) -> Result<Dir, ToolError> {
    let at = roots.locate_followed(cwd)?;
    match at.dir.metadata(&at.rel) {
        Ok(m) if m.is_dir() => Ok(at.dir.open_dir(&at.rel).map_err(|e| at.error(&e))?),
        Ok(_) => Err(ToolError::new(format!("cwd {cwd} is not a directory"))),
        Err(e) => Err(at.error(&e).into()),
    }
}

/// Runs `args` in `cwd` (from [`open_cwd`]) if `allowed` allows it.
pub(crate) async fn run_command(
    cwd: Dir,
    allowed: &Allowed,
    args: RunCommandArgs,
) -> ToolResult<RunCommandOutput> {
    let rule = allowed.allows(&args.program, &args.args)?;
    // The child changes into the directory through the handle opened beneath
    // the root (its inherited descriptor, before exec), not by name again.
    let cwd_path = format!("/proc/self/fd/{}", cwd.as_fd().as_raw_fd());
    let mut child = tokio::process::Command::new(&rule.path)
        .arg0(&rule.name)
        .args(&args.args)
        .current_dir(&cwd_path)
        .env("PATH", &allowed.path_env)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| ToolError::new(format!("cannot start `{}`: {e}", args.program)))?;
    drop(cwd);
    let mut group = Group(
        child
            .id()
            .and_then(|id| i32::try_from(id).ok())
            .and_then(Pid::from_raw),
    );
    let mut stdout = child
        .stdout
        .take()
        .ok_or_else(|| ToolError::new("no stdout"))?;
    let mut stderr = child
        .stderr
        .take()
        .ok_or_else(|| ToolError::new("no stderr"))?;
    let readers = async move { tokio::join!(capped(&mut stdout), capped(&mut stderr)) };
    tokio::pin!(readers);
    let timeout = Duration::from_secs(u64::try_from(args.timeout_secs).unwrap_or(30));
    let deadline = tokio::time::Instant::now() + timeout;
    let mut timed_out = false;
    // The pipes are read while the program runs: a program that writes more
    // than a pipe holds (64 KiB) waits for a reader before it can exit. A
    // program that exits leaving children that hold its pipes gives them the
    // rest of the time.
    let ended =
        tokio::time::timeout_at(deadline, async { tokio::join!(child.wait(), &mut readers) }).await;
    let (exit_code, ((out, out_cut), (err, err_cut))) = match ended {
        Ok((status, read)) => (status?.code().map(i64::from), read),
        Err(_) => {
            timed_out = true;
            group.kill();
            let (_, read) = tokio::time::timeout(AFTER_KILL, async {
                tokio::join!(child.wait(), &mut readers)
            })
            .await
            .map_err(|_| {
                ToolError::new(
                    "the program's output stayed open after it was killed (a process left its group)",
                )
            })?;
            (None, read)
        }
    };
    // Everything ended and the pipes closed; the group is gone or will be
    // killed on drop, which is harmless then.
    Ok(RunCommandOutput {
        exit_code,
        stdout: out?,
        stderr: err?,
        timed_out,
        truncated: out_cut || err_cut,
    })
}

/// Reads a stream to its end, keeping the first MAX_OUTPUT bytes.
async fn capped(stream: &mut (impl AsyncReadExt + Unpin)) -> (std::io::Result<String>, bool) {
    let mut kept = Vec::new();
    let mut buf = [0u8; 8192];
    let mut cut = false;
    loop {
        match stream.read(&mut buf).await {
            Ok(0) => break,
            Ok(n) => {
                let room = MAX_OUTPUT.saturating_sub(kept.len());
                kept.extend_from_slice(&buf[..n.min(room)]);
                cut |= n > room;
            }
            Err(e) => return (Err(e), cut),
        }
    }
    (Ok(String::from_utf8_lossy(&kept).into_owned()), cut)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_resolve_on_absolute_path_entries_only() {
        let dir = tempfile::tempdir().expect("tempdir");
        let fake = dir.path().join("sh");
        std::fs::write(&fake, "#!/bin/sh\necho fake\n").expect("write");
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        // A relative entry, which would find the fake when the server runs in
        // its directory, is dropped before any lookup.
        let relative = dir.path().strip_prefix("/").expect("absolute tempdir");
        let path = format!("{}:/bin:/usr/bin", relative.display());
        let allowed =
            Allowed::resolve(&["sh".into()], Some(path.into())).expect("sh is on /bin or /usr/bin");
        assert!(allowed.rules[0].path.is_absolute());
        assert_ne!(allowed.rules[0].path, fake);
        assert_eq!(allowed.path_env, OsString::from("/bin:/usr/bin"));
        assert!(Allowed::resolve(&["sh".into()], Some(".".into())).is_err());
        // An absolute entry does find it.
        let path = format!("{}:/bin", dir.path().display());
        let allowed = Allowed::resolve(&["sh".into()], Some(path.into())).expect("resolve");
        assert_eq!(allowed.rules[0].path, fake);
    }

    #[test]
    fn leading_arguments_restrict_a_program() {
        let allowed = Allowed::resolve(
            &["sh -c".into(), "true".into()],
            Some("/bin:/usr/bin".into()),
        )
        .expect("resolve");
        assert!(allowed.allows("sh", &["-c".into(), "x".into()]).is_ok());
        let refused = allowed.allows("sh", &["-x".into()]).unwrap_err();
        assert_eq!(
            refused.message(),
            "these arguments are not allowed; `sh` may run only as: sh -c"
        );
        assert!(allowed.allows("true", &["anything".into()]).is_ok());
        assert!(allowed.allows("rm", &[]).is_err());
    }
}
