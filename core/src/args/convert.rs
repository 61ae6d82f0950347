//! FORMAT.md "Arguments at run time": an argument value brought to its schema
//! type (with the lenient conversions LLM clients need, or strictly), then
//! checked against the parameter's enum and constraints.

use std::borrow::Cow;

use serde_json::Value;

use super::error::ArgProblem;
use super::spec::ParamSpec;
use crate::metadata::{Number, ParamType, ScalarType};

/// How argument values are converted to their schema types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Conversion {
    /// What LLM clients really send: `"42"` and `42.0` for an integer, `"true"`
    /// for a boolean, a number for a string, a JSON array in a string.
    #[default]
    Lenient,
    /// Only values of the schema's JSON type (an integer may be written `42.0`,
    /// as JSON Schema allows).
    Strict,
}

/// The value in its schema type, or why it cannot be.
pub(crate) fn normalize<'v>(
    value: &'v Value,
    ty: ParamType,
    conversion: Conversion,
) -> Result<Cow<'v, Value>, ArgProblem> {
    match ty {
        ParamType::Scalar(s) => scalar(value, s, conversion),
        ParamType::Array(item) => match value {
            Value::Array(items) => Ok(match convert_items(items, item, conversion)? {
                None => Cow::Borrowed(value),
                Some(converted) => Cow::Owned(Value::Array(converted)),
            }),
            Value::String(text) if conversion == Conversion::Lenient => {
                match serde_json::from_str::<Value>(text) {
                    Ok(Value::Array(items)) => {
                        let converted = convert_items(&items, item, conversion)?;
                        Ok(Cow::Owned(Value::Array(converted.unwrap_or(items))))
                    }
                    _ => Err(ArgProblem::expected("an array", value)),
                }
            }
            _ => Err(ArgProblem::expected("an array", value)),
        },
    }
}

/// True when `value` already has its schema type, so needs no conversion (the
/// common case: [`normalize`] would return it as it is).
#[inline]
pub(crate) fn has_type(value: &Value, ty: ParamType) -> bool {
    match (ty, value) {
        (ParamType::Scalar(s), v) => scalar_has_type(v, s),
        (ParamType::Array(item), Value::Array(items)) => {
            items.iter().all(|v| scalar_has_type(v, item))
        }
        _ => false,
    }
}

#[inline]
fn scalar_has_type(value: &Value, ty: ScalarType) -> bool {
    match (ty, value) {
        (ScalarType::String, Value::String(_))
        | (ScalarType::Number, Value::Number(_))
        | (ScalarType::Boolean, Value::Bool(_)) => true,
        (ScalarType::Integer, Value::Number(n)) => n.is_i64(),
        _ => false,
    }
}

/// Converts each item; `None` when every item already had its type (the
/// common case, which then needs no copy of the array).
fn convert_items(
    items: &[Value],
    item: ScalarType,
    conversion: Conversion,
) -> Result<Option<Vec<Value>>, ArgProblem> {
    let mut converted: Option<Vec<Value>> = None;
    for (i, v) in items.iter().enumerate() {
        let v = scalar(v, item, conversion)
            .map_err(|p| ArgProblem::new(format!("item {}: {p}", i + 1)))?;
        match (v, &mut converted) {
            (Cow::Borrowed(_), None) => {}
            (v, Some(out)) => out.push(v.into_owned()),
            (Cow::Owned(v), None) => {
                let mut out = items[..i].to_vec();
                out.push(v);
                converted = Some(out);
            }
        }
    }
    Ok(converted)
}

fn scalar<'v>(
    value: &'v Value,
    ty: ScalarType,
    conversion: Conversion,
) -> Result<Cow<'v, Value>, ArgProblem> {
    if scalar_has_type(value, ty) {
        return Ok(Cow::Borrowed(value));
    }
    let lenient = conversion == Conversion::Lenient;
    match (ty, value) {
        (ScalarType::Integer, Value::Number(n)) => integer(n.as_i64(), n.as_f64(), value),
        (ScalarType::String, Value::Number(_) | Value::Bool(_)) if lenient => {
            Ok(Cow::Owned(Value::String(value.to_string())))
        }
        (ScalarType::Integer, Value::String(s)) if lenient => match s.parse::<i64>() {
            Ok(i) => Ok(Cow::Owned(Value::from(i))),
            Err(_) => integer(None, s.parse::<f64>().ok(), value),
        },
        (ScalarType::Number, Value::String(s)) if lenient => match s.parse::<f64>() {
            Ok(x) if x.is_finite() && !s.trim().is_empty() => Ok(Cow::Owned(number(s, x))),
            _ => Err(ArgProblem::expected("a number", value)),
        },
        (ScalarType::Boolean, Value::String(s)) if lenient => {
            if s.eq_ignore_ascii_case("true") {
                Ok(Cow::Owned(Value::Bool(true)))
            } else if s.eq_ignore_ascii_case("false") {
                Ok(Cow::Owned(Value::Bool(false)))
            } else {
                Err(ArgProblem::expected("a boolean", value))
            }
        }
        _ => Err(ArgProblem::expected(expected(ty), value)),
    }
}

/// An integer from an exact `i64`, or from a float with no fractional part
/// within `i64` range; never truncated.
fn integer<'v>(
    exact: Option<i64>,
    float: Option<f64>,
    value: &'v Value,
) -> Result<Cow<'v, Value>, ArgProblem> {
    if let Some(i) = exact {
        return Ok(Cow::Owned(Value::from(i)));
    }
    if let Some(i) = float.and_then(crate::text::exact_integer) {
        return Ok(Cow::Owned(Value::from(i)));
    }
    match float {
        Some(x) if x.is_finite() && x.fract() == 0.0 => Err(ArgProblem::new(format!(
            "expected an integer, got {} (out of the 64-bit range)",
            super::error::describe(value)
        ))),
        Some(x) if x.is_finite() => Err(ArgProblem::new(format!(
            "expected an integer, got {} (it has a fractional part)",
            super::error::describe(value)
        ))),
        _ => Err(ArgProblem::expected("an integer", value)),
    }
}

/// A number parsed from a string keeps integer form when it has one.
fn number(text: &str, x: f64) -> Value {
    match text.parse::<i64>() {
        Ok(i) => Value::from(i),
        Err(_) => Value::from(x),
    }
}

fn expected(ty: ScalarType) -> &'static str {
    match ty {
        ScalarType::String => "a string",
        ScalarType::Integer => "an integer",
        ScalarType::Number => "a number",
        ScalarType::Boolean => "a boolean",
    }
}

/// Checks a normalized value against the parameter's enum and constraints.
pub(crate) fn check(value: &Value, spec: &ParamSpec) -> Result<(), ArgProblem> {
    if spec.is_unconstrained() {
        return Ok(());
    }
    match value {
        Value::Array(items) => {
            let n = items.len() as u64;
            if let Some(min) = spec.min_items.filter(|&m| n < m) {
                return Err(ArgProblem::new(format!(
                    "expected at least {min} item{}, got {n}",
                    if min == 1 { "" } else { "s" }
                )));
            }
            if let Some(max) = spec.max_items.filter(|&m| n > m) {
                return Err(ArgProblem::new(format!(
                    "expected at most {max} item{}, got {n}",
                    if max == 1 { "" } else { "s" }
                )));
            }
            for (i, item) in items.iter().enumerate() {
                check_scalar(item, spec)
                    .map_err(|p| ArgProblem::new(format!("item {}: {p}", i + 1)))?;
            }
            Ok(())
        }
        scalar => check_scalar(scalar, spec),
    }
}

fn check_scalar(value: &Value, spec: &ParamSpec) -> Result<(), ArgProblem> {
    match value {
        Value::String(s) => {
            if spec.has_enum() && !spec.enum_values().any(|v| v == s) {
                let allowed: Vec<String> = spec.enum_values().map(|v| format!("{v:?}")).collect();
                return Err(ArgProblem::new(format!(
                    "expected one of {}, got {}",
                    allowed.join(", "),
                    super::error::describe(value)
                )));
            }
            if spec.min_length.is_none() && spec.max_length.is_none() {
                return check_pattern(s, value, spec);
            }
            let len = s.chars().count() as u64;
            if let Some(min) = spec.min_length.filter(|&m| len < m) {
                return Err(ArgProblem::new(format!(
                    "expected at least {min} character{}, got {len}",
                    if min == 1 { "" } else { "s" }
                )));
            }
            if let Some(max) = spec.max_length.filter(|&m| len > m) {
                return Err(ArgProblem::new(format!(
                    "expected at most {max} character{}, got {len}",
                    if max == 1 { "" } else { "s" }
                )));
            }
            check_pattern(s, value, spec)
        }
        Value::Number(n) => {
            if let Some(min) = spec.minimum
                && below(n, min)
            {
                return Err(ArgProblem::new(format!("expected at least {min}, got {n}")));
            }
            if let Some(max) = spec.maximum
                && below_bound(max, n)
            {
                return Err(ArgProblem::new(format!("expected at most {max}, got {n}")));
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

fn check_pattern(s: &str, value: &Value, spec: &ParamSpec) -> Result<(), ArgProblem> {
    let matched = spec.matches_pattern(s).map_err(|_| {
        ArgProblem::new(format!(
            "cannot check the pattern {:?}: this server was built without toolmetadata's feature `regex`",
            spec.pattern_source().unwrap_or_default()
        ))
    })?;
    if matched {
        Ok(())
    } else {
        Err(ArgProblem::new(format!(
            "expected a string matching {:?}, got {}",
            spec.pattern_source().unwrap_or_default(),
            super::error::describe(value)
        )))
    }
}

/// `n < bound`, exactly for integers.
fn below(n: &serde_json::Number, bound: Number) -> bool {
    match (n.as_i64(), bound) {
        (Some(i), Number::Integer(b)) => i < b,
        _ => n.as_f64().is_some_and(|x| x < bound.as_f64()),
    }
}

/// `bound < n`, exactly for integers.
fn below_bound(bound: Number, n: &serde_json::Number) -> bool {
    match (n.as_i64(), bound) {
        (Some(i), Number::Integer(b)) => b < i,
        _ => n.as_f64().is_some_and(|x| bound.as_f64() < x),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The decoder's fast path skips `normalize` exactly when it would have
    /// returned the value unchanged.
    #[test]
    fn has_type_agrees_with_normalize() {
        let values = [
            json!("text"),
            json!("42"),
            json!("true"),
            json!(42),
            json!(-7),
            json!(42.0),
            json!(1.5),
            json!(u64::MAX),
            json!(true),
            json!(null),
            json!({}),
            json!([]),
            json!(["a", "b"]),
            json!([1, 2]),
            json!([1, "2"]),
            json!([1.5]),
            json!([true, false]),
            json!("[1, 2]"),
        ];
        let scalars = [
            ScalarType::String,
            ScalarType::Integer,
            ScalarType::Number,
            ScalarType::Boolean,
        ];
        let types = scalars
            .iter()
            .map(|&s| ParamType::Scalar(s))
            .chain(scalars.iter().map(|&s| ParamType::Array(s)));
        for ty in types {
            for value in &values {
                for conversion in [Conversion::Lenient, Conversion::Strict] {
                    let unchanged =
                        matches!(normalize(value, ty, conversion), Ok(Cow::Borrowed(_)));
                    assert_eq!(
                        has_type(value, ty),
                        unchanged,
                        "{value} as {ty:?} ({conversion:?})"
                    );
                }
            }
        }
    }
}
