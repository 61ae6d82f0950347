//! Handlers of the file tools: read, list, tree, info, write, replace, mkdir, move.

use std::fs;
use std::path::Path;
use std::time::UNIX_EPOCH;

use toolmetadata::{ToolError, ToolResult};

use crate::roots::Roots;
use crate::tools::*;

/// Files larger than this are not read into a result.
const MAX_READ_BYTES: u64 = 10 * 1024 * 1024;
/// Listings stop here.
const MAX_ENTRIES: usize = 10_000;

pub(crate) fn read_file(roots: &Roots, args: ReadFileArgs) -> ToolResult {
    let path = roots.existing(&args.path)?;
    let meta = fs::metadata(&path)?;
    if meta.is_dir() {
        return Err(ToolError::new(format!(
            "{} is a directory; use list_directory",
            args.path
        )));
    }
    if meta.len() > MAX_READ_BYTES {
        return Err(ToolError::new(format!(
            "{} has {} bytes, more than the {MAX_READ_BYTES} a read returns; read a range with start_line/end_line after searching",
            args.path,
            meta.len()
        )));
    }
    let bytes = fs::read(&path)?;
    let text = String::from_utf8(bytes)
        .map_err(|_| ToolError::new(format!("{} is not a UTF-8 text file", args.path)))?;
    if args.head.is_some() && args.tail.is_some() {
        return Err(ToolError::new("give `head` or `tail`, not both"));
    }
    let lines: Vec<&str> = text.lines().collect();
    let count = lines.len();
    let (from, to) = match (args.head, args.tail, args.start_line, args.end_line) {
        (Some(n), _, _, _) => (0, to_usize(n).min(count)),
        (_, Some(n), _, _) => (count.saturating_sub(to_usize(n)), count),
        (None, None, start, end) => {
            let from = start.map_or(0, |s| to_usize(s) - 1);
            let to = end.map_or(count, |e| to_usize(e).min(count));
            if from > to {
                return Err(ToolError::new(format!(
                    "start_line {} is after end_line {}",
                    from + 1,
                    to
                )));
            }
            (from.min(count), to)
        }
    };
    if from == 0 && to == count {
        return Ok(text.into());
    }
    Ok(lines[from..to].join("\n").into())
}

fn to_usize(n: i64) -> usize {
    usize::try_from(n.max(1)).unwrap_or(usize::MAX)
}

/// Entries of `dir` sorted by name, without hidden ones unless asked.
fn sorted_entries(dir: &Path, hidden: bool) -> std::io::Result<Vec<fs::DirEntry>> {
    let mut entries: Vec<fs::DirEntry> = fs::read_dir(dir)?
        .filter_map(Result::ok)
        .filter(|e| hidden || !e.file_name().to_string_lossy().starts_with('.'))
        .collect();
    entries.sort_by_key(fs::DirEntry::file_name);
    Ok(entries)
}

fn is_real_dir(entry: &fs::DirEntry) -> bool {
    entry.file_type().is_ok_and(|t| t.is_dir())
}

pub(crate) fn list_directory(
    roots: &Roots,
    args: ListDirectoryArgs,
) -> ToolResult<ListDirectoryOutput> {
    let dir = roots.existing(&args.path)?;
    if !dir.is_dir() {
        return Err(ToolError::new(format!("{} is not a directory", args.path)));
    }
    let mut entries = Vec::new();
    let mut truncated = false;
    // Depth-first, sorted, not following symbolic links (they are listed).
    let mut stack = vec![(dir.clone(), 1_i64)];
    while let Some((current, depth)) = stack.pop() {
        let mut children = Vec::new();
        for entry in sorted_entries(&current, args.hidden)? {
            if entries.len() >= MAX_ENTRIES {
                truncated = true;
                break;
            }
            let path = entry.path();
            let relative = path
                .strip_prefix(&dir)
                .unwrap_or(&path)
                .display()
                .to_string();
            if is_real_dir(&entry) {
                entries.push(format!("{relative}/"));
                if depth < args.depth {
                    children.push((path, depth + 1));
                }
            } else {
                entries.push(relative);
            }
        }
        stack.extend(children.into_iter().rev());
    }
    entries.sort();
    Ok(ListDirectoryOutput { entries, truncated })
}

pub(crate) fn directory_tree(roots: &Roots, args: DirectoryTreeArgs) -> ToolResult {
    let dir = roots.existing(&args.path)?;
    if !dir.is_dir() {
        return Err(ToolError::new(format!("{} is not a directory", args.path)));
    }
    let name = dir.file_name().map_or_else(
        || dir.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let mut out = format!("{name}/\n");
    let mut count = 0;
    tree(&dir, 1, args.depth, "", &mut out, &mut count)?;
    if count >= MAX_ENTRIES {
        out.push_str("… (stopped at 10,000 entries)\n");
    }
    Ok(out.into())
}

fn tree(
    dir: &Path,
    depth: i64,
    max: i64,
    indent: &str,
    out: &mut String,
    count: &mut usize,
) -> std::io::Result<()> {
    let mut entries = sorted_entries(dir, false)?;
    // Directories first, then files, each by name.
    entries.sort_by_key(|e| (!is_real_dir(e), e.file_name()));
    let last = entries.len().saturating_sub(1);
    for (i, entry) in entries.iter().enumerate() {
        if *count >= MAX_ENTRIES {
            return Ok(());
        }
        *count += 1;
        let (branch, next) = if i == last {
            ("└── ", "    ")
        } else {
            ("├── ", "│   ")
        };
        let name = entry.file_name().to_string_lossy().into_owned();
        if is_real_dir(entry) {
            out.push_str(&format!("{indent}{branch}{name}/\n"));
            if depth < max {
                tree(
                    &entry.path(),
                    depth + 1,
                    max,
                    &format!("{indent}{next}"),
                    out,
                    count,
                )?;
            }
        } else {
            out.push_str(&format!("{indent}{branch}{name}\n"));
        }
    }
    Ok(())
}

pub(crate) fn file_info(roots: &Roots, args: FileInfoArgs) -> ToolResult<FileInfoOutput> {
    let path = roots
        .entry(&args.path)
        .or_else(|_| roots.existing(&args.path))?;
    let meta = fs::symlink_metadata(&path)?;
    let kind = if meta.file_type().is_symlink() {
        FileInfoOutputKind::Symlink
    } else if meta.is_dir() {
        FileInfoOutputKind::Directory
    } else if meta.is_file() {
        FileInfoOutputKind::File
    } else {
        FileInfoOutputKind::Other
    };
    let seconds = |t: std::io::Result<std::time::SystemTime>| {
        t.ok()
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .and_then(|d| i64::try_from(d.as_secs()).ok())
    };
    Ok(FileInfoOutput {
        kind,
        size: i64::try_from(meta.len()).unwrap_or(i64::MAX),
        modified: seconds(meta.modified()),
        created: seconds(meta.created()),
        readonly: meta.permissions().readonly(),
    })
}

pub(crate) fn write_file(roots: &Roots, args: WriteFileArgs) -> ToolResult {
    let target = roots.writable(&args.path)?;
    if target.missing_dirs > 0 {
        if !args.create_dirs {
            return Err(ToolError::new(format!(
                "the directory of {} does not exist; pass create_dirs: true to create it",
                args.path
            )));
        }
        if let Some(parent) = target.path.parent() {
            fs::create_dir_all(parent)?;
        }
    }
    if target.path.is_dir() {
        return Err(ToolError::new(format!("{} is a directory", args.path)));
    }
    fs::write(&target.path, args.content.as_bytes())?;
    Ok(format!("wrote {} bytes to {}", args.content.len(), args.path).into())
}

pub(crate) fn replace_in_file(
    roots: &Roots,
    args: ReplaceInFileArgs,
) -> ToolResult<ReplaceInFileOutput> {
    let path = roots.existing(&args.path)?;
    let text = fs::read_to_string(&path)
        .map_err(|e| ToolError::new(format!("cannot read {} as text: {e}", args.path)))?;
    let found = text.matches(&args.old_text).count();
    let expected = usize::try_from(args.expected_count).unwrap_or(usize::MAX);
    if found != expected {
        return Err(ToolError::new(format!(
            "old_text occurs {found} time{} in {}, expected {expected}; nothing was changed",
            if found == 1 { "" } else { "s" },
            args.path
        )));
    }
    fs::write(&path, text.replace(&args.old_text, &args.new_text))?;
    Ok(ReplaceInFileOutput {
        replaced: args.expected_count,
    })
}

pub(crate) fn create_directory(roots: &Roots, args: CreateDirectoryArgs) -> ToolResult {
    let target = roots.writable(&args.path)?;
    if target.path.exists() && !target.path.is_dir() {
        return Err(ToolError::new(format!(
            "{} exists and is not a directory",
            args.path
        )));
    }
    fs::create_dir_all(&target.path)?;
    Ok(format!("created {}", args.path).into())
}

pub(crate) fn move_path(roots: &Roots, args: MovePathArgs) -> ToolResult {
    let source = roots.entry(&args.source)?;
    let destination = roots.writable(&args.destination)?;
    if destination.missing_dirs > 0 {
        return Err(ToolError::new(format!(
            "the directory of {} does not exist",
            args.destination
        )));
    }
    if destination.path.symlink_metadata().is_ok() && !args.overwrite {
        return Err(ToolError::new(format!(
            "{} exists; pass overwrite: true to replace it",
            args.destination
        )));
    }
    fs::rename(&source, &destination.path)?;
    Ok(format!("moved {} to {}", args.source, args.destination).into())
}
