//! Handlers of the file tools that read or change one path: read, info, write,
//! replace, mkdir, move. Every operation goes through a root's handle
//! (`roots`), and only regular files are opened (`handles`).

use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::time::UNIX_EPOCH;

use toolmetadata::{ToolError, ToolResult};

use crate::handles;
use crate::limits::Limits;
use crate::lines::{self, LinesError};
use crate::roots::{Located, Roots};
use crate::tools::*;

/// Which part of a file `read_file` returns.
enum Selection {
    Whole,
    /// Lines `from..to`, 0-based, `to` exclusive.
    Lines(usize, Option<usize>),
    Tail(usize),
}

fn selection(args: &ReadFileArgs) -> Result<Selection, ToolError> {
    Ok(
        match (args.head, args.tail, args.start_line, args.end_line) {
            (Some(_), Some(_), _, _) => {
                return Err(ToolError::new("give `head` or `tail`, not both"));
            }
            (Some(n), None, _, _) => Selection::Lines(0, Some(to_usize(n))),
            (None, Some(n), _, _) => Selection::Tail(to_usize(n)),
            (None, None, None, None) => Selection::Whole,
            (None, None, start, end) => {
                if let (Some(s), Some(e)) = (start, end)
                    && s > e
                {
                    return Err(ToolError::new(format!(
                        "start_line {s} is after end_line {e}"
                    )));
                }
                Selection::Lines(start.map_or(0, |s| to_usize(s) - 1), end.map(to_usize))
            }
        },
    )
}

fn to_usize(n: i64) -> usize {
    usize::try_from(n.max(1)).unwrap_or(usize::MAX)
}

pub(crate) fn read_file(roots: &Roots, limits: Limits, args: ReadFileArgs) -> ToolResult {
    let selection = selection(&args)?;
    let at = roots.locate(&args.path)?;
    if at.dir.metadata(&at.rel).is_ok_and(|m| m.is_dir()) {
        return Err(ToolError::new(format!(
            "{} is a directory; use list_directory",
            args.path
        )));
    }
    let file = handles::open_read(&at)?.into_std();
    let size = file.metadata()?.len();
    let max = limits.max_file_bytes;
    let too_long = |what: &str| {
        ToolError::new(format!(
            "{what} of {} hold more than the {max} bytes a read returns; ask for fewer lines",
            args.path
        ))
    };
    let bytes = match selection {
        Selection::Whole => {
            if size > max {
                return Err(ToolError::new(format!(
                    "{} has {size} bytes, more than the {max} a read returns whole; read part of it with start_line/end_line, head or tail",
                    args.path
                )));
            }
            let mut bytes = Vec::new();
            // The file may have grown since its size was read: the limit
            // holds anyway, and a cut file is an error, not a short answer.
            file.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
            if bytes.len() as u64 > max {
                return Err(ToolError::new(format!(
                    "{} grew past the {max} bytes a read returns whole; read part of it with start_line/end_line, head or tail",
                    args.path
                )));
            }
            bytes
        }
        Selection::Lines(from, to) => match lines::range(file, from, to, max) {
            Ok(bytes) => bytes,
            Err(LinesError::TooLong) => return Err(too_long("the lines asked for")),
            Err(LinesError::Io(e)) => return Err(e.into()),
        },
        Selection::Tail(n) => match lines::tail(file, size, n, max) {
            Ok(bytes) => bytes,
            Err(LinesError::TooLong) => return Err(too_long("the last lines")),
            Err(LinesError::Io(e)) => return Err(e.into()),
        },
    };
    let text = String::from_utf8(bytes)
        .map_err(|_| ToolError::new(format!("{} is not a UTF-8 text file", args.path)))?;
    Ok(text.into())
}

pub(crate) fn file_info(roots: &Roots, args: FileInfoArgs) -> ToolResult<FileInfoOutput> {
    let at = roots.locate(&args.path)?;
    // The entry itself, a final link not followed: it is what was named.
    let meta = if at.is_root() {
        at.dir.dir_metadata()
    } else {
        at.dir.symlink_metadata(&at.rel)
    }
    .map_err(|e| at.error(&e))?;
    let kind = if meta.file_type().is_symlink() {
        FileInfoOutputKind::Symlink
    } else if meta.is_dir() {
        FileInfoOutputKind::Directory
    } else if meta.is_file() {
        FileInfoOutputKind::File
    } else {
        FileInfoOutputKind::Other
    };
    let seconds = |t: io::Result<cap_std::time::SystemTime>| {
        t.ok()
            .and_then(|t| t.into_std().duration_since(UNIX_EPOCH).ok())
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

/// The directory a path is in, beneath its root.
fn parent(rel: &Path) -> &Path {
    match rel.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Whether the directory of `at` exists; an existing non-directory or an
/// escape is an error.
fn parent_exists(at: &Located<'_>) -> Result<bool, ToolError> {
    match at.dir.metadata(parent(&at.rel)) {
        Ok(m) if m.is_dir() => Ok(true),
        Ok(_) => Err(ToolError::new(format!(
            "the directory of {} is not a directory",
            at.given
        ))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(at.error(&e).into()),
    }
}

pub(crate) fn write_file(roots: &Roots, args: WriteFileArgs) -> ToolResult {
    let at = roots.locate(&args.path)?;
    if at.is_root() {
        return Err(ToolError::new(format!("{} is a directory", args.path)));
    }
    if !parent_exists(&at)? {
        if !args.create_dirs {
            return Err(ToolError::new(format!(
                "the directory of {} does not exist; pass create_dirs: true to create it",
                args.path
            )));
        }
        at.dir
            .create_dir_all(parent(&at.rel))
            .map_err(|e| at.error(&e))?;
    }
    let mut file = handles::open_write(&at, true)?;
    file.set_len(0)?;
    file.write_all(args.content.as_bytes())?;
    Ok(format!("wrote {} bytes to {}", args.content.len(), args.path).into())
}

pub(crate) fn replace_in_file(
    roots: &Roots,
    limits: Limits,
    args: ReplaceInFileArgs,
) -> ToolResult<ReplaceInFileOutput> {
    let at = roots.locate(&args.path)?;
    let mut file = handles::open_write(&at, false)?;
    let max = limits.max_file_bytes;
    let size = file.metadata()?.len();
    if size > max {
        return Err(ToolError::new(format!(
            "{} has {size} bytes, more than the {max} replace_in_file edits; nothing was changed",
            args.path
        )));
    }
    let mut bytes = Vec::new();
    (&mut file)
        .take(max.saturating_add(1))
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(ToolError::new(format!(
            "{} grew past the {max} bytes replace_in_file edits; nothing was changed",
            args.path
        )));
    }
    let text = String::from_utf8(bytes).map_err(|_| {
        ToolError::new(format!(
            "cannot read {} as text: it is not UTF-8",
            args.path
        ))
    })?;
    let found = text.matches(&args.old_text).count();
    let expected = usize::try_from(args.expected_count).unwrap_or(usize::MAX);
    if found != expected {
        return Err(ToolError::new(format!(
            "old_text occurs {found} time{} in {}, expected {expected}; nothing was changed",
            if found == 1 { "" } else { "s" },
            args.path
        )));
    }
    // Checked before the new text is built, so that many matches of a long
    // replacement cannot ask for gigabytes.
    let result_len = (text.len() as u128) - (found as u128) * (args.old_text.len() as u128)
        + (found as u128) * (args.new_text.len() as u128);
    if result_len > u128::from(max) {
        return Err(ToolError::new(format!(
            "the result would have {result_len} bytes, more than the {max} replace_in_file writes; nothing was changed"
        )));
    }
    let replaced = text.replace(&args.old_text, &args.new_text);
    // Written through the handle that was read: the same file, whatever
    // happened to its name meanwhile.
    file.seek(SeekFrom::Start(0))?;
    file.set_len(0)?;
    file.write_all(replaced.as_bytes())?;
    Ok(ReplaceInFileOutput {
        replaced: args.expected_count,
    })
}

pub(crate) fn create_directory(roots: &Roots, args: CreateDirectoryArgs) -> ToolResult {
    let at = roots.locate(&args.path)?;
    match at.dir.metadata(&at.rel) {
        Ok(m) if m.is_dir() => return Ok(format!("created {}", args.path).into()),
        Ok(_) => {
            return Err(ToolError::new(format!(
                "{} exists and is not a directory",
                args.path
            )));
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(at.error(&e).into()),
    }
    at.dir.create_dir_all(&at.rel).map_err(|e| at.error(&e))?;
    Ok(format!("created {}", args.path).into())
}

pub(crate) fn move_path(roots: &Roots, args: MovePathArgs) -> ToolResult {
    let source = roots.entry(&args.source)?;
    let destination = roots.entry(&args.destination)?;
    source
        .dir
        .symlink_metadata(&source.rel)
        .map_err(|e| source.error(&e))?;
    if !parent_exists(&destination)? {
        return Err(ToolError::new(format!(
            "the directory of {} does not exist",
            args.destination
        )));
    }
    if destination.dir.symlink_metadata(&destination.rel).is_ok() && !args.overwrite {
        return Err(ToolError::new(format!(
            "{} exists; pass overwrite: true to replace it",
            args.destination
        )));
    }
    source
        .dir
        .rename(&source.rel, destination.dir, &destination.rel)
        .map_err(|e| {
            ToolError::new(format!(
                "cannot move {}: {}",
                args.source,
                destination.error(&e)
            ))
        })?;
    Ok(format!("moved {} to {}", args.source, args.destination).into())
}

/// Whether `path` names an existing regular file (what `write_file` would
/// replace).
pub(crate) fn is_existing_file(roots: &Roots, path: &str) -> Result<bool, ToolError> {
    let at = roots.locate(path)?;
    Ok(!at.is_root() && at.dir.metadata(&at.rel).is_ok_and(|m| m.is_file()))
}

/// A file as a resource (`file:///{+path}`): its text and MIME type, read
/// with the same confinement and size limit as `read_file`.
pub(crate) fn read_resource(
    roots: &Roots,
    limits: Limits,
    path: &str,
) -> Result<(String, &'static str), ToolError> {
    let at = roots.locate(path)?;
    let file = handles::open_read(&at)?.into_std();
    let max = limits.max_file_bytes;
    let mut bytes = Vec::new();
    file.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(ToolError::new(format!(
            "{path} has more than the {max} bytes a read returns; use read_file with a line range"
        )));
    }
    let text = String::from_utf8(bytes).map_err(|_| {
        ToolError::new(format!(
            "{path} is not UTF-8 text; only text files are served as resources"
        ))
    })?;
    Ok((text, mime_type(path)))
}

/// The MIME type a file's extension suggests; `text/plain` otherwise.
pub(crate) fn mime_type(path: &str) -> &'static str {
    let extension = Path::new(path)
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match extension.as_deref() {
        Some("md" | "markdown") => "text/markdown",
        Some("json") => "application/json",
        Some("toml") => "application/toml",
        Some("yaml" | "yml") => "application/yaml",
        Some("html" | "htm") => "text/html",
        Some("css") => "text/css",
        Some("js" | "mjs") => "text/javascript",
        Some("csv") => "text/csv",
        Some("xml") => "application/xml",
        Some("rs") => "text/x-rust",
        Some("py") => "text/x-python",
        Some("sh") => "text/x-shellscript",
        _ => "text/plain",
    }
}
