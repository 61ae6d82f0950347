//! Confinement: every path a tool receives is resolved against the allowed roots
//! and canonicalized, so `..`, absolute paths elsewhere and symbolic links that
//! lead out are refused before any file is touched.
//!
//! Relative paths are taken from the first root. A path that does not exist yet
//! (a file to write, a directory to create) is checked through its deepest
//! existing ancestor, whose canonical form must lie in a root, and the rest of
//! the path must be plain names.

use std::fmt;
use std::path::{Component, Path, PathBuf};

/// The directories the tools may touch, canonicalized.
#[derive(Debug, Clone)]
pub(crate) struct Roots {
    roots: Vec<PathBuf>,
    /// The roots as given (absolute, `..` resolved by name), so that a path
    /// written through a root's symbolic link is recognised too.
    given: Vec<PathBuf>,
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

/// Longest path accepted, in bytes (Linux's PATH_MAX).
const MAX_PATH: usize = 4096;

fn shown(path: &str) -> String {
    let mut s: String = path.chars().take(120).collect();
    if s.len() < path.len() {
        s.push('…');
    }
    format!("{s:?}")
}

impl Roots {
    /// Canonicalizes each root (a root given as a symbolic link becomes its
    /// target); each must be an existing directory.
    pub(crate) fn new(dirs: &[PathBuf]) -> Result<Roots, String> {
        let mut roots = Vec::with_capacity(dirs.len());
        let mut given = Vec::with_capacity(dirs.len());
        let cwd = std::env::current_dir().map_err(|e| format!("no current directory: {e}"))?;
        for dir in dirs {
            given.push(lexical(&cwd.join(dir)));
            let canonical = dir
                .canonicalize()
                .map_err(|e| format!("root {}: {e}", dir.display()))?;
            if !canonical.is_dir() {
                return Err(format!("root {} is not a directory", dir.display()));
            }
            roots.push(canonical);
        }
        if roots.is_empty() {
            return Err("at least one root is needed".into());
        }
        Ok(Roots { roots, given })
    }

    /// The canonical roots.
    pub(crate) fn dirs(&self) -> &[PathBuf] {
        &self.roots
    }

    fn inside(&self, canonical: &Path) -> bool {
        self.roots.iter().any(|r| canonical.starts_with(r))
    }

    /// The path as the tool gave it, joined to the first root when relative.
    fn joined(&self, path: &str) -> Result<PathBuf, PathError> {
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
        let joined = if p.is_absolute() {
            p.to_owned()
        } else {
            self.roots[0].join(p)
        };
        // Refused by name before anything is looked up, so that an error never
        // tells whether something exists outside the roots.
        let by_name = lexical(&joined);
        if !self
            .roots
            .iter()
            .chain(&self.given)
            .any(|r| by_name.starts_with(r))
        {
            return Err(Self::outside(path));
        }
        Ok(joined)
    }

    fn outside(path: &str) -> PathError {
        PathError(format!(
            "the path {} is outside the allowed roots",
            shown(path)
        ))
    }

    /// An existing file or directory, following symbolic links: its canonical
    /// path, which must lie in a root.
    pub(crate) fn existing(&self, path: &str) -> Result<PathBuf, PathError> {
        let joined = self.joined(path)?;
        let canonical = joined.canonicalize().map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => PathError(format!("{} does not exist", shown(path))),
            _ => PathError(format!("cannot resolve {}: {e}", shown(path))),
        })?;
        if self.inside(&canonical) {
            Ok(canonical)
        } else {
            Err(Self::outside(path))
        }
    }

    /// An existing entry itself, not following a final symbolic link (to report
    /// or move the link): its canonical parent joined with its name.
    pub(crate) fn entry(&self, path: &str) -> Result<PathBuf, PathError> {
        let joined = self.joined(path)?;
        let (parent, name) = split_last(&joined, path)?;
        let parent = parent
            .canonicalize()
            .map_err(|e| PathError(format!("cannot resolve {}: {e}", shown(path))))?;
        if !self.inside(&parent) {
            return Err(Self::outside(path));
        }
        let entry = parent.join(name);
        if entry.symlink_metadata().is_err() {
            return Err(PathError(format!("{} does not exist", shown(path))));
        }
        if self.roots.contains(&entry) {
            return Err(PathError(format!("{} is a root itself", shown(path))));
        }
        Ok(entry)
    }

    /// A path to create or overwrite: its deepest existing ancestor must
    /// canonicalize into a root and the rest must be plain names; an existing
    /// target that is a symbolic link must lead into a root. Returns the path to
    /// write, and the directories that are missing (created only if asked).
    pub(crate) fn writable(&self, path: &str) -> Result<Writable, PathError> {
        let joined = self.joined(path)?;
        let mut ancestor = joined.as_path();
        let mut rest: Vec<&std::ffi::OsStr> = Vec::new();
        loop {
            if ancestor.symlink_metadata().is_ok() {
                break;
            }
            let (parent, name) = split_last(ancestor, path)?;
            rest.push(name);
            ancestor = parent;
        }
        let canonical = ancestor
            .canonicalize()
            .map_err(|e| PathError(format!("cannot resolve {}: {e}", shown(path))))?;
        if !self.inside(&canonical) {
            return Err(Self::outside(path));
        }
        rest.reverse();
        let mut target = canonical;
        for name in &rest {
            target.push(name);
        }
        let missing_dirs = rest.len().saturating_sub(1);
        Ok(Writable {
            path: target,
            missing_dirs,
        })
    }
}

/// A path with `.` dropped and `..` taken back by name, without looking at the
/// file system.
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

/// A path checked for writing.
#[derive(Debug)]
pub(crate) struct Writable {
    pub(crate) path: PathBuf,
    /// How many parent directories do not exist yet.
    pub(crate) missing_dirs: usize,
}

/// The parent and the final plain name of a path; `..`, `.` or a root as the
/// last component is refused.
fn split_last<'p>(
    p: &'p Path,
    shown_as: &str,
) -> Result<(&'p Path, &'p std::ffi::OsStr), PathError> {
    match p.components().next_back() {
        Some(Component::Normal(name)) => match p.parent() {
            Some(parent) => Ok((parent, name)),
            None => Err(PathError(format!(
                "{} has no parent directory",
                shown(shown_as)
            ))),
        },
        Some(Component::ParentDir) => Err(PathError(format!(
            "the path {} ends in `..`: name the file or directory itself",
            shown(shown_as)
        ))),
        _ => Err(PathError(format!(
            "the path {} names no file",
            shown(shown_as)
        ))),
    }
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
        std::fs::create_dir_all(&outside).expect("mkdir");
        std::fs::write(root.join("sub/a.txt"), "a").expect("write");
        std::fs::write(outside.join("secret.txt"), "secret").expect("write");
        let roots = Roots::new(std::slice::from_ref(&root)).expect("roots");
        Setup {
            _dir: dir,
            root,
            outside,
            roots,
        }
    }

    #[test]
    fn inside_paths_resolve() {
        let s = setup();
        let root = s.roots.dirs()[0].clone();
        assert_eq!(
            s.roots.existing("sub/a.txt").unwrap(),
            root.join("sub/a.txt")
        );
        assert_eq!(
            s.roots.existing("sub/../sub/a.txt").unwrap(),
            root.join("sub/a.txt")
        );
        let abs = root.join("sub/a.txt");
        assert_eq!(s.roots.existing(abs.to_str().unwrap()).unwrap(), abs);
        let w = s.roots.writable("new/dir/file.txt").unwrap();
        assert_eq!((w.path, w.missing_dirs), (root.join("new/dir/file.txt"), 2));
    }

    #[test]
    fn escapes_are_refused() {
        let s = setup();
        symlink(&s.outside, s.root.join("link_out")).unwrap();
        symlink(s.root.join("loop_a"), s.root.join("loop_b")).unwrap();
        symlink(s.root.join("loop_b"), s.root.join("loop_a")).unwrap();
        let secret = s.outside.join("secret.txt");
        for attempt in [
            "../outside/secret.txt",
            "sub/../../outside/secret.txt",
            secret.to_str().unwrap(),
            "/etc/passwd",
            "link_out/secret.txt",
            "link_out",
            "loop_a",
        ] {
            assert!(s.roots.existing(attempt).is_err(), "read {attempt}");
            assert!(s.roots.writable(attempt).is_err(), "write {attempt}");
        }
        for attempt in [
            "../x.txt",
            "link_out/new.txt",
            "sub/../../escape.txt",
            "link_out/deep/new.txt",
        ] {
            assert!(s.roots.writable(attempt).is_err(), "write {attempt}");
        }
        // Outside paths are refused by name: no hint whether they exist.
        assert_eq!(
            s.roots.existing("../no_such_file").unwrap_err().to_string(),
            "the path \"../no_such_file\" is outside the allowed roots"
        );
        assert!(
            s.roots
                .existing("a\0b")
                .unwrap_err()
                .to_string()
                .contains("NUL")
        );
        assert!(
            s.roots
                .existing(&"x/".repeat(3000))
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
        assert!(roots.existing("sub/a.txt").is_ok());
        assert!(roots.existing("../outside/secret.txt").is_err());
        let through_link = link.join("sub/a.txt").display().to_string();
        assert!(
            roots.existing(&through_link).is_ok(),
            "a path through the root's link"
        );
    }
}
