//! Symbolic links as a tool follows them by their text: absolute links that
//! point inside a root (the kernel, resolving beneath the root's handle,
//! refuses every absolute link), and what a question about a path says it
//! touches. Every open still happens beneath the handle: what is read here
//! only decides which path beneath it is opened.

use std::path::{Path, PathBuf};

use super::Located;
use crate::spelling::{beneath, lexical};

/// Most absolute links followed for one path (Linux's own limit).
const MAX_LINK_HOPS: usize = 40;

impl Located<'_> {
    /// Where an absolute link `target` leads beneath this root, if it leads
    /// inside it.
    pub(crate) fn inside(&self, target: &Path) -> Option<PathBuf> {
        let target = lexical(target);
        [self.root, self.root_given].iter().find_map(|base| {
            let rest = target.strip_prefix(base).ok()?;
            Some(if rest.as_os_str().is_empty() {
                PathBuf::from(".")
            } else {
                rest.to_owned()
            })
        })
    }

    /// What a person asked about this path must read: the path as the tool
    /// will touch it (`.`, `..` and absolute links inside the root resolved;
    /// relative to the root when given relative, absolute otherwise). With
    /// `follow_final` (a write through it), where its chain of final links
    /// leads, and through which link; without (a move of the entry itself),
    /// what a final link points to.
    pub(crate) fn as_touched(&self, follow_final: bool) -> String {
        let given_relative = !Path::new(self.given).is_absolute() && !self.given.starts_with('~');
        let show = |rel: &Path| {
            if given_relative {
                rel.display().to_string()
            } else {
                self.root.join(rel).display().to_string()
            }
        };
        let link_text = self
            .dir
            .symlink_metadata(&self.rel)
            .is_ok_and(|m| m.file_type().is_symlink())
            .then(|| self.dir.read_link_contents(&self.rel).ok())
            .flatten();
        match (link_text, follow_final) {
            (None, _) => show(&self.rel),
            (Some(target), false) => {
                format!(
                    "{} (a symbolic link to {})",
                    show(&self.rel),
                    target.display()
                )
            }
            (Some(target), true) => match self.chain_end() {
                Some(end) => format!(
                    "{} (through the symbolic link {})",
                    show(&end),
                    show(&self.rel)
                ),
                None => format!(
                    "{} (a symbolic link to {}, outside the allowed roots)",
                    show(&self.rel),
                    target.display()
                ),
            },
        }
    }

    /// Where the chain of final symbolic links from this path leads beneath
    /// the root, read from their text (`None` when a link leads out, or the
    /// chain is longer than the kernel follows).
    fn chain_end(&self) -> Option<PathBuf> {
        let mut rel = self.rel.clone();
        for _ in 0..MAX_LINK_HOPS {
            let is_link = self
                .dir
                .symlink_metadata(&rel)
                .is_ok_and(|m| m.file_type().is_symlink());
            if !is_link {
                return Some(rel);
            }
            let target = self.dir.read_link_contents(&rel).ok()?;
            let next = if target.is_absolute() {
                self.inside(&target)?
            } else {
                beneath(&rel.parent().unwrap_or(Path::new("")).join(&target))?
            };
            rel = self.rebased(&next, false);
        }
        None
    }

    /// This path with the final name, if it is a symbolic link, followed
    /// (see [`Located::rebased`]).
    pub(crate) fn final_followed(&self) -> Self {
        let mut at = self.clone();
        at.rel = self.rebased(&self.rel, true);
        at
    }

    /// `rel` with each symbolic link on the way whose target is absolute and
    /// inside this root replaced by that target beneath the root: the kernel
    /// resolves beneath the root's handle and refuses every absolute link,
    /// so such links are followed here, by their text. The directories on
    /// the way are followed always, the final name when `follow_final`.
    /// Links leading outside are left for the kernel to refuse; relative
    /// ones for it to follow. A link swapped after this only changes what
    /// the kernel refuses: every open stays beneath the handle.
    pub(crate) fn rebased(&self, rel: &Path, follow_final: bool) -> PathBuf {
        let mut path = rel.to_path_buf();
        'hops: for _ in 0..MAX_LINK_HOPS {
            let names: Vec<_> = path.components().collect();
            let mut prefix = PathBuf::new();
            for (i, name) in names.iter().enumerate() {
                prefix.push(name);
                if i + 1 == names.len() && !follow_final {
                    break;
                }
                let is_link = self
                    .dir
                    .symlink_metadata(&prefix)
                    .is_ok_and(|m| m.file_type().is_symlink());
                if !is_link {
                    continue;
                }
                let Ok(target) = self.dir.read_link_contents(&prefix) else {
                    return path;
                };
                if !target.is_absolute() {
                    continue;
                }
                let Some(inside) = self.inside(&target) else {
                    return path;
                };
                let mut next = inside;
                next.extend(&names[i + 1..]);
                path = next;
                continue 'hops;
            }
            return path;
        }
        path
    }
}
