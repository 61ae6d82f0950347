//! [`SharedStore`]: one store for every kind of state this build of the
//! server keeps, whatever its features.

/// A store that backs every kind of state the server keeps (what
/// `toolmetadata-store`'s stores are), for
/// [`ServerBuilder::store`](crate::server::ServerBuilder::store): with their
/// features, 2025-11-25 sessions and their streams' events
/// ([`SessionStore`](super::SessionStore), [`EventStore`](super::EventStore),
/// feature `sessions`), used `requestState`s
/// ([`ReplayStore`](super::ReplayStore), feature `ask`), tasks
/// ([`TaskStore`](super::TaskStore), feature `tasks`), limits
/// ([`LimitStore`](super::LimitStore), feature `limits`), the changes
/// instances tell each other ([`ChangeBus`](super::ChangeBus)) and which
/// tools are enabled ([`ToolStateStore`](super::ToolStateStore)), both with
/// the feature `subscriptions`.
pub trait SharedStore:
    kinds::Sessions
    + kinds::Events
    + kinds::Bus
    + kinds::ToolStates
    + kinds::Replay
    + kinds::Tasks
    + kinds::Limits
{
}

impl<
    T: kinds::Sessions
        + kinds::Events
        + kinds::Bus
        + kinds::ToolStates
        + kinds::Replay
        + kinds::Tasks
        + kinds::Limits,
> SharedStore for T
{
}

/// The kinds of state a feature may leave out: each is its store's trait
/// when the feature is on, and asks nothing when it is off, so that
/// `SharedStore` is one trait under every set of features.
mod kinds {
    /// `$kind`: the store trait `$store` with the feature `$feature`, and
    /// nothing without it.
    macro_rules! kind {
        ($kind:ident, $store:ident, $feature:literal) => {
            #[doc = concat!("A [`", stringify!($store), "`](crate::server::store::", stringify!($store), "), with `", $feature, "`; nothing without it.")]
            #[cfg(feature = $feature)]
            pub trait $kind: crate::server::store::$store {}
            #[cfg(feature = $feature)]
            impl<T: crate::server::store::$store> $kind for T {}
            #[doc = concat!("Nothing: `", $feature, "` is off.")]
            #[cfg(not(feature = $feature))]
            pub trait $kind {}
            #[cfg(not(feature = $feature))]
            impl<T> $kind for T {}
        };
    }

    kind!(Sessions, SessionStore, "sessions");
    kind!(Events, EventStore, "sessions");
    kind!(Replay, ReplayStore, "ask");
    kind!(Bus, ChangeBus, "subscriptions");
    kind!(ToolStates, ToolStateStore, "subscriptions");
    kind!(Tasks, TaskStore, "tasks");
    kind!(Limits, LimitStore, "limits");
}
