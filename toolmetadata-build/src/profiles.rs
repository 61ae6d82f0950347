//! The provider profiles a server targets (`Builder::profiles`), checked at
//! build time: each tool whose exported definition a profile's rules still
//! refuse, and each tool that loses constraints on the way, gets a
//! diagnostic located in its file.

use std::sync::Arc;

use toolmetadata_core::profile::{Export, Profile, Violation};
use toolmetadata_load::{Diagnostic, Rule, Severity, SourceFile};

use crate::load::{LoadedTool, shown};
use crate::locate::find_param;

/// What a build targets: the profiles, the server's name (for the hosts'
/// prefixed names) and how loud their findings are.
#[derive(Debug, Clone, Default)]
pub(crate) struct Targets {
    pub(crate) profiles: Vec<Profile>,
    pub(crate) server_name: Option<String>,
    pub(crate) severity: Option<Severity>,
}

impl Targets {
    /// Every finding for `tools`.
    pub(crate) fn check(&self, tools: &[LoadedTool]) -> Vec<Diagnostic> {
        if self.profiles.is_empty() {
            return Vec::new();
        }
        let severity = self.severity.unwrap_or(Severity::Warning);
        let entries: Vec<serde_json::Value> =
            tools.iter().map(|t| t.tool.to_tools_list_entry()).collect();
        // Each file read once, for every profile's diagnostics.
        let files: Vec<Arc<SourceFile>> = tools.iter().map(source).collect();
        let mut found = Vec::new();
        for &profile in &self.profiles {
            let exports = profile.export_set(&entries);
            for ((tool, export), file) in tools.iter().zip(&exports).zip(&files) {
                let violations = match &self.server_name {
                    Some(server) => profile.validate_for_server(export, server),
                    None => profile.validate(export),
                };
                for violation in violations {
                    found.push(refused(profile, tool, file, &violation, severity));
                }
                if !export.moved.is_empty() {
                    found.push(weakened(profile, tool, file, export, severity));
                }
            }
            // Hosts list what `tools/list` shows: discoverable tools are
            // behind the two meta-tools of discovery.
            let hidden = tools.iter().filter(|t| t.tool.discoverable).count();
            let listed = tools.len() - hidden + if hidden > 0 { 2 } else { 0 };
            if let (Some(first), Some(violation)) =
                (tools.first(), profile.validate_set(listed).first())
            {
                found.push(
                    Diagnostic::error(
                        Rule::ProviderProfile,
                        Arc::new(SourceFile::new(shown(&first.path), "")),
                        format!(
                            "{profile}: this tool set breaks `{}`: {}",
                            violation.rule.id, violation.detail
                        ),
                    )
                    .with_help(format!(
                        "{} ({}); split the tools between servers, or hide some behind tool search (`discoverable`)",
                        violation.rule.says, violation.rule.source
                    ))
                    .with_severity(severity),
                );
            }
        }
        found
    }
}

/// The tool's file, with its text for the snippet (none when unreadable).
fn source(tool: &LoadedTool) -> Arc<SourceFile> {
    let text = std::fs::read_to_string(&tool.path).unwrap_or_default();
    Arc::new(SourceFile::new(shown(&tool.path), text))
}

/// The parameter a JSON pointer into the parameters is about.
fn parameter_of(at: &str) -> Option<&str> {
    at.strip_prefix("/properties/")
        .map(|rest| rest.split('/').next().unwrap_or(rest))
}

fn refused(
    profile: Profile,
    tool: &LoadedTool,
    file: &Arc<SourceFile>,
    violation: &Violation,
    severity: Severity,
) -> Diagnostic {
    let name = &tool.tool.name;
    let fix = match violation.rule.id {
        "mcp-hosts/prefixed-name" => {
            "hosts show the MCP name as it is: rename the tool file (letters, digits, `_` and `-`), or shorten it or the server's name to fit the prefix"
        }
        _ => "the export cannot change this: change the tool so that it fits",
    };
    let mut diagnostic = Diagnostic::error(
        Rule::ProviderProfile,
        file.clone(),
        format!(
            "{profile}: tool `{name}` breaks `{}`: {}",
            violation.rule.id, violation.detail
        ),
    )
    .with_help(format!(
        "{} ({}); {fix}",
        violation.rule.says, violation.rule.source
    ))
    .with_severity(severity);
    if let Some(span) = parameter_of(&violation.at).and_then(|p| find_param(file.text(), p)) {
        diagnostic = diagnostic.with_primary(span, "this parameter");
    }
    diagnostic
}

fn weakened(
    profile: Profile,
    tool: &LoadedTool,
    file: &Arc<SourceFile>,
    export: &Export,
    severity: Severity,
) -> Diagnostic {
    let lost: Vec<String> = export
        .moved
        .iter()
        .map(|m| {
            if m.parameter.is_empty() {
                m.what.clone()
            } else {
                format!("`{}`: {}", m.parameter, m.what)
            }
        })
        .collect();
    let rules: Vec<&str> = {
        let mut ids: Vec<&str> = export.moved.iter().map(|m| m.rule.id).collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    };
    let mut diagnostic = Diagnostic::error(
        Rule::ProviderProfile,
        file.clone(),
        format!(
            "{profile}: tool `{}` cannot hold the model to {} (`{}`): {}",
            tool.tool.name,
            if lost.len() == 1 { "this constraint" } else { "these constraints" },
            rules.join("`, `"),
            lost.join("; ")
        ),
    )
    .with_help(
        "the export says them in the description instead, and the server still refuses a call that breaks them; \
         to have the provider enforce them, target its non-strict profile, or loosen the constraint",
    )
    .with_severity(severity);
    let first = export
        .moved
        .iter()
        .find_map(|m| find_param(file.text(), m.parameter.split(['.', '[']).next()?));
    if let Some(span) = first {
        diagnostic = diagnostic.with_primary(span, "constrained here");
    }
    diagnostic
}
