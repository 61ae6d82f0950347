//! The decoder generated code calls: one call per argument, every error kept.

use serde_json::{Map, Value};

use super::convert::{self, Conversion};
use super::error::{ArgError, ArgErrors, ArgProblem};
use super::from_arg::FromArg;
use super::spec::ParamSpec;

/// A tool's parameters, in the order of its metadata: the `static` table a
/// generated argument struct decodes with.
#[derive(Debug)]
pub struct Params<const N: usize>(pub [ParamSpec; N]);

impl<const N: usize> Params<N> {
    /// A decoder of `args` of `tool` against these parameters.
    #[inline]
    pub fn decoder<'a>(
        &'a self,
        tool: &'a str,
        args: Map<String, Value>,
        conversion: Conversion,
    ) -> Decoder<'a> {
        Decoder::new(tool, args, &self.0, conversion)
    }
}

/// A value of one of the format's types that stands in for a required
/// argument that is missing or bad, so that a generated decoder builds its
/// struct in one expression. The error is recorded when the stand-in is
/// made, and [`Decoder::finish`] then returns the errors instead of the
/// struct: a handler never sees one.
pub trait Placeholder {
    /// The stand-in.
    const PLACEHOLDER: Self;
}

impl Placeholder for String {
    const PLACEHOLDER: Self = String::new();
}

impl Placeholder for i64 {
    const PLACEHOLDER: Self = 0;
}

impl Placeholder for f64 {
    const PLACEHOLDER: Self = 0.0;
}

impl Placeholder for bool {
    const PLACEHOLDER: Self = false;
}

impl<T> Placeholder for Vec<T> {
    const PLACEHOLDER: Self = Vec::new();
}

impl Placeholder for Value {
    const PLACEHOLDER: Self = Value::Null;
}

/// Decodes the arguments of one call, parameter by parameter, collecting every
/// error; [`Decoder::finish`] returns them all.
///
/// The decoder takes the arguments apart in one pass, each value into its
/// parameter's slot (cheaper than looking each parameter up in the object),
/// and moves each out as its parameter is taken, so strings and arrays are
/// not copied. Arguments the schema does not have
/// (`additionalProperties: false`) are reported first.
#[derive(Debug)]
pub struct Decoder<'a> {
    tool: &'a str,
    slots: Vec<Option<Value>>,
    unknown: Vec<String>,
    params: &'a [ParamSpec],
    conversion: Conversion,
    /// Each error with the index of its parameter, so that they are reported
    /// in the metadata's order whatever order the parameters were taken in.
    errors: Vec<(usize, ArgError)>,
}

impl<'a> Decoder<'a> {
    /// Starts decoding `args` of `tool`, whose parameters are `params`.
    pub fn new(
        tool: &'a str,
        args: Map<String, Value>,
        params: &'a [ParamSpec],
        conversion: Conversion,
    ) -> Self {
        let mut slots = Vec::with_capacity(params.len());
        slots.resize_with(params.len(), || None);
        let mut unknown = Vec::new();
        for (key, value) in args {
            match index_of(params, &key).and_then(|i| slots.get_mut(i)) {
                Some(slot) => *slot = Some(value),
                None => unknown.push(key),
            }
        }
        Decoder {
            tool,
            slots,
            unknown,
            params,
            conversion,
            errors: Vec::new(),
        }
    }

    /// The argument for parameter `index`, brought to its schema type and
    /// checked; when it is missing or bad, the error is recorded and
    /// [`Placeholder::PLACEHOLDER`] stands in for it.
    pub fn required<T: FromArg + Placeholder>(&mut self, index: usize) -> T {
        self.take(index, true, Self::convert)
            .unwrap_or(T::PLACEHOLDER)
    }

    /// The argument for parameter `index`, or `None` when it is absent (or bad,
    /// after recording why).
    pub fn optional<T: FromArg>(&mut self, index: usize) -> Option<T> {
        self.take(index, false, Self::convert)
    }

    /// Like [`Decoder::required`] for a user type, which receives the value as
    /// the client sent it and does its own conversion and checks. A user type
    /// has no stand-in: `None` when the argument is missing or bad, the error
    /// recorded (see [`Decoder::fail`]).
    pub fn required_custom<T: FromArg>(&mut self, index: usize) -> Option<T> {
        self.take(index, true, Self::custom)
    }

    /// Like [`Decoder::optional`] for a user type.
    pub fn optional_custom<T: FromArg>(&mut self, index: usize) -> Option<T> {
        self.take(index, false, Self::custom)
    }

    #[inline]
    fn take<T>(
        &mut self,
        index: usize,
        required: bool,
        convert: impl FnOnce(&mut Self, usize, &'a ParamSpec, Value) -> Option<T>,
    ) -> Option<T> {
        let Some(spec) = self.params.get(index) else {
            // Only a decoder that does not match its table gets here; the
            // error keeps a stand-in from reaching the handler.
            self.errors.push((
                index,
                ArgError::other(None, "the arguments are incomplete".to_owned()),
            ));
            return None;
        };
        // `null` counts as absent.
        match self
            .slots
            .get_mut(index)
            .and_then(Option::take)
            .filter(|v| !v.is_null())
        {
            Some(value) => convert(self, index, spec, value),
            None => {
                if required {
                    self.errors.push((
                        index,
                        ArgError::other(
                            Some(spec.name()),
                            format!("missing required argument `{}`", spec.name()),
                        ),
                    ));
                }
                None
            }
        }
    }

    /// True when, every parameter taken, no argument failed and none was left
    /// unknown.
    fn is_ok(&self) -> bool {
        self.errors.is_empty() && self.unknown.is_empty()
    }

    /// Every error of the call: unknown arguments first, then the parameters'
    /// in the metadata's order. For a generated decoder that stops at a
    /// required argument of a user type that is missing or bad, after taking
    /// every other parameter.
    #[cold]
    pub fn fail(self) -> ArgErrors {
        let names: Vec<&str> = self.params.iter().map(ParamSpec::name).collect();
        let mut errors: Vec<ArgError> = self
            .unknown
            .iter()
            .map(|key| {
                let message = match crate::text::closest(key, &names) {
                    Some(meant) => format!("unknown argument `{key}`; did you mean `{meant}`?"),
                    None if names.is_empty() => {
                        format!("unknown argument `{key}`; this tool takes no arguments")
                    }
                    None => format!(
                        "unknown argument `{key}`; the arguments are: {}",
                        names.join(", ")
                    ),
                };
                ArgError::other(Some(key), message)
            })
            .collect();
        let mut taken = self.errors;
        taken.sort_by_key(|(index, _)| *index);
        errors.extend(taken.into_iter().map(|(_, error)| error));
        ArgErrors::new(self.tool, errors)
    }

    /// `value`, built from the parameters taken, when no argument failed and
    /// none was unknown; otherwise every error. Call it after taking every
    /// parameter.
    pub fn finish<T>(self, value: T) -> Result<T, ArgErrors> {
        // Compiled once per tool: the decoder is consumed by a call that is not.
        match self.into_errors() {
            None => Ok(value),
            Some(errors) => Err(errors),
        }
    }

    fn into_errors(self) -> Option<ArgErrors> {
        if self.is_ok() {
            None
        } else {
            Some(self.fail())
        }
    }

    fn convert<T: FromArg>(&mut self, index: usize, spec: &ParamSpec, value: Value) -> Option<T> {
        // Most arguments already have their type and most parameters have no
        // constraint: move the value straight into the field.
        if spec.is_unconstrained() && convert::has_type(&value, spec.ty()) {
            return self.record(index, spec, T::from_arg_owned(value));
        }
        let result = match convert::normalize(&value, spec.ty(), self.conversion) {
            Err(problem) => Err(problem),
            Ok(normalized) => match convert::check(&normalized, spec) {
                Err(problem) => Err(problem),
                // Already of its type: move the value itself into the field.
                Ok(()) => match normalized {
                    std::borrow::Cow::Borrowed(_) => T::from_arg_owned(value),
                    std::borrow::Cow::Owned(converted) => T::from_arg_owned(converted),
                },
            },
        };
        self.record(index, spec, result)
    }

    fn custom<T: FromArg>(&mut self, index: usize, spec: &ParamSpec, value: Value) -> Option<T> {
        let result = T::from_arg_owned(value);
        self.record(index, spec, result)
    }

    fn record<T>(
        &mut self,
        index: usize,
        spec: &ParamSpec,
        result: Result<T, ArgProblem>,
    ) -> Option<T> {
        match result {
            Ok(v) => Some(v),
            Err(problem) => {
                self.errors
                    .push((index, ArgError::new(spec.name(), problem)));
                None
            }
        }
    }
}

/// The parameter named `key`. Names are short and rarely share their length
/// and first byte, so comparing those first leaves the byte comparison to
/// the parameter that matches, instead of a `memcmp` call per parameter of
/// the same length.
fn index_of(params: &[ParamSpec], key: &str) -> Option<usize> {
    let key = key.as_bytes();
    params.iter().position(|p| {
        let name = p.name().as_bytes();
        name.len() == key.len()
            && name.first() == key.first()
            && name.iter().zip(key).all(|(a, b)| a == b)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metadata::{ParamType, ScalarType};

    const STRING: ParamType = ParamType::Scalar(ScalarType::String);
    const INTEGER: ParamType = ParamType::Scalar(ScalarType::Integer);

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    fn messages(errors: &ArgErrors) -> Vec<String> {
        errors.errors().iter().map(ToString::to_string).collect()
    }

    #[test]
    fn index_of_tells_apart_names_of_one_length_and_first_byte() {
        let params = [
            ParamSpec::new("scope", STRING),
            ParamSpec::new("score", STRING),
            ParamSpec::new("s", STRING),
            ParamSpec::new("", STRING),
        ];
        assert_eq!(index_of(&params, "scope"), Some(0));
        assert_eq!(index_of(&params, "score"), Some(1));
        assert_eq!(index_of(&params, "s"), Some(2));
        assert_eq!(index_of(&params, ""), Some(3));
        assert_eq!(index_of(&params, "scopf"), None);
        assert_eq!(index_of(&params, "scopes"), None);
    }

    #[test]
    fn a_stand_in_never_leaves_the_decoder() {
        let params = [
            ParamSpec::new("q", STRING).required(),
            ParamSpec::new("n", INTEGER).required(),
        ];
        let mut d = Decoder::new(
            "t",
            args(serde_json::json!({"n": "x"})),
            &params,
            Conversion::Lenient,
        );
        let value: (String, i64) = (d.required(0), d.required(1));
        assert_eq!(value, (String::new(), 0), "stand-ins");
        let errors = d.finish(value).expect_err("both arguments failed");
        let messages = messages(&errors);
        assert_eq!(messages.len(), 2, "{messages:?}");
        assert!(
            messages[0].contains("missing required argument `q`"),
            "{messages:?}"
        );
        assert!(messages[1].contains("`n`"), "{messages:?}");
    }

    #[test]
    fn errors_come_in_the_metadatas_order_unknown_arguments_first() {
        let params = [
            ParamSpec::new("a", INTEGER).required(),
            ParamSpec::new("b", INTEGER).required(),
        ];
        let mut d = Decoder::new(
            "t",
            args(serde_json::json!({"a": "x", "b": "y", "c": 1})),
            &params,
            Conversion::Strict,
        );
        // Taken out of order, as a generated decoder takes a user type's
        // required parameter before the others.
        let b: Option<i64> = d.required_custom(1);
        let a: i64 = d.required(0);
        assert_eq!((a, b), (0, None));
        let messages = messages(&d.fail());
        assert_eq!(messages.len(), 3, "{messages:?}");
        assert!(messages[0].contains("unknown argument `c`"), "{messages:?}");
        assert!(messages[1].contains("`a`"), "{messages:?}");
        assert!(messages[2].contains("`b`"), "{messages:?}");
    }

    /// A hostile call: thousands of arguments the tool does not have, beside
    /// a required one given as `null`. Each is refused by name, once, and
    /// the stand-in for the missing one never comes back as a value.
    #[test]
    fn a_flood_of_unknown_arguments_is_refused_whole() {
        let params = [ParamSpec::new("q", STRING).required()];
        let mut flood: Map<String, Value> = (0..5_000)
            .map(|i| (format!("x{i}"), Value::from(i)))
            .collect();
        flood.insert("q".to_owned(), Value::Null);
        let mut d = Decoder::new("t", flood, &params, Conversion::Lenient);
        let q: String = d.required(0);
        let errors = d.finish(q).expect_err("unknown and missing arguments");
        let messages = messages(&errors);
        assert_eq!(messages.len(), 5_001);
        assert!(
            messages[..5_000]
                .iter()
                .all(|m| m.contains("unknown argument `x"))
        );
        assert!(
            messages[5_000].contains("missing required argument `q`"),
            "{}",
            messages[5_000]
        );
    }

    #[test]
    fn a_parameter_the_table_lacks_is_an_error_not_a_stand_in() {
        let params = [ParamSpec::new("q", STRING)];
        let mut d = Decoder::new("t", Map::new(), &params, Conversion::Lenient);
        let q: String = d.required(3);
        assert!(d.finish(q).is_err());
    }

    #[test]
    fn null_is_absent_and_every_argument_is_moved_out() {
        let params = [ParamSpec::new("q", STRING), ParamSpec::new("n", INTEGER)];
        let mut d = Decoder::new(
            "t",
            args(serde_json::json!({"q": null, "n": 2})),
            &params,
            Conversion::Lenient,
        );
        let value: (Option<String>, Option<i64>) = (d.optional(0), d.optional(1));
        assert_eq!(d.finish(value).ok(), Some((None, Some(2))));
    }
}
