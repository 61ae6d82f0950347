//! Replacing a file's content so that it is never half-written: the new
//! content goes to a temporary file beside the target (in the same directory
//! handle, so beneath the same root; an unpredictable name created with
//! `O_EXCL`, so never an existing file or a planted link), which takes the
//! original's permissions and is then renamed over it. Until the rename the
//! original is untouched; a failure removes the temporary file.
//!
//! A final symbolic link is followed (inside the root, as every open is): its
//! target is replaced, not the link. Hard links to the original keep the old
//! content, since the rename gives the name a new inode; the owner of a
//! replaced file becomes the server's user.

use std::io::{self, Write};
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Component, Path, PathBuf};

use cap_std::fs::{Dir, OpenOptions, OpenOptionsExt, PermissionsExt};

use crate::confinement::Located;
use crate::handles::kind_problem;
use crate::path_error::{PathError, io_error, shown};
use crate::spelling::beneath;

/// Most links followed from the named file to the file replaced.
const MAX_LINK_HOPS: usize = 16;
/// Names tried for the temporary file before giving up.
const TEMP_ATTEMPTS: usize = 8;

/// The directory of `rel` beneath its root, `.` at the top.
fn parent(rel: &Path) -> &Path {
    match rel.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// The last component of `rel`, when it names an entry (not `.` or `..`).
fn last_name(rel: &Path) -> Option<PathBuf> {
    match rel.components().next_back() {
        Some(Component::Normal(name)) => Some(PathBuf::from(name)),
        _ => None,
    }
}

/// The directory handle and name of the file a write to `at` replaces,
/// following final links beneath the root; and the file's permissions, or
/// `None` when it does not exist yet.
fn target(at: &Located<'_>) -> Result<(Dir, PathBuf, Option<cap_std::fs::Permissions>), PathError> {
    let not_a_file = || PathError::new(format!("{} is a directory", shown(at.given)));
    let mut name = last_name(&at.rel).ok_or_else(not_a_file)?;
    // Where the file is, as a path beneath the root's handle: a link's
    // target is resolved against it, so `sub/l -> ../a.txt` works while
    // nothing can climb above the root.
    let mut rel_dir = parent(&at.rel).to_path_buf();
    let mut dir = at.dir.open_dir(&rel_dir).map_err(|e| at.error(&e))?;
    for _ in 0..MAX_LINK_HOPS {
        match dir.symlink_metadata(&name) {
            Ok(meta) if meta.file_type().is_symlink() => {
                // A relative target is resolved beneath the root's handle,
                // so it cannot leave it; an absolute one is followed only
                // into the same root.
                let link = dir.read_link_contents(&name).map_err(|e| at.error(&e))?;
                let outside = || {
                    PathError::new(format!(
                        "the path {} leads outside the allowed roots through a symbolic link",
                        shown(at.given)
                    ))
                };
                let beneath_root = if link.is_absolute() {
                    at.inside(&link).ok_or_else(outside)?
                } else {
                    beneath(&rel_dir.join(&link)).ok_or_else(outside)?
                };
                // The name where the link leads, not as the link spells it
                // (`/ws/` is the root itself, not a file `ws`).
                let next = last_name(&beneath_root).ok_or_else(|| {
                    PathError::new(format!(
                        "{} is a link to a directory ({})",
                        shown(at.given),
                        link.display()
                    ))
                })?;
                rel_dir = at.rebased(parent(&beneath_root), true);
                dir = at.dir.open_dir(&rel_dir).map_err(|e| at.error(&e))?;
                name = next;
            }
            Ok(meta) => {
                if let Some(problem) = kind_problem(&meta, at.given) {
                    return Err(problem);
                }
                return Ok((dir, name, Some(meta.permissions())));
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok((dir, name, None)),
            Err(e) => return Err(at.error(&e)),
        }
    }
    Err(PathError::new(format!(
        "{} goes through more than {MAX_LINK_HOPS} symbolic links",
        shown(at.given)
    )))
}

/// A fresh name for a temporary file: 128 random bits from the kernel.
fn temp_name() -> io::Result<PathBuf> {
    let mut bytes = [0_u8; 16];
    let mut filled = 0;
    while filled < bytes.len() {
        filled +=
            rustix::rand::getrandom(&mut bytes[filled..], rustix::rand::GetRandomFlags::empty())?;
    }
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    Ok(PathBuf::from(format!(".tm-{hex}.tmp")))
}

/// What a write may find at its path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    /// No file: creating one, which must not replace a file that appears
    /// meanwhile (nobody was asked about replacing it).
    New,
    /// A file or none: a replacement the person has agreed to.
    Either,
    /// The very file that was read (an edit of its content): if another
    /// file has taken its name meanwhile, nothing is written.
    Read(FileId),
}

/// Which file a name led to: device and inode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FileId {
    dev: u64,
    ino: u64,
}

impl FileId {
    /// The file `meta` describes.
    pub(crate) fn of(meta: &cap_std::fs::Metadata) -> Self {
        use cap_std::fs::MetadataExt as _;
        FileId {
            dev: meta.dev(),
            ino: meta.ino(),
        }
    }
}

/// The error a write gives up with when its file was swapped.
#[derive(Debug)]
struct Swapped;

impl std::fmt::Display for Swapped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("another file took its name while it was being edited")
    }
}

impl std::error::Error for Swapped {}

/// Writes `content` to the file at `at` all at once, as `target` allows.
/// The original, if any, keeps its permissions and is left as it was when
/// anything fails. A file created here never replaces one that appeared
/// after the look: the rename refuses to.
pub(crate) fn replace(
    at: &Located<'_>,
    target_is: Target,
    content: &[u8],
) -> Result<(), PathError> {
    let (dir, name, permissions) = target(at)?;
    match (target_is, &permissions) {
        (Target::Read(_), None) => {
            return Err(PathError::new(format!(
                "{} does not exist",
                shown(at.given)
            )));
        }
        (Target::New, Some(_)) => return Err(appeared(at)),
        _ => {}
    }
    if permissions.is_some() {
        // A rename needs only the directory's write permission: without this
        // a file the server may not write (read-only, or another user's)
        // would be replaced all the same. Not truncated, not blocking.
        let mut probe = OpenOptions::new();
        probe.write(true).custom_flags(
            (rustix::fs::OFlags::NONBLOCK | rustix::fs::OFlags::CLOEXEC)
                .bits()
                .try_into()
                .unwrap_or(0),
        );
        dir.open_with(&name, &probe)
            .map_err(|e| io_error(at.given, &e))?;
    }
    let same = match target_is {
        Target::Read(id) => Some(id),
        _ => None,
    };
    write_beside(&dir, &name, permissions, same, |file| {
        file.write_all(content)
    })
    .map_err(|e| {
        if e.get_ref().is_some_and(|inner| inner.is::<Swapped>()) {
            PathError::new(format!("{}: {e}; nothing was changed", shown(at.given)))
        } else if e.kind() == io::ErrorKind::AlreadyExists {
            appeared(at)
        } else {
            io_error(at.given, &e)
        }
    })
}

fn appeared(at: &Located<'_>) -> PathError {
    PathError::new(format!(
        "{} was created by someone else after it was checked; nothing was written. \
         Write it again to replace it",
        shown(at.given)
    ))
}

/// Renames `from` to `to` in `dir` unless `to` exists (then `AlreadyExists`).
fn rename_new(dir: &Dir, from: &Path, to: &Path) -> io::Result<()> {
    use rustix::fs::{AtFlags, RenameFlags, linkat, renameat_with};
    match renameat_with(dir, from, dir, to, RenameFlags::NOREPLACE) {
        Ok(()) => Ok(()),
        // A filesystem without renameat2's flags: a hard link does not
        // replace either.
        Err(e) if e == rustix::io::Errno::INVAL || e == rustix::io::Errno::NOSYS => {
            linkat(dir, from, dir, to, AtFlags::empty())?;
            dir.remove_file(from)
        }
        Err(e) => Err(e.into()),
    }
}

/// Writes a temporary file in `dir` with `write`, gives it `permissions`
/// (the new file's default when `None`), and renames it to `name`: over the
/// original when there is one (`permissions`) and, with `same`, it is still
/// that file; else only if `name` is still free.
fn write_beside(
    dir: &Dir,
    name: &Path,
    permissions: Option<cap_std::fs::Permissions>,
    same: Option<FileId>,
    write: impl FnOnce(&mut std::fs::File) -> io::Result<()>,
) -> io::Result<()> {
    let mut options = OpenOptions::new();
    // Only the server's user can read the content until it has the
    // original's permissions; a new file gets the usual 0o666 less umask.
    options
        .write(true)
        .create_new(true)
        .mode(if permissions.is_some() { 0o600 } else { 0o666 })
        .custom_flags(rustix::fs::OFlags::CLOEXEC.bits().try_into().unwrap_or(0));
    let mut attempt = 0;
    let (temp, file) = loop {
        let temp = temp_name()?;
        match dir.open_with(&temp, &options) {
            Ok(file) => break (temp, file),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempt + 1 < TEMP_ATTEMPTS => {
                attempt += 1;
            }
            Err(e) => return Err(e),
        }
    };
    let mut file = file.into_std();
    let written = write(&mut file)
        .and_then(|()| match &permissions {
            Some(p) => file.set_permissions(std::fs::Permissions::from_mode(p.mode())),
            None => Ok(()),
        })
        .and_then(|()| file.sync_all())
        .and_then(|()| {
            drop(file);
            // Checked as late as can be: only the rename itself follows.
            if let Some(id) = same
                && FileId::of(&dir.symlink_metadata(name)?) != id
            {
                return Err(io::Error::other(Swapped));
            }
            if permissions.is_some() {
                dir.rename(&temp, dir, name)
            } else {
                rename_new(dir, &temp, name)
            }
        });
    if written.is_err() {
        // The original was not touched; only the temporary file goes.
        let _ = dir.remove_file(&temp);
    }
    written
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt as _;

    use super::*;
    use crate::confinement::Confinement;

    fn roots(dir: &Path) -> Confinement {
        Confinement::new(&[dir.to_owned()]).expect("roots")
    }

    fn leftovers(dir: &Path) -> Vec<String> {
        std::fs::read_dir(dir)
            .expect("read_dir")
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(".tm-"))
            .collect()
    }

    #[test]
    fn keeps_the_mode_and_replaces_the_content() {
        let ws = tempfile::tempdir().expect("tempdir");
        let path = ws.path().join("a.txt");
        std::fs::write(&path, "old").expect("write");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).expect("chmod");
        let roots = roots(ws.path());
        replace(
            &roots.locate("a.txt").expect("locate"),
            Target::Either,
            b"new",
        )
        .expect("replace");
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "new");
        let mode = std::fs::metadata(&path).expect("meta").permissions().mode();
        assert_eq!(mode & 0o777, 0o640);
        assert!(leftovers(ws.path()).is_empty());
    }

    #[test]
    fn a_failed_write_leaves_the_original_and_no_temporary_file() {
        let ws = tempfile::tempdir().expect("tempdir");
        std::fs::write(ws.path().join("a.txt"), "original").expect("write");
        let dir = Dir::open_ambient_dir(ws.path(), cap_std::ambient_authority()).expect("dir");
        let failed = write_beside(&dir, Path::new("a.txt"), None, None, |file| {
            file.write_all(b"half")?;
            Err(io::Error::other("disk full"))
        });
        assert!(failed.is_err());
        assert_eq!(
            std::fs::read_to_string(ws.path().join("a.txt")).expect("read"),
            "original"
        );
        assert!(leftovers(ws.path()).is_empty());
    }

    /// An edit of a file that another took the name of meanwhile writes
    /// nothing: the new file keeps its content.
    #[test]
    fn an_edit_of_a_swapped_file_writes_nothing() {
        let ws = tempfile::tempdir().expect("tempdir");
        let path = ws.path().join("a.txt");
        std::fs::write(&path, "read").expect("write");
        let dir = Dir::open_ambient_dir(ws.path(), cap_std::ambient_authority()).expect("dir");
        let id = FileId::of(&dir.metadata("a.txt").expect("meta"));
        let roots = roots(ws.path());
        std::fs::write(ws.path().join("b.txt"), "swapped in").expect("write");
        std::fs::rename(ws.path().join("b.txt"), &path).expect("swap");
        let refused = replace(
            &roots.locate("a.txt").expect("locate"),
            Target::Read(id),
            b"edited",
        )
        .unwrap_err();
        assert!(
            refused.to_string().contains("another file took its name"),
            "{refused}"
        );
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "swapped in");
        assert!(leftovers(ws.path()).is_empty());
        let id = FileId::of(&dir.metadata("a.txt").expect("meta"));
        replace(
            &roots.locate("a.txt").expect("locate"),
            Target::Read(id),
            b"edited",
        )
        .expect("the same file is edited");
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "edited");
    }

    /// A file created where a new one was to go is never replaced: checked
    /// when the write starts, and again by the rename itself.
    #[test]
    fn a_new_file_never_replaces_one_that_appeared() {
        let ws = tempfile::tempdir().expect("tempdir");
        let roots = roots(ws.path());
        std::fs::write(ws.path().join("late.txt"), "theirs").expect("write");
        let refused = replace(
            &roots.locate("late.txt").expect("locate"),
            Target::New,
            b"ours",
        )
        .unwrap_err();
        assert!(
            refused.to_string().contains("created by someone else"),
            "{refused}"
        );

        // The race itself: the name is taken between the look and the rename.
        let dir = Dir::open_ambient_dir(ws.path(), cap_std::ambient_authority()).expect("dir");
        let raced = write_beside(&dir, Path::new("raced.txt"), None, None, |file| {
            std::fs::write(ws.path().join("raced.txt"), "theirs")?;
            file.write_all(b"ours")
        })
        .unwrap_err();
        assert_eq!(raced.kind(), io::ErrorKind::AlreadyExists);
        for name in ["late.txt", "raced.txt"] {
            assert_eq!(
                std::fs::read_to_string(ws.path().join(name)).expect("read"),
                "theirs"
            );
        }
        assert!(leftovers(ws.path()).is_empty());
        // A new file is still created.
        replace(
            &roots.locate("fresh.txt").expect("locate"),
            Target::New,
            b"ours",
        )
        .expect("created");
        assert_eq!(
            std::fs::read_to_string(ws.path().join("fresh.txt")).expect("read"),
            "ours"
        );
    }

    #[test]
    fn an_absolute_link_inside_the_root_is_written_through() {
        let base = tempfile::tempdir().expect("tempdir");
        let ws = base.path().join("ws");
        std::fs::create_dir_all(ws.join("sub")).expect("mkdir");
        std::fs::write(ws.join("sub/real.txt"), "old").expect("write");
        std::os::unix::fs::symlink(ws.join("sub/real.txt"), ws.join("link.txt")).expect("symlink");
        std::os::unix::fs::symlink(ws.join("sub"), ws.join("subdir")).expect("symlink");
        std::fs::write(base.path().join("secret.txt"), "secret").expect("write");
        std::os::unix::fs::symlink(base.path().join("secret.txt"), ws.join("out.txt"))
            .expect("symlink");
        let roots = roots(&ws);
        for (path, content) in [("link.txt", "new"), ("subdir/real.txt", "newer")] {
            replace(
                &roots.locate(path).expect("locate"),
                Target::Either,
                content.as_bytes(),
            )
            .expect("replace");
            assert_eq!(
                std::fs::read_to_string(ws.join("sub/real.txt")).expect("read"),
                content
            );
        }
        assert!(
            std::fs::symlink_metadata(ws.join("link.txt"))
                .expect("meta")
                .file_type()
                .is_symlink()
        );
        let refused = replace(
            &roots.locate("out.txt").expect("locate"),
            Target::Either,
            b"x",
        )
        .unwrap_err();
        assert!(refused.to_string().contains("outside"), "{refused}");
        assert_eq!(
            std::fs::read_to_string(base.path().join("secret.txt")).expect("read"),
            "secret"
        );
        // A chain that ends at the root itself is a directory, not a file
        // named like it.
        std::os::unix::fs::symlink(format!("{}/", ws.display()), ws.join("to_root"))
            .expect("symlink");
        std::os::unix::fs::symlink("to_root", ws.join("via")).expect("symlink");
        let refused =
            replace(&roots.locate("via").expect("locate"), Target::Either, b"x").unwrap_err();
        assert!(refused.to_string().contains("directory"), "{refused}");
        assert!(!ws.join("ws").exists(), "no file named like the root");
    }

    #[test]
    fn a_final_link_is_followed_inside_the_root_and_refused_outside() {
        let base = tempfile::tempdir().expect("tempdir");
        let ws = base.path().join("ws");
        std::fs::create_dir_all(ws.join("sub")).expect("mkdir");
        std::fs::write(ws.join("sub/real.txt"), "old").expect("write");
        std::os::unix::fs::symlink("sub/real.txt", ws.join("link.txt")).expect("symlink");
        std::fs::write(base.path().join("secret.txt"), "secret").expect("write");
        std::os::unix::fs::symlink("../secret.txt", ws.join("out.txt")).expect("symlink");
        let roots = roots(&ws);
        replace(
            &roots.locate("link.txt").expect("locate"),
            Target::Either,
            b"new",
        )
        .expect("replace");
        assert_eq!(
            std::fs::read_to_string(ws.join("sub/real.txt")).expect("read"),
            "new"
        );
        assert!(
            std::fs::symlink_metadata(ws.join("link.txt"))
                .expect("meta")
                .file_type()
                .is_symlink()
        );
        let refused = replace(
            &roots.locate("out.txt").expect("locate"),
            Target::Either,
            b"x",
        )
        .unwrap_err();
        assert!(refused.to_string().contains("outside"), "{refused}");
        assert_eq!(
            std::fs::read_to_string(base.path().join("secret.txt")).expect("read"),
            "secret"
        );
    }

    /// A link whose target climbs to a sibling directory, still inside the
    /// root, is written through; one that climbs above the root is not.
    #[test]
    fn a_link_up_and_over_stays_beneath_the_root() {
        let base = tempfile::tempdir().expect("tempdir");
        let ws = base.path().join("ws");
        std::fs::create_dir_all(ws.join("sub")).expect("mkdir");
        std::fs::write(ws.join("a.txt"), "old").expect("write");
        std::os::unix::fs::symlink("../a.txt", ws.join("sub/l")).expect("symlink");
        std::fs::write(base.path().join("secret.txt"), "secret").expect("write");
        std::os::unix::fs::symlink("../../secret.txt", ws.join("sub/out")).expect("symlink");
        let roots = roots(&ws);
        replace(
            &roots.locate("sub/l").expect("locate"),
            Target::Either,
            b"new",
        )
        .expect("replace");
        assert_eq!(
            std::fs::read_to_string(ws.join("a.txt")).expect("read"),
            "new"
        );
        let refused = replace(
            &roots.locate("sub/out").expect("locate"),
            Target::Either,
            b"x",
        )
        .unwrap_err();
        assert!(refused.to_string().contains("outside"), "{refused}");
        assert_eq!(
            std::fs::read_to_string(base.path().join("secret.txt")).expect("read"),
            "secret"
        );
    }
}
