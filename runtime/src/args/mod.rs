//! Decoding `tools/call` arguments (FORMAT.md "Arguments at run time"), as the
//! Go package `mcpargs` does for Go.
//!
//! Generated argument structs implement [`FromArguments`] by calling a
//! [`Decoder`] once per parameter; each value is brought to its schema type
//! ([`Conversion::Lenient`] by default), checked against its enum and
//! constraints, and converted with [`FromArg`]. Every bad argument is reported at
//! once, in [`ArgErrors`].

mod convert;
mod decoder;
mod error;
mod from_arg;
mod spec;

pub use convert::Conversion;
pub use decoder::{Decoder, not_an_object};
#[cfg(feature = "server")]
pub(crate) use error::shorten;
pub use error::{ArgError, ArgErrors, ArgProblem};
pub use from_arg::{FromArg, Id, enum_index};
pub use spec::ParamSpec;

/// The arguments of a call: a JSON object.
pub type Map = serde_json::Map<String, serde_json::Value>;

/// A tool's argument struct, decoded from the arguments of a call.
pub trait FromArguments: Sized {
    /// The tool's name, for error messages.
    const TOOL: &'static str;

    /// Decodes `args`, reporting every bad argument.
    fn from_arguments(args: Map, conversion: Conversion) -> Result<Self, ArgErrors>;
}
