//! Decoding `tools/call` arguments (FORMAT.md "Arguments at run time"), as the
//! Go package `mcpargs` does for Go.
//!
//! Each generated argument struct implements [`FromArguments`]: every value is
//! brought to its schema type ([`Conversion::Lenient`] by default), checked
//! against its enum and constraints, and converted with [`FromArg`], which you
//! implement for a parameter type of your own. Every bad argument is reported
//! at once, in [`ArgErrors`].

mod convert;
pub(crate) mod decoder;
mod dynamic;
pub(crate) mod error;
mod from_arg;
pub(crate) mod spec;

pub use convert::Conversion;
pub use dynamic::DynamicParams;
pub use error::{ArgError, ArgErrors, ArgProblem};
pub use from_arg::{FromArg, Id};

/// The arguments of a call: a JSON object.
pub type Map = serde_json::Map<String, serde_json::Value>;

/// One argument as the client sent it, as [`FromArg`] receives it.
pub use serde_json::Value;

/// A tool's argument struct, decoded from the arguments of a call.
pub trait FromArguments: Sized {
    /// The tool's name, for error messages.
    const TOOL: &'static str;

    /// Decodes `args`, reporting every bad argument.
    fn from_arguments(args: Map, conversion: Conversion) -> Result<Self, ArgErrors>;
}
