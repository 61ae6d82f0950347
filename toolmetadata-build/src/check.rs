//! The checks the build adds to each file's own: across files (one tool name
//! per file, one Rust method per tool, one generated type per name), and
//! builder options that name tools, parameters and types that exist.

use std::collections::BTreeMap;
use std::sync::Arc;

use toolmetadata_load::metadata::names;
use toolmetadata_load::{Diagnostic, Rule, Severity, SourceFile};

use crate::Error;
use crate::load::{LoadedTool, shown};
use crate::model;

/// Every error across `tools`; `Err` when a builder option names what does
/// not exist.
pub(crate) fn across_files(
    tools: &[LoadedTool],
    custom: &BTreeMap<(String, String), String>,
    client_names: Option<Severity>,
) -> Result<Vec<Diagnostic>, Error> {
    custom_types(tools, custom)?;
    let mut errors = clashes(tools);
    errors.extend(type_clashes(tools, custom));
    errors.extend(lone_groups(tools));
    if let Some(severity) = client_names {
        errors.extend(client_tool_names(tools, severity));
    }
    Ok(errors)
}

/// The tool-name rule of OpenAI's and Anthropic's tool-use APIs, stricter than
/// MCP's: no `.`, at most 64 characters.
fn client_safe(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'))
}

/// Tool names MCP allows but real clients refuse. Claude Desktop withholds the
/// whole server when one name fails, so one file can cost every tool.
fn client_tool_names(tools: &[LoadedTool], severity: Severity) -> Vec<Diagnostic> {
    tools
        .iter()
        .filter(|t| !client_safe(&t.tool.name))
        .filter_map(|t| {
            let name = &t.tool.name;
            let safe: String = name
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '-' {
                        c
                    } else {
                        '_'
                    }
                })
                .take(64)
                .collect();
            let extension = t
                .path
                .extension()
                .map(|e| format!(".{}", e.to_string_lossy()))
                .unwrap_or_default();
            let finding = file_error(
                t,
                Rule::ClientToolName,
                format!(
                    "tool name `{name}` is valid MCP, but OpenAI and Anthropic accept only \
                     tool names matching ^[a-zA-Z0-9_-]{{1,64}}$, and Claude Desktop withholds \
                     the whole server when one tool name fails that"
                ),
                &format!(
                    "rename the file to `{safe}{extension}`; or set \
                     `Builder::client_names(None)` to accept such names, \
                     `Some(Severity::Error)` to refuse them"
                ),
            )
            .with_severity(severity);
            crate::lints::leveled(&t.tool, finding)
        })
        .collect()
}

/// Errors about tools that clash with each other, each naming both files.
fn clashes(tools: &[LoadedTool]) -> Vec<Diagnostic> {
    let mut errors = Vec::new();
    let mut by_name: BTreeMap<&str, &LoadedTool> = BTreeMap::new();
    let mut by_method: BTreeMap<String, &LoadedTool> = BTreeMap::new();
    for t in tools {
        let name = t.tool.name.as_str();
        if let Some(first) = by_name.get(name) {
            errors.push(file_error(
                t,
                Rule::DuplicateTool,
                format!(
                    "the tool `{name}` is defined twice: by {} and by {}",
                    shown(&first.path),
                    shown(&t.path)
                ),
                "one file per tool: rename or remove one of them",
            ));
            continue;
        }
        by_name.insert(name, t);
        let stem = names::snake(name);
        if let Some(first) = by_method.get(&stem) {
            errors.push(file_error(
                t,
                Rule::RustNameCollision,
                format!(
                    "the tools `{}` ({}) and `{name}` ({}) both map to the Rust method `{}`",
                    first.tool.name,
                    shown(&first.path),
                    shown(&t.path),
                    names::method_name(name)
                ),
                "rename one of the files",
            ));
            continue;
        }
        by_method.insert(stem, t);
    }
    errors
}

/// A warning for each group only one tool names: a group of one is more
/// often a group name misspelt in one file than an endpoint of one tool.
fn lone_groups(tools: &[LoadedTool]) -> Vec<Diagnostic> {
    let mut members: BTreeMap<&str, Vec<&LoadedTool>> = BTreeMap::new();
    for t in tools {
        for group in &t.tool.groups {
            members.entry(group).or_default().push(t);
        }
    }
    let names: Vec<&str> = members.keys().copied().collect();
    members
        .iter()
        .filter_map(|(group, tools)| match tools[..] {
            [only] => Some((*group, only)),
            _ => None,
        })
        .filter_map(|(group, tool)| {
            let file = crate::load::source(tool);
            let others: Vec<&str> = names.iter().copied().filter(|n| *n != group).collect();
            let help = match toolmetadata_core::closest(group, &others) {
                Some(meant) => format!("did you mean `{meant}`? Otherwise add the group to the other tools it is for"),
                None => "add the group to the other tools it is for, or leave it out: a tool needs no group of its own".to_owned(),
            };
            let mut d = Diagnostic::error(
                Rule::LoneGroup,
                file.clone(),
                format!(
                    "the group `{group}` has one tool, `{}`: it would be served at an endpoint of its own",
                    tool.tool.name
                ),
            )
            .with_help(help)
            .with_severity(Severity::Warning);
            if let Some(span) = crate::locate::find_item(file.text(), "toolGroups", group) {
                d = d.with_primary(span, "only this tool is in it");
            }
            crate::lints::leveled(&tool.tool, d)
        })
        .collect()
}

/// An error about a whole file (no position in it).
fn file_error(tool: &LoadedTool, rule: Rule, message: String, help: &str) -> Diagnostic {
    let file = Arc::new(SourceFile::new(shown(&tool.path), ""));
    Diagnostic::error(rule, file, message).with_help(help)
}

/// Generated type names that two tools share, or that the module defines
/// itself, each named with both tools.
fn type_clashes(
    tools: &[LoadedTool],
    custom: &BTreeMap<(String, String), String>,
) -> Vec<Diagnostic> {
    let mut sorted: Vec<&LoadedTool> = tools.iter().collect();
    sorted.sort_by(|a, b| a.tool.name.cmp(&b.tool.name));
    let mut errors = Vec::new();
    let mut types: BTreeMap<String, &LoadedTool> = BTreeMap::new();
    // A tool defined twice is reported once, as a duplicate, by `clashes`.
    sorted.dedup_by(|b, a| a.tool.name == b.tool.name);
    for loaded in sorted {
        for name in model::type_names(&loaded.tool, custom) {
            let clash = if model::RESERVED.contains(&name.as_str()) {
                Some(format!(
                    "the tool `{}` would generate the type `{name}`, which the module defines itself",
                    loaded.tool.name
                ))
            } else {
                types.get(&name).map(|first| {
                    format!(
                        "the tools `{}` ({}) and `{}` would both generate the type `{name}`",
                        first.tool.name,
                        shown(&first.path),
                        loaded.tool.name
                    )
                })
            };
            match clash {
                Some(message) => errors.push(file_error(
                    loaded,
                    Rule::RustNameCollision,
                    message,
                    "rename the tool or the parameter",
                )),
                None => {
                    types.insert(name, loaded);
                }
            }
        }
    }
    errors
}

/// `param_type` options must name a tool, one of its parameters, and a type.
fn custom_types(
    tools: &[LoadedTool],
    custom: &BTreeMap<(String, String), String>,
) -> Result<(), Error> {
    for ((tool, param), ty) in custom {
        let Some(found) = tools.iter().find(|t| &t.tool.name == tool) else {
            return Err(Error::config(format!(
                "param_type(\"{tool}\", \"{param}\", \"{ty}\"): there is no tool `{tool}`"
            )));
        };
        if found.tool.parameter(param).is_none() {
            let names: Vec<&str> = found
                .tool
                .parameters
                .iter()
                .map(|p| p.name.as_str())
                .collect();
            return Err(Error::config(format!(
                "param_type(\"{tool}\", \"{param}\", \"{ty}\"): the tool `{tool}` has no parameter `{param}` (its parameters: {})",
                names.join(", ")
            )));
        }
        if syn::parse_str::<syn::Type>(ty).is_err() {
            return Err(Error::config(format!(
                "param_type(\"{tool}\", \"{param}\", \"{ty}\"): `{ty}` is not a Rust type"
            )));
        }
    }
    Ok(())
}
