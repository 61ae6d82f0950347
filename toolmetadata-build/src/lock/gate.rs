//! The lock at build time: the catalog as it is against the lock file, each
//! changed tool let through only with the `toolVersion` bump its change
//! needs, and the lock rewritten when every change was bumped (unless it
//! is frozen, as in CI, where a stale lock fails instead).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use toolmetadata_load::diagnostic::{Rule, SourceFile, Span};
use toolmetadata_load::metadata::Version;
use toolmetadata_load::{Diagnostic, Severity};

use super::{Change, Class, Lock, version};
use crate::load::{LoadedTool, shown};
use crate::locate::{find_key, find_param};

/// What the build learned from the lock.
#[derive(Debug, Default)]
pub(crate) struct Outcome {
    /// A change the lock does not let through, or a frozen lock gone stale.
    pub(crate) diagnostics: Vec<Diagnostic>,
    /// The lock's new text, to write: every change was bumped enough (or
    /// there was no lock yet).
    pub(crate) rewrite: Option<String>,
    /// What to tell the author when the lock is rewritten.
    pub(crate) note: Option<String>,
}

/// Checks `tools` against the lock at `path` (its text `text`, `None` when
/// there is none yet). `severity` is what an unbumped change is; `frozen`
/// forbids rewriting the lock, so that any difference fails.
pub(crate) fn check(
    path: &Path,
    text: Option<&str>,
    tools: &[LoadedTool],
    severity: Severity,
    frozen: bool,
) -> Outcome {
    let now = Lock::of(tools.iter().map(|t| &t.tool));
    let now_text = now.to_text();
    let lock_file = || Arc::new(SourceFile::new(shown(path), text.unwrap_or_default()));
    let Some(text) = text else {
        if frozen {
            return stale(lock_file(), "there is no lock file yet");
        }
        return Outcome {
            rewrite: Some(now_text),
            note: Some(format!(
                "wrote the catalog lock {}: commit it beside the tool files",
                shown(path)
            )),
            ..Outcome::default()
        };
    };
    if text == now_text {
        return Outcome::default();
    }
    let old = match Lock::parse(text) {
        // The same lock written otherwise (line endings of a checkout, a
        // reformatting): no change; written again as the build writes it.
        Ok(old) if old == now => {
            return Outcome {
                rewrite: (!frozen).then_some(now_text),
                ..Outcome::default()
            };
        }
        Ok(old) => old,
        Err(why) => {
            let diagnostic = Diagnostic::error(
                Rule::CatalogLock,
                lock_file(),
                format!("the catalog lock {} cannot be read: {why}", shown(path)),
            )
            .with_help(format!(
                "restore it from version control, or write it anew with `toolmetadata lock --update {}`",
                shown(path.parent().unwrap_or(path))
            ));
            return Outcome {
                diagnostics: vec![diagnostic],
                ..Outcome::default()
            };
        }
    };
    let mut by_tool: BTreeMap<String, Vec<Change>> = BTreeMap::new();
    for change in old.changes(&now) {
        by_tool.entry(change.tool.clone()).or_default().push(change);
    }
    let mut diagnostics = Vec::new();
    for (name, changes) in &by_tool {
        let class = changes
            .iter()
            .map(|c| c.class)
            .max()
            .unwrap_or(Class::Wording);
        let loaded = tools.iter().find(|t| &t.tool.name == name);
        let old_version = old
            .tools()
            .get(name)
            .and_then(|l| l.version.as_deref())
            .and_then(|v| Version::parse(v).ok());
        let new_version = loaded
            .and_then(|t| t.tool.version.as_deref())
            .and_then(|v| Version::parse(v).ok());
        let problem = match (loaded, &old_version, &new_version) {
            // A new tool is an addition; a removed one breaks every caller
            // of it, and only accepting it (`lock --update`) says so.
            (None, _, _) => Some(format!(
                "tool `{name}` was removed (or renamed) since the lock: its callers break"
            )),
            (Some(_), None, _) if !old.tools().contains_key(name) => None,
            (Some(_), _, Some(new)) => match &old_version {
                None => None,
                Some(old) if version::covers(new, old, class) => None,
                Some(old) if new == old => Some(format!(
                    "tool `{name}` changed ({class}) since the lock without a `toolVersion` bump: it needs {} or above (it is {old})",
                    version::next_for(old, class)
                )),
                Some(old) => Some(format!(
                    "tool `{name}` changed ({class}) since the lock, and `toolVersion` {new} is too small a bump from {old}: it needs {} or above",
                    version::next_for(old, class)
                )),
            },
            (Some(_), Some(old), None) => Some(format!(
                "tool `{name}` changed ({class}) since the lock, and lost its `toolVersion` (was {old})"
            )),
            (Some(_), None, None) => Some(format!(
                "tool `{name}` changed ({class}) since the lock, and has no `toolVersion` to bump"
            )),
        };
        let Some(message) = problem else {
            continue;
        };
        let mut help = String::from("what changed:");
        for change in changes {
            help.push_str(&format!("\n  - {change}"));
            if let Some(old) = &change.old {
                help.push_str(&format!("\n      was: {old}"));
            }
            if let Some(new) = &change.new {
                help.push_str(&format!("\n      now: {new}"));
            }
        }
        help.push_str(&match (&old_version, loaded) {
            (_, None) => "\naccept the removal with `toolmetadata lock --update`, or bring the tool back".to_owned(),
            (Some(old), Some(_)) => format!(
                "\nset `toolVersion = \"{}\"` (a {} bump), or accept the change as it is with `toolmetadata lock --update`",
                version::next_for(old, class),
                bump_name(old, class)
            ),
            (None, Some(_)) => "\ndeclare a `toolVersion` (such as \"1.0.0\") and bump it with each change, or accept the change as it is with `toolmetadata lock --update`".to_owned(),
        });
        let diagnostic = match loaded {
            Some(tool) => located(tool, changes, message),
            None => {
                let file = lock_file();
                // A key of `tools`, as `to_text` indents it.
                let key = format!("\n    \"{name}\": {{");
                let at = file
                    .text()
                    .find(&key)
                    .map(|at| Span::new(at + 5, at + key.len()));
                let diagnostic = Diagnostic::error(Rule::CatalogChange, file, message);
                match at {
                    Some(span) => diagnostic.with_primary(span, "locked here"),
                    None => diagnostic,
                }
            }
        };
        // A frozen lock takes no change: an error whatever the severity.
        let severity = if frozen { Severity::Error } else { severity };
        diagnostics.push(diagnostic.with_help(help).with_severity(severity));
    }
    let accepted = diagnostics.is_empty();
    if frozen {
        if accepted {
            return stale(lock_file(), "the tools changed since it was written");
        }
        return Outcome {
            diagnostics,
            ..Outcome::default()
        };
    }
    // Warnings only: the build goes on, and the lock records what it saw,
    // so the same warning is not repeated on every build.
    let rewrite = (accepted || severity == Severity::Warning).then_some(now_text);
    let note = rewrite.as_ref().map(|_| {
        format!(
            "updated the catalog lock {} ({} tool(s) changed): commit it with the tool files",
            shown(path),
            by_tool.len()
        )
    });
    Outcome {
        diagnostics,
        rewrite,
        note,
    }
}

fn bump_name(old: &Version, class: Class) -> &'static str {
    let next = version::next_for(old, class);
    if next.major != old.major {
        "major"
    } else if next.minor != old.minor {
        "minor"
    } else {
        "patch"
    }
}

/// The error of a frozen lock that no longer matches.
fn stale(file: Arc<SourceFile>, why: &str) -> Outcome {
    let path = file.path().to_owned();
    let diagnostic = Diagnostic::error(
        Rule::CatalogLock,
        file,
        format!("the catalog lock {path} is stale: {why}"),
    )
    .with_help(
        "run `cargo build` without TOOLMETADATA_LOCKED (or `toolmetadata lock --update`) and commit the lock",
    );
    Outcome {
        diagnostics: vec![diagnostic],
        ..Outcome::default()
    }
}

/// The diagnostic about `tool`, pointing at its `toolVersion` and at the
/// first parameter a change is about, found in the file's text.
fn located(tool: &LoadedTool, changes: &[Change], message: String) -> Diagnostic {
    let text = std::fs::read_to_string(&tool.path).unwrap_or_default();
    let version = find_key(&text, "toolVersion");
    let param = changes
        .iter()
        .filter_map(|c| c.param.as_deref())
        .filter_map(|p| find_param(&text, p.split(['.', '[']).next().unwrap_or(p)))
        .next();
    let file = Arc::new(SourceFile::new(shown(&tool.path), text));
    let mut diagnostic = Diagnostic::error(Rule::CatalogChange, file, message);
    match (version, param) {
        (Some(v), Some(p)) => {
            diagnostic = diagnostic
                .with_primary(v, "bump this")
                .with_secondary(p, "changed here");
        }
        (Some(v), None) => diagnostic = diagnostic.with_primary(v, "bump this"),
        (None, Some(p)) => diagnostic = diagnostic.with_primary(p, "changed here"),
        (None, None) => {}
    }
    diagnostic
}
