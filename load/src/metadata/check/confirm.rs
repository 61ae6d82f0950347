//! `[confirm]`: a message whose placeholders name the tool's parameters, and
//! what to do when the client cannot ask.

use super::Checker;
use crate::diagnostic::Rule;
use crate::metadata::read::{RawConfirm, Sp};
use crate::metadata::tree::quote;
use crate::metadata::{Confirm, MessagePart, ToolParameter, Unsupported, message_parts};

impl Checker<'_> {
    pub(super) fn check_confirm(
        &mut self,
        raw: &Sp<RawConfirm>,
        params: &[ToolParameter],
    ) -> Option<Confirm> {
        let unsupported = match &raw.value.unsupported {
            None => Some(Unsupported::Proceed),
            Some(value) => match value.value.as_str() {
                "proceed" => Some(Unsupported::Proceed),
                "refuse" => Some(Unsupported::Refuse),
                other => {
                    self.report.push(
                        self.report
                            .error(
                                Rule::ConfirmUnsupported,
                                format!(
                                    "`confirm.unsupported` must be \"proceed\" or \"refuse\", found {}",
                                    quote(other)
                                ),
                            )
                            .with_primary(value.span, "not proceed or refuse")
                            .with_help("\"proceed\" runs the tool when the client cannot ask (the default); \"refuse\" refuses the call"),
                    );
                    None
                }
            },
        };
        let Some(message) = raw
            .value
            .message
            .as_ref()
            .filter(|m| !m.value.trim().is_empty())
        else {
            let at = raw.value.message.as_ref().map_or(raw.key, |m| m.span);
            self.report.push(
                self.report
                    .error(Rule::ConfirmMessage, "`[confirm]` needs a non-empty `message`")
                    .with_primary(at, "no question to ask")
                    .with_help("add `message = \"Delete {path}?\"`: the question the user answers before the tool runs"),
            );
            return None;
        };
        let parts = match message_parts(&message.value) {
            Ok(parts) => parts,
            Err(why) => {
                self.report.push(
                    self.report
                        .error(
                            Rule::ConfirmPlaceholder,
                            format!("`confirm.message`: {why}"),
                        )
                        .with_primary(message.span, "unbalanced brace")
                        .with_help(
                            "placeholders are `{parameter}`; `{{` and `}}` are literal braces",
                        ),
                );
                return None;
            }
        };
        let mut ok = true;
        for part in parts {
            let MessagePart::Placeholder(name) = part else {
                continue;
            };
            if params.iter().any(|p| p.name == name) {
                continue;
            }
            ok = false;
            let names: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
            let help = match toolmetadata_core::closest(name, &names) {
                Some(meant) => format!("did you mean `{{{meant}}}`?"),
                None if names.is_empty() => "the tool has no parameters to name".to_owned(),
                None => format!("the parameters are: {}", names.join(", ")),
            };
            self.report.push(
                self.report
                    .error(
                        Rule::ConfirmPlaceholder,
                        format!(
                            "`confirm.message` names `{{{name}}}`, which is not a parameter of the tool"
                        ),
                    )
                    .with_primary(message.span, format!("`{{{name}}}` is no parameter"))
                    .with_help(help),
            );
        }
        Some(Confirm {
            message: message.value.clone(),
            unsupported: unsupported?,
        })
        .filter(|_| ok)
    }
}
