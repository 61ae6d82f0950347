//! The bounds on the work one call may do and the reply it may send; set from
//! the command line.

/// Limits shared by the tools.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// Largest file read whole, and largest file `replace_in_file` reads or
    /// writes; also the most `read_file` returns for a range.
    pub(crate) max_file_bytes: u64,
    /// Most text a search, find, listing or tree reply carries.
    pub(crate) max_reply_bytes: usize,
    /// Longest matching line a search returns; longer ones are cut.
    pub(crate) max_line_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_file_bytes: 10 * 1024 * 1024,
            max_reply_bytes: 1024 * 1024,
            max_line_bytes: 1000,
        }
    }
}
