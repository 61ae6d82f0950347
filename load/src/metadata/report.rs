//! [`Report`]: the problems found in one file. Reading and checking each add
//! to it, one statement per problem:
//! `self.report.push(self.report.error(rule, message).with_primary(span, label))`.

use std::sync::Arc;

use super::tree::Syntax;
use crate::diagnostic::{Diagnostic, Rule, SourceFile};

/// The file being loaded and every problem found in it so far.
pub(crate) struct Report {
    pub(crate) file: Arc<SourceFile>,
    pub(crate) syntax: Syntax,
    diagnostics: Vec<Diagnostic>,
}

impl Report {
    pub(crate) fn new(file: Arc<SourceFile>, syntax: Syntax) -> Self {
        Report {
            file,
            syntax,
            diagnostics: Vec::new(),
        }
    }

    /// An error about this file, to locate, explain and [`Report::push`].
    pub(crate) fn error(&self, rule: Rule, message: impl Into<String>) -> Diagnostic {
        Diagnostic::error(rule, self.file.clone(), message)
    }

    pub(crate) fn push(&mut self, diagnostic: Diagnostic) {
        self.diagnostics.push(diagnostic);
    }

    pub(crate) fn into_diagnostics(self) -> Vec<Diagnostic> {
        self.diagnostics
    }
}
