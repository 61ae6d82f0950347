//! "Did you mean …?" for keys and type strings.

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

/// The type string a few edits away from `ty` (already lower case), if any.
pub(crate) fn closest_type(ty: &str) -> Option<&'static str> {
    let allowed = if ty.chars().count() <= 4 { 1 } else { 2 };
    crate::metadata::ParamType::SPELLINGS
        .iter()
        .map(|t| (strsim::damerau_levenshtein(ty, t), *t))
        .filter(|(d, _)| *d <= allowed)
        .min_by_key(|(d, _)| *d)
        .map(|(_, t)| t)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOP: &[&str] = &[
        "description",
        "title",
        "keywords",
        "discoverable",
        "parameters",
        "readOnly",
        "destructive",
        "idempotent",
        "openWorld",
        "ui",
        "icons",
        "output",
    ];

    #[test]
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
            assert_eq!(closest(input, TOP), Some(expected), "{input}");
        }
    }

    #[test]
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
            assert_eq!(closest(input, TOP), None, "{input}");
        }
    }
}
