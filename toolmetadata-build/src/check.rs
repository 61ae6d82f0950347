//! Checks across files: one tool name per file, one Rust name per tool, and
//! builder options that name tools and parameters that exist.

use std::collections::BTreeMap;
use std::sync::Arc;

use toolmetadata::metadata::names;
use toolmetadata::{Diagnostic, Rule, SourceFile};

use crate::load::{LoadedTool, shown};

/// Errors about tools that clash with each other, each naming both files.
pub(crate) fn clashes(tools: &[LoadedTool]) -> Vec<Diagnostic> {
    let mut errors = Vec::new();
    let mut by_name: BTreeMap<&str, &LoadedTool> = BTreeMap::new();
    let mut by_method: BTreeMap<String, &LoadedTool> = BTreeMap::new();
    for t in tools {
        let name = t.tool.name.as_str();
        if let Some(first) = by_name.get(name) {
            errors.push(file_error(
                t,
                Rule::DuplicateTool,
                format!(
                    "the tool `{name}` is defined twice: by {} and by {}",
                    shown(&first.path),
                    shown(&t.path)
                ),
                "one file per tool: rename or remove one of them",
            ));
            continue;
        }
        by_name.insert(name, t);
        let stem = names::snake(name);
        if let Some(first) = by_method.get(&stem) {
            errors.push(file_error(
                t,
                Rule::RustNameCollision,
                format!(
                    "the tools `{}` ({}) and `{name}` ({}) both map to the Rust method `{}`",
                    first.tool.name,
                    shown(&first.path),
                    shown(&t.path),
                    names::method_name(name)
                ),
                "rename one of the files",
            ));
            continue;
        }
        by_method.insert(stem, t);
    }
    errors
}

/// An error about a whole file (no position in it).
pub(crate) fn file_error(tool: &LoadedTool, rule: Rule, message: String, help: &str) -> Diagnostic {
    let file = Arc::new(SourceFile::new(shown(&tool.path), ""));
    Diagnostic::error(rule, file, message).with_help(help)
}
