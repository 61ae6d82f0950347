//! What a tool needs of the runtime's features, checked as it is added: a
//! tool that needs a feature this build was made without fails
//! [`ServerBuilder::build`] rather than run without what its metadata asks
//! (unlimited, say, or never as a task). A generated tool fails `cargo
//! build` first (toolmetadata-build's `runtime-feature` rule); this catches
//! the tools loaded at run time.

use super::ServerBuilder;
use crate::metadata::{TaskSupport, ToolMetadata};
use toolmetadata_core::codegen::ToolEntry;

/// What one tool's metadata asks of the runtime: each thing it has that a
/// feature serves, with that feature.
pub(super) struct Needs(Vec<(&'static str, Feature)>);

/// A feature of this crate, and whether this build has it.
#[derive(Clone, Copy)]
struct Feature {
    name: &'static str,
    built: bool,
}

const LIMITS: Feature = Feature {
    name: "limits",
    built: cfg!(feature = "limits"),
};
const TASKS: Feature = Feature {
    name: "tasks",
    built: cfg!(feature = "tasks"),
};
const HTTP: Feature = Feature {
    name: "http",
    built: cfg!(feature = "http"),
};
const ASK: Feature = Feature {
    name: "ask",
    built: cfg!(feature = "ask"),
};

impl Needs {
    pub(super) fn of_entry(entry: &ToolEntry) -> Self {
        Self::of(
            !entry.limits.is_empty(),
            entry.task,
            !entry.bound.is_empty(),
            !entry.scopes.is_empty(),
            entry.confirm.is_some(),
        )
    }

    pub(super) fn of_metadata(metadata: &ToolMetadata) -> Self {
        Self::of(
            !metadata.limits.is_empty(),
            metadata.task,
            metadata.parameters.iter().any(|p| p.from.is_some()),
            !metadata.scopes.is_empty(),
            metadata.confirm.is_some(),
        )
    }

    /// The one table of what needs which feature, for both kinds of tool.
    fn of(limits: bool, task: TaskSupport, bound: bool, scoped: bool, confirm: bool) -> Self {
        let has = [
            (limits, "`[limits]`", LIMITS),
            (
                task != TaskSupport::Forbidden,
                "a `task` that is not \"forbidden\"",
                TASKS,
            ),
            (bound, "a parameter bound with `from`", HTTP),
            // A caller's scopes are its token's: without HTTP no caller has
            // one, and the tool would be served to everyone.
            (scoped, "`scopes`", HTTP),
            (confirm, "`[confirm]`", ASK),
        ];
        Needs(
            has.into_iter()
                .filter(|&(has, _, _)| has)
                .map(|(_, what, feature)| (what, feature))
                .collect(),
        )
    }

    /// Each feature needed and missing, with what needs it.
    fn unbuilt(&self) -> impl Iterator<Item = (&'static str, &'static str)> + '_ {
        self.0
            .iter()
            .filter(|(_, feature)| !feature.built)
            .map(|(what, feature)| (*what, feature.name))
    }
}

impl ServerBuilder {
    /// Records an error for each feature `tool` needs that this build lacks.
    pub(super) fn refuse_unbuilt(&mut self, tool: &str, needs: &Needs) {
        for (what, feature) in needs.unbuilt() {
            self.errors.push(format!(
                "the tool `{}` has {what}, which needs toolmetadata's feature `{feature}`: add \"{feature}\" to toolmetadata's features",
                toolmetadata_core::seam::shorten(tool, 100)
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::ToolMetadata;
    use crate::metadata::{Limits, TaskSupport};
    use crate::server::Server;

    fn built(tool: ToolMetadata) -> Result<(), String> {
        let handler = |_, _| async { Ok("ok") };
        Server::builder()
            .tool(tool, handler)
            .build()
            .map(drop)
            .map_err(|e| e.to_string())
    }

    fn tool() -> ToolMetadata {
        ToolMetadata {
            name: "t".into(),
            description: "d".into(),
            ..ToolMetadata::default()
        }
    }

    /// `got` as a build with or without `feature` gives it: the server when
    /// the feature is built, else the refusal, which names the feature (its
    /// message returned for what else a test expects of it).
    fn needs(got: Result<(), String>, feature: &str, built: bool) -> Option<String> {
        if built {
            assert_eq!(got, Ok(()));
            return None;
        }
        let message = got.unwrap_err();
        assert!(
            message.contains(&format!("feature `{feature}`")),
            "{message}"
        );
        Some(message)
    }

    /// A plain tool needs no feature beyond `server`.
    #[test]
    fn a_plain_tool_builds() {
        assert_eq!(built(tool()), Ok(()));
    }

    /// Without `limits` a tool's `[limits]` cannot be held: the server is
    /// refused, naming the feature, rather than served unlimited.
    #[test]
    fn limits_need_their_feature() {
        let limited = ToolMetadata {
            limits: Limits {
                concurrency: Some(1),
                ..Limits::default()
            },
            ..tool()
        };
        needs(built(limited), "limits", cfg!(feature = "limits"));
    }

    /// Without `ask` a tool's `[confirm]` could not be asked: the tool is
    /// refused rather than run unconfirmed.
    #[test]
    fn confirmation_needs_asking() {
        let got = built(ToolMetadata {
            confirm: Some(crate::metadata::Confirm {
                message: "Sure?".into(),
                unsupported: crate::metadata::Unsupported::Proceed,
            }),
            ..tool()
        });
        needs(got, "ask", cfg!(feature = "ask"));
    }

    /// Without `http` no caller has a token, so no caller's scopes can be
    /// checked: a tool with `scopes` is refused rather than served to all.
    #[test]
    fn scopes_need_http() {
        let got = built(ToolMetadata {
            scopes: vec!["notes:write".into()],
            ..tool()
        });
        if let Some(message) = needs(got, "http", cfg!(feature = "http")) {
            assert!(message.contains("`scopes`"), "{message}");
        }
    }

    /// Without `tasks` a task tool is refused rather than run as a plain
    /// call (a `required` one could never run).
    #[test]
    fn tasks_need_their_feature() {
        for support in [TaskSupport::Optional, TaskSupport::Required] {
            let got = built(ToolMetadata {
                task: support,
                ..tool()
            });
            if let Some(message) = needs(got, "tasks", cfg!(feature = "tasks")) {
                assert!(message.contains("`t`"), "{message}");
            }
        }
    }
}
