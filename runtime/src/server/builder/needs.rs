//! What a tool needs of the runtime's features, checked as it is added: a
//! tool that needs a feature this build was made without fails
//! [`ServerBuilder::build`] rather than run without what its metadata asks
//! (unlimited, say, or never as a task). A generated tool fails `cargo
//! build` first (toolmetadata-build's `runtime-feature` rule); this catches
//! the tools loaded at run time.

use super::ServerBuilder;
use crate::metadata::{Limits, TaskSupport, ToolMetadata};
use toolmetadata_core::codegen::ToolEntry;

/// What one tool's metadata asks of the runtime.
pub(super) struct Needs {
    limits: bool,
    task: bool,
    bound: bool,
}

impl Needs {
    pub(super) fn of_entry(entry: &ToolEntry) -> Self {
        Self::of(&entry.limits, entry.task, !entry.bound.is_empty())
    }

    pub(super) fn of_metadata(metadata: &ToolMetadata) -> Self {
        let bound = metadata.parameters.iter().any(|p| p.from.is_some());
        Self::of(&metadata.limits, metadata.task, bound)
    }

    fn of(limits: &Limits, task: TaskSupport, bound: bool) -> Self {
        Needs {
            limits: !limits.is_empty(),
            task: task != TaskSupport::Forbidden,
            bound,
        }
    }

    /// Each feature needed and missing, with what needs it.
    fn unbuilt(&self) -> Vec<(&'static str, &'static str)> {
        let wanted = [
            (
                self.limits,
                "`[limits]`",
                "limits",
                cfg!(feature = "limits"),
            ),
            (
                self.task,
                "a `task` that is not \"forbidden\"",
                "tasks",
                cfg!(feature = "tasks"),
            ),
            (
                self.bound,
                "a parameter bound with `from`",
                "http",
                cfg!(feature = "http"),
            ),
        ];
        wanted
            .into_iter()
            .filter(|&(needed, _, _, built)| needed && !built)
            .map(|(_, what, feature, _)| (what, feature))
            .collect()
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
        let got = built(limited);
        if cfg!(feature = "limits") {
            assert_eq!(got, Ok(()));
        } else {
            let message = got.unwrap_err();
            assert!(message.contains("feature `limits`"), "{message}");
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
            if cfg!(feature = "tasks") {
                assert_eq!(got, Ok(()));
            } else {
                let message = got.unwrap_err();
                assert!(message.contains("feature `tasks`"), "{message}");
                assert!(message.contains("`t`"), "{message}");
            }
        }
    }
}
