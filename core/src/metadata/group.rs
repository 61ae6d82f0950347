//! Tool groups (`toolGroups`, ext): a group is a named set of tools that a
//! server also serves at an endpoint of its own, `<endpoint>/<group>`, so
//! its name must be one path segment that needs no escaping.

/// The `_meta` key of a `tools/list` entry that lists the tool's groups,
/// sorted.
pub const GROUPS_META: &str = "io.toolmetadata/groups";

/// What a group name may be, in words, for diagnostics and errors.
pub const GROUP_NAME_RULE: &str = "1 to 64 characters from a-z A-Z 0-9 _ - . ~ (a URL path segment that needs no escaping), with at least one letter or digit";

/// The path beneath the endpoint that is not a group's.
const RESERVED: &str = "server-card";

/// Why `name` cannot name a group, or `None` when it can.
pub fn group_name_problem(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        Some("it is empty")
    } else if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '~')))
    {
        Some(if c == '/' {
            "it holds a `/`, which would make it two path segments"
        } else if c.is_whitespace() {
            "it holds white space"
        } else if c == '%' {
            "it holds a `%`, which a URL reads as an escape"
        } else {
            "it holds a character a URL path segment must escape"
        })
    } else if name.len() > 64 {
        Some("it is longer than 64 characters")
    } else if name == RESERVED {
        Some("the server card is served at `<endpoint>/server-card`")
    } else if !name.chars().any(|c| c.is_ascii_alphanumeric()) {
        // `.` and `..` are the segments a URL resolves away.
        Some("it has no letter or digit")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::group_name_problem;

    #[test]
    fn group_names_are_plain_path_segments() {
        for good in [
            "read",
            "read-only",
            "admin_v2",
            "a.b",
            "x~y",
            "A",
            &"a".repeat(64),
        ] {
            assert_eq!(group_name_problem(good), None, "{good}");
        }
        for bad in [
            "",
            ".",
            "..",
            "-",
            "a/b",
            "a b",
            "a%20",
            "é",
            "a?b",
            "a#b",
            "server-card",
            &"a".repeat(65),
        ] {
            assert!(group_name_problem(bad).is_some(), "{bad:?}");
        }
    }
}
