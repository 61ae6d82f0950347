//! [`FromArg`]: one argument value into a Rust value.

use std::fmt;

use serde_json::Value;

use super::error::ArgProblem;

/// Converts one argument value into a Rust value.
///
/// For the format's own types the decoder first brings the value to its schema
/// type (the lenient conversions) and checks its constraints, so these
/// implementations only see well-typed values. A user type set for a parameter
/// with `Builder::param_type` receives the value as the client sent it and does
/// its own conversion:
///
/// ```
/// use toolmetadata_core::args::{ArgProblem, FromArg};
///
/// /// A user id: `u` followed by digits, given as `"u42"` or `42`.
/// struct UserId(u64);
///
/// impl FromArg for UserId {
///     fn from_arg(value: &serde_json::Value) -> Result<Self, ArgProblem> {
///         match value {
///             serde_json::Value::Number(n) => n.as_u64().map(UserId),
///             serde_json::Value::String(s) => s.strip_prefix('u').and_then(|d| d.parse().ok()).map(UserId),
///             _ => None,
///         }
///         .ok_or_else(|| ArgProblem::expected("a user id like \"u42\"", value))
///     }
/// }
/// assert_eq!(UserId::from_arg(&serde_json::json!("u7")).unwrap().0, 7);
/// ```
pub trait FromArg: Sized {
    /// Converts `value`, or says what was expected.
    fn from_arg(value: &Value) -> Result<Self, ArgProblem>;

    /// Converts an owned value; types that hold strings override it to move
    /// them instead of copying. The decoder calls this one.
    fn from_arg_owned(value: Value) -> Result<Self, ArgProblem> {
        Self::from_arg(&value)
    }
}

impl FromArg for String {
    #[inline]
    fn from_arg(value: &Value) -> Result<Self, ArgProblem> {
        match value {
            Value::String(s) => Ok(s.clone()),
            _ => Err(ArgProblem::expected("a string", value)),
        }
    }

    #[inline]
    fn from_arg_owned(value: Value) -> Result<Self, ArgProblem> {
        match value {
            Value::String(s) => Ok(s),
            other => Err(ArgProblem::expected("a string", &other)),
        }
    }
}

impl FromArg for i64 {
    #[inline]
    fn from_arg(value: &Value) -> Result<Self, ArgProblem> {
        value
            .as_i64()
            .ok_or_else(|| ArgProblem::expected("an integer", value))
    }
}

impl FromArg for f64 {
    #[inline]
    fn from_arg(value: &Value) -> Result<Self, ArgProblem> {
        value
            .as_f64()
            .ok_or_else(|| ArgProblem::expected("a number", value))
    }
}

impl FromArg for bool {
    #[inline]
    fn from_arg(value: &Value) -> Result<Self, ArgProblem> {
        value
            .as_bool()
            .ok_or_else(|| ArgProblem::expected("a boolean", value))
    }
}

impl<T: FromArg> FromArg for Vec<T> {
    fn from_arg(value: &Value) -> Result<Self, ArgProblem> {
        match value {
            Value::Array(items) => items
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    T::from_arg(v).map_err(|p| ArgProblem::new(format!("item {}: {p}", i + 1)))
                })
                .collect(),
            _ => Err(ArgProblem::expected("an array", value)),
        }
    }

    fn from_arg_owned(value: Value) -> Result<Self, ArgProblem> {
        match value {
            Value::Array(items) => items
                .into_iter()
                .enumerate()
                .map(|(i, v)| {
                    T::from_arg_owned(v)
                        .map_err(|p| ArgProblem::new(format!("item {}: {p}", i + 1)))
                })
                .collect(),
            other => Err(ArgProblem::expected("an array", &other)),
        }
    }
}

impl<T: FromArg> FromArg for Option<T> {
    fn from_arg(value: &Value) -> Result<Self, ArgProblem> {
        match value {
            Value::Null => Ok(None),
            v => T::from_arg(v).map(Some),
        }
    }

    fn from_arg_owned(value: Value) -> Result<Self, ArgProblem> {
        match value {
            Value::Null => Ok(None),
            v => T::from_arg_owned(v).map(Some),
        }
    }
}

impl FromArg for Value {
    fn from_arg(value: &Value) -> Result<Self, ArgProblem> {
        Ok(value.clone())
    }

    fn from_arg_owned(value: Value) -> Result<Self, ArgProblem> {
        Ok(value)
    }
}

/// An id given as a string or an integer, like the Go package `mcpargs`'s `ID`.
///
/// Use it for a parameter through `Builder::param_type(tool, param,
/// "::toolmetadata::args::Id")`; it receives the argument as sent, so
/// `"abc"`, `42` and `"42"` are all accepted.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Id {
    /// Given as a JSON integer.
    Integer(i64),
    /// Given as a string.
    String(String),
}

impl Id {
    /// The id as JSON: an integer or a string.
    pub fn to_json(&self) -> Value {
        match self {
            Id::Integer(i) => Value::from(*i),
            Id::String(s) => Value::from(s.as_str()),
        }
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Id::Integer(i) => write!(f, "{i}"),
            Id::String(s) => f.write_str(s),
        }
    }
}

impl FromArg for Id {
    fn from_arg_owned(value: Value) -> Result<Self, ArgProblem> {
        match value {
            Value::String(s) => Ok(Id::String(s)),
            other => Self::from_arg(&other),
        }
    }

    fn from_arg(value: &Value) -> Result<Self, ArgProblem> {
        match value {
            Value::String(s) => Ok(Id::String(s.clone())),
            Value::Number(n) => match n.as_i64() {
                Some(i) => Ok(Id::Integer(i)),
                None => match n.as_f64().and_then(crate::text::exact_integer) {
                    Some(i) => Ok(Id::Integer(i)),
                    None => Err(ArgProblem::expected("a string or an integer id", value)),
                },
            },
            _ => Err(ArgProblem::expected("a string or an integer id", value)),
        }
    }
}
