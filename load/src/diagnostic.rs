//! Diagnostics: what went wrong in a metadata file, where, and how to fix it.
//!
//! Every diagnostic carries a stable [`Rule`] code, a message that names the tool,
//! parameter, key or value involved, labelled spans into the source file, and a
//! `help:` line where a suggestion fits. [`Diagnostic`]'s `Display` renders it the way
//! rustc does, with `annotate-snippets`.

use std::fmt;
use std::ops::Range;
use std::sync::Arc;

use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};

/// A metadata file's text, kept with the path it is shown under in diagnostics.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceFile {
    path: String,
    text: String,
}

impl SourceFile {
    /// A file shown as `path` in diagnostics, holding `text`.
    pub fn new(path: impl Into<String>, text: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            text: text.into(),
        }
    }

    /// The path as diagnostics show it.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The file's text (invalid UTF-8 replaced by U+FFFD, for display only).
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The 1-based line and column (in characters) of a byte offset.
    pub fn line_column(&self, offset: usize) -> (usize, usize) {
        let offset = floor_char_boundary(&self.text, offset.min(self.text.len()));
        let before = &self.text[..offset];
        let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let column = before[line_start..].chars().count() + 1;
        (line, column)
    }
}

fn floor_char_boundary(text: &str, mut offset: usize) -> usize {
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

/// A byte range in a [`SourceFile`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

impl Span {
    /// The span from `start` to `end`.
    pub fn new(start: usize, end: usize) -> Self {
        Self { start, end }
    }

    pub(crate) fn shifted(self, by: usize) -> Self {
        Self::new(self.start + by, self.end + by)
    }

    fn range(self) -> Range<usize> {
        self.start..self.end
    }
}

/// How bad a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Severity {
    /// The file is rejected.
    #[default]
    Error,
    /// Reported, but the file still loads.
    Warning,
}

macro_rules! rules {
    ($($(#[$doc:meta])* $variant:ident => $code:literal,)*) => {
        /// The stable code of a diagnostic: the rule it enforces.
        ///
        /// The codes are the rule names of the conformance data (`unknown-type`,
        /// `unknown-key`, …) and do not change between releases.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[non_exhaustive]
        pub enum Rule {
            $($(#[$doc])* $variant,)*
        }

        impl Rule {
            /// Every rule, in declaration order.
            pub const ALL: &'static [Rule] = &[$(Rule::$variant,)*];

            /// The rule's stable code, such as `unknown-type`.
            pub fn code(self) -> &'static str {
                match self {
                    $(Rule::$variant => $code,)*
                }
            }
        }
    };
}

rules! {
    /// Not valid TOML 1.1 or JSON, not UTF-8, or a top level that is not a table.
    Decode => "decode",
    /// A value of the wrong type.
    TypeMismatch => "type-mismatch",
    /// A key the format does not define.
    UnknownKey => "unknown-key",
    /// One key given twice in spellings that differ only in case.
    CaseDuplicateKey => "case-duplicate-key",
    /// One JSON key given twice in the same spelling.
    DuplicateKey => "duplicate-key",
    /// A `null` entry in `parameters` or `output`.
    NullParam => "null-param",
    /// A file stem that breaks the MCP tool-name rule.
    BadToolName => "bad-tool-name",
    /// A parameter name that is missing or breaks the naming rule.
    BadParamName => "bad-param-name",
    /// A parameter `type` that is missing or unknown.
    UnknownType => "unknown-type",
    /// Two parameters with one name.
    DuplicateParam => "duplicate-param",
    /// Two parameter names that map to one Rust field.
    ParamNameCollision => "param-name-collision",
    /// `enum` on a parameter that is not `string` or `array:string`.
    EnumOnNonString => "enum-on-non-string",
    /// An empty or ambiguous `enum`.
    BadEnum => "bad-enum",
    /// `default` together with `required = true`.
    DefaultWithRequired => "default-with-required",
    /// A `default` that is not a valid value of its parameter.
    BadDefault => "bad-default",
    /// A constraint on a parameter type it does not apply to.
    ConstraintOnWrongType => "constraint-on-wrong-type",
    /// A `minimum` or `maximum` that is not a whole number on an `int` parameter.
    BadConstraint => "bad-constraint",
    /// A lower bound above its upper bound.
    MinGtMax => "min-gt-max",
    /// A `pattern` the Rust `regex` crate cannot compile.
    BadPattern => "bad-pattern",
    /// `output` with no entries.
    EmptyOutput => "empty-output",
    /// `default` in an `output` parameter.
    DefaultInOutput => "default-in-output",
    /// `[ui]` with neither a `resourceUri` nor a `visibility`.
    EmptyUi => "empty-ui",
    /// A `resourceUri` that is not a `ui:` URI.
    BadUiUri => "bad-ui-uri",
    /// A `visibility` value other than `model` or `app`.
    BadUiVisibility => "bad-ui-visibility",
    /// An icon `src` that is missing, empty, or not `https:`/`data:`.
    IconSrc => "icon-src",
    /// An icon `theme` other than `light` or `dark`.
    IconTheme => "icon-theme",
    /// Two tool files that give one tool name.
    DuplicateTool => "duplicate-tool",
    /// Two tools (or generated types) that map to one Rust name.
    RustNameCollision => "rust-name-collision",
    /// `[confirm]` without a non-empty `message`.
    ConfirmMessage => "confirm-message",
    /// A `[confirm]` message placeholder that names no parameter, or a brace
    /// that pairs with none.
    ConfirmPlaceholder => "confirm-placeholder",
    /// `confirm.unsupported` other than `proceed` or `refuse`.
    ConfirmUnsupported => "confirm-unsupported",
    /// `outputText` without `[[output]]`, or a placeholder that names no
    /// output field, or shows one in a way its type cannot be shown.
    OutputText => "output-text",
    /// The quality check (`toolmetadata-build`'s `Builder::quality`): a tool
    /// or parameter with no description, or one that only repeats its name.
    QualityDescription => "quality-description",
    /// The quality check: an `enum` parameter with no description.
    QualityEnum => "quality-enum",
    /// The quality check: a tool that says neither `readOnly = true` nor
    /// whether it is `destructive`.
    QualityHints => "quality-hints",
    /// The quality check: a `destructive = true` tool without `[confirm]`.
    QualityConfirm => "quality-confirm",
    /// The quality check: two tools whose descriptions are nearly the same.
    QualityDuplicate => "quality-duplicate",
    /// A tool name MCP allows but OpenAI's and Anthropic's tool-use APIs
    /// refuse (anything but `^[a-zA-Z0-9_-]{1,64}$`); a warning by default.
    ClientToolName => "client-tool-name",
    /// `header` on a parameter that is not `string`, `int` or `bool`.
    HeaderOnWrongType => "header-on-wrong-type",
    /// An empty `header`.
    EmptyHeader => "empty-header",
    /// A `header` that is not an HTTP token (RFC 9110 `tchar`s).
    BadHeaderName => "bad-header-name",
    /// Two parameters of one tool with one `header` (case-insensitively).
    DuplicateHeader => "duplicate-header",
    /// `header` on an `output` parameter.
    HeaderInOutput => "header-in-output",
    /// A `task` other than `forbidden`, `optional` or `required`.
    BadTask => "bad-task",
    /// A `scopes` entry that is not an OAuth scope token (empty, or holding
    /// a space, a quote, a backslash or a character outside visible ASCII).
    BadScope => "bad-scope",
    /// A scope listed twice in `scopes`.
    DuplicateScope => "duplicate-scope",
    /// A `toolVersion` that is not a semantic version.
    BadVersion => "bad-version",
    /// A `toolGroups` entry that cannot be an endpoint's path segment, or
    /// one listed twice.
    BadGroup => "bad-group",
    /// A group that only one tool names (`toolmetadata-build`, a warning):
    /// an endpoint of one tool is more often a misspelt group name.
    LoneGroup => "lone-group",
    /// A `[lints]` level other than `allow`, `warn` or `deny`.
    BadLint => "bad-lint",
    /// A tool changed since the catalog lock without the `toolVersion`
    /// bump its change needs (`toolmetadata-build`'s lock).
    CatalogChange => "catalog-change",
    /// A catalog lock that cannot be read, or that is stale where it must
    /// not be updated.
    CatalogLock => "catalog-lock",
    /// A `[package.metadata.mcp]` table in `Cargo.toml` that cannot describe
    /// the server in its manifests (`toolmetadata-build`'s manifests).
    ServerManifest => "server-manifest",
    /// A `from` that names no source (`claim:NAME` or `header:NAME`), or a
    /// bound parameter that also takes what only model arguments take.
    BadSource => "bad-source",
    /// A `[[failures]]` entry without a `snake_case` code, a known class or a
    /// description.
    BadFailure => "bad-failure",
    /// One failure code declared twice.
    DuplicateFailure => "duplicate-failure",
    /// A `[limits]` value that is not a duration, a count or a rate.
    BadLimit => "bad-limit",
    /// A tool a targeted provider profile refuses, or whose constraints it
    /// cannot carry (`toolmetadata-build`'s `Builder::profiles`).
    ProviderProfile => "provider-profile",
    /// A tool that needs a feature of the `toolmetadata` crate its crate
    /// did not turn on (a `pattern` without `regex`, a bound parameter or
    /// `scopes` without `http`, …), found by `toolmetadata-build` in a build
    /// script.
    RuntimeFeature => "runtime-feature",
    /// A tool the checks themselves cannot take without a feature of
    /// `toolmetadata-build` its crate turned off (a `pattern` without
    /// `regex`: it could not be checked).
    BuildFeature => "build-feature",
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// A labelled place in the source a diagnostic points at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label {
    /// The bytes the label underlines.
    pub span: Span,
    /// The text shown under the caret (may be empty).
    pub text: String,
    /// The primary label is the place the diagnostic is about; others give context.
    pub primary: bool,
}

/// One problem found in a metadata file.
#[derive(Debug, Clone, PartialEq)]
pub struct Diagnostic {
    rule: Rule,
    severity: Severity,
    message: String,
    file: Arc<SourceFile>,
    labels: Vec<Label>,
    help: Option<String>,
}

impl Diagnostic {
    /// A new error about `file`, with no labels yet: it points at the whole file.
    pub fn error(rule: Rule, file: Arc<SourceFile>, message: impl Into<String>) -> Self {
        Self {
            rule,
            severity: Severity::Error,
            message: message.into(),
            file,
            labels: Vec::new(),
            help: None,
        }
    }

    /// Adds the primary label: the place this diagnostic is about.
    pub fn with_primary(mut self, span: Span, text: impl Into<String>) -> Self {
        self.labels.push(Label {
            span,
            text: text.into(),
            primary: true,
        });
        self
    }

    /// Adds a secondary label, giving context.
    pub fn with_secondary(mut self, span: Span, text: impl Into<String>) -> Self {
        self.labels.push(Label {
            span,
            text: text.into(),
            primary: false,
        });
        self
    }

    /// Sets the `help:` line.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// Sets how severe the diagnostic is.
    pub fn with_severity(mut self, severity: Severity) -> Self {
        self.severity = severity;
        self
    }

    /// The rule broken, with its stable code.
    pub fn rule(&self) -> Rule {
        self.rule
    }

    /// Error or warning.
    pub fn severity(&self) -> Severity {
        self.severity
    }

    /// What is wrong, naming the tool, parameter, key or value.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The suggestion, if any.
    pub fn help(&self) -> Option<&str> {
        self.help.as_deref()
    }

    /// The labelled places, primary first.
    pub fn labels(&self) -> &[Label] {
        &self.labels
    }

    /// The file the diagnostic is about.
    pub fn file(&self) -> &SourceFile {
        &self.file
    }

    /// The primary span, or `None` when the diagnostic is about the whole file
    /// (such as its name).
    pub fn span(&self) -> Option<Span> {
        self.labels.iter().find(|l| l.primary).map(|l| l.span)
    }

    /// The 1-based line and column of the primary span, or `None` for a
    /// diagnostic about the whole file.
    pub fn line_column(&self) -> Option<(usize, usize)> {
        self.span().map(|s| self.file.line_column(s.start))
    }

    /// Where the diagnostic points: `path:line:column`, or just the path.
    pub fn location(&self) -> String {
        match self.line_column() {
            Some((line, column)) => format!("{}:{line}:{column}", self.file.path),
            None => self.file.path.clone(),
        }
    }

    /// Renders the diagnostic like rustc, with colours when `color` is true.
    pub fn render(&self, color: bool) -> String {
        let renderer = if color {
            Renderer::styled()
        } else {
            Renderer::plain()
        };
        let level = match self.severity {
            Severity::Error => Level::ERROR,
            Severity::Warning => Level::WARNING,
        };
        let title = level.primary_title(&self.message).id(self.rule.code());
        let mut group = if self.labels.is_empty() {
            Group::with_title(title).element(annotate_snippets::Origin::path(&self.file.path))
        } else {
            let text = self.file.text();
            let snippet =
                Snippet::source(text)
                    .path(&self.file.path)
                    .annotations(self.labels.iter().map(|label| {
                        let kind = if label.primary {
                            AnnotationKind::Primary
                        } else {
                            AnnotationKind::Context
                        };
                        kind.span(clamp(label.span, text).range())
                            .label(non_empty(&label.text))
                    }));
            Group::with_title(title).element(snippet)
        };
        if let Some(help) = &self.help {
            group = group.element(Level::HELP.message(help));
        }
        renderer.render(&[group])
    }
}

fn non_empty(text: &str) -> Option<&str> {
    (!text.is_empty()).then_some(text)
}

/// Keeps a span inside the text and on character boundaries, so that rendering
/// never panics whatever a caller passes in.
fn clamp(span: Span, text: &str) -> Span {
    let start = floor_char_boundary(text, span.start.min(text.len()));
    let end = floor_char_boundary(text, span.end.clamp(start, text.len()));
    Span::new(start, end)
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render(false))
    }
}

/// The diagnostics of one or more files, sorted by file and position: the error
/// of a failed load.
///
/// `Display` and `Debug` both render every diagnostic like rustc, so that
/// `.unwrap()` and `fn main() -> Result<…>` print readable text.
#[derive(Clone, PartialEq, Default)]
pub struct Diagnostics {
    items: Vec<Diagnostic>,
}

impl Diagnostics {
    /// Collects diagnostics, sorted by file, then position (file-level ones first);
    /// diagnostics at one position keep their order.
    pub fn new(mut items: Vec<Diagnostic>) -> Self {
        items.sort_by_key(|d| (d.file.path.clone(), d.span().map(|s| s.start)));
        Self { items }
    }

    /// The diagnostics, in order.
    pub fn iter(&self) -> std::slice::Iter<'_, Diagnostic> {
        self.items.iter()
    }

    /// How many diagnostics there are.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// True when at least one is an error.
    pub fn has_errors(&self) -> bool {
        self.items.iter().any(|d| d.severity == Severity::Error)
    }

    /// Adds the diagnostics of another set, keeping the order.
    pub fn extend(&mut self, other: Diagnostics) {
        self.items.extend(other.items);
        let items = std::mem::take(&mut self.items);
        *self = Self::new(items);
    }

    /// Renders every diagnostic like rustc, followed by a summary line.
    pub fn render(&self, color: bool) -> String {
        let mut out = String::new();
        for d in &self.items {
            out.push_str(&d.render(color));
            out.push_str("\n\n");
        }
        let errors = self
            .items
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count();
        if errors > 0 {
            let plural = if errors == 1 { "" } else { "s" };
            out.push_str(&format!(
                "error: tool metadata has {errors} error{plural}\n"
            ));
        }
        out
    }
}

impl IntoIterator for Diagnostics {
    type Item = Diagnostic;
    type IntoIter = std::vec::IntoIter<Diagnostic>;

    fn into_iter(self) -> Self::IntoIter {
        self.items.into_iter()
    }
}

impl<'a> IntoIterator for &'a Diagnostics {
    type Item = &'a Diagnostic;
    type IntoIter = std::slice::Iter<'a, Diagnostic>;

    fn into_iter(self) -> Self::IntoIter {
        self.items.iter()
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render(false))
    }
}

impl fmt::Debug for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render(false))
    }
}

impl std::error::Error for Diagnostics {}
