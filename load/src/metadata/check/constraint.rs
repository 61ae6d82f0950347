//! A parameter's constraints and default: bounds in order and of the right
//! kind, lengths and item counts on the types they fit, patterns that compile,
//! defaults that satisfy all of them.

use super::{Checker, two_places};
use crate::diagnostic::{Rule, Span};
use crate::metadata::read::{RawParam, Sp};
use crate::metadata::report::Report;
use crate::metadata::tree::{Node, Value, quote};
use crate::metadata::{Constraints, Literal, Number, ParamType, ScalarType, ToolParameter};
use toolmetadata_core::{exact_integer, shorten};

impl Checker<'_> {
    pub(super) fn check_constraints(
        &mut self,
        p: &RawParam,
        who: &str,
        ty: ParamType,
    ) -> Constraints {
        let ty_name = p.ty.as_ref().map_or(String::new(), |t| t.value.clone());
        let numeric = ty.scalar().is_numeric();
        let is_string = ty == ParamType::Scalar(ScalarType::String);
        let mut c = Constraints::default();
        let wrong = |report: &mut Report, key: &str, span: Span, allowed: &str| {
            report.push(
                report
                    .error(
                        Rule::ConstraintOnWrongType,
                        format!("{who}: `{key}` is only allowed on {allowed}, not on `{ty_name}`"),
                    )
                    .with_primary(span, "not allowed here"),
            );
        };
        for (key, bound, slot) in [
            ("minimum", &p.minimum, &mut c.minimum),
            ("maximum", &p.maximum, &mut c.maximum),
        ] {
            let Some(bound) = bound else { continue };
            if !numeric {
                wrong(
                    self.report,
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
                wrong(self.report, key, value.key, "array parameters");
            } else {
                wrong(self.report, key, value.key, "string parameters");
            }
        }
        if let Some(pattern) = &p.pattern {
            if !is_string {
                wrong(self.report, "pattern", pattern.key, "string parameters");
            } else {
                match check_pattern(&pattern.value) {
                    PatternCheck::Compiles => c.pattern = Some(pattern.value.clone()),
                    PatternCheck::Invalid(why) => self.report.push(
                        self.report
                            .error(
                                Rule::BadPattern,
                                format!(
                                    "{who}: `pattern` {} does not compile with the Rust regex crate: {why}",
                                    quote(&pattern.value)
                                ),
                            )
                            .with_primary(pattern.span, why)
                            .with_help("the Rust regex crate has no look-around or backreferences"),
                    ),
                    PatternCheck::Unchecked => self.report.push(
                        self.report
                            .error(
                                Rule::BuildFeature,
                                format!(
                                    "{who}: `pattern` {} cannot be checked: this build of toolmetadata-build has its feature `regex` off",
                                    quote(&pattern.value)
                                ),
                            )
                            .with_primary(pattern.span, "checked as the tool is loaded")
                            .with_help(format!(
                                "turn it on in Cargo.toml: toolmetadata-build = {{ version = \"{}\", features = [\"regex\"] }} (it is a default feature)",
                                env!("CARGO_PKG_VERSION")
                            )),
                    ),
                }
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
            .report
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
        self.report.push(two_places(
            d,
            (lo_span, format!("`{lo_key}` is {}", show(lo))),
            (hi_span, format!("`{hi_key}` is {}", show(hi))),
        ));
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
            Number::Float(x) if exact_integer(x).is_some() => exact_integer(x).map(Number::Integer),
            Number::Float(x) => {
                self.report.push(
                    self.report
                        .error(
                            Rule::BadConstraint,
                            format!("{who}: `{key}` must be a whole number on `int`, found {x}"),
                        )
                        .with_primary(bound.span, "not a whole number")
                        .with_help("use a whole number, or make the parameter a float"),
                );
                None
            }
        }
    }

    pub(super) fn check_default(
        &mut self,
        p: &RawParam,
        who: &str,
        ty: ParamType,
        param: &ToolParameter,
    ) -> Option<Literal> {
        let default = p.default.as_ref()?;
        if p.is_output {
            self.report.push(
                self.report
                    .error(
                        Rule::DefaultInOutput,
                        format!("{who}: `default` is not allowed in `output` parameters"),
                    )
                    .with_primary(default.key, "not allowed here")
                    .with_help(
                        "remove `default`; mark the field `required` if it is always present",
                    ),
            );
            return None;
        }
        if let Some(required) = p.required.as_ref().filter(|r| r.value) {
            let d = self
                .report
                .error(
                    Rule::DefaultWithRequired,
                    format!("{who}: `default` is not allowed with `required = true`"),
                )
                .with_help("a required argument is always given: remove `default`, or `required`");
            self.report.push(two_places(
                d,
                (default.key, "`default` here".into()),
                (required.key, "`required = true` here".into()),
            ));
            return None;
        }
        let Some(literal) = literal_of(&default.value, ty) else {
            self.report.push(
                self.report
                    .error(
                        Rule::BadDefault,
                        format!(
                            "{who}: `default` must be a value of type `{}`, found {}",
                            p.ty.as_ref().map_or("?", |t| t.value.as_str()),
                            default.value.value.describe(self.report.syntax)
                        ),
                    )
                    .with_primary(default.span, format!("not of type `{ty}`")),
            );
            return None;
        };
        match default_problem(&literal, param) {
            None => Some(literal),
            Some((key, why)) => {
                let d = self
                    .report
                    .error(
                        Rule::BadDefault,
                        format!(
                            "{who}: `default` {} {why}",
                            shorten(&default.value.value.literal(80), 80)
                        ),
                    )
                    .with_help("a default must meet the parameter's own constraints");
                let here = (default.span, "the default".to_owned());
                self.report.push(match constraint_key(p, key) {
                    Some(span) => two_places(d, here, (span, format!("the `{key}`"))),
                    None => d.with_primary(here.0, here.1),
                });
                None
            }
        }
    }
}

/// A bound shown as written: `1.0` for float parameters, `1` for int ones.
fn shown(x: f64, float: bool) -> String {
    if float {
        crate::metadata::format_float(x)
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
        (ScalarType::Integer, Value::Float(x)) => exact_integer(*x).map(Literal::Integer),
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
                && !pattern_matches(pattern, s)
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

/// What checking a `pattern` found: a build with the checker (core's
/// `pattern-check`, the build crate's `regex`) finds the first two, one
/// without it only the third.
enum PatternCheck {
    #[cfg_attr(
        not(feature = "pattern-check"),
        expect(dead_code, reason = "no checker")
    )]
    Compiles,
    /// It does not compile; the parser's one-line reason.
    #[cfg_attr(
        not(feature = "pattern-check"),
        expect(dead_code, reason = "no checker")
    )]
    Invalid(String),
    /// No checker: refused where it is written, never taken on trust.
    #[cfg_attr(feature = "pattern-check", expect(dead_code, reason = "a checker"))]
    Unchecked,
}

/// Whether `pattern` compiles as the Rust regex crate would compile it.
#[cfg(feature = "pattern-check")]
fn check_pattern(pattern: &str) -> PatternCheck {
    match crate::metadata::pattern::compile(pattern) {
        Ok(_) => PatternCheck::Compiles,
        Err(why) => PatternCheck::Invalid(why),
    }
}

#[cfg(not(feature = "pattern-check"))]
fn check_pattern(_: &str) -> PatternCheck {
    PatternCheck::Unchecked
}

/// Whether `text` matches `pattern` somewhere; true for a pattern that
/// does not compile, refused on its own.
#[cfg(feature = "pattern-check")]
fn pattern_matches(pattern: &str, text: &str) -> bool {
    crate::metadata::pattern::compile(pattern).map_or(true, |re| re.is_match(text))
}

/// Without the checker every pattern is refused (`Unchecked`), so what it
/// would match is never asked.
#[cfg(not(feature = "pattern-check"))]
fn pattern_matches(_: &str, _: &str) -> bool {
    true
}

#[cfg(test)]
mod tests {
    use crate::diagnostic::Rule;
    use crate::metadata::{Load, ToolMetadata};

    const PATTERN: &str = "description = \"d\"\n[[parameters]]\nname = \"code\"\ntype = \"string\"\npattern = \"^[A-Z]{3}$\"\ndefault = \"ABC\"\n";

    /// With the checker a pattern is checked and kept; without it the tool
    /// is refused at the pattern, naming the feature, never loaded with a
    /// pattern nobody checked.
    #[test]
    fn a_pattern_is_checked_or_refused() {
        let loaded = ToolMetadata::from_toml_str("t", PATTERN);
        if cfg!(feature = "pattern-check") {
            let tool = loaded.expect("loads");
            assert_eq!(
                tool.parameters[0].constraints.pattern.as_deref(),
                Some("^[A-Z]{3}$")
            );
            let wrong = PATTERN.replace("\"ABC\"", "\"abc\"");
            let refused =
                ToolMetadata::from_toml_str("t", &wrong).expect_err("a default off its pattern");
            assert!(
                refused.to_string().contains("does not match `pattern`"),
                "{refused}"
            );
        } else {
            let refused = loaded.expect_err("a pattern nobody checked");
            let first = refused.iter().next().expect("one");
            assert_eq!(first.rule(), Rule::BuildFeature);
            let shown = refused.to_string();
            assert!(shown.contains("feature `regex`"), "{shown}");
            assert!(shown.contains(":5:11"), "{shown}");
        }
    }
}
