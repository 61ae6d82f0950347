//! A parameter's name, type and enum.

use std::collections::HashMap;

use super::{Checker, NAME_RULE, name_problem};
use crate::diagnostic::Rule;
use crate::metadata::names;
use crate::metadata::read::{Item, RawParam};
use crate::metadata::tree::quote;
use crate::metadata::{ParamType, ScalarType, ToolParameter};

impl Checker<'_> {
    pub(super) fn check_param(&mut self, p: &RawParam) -> ToolParameter {
        let who = p.reference();
        let ty = self.check_type(p, &who);
        self.check_param_name(p);
        let mut param = ToolParameter {
            name: p.name.as_ref().map(|n| n.value.clone()).unwrap_or_default(),
            ty: ty.unwrap_or_default(),
            description: p
                .description
                .as_ref()
                .map(|d| d.value.clone())
                .unwrap_or_default(),
            required: p.required.as_ref().is_some_and(|r| r.value),
            header: self.check_header(p, ty),
            from: self.check_from(p),
            ..ToolParameter::default()
        };
        let Some(ty) = ty else {
            return param;
        };
        param.enum_values = self.check_enum(p, &who, ty);
        param.constraints = self.check_constraints(p, &who, ty);
        param.default = self.check_default(p, &who, ty, &param);
        param
    }

    fn check_type(&mut self, p: &RawParam, who: &str) -> Option<ParamType> {
        let valid = ParamType::SPELLINGS.join(", ");
        let Some(ty) = &p.ty else {
            if p.has_type {
                return None;
            }
            self.report.push(
                self.report
                    .error(Rule::UnknownType, format!("{who} has no `type`"))
                    .with_primary(p.span, "this parameter needs a `type`")
                    .with_help(format!("valid types: {valid}")),
            );
            return None;
        };
        match ty.value.parse::<ParamType>() {
            Ok(t) => Some(t),
            Err(_) => {
                let help = match suggest_type(&ty.value) {
                    Some(meant) => format!("did you mean `{meant}`? valid types: {valid}"),
                    None => format!("valid types: {valid}"),
                };
                self.report.push(
                    self.report
                        .error(
                            Rule::UnknownType,
                            format!("{who}: unknown type {}", quote(&ty.value)),
                        )
                        .with_primary(ty.span, "not a parameter type")
                        .with_help(help),
                );
                None
            }
        }
    }

    pub(super) fn check_param_name(&mut self, p: &RawParam) {
        let kind = if p.is_output {
            "output parameter"
        } else {
            "parameter"
        };
        match &p.name {
            None if p.has_name => {}
            None => {
                self.report.push(
                    self.report
                        .error(
                            Rule::BadParamName,
                            format!("{kind} {} has no `name`", p.index),
                        )
                        .with_primary(p.span, "this parameter needs a `name`")
                        .with_help(format!("add `name`: {NAME_RULE}")),
                );
            }
            Some(name) => {
                if let Some(problem) = name_problem(&name.value, 64) {
                    self.report.push(
self.report.error(
                            Rule::BadParamName,
                            format!("{kind} name {} {problem}", quote(&name.value)),
                        )
                        .with_primary(name.span, "not a valid parameter name")
                        .with_help(format!(
                            "parameter names are {NAME_RULE} (Claude and OpenAI reject other property names)"
                        )),
                    );
                }
            }
        }
    }

    fn check_enum(&mut self, p: &RawParam, who: &str, ty: ParamType) -> Option<Vec<String>> {
        let values = p.enum_values.as_ref()?;
        if ty.scalar() != ScalarType::String {
            self.report.push(
self.report.error(
                    Rule::EnumOnNonString,
                    format!(
                        "{who}: `enum` is only allowed on string and array:string parameters, not on `{}`",
                        p.ty.as_ref().map_or("?", |t| t.value.as_str())
                    ),
                )
                .with_primary(values.key, "not allowed here")
                .with_help("use `minimum`/`maximum` to bound numbers, or make the parameter a string"),
            );
            return None;
        }
        if values.value.is_empty() {
            self.report.push(
                self.report
                    .error(Rule::BadEnum, format!("{who}: `enum` has no values"))
                    .with_primary(values.span, "empty")
                    .with_help("list the allowed values, or leave `enum` out"),
            );
            return None;
        }
        let mut ok = true;
        let mut seen: Vec<&Item> = Vec::new();
        let mut variants: HashMap<String, &Item> = HashMap::new();
        for item in &values.value {
            let (value, span) = item;
            if seen.iter().any(|(v, _)| v == value) {
                self.report.push(
                    self.report
                        .error(
                            Rule::BadEnum,
                            format!("{who}: enum value {} is given twice", quote(value)),
                        )
                        .with_primary(*span, "given again here")
                        .with_help("remove the repeated value"),
                );
                ok = false;
                continue;
            }
            seen.push(item);
            if !value.chars().any(char::is_alphanumeric) {
                self.report.push(
self.report.error(
                        Rule::BadEnum,
                        format!(
                            "{who}: enum value {} has no letter or digit (it would give no Rust variant)",
                            quote(value)
                        ),
                    )
                    .with_primary(*span, "no letter or digit"),
                );
                ok = false;
                continue;
            }
            let variant = names::variant_name(value);
            if let Some((first, first_span)) = variants.get(&variant) {
                self.report.push(
self.report.error(
                        Rule::BadEnum,
                        format!(
                            "{who}: enum values {} and {} both map to the Rust variant `{variant}`",
                            quote(first),
                            quote(value)
                        ),
                    )
                    .with_primary(*span, "maps to the same variant")
                    .with_secondary(*first_span, "as this one"),
                );
                ok = false;
                continue;
            }
            variants.insert(variant, item);
        }
        ok.then(|| values.value.iter().map(|(v, _)| v.clone()).collect())
    }
}

/// What an unknown type string probably meant.
fn suggest_type(ty: &str) -> Option<&'static str> {
    let squeezed: String = ty.chars().filter(|c| !c.is_whitespace()).collect();
    let lower = squeezed.to_ascii_lowercase();
    if let Some(&t) = ParamType::SPELLINGS.iter().find(|t| **t == lower) {
        return Some(t);
    }
    let (array, item) = match lower.strip_prefix("array:") {
        Some(item) => (true, item),
        None => (false, lower.as_str()),
    };
    let synonym = match item {
        "str" | "text" | "char" => Some("string"),
        "double" | "f64" | "f32" | "float64" | "float32" | "decimal" | "real" => Some("number"),
        "long" | "i64" | "i32" | "int64" | "int32" | "uint" | "u64" => Some("integer"),
        "true" | "false" | "flag" => Some("boolean"),
        _ => None,
    };
    if let Some(s) = synonym {
        return ParamType::SPELLINGS.iter().copied().find(|t| {
            *t == if array {
                format!("array:{s}")
            } else {
                s.to_owned()
            }
        });
    }
    closest_type(&lower)
}

/// The type string a few edits away from `ty` (already lower case), if any.
pub(crate) fn closest_type(ty: &str) -> Option<&'static str> {
    let allowed = if ty.chars().count() <= 4 { 1 } else { 2 };
    crate::metadata::ParamType::SPELLINGS
        .iter()
        .map(|t| (strsim::damerau_levenshtein(ty, t), *t))
        .filter(|(d, _)| *d <= allowed)
        .min_by_key(|(d, _)| *d)
        .map(|(_, t)| t)
}
