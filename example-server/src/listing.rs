//! `list_directory` and `directory_tree`: walked through directory handles,
//! never following links, so a directory swapped for a link cannot lead the
//! walk out of its root; both stop at a number of entries and of bytes.

use std::ffi::OsString;

use cap_std::fs::Dir;
use toolmetadata::{ToolError, ToolResult};

use crate::confinement::{Confinement, Located};
use crate::exclude::Exclude;
use crate::limits::Limits;
use crate::tools::*;

/// Listings stop here.
const MAX_ENTRIES: usize = 10_000;
/// Names read from one directory; the rest are not looked at, so that a
/// directory of millions of files costs bounded memory.
const MAX_NAMES_PER_DIR: usize = 100_000;

/// Entries of `dir` sorted by name, without hidden ones unless asked: names,
/// whether each is a directory (not following links), and whether the
/// directory had more than could be read.
fn sorted_entries(dir: &Dir, hidden: bool) -> std::io::Result<(Vec<(OsString, bool)>, bool)> {
    let mut entries = Vec::new();
    let mut cut = false;
    for entry in dir.entries()?.filter_map(Result::ok) {
        if entries.len() >= MAX_NAMES_PER_DIR {
            cut = true;
            break;
        }
        let name = entry.file_name();
        if !hidden && name.to_string_lossy().starts_with('.') {
            continue;
        }
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        entries.push((name, is_dir));
    }
    entries.sort();
    Ok((entries, cut))
}

fn open_dir(at: &Located<'_>) -> Result<Dir, ToolError> {
    let at = &at.final_followed();
    match at.dir.metadata(&at.rel) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => return Err(ToolError::new(format!("{} is not a directory", at.given))),
        Err(e) => return Err(at.error(&e).into()),
    }
    at.dir.open_dir(&at.rel).map_err(|e| at.error(&e).into())
}

pub(crate) fn list_directory(
    roots: &Confinement,
    limits: Limits,
    args: ListDirectoryArgs,
) -> ToolResult<ListDirectoryOutput> {
    let at = roots.locate(&args.path)?;
    let top = open_dir(&at)?;
    let mut entries = Vec::new();
    let mut bytes = 0;
    let mut truncated = false;
    // Depth-first, sorted, not following symbolic links (they are listed).
    let mut stack = vec![(top, String::new(), 1_i64)];
    'walk: while let Some((dir, prefix, depth)) = stack.pop() {
        let (children_of_dir, cut) = sorted_entries(&dir, args.hidden)?;
        truncated |= cut;
        let mut children = Vec::new();
        for (name, is_dir) in children_of_dir {
            let relative = format!("{prefix}{}", name.to_string_lossy());
            let shown = if is_dir {
                format!("{relative}/")
            } else {
                relative.clone()
            };
            if entries.len() >= MAX_ENTRIES || bytes + shown.len() > limits.max_reply_bytes {
                truncated = true;
                break 'walk;
            }
            bytes += shown.len() + 4;
            entries.push(shown);
            if is_dir
                && depth < args.depth
                && let Ok(sub) = dir.open_dir(&name)
            {
                children.push((sub, format!("{relative}/"), depth + 1));
            }
        }
        stack.extend(children.into_iter().rev());
    }
    entries.sort();
    Ok(ListDirectoryOutput { entries, truncated })
}

pub(crate) fn directory_tree(
    roots: &Confinement,
    limits: Limits,
    args: DirectoryTreeArgs,
) -> ToolResult {
    let at = roots.locate(&args.path)?;
    let top = open_dir(&at)?;
    let full = at.root.join(&at.rel);
    let name = full
        .file_name()
        .map_or_else(|| shown_name(full.as_os_str()), shown_name);
    let mut tree = Tree {
        out: format!("{name}/\n"),
        count: 0,
        max: args.depth,
        max_bytes: limits.max_reply_bytes,
        stopped: false,
        exclude: Exclude::new(&args.exclude_patterns)?,
    };
    tree.walk(&top, 1, "", "")?;
    if tree.stopped {
        tree.out.push_str(&format!(
            "… (stopped at {} entries or {} bytes)\n",
            tree.count, tree.max_bytes
        ));
    }
    Ok(tree.out.into())
}

/// A file name as a text reply shows it: control and invisible characters
/// escaped (`\n`, `\u{202e}`), so that a name cannot add lines to a listing
/// or a tree, nor reorder what follows it.
pub(crate) fn shown_name(name: &std::ffi::OsStr) -> String {
    use std::fmt::Write;
    let name = name.to_string_lossy();
    if !name.chars().any(needs_escape) {
        return name.into_owned();
    }
    name.chars().fold(String::new(), |mut out, c| {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if needs_escape(c) => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
        out
    })
}

fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{00ad}' | '\u{061c}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}'
            | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{2069}' | '\u{feff}')
}

struct Tree {
    out: String,
    count: usize,
    max: i64,
    max_bytes: usize,
    stopped: bool,
    /// Entries left out, and not descended into.
    exclude: Exclude,
}

impl Tree {
    /// Adds the entries of `dir`, which is at `prefix` (empty, or ending in
    /// `/`) beneath the listed directory.
    fn walk(&mut self, dir: &Dir, depth: i64, indent: &str, prefix: &str) -> std::io::Result<()> {
        let (mut entries, cut) = sorted_entries(dir, false)?;
        self.stopped |= cut;
        entries.retain(|(name, _)| {
            let name = name.to_string_lossy();
            !self.exclude.excludes(&format!("{prefix}{name}"), &name)
        });
        // Directories first, then files, each by name.
        entries.sort_by(|a, b| (!a.1, &a.0).cmp(&(!b.1, &b.0)));
        let last = entries.len().saturating_sub(1);
        for (i, (name, is_dir)) in entries.iter().enumerate() {
            if self.count >= MAX_ENTRIES || self.out.len() >= self.max_bytes {
                self.stopped = true;
                return Ok(());
            }
            self.count += 1;
            let (branch, next) = if i == last {
                ("└── ", "    ")
            } else {
                ("├── ", "│   ")
            };
            let shown = shown_name(name);
            if *is_dir {
                self.out.push_str(&format!("{indent}{branch}{shown}/\n"));
                if depth < self.max
                    && let Ok(sub) = dir.open_dir(name)
                {
                    self.walk(
                        &sub,
                        depth + 1,
                        &format!("{indent}{next}"),
                        &format!("{prefix}{}/", name.to_string_lossy()),
                    )?;
                }
            } else {
                self.out.push_str(&format!("{indent}{branch}{shown}\n"));
            }
        }
        Ok(())
    }
}

/// One entry of `list_directory_with_sizes`, as read through the handle
/// without following links.
struct Sized {
    name: String,
    kind: &'static str,
    size: u64,
}

impl Sized {
    fn shown(&self) -> String {
        match self.kind {
            "DIR" => format!("[DIR] {}/", self.name),
            "FILE" => format!("[FILE] {} ({} bytes)", self.name, self.size),
            kind => format!("[{kind}] {}", self.name),
        }
    }
}

pub(crate) fn list_directory_with_sizes(
    roots: &Confinement,
    limits: Limits,
    args: ListDirectoryWithSizesArgs,
) -> ToolResult<ListDirectoryWithSizesOutput> {
    let at = roots.locate(&args.path)?;
    let dir = open_dir(&at)?;
    let mut entries = Vec::new();
    let mut truncated = false;
    // All names read (up to the per-directory bound) before sorting, so that
    // the largest files come first even when the listing is cut.
    for entry in dir.entries().map_err(|e| at.error(&e))? {
        if entries.len() >= MAX_NAMES_PER_DIR {
            truncated = true;
            break;
        }
        let Ok(entry) = entry else { continue };
        let name = shown_name(&entry.file_name());
        if !args.hidden && name.starts_with('.') {
            continue;
        }
        // The entry itself: a link is listed, not followed.
        let Ok(meta) = entry.metadata() else { continue };
        let t = meta.file_type();
        let (kind, size) = if t.is_symlink() {
            ("LINK", 0)
        } else if t.is_dir() {
            ("DIR", 0)
        } else if t.is_file() {
            ("FILE", meta.len())
        } else {
            ("OTHER", 0)
        };
        entries.push(Sized { name, kind, size });
    }
    match args.sort_by {
        ListDirectoryWithSizesSortBy::Name => entries.sort_by(|a, b| a.name.cmp(&b.name)),
        ListDirectoryWithSizesSortBy::Size => {
            entries.sort_by(|a, b| b.size.cmp(&a.size).then_with(|| a.name.cmp(&b.name)));
        }
    }
    // Totals count every entry read, also those a cut listing leaves out.
    let (mut files, mut directories, mut total) = (0_u64, 0_u64, 0_u64);
    for entry in &entries {
        match entry.kind {
            "FILE" => {
                files += 1;
                total = total.saturating_add(entry.size);
            }
            "DIR" => directories += 1,
            _ => {}
        }
    }
    let mut shown = Vec::new();
    let mut bytes = 0;
    for entry in &entries {
        let line = entry.shown();
        if shown.len() >= MAX_ENTRIES || bytes + line.len() > limits.max_reply_bytes {
            truncated = true;
            break;
        }
        bytes += line.len() + 4;
        shown.push(line);
    }
    let int = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
    Ok(ListDirectoryWithSizesOutput {
        entries: shown,
        files: int(files),
        directories: int(directories),
        bytes: int(total),
        truncated,
    })
}
