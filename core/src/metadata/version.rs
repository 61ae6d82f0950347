//! A tool's `toolVersion`: a semantic version (`MAJOR.MINOR.PATCH`, with an
//! optional pre-release and build), which the catalog lock of
//! `toolmetadata-build` compares to tell whether a change was bumped enough.

use std::cmp::Ordering;
use std::fmt;

/// A version: `MAJOR.MINOR.PATCH`, with an optional `-pre-release` and
/// `+build` (the build is dropped; the pre-release kept and ordered as semver
/// orders them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Version {
    /// The major component.
    pub major: u64,
    /// The minor component.
    pub minor: u64,
    /// The patch component.
    pub patch: u64,
    /// The pre-release, without its `-` (empty for a release).
    pub pre: String,
}

impl Version {
    /// Parses `MAJOR.MINOR.PATCH[-PRE][+BUILD]`.
    ///
    /// # Errors
    ///
    /// Anything else, saying what was expected.
    pub fn parse(text: &str) -> Result<Self, String> {
        let expected = || {
            format!(
                "`{text}` is not a semantic version: expected MAJOR.MINOR.PATCH, such as `1.0.0`"
            )
        };
        let (core, build) = match text.split_once('+') {
            Some((core, build)) => (core, Some(build)),
            None => (text, None),
        };
        let identifiers_ok = |ids: &str| {
            ids.split('.').all(|id| {
                !id.is_empty() && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            })
        };
        if build.is_some_and(|b| !identifiers_ok(b)) {
            return Err(expected());
        }
        let (core, pre) = match core.split_once('-') {
            Some((core, pre)) if !pre.is_empty() => (core, pre),
            Some(_) => return Err(expected()),
            None => (core, ""),
        };
        let mut numbers = core.split('.').map(|n| {
            let plain = !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit());
            let no_leading_zero = n == "0" || !n.starts_with('0');
            (plain && no_leading_zero)
                .then(|| n.parse::<u64>().ok())
                .flatten()
        });
        let (Some(Some(major)), Some(Some(minor)), Some(Some(patch)), None) = (
            numbers.next(),
            numbers.next(),
            numbers.next(),
            numbers.next(),
        ) else {
            return Err(expected());
        };
        // Numeric pre-release identifiers have no leading zeros (semver 9).
        let numeric_ok = pre.split('.').all(|id| {
            !(id.len() > 1 && id.starts_with('0') && id.bytes().all(|b| b.is_ascii_digit()))
        });
        let pre_ok = pre.is_empty() || (identifiers_ok(pre) && numeric_ok);
        if !pre_ok {
            return Err(expected());
        }
        // Room for a bump: no component at the very top of its range.
        if [major, minor, patch].iter().any(|n| *n >= u64::MAX / 2) {
            return Err(format!("`{text}` is too large a version to bump"));
        }
        Ok(Version {
            major,
            minor,
            patch,
            pre: pre.to_owned(),
        })
    }

    /// Semver precedence: the numbers, then a release above its
    /// pre-releases.
    pub fn cmp_semver(&self, other: &Version) -> Ordering {
        (self.major, self.minor, self.patch)
            .cmp(&(other.major, other.minor, other.patch))
            .then_with(|| match (self.pre.is_empty(), other.pre.is_empty()) {
                (true, true) => Ordering::Equal,
                (true, false) => Ordering::Greater,
                (false, true) => Ordering::Less,
                (false, false) => cmp_pre(&self.pre, &other.pre),
            })
    }
}

/// Semver's order of pre-releases: identifier by identifier, numbers below
/// words and compared as numbers.
fn cmp_pre(a: &str, b: &str) -> Ordering {
    let mut a = a.split('.');
    let mut b = b.split('.');
    loop {
        match (a.next(), b.next()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(x), Some(y)) => {
                let order = match (x.parse::<u64>(), y.parse::<u64>()) {
                    (Ok(x), Ok(y)) => x.cmp(&y),
                    (Ok(_), Err(_)) => Ordering::Less,
                    (Err(_), Ok(_)) => Ordering::Greater,
                    (Err(_), Err(_)) => x.cmp(y),
                };
                if order != Ordering::Equal {
                    return order;
                }
            }
        }
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)?;
        if !self.pre.is_empty() {
            write!(f, "-{}", self.pre)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(text: &str) -> Version {
        Version::parse(text).expect("a version")
    }

    #[test]
    fn versions_parse_as_semver_says() {
        assert_eq!(v("1.2.3").to_string(), "1.2.3");
        assert_eq!(v("1.2.3-rc.1+build.5").to_string(), "1.2.3-rc.1");
        for bad in [
            "1.2",
            "1.2.3.4",
            "01.2.3",
            "1.2.x",
            "",
            "1.2.3-",
            "v1.2.3",
            "1.2.3-a..b",
        ] {
            let e = Version::parse(bad).unwrap_err();
            assert!(e.contains("MAJOR.MINOR.PATCH"), "{bad}: {e}");
        }
        assert_eq!(v("1.0.0").cmp_semver(&v("1.0.0-rc.9")), Ordering::Greater);
        assert_eq!(
            v("1.0.0-rc.10").cmp_semver(&v("1.0.0-rc.9")),
            Ordering::Greater
        );
        assert_eq!(
            v("1.0.0-alpha").cmp_semver(&v("1.0.0-1")),
            Ordering::Greater
        );
    }
}
