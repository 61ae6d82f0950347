//! Document tree → raw tool: every key matched (ASCII case-insensitively) against
//! the format's keys, every value's type checked, spans kept for the checks that
//! follow. Unknown, repeated and mistyped keys are reported here.

use super::Number;
use super::keys::{
    CONFIRM_KEYS, FAILURE_KEYS, ICON_KEYS, LIMITS_KEYS, LINT_KEYS, PARAM_KEYS, TOP_KEYS, UI_KEYS,
};
use super::report::Report;
use super::tree::{Entry, Node, Value, quote};
use crate::diagnostic::{Rule, Severity, Span};

/// A value with the span of its key and of itself.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Sp<T> {
    pub(crate) value: T,
    pub(crate) key: Span,
    pub(crate) span: Span,
}

impl<T> Sp<T> {
    fn new(value: T, entry: &Entry) -> Self {
        Sp {
            value,
            key: entry.key_span,
            span: entry.node.span,
        }
    }
}

/// A string item of an array, with its own span.
pub(crate) type Item = (String, Span);

#[derive(Debug, Default)]
pub(crate) struct RawTool {
    pub(crate) description: Option<Sp<String>>,
    pub(crate) title: Option<Sp<String>>,
    pub(crate) keywords: Option<Sp<Vec<Item>>>,
    pub(crate) discoverable: Option<Sp<bool>>,
    pub(crate) parameters: Vec<RawParam>,
    pub(crate) output: Option<Sp<Vec<RawParam>>>,
    pub(crate) output_text: Option<Sp<String>>,
    pub(crate) read_only: Option<Sp<bool>>,
    pub(crate) destructive: Option<Sp<bool>>,
    pub(crate) idempotent: Option<Sp<bool>>,
    pub(crate) open_world: Option<Sp<bool>>,
    pub(crate) ui: Option<Sp<RawUi>>,
    pub(crate) icons: Vec<RawIcon>,
    pub(crate) confirm: Option<Sp<RawConfirm>>,
    /// `task` (ext): whether the tool runs as a task.
    pub(crate) task: Option<Sp<String>>,
    pub(crate) scopes: Option<Sp<Vec<Item>>>,
    pub(crate) groups: Option<Sp<Vec<Item>>>,
    pub(crate) version: Option<Sp<String>>,
    pub(crate) limits: Option<Sp<RawLimits>>,
    /// `[lints]`: each rule's level, as written.
    pub(crate) lints: Vec<(&'static str, Sp<String>)>,
    pub(crate) failures: Vec<RawFailure>,
}

#[derive(Debug, Default)]
pub(crate) struct RawFailure {
    pub(crate) span: Span,
    pub(crate) code: Option<Sp<String>>,
    pub(crate) class: Option<Sp<String>>,
    pub(crate) retryable: Option<Sp<bool>>,
    pub(crate) description: Option<Sp<String>>,
}

#[derive(Debug, Default)]
pub(crate) struct RawParam {
    /// 1-based position in its array.
    pub(crate) index: usize,
    pub(crate) is_output: bool,
    /// The whole table (for TOML `[[parameters]]`, its header).
    pub(crate) span: Span,
    pub(crate) name: Option<Sp<String>>,
    pub(crate) ty: Option<Sp<String>>,
    /// `name` or `type` given, though perhaps not as a string.
    pub(crate) has_name: bool,
    pub(crate) has_type: bool,
    pub(crate) description: Option<Sp<String>>,
    pub(crate) required: Option<Sp<bool>>,
    pub(crate) enum_values: Option<Sp<Vec<Item>>>,
    pub(crate) default: Option<Sp<Node>>,
    pub(crate) minimum: Option<Sp<Number>>,
    pub(crate) maximum: Option<Sp<Number>>,
    pub(crate) min_length: Option<Sp<u64>>,
    pub(crate) max_length: Option<Sp<u64>>,
    pub(crate) pattern: Option<Sp<String>>,
    pub(crate) min_items: Option<Sp<u64>>,
    pub(crate) max_items: Option<Sp<u64>>,
    /// `header` (ext): the HTTP header the argument is mirrored into.
    pub(crate) header: Option<Sp<String>>,
    /// `from` (ext): where a bound parameter's value comes from.
    pub(crate) from: Option<Sp<String>>,
}

impl RawParam {
    /// How messages name the parameter: `parameter `x``, or `parameter 2` when it
    /// has no usable name.
    pub(crate) fn reference(&self) -> String {
        let kind = if self.is_output {
            "output parameter"
        } else {
            "parameter"
        };
        match &self.name {
            Some(name) if is_plain(&name.value) => format!("{kind} `{}`", name.value),
            Some(name) => format!("{kind} {}", quote(&name.value)),
            None => format!("{kind} {}", self.index),
        }
    }
}

/// Printable ASCII without quotes or backticks, shown in backticks as it is.
fn is_plain(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_graphic() && c != '`' && c != '"' || c == ' ')
}

#[derive(Debug, Default)]
pub(crate) struct RawUi {
    pub(crate) resource_uri: Option<Sp<String>>,
    pub(crate) visibility: Option<Sp<Vec<Item>>>,
}

#[derive(Debug, Default)]
pub(crate) struct RawConfirm {
    pub(crate) message: Option<Sp<String>>,
    pub(crate) unsupported: Option<Sp<String>>,
}

#[derive(Debug, Default)]
pub(crate) struct RawLimits {
    pub(crate) timeout: Option<Sp<String>>,
    pub(crate) concurrency: Option<Sp<u64>>,
    pub(crate) rate: Option<Sp<String>>,
}

#[derive(Debug, Default)]
pub(crate) struct RawIcon {
    pub(crate) index: usize,
    pub(crate) span: Span,
    pub(crate) src: Option<Sp<String>>,
    pub(crate) mime_type: Option<Sp<String>>,
    pub(crate) sizes: Option<Sp<Vec<Item>>>,
    pub(crate) theme: Option<Sp<String>>,
}

/// Reads the document tree of one file into a raw tool, reporting each
/// problem to the file's [`Report`].
pub(crate) struct Reader<'r> {
    pub(crate) report: &'r mut Report,
    pub(crate) unknown_keys: Severity,
}

impl Reader<'_> {
    /// Reads the top-level table.
    pub(crate) fn tool(&mut self, entries: &[Entry]) -> RawTool {
        let mut tool = RawTool::default();
        for (key, entry) in self.fields(entries, TOP_KEYS, "at top level") {
            let place = "at top level";
            match key {
                "description" => tool.description = self.string(entry, place),
                "title" => tool.title = self.string(entry, place),
                "keywords" => tool.keywords = self.strings(entry, place),
                "discoverable" => tool.discoverable = self.boolean(entry, place),
                "readOnly" => tool.read_only = self.boolean(entry, place),
                "destructive" => tool.destructive = self.boolean(entry, place),
                "idempotent" => tool.idempotent = self.boolean(entry, place),
                "openWorld" => tool.open_world = self.boolean(entry, place),
                "parameters" => {
                    if let Some(params) = self.params(entry, false) {
                        tool.parameters = params.value;
                    }
                }
                "output" => tool.output = self.params(entry, true),
                "outputText" => tool.output_text = self.string(entry, place),
                "ui" => tool.ui = self.ui(entry),
                "confirm" => tool.confirm = self.confirm(entry),
                "limits" => tool.limits = self.limits(entry),
                "lints" => tool.lints = self.lints(entry),
                "failures" => tool.failures = self.failures(entry),
                "icons" => tool.icons = self.icons(entry),
                "task" => tool.task = self.string(entry, place),
                "scopes" => tool.scopes = self.strings(entry, place),
                "toolVersion" => tool.version = self.string(entry, place),
                "toolGroups" => tool.groups = self.strings(entry, place),
                _ => {}
            }
        }
        tool
    }

    /// The entries of a table whose keys the format knows, by canonical key, with
    /// unknown and repeated keys reported. JSON `null` counts as absent.
    fn fields<'e>(
        &mut self,
        entries: &'e [Entry],
        known: &[&'static str],
        place: &str,
    ) -> Vec<(&'static str, &'e Entry)> {
        let mut found: Vec<(&'static str, &'e Entry)> = Vec::new();
        for entry in entries {
            let Some(&canonical) = known.iter().find(|k| k.eq_ignore_ascii_case(&entry.key)) else {
                self.unknown_key(entry, known, place);
                continue;
            };
            if let Some((_, first)) = found.iter().find(|(k, _)| *k == canonical) {
                let d = if first.key == entry.key {
                    self.report
                        .error(
                            Rule::DuplicateKey,
                            format!("key `{}` is given twice {place}", entry.key),
                        )
                        .with_primary(entry.key_span, "given again here")
                } else {
                    self.report
                        .error(
                            Rule::CaseDuplicateKey,
                            format!(
                                "key `{}` repeats `{}` {place} (keys are case-insensitive)",
                                entry.key, first.key
                            ),
                        )
                        .with_primary(entry.key_span, "the same key in another case")
                };
                let d = d
                    .with_secondary(first.key_span, "first given here")
                    .with_help("give each key once");
                self.report.push(d);
                continue;
            }
            found.push((canonical, entry));
        }
        found.retain(|(_, e)| e.node.value != Value::Null);
        found
    }

    fn unknown_key(&mut self, entry: &Entry, known: &[&str], place: &str) {
        let mut d = self
            .report
            .error(
                Rule::UnknownKey,
                format!("unknown key `{}` {place}", entry.key),
            )
            .with_primary(entry.key_span, "not a key of the format")
            .with_severity(self.unknown_keys);
        let hints = ["readOnly", "destructive", "idempotent", "openWorld"];
        if known == TOP_KEYS && entry.key.eq_ignore_ascii_case("annotations") {
            d = d.with_help(format!("hints are top-level keys: {}", hints.join(", ")));
        } else if let Some(meant) = toolmetadata_core::closest(&entry.key, known) {
            d = d.with_help(format!("did you mean `{meant}`?"));
        } else {
            d = d.with_help(format!("the keys {place} are: {}", known.join(", ")));
        }
        self.report.push(d);
    }

    fn mismatch(&mut self, entry: &Entry, place: &str, expected: &str) {
        let found = entry.node.value.describe(self.report.syntax);
        self.report.push(
            self.report
                .error(
                    Rule::TypeMismatch,
                    format!(
                        "key `{}` {place} must be {expected}, found {found}",
                        entry.key
                    ),
                )
                .with_primary(entry.node.span, format!("expected {expected}")),
        );
    }

    fn string(&mut self, entry: &Entry, place: &str) -> Option<Sp<String>> {
        match &entry.node.value {
            Value::String(s) => Some(Sp::new(s.clone(), entry)),
            _ => {
                self.mismatch(entry, place, "a string");
                None
            }
        }
    }

    fn boolean(&mut self, entry: &Entry, place: &str) -> Option<Sp<bool>> {
        match entry.node.value {
            Value::Bool(b) => Some(Sp::new(b, entry)),
            _ => {
                self.mismatch(entry, place, "a boolean");
                None
            }
        }
    }

    fn strings(&mut self, entry: &Entry, place: &str) -> Option<Sp<Vec<Item>>> {
        let Value::Array(items) = &entry.node.value else {
            self.mismatch(entry, place, "an array of strings");
            return None;
        };
        let mut out = Vec::with_capacity(items.len());
        for item in items {
            match &item.value {
                Value::String(s) => out.push((s.clone(), item.span)),
                other => {
                    self.report.push(
self.report.error(
                            Rule::TypeMismatch,
                            format!(
                                "key `{}` {place} must be an array of strings, found an array holding {}",
                                entry.key,
                                other.describe(self.report.syntax)
                            ),
                        )
                        .with_primary(entry.node.span, "expected an array of strings")
                        .with_secondary(item.span, "not a string"),
                    );
                    return None;
                }
            }
        }
        Some(Sp::new(out, entry))
    }

    fn number(&mut self, entry: &Entry, place: &str) -> Option<Sp<Number>> {
        match entry.node.value {
            Value::Integer(i) => Some(Sp::new(Number::Integer(i), entry)),
            Value::Float(x) if x.is_finite() => Some(Sp::new(Number::Float(x), entry)),
            _ => {
                self.mismatch(entry, place, "a finite number");
                None
            }
        }
    }

    fn count(&mut self, entry: &Entry, place: &str) -> Option<Sp<u64>> {
        match entry.node.value {
            Value::Integer(i) if i >= 0 => Some(Sp::new(i.unsigned_abs(), entry)),
            _ => {
                self.mismatch(entry, place, "an integer ≥ 0");
                None
            }
        }
    }

    /// The tables of an array of tables, with their 1-based index; other entries
    /// reported.
    fn tables<'e>(
        &mut self,
        entry: &'e Entry,
        what: &str,
    ) -> Option<Vec<(usize, Span, &'e [Entry])>> {
        let Value::Array(items) = &entry.node.value else {
            self.mismatch(entry, "at top level", "an array of tables");
            return None;
        };
        let mut tables = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let index = i + 1;
            match &item.value {
                Value::Table(entries) => tables.push((index, item.span, entries.as_slice())),
                Value::Null if what != "icon" => {
                    self.report.push(
                        self.report
                            .error(
                                Rule::NullParam,
                                format!("{what} entry {index} in `{}` is null", entry.key),
                            )
                            .with_primary(item.span, "null here")
                            .with_help(format!("remove the null, or write the {what} as a table")),
                    );
                }
                other => {
                    self.report.push(
                        self.report
                            .error(
                                Rule::TypeMismatch,
                                format!(
                                    "{what} entry {index} in `{}` must be a table, found {}",
                                    entry.key,
                                    other.describe(self.report.syntax)
                                ),
                            )
                            .with_primary(item.span, "expected a table"),
                    );
                }
            }
        }
        Some(tables)
    }

    fn params(&mut self, entry: &Entry, is_output: bool) -> Option<Sp<Vec<RawParam>>> {
        let what = if is_output {
            "output parameter"
        } else {
            "parameter"
        };
        let tables = self.tables(entry, what)?;
        let params = tables
            .into_iter()
            .map(|(index, span, entries)| self.param(index, span, entries, is_output))
            .collect();
        Some(Sp::new(params, entry))
    }

    fn param(&mut self, index: usize, span: Span, entries: &[Entry], is_output: bool) -> RawParam {
        let mut param = RawParam {
            index,
            is_output,
            span,
            ..RawParam::default()
        };
        // The name first, so that messages about the other keys can use it.
        if let Some(name) = entries
            .iter()
            .find(|e| e.key.eq_ignore_ascii_case("name"))
            .and_then(|e| match &e.node.value {
                Value::String(s) => Some(Sp::new(s.clone(), e)),
                _ => None,
            })
        {
            param.name = Some(name);
        }
        let place = format!("in {}", param.reference());
        let place = place.as_str();
        for (key, entry) in self.fields(entries, PARAM_KEYS, place) {
            param.has_name |= key == "name";
            param.has_type |= key == "type";
            match key {
                "name" => param.name = self.string(entry, place),
                "type" => param.ty = self.string(entry, place),
                "description" => param.description = self.string(entry, place),
                "required" => param.required = self.boolean(entry, place),
                "enum" => param.enum_values = self.strings(entry, place),
                "default" => param.default = Some(Sp::new(entry.node.clone(), entry)),
                "minimum" => param.minimum = self.number(entry, place),
                "maximum" => param.maximum = self.number(entry, place),
                "minLength" => param.min_length = self.count(entry, place),
                "maxLength" => param.max_length = self.count(entry, place),
                "pattern" => param.pattern = self.string(entry, place),
                "minItems" => param.min_items = self.count(entry, place),
                "maxItems" => param.max_items = self.count(entry, place),
                "header" => param.header = self.string(entry, place),
                "from" => param.from = self.string(entry, place),
                _ => {}
            }
        }
        param
    }

    fn ui(&mut self, entry: &Entry) -> Option<Sp<RawUi>> {
        let Value::Table(entries) = &entry.node.value else {
            self.mismatch(entry, "at top level", "a table");
            return None;
        };
        let place = "in [ui]";
        let mut ui = RawUi::default();
        for (key, field) in self.fields(entries, UI_KEYS, place) {
            match key {
                "resourceUri" => ui.resource_uri = self.string(field, place),
                "visibility" => ui.visibility = self.strings(field, place),
                _ => {}
            }
        }
        Some(Sp::new(ui, entry))
    }

    fn confirm(&mut self, entry: &Entry) -> Option<Sp<RawConfirm>> {
        let Value::Table(entries) = &entry.node.value else {
            self.mismatch(entry, "at top level", "a table");
            return None;
        };
        let place = "in [confirm]";
        let mut confirm = RawConfirm::default();
        for (key, field) in self.fields(entries, CONFIRM_KEYS, place) {
            match key {
                "message" => confirm.message = self.string(field, place),
                "unsupported" => confirm.unsupported = self.string(field, place),
                _ => {}
            }
        }
        Some(Sp::new(confirm, entry))
    }

    fn lints(&mut self, entry: &Entry) -> Vec<(&'static str, Sp<String>)> {
        let Value::Table(entries) = &entry.node.value else {
            self.mismatch(entry, "at top level", "a table");
            return Vec::new();
        };
        let place = "in [lints]";
        let mut lints = Vec::new();
        for (rule, field) in self.fields(entries, LINT_KEYS, place) {
            if let Some(level) = self.string(field, place) {
                lints.push((rule, level));
            }
        }
        lints
    }

    fn limits(&mut self, entry: &Entry) -> Option<Sp<RawLimits>> {
        let Value::Table(entries) = &entry.node.value else {
            self.mismatch(entry, "at top level", "a table");
            return None;
        };
        let place = "in [limits]";
        let mut limits = RawLimits::default();
        for (key, field) in self.fields(entries, LIMITS_KEYS, place) {
            match key {
                "timeout" => limits.timeout = self.string(field, place),
                "concurrency" => limits.concurrency = self.count(field, place),
                "rate" => limits.rate = self.string(field, place),
                _ => {}
            }
        }
        Some(Sp::new(limits, entry))
    }

    fn failures(&mut self, entry: &Entry) -> Vec<RawFailure> {
        let Some(tables) = self.tables(entry, "failure") else {
            return Vec::new();
        };
        let mut failures = Vec::with_capacity(tables.len());
        for (_, span, entries) in tables {
            let place = "in [[failures]]";
            let mut failure = RawFailure {
                span,
                ..RawFailure::default()
            };
            for (key, field) in self.fields(entries, FAILURE_KEYS, place) {
                match key {
                    "code" => failure.code = self.string(field, place),
                    "class" => failure.class = self.string(field, place),
                    "retryable" => failure.retryable = self.boolean(field, place),
                    "description" => failure.description = self.string(field, place),
                    _ => {}
                }
            }
            failures.push(failure);
        }
        failures
    }

    fn icons(&mut self, entry: &Entry) -> Vec<RawIcon> {
        let Some(tables) = self.tables(entry, "icon") else {
            return Vec::new();
        };
        let mut icons = Vec::with_capacity(tables.len());
        for (index, span, entries) in tables {
            let place = format!("in icon {index}");
            let place = place.as_str();
            let mut icon = RawIcon {
                index,
                span,
                ..RawIcon::default()
            };
            for (key, field) in self.fields(entries, ICON_KEYS, place) {
                match key {
                    "src" => icon.src = self.string(field, place),
                    "mimeType" => icon.mime_type = self.string(field, place),
                    "sizes" => icon.sizes = self.strings(field, place),
                    "theme" => icon.theme = self.string(field, place),
                    _ => {}
                }
            }
            icons.push(icon);
        }
        icons
    }
}
