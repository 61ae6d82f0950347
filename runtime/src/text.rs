//! Small text helpers shared by the format's diagnostics, the argument errors
//! and the server: one definition each.

/// Text cut to at most `limit` characters, ending in `…` when cut.
pub(crate) fn shorten(text: &str, limit: usize) -> String {
    if text.chars().count() <= limit {
        text.to_owned()
    } else {
        let mut cut: String = text.chars().take(limit.saturating_sub(1)).collect();
        cut.push('…');
        cut
    }
}

/// The integer a float stands for: `Some` when it is whole and inside the
/// 64-bit range (`3.0` → `3`), `None` for `3.5`, `1e19`, NaN and infinities.
pub(crate) fn exact_integer(x: f64) -> Option<i64> {
    // 2^63 is exactly representable; every whole float below it in magnitude
    // converts without loss.
    const LIMIT: f64 = 9_223_372_036_854_775_808.0;
    (x.fract() == 0.0 && (-LIMIT..LIMIT).contains(&x)).then_some(x as i64)
}

/// The candidate closest to `input`, if one is close enough to be what was meant.
///
/// Matching ignores ASCII case, `_` and `-`; beyond that a candidate is close when
/// one name contains the other (`desc`, `readOnlyHint`) or when few edits separate
/// them (`requried`, `deſcription`).
pub(crate) fn closest<'a>(input: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let wanted = normalize(input);
    if wanted.is_empty() {
        return None;
    }
    let mut best: Option<(usize, &'a str)> = None;
    for &candidate in candidates {
        let have = normalize(candidate);
        let score = if have == wanted {
            0
        } else if common_prefix(&have, &wanted) >= 4.max(wanted.chars().count() / 2 + 1)
            || have.chars().count() >= 3
                && wanted.chars().count() >= 3
                && (have.contains(&wanted) || wanted.contains(&have))
        {
            1
        } else {
            let distance = strsim::damerau_levenshtein(&wanted, &have);
            let allowed = (wanted.chars().count().max(have.chars().count()) / 4).max(1);
            if distance > allowed {
                continue;
            }
            1 + distance
        };
        if best.is_none_or(|(s, _)| score < s) {
            best = Some((score, candidate));
        }
    }
    best.map(|(_, candidate)| candidate)
}

fn common_prefix(a: &str, b: &str) -> usize {
    a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count()
}

fn normalize(s: &str) -> String {
    s.chars()
        .filter(|c| !matches!(c, '_' | '-' | ' ' | '\t'))
        .flat_map(char::to_lowercase)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shorten_keeps_the_limit_including_the_ellipsis() {
        assert_eq!(shorten("abc", 3), "abc");
        assert_eq!(shorten("abcd", 3), "ab…");
        assert_eq!(shorten("ééééé", 4), "ééé…");
    }

    #[test]
    fn exact_integers() {
        assert_eq!(exact_integer(3.0), Some(3));
        assert_eq!(exact_integer(-0.0), Some(0));
        assert_eq!(exact_integer(3.5), None);
        assert_eq!(exact_integer(9.3e18), None);
        assert_eq!(exact_integer(-9_223_372_036_854_775_808.0), Some(i64::MIN));
        assert_eq!(exact_integer(f64::NAN), None);
        assert_eq!(exact_integer(f64::INFINITY), None);
    }

    #[test]
    fn closest_names() {
        assert_eq!(closest("usr_id", &["user_id", "name"]), Some("user_id"));
        assert_eq!(closest("zzz", &["user_id", "name"]), None);
    }

    #[test]
    #[cfg(feature = "load")]
    fn suggests_what_was_meant() {
        for (input, expected) in [
            ("desc", "description"),
            ("read_only", "readOnly"),
            ("readOnlyHint", "readOnly"),
            ("dis_coverable", "discoverable"),
            ("key_words", "keywords"),
            ("deſcription", "description"),
            ("params", "parameters"),
            ("Dis-coverable", "discoverable"),
        ] {
            assert_eq!(
                closest(input, crate::metadata::read::TOP_KEYS),
                Some(expected),
                "{input}"
            );
        }
    }

    #[test]
    #[cfg(feature = "load")]
    fn stays_quiet_when_nothing_is_close() {
        for input in [
            "version",
            "author",
            "enabled",
            "extra",
            "x-custom",
            "_meta",
            "",
            "annotations",
        ] {
            assert_eq!(
                closest(input, crate::metadata::read::TOP_KEYS),
                None,
                "{input}"
            );
        }
    }
}
