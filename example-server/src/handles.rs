//! Opening files beneath a root: only regular files are read (writes replace
//! a file through `atomic`, which checks the kind the same way), and
//! the kind is checked on the opened handle, so a name swapped for a FIFO or a
//! device between a check and the open is still refused.
//!
//! Opens use `O_NONBLOCK`: opening a FIFO otherwise waits for the other end,
//! which would hold a worker thread for as long as nobody opens it. On a
//! regular file the flag changes nothing.

use std::io;

use cap_std::fs::{File, FileTypeExt, Metadata, OpenOptions, OpenOptionsExt};

use crate::confinement::Located;
use crate::path_error::{PathError, shown};

/// Flags for every open: do not wait on FIFOs, never become a controlling
/// terminal.
fn flags() -> i32 {
    let bits = (rustix::fs::OFlags::NONBLOCK | rustix::fs::OFlags::NOCTTY).bits();
    i32::try_from(bits).unwrap_or(0)
}

/// Why `meta` is not a regular file, if it is not one.
pub(crate) fn kind_problem(meta: &Metadata, given: &str) -> Option<PathError> {
    let t = meta.file_type();
    let what = if t.is_file() {
        return None;
    } else if t.is_dir() {
        return Some(PathError::new(format!("{given} is a directory")));
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else {
        "not a file"
    };
    Some(PathError::new(format!(
        "{} is {what}: only regular files are read or written",
        shown(given)
    )))
}

/// `ENXIO` is what a non-blocking open of a FIFO without a reader, or of a
/// socket, returns.
fn open_error(at: &Located<'_>, e: &io::Error) -> PathError {
    if e.raw_os_error() == Some(rustix::io::Errno::NXIO.raw_os_error()) {
        PathError::new(format!(
            "{} is not a regular file: only regular files are read or written",
            shown(at.given)
        ))
    } else {
        at.error(e)
    }
}

fn checked(at: &Located<'_>, options: &OpenOptions) -> Result<File, PathError> {
    // A final absolute link inside the root, followed by its text; the
    // kernel follows relative ones, beneath the root.
    let at = &at.final_followed();
    // Checked by name first so that a device is not even opened in the usual
    // case; the check on the handle below is the one that cannot be raced.
    match at.dir.metadata(&at.rel) {
        Ok(meta) => {
            if let Some(problem) = kind_problem(&meta, at.given) {
                return Err(problem);
            }
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(at.error(&e)),
    }
    let file = at
        .dir
        .open_with(&at.rel, options)
        .map_err(|e| open_error(at, &e))?;
    let meta = file.metadata().map_err(|e| at.error(&e))?;
    match kind_problem(&meta, at.given) {
        Some(problem) => Err(problem),
        None => Ok(file),
    }
}

/// An existing regular file, for reading.
pub(crate) fn open_read(at: &Located<'_>) -> Result<File, PathError> {
    checked(at, OpenOptions::new().read(true).custom_flags(flags()))
}
