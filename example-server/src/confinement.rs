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

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use cap_std::fs::Dir;

use crate::path_error::{PathError, io_error, shown};
use crate::spelling::{home_dir, is_windows_path, lexical, respell};

mod links;

/// The directories the tools may touch: cheap to clone, shared by the
/// blocking tasks that do the file work.
#[derive(Debug, Clone)]
pub(crate) struct Confinement {
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

/// Longest path accepted, in bytes (Linux's PATH_MAX).
const MAX_PATH: usize = 4096;

/// A tool's path, located beneath one root.
#[derive(Debug, Clone)]
pub(crate) struct Located<'r> {
    /// The root's handle.
    pub(crate) dir: &'r Dir,
    /// The root's canonical path, to walk it with path-based libraries and to
    /// name it.
    pub(crate) root: &'r Path,
    /// The root as it was given, which an absolute link may name it by.
    pub(crate) root_given: &'r Path,
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

fn outside(path: &str) -> PathError {
    PathError::new(format!(
        "the path {} is outside the allowed roots",
        shown(path)
    ))
}

/// What a file tool answers when no directory is allowed at all.
pub(crate) const NO_ROOTS: &str = "no directory is allowed yet: start example-server with --root DIR \
     (repeatable), or connect with a client that offers its roots (MCP roots/list, file:// URIs \
     of existing directories)";

/// Most roots a server takes, from its command line or from a client.
pub(crate) const MAX_ROOTS: usize = 256;

impl Root {
    /// Opens `dir` as a root (a symbolic link becomes its target): it must be
    /// an existing directory.
    fn open(dir: &Path, cwd: &Path) -> Result<Root, String> {
        if dir.as_os_str().is_empty() {
            return Err("an empty root is not a directory".into());
        }
        let shown = dir.display();
        let canonical = dir
            .canonicalize()
            .map_err(|e| format!("cannot access the root {shown}: {e}"))?;
        if !canonical.is_dir() {
            return Err(format!("the root {shown} is not a directory"));
        }
        let handle = Dir::open_ambient_dir(&canonical, cap_std::ambient_authority())
            .map_err(|e| format!("cannot open the root {shown}: {e}"))?;
        Ok(Root {
            canonical,
            given: lexical(&cwd.join(dir)),
            dir: handle,
        })
    }
}

impl Confinement {
    /// Opens each root (a root given as a symbolic link becomes its target);
    /// each must be an existing directory, and one at least is needed.
    #[cfg(test)]
    pub(crate) fn new(dirs: &[PathBuf]) -> Result<Confinement, String> {
        let (roots, refused) = Confinement::open(dirs);
        if let Some(first) = refused.into_iter().next() {
            return Err(first);
        }
        if roots.is_empty() {
            return Err("at least one root is needed".into());
        }
        Ok(roots)
    }

    /// Opens the roots that can be opened, and says why each other one was
    /// skipped (missing, not a directory, unreadable, beyond [`MAX_ROOTS`]).
    /// Possibly none: then every path is refused with [`NO_ROOTS`].
    pub(crate) fn open(dirs: &[PathBuf]) -> (Confinement, Vec<String>) {
        let cwd = std::env::current_dir();
        Self::gather(dirs, |dir| {
            let cwd = match &cwd {
                Ok(cwd) => cwd.as_path(),
                // An absolute root does not need it.
                Err(_) if dir.is_absolute() => Path::new("/"),
                Err(e) => {
                    return Err(format!(
                        "the relative root {} cannot be placed: no current directory ({e})",
                        dir.display()
                    ));
                }
            };
            Root::open(dir, cwd)
        })
    }

    /// Opens each of `dirs` beneath these roots, as a client's roots are
    /// taken over HTTP: one that is not inside a root here is refused, and
    /// each is opened through its root's handle, so that a link swapped in
    /// meanwhile cannot lead out.
    pub(crate) fn open_within(&self, dirs: &[PathBuf]) -> (Confinement, Vec<String>) {
        Self::gather(dirs, |dir| {
            let Some(text) = dir.to_str() else {
                return Err(format!("the root {} is not UTF-8", dir.display()));
            };
            let at = self
                .locate(text)
                .map_err(|e| {
                    format!(
                        "the root {} is not inside a --root directory ({e})",
                        dir.display()
                    )
                })?
                .final_followed();
            let handle = at
                .dir
                .open_dir(&at.rel)
                .map_err(|e| format!("cannot open the root {}: {}", dir.display(), at.error(&e)))?;
            // Recorded by where the handle really is, not by the name given:
            // a root named through a link stays the directory it was when
            // opened, whatever the link is re-pointed to later.
            let path = resolved(&handle).unwrap_or_else(|| lexical(&at.root.join(&at.rel)));
            Ok(Root {
                canonical: path.clone(),
                given: path,
                dir: handle,
            })
        })
    }

    /// At most [`MAX_ROOTS`] of `dirs`, each opened by `open`; and why each
    /// other one was skipped.
    fn gather(
        dirs: &[PathBuf],
        mut open: impl FnMut(&PathBuf) -> Result<Root, String>,
    ) -> (Confinement, Vec<String>) {
        let mut refused = Vec::new();
        let mut roots = Vec::with_capacity(dirs.len().min(MAX_ROOTS));
        for dir in dirs {
            if roots.len() == MAX_ROOTS {
                refused.push(format!(
                    "the root {} is beyond the {MAX_ROOTS} roots accepted",
                    dir.display()
                ));
                continue;
            }
            match open(dir) {
                Ok(root) => roots.push(root),
                Err(e) => refused.push(e),
            }
        }
        (
            Confinement {
                roots: roots.into(),
            },
            refused,
        )
    }

    /// No root: every path is refused with [`NO_ROOTS`].
    #[cfg(test)]
    pub(crate) fn none() -> Confinement {
        Confinement {
            roots: Arc::from([]),
        }
    }

    /// Whether there is no root at all.
    pub(crate) fn is_empty(&self) -> bool {
        self.roots.is_empty()
    }

    /// The canonical roots.
    pub(crate) fn dirs(&self) -> Vec<PathBuf> {
        self.roots.iter().map(|r| r.canonical.clone()).collect()
    }

    /// The root a path is in, and the path beneath it. Names decide the root
    /// (`~` is the home directory); beneath it, a name not found as spelled
    /// is looked for in its other Unicode normalization form ([`respell`]).
    /// Directories reached through an absolute link inside the root are
    /// followed ([`Located::rebased`]); a final link is left to the tool.
    pub(crate) fn locate<'r>(&'r self, path: &'r str) -> Result<Located<'r>, PathError> {
        let mut located = self.locate_by_name(path)?;
        let rel = respell(located.dir, std::mem::take(&mut located.rel));
        located.rel = located.rebased(&rel, false);
        Ok(located)
    }

    /// [`Confinement::locate`] with a final absolute link inside the root
    /// followed too: the path of what a tool reads or writes through it.
    pub(crate) fn locate_followed<'r>(&'r self, path: &'r str) -> Result<Located<'r>, PathError> {
        Ok(self.locate(path)?.final_followed())
    }

    /// [`Confinement::locate`] without looking at the file system.
    fn locate_by_name<'r>(&'r self, path: &'r str) -> Result<Located<'r>, PathError> {
        if self.roots.is_empty() {
            return Err(PathError::new(NO_ROOTS));
        }
        if path.is_empty() {
            return Err(PathError::new("the path is empty"));
        }
        if path.contains('\0') {
            return Err(PathError::new(format!(
                "the path {} contains a NUL byte",
                shown(path)
            )));
        }
        if path.len() > MAX_PATH {
            return Err(PathError::new(format!(
                "the path is longer than {MAX_PATH} bytes"
            )));
        }
        if is_windows_path(path) {
            return Err(PathError::new(format!(
                "the path {} is a Windows path, and this server runs on Unix: give a path under \
                 the allowed directories, such as {}",
                shown(path),
                self.roots[0].canonical.display()
            )));
        }
        let home;
        let p = match path.strip_prefix('~') {
            Some(rest) if rest.is_empty() || rest.starts_with('/') => {
                home = home_dir()?.join(rest.trim_start_matches('/'));
                home.as_path()
            }
            _ => Path::new(path),
        };
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
                        root_given: &root.given,
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
            return Err(PathError::new(format!("{} is a root itself", shown(path))));
        }
        Ok(located)
    }
}

/// The absolute path a directory handle stands for now (Linux `/proc`).
fn resolved(dir: &Dir) -> Option<PathBuf> {
    use std::os::fd::{AsFd, AsRawFd};
    std::fs::read_link(format!("/proc/self/fd/{}", dir.as_fd().as_raw_fd()))
        .ok()
        .filter(|p| p.is_absolute())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    struct Setup {
        _dir: tempfile::TempDir,
        root: PathBuf,
        outside: PathBuf,
        roots: Confinement,
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
        let roots = Confinement::new(std::slice::from_ref(&root)).expect("roots");
        Setup {
            _dir: dir,
            root,
            outside,
            roots,
        }
    }

    /// Reads `path` as a tool does: a final link followed.
    fn read(roots: &Confinement, path: &str) -> Result<String, PathError> {
        let l = roots.locate(path)?.final_followed();
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
        let through_link = |name: &str| {
            format!(
                "the path \"link_out/etc/{name}\" leads outside the allowed roots through a symbolic link \
                 (a link is followed only to a target inside the same root)"
            )
        };
        assert_eq!(
            read(&s.roots, "link_out/etc/passwd")
                .unwrap_err()
                .to_string(),
            through_link("passwd")
        );
        assert_eq!(
            read(&s.roots, "link_out/etc/nope").unwrap_err().to_string(),
            through_link("nope")
        );
        assert_eq!(
            Confinement::none().locate("a").unwrap_err().to_string(),
            NO_ROOTS
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
        let roots = Confinement::new(std::slice::from_ref(&link)).unwrap();
        assert_eq!(roots.dirs()[0], s.root.canonicalize().unwrap());
        assert!(read(&roots, "sub/a.txt").is_ok());
        assert!(read(&roots, "../outside/secret.txt").is_err());
        let through_link = link.join("sub/a.txt").display().to_string();
        assert!(
            read(&roots, &through_link).is_ok(),
            "a path through the root's link"
        );
    }

    #[test]
    fn spellings_clients_send() {
        use unicode_normalization::UnicodeNormalization;
        let s = setup();
        let nfc = "caf\u{e9}";
        let nfd: String = nfc.nfd().collect();
        assert_ne!(nfc, nfd);
        std::fs::create_dir(s.root.join(nfc)).unwrap();
        std::fs::write(s.root.join(nfc).join("r\u{e9}sum\u{e9}.txt"), "cv").unwrap();
        // The NFD spelling of an NFC name (macOS clients), and the other way.
        let wanted = format!("{nfd}/{}", "r\u{e9}sum\u{e9}.txt".nfd().collect::<String>());
        assert_eq!(read(&s.roots, &wanted).unwrap(), "cv");
        std::fs::write(s.root.join(&nfd), "decomposed").unwrap();
        std::fs::remove_dir_all(s.root.join(nfc)).unwrap();
        assert_eq!(read(&s.roots, nfc).unwrap(), "decomposed");
        // A name not there in any form stays as given (a file to create).
        let l = s.roots.locate("na\u{ef}ve/new.txt").unwrap();
        assert_eq!(l.rel, Path::new("na\u{ef}ve/new.txt"));
        // An escape is refused in any spelling.
        assert!(read(&s.roots, &format!("../outside/{nfd}")).is_err());

        // Windows drive and UNC paths are refused, not made into files.
        for windows in ["C:\\Users\\x", "C:/Users/x", "c:", "\\\\server\\share\\f"] {
            let e = s.roots.locate(windows).unwrap_err().to_string();
            assert!(e.contains("is a Windows path"), "{windows}: {e}");
        }
        // Not Windows paths: a file named "C" with a colon later, a relative
        // name, a WSL mount path (outside the roots, so refused as outside).
        assert!(s.roots.locate("C").is_ok());
        assert!(s.roots.locate("notes:C").is_ok());
        let e = s.roots.locate("/mnt/c/Users").unwrap_err().to_string();
        assert!(e.contains("outside the allowed roots"), "{e}");
    }

    #[test]
    fn links_inside_are_followed() {
        let s = setup();
        symlink("a.txt", s.root.join("sub/link_in")).unwrap();
        symlink("sub/a.txt", s.root.join("top_link")).unwrap();
        assert_eq!(read(&s.roots, "sub/link_in").unwrap(), "a");
        assert_eq!(read(&s.roots, "top_link").unwrap(), "a");
        let abs = s.roots.dirs()[0].join("sub/link_in");
        assert_eq!(read(&s.roots, abs.to_str().unwrap()).unwrap(), "a");
    }

    #[test]
    fn absolute_links_inside_are_followed_and_outside_refused() {
        let s = setup();
        let canonical = s.roots.dirs()[0].clone();
        symlink(canonical.join("sub/a.txt"), s.root.join("abs_file")).unwrap();
        symlink(canonical.join("sub"), s.root.join("abs_dir")).unwrap();
        // Named by the root as given, and through a chain of them.
        symlink(s.root.join("abs_dir"), s.root.join("sub/abs_again")).unwrap();
        symlink(s.outside.join("secret.txt"), s.root.join("abs_out")).unwrap();
        symlink(&s.outside, s.root.join("abs_out_dir")).unwrap();
        assert_eq!(read(&s.roots, "abs_file").unwrap(), "a");
        assert_eq!(read(&s.roots, "abs_dir/a.txt").unwrap(), "a");
        assert_eq!(read(&s.roots, "sub/abs_again/a.txt").unwrap(), "a");
        for path in ["abs_out", "abs_out_dir/secret.txt"] {
            let e = read(&s.roots, path).unwrap_err().to_string();
            assert!(e.contains("outside the allowed roots"), "{path}: {e}");
        }
        // A final link is the tool's to follow: locating keeps its name.
        let at = s.roots.locate("abs_file").unwrap();
        assert_eq!(at.rel, Path::new("abs_file"));
        assert_eq!(at.final_followed().rel, Path::new("sub/a.txt"));
        // A loop of absolute links ends.
        symlink(canonical.join("loop_b"), s.root.join("loop_a")).unwrap();
        symlink(canonical.join("loop_a"), s.root.join("loop_b")).unwrap();
        assert!(read(&s.roots, "loop_a").is_err());
    }

    #[test]
    fn unusable_roots_are_skipped_and_said() {
        let s = setup();
        let file = s.root.join("sub/a.txt");
        let missing = s.root.join("missing");
        let (roots, refused) =
            Confinement::open(&[missing.clone(), file, PathBuf::new(), s.root.clone()]);
        assert_eq!(roots.dirs(), vec![s.root.canonicalize().unwrap()]);
        assert_eq!(refused.len(), 3, "{refused:?}");
        assert!(refused[0].contains(&missing.display().to_string()));
        assert!(refused[1].contains("is not a directory"), "{refused:?}");
        assert!(refused[2].contains("empty root"), "{refused:?}");
        let (none, refused) = Confinement::open(&[]);
        assert!(none.is_empty() && refused.is_empty());
    }
}
