//! The format's policy extensions: `[limits]`, `[[failures]]` and a bound
//! parameter's `from`, what the server holds a tool's calls to rather than
//! what the model sees.

/// Where a bound parameter's value comes from (`from`, ext).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Source {
    /// `claim:NAME`: a claim of the caller's verified token (`sub`,
    /// `tenant_id`, …).
    Claim(String),
    /// `header:NAME`: a header of the HTTP request (set by a gateway).
    Header(String),
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::Claim(name) => write!(f, "claim:{name}"),
            Source::Header(name) => write!(f, "header:{name}"),
        }
    }
}

/// A failure a tool declares (`[[failures]]`, ext).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeclaredFailure {
    /// Its code, `snake_case`: stable, for clients and operators to branch on.
    pub code: String,
    /// Whose failure it is.
    pub class: FailureClass,
    /// Whether the same call may succeed later.
    pub retryable: bool,
    /// What it means.
    pub description: String,
}

/// Whose failure a tool failure is, as SEP-3313 (draft) classes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FailureClass {
    /// The tool cannot do what was asked (bad input for it, not found,
    /// unsupported).
    Capability,
    /// Something it depends on failed (a timeout, an outage, a bug).
    Reliability,
    /// Policy refused it (not allowed, over a limit).
    Governance,
}

impl FailureClass {
    /// `capability`, `reliability` or `governance`.
    pub fn as_str(self) -> &'static str {
        match self {
            FailureClass::Capability => "capability",
            FailureClass::Reliability => "reliability",
            FailureClass::Governance => "governance",
        }
    }

    /// The class named `name`.
    pub fn from_name(name: &str) -> Option<FailureClass> {
        Some(match name {
            "capability" => FailureClass::Capability,
            "reliability" => FailureClass::Reliability,
            "governance" => FailureClass::Governance,
            _ => return None,
        })
    }
}

/// `[limits]` (ext): what the server holds each call of a tool to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Limits {
    /// A call still running after this long is cancelled (its `Context`
    /// sees the cancellation) and answered with a timeout.
    pub timeout: Option<std::time::Duration>,
    /// At most this many calls of the tool run at once (on every instance
    /// together when the server has a `LimitStore`, else on each); one more
    /// is refused, saying when to retry.
    pub concurrency: Option<u32>,
    /// At most this many calls per caller (its principal, or its address
    /// without one) in each window; one more is refused until the window
    /// has room.
    pub rate: Option<Rate>,
}

impl Limits {
    /// Whether no limit is set.
    pub fn is_empty(&self) -> bool {
        self.timeout.is_none() && self.concurrency.is_none() && self.rate.is_none()
    }
}

/// A rate: `calls` per `per` (`rate = "10/min"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rate {
    /// Calls allowed in one window.
    pub calls: u32,
    /// The window.
    pub per: std::time::Duration,
}

impl std::fmt::Display for Rate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let secs = self.per.as_secs();
        match (secs, self.per.subsec_millis()) {
            (1, 0) => write!(f, "{} per second", self.calls),
            (60, 0) => write!(f, "{} per minute", self.calls),
            (3600, 0) => write!(f, "{} per hour", self.calls),
            _ => write!(f, "{} per {} ms", self.calls, self.per.as_millis()),
        }
    }
}
