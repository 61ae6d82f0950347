//! [`Arguments`]: the checked, decoded arguments a run-time loaded tool's
//! handler receives, with typed getters.

use serde_json::{Map, Value};

use crate::args::{ArgError, FromArg};

/// The arguments of a call of a tool loaded at run time: decoded and checked
/// exactly as a generated struct's would be (same conversions, constraints and
/// errors), kept as JSON values of the schema's types.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Arguments {
    values: Map<String, Value>,
}

impl Arguments {
    pub(crate) fn new(values: Map<String, Value>) -> Self {
        Arguments { values }
    }

    /// The argument `name` as a `T`; an error when it is absent (only possible
    /// for an optional parameter without a default) or of another type.
    pub fn get<T: FromArg>(&self, name: &str) -> Result<T, ArgError> {
        match self.values.get(name) {
            Some(v) => T::from_arg(v).map_err(|p| ArgError::new(name, p)),
            None => Err(ArgError::other(
                Some(name),
                format!("argument `{name}` was not given"),
            )),
        }
    }

    /// The argument `name` as a `T`, or `None` when it was not given.
    pub fn get_opt<T: FromArg>(&self, name: &str) -> Result<Option<T>, ArgError> {
        match self.values.get(name) {
            Some(v) => T::from_arg(v).map(Some).map_err(|p| ArgError::new(name, p)),
            None => Ok(None),
        }
    }

    /// True when the argument was given (or has a default).
    pub fn contains(&self, name: &str) -> bool {
        self.values.contains_key(name)
    }

    /// Every argument, as JSON of its schema type.
    pub fn as_map(&self) -> &Map<String, Value> {
        &self.values
    }
}
