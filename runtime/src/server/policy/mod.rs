//! What the server enforces on each request, whatever the transport: who
//! may see and call a tool (`access`, with `identity` over HTTP), parameters
//! bound from the request rather than the model (`bound`), `[limits]`
//! (`limits`, feature `limits`), what one request may cost to parse
//! (`parse_budget`), and what lists vary by and how long they may be kept
//! (`cache`).

pub(super) mod access;
pub(super) mod bound;
pub(super) mod cache;
#[cfg(feature = "http")]
pub(super) mod identity;
#[cfg(feature = "limits")]
pub(super) mod limits;
pub(super) mod parse_budget;
