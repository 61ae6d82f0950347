//! The bump a change of a tool needs, read as Cargo reads semver: the
//! leftmost non-zero component is the breaking one (`1.2.3` → `2.0.0`,
//! `0.3.1` → `0.4.0`, `0.0.4` → `0.0.5`), the next one marks compatible
//! additions (`1.2.3` → `1.3.0`; in `0.y.z` a patch suffices), and any
//! increase covers wording.

use std::cmp::Ordering;

use toolmetadata_load::metadata::Version;

use super::Class;

/// The smallest version after `old` that a change of `class` accepts.
pub fn next_for(old: &Version, class: Class) -> Version {
    let release = |major, minor, patch| Version {
        major,
        minor,
        patch,
        pre: String::new(),
    };
    match (class, old.major, old.minor) {
        (Class::Breaking, 0, 0) | (Class::Compatible | Class::Wording, 0, _) => {
            release(old.major, old.minor, old.patch + 1)
        }
        (Class::Breaking, 0, _) => release(0, old.minor + 1, 0),
        (Class::Breaking, _, _) => release(old.major + 1, 0, 0),
        (Class::Compatible, _, _) => release(old.major, old.minor + 1, 0),
        (Class::Wording, _, _) => release(old.major, old.minor, old.patch + 1),
    }
}

/// Whether `new` is a bump of `old` large enough for a change of `class`.
pub fn covers(new: &Version, old: &Version, class: Class) -> bool {
    if new.cmp_semver(old) != Ordering::Greater {
        return false;
    }
    // A pre-release promises nothing: its release, or a later pre-release
    // of it, may change anything.
    let core = |v: &Version| (v.major, v.minor, v.patch);
    if !old.pre.is_empty() && core(new) == core(old) {
        return true;
    }
    let needed = next_for(old, class);
    // At least the needed version, and for a breaking change in another
    // compatibility range: 1.2.3 needs 2.0.0 (or 2.0.0-rc.1), never 1.9.0.
    match class {
        Class::Breaking => core(new) >= core(&needed) && breaking_part(new) != breaking_part(old),
        Class::Compatible => core(new) >= core(&needed) || breaking_part(new) != breaking_part(old),
        Class::Wording => true,
    }
}

/// The components that stay equal between compatible versions (Cargo's
/// reading: up to and including the leftmost non-zero one).
fn breaking_part(v: &Version) -> (u64, u64, u64) {
    match (v.major, v.minor) {
        (0, 0) => (0, 0, v.patch),
        (0, minor) => (0, minor, 0),
        (major, _) => (major, 0, 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(text: &str) -> Version {
        Version::parse(text).expect("a version")
    }

    #[test]
    fn each_class_needs_its_bump() {
        let cases = [
            ("1.2.3", Class::Breaking, "2.0.0", true),
            ("1.2.3", Class::Breaking, "2.0.0-rc.1", true),
            ("1.2.3", Class::Breaking, "1.9.0", false),
            ("1.2.3", Class::Compatible, "1.3.0", true),
            ("1.2.3", Class::Compatible, "1.2.4", false),
            ("1.2.3", Class::Compatible, "2.0.0", true),
            ("1.2.3", Class::Wording, "1.2.4", true),
            ("1.2.3", Class::Wording, "1.2.3", false),
            ("1.2.3", Class::Wording, "1.2.2", false),
            ("0.3.1", Class::Breaking, "0.4.0", true),
            ("0.3.1", Class::Breaking, "0.3.2", false),
            ("0.3.1", Class::Compatible, "0.3.2", true),
            ("0.0.4", Class::Breaking, "0.0.5", true),
            ("1.0.0-rc.1", Class::Wording, "1.0.0", true),
            ("1.0.0-rc.2", Class::Wording, "1.0.0-rc.10", true),
            ("2.0.0-rc.1", Class::Breaking, "2.0.0-rc.2", true),
            ("2.0.0-rc.1", Class::Breaking, "2.0.0", true),
            ("1.3.0-rc.1", Class::Compatible, "1.3.0", true),
        ];
        for (old, class, new, ok) in cases {
            assert_eq!(
                covers(&v(new), &v(old), class),
                ok,
                "{old} -> {new} for {class}"
            );
        }
        assert_eq!(next_for(&v("1.2.3"), Class::Breaking).to_string(), "2.0.0");
        assert_eq!(
            next_for(&v("0.3.1"), Class::Compatible).to_string(),
            "0.3.2"
        );
    }
}
