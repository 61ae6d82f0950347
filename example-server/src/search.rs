//! Handlers of the search tools, on ripgrep's libraries: `.gitignore` and
//! hidden files respected by `ignore`, contents searched by `grep-searcher`.

use std::path::Path;

use grep_regex::RegexMatcherBuilder;
use grep_searcher::sinks::UTF8;
use grep_searcher::{BinaryDetection, SearcherBuilder};
use ignore::WalkBuilder;
use toolmetadata::{ToolError, ToolResult};

use crate::roots::Roots;
use crate::tools::*;

fn walker(dir: &Path) -> WalkBuilder {
    let mut walk = WalkBuilder::new(dir);
    // .gitignore applies even outside a git repository; links are not followed,
    // so a search cannot leave the roots.
    walk.require_git(false)
        .follow_links(false)
        .sort_by_file_name(|a, b| a.cmp(b));
    walk
}

fn relative(path: &Path, base: &Path) -> String {
    path.strip_prefix(base)
        .unwrap_or(path)
        .display()
        .to_string()
}

pub(crate) fn search_files(roots: &Roots, args: SearchFilesArgs) -> ToolResult<SearchFilesOutput> {
    let base = roots.existing(&args.path)?;
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
    let max = usize::try_from(args.max_results).unwrap_or(usize::MAX);
    let mut searcher = SearcherBuilder::new()
        .binary_detection(BinaryDetection::quit(b'\x00'))
        .line_number(true)
        .build();
    let display_base = if base.is_dir() {
        base.clone()
    } else {
        base.parent().unwrap_or(&base).to_owned()
    };
    let mut matches = Vec::new();
    let mut truncated = false;
    for entry in walker(&base).build().filter_map(Result::ok) {
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
        let result = searcher.search_path(
            &matcher,
            entry.path(),
            UTF8(|line_number, line| {
                if matches.len() >= max {
                    truncated = true;
                    return Ok(false);
                }
                matches.push(format!(
                    "{shown}:{line_number}:{}",
                    line.trim_end_matches(['\n', '\r'])
                ));
                Ok(true)
            }),
        );
        if let Err(e) = result {
            tracing::debug!("skipping {}: {e}", entry.path().display());
        }
        if truncated {
            break;
        }
    }
    Ok(SearchFilesOutput { matches, truncated })
}

pub(crate) fn find_files(roots: &Roots, args: FindFilesArgs) -> ToolResult<FindFilesOutput> {
    let base = roots.existing(&args.path)?;
    let glob = globset::GlobBuilder::new(&args.glob)
        .literal_separator(false)
        .build()
        .map_err(|e| ToolError::new(format!("`glob` {:?} is not a valid glob: {e}", args.glob)))?
        .compile_matcher();
    let max = usize::try_from(args.max_results).unwrap_or(usize::MAX);
    let mut files = Vec::new();
    let mut truncated = false;
    for entry in walker(&base).build().filter_map(Result::ok) {
        if entry.depth() == 0 || entry.file_type().is_some_and(|t| t.is_dir()) {
            continue;
        }
        let shown = relative(entry.path(), &base);
        if glob.is_match(&shown) || glob.is_match(entry.file_name()) {
            if files.len() >= max {
                truncated = true;
                break;
            }
            files.push(shown);
        }
    }
    files.sort();
    Ok(FindFilesOutput { files, truncated })
}
