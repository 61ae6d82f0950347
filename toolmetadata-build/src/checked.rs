//! [`Checked`]: what checking the tool files found, and what a build script
//! prints of it.

use std::path::{Path, PathBuf};

use toolmetadata_load::metadata::ToolMetadata;
use toolmetadata_load::{Diagnostic, Diagnostics, Severity};

use crate::{load, lock};

/// What [`Builder::check`](crate::Builder::check) found: the tools that loaded, and every diagnostic
/// (errors and warnings) of every file.
#[derive(Debug)]
pub struct Checked {
    pub(crate) tools: Vec<load::LoadedTool>,
    pub(crate) files: Vec<PathBuf>,
    pub(crate) diagnostics: Diagnostics,
    pub(crate) ignored: Vec<load::Ignored>,
    pub(crate) watched: Vec<PathBuf>,
    /// What the author should know that is no problem (a lock written).
    pub(crate) notes: Vec<String>,
}

impl Checked {
    /// Every file read, in the order of the builder's sources (a directory's
    /// files sorted by name).
    pub fn files(&self) -> &[PathBuf] {
        &self.files
    }

    /// The tool a file describes, when it loaded (it may still be named in an
    /// error across files).
    pub fn tool(&self, file: &Path) -> Option<&ToolMetadata> {
        self.tools.iter().find(|t| t.path == file).map(|t| &t.tool)
    }

    /// Every diagnostic, errors and warnings, sorted by file and position.
    pub fn diagnostics(&self) -> &Diagnostics {
        &self.diagnostics
    }

    /// The errors about `file`.
    pub fn errors_of(&self, file: &Path) -> Vec<&Diagnostic> {
        let shown = load::shown(file);
        self.diagnostics
            .iter()
            .filter(|d| d.severity() == Severity::Error && d.file().path() == shown)
            .collect()
    }

    /// Whether any diagnostic is an error: the build would fail.
    pub fn has_errors(&self) -> bool {
        self.diagnostics.has_errors()
    }

    /// The lock of the tools that loaded, as they are now.
    pub fn lock(&self) -> lock::Lock {
        lock::Lock::of(self.tools.iter().map(|t| &t.tool))
    }

    /// What the author should know that is no problem, such as a catalog
    /// lock written ([`Builder::apply_lock`](crate::Builder::apply_lock)).
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// Files in the directories that look like tool files but were not
    /// loaded: their extension not lower case, YAML without the feature, or
    /// in a subdirectory (only the files directly in a directory are read).
    pub fn ignored_files(&self) -> impl Iterator<Item = &Path> {
        self.ignored.iter().map(|i| i.path.as_path())
    }

    /// The warning for each of [`Checked::ignored_files`]: why it is not
    /// loaded (a YAML file without the `yaml` feature names the feature).
    /// Files in subdirectories get a warning each up to ten, then one that
    /// counts the rest.
    pub fn ignored_warnings(&self) -> Vec<String> {
        const NESTED_SHOWN: usize = 10;
        let (nested, direct): (Vec<_>, Vec<_>) =
            self.ignored.iter().partition(|i| i.beneath.is_some());
        let mut warnings: Vec<String> = direct.into_iter().map(load::ignored_warning).collect();
        warnings.extend(
            nested
                .iter()
                .take(NESTED_SHOWN)
                .map(|i| load::ignored_warning(i)),
        );
        if nested.len() > NESTED_SHOWN {
            warnings.push(format!(
                "{} more files in subdirectories are not loaded either",
                nested.len() - NESTED_SHOWN
            ));
        }
        warnings
    }

    /// `cargo:rerun-if-changed` for every directory scanned and every file
    /// read outside one (Cargo scans a directory's whole tree), and a
    /// `cargo:warning` line for every warning: one line each, since Cargo
    /// shows each line as a warning of its own.
    pub(crate) fn print_cargo_directives(&self) {
        let directories: Vec<&PathBuf> = self.watched.iter().filter(|p| p.is_dir()).collect();
        for path in &self.watched {
            let covered = !path.is_dir() && directories.iter().any(|d| path.starts_with(d));
            if !covered {
                println!("cargo:rerun-if-changed={}", path.display());
            }
        }
        for warning in self.ignored_warnings() {
            cargo_warning(&warning);
        }
        for note in &self.notes {
            cargo_warning(note);
        }
        for warning in self
            .diagnostics
            .iter()
            .filter(|d| d.severity() == Severity::Warning)
        {
            cargo_warning(&one_line(warning));
        }
    }
}

/// A warning on one line, as rustc's short format has it:
/// `path:line:column: warning[rule]: message (help: …)`.
fn one_line(warning: &Diagnostic) -> String {
    let mut line = format!(
        "{}: warning[{}]: {}",
        warning.location(),
        warning.rule().code(),
        warning.message()
    );
    if let Some(help) = warning.help() {
        line.push_str(&format!(" (help: {help})"));
    }
    line
}

/// One `cargo:warning` line: a line break in `text` would end the
/// directive and show the rest as stray output.
fn cargo_warning(text: &str) {
    println!("cargo:warning={}", text.replace(['\n', '\r'], " "));
}
