//! Checked tools → the Rust they become: names resolved (fields, methods, types,
//! enum variants), field types chosen, generated type names checked for clashes.

use std::collections::BTreeMap;

use toolmetadata_load::metadata::{
    Confirm, ParamType, ScalarType, TaskSupport, ToolMetadata, ToolParameter, names,
};

use crate::load::{LoadedTool, shown};

/// The whole generated module.
#[derive(Debug)]
pub(crate) struct Module {
    /// Sorted by tool name.
    pub(crate) tools: Vec<Tool>,
    pub(crate) strict: bool,
    /// The files the tools came from, as shown in the header.
    pub(crate) sources: Vec<String>,
    /// The server's manifests, when asked for (`Builder::manifests`).
    pub(crate) manifests: Option<crate::manifest::Manifests>,
}

#[derive(Debug)]
pub(crate) struct Tool {
    pub(crate) name: String,
    pub(crate) description: String,
    pub(crate) method: String,
    pub(crate) args_type: String,
    pub(crate) output_type: Option<String>,
    /// `outputText`, when declared: the template of the result's text.
    pub(crate) output_text: Option<String>,
    pub(crate) entry_json: String,
    pub(crate) discoverable: bool,
    pub(crate) keywords: Vec<String>,
    /// The OAuth scopes a caller needs (`scopes`).
    pub(crate) scopes: Vec<String>,
    /// `toolVersion`, when declared.
    pub(crate) version: Option<String>,
    /// The groups it belongs to (`toolGroups`).
    pub(crate) groups: Vec<String>,
    /// `[limits]`.
    pub(crate) limits: toolmetadata_load::metadata::Limits,
    /// The bound parameters (`from`): name, source, required.
    pub(crate) bound: Vec<(String, toolmetadata_load::metadata::Source, bool)>,
    /// `[[failures]]`, and the enum that names them.
    pub(crate) failures: Vec<toolmetadata_load::metadata::DeclaredFailure>,
    pub(crate) failure_type: String,
    pub(crate) confirm: Option<Confirm>,
    pub(crate) task: TaskSupport,
    pub(crate) params: Vec<Field>,
    pub(crate) outputs: Vec<Field>,
    pub(crate) enums: Vec<Enum>,
}

#[derive(Debug)]
pub(crate) struct Field {
    pub(crate) param: ToolParameter,
    /// Identifier text: `user_id`, `r#type`, `self_`.
    pub(crate) ident: String,
    pub(crate) ty: FieldType,
}

/// The Rust type of a field, before `Option` is added for optional fields.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum FieldType {
    Scalar(ScalarType),
    Enum(String),
    Vec(Box<FieldType>),
    /// A user type set with `Builder::param_type`; decoded from the raw value.
    Custom(String),
}

impl Field {
    /// Absent arguments give `None`: optional and without a default.
    pub(crate) fn is_option(&self) -> bool {
        !self.param.required && self.param.default.is_none()
    }
}

#[derive(Debug)]
pub(crate) struct Enum {
    pub(crate) name: String,
    pub(crate) doc: String,
    /// (JSON value, variant identifier)
    pub(crate) variants: Vec<(String, String)>,
}

/// Names the generated module defines besides the per-tool types.
pub(crate) const RESERVED: &[&str] = &["Tools", "TOOL_ENTRIES", "dispatch", "tool_set"];

/// The module for `tools`, which have passed every check.
pub(crate) fn build(
    tools: &[LoadedTool],
    custom: &BTreeMap<(String, String), String>,
    strict: bool,
) -> Module {
    let mut sorted: Vec<&LoadedTool> = tools.iter().collect();
    sorted.sort_by(|a, b| a.tool.name.cmp(&b.tool.name));
    Module {
        sources: sorted.iter().map(|t| shown(&t.path)).collect(),
        tools: sorted
            .into_iter()
            .map(|loaded| model_tool(&loaded.tool, custom))
            .collect(),
        strict,
        manifests: None,
    }
}

/// The types a tool's generated code defines: its argument struct, its output
/// struct, its enums.
pub(crate) fn type_names(
    tool: &ToolMetadata,
    custom: &BTreeMap<(String, String), String>,
) -> Vec<String> {
    let stem = names::type_stem(&tool.name);
    let mut names = vec![format!("{stem}Args")];
    let enums = |prefix: &str, params: &[ToolParameter], custom_of: &dyn Fn(&str) -> bool| {
        params
            .iter()
            .filter(|p| p.enum_values.is_some() && !custom_of(&p.name))
            .map(|p| enum_name(prefix, &p.name))
            .collect::<Vec<_>>()
    };
    names.extend(enums(&stem, &tool.parameters, &|p| {
        custom.contains_key(&(tool.name.clone(), p.to_owned()))
    }));
    if let Some(output) = &tool.output {
        let prefix = format!("{stem}Output");
        names.extend(enums(&prefix, output, &|_| false));
        names.push(prefix);
    }
    if !tool.failures.is_empty() {
        names.push(format!("{stem}Failure"));
    }
    names
}

/// The enum of parameter `param`: the tool's (or its output's) type stem, then
/// the parameter's.
fn enum_name(prefix: &str, param: &str) -> String {
    format!(
        "{prefix}{}",
        names::type_stem(param).trim_start_matches('_')
    )
}

fn model_tool(tool: &ToolMetadata, custom: &BTreeMap<(String, String), String>) -> Tool {
    let stem = names::type_stem(&tool.name);
    let mut enums = Vec::new();
    let mut field = |p: &ToolParameter, enum_prefix: &str, custom_ty: Option<&String>| {
        let scalar = match (&p.enum_values, custom_ty) {
            (_, Some(path)) => FieldType::Custom(path.clone()),
            (Some(values), None) => {
                let name = enum_name(enum_prefix, &p.name);
                enums.push(Enum {
                    name: name.clone(),
                    doc: format!("The values of `{}` of the tool `{}`.", p.name, tool.name),
                    variants: values
                        .iter()
                        .map(|v| (v.clone(), names::variant_name(v)))
                        .collect(),
                });
                FieldType::Enum(name)
            }
            (None, None) => FieldType::Scalar(p.ty.scalar()),
        };
        let ty = match (p.ty, &scalar) {
            (_, FieldType::Custom(_)) => scalar,
            (ParamType::Array(_), _) => FieldType::Vec(Box::new(scalar)),
            (ParamType::Scalar(_), _) => scalar,
        };
        Field {
            param: p.clone(),
            ident: names::field_name(&p.name),
            ty,
        }
    };
    let params: Vec<Field> = tool
        .parameters
        .iter()
        .map(|p| field(p, &stem, custom.get(&(tool.name.clone(), p.name.clone()))))
        .collect();
    let output_prefix = format!("{stem}Output");
    let outputs: Vec<Field> = tool
        .output
        .iter()
        .flatten()
        .map(|p| field(p, &output_prefix, None))
        .collect();
    Tool {
        name: tool.name.clone(),
        description: tool.listed_description(),
        method: names::method_name(&tool.name),
        args_type: format!("{stem}Args"),
        output_type: tool.output.as_ref().map(|_| format!("{stem}Output")),
        output_text: tool.output_text.clone(),
        entry_json: tool.to_tools_list_json(),
        discoverable: tool.discoverable,
        keywords: tool.keywords.clone(),
        confirm: tool.confirm.clone(),
        task: tool.task,
        scopes: tool.scopes.clone(),
        version: tool.version.clone(),
        groups: tool.groups.clone(),
        limits: tool.limits,
        failures: tool.failures.clone(),
        failure_type: format!("{}Failure", names::type_stem(&tool.name)),
        bound: tool
            .parameters
            .iter()
            .filter_map(|p| p.from.clone().map(|s| (p.name.clone(), s, p.required)))
            .collect(),
        params,
        outputs,
        enums,
    }
}
