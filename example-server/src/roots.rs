//! Confinement: every path a tool receives becomes a directory handle of one
//! root plus a path relative to it, and every file operation goes through that
//! handle (`cap-std`, which uses `openat2` with `RESOLVE_BENEATH` on Linux).
//!
//! Checking a name and then opening it again by name loses to a process that
//! swaps a symbolic link in between; resolving beneath a handle cannot be
//! raced, because the kernel refuses the escape at the moment of the open.
//!
//! Names are checked first too, without looking at the file system, so that
//! `..` and absolute paths elsewhere are refused with the same text whether
//! or not they exist. A symbolic link that leads out is refused when followed,
//! before anything past it is looked up, so the error never tells whether a
//! path exists outside either.
//!
//! Relative paths are taken from the first root.

use std::fmt;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use cap_std::fs::Dir;

/// The directories the tools may touch: cheap to clone, shared by the
/// blocking tasks that do the file work.
#[derive(Debug, Clone)]
pub(crate) struct Roots {
    roots: Arc<[Root]>,
}

#[derive(Debug)]
struct Root {
    /// Its canonical path, to recognise absolute paths given by tools.
    canonical: PathBuf,
    /// The root as given (absolute, `..` resolved by name), so that a path
    /// written through a root's symbolic link is recognised too.
    given: PathBuf,
    /// The handle every operation resolves beneath.
    dir: Dir,
}

/// Why a path was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PathError(String);

impl fmt::Display for PathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PathError {}

impl PathError {
    /// A refusal with this text.
    pub(crate) fn new(text: impl Into<String>) -> Self {
        PathError(text.into())
    }
}

/// Longest path accepted, in bytes (Linux's PATH_MAX).
const MAX_PATH: usize = 4096;

/// A path for messages: quoted, and cut so that a huge argument does not make
/// a huge error.
pub(crate) fn shown(path: &str) -> String {
    let mut s: String = path.chars().take(120).collect();
    if s.len() < path.len() {
        s.push('…');
    }
    format!("{s:?}")
}

/// A tool's path, located beneath one root.
#[derive(Debug)]
pub(crate) struct Located<'r> {
    /// The root's handle.
    pub(crate) dir: &'r Dir,
    /// The root's canonical path, to walk it with path-based libraries and to
    /// name it.
    pub(crate) root: &'r Path,
    /// The path beneath it, without `.` or `..`; `.` for the root itself.
    pub(crate) rel: PathBuf,
    /// The path as the tool gave it, for messages.
    pub(crate) given: &'r str,
}

impl Located<'_> {
    /// Whether this is the root itself.
    pub(crate) fn is_root(&self) -> bool {
        self.rel == Path::new(".")
    }

    /// The error for an I/O failure on this path. An escape and a missing file
    /// read differently, but an escape is reported before anything outside is
    /// looked up, so neither depends on what exists outside.
    pub(crate) fn error(&self, e: &io::Error) -> PathError {
        io_error(self.given, e)
    }
}

/// The error text for an I/O failure on `given`.
pub(crate) fn io_error(given: &str, e: &io::Error) -> PathError {
    if is_escape(e) {
        return outside(given);
    }
    match e.kind() {
        io::ErrorKind::NotFound => PathError(format!("{} does not exist", shown(given))),
        _ => PathError(format!("{}: {e}", shown(given))),
    }
}

/// cap-std reports a resolution that would leave its directory as
/// `PermissionDenied` with this text (from `EXDEV` of `RESOLVE_BENEATH`, or
/// from its own resolver where `openat2` is missing).
fn is_escape(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::PermissionDenied
        && e.to_string()
            .contains("a path led outside of the filesystem")
}

fn outside(path: &str) -> PathError {
    PathError(format!(
        "the path {} is outside the allowed roots",
        shown(path)
    ))
}

impl Roots {
    /// Opens each root (a root given as a symbolic link becomes its target);
    /// each must be an existing directory.
    pub(crate) fn new(dirs: &[PathBuf]) -> Result<Roots, String> {
        let cwd = std::env::current_dir().map_err(|e| format!("no current directory: {e}"))?;
        let mut roots = Vec::with_capacity(dirs.len());
        for dir in dirs {
            let canonical = dir
                .canonicalize()
                .map_err(|e| format!("root {}: {e}", dir.display()))?;
            if !canonical.is_dir() {
                return Err(format!("root {} is not a directory", dir.display()));
            }
            let handle = Dir::open_ambient_dir(&canonical, cap_std::ambient_authority())
                .map_err(|e| format!("root {}: {e}", dir.display()))?;
            roots.push(Root {
                canonical,
                given: lexical(&cwd.join(dir)),
                dir: handle,
            });
        }
        if roots.is_empty() {
            return Err("at least one root is needed".into());
        }
        Ok(Roots {
            roots: roots.into(),
        })
    }

    /// The canonical roots.
    pub(crate) fn dirs(&self) -> Vec<PathBuf> {
        self.roots.iter().map(|r| r.canonical.clone()).collect()
    }

    /// The root a path is in, and the path beneath it, by name only.
    pub(crate) fn locate<'r>(&'r self, path: &'r str) -> Result<Located<'r>, PathError> {
        if path.is_empty() {
            return Err(PathError("the path is empty".into()));
        }
        if path.contains('\0') {
            return Err(PathError(format!(
                "the path {} contains a NUL byte",
                shown(path)
            )));
        }
        if path.len() > MAX_PATH {
            return Err(PathError(format!(
                "the path is longer than {MAX_PATH} bytes"
            )));
        }
        let p = Path::new(path);
        let by_name = if p.is_absolute() {
            lexical(p)
        } else {
            lexical(&self.roots[0].canonical.join(p))
        };
        for root in self.roots.iter() {
            for base in [&root.canonical, &root.given] {
                if let Ok(rest) = by_name.strip_prefix(base) {
                    let rel = if rest.as_os_str().is_empty() {
                        PathBuf::from(".")
                    } else {
                        rest.to_owned()
                    };
                    return Ok(Located {
                        dir: &root.dir,
                        root: &root.canonical,
                        rel,
                        given: path,
                    });
                }
            }
        }
        Err(outside(path))
    }

    /// A path that names an entry to change (move, or report without following
    /// a final link): not a root itself.
    pub(crate) fn entry<'r>(&'r self, path: &'r str) -> Result<Located<'r>, PathError> {
        let located = self.locate(path)?;
        if located.is_root() {
            return Err(PathError(format!("{} is a root itself", shown(path))));
        }
        Ok(located)
    }
}

/// A path with `.` dropped and `..` taken back by name, without looking at the
/// file system. `..` above `/` stays at `/`, which no root is, so it is
/// refused as outside.
fn lexical(path: &Path) -> PathBuf {
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    struct Setup {
        _dir: tempfile::TempDir,
        root: PathBuf,
        outside: PathBuf,
        roots: Roots,
    }

    fn setup() -> Setup {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().join("root");
        let outside = dir.path().join("outside");
        std::fs::create_dir_all(root.join("sub")).expect("mkdir");
        std::fs::create_dir_all(outside.join("etc")).expect("mkdir");
        std::fs::write(root.join("sub/a.txt"), "a").expect("write");
        std::fs::write(outside.join("secret.txt"), "secret").expect("write");
        std::fs::write(outside.join("etc/passwd"), "root").expect("write");
        let roots = Roots::new(std::slice::from_ref(&root)).expect("roots");
        Setup {
            _dir: dir,
            root,
            outside,
            roots,
        }
    }

    fn read(roots: &Roots, path: &str) -> Result<String, PathError> {
        let l = roots.locate(path)?;
        l.dir.read_to_string(&l.rel).map_err(|e| l.error(&e))
    }

    #[test]
    fn inside_paths_resolve() {
        let s = setup();
        let root = s.roots.dirs()[0].clone();
        assert_eq!(read(&s.roots, "sub/a.txt").unwrap(), "a");
        assert_eq!(read(&s.roots, "sub/../sub/a.txt").unwrap(), "a");
        let abs = root.join("sub/a.txt");
        assert_eq!(read(&s.roots, abs.to_str().unwrap()).unwrap(), "a");
        assert!(s.roots.locate(".").unwrap().is_root());
        assert!(s.roots.entry(root.to_str().unwrap()).is_err());
    }

    #[test]
    fn escapes_are_refused() {
        let s = setup();
        symlink(&s.outside, s.root.join("link_out")).unwrap();
        symlink("../outside/secret.txt", s.root.join("relative_out")).unwrap();
        symlink(s.root.join("loop_a"), s.root.join("loop_b")).unwrap();
        symlink(s.root.join("loop_b"), s.root.join("loop_a")).unwrap();
        let secret = s.outside.join("secret.txt");
        for attempt in [
            "../outside/secret.txt",
            "sub/../../outside/secret.txt",
            secret.to_str().unwrap(),
            "/etc/passwd",
            "link_out/secret.txt",
            "relative_out",
            "loop_a",
        ] {
            assert!(read(&s.roots, attempt).is_err(), "read {attempt}");
        }
        // Outside paths are refused by name: no hint whether they exist.
        assert_eq!(
            read(&s.roots, "../no_such_file").unwrap_err().to_string(),
            "the path \"../no_such_file\" is outside the allowed roots"
        );
        // Through a link: the same text for an existing and a missing file.
        assert_eq!(
            read(&s.roots, "link_out/etc/passwd")
                .unwrap_err()
                .to_string(),
            "the path \"link_out/etc/passwd\" is outside the allowed roots"
        );
        assert_eq!(
            read(&s.roots, "link_out/etc/nope").unwrap_err().to_string(),
            "the path \"link_out/etc/nope\" is outside the allowed roots"
        );
        assert!(
            s.roots
                .locate("a\0b")
                .unwrap_err()
                .to_string()
                .contains("NUL")
        );
        assert!(
            s.roots
                .locate(&"x/".repeat(3000))
                .unwrap_err()
                .to_string()
                .contains("longer")
        );
        assert!(s.roots.entry("..").is_err());
        assert!(s.roots.entry(".").is_err());
    }

    #[test]
    fn a_root_given_as_a_symlink_is_its_target() {
        let s = setup();
        let link = s.root.parent().unwrap().join("root_link");
        symlink(&s.root, &link).unwrap();
        let roots = Roots::new(std::slice::from_ref(&link)).unwrap();
        assert_eq!(roots.dirs()[0], s.root.canonicalize().unwrap());
        assert!(read(&roots, "sub/a.txt").is_ok());
        assert!(read(&roots, "../outside/secret.txt").is_err());
        let through_link = link.join("sub/a.txt").display().to_string();
        assert!(
            read(&roots, &through_link).is_ok(),
            "a path through the root's link"
        );
    }
}
