//! A change of a tool, as the lock reports it: its class and what it is.

use std::fmt;

use serde_json::Value;

/// How a change affects the tool's clients.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    /// Only what a model reads: descriptions, titles, annotations.
    Wording,
    /// Everything that worked still does (an optional parameter added, a
    /// bound or an enum widened).
    Compatible,
    /// Something that worked may fail now.
    Breaking,
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Class::Wording => "wording",
            Class::Compatible => "compatible",
            Class::Breaking => "breaking",
        })
    }
}

/// One change of one tool.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// The tool's name.
    pub tool: String,
    /// How it affects clients.
    pub class: Class,
    /// The parameter (or output field) it is about, as a path such as
    /// `filter.tags[]`; `None` for the tool as a whole.
    pub param: Option<String>,
    /// What changed, in words.
    pub what: String,
    /// The fragment before, when there was one.
    pub old: Option<Value>,
    /// The fragment after, when there is one.
    pub new: Option<Value>,
}

impl Change {
    pub(super) fn tool_removed(tool: &str) -> Self {
        Change {
            tool: tool.to_owned(),
            class: Class::Breaking,
            param: None,
            what: format!("tool `{tool}` removed (or renamed)"),
            old: None,
            new: None,
        }
    }

    pub(super) fn tool_added(tool: &str) -> Self {
        Change {
            tool: tool.to_owned(),
            class: Class::Compatible,
            param: None,
            what: format!("tool `{tool}` added"),
            old: None,
            new: None,
        }
    }
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.class, self.what)
    }
}
