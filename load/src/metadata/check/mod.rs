//! Raw tool → checked [`ToolMetadata`]: every rule of FORMAT.md that is about
//! meaning rather than syntax, every error collected. One file per part of a
//! tool: `param` (names, types, enums), `constraint` (bounds, lengths,
//! patterns, defaults), `ui` (`[ui]` and icons), `protocol` (`header`, `task`);
//! this one the tool itself.

mod confirm;
mod constraint;
mod failures;
mod groups;
mod limits;
mod output_text;
mod param;
mod protocol;
mod scopes;
mod ui;

use std::collections::HashMap;

use super::names;
use super::read::{RawParam, RawTool, Sp};
use super::report::Report;
use super::tree::quote;
use crate::diagnostic::{Diagnostic, Rule, Span};
use crate::metadata::{Hints, ToolMetadata, ToolParameter};

const NAME_RULE: &str = "1 to 64 characters from A-Z a-z 0-9 _ - ., at least one a letter or digit";
const TOOL_NAME_RULE: &str =
    "MCP tool names are 1 to 128 characters from A-Z a-z 0-9 _ - ., at least one a letter or digit";

/// Checks raw tools, reporting each problem to the file's [`Report`].
pub(crate) struct Checker<'r> {
    pub(crate) report: &'r mut Report,
}

/// Why a name breaks the naming rule (`[A-Za-z0-9_.-]{1,max}` with a letter or
/// digit), or `None` when it follows it.
pub(crate) fn name_problem(name: &str, max: usize) -> Option<&'static str> {
    if name.is_empty() {
        Some("is empty")
    } else if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
    {
        Some("may only use A-Z a-z 0-9 _ - .")
    } else if name.len() > max {
        Some(if max == 64 {
            "is longer than 64 characters"
        } else {
            "is longer than 128 characters"
        })
    } else if !name.chars().any(|c| c.is_ascii_alphanumeric()) {
        Some("has no letter or digit")
    } else {
        None
    }
}

impl Checker<'_> {
    /// Checks the file stem as a tool name.
    pub(crate) fn check_tool_name(&mut self, name: &str) {
        if let Some(problem) = name_problem(name, 128) {
            self.report.push(
self.report.error(
                    Rule::BadToolName,
                    format!("tool name {} {problem}", quote(name)),
                )
                .with_help(format!(
                    "rename the file: {TOOL_NAME_RULE} (the tool name is the file name without its extension)"
                )),
            );
        }
    }

    pub(crate) fn check(&mut self, name: &str, raw: RawTool) -> ToolMetadata {
        let parameters = self.check_params(&raw.parameters);
        let output = raw.output.as_ref().map(|output| {
            if output.value.is_empty() {
                self.report.push(
self.report.error(
                        Rule::EmptyOutput,
                        "`output` has no entries (give at least one output parameter, or leave `output` out)",
                    )
                    .with_primary(output.key, "empty"),
                );
            }
            self.check_params(&output.value)
        });
        let output_text = raw
            .output_text
            .as_ref()
            .and_then(|t| self.check_output_text(t, output.as_deref()));
        let ui = raw.ui.as_ref().and_then(|ui| self.check_ui(ui));
        let icons = raw
            .icons
            .iter()
            .filter_map(|i| self.check_icon(i))
            .collect();
        let confirm = raw
            .confirm
            .as_ref()
            .and_then(|c| self.check_confirm(c, &parameters));
        let task = self.check_task(raw.task.as_ref());
        let scopes = raw
            .scopes
            .as_ref()
            .map(|s| self.check_scopes(s))
            .unwrap_or_default();
        let version = raw.version.as_ref().and_then(|v| self.check_version(v));
        let groups = raw
            .groups
            .as_ref()
            .map(|g| self.check_groups(g))
            .unwrap_or_default();
        let limits = raw
            .limits
            .as_ref()
            .map(|l| self.check_limits(l))
            .unwrap_or_default();
        let failures = self.check_failures(&raw.failures);
        let lints = self.check_lints(&raw.lints);
        let flag = |f: &Option<Sp<bool>>| f.as_ref().map(|b| b.value);
        ToolMetadata {
            name: name.to_owned(),
            description: raw.description.map(|d| d.value).unwrap_or_default(),
            title: raw.title.map(|t| t.value).filter(|t| !t.is_empty()),
            keywords: raw
                .keywords
                .map(|k| k.value.into_iter().map(|(s, _)| s).collect())
                .unwrap_or_default(),
            discoverable: flag(&raw.discoverable).unwrap_or(false),
            parameters,
            output,
            output_text,
            hints: Hints {
                read_only: flag(&raw.read_only),
                destructive: flag(&raw.destructive),
                idempotent: flag(&raw.idempotent),
                open_world: flag(&raw.open_world),
            },
            ui,
            icons,
            confirm,
            task,
            scopes,
            groups,
            version,
            limits,
            failures,
            lints,
        }
    }

    fn check_params(&mut self, raw: &[RawParam]) -> Vec<ToolParameter> {
        let params: Vec<ToolParameter> = raw.iter().map(|p| self.check_param(p)).collect();
        self.check_param_names(raw);
        self.check_headers_unique(raw, &params);
        params
    }

    /// Duplicate names, and names that give one Rust field.
    fn check_param_names(&mut self, raw: &[RawParam]) {
        let mut by_name: HashMap<&str, &Sp<String>> = HashMap::new();
        let mut by_field: HashMap<String, &Sp<String>> = HashMap::new();
        let kind = if raw.first().is_some_and(|p| p.is_output) {
            "output parameters"
        } else {
            "parameters"
        };
        for name in raw.iter().filter_map(|p| p.name.as_ref()) {
            if name_problem(&name.value, 64).is_some() {
                continue;
            }
            if let Some(first) = by_name.get(name.value.as_str()) {
                let (l1, l2) = (self.line(first.span), self.line(name.span));
                self.report.push(
                    self.report
                        .error(
                            Rule::DuplicateParam,
                            format!(
                                "parameter `{}` is declared twice (line {l1} and line {l2})",
                                name.value
                            ),
                        )
                        .with_primary(name.span, "declared again here")
                        .with_secondary(first.span, "first declared here")
                        .with_help("rename or remove one of them"),
                );
                continue;
            }
            by_name.insert(&name.value, name);
            let field = names::snake(&name.value);
            if let Some(first) = by_field.get(&field) {
                self.report.push(
                    self.report
                        .error(
                            Rule::ParamNameCollision,
                            format!(
                                "{kind} `{}` and `{}` both map to the Rust field `{}`",
                                first.value,
                                name.value,
                                names::field_name(&name.value)
                            ),
                        )
                        .with_primary(name.span, "maps to the same field")
                        .with_secondary(first.span, "as this one")
                        .with_help(
                            "rename one of them, so that the generated struct can hold both",
                        ),
                );
                continue;
            }
            by_field.insert(field, name);
        }
    }

    fn line(&self, span: Span) -> usize {
        self.report.file.line_column(span.start).0
    }
}

/// Labels the two places a problem involves: the later one in the file is the
/// primary (it is where the problem shows), the other gives context.
fn two_places(d: Diagnostic, a: (Span, String), b: (Span, String)) -> Diagnostic {
    let (primary, secondary) = if a.0.start >= b.0.start {
        (a, b)
    } else {
        (b, a)
    };
    d.with_primary(primary.0, primary.1)
        .with_secondary(secondary.0, secondary.1)
}
