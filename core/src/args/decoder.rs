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
    /// One empty slot per parameter, for [`Params::decoder`].
    #[inline]
    pub fn slots(&self) -> [Option<Value>; N] {
        [const { None }; N]
    }

    /// A decoder of `args` of `tool` against these parameters.
    #[inline]
    pub fn decoder<'a>(
        &'a self,
        tool: &'a str,
        args: Map<String, Value>,
        slots: &'a mut [Option<Value>; N],
        conversion: Conversion,
    ) -> Decoder<'a> {
        Decoder::new(tool, args, &self.0, slots, conversion)
    }
}

/// Decodes the arguments of one call, parameter by parameter, collecting every
/// error; [`Decoder::finish`] returns them all.
///
/// The decoder takes the arguments apart in one pass, each value into its
/// parameter's slot, and moves each out as its parameter is taken, so strings
/// and arrays are not copied. Arguments the schema does not have
/// (`additionalProperties: false`) are reported first.
#[derive(Debug)]
pub struct Decoder<'a> {
    tool: &'a str,
    slots: &'a mut [Option<Value>],
    unknown: Vec<String>,
    params: &'a [ParamSpec],
    conversion: Conversion,
    errors: Vec<ArgError>,
}

impl<'a> Decoder<'a> {
    /// Starts decoding `args` of `tool`, whose parameters are `params`; `slots`
    /// (one `None` per parameter, on the caller's stack) receive the values
    /// until each is taken, so decoding allocates nothing of its own.
    pub fn new(
        tool: &'a str,
        args: Map<String, Value>,
        params: &'a [ParamSpec],
        slots: &'a mut [Option<Value>],
        conversion: Conversion,
    ) -> Self {
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
    /// checked; `None` (after recording why) when it is missing or bad.
    pub fn required<T: FromArg>(&mut self, index: usize) -> Option<T> {
        self.take(index, true, Self::convert)
    }

    /// The argument for parameter `index`, or `None` when it is absent (or bad,
    /// after recording why).
    pub fn optional<T: FromArg>(&mut self, index: usize) -> Option<T> {
        self.take(index, false, Self::convert)
    }

    /// Like [`Decoder::required`] for a user type, which receives the value as
    /// the client sent it and does its own conversion and checks.
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
        convert: impl FnOnce(&mut Self, &'a ParamSpec, Value) -> Option<T>,
    ) -> Option<T> {
        let spec = self.params.get(index)?;
        // `null` counts as absent.
        match self
            .slots
            .get_mut(index)
            .and_then(Option::take)
            .filter(|v| !v.is_null())
        {
            Some(value) => convert(self, spec, value),
            None => {
                if required {
                    self.errors.push(ArgError::other(
                        Some(spec.name()),
                        format!("missing required argument `{}`", spec.name()),
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

    /// Every error: unknown arguments first, then the parameters' in order.
    fn into_errors(self) -> ArgErrors {
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
        errors.extend(self.errors);
        ArgErrors::new(self.tool, errors)
    }

    /// Every error of the call, if any argument failed or was unknown.
    /// Call it after taking every parameter: once it returns `Ok`, each
    /// required parameter taken is `Some`.
    ///
    /// Not generic, so that what a generated decoder compiles per tool is
    /// only its own taking of fields and building of the struct.
    pub fn finish(self) -> Result<(), ArgErrors> {
        if self.is_ok() {
            Ok(())
        } else {
            Err(self.into_errors())
        }
    }

    fn convert<T: FromArg>(&mut self, spec: &ParamSpec, value: Value) -> Option<T> {
        // Most arguments already have their type and most parameters have no
        // constraint: move the value straight into the field.
        if spec.is_unconstrained() && convert::has_type(&value, spec.ty()) {
            return self.record(spec, T::from_arg_owned(value));
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
        self.record(spec, result)
    }

    fn custom<T: FromArg>(&mut self, spec: &ParamSpec, value: Value) -> Option<T> {
        let result = T::from_arg_owned(value);
        self.record(spec, result)
    }

    fn record<T>(&mut self, spec: &ParamSpec, result: Result<T, ArgProblem>) -> Option<T> {
        match result {
            Ok(v) => Some(v),
            Err(problem) => {
                self.errors.push(ArgError::new(spec.name(), problem));
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

/// The error of a generated decoder that finds a required field `None` after
/// [`Decoder::finish`] returned `Ok`: every missing required argument was
/// recorded as an error, so only a decoder that does not match its
/// parameters gets here.
#[cold]
pub fn incomplete(tool: &str) -> ArgErrors {
    ArgErrors::new(
        tool,
        vec![ArgError::other(
            None,
            "the arguments are incomplete".to_owned(),
        )],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metadata::{ParamType, ScalarType};

    #[test]
    fn index_of_tells_apart_names_of_one_length_and_first_byte() {
        let ty = ParamType::Scalar(ScalarType::String);
        let params = [
            ParamSpec::new("scope", ty),
            ParamSpec::new("score", ty),
            ParamSpec::new("s", ty),
            ParamSpec::new("", ty),
        ];
        assert_eq!(index_of(&params, "scope"), Some(0));
        assert_eq!(index_of(&params, "score"), Some(1));
        assert_eq!(index_of(&params, "s"), Some(2));
        assert_eq!(index_of(&params, ""), Some(3));
        assert_eq!(index_of(&params, "scopf"), None);
        assert_eq!(index_of(&params, "scopes"), None);
    }
}
