//! Authorization over Streamable HTTP: the server as an OAuth 2.1 resource
//! server (MCP "Authorization", RFC 9728, RFC 6750).
//!
//! Every HTTP request's bearer token goes to a [`TokenVerifier`], which
//! answers with the [`Principal`] it stands for or a [`Rejection`]. The
//! principal travels in the request's extensions, where
//! [`ContextExt::extension`](crate::ContextExt::extension) finds it, and decides
//! which tools the caller sees and may call: a tool's `scopes` (FORMAT.md)
//! are the scopes its caller must hold.
//!
//! One job per file: `principal` is who called, `verifier` the seam and the
//! static token, `resource_metadata` the Protected Resource Metadata document
//! (RFC 9728), `gate`
//! the HTTP answers (401, 403, 503) and `jwt`/`jwks` (feature `auth`) the
//! JWT verifier.
//!
//! Stdio is unauthenticated by design: whoever can start the process already
//! has its rights, and there is no token to present. Requests without a
//! principal see every tool.

mod gate;
#[cfg(feature = "auth")]
mod jwks;
#[cfg(feature = "auth")]
mod jwt;
mod principal;
mod resource_metadata;
mod verifier;

pub(super) use gate::Gate;
#[cfg(feature = "auth")]
pub use jwt::JwtVerifier;
pub use principal::Principal;
pub use resource_metadata::ProtectedResource;
pub use verifier::{Rejection, StaticToken, TokenVerifier};
