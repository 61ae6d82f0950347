//! `outputText` (ext): a template whose placeholders name the tool's output
//! fields, each shown in a way its type allows.

use super::Checker;
use crate::diagnostic::{Rule, Span};
use crate::metadata::output_text::{Shown, TextPart, text_parts};
use crate::metadata::read::Sp;
use crate::metadata::{ParamType, ScalarType, ToolParameter};

const PLACEHOLDERS: &str = "placeholders are `{field}`, `{field:count}` (an array's length), `{field:lines}` (its items one per line) or `{field:.2}` (a float's decimals); `{{` and `}}` are literal braces";

impl Checker<'_> {
    /// The template, when every placeholder names an output field of a
    /// kind its format can show.
    pub(super) fn check_output_text(
        &mut self,
        raw: &Sp<String>,
        output: Option<&[ToolParameter]>,
    ) -> Option<String> {
        let Some(output) = output else {
            self.report.push(
                self.report
                    .error(
                        Rule::OutputText,
                        "`outputText` shows the fields of `[[output]]`, and the tool declares none",
                    )
                    .with_primary(raw.span, "no output fields to show")
                    .with_help("declare the structured result with `[[output]]` entries, or leave `outputText` out"),
            );
            return None;
        };
        let parts = match text_parts(&raw.value) {
            Ok(parts) => parts,
            Err(why) => {
                self.report.push(
                    self.report
                        .error(Rule::OutputText, format!("`outputText`: {why}"))
                        .with_primary(raw.span, "not a template")
                        .with_help(PLACEHOLDERS),
                );
                return None;
            }
        };
        let mut ok = true;
        for part in parts {
            let TextPart::Field { name, shown } = part else {
                continue;
            };
            let at = self.placeholder_span(raw, name);
            let Some(field) = output.iter().find(|f| f.name == name) else {
                ok = false;
                let names: Vec<&str> = output.iter().map(|f| f.name.as_str()).collect();
                let help = match toolmetadata_core::closest(name, &names) {
                    Some(meant) => format!("did you mean `{{{meant}}}`?"),
                    None => format!("the output fields are: {}", names.join(", ")),
                };
                self.report.push(
                    self.report
                        .error(
                            Rule::OutputText,
                            format!("`outputText` names `{name}`, which is not an output field"),
                        )
                        .with_primary(at, "no such field")
                        .with_help(help),
                );
                continue;
            };
            let (fits, wants) = match shown {
                Shown::Value => (true, ""),
                Shown::Count | Shown::Lines => (field.ty.is_array(), "an array"),
                Shown::Decimals(_) => (
                    field.ty == ParamType::Scalar(ScalarType::Number),
                    "a `float`",
                ),
            };
            if !fits {
                ok = false;
                self.report.push(
                    self.report
                        .error(
                            Rule::OutputText,
                            format!(
                                "`outputText`: the format of `{name}` needs {wants}, and `{name}` is `{}`",
                                field.ty
                            ),
                        )
                        .with_primary(at, format!("`{name}` is `{}`", field.ty))
                        .with_help(format!("write `{{{name}}}` to show the value; {PLACEHOLDERS}")),
                );
            }
        }
        ok.then(|| raw.value.clone())
    }

    /// Where the placeholder of `name` is in the file: the name itself when
    /// the string is written as it reads (no escapes), else the string.
    fn placeholder_span(&self, raw: &Sp<String>, name: &str) -> Span {
        let written = self
            .report
            .file
            .text()
            .get(raw.span.start..raw.span.end)
            .unwrap_or_default();
        let Some(inner) = written.get(1..written.len().saturating_sub(1)) else {
            return raw.span;
        };
        if inner != raw.value {
            return raw.span;
        }
        let at = inner
            .match_indices(name)
            .map(|(i, _)| i)
            .find(|&i| inner[..i].ends_with('{'));
        match at {
            Some(i) => Span::new(raw.span.start + 1 + i, raw.span.start + 1 + i + name.len()),
            None => raw.span,
        }
    }
}
