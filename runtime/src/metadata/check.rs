//! Raw tool → checked [`ToolMetadata`]: every rule of FORMAT.md that is about
//! meaning rather than syntax (names, types, enums, defaults, constraints, `[ui]`,
//! icons), every error collected.

use std::collections::HashMap;

use super::decode::{Decoder, Item, RawIcon, RawParam, RawTool, Sp};
use super::names;
use super::suggest;
use super::tree::{Node, Value, quote, shorten};
use super::types::{
    Constraints, Hints, Icon, Literal, Number, ParamType, ScalarType, Theme, ToolMetadata,
    ToolParameter, UiMeta, Visibility,
};
use super::uri;
use crate::diagnostic::{Diagnostic, Rule, Span};

const NAME_RULE: &str = "1 to 64 characters from A-Z a-z 0-9 _ - ., at least one a letter or digit";
const TOOL_NAME_RULE: &str =
    "MCP tool names are 1 to 128 characters from A-Z a-z 0-9 _ - ., at least one a letter or digit";

/// Why a name breaks the naming rule (`[A-Za-z0-9_.-]{1,max}` with a letter or
/// digit), or `None` when it follows it.
pub(crate) fn name_problem(name: &str, max: usize) -> Option<&'static str> {
    if name.is_empty() {
        Some("is empty")
    } else if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
    {
        Some("may only use A-Z a-z 0-9 _ - .")
    } else if name.len() > max {
        Some(if max == 64 {
            "is longer than 64 characters"
        } else {
            "is longer than 128 characters"
        })
    } else if !name.chars().any(|c| c.is_ascii_alphanumeric()) {
        Some("has no letter or digit")
    } else {
        None
    }
}

impl Decoder {
    /// Checks the file stem as a tool name.
    pub(crate) fn check_tool_name(&mut self, name: &str) {
        if let Some(problem) = name_problem(name, 128) {
            let d = self
                .error(
                    Rule::BadToolName,
                    format!("tool name {} {problem}", quote(name)),
                )
                .with_help(format!(
                    "rename the file: {TOOL_NAME_RULE} (the tool name is the file name without its extension)"
                ));
            self.push(d);
        }
    }

    pub(crate) fn check(&mut self, name: &str, raw: RawTool) -> ToolMetadata {
        let parameters = self.check_params(&raw.parameters);
        let output = raw.output.as_ref().map(|output| {
            if output.value.is_empty() {
                let d = self
                    .error(
                        Rule::EmptyOutput,
                        "`output` has no entries (give at least one output parameter, or leave `output` out)",
                    )
                    .with_primary(output.key, "empty");
                self.push(d);
            }
            self.check_params(&output.value)
        });
        let ui = raw.ui.as_ref().and_then(|ui| self.check_ui(ui));
        let icons = raw
            .icons
            .iter()
            .filter_map(|i| self.check_icon(i))
            .collect();
        let flag = |f: &Option<Sp<bool>>| f.as_ref().map(|b| b.value);
        ToolMetadata {
            name: name.to_owned(),
            description: raw.description.map(|d| d.value).unwrap_or_default(),
            title: raw.title.map(|t| t.value).filter(|t| !t.is_empty()),
            keywords: raw
                .keywords
                .map(|k| k.value.into_iter().map(|(s, _)| s).collect())
                .unwrap_or_default(),
            discoverable: flag(&raw.discoverable).unwrap_or(false),
            parameters,
            output,
            hints: Hints {
                read_only: flag(&raw.read_only),
                destructive: flag(&raw.destructive),
                idempotent: flag(&raw.idempotent),
                open_world: flag(&raw.open_world),
            },
            ui,
            icons,
        }
    }

    fn check_params(&mut self, raw: &[RawParam]) -> Vec<ToolParameter> {
        let params: Vec<ToolParameter> = raw.iter().map(|p| self.check_param(p)).collect();
        self.check_param_names(raw);
        params
    }

    /// Duplicate names, and names that give one Rust field.
    fn check_param_names(&mut self, raw: &[RawParam]) {
        let mut by_name: HashMap<&str, &Sp<String>> = HashMap::new();
        let mut by_field: HashMap<String, &Sp<String>> = HashMap::new();
        let kind = if raw.first().is_some_and(|p| p.is_output) {
            "output parameters"
        } else {
            "parameters"
        };
        for name in raw.iter().filter_map(|p| p.name.as_ref()) {
            if name_problem(&name.value, 64).is_some() {
                continue;
            }
            if let Some(first) = by_name.get(name.value.as_str()) {
                let (l1, l2) = (self.line(first.span), self.line(name.span));
                let d = self
                    .error(
                        Rule::DuplicateParam,
                        format!(
                            "parameter `{}` is declared twice (line {l1} and line {l2})",
                            name.value
                        ),
                    )
                    .with_primary(name.span, "declared again here")
                    .with_secondary(first.span, "first declared here")
                    .with_help("rename or remove one of them");
                self.push(d);
                continue;
            }
            by_name.insert(&name.value, name);
            let field = names::snake(&name.value);
            if let Some(first) = by_field.get(&field) {
                let d = self
                    .error(
                        Rule::ParamNameCollision,
                        format!(
                            "{kind} `{}` and `{}` both map to the Rust field `{}`",
                            first.value,
                            name.value,
                            names::field_name(&name.value)
                        ),
                    )
                    .with_primary(name.span, "maps to the same field")
                    .with_secondary(first.span, "as this one")
                    .with_help("rename one of them, so that the generated struct can hold both");
                self.push(d);
                continue;
            }
            by_field.insert(field, name);
        }
    }

    fn line(&self, span: Span) -> usize {
        self.file.line_column(span.start).0
    }

    fn check_param(&mut self, p: &RawParam) -> ToolParameter {
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
            let d = self
                .error(Rule::UnknownType, format!("{who} has no `type`"))
                .with_primary(p.span, "this parameter needs a `type`")
                .with_help(format!("valid types: {valid}"));
            self.push(d);
            return None;
        };
        match ty.value.parse::<ParamType>() {
            Ok(t) => Some(t),
            Err(_) => {
                let help = match suggest_type(&ty.value) {
                    Some(meant) => format!("did you mean `{meant}`? valid types: {valid}"),
                    None => format!("valid types: {valid}"),
                };
                let d = self
                    .error(
                        Rule::UnknownType,
                        format!("{who}: unknown type {}", quote(&ty.value)),
                    )
                    .with_primary(ty.span, "not a parameter type")
                    .with_help(help);
                self.push(d);
                None
            }
        }
    }

    fn check_param_name(&mut self, p: &RawParam) {
        let kind = if p.is_output {
            "output parameter"
        } else {
            "parameter"
        };
        match &p.name {
            None if p.has_name => {}
            None => {
                let d = self
                    .error(
                        Rule::BadParamName,
                        format!("{kind} {} has no `name`", p.index),
                    )
                    .with_primary(p.span, "this parameter needs a `name`")
                    .with_help(format!("add `name`: {NAME_RULE}"));
                self.push(d);
            }
            Some(name) => {
                if let Some(problem) = name_problem(&name.value, 64) {
                    let d = self
                        .error(
                            Rule::BadParamName,
                            format!("{kind} name {} {problem}", quote(&name.value)),
                        )
                        .with_primary(name.span, "not a valid parameter name")
                        .with_help(format!(
                            "parameter names are {NAME_RULE} (Claude and OpenAI reject other property names)"
                        ));
                    self.push(d);
                }
            }
        }
    }

    fn check_enum(&mut self, p: &RawParam, who: &str, ty: ParamType) -> Option<Vec<String>> {
        let values = p.enum_values.as_ref()?;
        if ty.scalar() != ScalarType::String {
            let d = self
                .error(
                    Rule::EnumOnNonString,
                    format!(
                        "{who}: `enum` is only allowed on string and array:string parameters, not on `{}`",
                        p.ty.as_ref().map_or("?", |t| t.value.as_str())
                    ),
                )
                .with_primary(values.key, "not allowed here")
                .with_help("use `minimum`/`maximum` to bound numbers, or make the parameter a string");
            self.push(d);
            return None;
        }
        if values.value.is_empty() {
            let d = self
                .error(Rule::BadEnum, format!("{who}: `enum` has no values"))
                .with_primary(values.span, "empty")
                .with_help("list the allowed values, or leave `enum` out");
            self.push(d);
            return None;
        }
        let mut ok = true;
        let mut seen: Vec<&Item> = Vec::new();
        let mut variants: HashMap<String, &Item> = HashMap::new();
        for item in &values.value {
            let (value, span) = item;
            if seen.iter().any(|(v, _)| v == value) {
                let d = self
                    .error(
                        Rule::BadEnum,
                        format!("{who}: enum value {} is given twice", quote(value)),
                    )
                    .with_primary(*span, "given again here")
                    .with_help("remove the repeated value");
                self.push(d);
                ok = false;
                continue;
            }
            seen.push(item);
            if !value.chars().any(char::is_alphanumeric) {
                let d = self
                    .error(
                        Rule::BadEnum,
                        format!(
                            "{who}: enum value {} has no letter or digit (it would give no Rust variant)",
                            quote(value)
                        ),
                    )
                    .with_primary(*span, "no letter or digit");
                self.push(d);
                ok = false;
                continue;
            }
            let variant = names::variant_name(value);
            if let Some((first, first_span)) = variants.get(&variant) {
                let d = self
                    .error(
                        Rule::BadEnum,
                        format!(
                            "{who}: enum values {} and {} both map to the Rust variant `{variant}`",
                            quote(first),
                            quote(value)
                        ),
                    )
                    .with_primary(*span, "maps to the same variant")
                    .with_secondary(*first_span, "as this one");
                self.push(d);
                ok = false;
                continue;
            }
            variants.insert(variant, item);
        }
        ok.then(|| values.value.iter().map(|(v, _)| v.clone()).collect())
    }

    fn check_constraints(&mut self, p: &RawParam, who: &str, ty: ParamType) -> Constraints {
        let ty_name = p.ty.as_ref().map_or(String::new(), |t| t.value.clone());
        let numeric = ty.scalar().is_numeric();
        let is_string = ty == ParamType::Scalar(ScalarType::String);
        let mut c = Constraints::default();
        let wrong = |d: &mut Decoder, key: &str, span: Span, allowed: &str| {
            let e = d
                .error(
                    Rule::ConstraintOnWrongType,
                    format!("{who}: `{key}` is only allowed on {allowed}, not on `{ty_name}`"),
                )
                .with_primary(span, "not allowed here");
            d.push(e);
        };
        for (key, bound, slot) in [
            ("minimum", &p.minimum, &mut c.minimum),
            ("maximum", &p.maximum, &mut c.maximum),
        ] {
            let Some(bound) = bound else { continue };
            if !numeric {
                wrong(
                    self,
                    key,
                    bound.key,
                    "int and float parameters and their arrays",
                );
                continue;
            }
            *slot = self.bound(who, key, bound, ty.scalar());
        }
        for (key, value, slot, allowed) in [
            ("minLength", &p.min_length, &mut c.min_length, is_string),
            ("maxLength", &p.max_length, &mut c.max_length, is_string),
            ("minItems", &p.min_items, &mut c.min_items, ty.is_array()),
            ("maxItems", &p.max_items, &mut c.max_items, ty.is_array()),
        ] {
            let Some(value) = value else { continue };
            if allowed {
                *slot = Some(value.value);
            } else if key.ends_with("Items") {
                wrong(self, key, value.key, "array parameters");
            } else {
                wrong(self, key, value.key, "string parameters");
            }
        }
        if let Some(pattern) = &p.pattern {
            if !is_string {
                wrong(self, "pattern", pattern.key, "string parameters");
            } else if let Err(why) = compile_pattern(&pattern.value) {
                let d = self
                    .error(
                        Rule::BadPattern,
                        format!(
                            "{who}: `pattern` {} does not compile with the Rust regex crate: {why}",
                            quote(&pattern.value)
                        ),
                    )
                    .with_primary(pattern.span, why)
                    .with_help("the Rust regex crate has no look-around or backreferences");
                self.push(d);
            } else {
                c.pattern = Some(pattern.value.clone());
            }
        }
        let float = ty.scalar() == ScalarType::Number;
        let bound = |n: Option<Number>, s: &Option<Sp<Number>>| {
            (n.map(Number::as_f64), s.as_ref().map(|s| s.span))
        };
        let count =
            |n: Option<u64>, s: &Option<Sp<u64>>| (n.map(|n| n as f64), s.as_ref().map(|s| s.span));
        // A lower bound above its upper bound is reported, and dropped.
        let (lo, hi) = (bound(c.minimum, &p.minimum), bound(c.maximum, &p.maximum));
        if !self.ordered(who, ("minimum", lo.0, lo.1), ("maximum", hi.0, hi.1), float) {
            c.minimum = None;
        }
        let (lo, hi) = (
            count(c.min_length, &p.min_length),
            count(c.max_length, &p.max_length),
        );
        if !self.ordered(
            who,
            ("minLength", lo.0, lo.1),
            ("maxLength", hi.0, hi.1),
            false,
        ) {
            c.min_length = None;
        }
        let (lo, hi) = (
            count(c.min_items, &p.min_items),
            count(c.max_items, &p.max_items),
        );
        if !self.ordered(
            who,
            ("minItems", lo.0, lo.1),
            ("maxItems", hi.0, hi.1),
            false,
        ) {
            c.min_items = None;
        }
        c
    }

    /// Checks that a lower bound is not above its upper bound; false after
    /// reporting when it is.
    fn ordered(
        &mut self,
        who: &str,
        (lo_key, lo, lo_span): (&str, Option<f64>, Option<Span>),
        (hi_key, hi, hi_span): (&str, Option<f64>, Option<Span>),
        float: bool,
    ) -> bool {
        let (Some(lo), Some(lo_span), Some(hi), Some(hi_span)) = (lo, lo_span, hi, hi_span) else {
            return true;
        };
        if lo <= hi {
            return true;
        }
        let show = |x: f64| shown(x, float);
        let d = self
            .error(
                Rule::MinGtMax,
                format!(
                    "{who}: `{lo_key}` ({}) is greater than `{hi_key}` ({})",
                    show(lo),
                    show(hi)
                ),
            )
            .with_help(format!(
                "`{lo_key}` must not be above `{hi_key}`; equal bounds are fine"
            ));
        let d = two_places(
            d,
            (lo_span, format!("`{lo_key}` is {}", show(lo))),
            (hi_span, format!("`{hi_key}` is {}", show(hi))),
        );
        self.push(d);
        false
    }

    /// A `minimum`/`maximum`, as an integer on `int` parameters.
    fn bound(
        &mut self,
        who: &str,
        key: &str,
        bound: &Sp<Number>,
        scalar: ScalarType,
    ) -> Option<Number> {
        if scalar == ScalarType::Number {
            return Some(Number::Float(bound.value.as_f64()));
        }
        match bound.value {
            Number::Integer(i) => Some(Number::Integer(i)),
            Number::Float(x) if x.fract() == 0.0 && x.abs() < 9.0e18 => {
                Some(Number::Integer(x as i64))
            }
            Number::Float(x) => {
                let d = self
                    .error(
                        Rule::BadConstraint,
                        format!("{who}: `{key}` must be a whole number on `int`, found {x}"),
                    )
                    .with_primary(bound.span, "not a whole number")
                    .with_help("use a whole number, or make the parameter a float");
                self.push(d);
                None
            }
        }
    }

    fn check_default(
        &mut self,
        p: &RawParam,
        who: &str,
        ty: ParamType,
        param: &ToolParameter,
    ) -> Option<Literal> {
        let default = p.default.as_ref()?;
        if p.is_output {
            let d = self
                .error(
                    Rule::DefaultInOutput,
                    format!("{who}: `default` is not allowed in `output` parameters"),
                )
                .with_primary(default.key, "not allowed here")
                .with_help("remove `default`; mark the field `required` if it is always present");
            self.push(d);
            return None;
        }
        if let Some(required) = p.required.as_ref().filter(|r| r.value) {
            let d = self
                .error(
                    Rule::DefaultWithRequired,
                    format!("{who}: `default` is not allowed with `required = true`"),
                )
                .with_help("a required argument is always given: remove `default`, or `required`");
            let d = two_places(
                d,
                (default.key, "`default` here".into()),
                (required.key, "`required = true` here".into()),
            );
            self.push(d);
            return None;
        }
        let Some(literal) = literal_of(&default.value, ty) else {
            let d = self
                .error(
                    Rule::BadDefault,
                    format!(
                        "{who}: `default` must be a value of type `{}`, found {}",
                        p.ty.as_ref().map_or("?", |t| t.value.as_str()),
                        default.value.value.describe(self.syntax)
                    ),
                )
                .with_primary(default.span, format!("not a `{ty}`"));
            self.push(d);
            return None;
        };
        match default_problem(&literal, param) {
            None => Some(literal),
            Some((key, why)) => {
                let d = self
                    .error(
                        Rule::BadDefault,
                        format!(
                            "{who}: `default` {} {why}",
                            shorten(&default.value.value.literal(80), 80)
                        ),
                    )
                    .with_help("a default must meet the parameter's own constraints");
                let here = (default.span, "the default".to_owned());
                let d = match constraint_key(p, key) {
                    Some(span) => two_places(d, here, (span, format!("the `{key}`"))),
                    None => d.with_primary(here.0, here.1),
                };
                self.push(d);
                None
            }
        }
    }

    fn check_ui(&mut self, ui: &Sp<super::decode::RawUi>) -> Option<UiMeta> {
        let mut meta = UiMeta::default();
        let mut ok = true;
        if let Some(uri) = ui
            .value
            .resource_uri
            .as_ref()
            .filter(|u| !u.value.is_empty())
        {
            match uri::check_ui_uri(&uri.value) {
                Ok(()) => meta.resource_uri = Some(uri.value.clone()),
                Err(why) => {
                    let d = self
                        .error(
                            Rule::BadUiUri,
                            format!(
                                "ui.resourceUri {} must be a URI with the `ui` scheme, e.g. \"ui://dashboard/sales\"",
                                quote(&uri.value)
                            ),
                        )
                        .with_primary(uri.span, why);
                    self.push(d);
                    ok = false;
                }
            }
        }
        if let Some(visibility) = &ui.value.visibility {
            for (value, span) in &visibility.value {
                match value.as_str() {
                    "model" => meta.visibility.push(Visibility::Model),
                    "app" => meta.visibility.push(Visibility::App),
                    _ => {
                        let d = self
                            .error(
                                Rule::BadUiVisibility,
                                format!(
                                    "ui.visibility value {} must be \"model\" or \"app\"",
                                    quote(value)
                                ),
                            )
                            .with_primary(*span, "not a visibility");
                        self.push(d);
                        ok = false;
                    }
                }
            }
        }
        let has_uri = ui
            .value
            .resource_uri
            .as_ref()
            .is_some_and(|u| !u.value.is_empty());
        let has_visibility = ui
            .value
            .visibility
            .as_ref()
            .is_some_and(|v| !v.value.is_empty());
        if !has_uri && !has_visibility {
            let d = self
                .error(
                    Rule::EmptyUi,
                    "[ui] has neither a non-empty `resourceUri` nor a non-empty `visibility`",
                )
                .with_primary(ui.key, "empty UI link")
                .with_help("set `resourceUri = \"ui://…\"`, or remove [ui]");
            self.push(d);
            ok = false;
        }
        ok.then_some(meta)
    }

    fn check_icon(&mut self, icon: &RawIcon) -> Option<Icon> {
        let n = icon.index;
        let mut ok = true;
        let src = match &icon.src {
            None => {
                let d = self
                    .error(Rule::IconSrc, format!("icon {n} has no `src`"))
                    .with_primary(icon.span, "this icon needs a `src`");
                self.push(d);
                return None;
            }
            Some(src) if src.value.is_empty() => {
                let d = self
                    .error(Rule::IconSrc, format!("icon {n} has an empty `src`"))
                    .with_primary(src.span, "empty");
                self.push(d);
                return None;
            }
            Some(src) => src,
        };
        if !uri::is_icon_src(&src.value) {
            let d = self
                .error(
                    Rule::IconSrc,
                    format!(
                        "icon {n}: `src` {} must be an https: URL or a data: URI",
                        quote(&src.value)
                    ),
                )
                .with_primary(src.span, "not https: or data:")
                .with_help("MCP clients reject icons from other schemes");
            self.push(d);
            ok = false;
        }
        let theme = match &icon.theme {
            None => None,
            Some(t) if t.value == "light" => Some(Theme::Light),
            Some(t) if t.value == "dark" => Some(Theme::Dark),
            Some(t) => {
                let d = self
                    .error(
                        Rule::IconTheme,
                        format!(
                            "icon {n}: `theme` {} must be \"light\" or \"dark\"",
                            quote(&t.value)
                        ),
                    )
                    .with_primary(t.span, "not a theme");
                self.push(d);
                ok = false;
                None
            }
        };
        ok.then(|| Icon {
            src: src.value.clone(),
            mime_type: icon.mime_type.as_ref().map(|m| m.value.clone()),
            sizes: icon
                .sizes
                .as_ref()
                .map(|s| s.value.iter().map(|(v, _)| v.clone()).collect())
                .unwrap_or_default(),
            theme,
        })
    }
}

/// Labels the two places a problem involves: the later one in the file is the
/// primary (it is where the problem shows), the other gives context.
fn two_places(d: Diagnostic, a: (Span, String), b: (Span, String)) -> Diagnostic {
    let (primary, secondary) = if a.0.start >= b.0.start {
        (a, b)
    } else {
        (b, a)
    };
    d.with_primary(primary.0, primary.1)
        .with_secondary(secondary.0, secondary.1)
}

/// A bound shown as written: `1.0` for float parameters, `1` for int ones.
fn shown(x: f64, float: bool) -> String {
    if float {
        super::tree::format_float(x)
    } else {
        Number::Integer(x as i64).to_string()
    }
}

fn constraint_key(p: &RawParam, key: &str) -> Option<Span> {
    match key {
        "minimum" => p.minimum.as_ref().map(|s| s.span),
        "maximum" => p.maximum.as_ref().map(|s| s.span),
        "minLength" => p.min_length.as_ref().map(|s| s.span),
        "maxLength" => p.max_length.as_ref().map(|s| s.span),
        "pattern" => p.pattern.as_ref().map(|s| s.span),
        "minItems" => p.min_items.as_ref().map(|s| s.span),
        "maxItems" => p.max_items.as_ref().map(|s| s.span),
        "enum" => p.enum_values.as_ref().map(|s| s.span),
        _ => None,
    }
}

/// A default converted to its parameter's type; `None` when it is not a value of it.
/// Numbers compare by value, so `2` is a `float` default and `2.0` an `int` one.
fn literal_of(node: &Node, ty: ParamType) -> Option<Literal> {
    match ty {
        ParamType::Scalar(s) => scalar_literal(&node.value, s),
        ParamType::Array(s) => match &node.value {
            Value::Array(items) => items
                .iter()
                .map(|item| scalar_literal(&item.value, s))
                .collect::<Option<Vec<_>>>()
                .map(Literal::Array),
            _ => None,
        },
    }
}

fn scalar_literal(value: &Value, ty: ScalarType) -> Option<Literal> {
    match (ty, value) {
        (ScalarType::String, Value::String(s)) => Some(Literal::String(s.clone())),
        (ScalarType::Boolean, Value::Bool(b)) => Some(Literal::Boolean(*b)),
        (ScalarType::Integer, Value::Integer(i)) => Some(Literal::Integer(*i)),
        (ScalarType::Integer, Value::Float(x)) if x.fract() == 0.0 && x.abs() < 9.0e18 => {
            Some(Literal::Integer(*x as i64))
        }
        (ScalarType::Number, Value::Integer(i)) => Some(Literal::Number(*i as f64)),
        (ScalarType::Number, Value::Float(x)) => Some(Literal::Number(*x)),
        _ => None,
    }
}

/// Which of the parameter's own rules a default breaks: the key, and why.
fn default_problem(literal: &Literal, param: &ToolParameter) -> Option<(&'static str, String)> {
    let c = &param.constraints;
    match literal {
        Literal::Array(items) => {
            let n = items.len() as u64;
            if let Some(min) = c.min_items.filter(|&m| n < m) {
                return Some((
                    "minItems",
                    format!("has fewer items than `minItems` ({min})"),
                ));
            }
            if let Some(max) = c.max_items.filter(|&m| n > m) {
                return Some((
                    "maxItems",
                    format!("has more items than `maxItems` ({max})"),
                ));
            }
            items.iter().find_map(|item| {
                scalar_problem(item, param).map(|(key, why)| {
                    (
                        key,
                        format!("has an item {} that {why}", literal_text(item)),
                    )
                })
            })
        }
        scalar => scalar_problem(scalar, param),
    }
}

fn literal_text(literal: &Literal) -> String {
    match literal {
        Literal::String(s) => quote(s),
        other => other.to_json().to_string(),
    }
}

fn scalar_problem(literal: &Literal, param: &ToolParameter) -> Option<(&'static str, String)> {
    let c = &param.constraints;
    match literal {
        Literal::String(s) => {
            if let Some(values) = &param.enum_values
                && !values.contains(s)
            {
                let list: Vec<String> = values.iter().map(|v| quote(v)).collect();
                return Some((
                    "enum",
                    format!("is not one of the `enum` values [{}]", list.join(", ")),
                ));
            }
            let len = s.chars().count() as u64;
            if let Some(min) = c.min_length.filter(|&m| len < m) {
                return Some(("minLength", format!("is shorter than `minLength` ({min})")));
            }
            if let Some(max) = c.max_length.filter(|&m| len > m) {
                return Some(("maxLength", format!("is longer than `maxLength` ({max})")));
            }
            if let Some(pattern) = &c.pattern
                && compile_pattern(pattern).is_ok_and(|re| !re.is_match(s))
            {
                return Some((
                    "pattern",
                    format!("does not match `pattern` {}", quote(pattern)),
                ));
            }
            None
        }
        Literal::Integer(_) | Literal::Number(_) => {
            let x = match literal {
                Literal::Integer(i) => *i as f64,
                Literal::Number(x) => *x,
                _ => return None,
            };
            if let Some(min) = c.minimum.filter(|m| x < m.as_f64()) {
                return Some(("minimum", format!("is below `minimum` ({min})")));
            }
            if let Some(max) = c.maximum.filter(|m| x > m.as_f64()) {
                return Some(("maximum", format!("is above `maximum` ({max})")));
            }
            None
        }
        Literal::Boolean(_) | Literal::Array(_) => None,
    }
}

/// Compiles a `pattern` with the Rust regex crate; the error is the parser's own
/// one-line reason (`look-around … is not supported`).
pub(crate) fn compile_pattern(pattern: &str) -> Result<regex::Regex, String> {
    if let Err(e) = regex_syntax::ast::parse::Parser::new().parse(pattern) {
        return Err(e.kind().to_string());
    }
    regex::Regex::new(pattern).map_err(|e| match e {
        regex::Error::Syntax(text) => text.lines().last().unwrap_or("invalid").trim().to_owned(),
        other => other.to_string(),
    })
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
    suggest::closest_type(&lower)
}
