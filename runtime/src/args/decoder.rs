//! The decoder generated code calls: one call per argument, every error kept.

use serde_json::{Map, Value};

use super::convert::{self, Conversion};
use super::error::{ArgError, ArgErrors, ArgProblem};
use super::from_arg::FromArg;
use super::spec::ParamSpec;

/// Decodes the arguments of one call, parameter by parameter, collecting every
/// error; [`Decoder::finish`] returns them all.
///
/// Unknown arguments are reported as soon as the decoder is made, since the
/// schema says `additionalProperties: false`.
#[derive(Debug)]
pub struct Decoder<'a> {
    tool: &'a str,
    args: &'a Map<String, Value>,
    params: &'a [ParamSpec],
    conversion: Conversion,
    errors: Vec<ArgError>,
}

impl<'a> Decoder<'a> {
    /// Starts decoding `args` of `tool`, whose parameters are `params`.
    pub fn new(
        tool: &'a str,
        args: &'a Map<String, Value>,
        params: &'a [ParamSpec],
        conversion: Conversion,
    ) -> Self {
        let mut errors = Vec::new();
        for key in args.keys() {
            if !params.iter().any(|p| p.name() == key) {
                let names: Vec<&str> = params.iter().map(ParamSpec::name).collect();
                let message = match closest(key, &names) {
                    Some(meant) => format!("unknown argument `{key}`; did you mean `{meant}`?"),
                    None if names.is_empty() => {
                        format!("unknown argument `{key}`; this tool takes no arguments")
                    }
                    None => format!(
                        "unknown argument `{key}`; the arguments are: {}",
                        names.join(", ")
                    ),
                };
                errors.push(ArgError::other(Some(key), message));
            }
        }
        Decoder {
            tool,
            args,
            params,
            conversion,
            errors,
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

    fn take<T>(
        &mut self,
        index: usize,
        required: bool,
        convert: fn(&mut Self, &'a ParamSpec, &'a Value) -> Option<T>,
    ) -> Option<T> {
        let spec = self.params.get(index)?;
        // `null` counts as absent.
        match self.args.get(spec.name()).filter(|v| !v.is_null()) {
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

    /// True while no argument has failed.
    pub fn is_ok(&self) -> bool {
        self.errors.is_empty()
    }

    /// The errors recorded so far.
    pub fn into_errors(self) -> ArgErrors {
        ArgErrors::new(self.tool, self.errors)
    }

    /// All errors of the call, or `Ok` when there were none.
    pub fn finish(self) -> Result<(), ArgErrors> {
        if self.errors.is_empty() {
            Ok(())
        } else {
            Err(ArgErrors::new(self.tool, self.errors))
        }
    }

    fn convert<T: FromArg>(&mut self, spec: &ParamSpec, value: &Value) -> Option<T> {
        let result = convert::normalize(value, spec.ty(), self.conversion).and_then(|v| {
            convert::check(&v, spec)?;
            T::from_arg(&v)
        });
        self.record(spec, result)
    }

    fn custom<T: FromArg>(&mut self, spec: &ParamSpec, value: &Value) -> Option<T> {
        let result = T::from_arg(value);
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

/// The parameter name closest to a misspelt argument.
fn closest<'n>(key: &str, names: &[&'n str]) -> Option<&'n str> {
    let key = key.to_ascii_lowercase();
    names
        .iter()
        .map(|n| {
            (
                strsim::damerau_levenshtein(&key, &n.to_ascii_lowercase()),
                *n,
            )
        })
        .filter(|(d, n)| *d <= (n.len() / 3).max(1))
        .min_by_key(|(d, _)| *d)
        .map(|(_, n)| n)
}

/// Arguments that are no object (`arguments: [1]`) or that some decoder of the
/// tool cannot take: a call-level error.
pub fn not_an_object(tool: &str, value: &Value) -> ArgErrors {
    ArgErrors::new(
        tool,
        vec![ArgError::other(
            None,
            format!(
                "the arguments must be an object, got {}",
                super::error::describe(value)
            ),
        )],
    )
}
