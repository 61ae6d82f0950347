//! What only a server calls: how it plugs itself in behind a [`Context`]
//! and runs a tool set's calls. Not for handlers; it follows the server
//! crate's version, not semver.
//!
//! [`Context`]: crate::Context

pub use crate::args::error::describe;
pub use crate::confirm::Asking;
pub use crate::confirm_plan::ConfirmPlan;
pub use crate::context::Link;
pub use crate::text::{hex, shorten, visible};
