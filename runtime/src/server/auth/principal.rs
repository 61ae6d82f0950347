//! [`Principal`]: whom a verified token stands for.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

/// Whom a verified bearer token stands for: a subject, the scopes granted,
/// and the token's claims as the verifier read them. Beyond the scopes, the
/// server treats it as opaque; handlers read it with
/// `cx.extension::<Principal>()`.
#[derive(Debug, Clone, PartialEq)]
pub struct Principal {
    subject: Option<String>,
    scopes: Granted,
    claims: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq)]
enum Granted {
    /// Every scope: the static token, which predates scopes.
    All,
    Only(BTreeSet<String>),
}

impl Principal {
    /// A principal holding exactly `scopes`.
    pub fn new<S: Into<String>>(
        subject: Option<String>,
        scopes: impl IntoIterator<Item = S>,
    ) -> Self {
        Principal {
            subject,
            scopes: Granted::Only(scopes.into_iter().map(Into::into).collect()),
            claims: Map::new(),
        }
    }

    /// A principal holding every scope (what a shared static token grants).
    pub fn unrestricted(subject: Option<String>) -> Self {
        Principal {
            subject,
            scopes: Granted::All,
            claims: Map::new(),
        }
    }

    /// The same principal with the token's claims attached.
    pub fn with_claims(mut self, claims: Map<String, Value>) -> Self {
        self.claims = claims;
        self
    }

    /// The subject (`sub`), when the token names one.
    pub fn subject(&self) -> Option<&str> {
        self.subject.as_deref()
    }

    /// The scopes granted; `None` for a principal holding every scope.
    pub fn scopes(&self) -> Option<&BTreeSet<String>> {
        match &self.scopes {
            Granted::All => None,
            Granted::Only(scopes) => Some(scopes),
        }
    }

    /// The token's claims (empty for the static token).
    pub fn claims(&self) -> &Map<String, Value> {
        &self.claims
    }

    /// Whether the principal holds `scope`.
    pub fn has_scope(&self, scope: &str) -> bool {
        match &self.scopes {
            Granted::All => true,
            Granted::Only(scopes) => scopes.contains(scope),
        }
    }

    /// The scopes of `needed` the principal does not hold.
    pub fn missing<'a>(&self, needed: &'a [String]) -> Vec<&'a str> {
        needed
            .iter()
            .filter(|s| !self.has_scope(s))
            .map(String::as_str)
            .collect()
    }

    /// Whether the principal holds every scope of `needed`.
    pub fn holds_all(&self, needed: &[String]) -> bool {
        needed.iter().all(|s| self.has_scope(s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_are_checked_exactly() {
        let p = Principal::new(Some("ada".into()), ["workspace:write"]);
        let needed = vec!["workspace:write".to_owned(), "workspace:exec".to_owned()];
        assert_eq!(p.missing(&needed), ["workspace:exec"]);
        assert!(!p.holds_all(&needed));
        assert!(p.holds_all(&needed[..1]));
        assert!(!p.has_scope("workspace"), "no prefix matching");
        let all = Principal::unrestricted(None);
        assert!(all.holds_all(&needed));
        assert_eq!(all.scopes(), None);
    }
}
