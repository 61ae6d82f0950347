//! Checks of the URIs the format holds: `[ui] resourceUri` and icon `src`.

/// Checks `uri` the way Go's `net/url.Parse` does and requires the `ui` scheme
/// (in any case). Returns why it is not acceptable.
pub(crate) fn check_ui_uri(uri: &str) -> Result<(), String> {
    if uri.bytes().any(|b| b < 0x20 || b == 0x7f) {
        return Err("it contains a control character".into());
    }
    let Some((scheme, rest)) = split_scheme(uri) else {
        return Err("it has no scheme".into());
    };
    if !scheme.eq_ignore_ascii_case("ui") {
        return Err(format!("its scheme is `{scheme}`"));
    }
    let (rest, fragment) = match rest.split_once('#') {
        Some((r, f)) => (r, Some(f)),
        None => (rest, None),
    };
    let path = rest.split_once('?').map_or(rest, |(p, _)| p);
    if let Some(fragment) = fragment {
        check_escapes(fragment)?;
    }
    if let Some(after) = path.strip_prefix("//") {
        let (authority, path) = after.find('/').map_or((after, ""), |i| after.split_at(i));
        check_authority(authority)?;
        check_escapes(path)?;
    } else {
        check_escapes(path)?;
    }
    Ok(())
}

/// A scheme as RFC 3986 and Go define it: a letter, then letters, digits, `+-.`.
fn split_scheme(uri: &str) -> Option<(&str, &str)> {
    let colon = uri.find(':')?;
    let scheme = &uri[..colon];
    let mut chars = scheme.chars();
    let first = chars.next()?;
    (first.is_ascii_alphabetic()
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
    .then(|| (scheme, &uri[colon + 1..]))
}

fn check_authority(authority: &str) -> Result<(), String> {
    let host = match authority.rfind('@') {
        Some(at) => {
            let userinfo = &authority[..at];
            if !userinfo
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-._:~!$&'()*+,;=%@".contains(c))
            {
                return Err("its user information has an invalid character".into());
            }
            check_escapes(userinfo)?;
            &authority[at + 1..]
        }
        None => authority,
    };
    let host_only = if host.starts_with('[') {
        match host.find(']') {
            Some(close) => {
                let port = &host[close + 1..];
                if !(port.is_empty() || port.starts_with(':')) {
                    return Err("it has text after the IPv6 address".into());
                }
                check_port(port)?;
                return Ok(());
            }
            None => return Err("its IPv6 host is missing `]`".into()),
        }
    } else {
        match host.rfind(':') {
            Some(colon) => {
                check_port(&host[colon..])?;
                &host[..colon]
            }
            None => host,
        }
    };
    check_escapes(host_only)?;
    if let Some(bad) = host_only.chars().find(|&c| !host_char_ok(c)) {
        return Err(format!("its host has the invalid character {bad:?}"));
    }
    Ok(())
}

/// Go's `shouldEscape(c, encodeHost)` is false for these; anything else in a host
/// (a space, `/`, `?`) makes `url.Parse` fail. Non-ASCII passes, as in Go.
fn host_char_ok(c: char) -> bool {
    !c.is_ascii() || c.is_ascii_alphanumeric() || "-_.~!$&'()*+,;=:[]<>\"%".contains(c)
}

fn check_port(port: &str) -> Result<(), String> {
    let digits = port.strip_prefix(':').unwrap_or(port);
    if digits.chars().all(|c| c.is_ascii_digit()) {
        Ok(())
    } else {
        Err(format!("its port {digits:?} is not a number"))
    }
}

/// Every `%` must start a two-digit hexadecimal escape.
fn check_escapes(text: &str) -> Result<(), String> {
    let bytes = text.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'%' {
            let ok = bytes.len() > i + 2
                && bytes[i + 1].is_ascii_hexdigit()
                && bytes[i + 2].is_ascii_hexdigit();
            if !ok {
                let escape: String = text[i..].chars().take(3).collect();
                return Err(format!("it has the invalid escape {escape:?}"));
            }
        }
    }
    Ok(())
}

/// An icon `src` must be an `https:` URL with a host, or a `data:` URI.
pub(crate) fn is_icon_src(src: &str) -> bool {
    let lower = src.get(..8).map(str::to_ascii_lowercase);
    if src.len() > 5
        && src
            .get(..5)
            .is_some_and(|s| s.eq_ignore_ascii_case("data:"))
    {
        return true;
    }
    matches!(lower.as_deref(), Some("https://"))
        && src[8..]
            .chars()
            .next()
            .is_some_and(|c| !matches!(c, '/' | '?' | '#') && !c.is_whitespace())
        && !src.chars().any(char::is_whitespace)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ui_uris_as_go_parses_them() {
        for ok in [
            "ui://dashboard/sales",
            "UI://Dash/Sales",
            "ui://a/<b>?x=1&y=2",
            "ui://widgets:8080/chart",
            "ui://dash/sales?range=7d#top",
            "ui:opaque",
            "ui://caps/json",
        ] {
            assert_eq!(check_ui_uri(ok), Ok(()), "{ok}");
        }
        for bad in [
            "not a uri",
            "http://x",
            "https://example.com/x",
            "ui://%zz",
            " ui://a/b",
            "dashboard/sales",
            "ui://my dash/x",
            "ui://a:port/x",
            "ui://a/\u{7}",
        ] {
            assert!(check_ui_uri(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn icon_sources() {
        assert!(is_icon_src("https://e.com/a.png"));
        assert!(is_icon_src("HTTPS://e.com/a.png"));
        assert!(is_icon_src("data:image/png;base64,AAAA"));
        for bad in [
            "",
            "http://example.com/icon.png",
            "javascript:alert(1)",
            "https://",
            "https:///x",
            "data:",
            "/icon.png",
            // A multi-byte character across the `data:` prefix's end.
            "dat€x",
            "data€",
            "https:/€",
        ] {
            assert!(!is_icon_src(bad), "{bad}");
        }
    }
}
