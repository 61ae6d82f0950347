//! Handlers of the file tools that read or change one path: read, info, write,
//! replace, mkdir, move. Every operation goes through a root's handle
//! (`confinement`), and only regular files are opened (`handles`).

use std::io::{self, Read};
use std::path::Path;
use std::time::UNIX_EPOCH;

use base64::Engine as _;
use toolmetadata::{Content, ToolError, ToolOutput, ToolResult};

use crate::confinement::{Confinement, Located};
use crate::limits::Limits;
use crate::lines::{self, LinesError};
use crate::path_error::shown;
use crate::tools::*;
use crate::{atomic, handles};

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

pub(crate) fn read_file(roots: &Confinement, limits: Limits, args: ReadFileArgs) -> ToolResult {
    let selection = selection(&args)?;
    let at = roots.locate_followed(&args.path)?;
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
            // The file may have grown since its size was read: the limit
            // holds anyway, and a cut file is an error, not a short answer.
            read_at_most(file, max)?.ok_or_else(|| {
                ToolError::new(format!(
                    "{} grew past the {max} bytes a read returns whole; read part of it with start_line/end_line, head or tail",
                    args.path
                ))
            })?
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
    Ok(decode(&args.path, bytes)?.into_output())
}

/// A file's text: UTF-8 as it is, or bytes decoded as Windows-1252.
pub(crate) enum Text {
    Utf8(String),
    /// Not UTF-8, but without NUL bytes: decoded as Windows-1252 (a superset
    /// of Latin-1's printable characters), so every byte became a character.
    Latin1(String),
}

impl Text {
    /// The text, and for a decoded file a note that says so.
    pub(crate) fn into_output(self) -> ToolOutput {
        match self {
            Text::Utf8(text) => text.into(),
            Text::Latin1(text) => ToolOutput::content(vec![
                Content::Text(LATIN1_NOTE.to_owned()),
                Content::Text(text),
            ]),
        }
    }

    /// The decoded text.
    pub(crate) fn as_str(&self) -> &str {
        match self {
            Text::Utf8(t) | Text::Latin1(t) => t,
        }
    }
}

/// Said beside a text that was not UTF-8.
pub(crate) const LATIN1_NOTE: &str = "[note: this file is not UTF-8; it is shown decoded as Windows-1252 (Latin-1). Writing it back with write_file or edit_file would store UTF-8.]";

/// `bytes` of the file `path` as text. A NUL byte marks a binary file, which
/// is refused with a pointer to `read_media_file`.
pub(crate) fn decode(path: &str, bytes: Vec<u8>) -> Result<Text, ToolError> {
    match String::from_utf8(bytes) {
        Ok(text) => Ok(Text::Utf8(text)),
        Err(e) => {
            let bytes = e.into_bytes();
            if bytes.contains(&0) {
                return Err(ToolError::new(format!(
                    "{} is a binary file (it holds NUL bytes), not text; read it with read_media_file",
                    shown(path)
                )));
            }
            // Without BOM sniffing: a non-UTF-8 file that starts like a BOM
            // is still Windows-1252, every byte one character, as the note says.
            let (text, _) = encoding_rs::WINDOWS_1252.decode_without_bom_handling(&bytes);
            Ok(Text::Latin1(text.into_owned()))
        }
    }
}

/// All of `file`, or `None` when it holds more than `max` bytes (also when
/// it grew past them while being read).
fn read_at_most(file: std::fs::File, max: u64) -> io::Result<Option<Vec<u8>>> {
    let mut bytes = Vec::new();
    file.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
    Ok((bytes.len() as u64 <= max).then_some(bytes))
}

/// Opens `at` for reading a whole file, with a clearer error for a directory.
fn open_whole(at: &Located<'_>) -> Result<(std::fs::File, u64), ToolError> {
    if at.is_root() || at.dir.metadata(&at.rel).is_ok_and(|m| m.is_dir()) {
        return Err(ToolError::new(format!(
            "{} is a directory; use list_directory",
            at.given
        )));
    }
    let file = handles::open_read(at)?.into_std();
    let size = file.metadata()?.len();
    Ok((file, size))
}

pub(crate) fn read_media_file(
    roots: &Confinement,
    limits: Limits,
    args: ReadMediaFileArgs,
) -> ToolResult {
    let at = roots.locate_followed(&args.path)?;
    let (file, size) = open_whole(&at)?;
    let max = limits.max_file_bytes;
    let too_big = || {
        ToolError::new(format!(
            "{} has {size} bytes, more than the {max} a media read returns",
            args.path
        ))
    };
    if size > max {
        return Err(too_big());
    }
    let bytes = read_at_most(file, max)?.ok_or_else(too_big)?;
    let mime = infer::get(&bytes)
        .map(|t| t.mime_type())
        .or_else(|| media_type(&args.path));
    let data = base64::engine::general_purpose::STANDARD.encode(&bytes);
    let content = match mime {
        Some(m) if m.starts_with("image/") => Content::Image {
            data,
            mime_type: m.to_owned(),
        },
        Some(m) if m.starts_with("audio/") => Content::Audio {
            data,
            mime_type: m.to_owned(),
        },
        other => Content::Blob {
            uri: file_uri(&at.root.join(&at.rel)),
            mime_type: Some(other.unwrap_or("application/octet-stream").to_owned()),
            data,
        },
    };
    Ok(ToolOutput::content(vec![content]))
}

/// The media type a file's extension suggests, for content `infer` does not
/// recognise (SVG is text, for one).
fn media_type(path: &str) -> Option<&'static str> {
    let extension = Path::new(path)
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    Some(match extension.as_deref()? {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "bmp" => "image/bmp",
        "svg" => "image/svg+xml",
        "ico" => "image/x-icon",
        "mp3" => "audio/mpeg",
        "wav" => "audio/wav",
        "ogg" | "oga" => "audio/ogg",
        "flac" => "audio/flac",
        "m4a" => "audio/mp4",
        "pdf" => "application/pdf",
        "zip" => "application/zip",
        _ => return None,
    })
}

/// A `file://` URI for an absolute path, with bytes outside RFC 3986's
/// unreserved set (and `/`) percent-encoded.
fn file_uri(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut uri = String::from("file://");
    for &b in path.as_os_str().as_bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            uri.push(char::from(b));
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri
}

pub(crate) fn read_multiple_files(
    roots: &Confinement,
    limits: Limits,
    args: ReadMultipleFilesArgs,
) -> ToolResult {
    let total = limits.max_file_bytes;
    let mut left = total;
    let mut blocks = Vec::with_capacity(args.paths.len());
    for path in &args.paths {
        match read_text_within(roots, path, left, total) {
            Ok(text) => {
                left = left.saturating_sub(text.as_str().len() as u64);
                let note = match &text {
                    Text::Utf8(_) => "",
                    Text::Latin1(_) => LATIN1_NOTE,
                };
                let sep = if note.is_empty() { "" } else { "\n" };
                blocks.push(Content::Text(format!(
                    "{path}:\n{note}{sep}{}",
                    text.as_str()
                )));
            }
            Err(e) => blocks.push(Content::Text(format!("{}: error: {e}", shown(path)))),
        }
    }
    Ok(ToolOutput::content(blocks))
}

/// One file of a batch, read whole if it fits in the `left` bytes of the
/// batch's `total`.
fn read_text_within(
    roots: &Confinement,
    path: &str,
    left: u64,
    total: u64,
) -> Result<Text, ToolError> {
    let at = roots.locate_followed(path)?;
    let (file, size) = open_whole(&at)?;
    let too_big = |size: u64| {
        ToolError::new(format!(
            "not read: it has {size} bytes, more than the {left} left of the {total} bytes one batch returns; read it with read_file"
        ))
    };
    if size > left {
        return Err(too_big(size));
    }
    let bytes = read_at_most(file, left)?.ok_or_else(|| too_big(left.saturating_add(1)))?;
    let text = decode(path, bytes)?;
    // Windows-1252 bytes above 0x7f take two or three bytes as UTF-8: the
    // batch's bound is on what it returns.
    let returned = text.as_str().len() as u64;
    if returned > left {
        return Err(ToolError::new(format!(
            "not read: as text it has {returned} bytes, more than the {left} left of the {total} bytes one batch returns; read it with read_file"
        )));
    }
    Ok(text)
}

pub(crate) fn file_info(roots: &Confinement, args: FileInfoArgs) -> ToolResult<FileInfoOutput> {
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

/// `write_file`: creates the file, or replaces it when `target` allows
/// (the person was asked, or could not be and the server proceeds).
pub(crate) fn write_file(
    roots: &Confinement,
    args: WriteFileArgs,
    target: atomic::Target,
) -> ToolResult {
    let at = roots.locate_followed(&args.path)?;
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
    // Never half-written: a temporary file beside it, renamed over it.
    atomic::replace(&at, target, args.content.as_bytes())?;
    Ok(format!("wrote {} bytes to {}", args.content.len(), args.path).into())
}

pub(crate) fn replace_in_file(
    roots: &Confinement,
    limits: Limits,
    args: ReplaceInFileArgs,
) -> ToolResult<ReplaceInFileOutput> {
    let at = roots.locate_followed(&args.path)?;
    let mut file = handles::open_read(&at)?;
    let max = limits.max_file_bytes;
    let meta = file.metadata()?;
    let read = atomic::FileId::of(&meta);
    let size = meta.len();
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
    // Never half-written: a temporary file beside it, renamed over it.
    // Written only over the file that was read, not one swapped in since.
    atomic::replace(&at, atomic::Target::Read(read), replaced.as_bytes())?;
    Ok(ReplaceInFileOutput {
        replaced: args.expected_count,
    })
}

pub(crate) fn create_directory(roots: &Confinement, args: CreateDirectoryArgs) -> ToolResult {
    let at = roots.locate_followed(&args.path)?;
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

pub(crate) fn move_path(roots: &Confinement, args: MovePathArgs) -> ToolResult {
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

/// `path` as a question about it shows it ([`Located::as_touched`]): the
/// entry itself when `follow_final` is false (what `move_path` moves), else
/// what a write through it reaches.
pub(crate) fn as_touched(
    roots: &Confinement,
    path: &str,
    follow_final: bool,
) -> Result<String, ToolError> {
    let at = if follow_final {
        roots.locate(path)?
    } else {
        roots.entry(path)?
    };
    Ok(at.as_touched(follow_final))
}

/// Whether `path` names an existing regular file (what `write_file` would
/// replace).
pub(crate) fn is_existing_file(roots: &Confinement, path: &str) -> Result<bool, ToolError> {
    let at = roots.locate_followed(path)?;
    Ok(!at.is_root() && at.dir.metadata(&at.rel).is_ok_and(|m| m.is_file()))
}

/// What a file resource holds.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum ResourceBody {
    /// UTF-8 text.
    Text(String),
    /// Anything else, sent base64-encoded.
    Blob(Vec<u8>),
}

/// A file as a resource (`file:///{+path}`): its content (text when it is
/// UTF-8, bytes otherwise) and MIME type, read with the same confinement and
/// size limit as `read_file`.
pub(crate) fn read_resource(
    roots: &Confinement,
    limits: Limits,
    path: &str,
) -> Result<(ResourceBody, &'static str), ToolError> {
    let at = roots.locate_followed(path)?;
    let file = handles::open_read(&at)?.into_std();
    let max = limits.max_file_bytes;
    let mut bytes = Vec::new();
    file.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(ToolError::new(format!(
            "{path} has more than the {max} bytes a read returns; use read_file with a line range"
        )));
    }
    match String::from_utf8(bytes) {
        Ok(text) => Ok((ResourceBody::Text(text), mime_type(path))),
        Err(e) => {
            let bytes = e.into_bytes();
            let mime = infer::get(&bytes)
                .map(|t| t.mime_type())
                .or_else(|| media_type(path))
                .unwrap_or("application/octet-stream");
            Ok((ResourceBody::Blob(bytes), mime))
        }
    }
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
