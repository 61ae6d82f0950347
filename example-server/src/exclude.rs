//! `exclude_patterns` of `directory_tree`, `search_files` and `find_files`:
//! globs of entries to leave out. A pattern without `/` matches an entry's
//! name at any depth (`node_modules`, `*.log`); a pattern with `/` matches the
//! path relative to the directory walked (`src/gen/**`), where `*` stays
//! within one component and `**` crosses them. An excluded directory is not
//! descended into.

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use toolmetadata::ToolError;

/// The compiled patterns of one call.
#[derive(Debug)]
pub(crate) struct Exclude {
    names: GlobSet,
    paths: GlobSet,
    empty: bool,
}

impl Exclude {
    /// Compiles `patterns`; an invalid one is an error naming it and its index.
    pub(crate) fn new(patterns: &[String]) -> Result<Self, ToolError> {
        let mut names = GlobSetBuilder::new();
        let mut paths = GlobSetBuilder::new();
        for (i, pattern) in patterns.iter().enumerate() {
            let trimmed = pattern.trim_end_matches('/');
            if trimmed.is_empty() {
                return Err(ToolError::new(format!(
                    "`exclude_patterns[{i}]` is empty; give a glob such as node_modules or *.log"
                )));
            }
            let glob = GlobBuilder::new(trimmed)
                .literal_separator(true)
                .build()
                .map_err(|e| {
                    ToolError::new(format!(
                        "`exclude_patterns[{i}]` {pattern:?} is not a valid glob: {e}"
                    ))
                })?;
            if trimmed.contains('/') {
                paths.add(glob);
            } else {
                names.add(glob);
            }
        }
        let build = |b: GlobSetBuilder| {
            b.build()
                .map_err(|e| ToolError::new(format!("`exclude_patterns`: {e}")))
        };
        Ok(Exclude {
            names: build(names)?,
            paths: build(paths)?,
            empty: patterns.is_empty(),
        })
    }

    /// Whether the entry at `relative` (from the walked directory, `/`
    /// separated), named `name`, is left out.
    pub(crate) fn excludes(&self, relative: &str, name: &str) -> bool {
        !self.empty && (self.names.is_match(name) || self.paths.is_match(relative))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exclude(patterns: &[&str]) -> Exclude {
        Exclude::new(&patterns.iter().map(|p| (*p).to_owned()).collect::<Vec<_>>()).expect("valid")
    }

    #[test]
    fn names_match_at_any_depth_and_paths_from_the_top() {
        let e = exclude(&["node_modules", "*.log", "src/gen/**", "docs/"]);
        assert!(e.excludes("a/b/node_modules", "node_modules"));
        assert!(e.excludes("x.log", "x.log"));
        assert!(e.excludes("deep/er/x.log", "x.log"));
        assert!(e.excludes("src/gen/a/b.rs", "b.rs"));
        assert!(e.excludes("docs", "docs"));
        assert!(!e.excludes("lib/src/gen/b.rs", "b.rs"));
        assert!(!e.excludes("src/main.rs", "main.rs"));
        assert!(!exclude(&[]).excludes("anything", "anything"));
    }

    #[test]
    fn bad_patterns_are_named() {
        let e = Exclude::new(&["ok".to_owned(), "a[".to_owned()]).unwrap_err();
        assert!(
            e.message().starts_with("`exclude_patterns[1]` \"a[\""),
            "{e}"
        );
        let e = Exclude::new(&["/".to_owned()]).unwrap_err();
        assert!(e.message().contains("is empty"), "{e}");
    }
}
