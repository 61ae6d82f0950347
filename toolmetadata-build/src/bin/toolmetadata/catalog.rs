//! The catalog lock's commands: `lock` checks (or updates) a directory's
//! lock as the build does, `diff` classifies the changes between two
//! catalogs (directories, lock files or `REV:DIR` git revisions).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::ValueEnum;
use toolmetadata_build::Builder;
use toolmetadata_build::lock::{Class, Lock};

/// The class of change `diff` fails on, and any above it.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, ValueEnum)]
pub(crate) enum FailOn {
    Wording,
    Compatible,
    Breaking,
}

pub(crate) fn lock_command(
    dir: &Path,
    lock: &Path,
    update: bool,
    locked: bool,
    base: &Builder,
    color: bool,
) -> ExitCode {
    // Without `--locked`, frozen as the build is (TOOLMETADATA_LOCKED).
    let mut builder = base.clone().dir(dir).lock(lock);
    if locked {
        builder = builder.locked(true);
    }
    let mut checked = match builder.check() {
        Ok(checked) => checked,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    if !checked.has_errors() {
        if update {
            let text = checked.lock().to_text();
            let old = std::fs::read_to_string(lock).unwrap_or_default();
            if old != text {
                if let Err(e) = std::fs::write(lock, &text) {
                    eprintln!("error: cannot write {}: {e}", lock.display());
                    return ExitCode::from(2);
                }
                eprintln!("wrote {}: commit it with the tool files", lock.display());
            } else {
                eprintln!("{} is up to date", lock.display());
            }
            return ExitCode::SUCCESS;
        }
        if let Err(e) = builder.apply_lock(&mut checked) {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    }
    if !checked.diagnostics().is_empty() {
        eprint!("{}", checked.diagnostics().render(color));
    }
    for note in checked.notes() {
        eprintln!("{note}");
    }
    if checked.has_errors() {
        ExitCode::FAILURE
    } else {
        if checked.notes().is_empty() {
            eprintln!("{} matches the tools", lock.display());
        }
        ExitCode::SUCCESS
    }
}

/// The lock of a catalog: a lock file as it is, a directory's tools, or a
/// directory as a git revision holds it (`REV:DIR`, such as `main:tools`).
fn catalog(path: &Path, base: &Builder) -> Result<Lock, String> {
    if !path.exists()
        && let Some((rev, dir)) = path.to_str().and_then(|p| p.split_once(':'))
    {
        return catalog_at(rev, dir, base);
    }
    if path.is_file() {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        return Lock::parse(&text).map_err(|e| format!("{}: {e}", path.display()));
    }
    let checked = base.clone().dir(path).check().map_err(|e| e.to_string())?;
    if checked.has_errors() {
        return Err(checked.diagnostics().render(false));
    }
    Ok(checked.lock())
}

/// The catalog of `dir` at git revision `rev`, its files written to a
/// directory of their own first.
fn catalog_at(rev: &str, dir: &str, base: &Builder) -> Result<Lock, String> {
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .args(args)
            .output()
            .map_err(|e| format!("cannot run git: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "git {}: {}",
                args.join(" "),
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(out.stdout)
    };
    let dir = dir.trim_end_matches('/');
    // The revision resolved once, and never read as an option.
    let tree = git(&[
        "rev-parse",
        "--verify",
        "--end-of-options",
        &format!("{rev}:{dir}"),
    ])?;
    let tree = String::from_utf8_lossy(&tree).trim().to_owned();
    let listed = git(&["ls-tree", "-z", "--name-only", "--end-of-options", &tree])?;
    let scratch = scratch_dir()?;
    let result = (|| {
        for name in listed.split(|&b| b == 0).filter(|n| !n.is_empty()) {
            let name = String::from_utf8_lossy(name).into_owned();
            if toolmetadata_load::metadata::Format::from_path(Path::new(&name)).is_none() {
                continue;
            }
            let text = git(&["cat-file", "blob", &format!("{tree}:{name}")])?;
            std::fs::write(scratch.join(&name), text)
                .map_err(|e| format!("cannot write {name}: {e}"))?;
        }
        catalog(&scratch, base)
    })();
    let _ = std::fs::remove_dir_all(&scratch);
    result
}

/// A new, empty directory of its own under the system's temporary one
/// (never one that was there already).
fn scratch_dir() -> Result<PathBuf, String> {
    let base = std::env::temp_dir();
    for attempt in 0..100u32 {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let dir = base.join(format!(
            "toolmetadata-diff-{}-{nanos}-{attempt}",
            std::process::id()
        ));
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(format!("cannot create {}: {e}", dir.display())),
        }
    }
    Err("cannot create a temporary directory".into())
}

pub(crate) fn diff_command(
    old: &Path,
    new: &Path,
    fail_on: Option<FailOn>,
    base: &Builder,
) -> ExitCode {
    let (old, new) = match (catalog(old, base), catalog(new, base)) {
        (Ok(old), Ok(new)) => (old, new),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let changes = old.changes(&new);
    let mut stdout = std::io::stdout().lock();
    for change in &changes {
        let mut text = format!(
            "{:<10} {}: {}",
            change.class.to_string(),
            change.tool,
            change.what
        );
        if let Some(was) = &change.old {
            text.push_str(&format!("\n           was: {was}"));
        }
        if let Some(now) = &change.new {
            text.push_str(&format!("\n           now: {now}"));
        }
        if writeln!(stdout, "{text}").is_err() {
            return ExitCode::from(2);
        }
    }
    if changes.is_empty() {
        eprintln!("no change");
    }
    let threshold = fail_on.map(|f| match f {
        FailOn::Wording => Class::Wording,
        FailOn::Compatible => Class::Compatible,
        FailOn::Breaking => Class::Breaking,
    });
    if threshold.is_some_and(|t| changes.iter().any(|c| c.class >= t)) {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
