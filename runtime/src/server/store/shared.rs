//! [`SharedStore`]: one store for every kind of state this build of the
//! server keeps, whatever its features.

use super::SessionStore;

/// A store that backs every kind of state the server keeps (what
/// `toolmetadata-store`'s stores are), for
/// [`ServerBuilder::store`](crate::server::ServerBuilder::store): sessions,
/// and, with their features, used `requestState`s
/// ([`ReplayStore`](super::ReplayStore), feature `ask`), tasks
/// ([`TaskStore`](super::TaskStore), feature `tasks`) and limits
/// ([`LimitStore`](super::LimitStore), feature `limits`).
pub trait SharedStore: SessionStore + kinds::Replay + kinds::Tasks + kinds::Limits {}

impl<T: SessionStore + kinds::Replay + kinds::Tasks + kinds::Limits> SharedStore for T {}

/// The kinds of state a feature may leave out: each is its store's trait
/// when the feature is on, and asks nothing when it is off, so that
/// `SharedStore` is one trait under every set of features.
mod kinds {
    /// A [`ReplayStore`](crate::server::store::ReplayStore), with `ask`.
    #[cfg(feature = "ask")]
    pub trait Replay: crate::server::store::ReplayStore {}
    #[cfg(feature = "ask")]
    impl<T: crate::server::store::ReplayStore> Replay for T {}
    /// Nothing: no question is asked without `ask`.
    #[cfg(not(feature = "ask"))]
    pub trait Replay {}
    #[cfg(not(feature = "ask"))]
    impl<T> Replay for T {}

    /// A [`TaskStore`](crate::server::store::TaskStore), with `tasks`.
    #[cfg(feature = "tasks")]
    pub trait Tasks: crate::server::store::TaskStore {}
    #[cfg(feature = "tasks")]
    impl<T: crate::server::store::TaskStore> Tasks for T {}
    /// Nothing: no tasks are kept without `tasks`.
    #[cfg(not(feature = "tasks"))]
    pub trait Tasks {}
    #[cfg(not(feature = "tasks"))]
    impl<T> Tasks for T {}

    /// A [`LimitStore`](crate::server::store::LimitStore), with `limits`.
    #[cfg(feature = "limits")]
    pub trait Limits: crate::server::store::LimitStore {}
    #[cfg(feature = "limits")]
    impl<T: crate::server::store::LimitStore> Limits for T {}
    /// Nothing: no limits are held without `limits`.
    #[cfg(not(feature = "limits"))]
    pub trait Limits {}
    #[cfg(not(feature = "limits"))]
    impl<T> Limits for T {}
}
