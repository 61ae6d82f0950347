//! `[limits]` shared by instances: [`LimitStore`] counts each caller's calls
//! per window and holds each tool's slots of concurrency in one place, so
//! that a limit is the fleet's, not each instance's. Without one, every
//! instance holds its own limits in memory.

use std::sync::Arc;

use super::error::StoreError;
use toolmetadata_core::BoxFuture;

/// Where the server counts `[limits]` across instances.
///
/// Keys are short hex digests the server makes (of a tool's name, or of a
/// tool's name and a caller), at most 64 bytes; holders are UUIDs. An
/// implementation must make each method atomic across every instance that
/// shares it, keep at most `calls` admissions per rate key and `max` holders
/// per slot key, and forget them once expired. A rate key lives as long as
/// its window: the store holds at most (calls admitted per window) entries
/// in all, which a server's own limits (of sessions, of requests) bound.
pub trait LimitStore: Send + Sync + 'static {
    /// Counts a call in the window of `key`: `Ok(None)` when fewer than
    /// `calls` were admitted in the last `window_ms` milliseconds (this one
    /// is then counted), else `Ok(Some(ms))`, the time until the oldest of
    /// them leaves the window.
    fn take_rate<'a>(
        &'a self,
        key: &'a str,
        calls: u32,
        window_ms: u64,
    ) -> BoxFuture<'a, Result<Option<u64>, StoreError>>;

    /// Takes one of the `max` slots of `key` for `holder` for `lease_ms`
    /// milliseconds, or extends the one it holds by as much from now:
    /// `Ok(true)`, or `Ok(false)` when `max` others hold one. A slot whose
    /// holder stopped renewing it (its instance died) is free once its lease
    /// has run out, by the store's own clock (instances' clocks may differ).
    fn acquire<'a>(
        &'a self,
        key: &'a str,
        holder: &'a str,
        max: u32,
        lease_ms: u64,
    ) -> BoxFuture<'a, Result<bool, StoreError>>;

    /// Gives `holder`'s slot of `key` back (nothing when it holds none).
    fn release<'a>(
        &'a self,
        key: &'a str,
        holder: &'a str,
    ) -> BoxFuture<'a, Result<(), StoreError>>;
}

impl<T: LimitStore + ?Sized> LimitStore for Arc<T> {
    fn take_rate<'a>(
        &'a self,
        key: &'a str,
        calls: u32,
        window_ms: u64,
    ) -> BoxFuture<'a, Result<Option<u64>, StoreError>> {
        (**self).take_rate(key, calls, window_ms)
    }

    fn acquire<'a>(
        &'a self,
        key: &'a str,
        holder: &'a str,
        max: u32,
        lease_ms: u64,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        (**self).acquire(key, holder, max, lease_ms)
    }

    fn release<'a>(
        &'a self,
        key: &'a str,
        holder: &'a str,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        (**self).release(key, holder)
    }
}
