//! The features `toolmetadata` was built with, against what the tools need:
//! a tool that needs one its crate did not turn on fails the build here, at
//! the line of the key that needs it, with the `Cargo.toml` line to write,
//! rather than as an error inside generated code or a server that refuses
//! the tool at run time.
//!
//! `toolmetadata`'s own build script says which features it has
//! (`cargo::metadata=features=…`, its package being `links = "toolmetadata"`),
//! and Cargo hands that to the build script of each crate that depends on
//! it as `DEP_TOOLMETADATA_FEATURES`. Outside such a build script (the
//! `toolmetadata` command, a crate that reaches `toolmetadata` only through
//! another) there is nothing to check against, and nothing is checked.

use std::collections::BTreeSet;
use std::sync::Arc;

use toolmetadata_load::metadata::{Source, TaskSupport, ToolMetadata};
use toolmetadata_load::{Diagnostic, Rule, SourceFile};

use crate::load::LoadedTool;
use crate::locate::{find_key, find_param};

/// The variable Cargo sets from `toolmetadata`'s build script.
const VARIABLE: &str = "DEP_TOOLMETADATA_FEATURES";

/// The features of the `toolmetadata` this crate depends on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RuntimeFeatures(BTreeSet<String>);

impl RuntimeFeatures {
    /// As Cargo told this build script; `None` where it said nothing.
    pub(crate) fn from_build_env() -> Option<Self> {
        std::env::var(VARIABLE).ok().map(|list| Self::parse(&list))
    }

    /// A comma-separated list, as `toolmetadata`'s build script writes it.
    pub(crate) fn parse(list: &str) -> Self {
        RuntimeFeatures(
            list.split(',')
                .map(str::trim)
                .filter(|f| !f.is_empty())
                .map(str::to_owned)
                .collect(),
        )
    }

    fn has(&self, feature: &str) -> bool {
        self.0.contains(feature)
    }

    /// One error for each thing a tool needs that these features lack.
    pub(crate) fn check(&self, tools: &[LoadedTool]) -> Vec<Diagnostic> {
        let mut found = Vec::new();
        for tool in tools {
            let missing: Vec<Need> = needs(&tool.tool)
                .into_iter()
                // What a server adds matters only to a crate that serves:
                // one without `server` calls its tools itself.
                .filter(|need| !need.serving || self.has("server"))
                .filter(|need| !self.has(need.feature))
                .collect();
            if missing.is_empty() {
                continue;
            }
            let text = std::fs::read_to_string(&tool.path).unwrap_or_default();
            let file = Arc::new(SourceFile::new(crate::load::shown(&tool.path), text));
            for need in missing {
                found.push(need.diagnostic(&tool.tool.name, &file));
            }
        }
        found
    }

    /// The features a crate should turn on for `tools` (sorted, once each),
    /// beyond what it has.
    #[cfg(test)]
    fn lacking(&self, tools: &[ToolMetadata]) -> Vec<&'static str> {
        let mut out: Vec<&'static str> = tools
            .iter()
            .flat_map(needs)
            .filter(|n| !self.has(n.feature))
            .map(|n| n.feature)
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// One thing a tool needs of the runtime.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Need {
    /// The feature of `toolmetadata` that serves it.
    feature: &'static str,
    /// Only a server needs it (not a direct `ToolSet::call`).
    serving: bool,
    /// Where the need is written.
    at: Place,
    /// What needs it, for the message (``parameter `code` has a `pattern` ``).
    what: String,
    /// Why the feature is needed, for the label.
    why: &'static str,
}

/// Where a need is written in its tool's file.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Place {
    /// A parameter, at its name.
    Param(String),
    /// A key of the tool (a table such as `[limits]`).
    Key(&'static str),
}

/// Everything `tool` needs of the runtime beyond decoding plain arguments.
fn needs(tool: &ToolMetadata) -> Vec<Need> {
    let mut needs = Vec::new();
    for p in &tool.parameters {
        if p.constraints.pattern.is_some() {
            needs.push(Need {
                feature: "regex",
                serving: false,
                at: Place::Param(p.name.clone()),
                what: format!("parameter `{}` has a `pattern`", p.name),
                why: "its arguments are matched against the pattern",
            });
        }
        if let Some(source) = &p.from {
            let (what, why) = match source {
                Source::Claim(claim) => (
                    format!(
                        "parameter `{}` is bound to the token's claim `{claim}`",
                        p.name
                    ),
                    "a token's claims reach the server only over HTTP",
                ),
                Source::Header(header) => (
                    format!(
                        "parameter `{}` is bound to the HTTP header `{header}`",
                        p.name
                    ),
                    "headers exist only over HTTP",
                ),
            };
            needs.push(Need {
                feature: "http",
                serving: true,
                at: Place::Param(p.name.clone()),
                what,
                why,
            });
        }
    }
    if !tool.scopes.is_empty() {
        needs.push(Need {
            feature: "http",
            serving: true,
            at: Place::Key("scopes"),
            what: "it has `scopes`".to_owned(),
            why: "a caller's scopes come from its token, which reaches the server only over HTTP",
        });
    }
    if !tool.limits.is_empty() {
        needs.push(Need {
            feature: "limits",
            serving: true,
            at: Place::Key("limits"),
            what: "it has `[limits]`".to_owned(),
            why: "held by the server on each call",
        });
    }
    if tool.ui.is_some() {
        needs.push(Need {
            feature: "resources",
            serving: true,
            at: Place::Key("ui"),
            what: "it has `[ui]`".to_owned(),
            why: "its view is a resource the server serves",
        });
    }
    if tool.confirm.is_some() {
        needs.push(Need {
            feature: "ask",
            serving: true,
            at: Place::Key("confirm"),
            what: "it has `[confirm]`".to_owned(),
            why: "the person is asked before each call",
        });
    }
    if tool.task != TaskSupport::Forbidden {
        needs.push(Need {
            feature: "tasks",
            serving: true,
            at: Place::Key("task"),
            what: format!("it has `task = \"{}\"`", tool.task.as_str()),
            why: "its calls run as tasks",
        });
    }
    needs
}

impl Need {
    fn diagnostic(&self, tool: &str, file: &Arc<SourceFile>) -> Diagnostic {
        let span = match &self.at {
            Place::Param(name) => find_param(file.text(), name),
            Place::Key(key) => find_key(file.text(), key),
        };
        let diagnostic = Diagnostic::error(
            Rule::RuntimeFeature,
            file.clone(),
            format!(
                "tool `{tool}`: {}, which needs the feature `{}` of `toolmetadata`, and this crate's build of it has it off",
                self.what, self.feature
            ),
        )
        .with_help(format!(
            "turn it on in Cargo.toml: toolmetadata = {{ version = \"{}\", features = [\"{}\"] }} (with the features you have)",
            env!("CARGO_PKG_VERSION"),
            self.feature
        ));
        match span {
            Some(span) => diagnostic.with_primary(span, self.why),
            None => diagnostic,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolmetadata_load::metadata::Load;

    fn tool(toml: &str) -> ToolMetadata {
        ToolMetadata::from_toml_str("t", toml).expect("a tool")
    }

    #[test]
    fn what_a_tool_needs_is_what_it_uses() {
        let plain = tool("description = \"d\"\n[[parameters]]\nname = \"q\"\ntype = \"string\"\n");
        // Built, not loaded: loading checks a pattern only with `regex`.
        let mut pattern = plain.clone();
        pattern.parameters[0].constraints.pattern = Some("^a".to_owned());
        let bound = tool(
            "description = \"d\"\n[[parameters]]\nname = \"user\"\ntype = \"string\"\nfrom = \"claim:sub\"\n",
        );
        let task = tool("description = \"d\"\ntask = \"optional\"\n");
        let forbidden = tool("description = \"d\"\ntask = \"forbidden\"\n");
        let confirm = tool("description = \"d\"\n[confirm]\nmessage = \"Sure?\"\n");
        let ui = tool("description = \"d\"\n[ui]\nresourceUri = \"ui://v/main\"\n");
        let scoped = tool("description = \"d\"\nscopes = [\"notes:write\"]\n");
        let none = RuntimeFeatures::parse("");
        assert!(none.lacking(&[plain.clone(), forbidden]).is_empty());
        assert_eq!(
            none.lacking(&[
                pattern.clone(),
                bound.clone(),
                task.clone(),
                confirm.clone(),
                ui.clone(),
                scoped.clone()
            ]),
            ["ask", "http", "regex", "resources", "tasks"]
        );
        // Scopes alone need `http`: a caller's token is what holds them.
        assert_eq!(none.lacking(std::slice::from_ref(&scoped)), ["http"]);
        let some = RuntimeFeatures::parse("server, regex,http,tasks,ask,resources");
        assert!(
            some.lacking(&[plain, pattern, bound, task, confirm, ui, scoped])
                .is_empty()
        );
    }
}
