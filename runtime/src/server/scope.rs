//! [`Scope`]: which of the catalog's tools a request sees. Its own file,
//! beneath the catalog and the transports that both name it (the HTTP
//! gate reads it, the catalog answers within it).

/// Which of the catalog's tools a request sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(in crate::server) enum Scope {
    /// Every tool: the endpoint itself, and stdio.
    #[default]
    Whole,
    /// One group's tools (its place among the catalog's groups):
    /// `<endpoint>/<group>`.
    Group(usize),
}
