//! Paths as clients spell them, read by name without confining anything:
//! `~`, Windows drive paths (refused), the other Unicode normalization form
//! of a name, `file://` root URIs, and `.`/`..` resolved lexically.
//! [`crate::confinement`] confines what these give.

use std::path::{Component, Path, PathBuf};

use cap_std::fs::Dir;

use crate::path_error::{PathError, shown};

/// `C:\\…`, `C:/…`, `C:` or a UNC path `\\\\server\\share`: names that mean a
/// drive on Windows and would become a file named `C:` here.
pub(crate) fn is_windows_path(path: &str) -> bool {
    let b = path.as_bytes();
    let drive = b.len() >= 2
        && b[0].is_ascii_alphabetic()
        && b[1] == b':'
        && (b.len() == 2 || b[2] == b'\\' || b[2] == b'/');
    drive || path.starts_with("\\\\")
}

/// The home directory, for `~`.
pub(crate) fn home_dir() -> Result<PathBuf, PathError> {
    match std::env::var_os("HOME") {
        Some(home) if Path::new(&home).is_absolute() => Ok(PathBuf::from(home)),
        _ => Err(PathError::new(
            "cannot expand `~`: the server has no home directory (HOME is not set to an absolute path)",
        )),
    }
}

/// Most components of a path respelled (each costs up to three lookups).
const MAX_RESPELL: usize = 64;

/// `rel` beneath `dir`, with each component that is not found as spelled
/// replaced by its NFC or NFD form when that one exists: a macOS client
/// sends `é` as `e` + U+0301 (NFD) for a file the disk names with `é` (NFC),
/// and the other way round. Unchanged when it exists as given, or when no
/// form of a component exists (a file to create keeps the given name).
/// Lookups resolve beneath `dir`, so an escape is refused as ever.
pub(crate) fn respell(dir: &Dir, rel: PathBuf) -> PathBuf {
    use unicode_normalization::UnicodeNormalization;
    if rel == Path::new(".") || dir.symlink_metadata(&rel).is_ok() {
        return rel;
    }
    let Some(text) = rel.to_str() else {
        return rel;
    };
    if text.is_ascii() {
        return rel;
    }
    let mut out = PathBuf::new();
    let mut components = rel.components();
    for component in components.by_ref().take(MAX_RESPELL) {
        let name = component.as_os_str();
        let found = out.join(name);
        if dir.symlink_metadata(&found).is_ok() {
            out = found;
            continue;
        }
        let Some(name) = name.to_str() else {
            return rel;
        };
        let other = [
            name.nfc().collect::<String>(),
            name.nfd().collect::<String>(),
        ]
        .into_iter()
        .filter(|n| n != name)
        .map(|n| out.join(n))
        .find(|p| dir.symlink_metadata(p).is_ok());
        match other {
            Some(p) => out = p,
            // Not there in any form: the rest is as given.
            None => return rel,
        }
    }
    if components.next().is_some() {
        return rel;
    }
    out
}

/// A file URI (`file:///abs/path`, `file://localhost/abs/path`) as a path,
/// percent-decoded; anything else is refused with the reason.
pub(crate) fn file_uri_path(uri: &str) -> Result<PathBuf, String> {
    use std::os::unix::ffi::OsStringExt;
    let shown_uri = shown(uri);
    let rest = uri
        .strip_prefix("file://")
        .ok_or_else(|| format!("the root {shown_uri} is not a file:// URI"))?;
    let path = rest
        .strip_prefix("localhost")
        .filter(|p| p.starts_with('/'))
        .unwrap_or(rest);
    if !path.starts_with('/') {
        return Err(format!(
            "the root {shown_uri} names another host: only file:///path and file://localhost/path are served"
        ));
    }
    if path.contains(['?', '#']) {
        return Err(format!(
            "the root {shown_uri} has a query or fragment: a file:// URI of a directory has neither"
        ));
    }
    let mut bytes = Vec::with_capacity(path.len());
    let raw = path.as_bytes();
    let mut i = 0;
    while i < raw.len() {
        if raw[i] == b'%' {
            let hex = raw
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| format!("the root {shown_uri} has a bad percent escape"))?;
            bytes.push(hex);
            i += 3;
        } else {
            bytes.push(raw[i]);
            i += 1;
        }
    }
    if bytes.contains(&0) {
        return Err(format!("the root {shown_uri} contains a NUL byte"));
    }
    Ok(PathBuf::from(std::ffi::OsString::from_vec(bytes)))
}

/// A path with `.` dropped and `..` taken back by name, without looking at the
/// file system. `..` above `/` stays at `/`, which no root is, so it is
/// refused as outside.
pub(crate) fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// A relative `path` with `.` and `..` resolved by name, when it stays
/// beneath its start (`.` for the start itself); `None` when it climbs above
/// it. [`lexical`] is the same for absolute paths, where `..` stops at `/`.
pub(crate) fn beneath(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::Normal(name) => out.push(name),
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_uris() {
        assert_eq!(
            file_uri_path("file:///tmp/a%20b/c").unwrap(),
            Path::new("/tmp/a b/c")
        );
        assert_eq!(
            file_uri_path("file://localhost/tmp/x").unwrap(),
            Path::new("/tmp/x")
        );
        for (bad, why) in [
            ("/tmp/x", "not a file:// URI"),
            ("https://example.com/x", "not a file:// URI"),
            ("file://server/share", "another host"),
            ("file:///tmp/x?y", "query or fragment"),
            ("file:///tmp/%zz", "percent escape"),
            ("file:///tmp/%00x", "NUL"),
            ("file:///tmp/\0x", "NUL"),
        ] {
            let e = file_uri_path(bad).unwrap_err();
            assert!(e.contains(why), "{bad}: {e}");
        }
    }

    #[test]
    fn beneath_resolves_names_and_refuses_climbing_out() {
        assert_eq!(beneath(Path::new("sub/../a")), Some(PathBuf::from("a")));
        assert_eq!(beneath(Path::new("sub/..")), Some(PathBuf::from(".")));
        assert_eq!(beneath(Path::new("./x/./y")), Some(PathBuf::from("x/y")));
        assert_eq!(beneath(Path::new("sub/../..")), None);
        assert_eq!(beneath(Path::new("/etc")), None);
    }
}
