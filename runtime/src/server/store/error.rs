//! What every store answers with when it cannot do what was asked, and the
//! clock their expiries are read on.

use std::fmt;

/// Why a store could not do what was asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreError {
    /// The store holds as many entries as it may; try again once some expire.
    Full {
        /// What is full, in the plural ("tasks").
        of: &'static str,
        /// The store's limit.
        max: usize,
    },
    /// The store could not be reached, did not answer in time, or failed.
    /// The message names the store (`"redis at 10.0.0.5:6379: …"`).
    Unavailable(String),
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::Full { of, max } => write!(
                f,
                "the server holds its maximum of {max} {of}; try again once some finish and expire"
            ),
            StoreError::Unavailable(why) => write!(f, "store unavailable: {why}"),
        }
    }
}

impl std::error::Error for StoreError {}

/// Unix time in milliseconds.
#[cfg(any(feature = "ask", feature = "limits"))]
pub(crate) fn unix_ms() -> u64 {
    use std::time::{SystemTime, UNIX_EPOCH};
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}
