//! What a generated enum's `FromStr` and `FromArg` share: the error for a value
//! outside the enum, and the argument taken as a string.

use std::str::FromStr;

use serde_json::Value;

use crate::args::ArgProblem;

/// The error of a generated enum's `FromStr`: `s` is none of `allowed`.
pub fn not_one_of(s: &str, allowed: &[&str]) -> ArgProblem {
    let list: Vec<String> = allowed.iter().map(|a| format!("{a:?}")).collect();
    ArgProblem::expected(&format!("one of {}", list.join(", ")), &Value::from(s))
}

/// A generated enum's `FromArg`: the argument must be a string, parsed with the
/// enum's `FromStr`. The decoder has already checked the value against the
/// enum, so a mismatch only comes from a direct call.
pub fn enum_from_arg<E: FromStr<Err = ArgProblem>>(value: &Value) -> Result<E, ArgProblem> {
    match value {
        Value::String(s) => s.parse(),
        other => Err(ArgProblem::expected("a string", other)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq)]
    enum Sort {
        Name,
    }

    impl FromStr for Sort {
        type Err = ArgProblem;

        fn from_str(s: &str) -> Result<Self, ArgProblem> {
            match s {
                "name" => Ok(Sort::Name),
                _ => Err(not_one_of(s, &["name", "size"])),
            }
        }
    }

    #[test]
    fn strings_parse_and_others_are_refused_with_the_allowed_values() {
        assert_eq!(enum_from_arg::<Sort>(&Value::from("name")), Ok(Sort::Name));
        let wrong = enum_from_arg::<Sort>(&Value::from("mtime")).unwrap_err();
        assert_eq!(
            wrong.to_string(),
            r#"expected one of "name", "size", got string "mtime""#
        );
        let number = enum_from_arg::<Sort>(&Value::from(3)).unwrap_err();
        assert!(
            number.to_string().starts_with("expected a string"),
            "{number}"
        );
    }
}
