//! The protocol extensions of FORMAT.md "Protocol extensions (ext)": a
//! parameter's `header` (SEP-2243) and the tool's `task` (SEP-1686/SEP-2663).
//!
//! The header rules are the ones rmcp applies when it checks `Mcp-Param-*`
//! headers: a tool that breaks one would have its annotations rejected by
//! clients at run time, so each is a build error here instead.

use std::collections::HashMap;

use super::{Checker, two_places};
use crate::diagnostic::Rule;
use crate::metadata::read::{RawParam, Sp};
use crate::metadata::tree::quote;
use crate::metadata::{ParamType, ScalarType, Source, TaskSupport, ToolParameter};

/// Headers a parameter may not take its value from: the protocol's, the
/// credentials, the connection's.
const RESERVED_HEADERS: &[&str] = &[
    "authorization",
    "proxy-authorization",
    "cookie",
    "host",
    "origin",
    "connection",
    "content-length",
    "content-type",
    "transfer-encoding",
    "te",
    "upgrade",
    "accept",
];

/// RFC 9110 §5.6.2 `tchar`: what an HTTP field name may be made of.
fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric()
        || matches!(
            c,
            '!' | '#'
                | '$'
                | '%'
                | '&'
                | '\''
                | '*'
                | '+'
                | '-'
                | '.'
                | '^'
                | '_'
                | '`'
                | '|'
                | '~'
        )
}

/// The header value written for a name that is not a token: its token
/// characters, words joined with `-` (`"X Region"` → `X-Region`).
fn suggest_token(header: &str) -> Option<String> {
    let words: Vec<String> = header
        .split(|c: char| !is_tchar(c))
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect();
    (!words.is_empty()).then(|| words.join("-"))
}

impl Checker<'_> {
    /// The `header` of one parameter; `None` when absent or wrong.
    /// `from`: `claim:NAME` or `header:NAME` (a string parameter, and not a
    /// header of the protocol or a credential), on an input parameter that
    /// takes no value from the model (no `header` mirroring a model
    /// argument).
    pub(super) fn check_from(&mut self, p: &RawParam) -> Option<Source> {
        let from = p.from.as_ref()?;
        let who = p.reference();
        let mut problem = |message: String, label: &str, help: &str| {
            self.report.push(
                self.report
                    .error(Rule::BadSource, message)
                    .with_primary(from.span, label.to_owned())
                    .with_help(help.to_owned()),
            );
            None
        };
        if p.is_output {
            return problem(
                format!("{who}: `from` is only allowed on input parameters"),
                "not allowed in `output`",
                "`from` fills in a call's argument; remove it here",
            );
        }
        if p.header.is_some() {
            return problem(
                format!(
                    "{who}: a bound parameter (`from`) cannot also be mirrored into a header (`header`): the model never gives it"
                ),
                "bound here",
                "remove `header`, or `from` if the model is to give the value",
            );
        }
        let token = |s: &str| !s.is_empty() && s.chars().all(is_tchar);
        match from.value.split_once(':') {
            Some(("claim", name)) if !name.is_empty() && !name.contains(char::is_whitespace) => {
                Some(Source::Claim(name.to_owned()))
            }
            Some(("header", name)) if token(name) => {
                let lower = name.to_ascii_lowercase();
                if RESERVED_HEADERS.contains(&lower.as_str()) || lower.starts_with("mcp-") {
                    return problem(
                        format!(
                            "{who}: `from` names the header `{name}`, which is the protocol's or a credential, not a value to hand a tool"
                        ),
                        "not a header to bind",
                        "bind a header your gateway sets, such as `header:X-Tenant`",
                    );
                }
                if p.ty.as_ref().is_some_and(|t| t.value != "string") {
                    return problem(
                        format!(
                            "{who}: a header-bound parameter is a `string` (a header's value is text)"
                        ),
                        "not a string parameter",
                        "make it `type = \"string\"`, and parse it in the handler",
                    );
                }
                Some(Source::Header(name.to_owned()))
            }
            _ => problem(
                format!("{who}: `from` {} is not a source", quote(&from.value)),
                "not `claim:NAME` or `header:NAME`",
                "`from = \"claim:sub\"` takes the verified token's claim; `from = \"header:X-Tenant\"` the request's header",
            ),
        }
    }

    pub(super) fn check_header(&mut self, p: &RawParam, ty: Option<ParamType>) -> Option<String> {
        let header = p.header.as_ref()?;
        let who = p.reference();
        if p.is_output {
            self.report.push(
                self.report
                    .error(
                        Rule::HeaderInOutput,
                        format!("{who}: `header` is only allowed on input parameters"),
                    )
                    .with_primary(header.key, "not allowed in `output`")
                    .with_help("headers mirror call arguments; remove `header` here"),
            );
            return None;
        }
        if let Some(ty) = ty
            && !matches!(
                ty,
                ParamType::Scalar(ScalarType::String | ScalarType::Integer | ScalarType::Boolean)
            )
        {
            self.report.push(
                self.report
                    .error(
                        Rule::HeaderOnWrongType,
                        format!(
                            "{who}: `header` is only allowed on string, int and bool parameters, not on `{ty}`"
                        ),
                    )
                    .with_primary(header.key, "not allowed on this type")
                    .with_help(
                        "an HTTP header carries one plain value (SEP-2243); remove `header` or change the type",
                    ),
            );
            return None;
        }
        if header.value.is_empty() {
            self.report.push(
                self.report
                    .error(Rule::EmptyHeader, format!("{who}: `header` is empty"))
                    .with_primary(header.span, "empty")
                    .with_help(
                        "name the header, e.g. `header = \"Region\"` (sent as `Mcp-Param-Region`), or remove `header`",
                    ),
            );
            return None;
        }
        if let Some(bad) = header.value.chars().find(|c| !is_tchar(*c)) {
            let help = match suggest_token(&header.value) {
                Some(token) => format!(
                    "did you mean {}? a header name is made of A-Z a-z 0-9 and ! # $ % & ' * + - . ^ _ ` | ~ (RFC 9110 token)",
                    quote(&token)
                ),
                None => "a header name is made of A-Z a-z 0-9 and ! # $ % & ' * + - . ^ _ ` | ~ (RFC 9110 token)".to_owned(),
            };
            self.report.push(
                self.report
                    .error(
                        Rule::BadHeaderName,
                        format!(
                            "{who}: `header` {} is not an HTTP token ({} is not allowed)",
                            quote(&header.value),
                            quote(&bad.to_string())
                        ),
                    )
                    .with_primary(header.span, "not an HTTP header name")
                    .with_help(help),
            );
            return None;
        }
        Some(header.value.clone())
    }

    /// Headers unique case-insensitively within the tool, as clients require.
    pub(super) fn check_headers_unique(&mut self, raw: &[RawParam], params: &[ToolParameter]) {
        let mut seen: HashMap<String, (&Sp<String>, String)> = HashMap::new();
        for (p, checked) in raw.iter().zip(params) {
            let (Some(header), Some(_)) = (&p.header, &checked.header) else {
                continue;
            };
            let folded = header.value.to_ascii_lowercase();
            if let Some((first, first_param)) = seen.get(&folded) {
                let d = self
                    .report
                    .error(
                        Rule::DuplicateHeader,
                        format!(
                            "{}: `header` {} is already the header of {first_param} (header names are case-insensitive)",
                            p.reference(),
                            quote(&header.value)
                        ),
                    )
                    .with_help("give each parameter its own header name, or remove one `header`");
                let d = two_places(
                    d,
                    (header.span, "given again here".to_owned()),
                    (first.span, format!("first given to {first_param}")),
                );
                self.report.push(d);
                continue;
            }
            seen.insert(folded, (header, p.reference()));
        }
    }

    /// The tool's `task`.
    pub(super) fn check_task(&mut self, task: Option<&Sp<String>>) -> TaskSupport {
        let Some(task) = task else {
            return TaskSupport::Forbidden;
        };
        if let Some(support) = TaskSupport::parse(&task.value) {
            return support;
        }
        let valid: Vec<&str> = TaskSupport::ALL.iter().map(|t| t.as_str()).collect();
        let lower = task.value.trim().to_ascii_lowercase();
        let help = match TaskSupport::parse(&lower)
            .map(TaskSupport::as_str)
            .or_else(|| toolmetadata_core::closest(&lower, &valid))
        {
            Some(meant) => format!(
                "did you mean \"{meant}\"? `task` is one of: {}",
                valid.join(", ")
            ),
            None => format!("`task` is one of: {}", valid.join(", ")),
        };
        self.report.push(
            self.report
                .error(
                    Rule::BadTask,
                    format!(
                        "`task` {} must be \"forbidden\", \"optional\" or \"required\"",
                        quote(&task.value)
                    ),
                )
                .with_primary(task.span, "not a task mode")
                .with_help(help),
        );
        TaskSupport::Forbidden
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metadata::Load;

    #[test]
    fn tokens_follow_rfc_9110() {
        assert!("Region".chars().all(is_tchar));
        assert!("X-Tenant_id.v2~!".chars().all(is_tchar));
        assert!(!"a b".chars().all(is_tchar));
        assert!(!"a:b".chars().all(is_tchar));
        assert!(!"é".chars().all(is_tchar));
        assert_eq!(suggest_token("X Region").as_deref(), Some("X-Region"));
        assert_eq!(suggest_token("::"), None);
    }

    #[test]
    fn bound_parameters_name_their_source_and_leave_the_schema() {
        use crate::metadata::{Source, ToolMetadata};
        let param = |extra: &str| {
            format!(
                "description = \"d\"\n\n[[parameters]]\nname = \"tenant\"\ntype = \"string\"\nrequired = true\n{extra}"
            )
        };
        let tool = ToolMetadata::from_toml_str("t", &param("from = \"claim:tenant_id\"\n"))
            .expect("loads");
        assert_eq!(
            tool.parameters[0].from,
            Some(Source::Claim("tenant_id".into()))
        );
        let typed = ToolMetadata::from_toml_str(
            "t",
            "description = \"d\"\n\n[[parameters]]\nname = \"n\"\ntype = \"int\"\nfrom = \"header:X-N\"\n",
        )
        .expect_err("a header is text");
        assert!(
            typed
                .render(false)
                .contains("a header-bound parameter is a `string`")
        );
        let entry = tool.to_tools_list_entry();
        assert_eq!(entry["inputSchema"]["properties"], serde_json::json!({}));
        assert!(entry["inputSchema"].get("required").is_none());
        for (extra, expected) in [
            ("from = \"cookie:x\"\n", "is not a source"),
            ("from = \"claim:\"\n", "is not a source"),
            ("from = \"header:X Y\"\n", "is not a source"),
            (
                "from = \"claim:sub\"\nheader = \"Tenant\"\n",
                "cannot also be mirrored into a header",
            ),
            (
                "from = \"header:Authorization\"\n",
                "the protocol's or a credential",
            ),
            (
                "from = \"header:Mcp-Param-Tenant\"\n",
                "the protocol's or a credential",
            ),
        ] {
            let errors = ToolMetadata::from_toml_str("t", &param(extra)).expect_err(extra);
            let found = errors.iter().find(|d| d.rule().code() == "bad-source");
            assert!(
                found.is_some_and(|d| d.message().contains(expected) && d.line_column().is_some()),
                "{extra}: {}",
                errors.render(false)
            );
        }
    }
}
