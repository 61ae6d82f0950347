//! Handlers of the search tools, on ripgrep's libraries: the walk by
//! `ignore` (hidden files left out), contents searched by `grep-searcher`,
//! `.gitignore` and `.ignore` rules read by the server itself (`ignores`).
//!
//! The walk is by path, but every file is opened through its root's handle
//! (`handles`), so a file swapped for an outward link is refused, not read;
//! the names `find_files` returns are checked through the handle too. Lines,
//! replies and the memory one line may take are bounded (`limits`).

use std::path::Path;

use grep_regex::RegexMatcherBuilder;
use grep_searcher::sinks::UTF8;
use grep_searcher::{BinaryDetection, SearcherBuilder};
use ignore::WalkBuilder;
use toolmetadata::{ToolError, ToolResult};

use crate::confinement::{Confinement, Located};
use crate::exclude::Exclude;
use crate::handles;
use crate::ignores::Ignores;
use crate::limits::Limits;
use crate::tools::*;

/// A walk of `dir` that leaves out (and does not enter) what `exclude` names
/// and what the ignore rules beneath the root of `at` ignore.
fn walker(dir: &Path, exclude: Exclude, at: &Located<'_>) -> Result<WalkBuilder, ToolError> {
    let ignores = Ignores::new(at).map_err(|e| ToolError::new(at.error(&e).to_string()))?;
    let mut walk = WalkBuilder::new(dir);
    // The crate reads no ignore file itself (`ignores` does, through the
    // root's handle); links are not followed, so a search cannot leave the
    // roots.
    walk.git_ignore(false)
        .git_exclude(false)
        .git_global(false)
        .ignore(false)
        .parents(false)
        .follow_links(false)
        .sort_by_file_name(|a, b| a.cmp(b));
    let base = dir.to_owned();
    walk.filter_entry(move |entry| {
        entry.depth() == 0
            || !(exclude.excludes(
                &relative(entry.path(), &base),
                &entry.file_name().to_string_lossy(),
            ) || ignores.ignored(entry.path(), entry.file_type().is_some_and(|t| t.is_dir())))
    });
    Ok(walk)
}

fn relative(path: &Path, base: &Path) -> String {
    path.strip_prefix(base)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// `line` cut to at most `max` bytes on a character boundary, marked with `…`.
fn cut_line(line: &str, max: usize) -> String {
    if line.len() <= max {
        return line.to_owned();
    }
    let mut end = max;
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &line[..end])
}

/// The base of a search: its path for the walker, and the directory shown
/// paths are relative to. Checked through the handle, so that an outward link
/// is refused like any escape.
fn base(at: &Located<'_>) -> Result<(std::path::PathBuf, std::path::PathBuf), ToolError> {
    let meta = at.dir.metadata(&at.rel).map_err(|e| at.error(&e))?;
    let base = at.root.join(&at.rel);
    let display = if meta.is_dir() {
        base.clone()
    } else {
        base.parent().unwrap_or(&base).to_owned()
    };
    Ok((base, display))
}

/// A walked path beneath the root of `at`, as a path `handles` can open.
fn beneath<'a>(at: &Located<'a>, path: &'a Path, given: &'a str) -> Option<Located<'a>> {
    let rel = path.strip_prefix(at.root).ok()?;
    Some(Located {
        dir: at.dir,
        root: at.root,
        root_given: at.root_given,
        rel: if rel.as_os_str().is_empty() {
            Path::new(".").to_owned()
        } else {
            rel.to_owned()
        },
        given,
    })
}

fn count(n: usize) -> Option<i64> {
    (n > 0).then(|| i64::try_from(n).unwrap_or(i64::MAX))
}

pub(crate) fn search_files(
    roots: &Confinement,
    limits: Limits,
    args: SearchFilesArgs,
) -> ToolResult<SearchFilesOutput> {
    let at = roots.locate_followed(&args.path)?;
    let mut matcher = RegexMatcherBuilder::new();
    match args.case {
        SearchFilesCase::Sensitive => {}
        SearchFilesCase::Insensitive => {
            matcher.case_insensitive(true);
        }
        SearchFilesCase::Smart => {
            matcher.case_smart(true);
        }
    }
    let matcher = matcher
        .build(&args.pattern)
        .map_err(|e| ToolError::new(format!("`pattern` is not a valid regular expression: {e}")))?;
    let glob = match &args.glob {
        Some(g) => Some(
            globset::Glob::new(g)
                .map_err(|e| ToolError::new(format!("`glob` {g:?} is not a valid glob: {e}")))?
                .compile_matcher(),
        ),
        None => None,
    };
    let exclude = Exclude::new(&args.exclude_patterns)?;
    let (base, display_base) = base(&at)?;
    let max = usize::try_from(args.max_results).unwrap_or(usize::MAX);
    // A line longer than this is not held in memory: its file is skipped.
    let heap = usize::try_from(limits.max_file_bytes).unwrap_or(usize::MAX);
    let mut searcher = SearcherBuilder::new()
        .binary_detection(BinaryDetection::quit(b'\x00'))
        .line_number(true)
        .heap_limit(Some(heap))
        .build();
    let mut matches = Vec::new();
    let mut bytes = 0_usize;
    let mut truncated = false;
    let mut skipped = 0_usize;
    for entry in walker(&base, exclude, &at)?.build() {
        let Ok(entry) = entry else {
            skipped += 1;
            continue;
        };
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let shown = relative(entry.path(), &display_base);
        if glob
            .as_ref()
            .is_some_and(|g| !g.is_match(&shown) && !g.is_match(entry.file_name()))
        {
            continue;
        }
        let file = beneath(&at, entry.path(), &shown).map(|f| handles::open_read(&f));
        let Some(Ok(file)) = file else {
            skipped += 1;
            continue;
        };
        let result = searcher.search_file(
            &matcher,
            &file.into_std(),
            UTF8(|line_number, line| {
                let found = format!(
                    "{shown}:{line_number}:{}",
                    cut_line(line.trim_end_matches(['\n', '\r']), limits.max_line_bytes)
                );
                if matches.len() >= max || bytes + found.len() > limits.max_reply_bytes {
                    truncated = true;
                    return Ok(false);
                }
                bytes += found.len() + 4;
                matches.push(found);
                Ok(true)
            }),
        );
        if let Err(e) = result {
            tracing::debug!("skipping {}: {e}", entry.path().display());
            skipped += 1;
        }
        if truncated {
            break;
        }
    }
    Ok(SearchFilesOutput {
        matches,
        truncated,
        skipped: count(skipped),
    })
}

pub(crate) fn find_files(
    roots: &Confinement,
    limits: Limits,
    args: FindFilesArgs,
) -> ToolResult<FindFilesOutput> {
    let at = roots.locate_followed(&args.path)?;
    let glob = globset::GlobBuilder::new(&args.glob)
        .literal_separator(false)
        .build()
        .map_err(|e| ToolError::new(format!("`glob` {:?} is not a valid glob: {e}", args.glob)))?
        .compile_matcher();
    let exclude = Exclude::new(&args.exclude_patterns)?;
    let (base, _) = base(&at)?;
    let max = usize::try_from(args.max_results).unwrap_or(usize::MAX);
    let mut files = Vec::new();
    let mut bytes = 0_usize;
    let mut truncated = false;
    let mut skipped = 0_usize;
    for entry in walker(&base, exclude, &at)?.build() {
        let Ok(entry) = entry else {
            skipped += 1;
            continue;
        };
        if entry.depth() == 0 || entry.file_type().is_some_and(|t| t.is_dir()) {
            continue;
        }
        let shown = relative(entry.path(), &base);
        if glob.is_match(&shown) || glob.is_match(entry.file_name()) {
            // The walk went by name: the name must still lead to an entry
            // beneath the root, or a swapped directory could list outside.
            let inside = beneath(&at, entry.path(), &shown)
                .is_some_and(|f| f.dir.symlink_metadata(&f.rel).is_ok());
            if !inside {
                skipped += 1;
                continue;
            }
            if files.len() >= max || bytes + shown.len() > limits.max_reply_bytes {
                truncated = true;
                break;
            }
            bytes += shown.len() + 4;
            files.push(shown);
        }
    }
    files.sort();
    Ok(FindFilesOutput {
        files,
        truncated,
        skipped: count(skipped),
    })
}

#[cfg(test)]
mod tests {
    use super::cut_line;

    #[test]
    fn lines_are_cut_on_character_boundaries() {
        assert_eq!(cut_line("abc", 3), "abc");
        assert_eq!(cut_line("abcd", 3), "abc…");
        assert_eq!(cut_line("aé", 2), "a…");
    }
}
