//! The ignore rules of the search tools (`.gitignore` and `.ignore`), read by
//! the server itself rather than by the `ignore` crate, which opened them by
//! path: a FIFO named `.gitignore` hung the walk, a link to `/dev/zero` grew
//! memory without bound, and a link leading out of the root made an outside
//! file's lines into rules (an oracle on its content).
//!
//! Here each ignore file is opened beneath its root's handle, as a regular
//! file (`handles`), so a FIFO, a device or a link that leaves the root is
//! skipped; at most [`MAX_FILE_BYTES`] of it is read, and a walk takes at
//! most [`MAX_RULES`] rules in all, which bounds the memory and the matching
//! cost of the rules. Only directories inside the root are read: a
//! `.gitignore` above it does not hide files. `.git/info/exclude` and the
//! global git excludes are not read.

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use cap_std::fs::Dir;
use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};

use crate::confinement::Located;
use crate::handles;

/// The most bytes read of one ignore file; the rest is not read.
pub(crate) const MAX_FILE_BYTES: u64 = 64 * 1024;

/// The most rules one walk takes, from all its ignore files together.
pub(crate) const MAX_RULES: usize = 2_000;

/// The names read in each directory, in the order git applies them (later
/// rules win).
const NAMES: [&str; 2] = [".gitignore", ".ignore"];

/// The rules of one walk beneath one root, read as the walk needs them.
pub(crate) struct Ignores {
    dir: Dir,
    root: PathBuf,
    state: Mutex<State>,
}

struct State {
    /// Each directory's rules (relative to the root), `None` for none.
    by_dir: HashMap<PathBuf, Option<Arc<Gitignore>>>,
    /// Rules taken so far in this walk.
    rules: usize,
}

impl Ignores {
    /// The rules beneath the root of `at`, read through its handle.
    pub(crate) fn new(at: &Located<'_>) -> std::io::Result<Self> {
        Ok(Ignores {
            dir: at.dir.try_clone()?,
            root: at.root.to_owned(),
            state: Mutex::new(State {
                by_dir: HashMap::new(),
                rules: 0,
            }),
        })
    }

    /// Whether the walked `path` is ignored: the rules of its nearest
    /// directory that says anything about it decide, as in git.
    pub(crate) fn ignored(&self, path: &Path, is_dir: bool) -> bool {
        let Ok(rel) = path.strip_prefix(&self.root) else {
            return false;
        };
        let mut dir = rel.parent();
        while let Some(d) = dir {
            if let Some(rules) = self.rules_of(d) {
                match rules.matched(path, is_dir) {
                    Match::Ignore(_) => return true,
                    Match::Whitelist(_) => return false,
                    Match::None => {}
                }
            }
            dir = d.parent();
        }
        false
    }

    fn rules_of(&self, dir: &Path) -> Option<Arc<Gitignore>> {
        // One walk is one thread (the search tools do not walk in parallel);
        // a poisoned lock holds a consistent cache.
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(known) = state.by_dir.get(dir) {
            return known.clone();
        }
        let rules = self.read(dir, &mut state.rules).map(Arc::new);
        state.by_dir.insert(dir.to_owned(), rules.clone());
        rules
    }

    fn read(&self, dir: &Path, taken: &mut usize) -> Option<Gitignore> {
        let mut builder = GitignoreBuilder::new(self.root.join(dir));
        let mut any = false;
        for name in NAMES {
            let rel = dir.join(name);
            let at = Located {
                dir: &self.dir,
                root: &self.root,
                root_given: &self.root,
                rel: rel.clone(),
                given: name,
            };
            // Missing, or not a regular file beneath the root: no rules.
            let Ok(file) = handles::open_read(&at) else {
                continue;
            };
            let mut text = Vec::new();
            if file
                .into_std()
                .take(MAX_FILE_BYTES)
                .read_to_end(&mut text)
                .is_err()
            {
                continue;
            }
            for line in String::from_utf8_lossy(&text).lines() {
                if *taken >= MAX_RULES {
                    tracing::warn!(
                        "ignore rules past the first {MAX_RULES} of this search are not applied ({})",
                        rel.display()
                    );
                    break;
                }
                let line = line.trim_end_matches('\r');
                if line.trim().is_empty() || line.starts_with('#') {
                    continue;
                }
                if builder.add_line(Some(self.root.join(&rel)), line).is_ok() {
                    *taken += 1;
                    any = true;
                }
            }
        }
        if !any {
            return None;
        }
        builder.build().ok()
    }
}
