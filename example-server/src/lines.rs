//! Reading lines of a file with bounded memory: a range by streaming forward,
//! the last lines by reading backward from the end. Lines are split like
//! `str::lines` (on `\n`, a `\r` before it dropped) and joined with `\n`.

use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};

/// Why the lines could not be returned.
#[derive(Debug)]
pub(crate) enum LinesError {
    /// The selection holds more bytes than the limit.
    TooLong,
    /// Reading failed.
    Io(io::Error),
}

impl From<io::Error> for LinesError {
    fn from(e: io::Error) -> Self {
        LinesError::Io(e)
    }
}

/// Lines `from..to` (0-based, `to` exclusive, `None` for the end), at most
/// `max` bytes in all; lines before `from` are skipped without being kept.
pub(crate) fn range(
    file: impl Read,
    from: usize,
    to: Option<usize>,
    max: u64,
) -> Result<Vec<u8>, LinesError> {
    let max = usize::try_from(max).unwrap_or(usize::MAX);
    let mut reader = BufReader::with_capacity(64 * 1024, file);
    let mut out = Vec::new();
    let mut line = 0_usize;
    // Whether the current line has any byte yet (for a last line without `\n`).
    let mut started = false;
    loop {
        if to.is_some_and(|to| line >= to) {
            break;
        }
        let chunk = reader.fill_buf()?;
        if chunk.is_empty() {
            break;
        }
        let (part, ends_line) = match chunk.iter().position(|&b| b == b'\n') {
            Some(at) => (&chunk[..at], true),
            None => (chunk, false),
        };
        let used = part.len() + usize::from(ends_line);
        if line >= from {
            out.extend_from_slice(part);
            if out.len() > max {
                return Err(LinesError::TooLong);
            }
            if ends_line {
                if out.last() == Some(&b'\r') {
                    out.pop();
                }
                out.push(b'\n');
            }
        }
        started = !ends_line && (started || !part.is_empty());
        reader.consume(used);
        if ends_line {
            line += 1;
        }
    }
    if !started && out.last() == Some(&b'\n') {
        out.pop();
    }
    Ok(out)
}

/// The last `n` lines of a file of `size` bytes, at most `max` bytes.
pub(crate) fn tail(
    mut file: impl Read + Seek,
    size: u64,
    n: usize,
    max: u64,
) -> Result<Vec<u8>, LinesError> {
    const CHUNK: u64 = 64 * 1024;
    let mut chunks: Vec<Vec<u8>> = Vec::new();
    let mut pos = size;
    let mut held: u64 = 0;
    let mut newlines = 0_usize;
    // Enough once `n` line ends are held besides the file's final one: the
    // text after each is a whole line, the text before the first is cut.
    let mut final_newline = false;
    while pos > 0 && newlines.saturating_sub(usize::from(final_newline)) < n {
        if held > max.saturating_add(CHUNK) {
            return Err(LinesError::TooLong);
        }
        let step = CHUNK.min(pos);
        pos -= step;
        file.seek(SeekFrom::Start(pos))?;
        let mut chunk = vec![0; usize::try_from(step).unwrap_or(0)];
        file.read_exact(&mut chunk)?;
        if chunks.is_empty() {
            final_newline = chunk.last() == Some(&b'\n');
        }
        newlines += chunk.iter().filter(|&&b| b == b'\n').count();
        held += step;
        chunks.push(chunk);
    }
    let region: Vec<u8> = chunks.into_iter().rev().flatten().collect();
    let mut lines: Vec<&[u8]> = region.split(|&b| b == b'\n').collect();
    if region.last() == Some(&b'\n') {
        lines.pop();
    }
    if pos > 0 && !lines.is_empty() {
        // Cut by the chunk boundary, and not asked for.
        lines.remove(0);
    }
    let skip = lines.len().saturating_sub(n);
    let mut out = Vec::new();
    for (i, line) in lines[skip..].iter().enumerate() {
        if i > 0 {
            out.push(b'\n');
        }
        out.extend_from_slice(line.strip_suffix(b"\r").unwrap_or(line));
        if out.len() as u64 > max {
            return Err(LinesError::TooLong);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    fn lines_of(text: &str) -> Vec<&str> {
        text.lines().collect()
    }

    #[test]
    fn ranges_and_tails_match_str_lines() {
        for text in [
            "",
            "\n",
            "a",
            "a\n",
            "a\nb",
            "a\r\nb\r\n",
            "one\ntwo\nthree\nfour\nfive\n",
            "x\n\n\ny\n",
        ] {
            let all = lines_of(text);
            for from in 0..=all.len() + 1 {
                for to in from..=all.len() + 1 {
                    let got = range(text.as_bytes(), from, Some(to), 1000).unwrap();
                    let want = all[from.min(all.len())..to.min(all.len())].join("\n");
                    assert_eq!(
                        String::from_utf8(got).unwrap(),
                        want,
                        "{text:?} {from}..{to}"
                    );
                }
            }
            for n in 1..=all.len() + 1 {
                let got = tail(Cursor::new(text.as_bytes()), text.len() as u64, n, 1000).unwrap();
                let want = all[all.len().saturating_sub(n)..].join("\n");
                assert_eq!(String::from_utf8(got).unwrap(), want, "{text:?} tail {n}");
            }
        }
    }

    #[test]
    fn tails_cross_chunk_boundaries() {
        let text: String = (0..50_000).map(|i| format!("line {i}\n")).collect();
        let got = tail(Cursor::new(text.as_bytes()), text.len() as u64, 3, 1000).unwrap();
        assert_eq!(got, b"line 49997\nline 49998\nline 49999");
        let all = lines_of(&text);
        let got = tail(
            Cursor::new(text.as_bytes()),
            text.len() as u64,
            20_000,
            10_000_000,
        )
        .unwrap();
        assert_eq!(String::from_utf8(got).unwrap(), all[30_000..].join("\n"));
    }

    #[test]
    fn long_selections_are_refused_not_buffered() {
        let text = "x".repeat(100_000);
        assert!(matches!(
            range(text.as_bytes(), 0, Some(1), 1000),
            Err(LinesError::TooLong)
        ));
        assert!(matches!(
            tail(Cursor::new(text.as_bytes()), 100_000, 1, 1000),
            Err(LinesError::TooLong)
        ));
        // Lines before the range cost no memory, however long.
        let text = format!("{}\nshort\n", "y".repeat(1_000_000));
        assert_eq!(range(text.as_bytes(), 1, Some(2), 10).unwrap(), b"short");
    }
}
