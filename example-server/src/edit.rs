//! `edit_file`: several replacements in one call, applied in order to the
//! text as the previous ones left it, then written at once (`atomic`), with a
//! unified diff of the change in the result.
//!
//! Each old text must occur exactly once. Written as in the file, it is found
//! as it is; otherwise it is matched line by line with leading and trailing
//! whitespace ignored (what a model most often gets wrong), and the
//! replacement is re-indented to the file's indentation. An old text found
//! more than once is refused rather than replacing the first: a model that
//! meant another occurrence would change the wrong place without noticing.
//!
//! Unlike `replace_in_file`, whose `[confirm]` asks before every call, the
//! handler asks itself (as `write_file` does): a `dry_run` changes nothing
//! and so asks nothing, and the question can show the diff to be applied.
//! The edit is applied only if it still gives the diff the person saw.

use std::time::Duration;

use similar::TextDiff;
use toolmetadata::ToolError;

use crate::atomic;
use crate::confinement::Confinement;
use crate::handles;
use crate::limits::Limits;
use crate::path_error::shown;
use crate::tools::EditFileArgs;

/// Line comparisons a whitespace-tolerant search may make (file lines times
/// old text lines, in the worst case); beyond, it is refused.
const MAX_FUZZY_COMPARISONS: u64 = 50_000_000;
/// How long computing a diff may take before a coarser diff is accepted.
const DIFF_TIMEOUT: Duration = Duration::from_secs(5);

/// An edit computed against the file as it is now.
#[derive(Debug)]
pub(crate) struct Preview {
    /// The unified diff; empty when the edits change nothing.
    pub(crate) diff: String,
    /// The file's new text.
    new_text: String,
    /// The file the text was read from.
    read: atomic::FileId,
}

/// Computes the edits of `args` on the file, changing nothing.
pub(crate) fn preview(
    roots: &Confinement,
    limits: Limits,
    args: &EditFileArgs,
) -> Result<Preview, ToolError> {
    if args.old_texts.len() != args.new_texts.len() {
        return Err(ToolError::new(format!(
            "`old_texts` has {} items and `new_texts` {}: give one replacement per old text",
            args.old_texts.len(),
            args.new_texts.len()
        )));
    }
    let max = limits.max_file_bytes;
    let given: u128 = args
        .old_texts
        .iter()
        .chain(&args.new_texts)
        .map(|t| t.len() as u128)
        .sum();
    if given > u128::from(max) * 2 {
        return Err(ToolError::new(format!(
            "the edits hold {given} bytes of text, more than twice the {max} bytes edit_file edits; nothing was changed"
        )));
    }
    let at = roots.locate_followed(&args.path)?;
    let file = handles::open_read(&at)?;
    let meta = file.metadata()?;
    let read = atomic::FileId::of(&meta);
    let file = file.into_std();
    let size = meta.len();
    if size > max {
        return Err(ToolError::new(format!(
            "{} has {size} bytes, more than the {max} edit_file edits; nothing was changed",
            args.path
        )));
    }
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(
        &mut std::io::Read::take(file, max.saturating_add(1)),
        &mut bytes,
    )?;
    if bytes.len() as u64 > max {
        return Err(ToolError::new(format!(
            "{} grew past the {max} bytes edit_file edits; nothing was changed",
            args.path
        )));
    }
    let original = String::from_utf8(bytes).map_err(|_| {
        ToolError::new(format!(
            "cannot edit {}: it is not UTF-8 text; nothing was changed",
            args.path
        ))
    })?;
    let edits: Vec<(&str, &str)> = args
        .old_texts
        .iter()
        .map(String::as_str)
        .zip(args.new_texts.iter().map(String::as_str))
        .collect();
    let new_text = apply(&original, &edits, max).map_err(|e| {
        ToolError::new(format!(
            "{} in {}; nothing was changed",
            e,
            shown(&args.path)
        ))
    })?;
    let diff = if new_text == original {
        String::new()
    } else {
        TextDiff::configure()
            .timeout(DIFF_TIMEOUT)
            .diff_lines(&original, &new_text)
            .unified_diff()
            .context_radius(3)
            .header(&args.path, &args.path)
            .to_string()
    };
    Ok(Preview {
        diff,
        new_text,
        read,
    })
}

/// Computes the edits again and writes them, if they still give `expected`
/// (the diff the person confirmed), or any diff when `expected` is `None`.
pub(crate) fn apply_to_file(
    roots: &Confinement,
    limits: Limits,
    args: &EditFileArgs,
    expected: Option<&str>,
) -> Result<Preview, ToolError> {
    let preview = preview(roots, limits, args)?;
    if expected.is_some_and(|d| d != preview.diff) {
        return Err(ToolError::new(format!(
            "{} changed while the edit was being confirmed; nothing was changed: preview it again",
            args.path
        )));
    }
    if !preview.diff.is_empty() {
        let at = roots.locate_followed(&args.path)?;
        // Over the file that was read, not one swapped in since.
        atomic::replace(
            &at,
            atomic::Target::Read(preview.read),
            preview.new_text.as_bytes(),
        )?;
    }
    Ok(preview)
}

/// The result text: what was done and the diff, fenced with more backticks
/// than it holds in a row, cut to `max` bytes.
pub(crate) fn report(path: &str, edits: usize, dry_run: bool, diff: &str, max: usize) -> String {
    if diff.is_empty() {
        return format!("the edits leave {path} unchanged; nothing was written");
    }
    let what = if dry_run {
        format!("dry run: {edits} edit(s) would change {path} as below; nothing was written")
    } else {
        format!("applied {edits} edit(s) to {path}")
    };
    let shown = cut(diff, max);
    let mut fence = "```".to_owned();
    while shown.contains(fence.as_str()) {
        fence.push('`');
    }
    let note = if shown.len() < diff.len() {
        format!(
            "\n(diff cut at {} of its {} bytes)",
            shown.len(),
            diff.len()
        )
    } else {
        String::new()
    };
    format!("{what}\n{fence}diff\n{shown}{fence}{note}")
}

/// `text` cut to at most `max` bytes on a character boundary.
pub(crate) fn cut(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// Applies `edits` (old, new) in order to `original`; the result may not
/// pass `max` bytes. A file whose line ends are all CRLF is matched with LF
/// and written back with CRLF, so old texts match whichever the model used.
fn apply(original: &str, edits: &[(&str, &str)], max: u64) -> Result<String, String> {
    let crlf = original.contains("\r\n")
        && original.matches('\n').count() == original.matches("\r\n").count();
    let mut text = if crlf {
        original.replace("\r\n", "\n")
    } else {
        original.to_owned()
    };
    let mut budget = MAX_FUZZY_COMPARISONS;
    for (i, (old, new)) in edits.iter().enumerate() {
        let old = old.replace("\r\n", "\n");
        let new = new.replace("\r\n", "\n");
        if old.trim().is_empty() {
            return Err(format!(
                "`old_texts[{i}]` is empty or only whitespace: give the text to replace"
            ));
        }
        let next = match occurrences(&text, &old) {
            1 => {
                let len = (text.len() - old.len()) as u128 + new.len() as u128;
                check_size(i, len, max)?;
                text.replacen(old.as_str(), &new, 1)
            }
            0 => fuzzy(&text, &old, &new, i, max, &mut budget)?,
            _ => {
                return Err(format!(
                    "`old_texts[{i}]` occurs more than once; include more of the surrounding lines so that it occurs once"
                ));
            }
        };
        text = next;
    }
    Ok(if crlf {
        text.replace('\n', "\r\n")
    } else {
        text
    })
}

fn check_size(i: usize, len: u128, max: u64) -> Result<(), String> {
    if len > u128::from(max) {
        return Err(format!(
            "after `old_texts[{i}]` the file would have {len} bytes, more than the {max} edit_file writes"
        ));
    }
    Ok(())
}

/// The leading whitespace of `line`.
fn indent(line: &str) -> &str {
    &line[..line.len() - line.trim_start().len()]
}

/// How often `old` occurs in `text`: 0, 1, or 2 for "more than once",
/// overlapping occurrences counted (`aa` is twice in `aaa`), so that an
/// edit never picks one of two places silently.
fn occurrences(text: &str, old: &str) -> usize {
    let Some(first) = text.find(old) else {
        return 0;
    };
    let step = old.chars().next().map_or(1, char::len_utf8);
    if text[first + step..].contains(old) {
        2
    } else {
        1
    }
}

/// Replaces the one run of whole lines of `text` that equals `old` line by
/// line once leading and trailing whitespace are ignored; the lines of `new`
/// take the file's indentation in place of the old text's.
fn fuzzy(
    text: &str,
    old: &str,
    new: &str,
    i: usize,
    max: u64,
    budget: &mut u64,
) -> Result<String, String> {
    let old_lines: Vec<&str> = old.strip_suffix('\n').unwrap_or(old).split('\n').collect();
    let lines: Vec<&str> = text.split('\n').collect();
    let mut starts = Vec::new();
    if lines.len() >= old_lines.len() {
        for start in 0..=lines.len() - old_lines.len() {
            let mut all = true;
            for (j, o) in old_lines.iter().enumerate() {
                if *budget == 0 {
                    return Err(format!(
                        "`old_texts[{i}]` is not in the file as written, and the file is too large for a whitespace-tolerant search of that many lines; copy the text exactly"
                    ));
                }
                *budget -= 1;
                if lines[start + j].trim() != o.trim() {
                    all = false;
                    break;
                }
            }
            if all {
                starts.push(start);
                if starts.len() > 1 {
                    break;
                }
            }
        }
    }
    let start = match starts.as_slice() {
        [one] => *one,
        [] => {
            return Err(format!(
                "`old_texts[{i}]` was not found, not even ignoring leading and trailing whitespace on each line (it begins {:?})",
                cut(old_lines[0].trim(), 80)
            ));
        }
        _ => {
            return Err(format!(
                "`old_texts[{i}]` matches more than one place when whitespace is ignored; include more of the surrounding lines so that it matches once"
            ));
        }
    };
    // The first line with text sets the indentation that is swapped.
    let k = old_lines
        .iter()
        .position(|l| !l.trim().is_empty())
        .unwrap_or(0);
    let old_base = indent(old_lines[k]);
    let file_base = indent(lines[start + k]);
    let new_lines: Vec<String> = new
        .strip_suffix('\n')
        .unwrap_or(new)
        .split('\n')
        .map(|line| {
            if line.trim().is_empty() {
                String::new()
            } else if let Some(rest) = line.strip_prefix(old_base) {
                format!("{file_base}{rest}")
            } else {
                format!("{file_base}{}", line.trim_start())
            }
        })
        .collect();
    let replaced_len: usize = lines[start..start + old_lines.len()]
        .iter()
        .map(|l| l.len() + 1)
        .sum();
    let added: usize = new_lines.iter().map(|l| l.len() + 1).sum();
    check_size(
        i,
        (text.len() - replaced_len.min(text.len())) as u128 + added as u128,
        max,
    )?;
    let mut out: Vec<&str> = Vec::with_capacity(lines.len());
    out.extend_from_slice(&lines[..start]);
    out.extend(new_lines.iter().map(String::as_str));
    out.extend_from_slice(&lines[start + old_lines.len()..]);
    Ok(out.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlapping_occurrences_count_twice() {
        assert_eq!(occurrences("aaa", "aa"), 2);
        assert_eq!(occurrences("abc", "b"), 1);
        assert_eq!(occurrences("abc", "x"), 0);
        assert_eq!(occurrences("ééé", "éé"), 2);
    }

    const MAX: u64 = 1 << 20;

    #[test]
    fn exact_edits_apply_in_order() {
        let out = apply("a\nb\nc\n", &[("b", "B"), ("B\nc", "C")], MAX).expect("applies");
        assert_eq!(out, "a\nC\n");
    }

    #[test]
    fn whitespace_differences_are_tolerated_and_indentation_kept() {
        let file = "fn f() {\n    if x {\n        go();\n    }\n}\n";
        // The model dropped the indentation and added trailing spaces.
        let out = apply(
            file,
            &[("if x {  \ngo();\n}", "if y {\n    stop();\n    go();\n}")],
            MAX,
        )
        .expect("applies");
        assert_eq!(
            out,
            "fn f() {\n    if y {\n        stop();\n        go();\n    }\n}\n"
        );
    }

    #[test]
    fn tabs_of_the_file_are_kept() {
        let out = apply(
            "x\n\tone\n\ttwo\n",
            &[("  one\n  two", "  uno\n    dos")],
            MAX,
        )
        .expect("applies");
        assert_eq!(out, "x\n\tuno\n\t  dos\n");
    }

    #[test]
    fn ambiguous_missing_and_empty_old_texts_are_refused() {
        let e = apply("a\na\n", &[("a", "b")], MAX).unwrap_err();
        assert!(e.contains("occurs more than once"), "{e}");
        let e = apply(" a\n  a\n", &[("a \n", "b")], MAX).unwrap_err();
        assert!(e.contains("more than one place"), "{e}");
        let e = apply("a\n", &[("zzz", "b")], MAX).unwrap_err();
        assert!(e.contains("`old_texts[0]` was not found"), "{e}");
        let e = apply("a\n", &[("a", "b"), (" \n", "c")], MAX).unwrap_err();
        assert!(e.starts_with("`old_texts[1]` is empty"), "{e}");
    }

    #[test]
    fn crlf_files_stay_crlf() {
        let out = apply("a\r\nb\r\n", &[("a\nb", "x\ny")], MAX).expect("applies");
        assert_eq!(out, "x\r\ny\r\n");
    }

    #[test]
    fn results_past_the_limit_are_refused() {
        let e = apply("a\n", &[("a", &"b".repeat(100))], 50).unwrap_err();
        assert!(e.contains("more than the 50"), "{e}");
        let e = apply("  a\n", &[("a \n", &"b".repeat(100))], 50).unwrap_err();
        assert!(e.contains("more than the 50"), "{e}");
    }

    #[test]
    fn the_fuzzy_search_is_bounded() {
        // Every window matches until the last line: the worst case.
        let file = "a\n".repeat(20_000);
        let old = format!("{}z", " a\n".repeat(5_000));
        let e = apply(&file, &[(&old, "b")], MAX).unwrap_err();
        assert!(
            e.contains("too large for a whitespace-tolerant search"),
            "{e}"
        );
    }

    #[test]
    fn the_report_fences_the_diff_and_cuts_it() {
        let r = report("f", 1, true, "-```\n+x\n", 1000);
        assert!(r.starts_with("dry run: 1 edit(s) would change f"));
        assert!(r.contains("````diff\n-```\n+x\n````"), "{r}");
        let r = report("f", 1, false, &"+x\n".repeat(100), 30);
        assert!(r.ends_with("(diff cut at 30 of its 300 bytes)"), "{r}");
    }
}
