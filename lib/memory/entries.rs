//! The memory file format: entries joined by `"\n§\n"`, no trailing newline, read the way
//! Python Hermes reads it (text mode, so `\r\n` and `\r` are newlines; entries stripped of
//! Python whitespace; empty ones dropped; first occurrence of a repeated entry kept). Also the
//! numbers every answer prints: code-point counts, `{:,}` grouping and the percentage.

use crate::pytext::{strip, thousands};
use std::borrow::Cow;
use std::path::Path;

use super::MemoryError;
use crate::io::FileError;

/// What separates two entries in a memory file (`§` is U+00A7). A `§` without the newlines
/// around it is content.
pub const DELIMITER: &str = "\n§\n";

/// Code points in [`DELIMITER`].
const DELIMITER_CHARS: usize = 3;

/// Reads a memory file: `None` when it does not exist. Any other failure is an error, where
/// Python treats an unreadable file as empty and would then overwrite it.
pub fn read_bytes(path: &Path) -> Result<Option<Vec<u8>>, MemoryError> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(FileError::new("read", path, e).into()),
    }
}

/// The text of a memory file as Python's `read_text(encoding="utf-8")` returns it: strict
/// UTF-8 (a BOM stays part of the text), universal newlines.
pub fn decode(path: &Path, bytes: &[u8]) -> Result<String, MemoryError> {
    let text = std::str::from_utf8(bytes).map_err(|e| MemoryError::InvalidUtf8 {
        path: path.to_path_buf(),
        offset: e.valid_up_to(),
    })?;
    Ok(universal_newlines(text).into_owned())
}

/// `\r\n` and lone `\r` become `\n`, as Python's text mode reads them.
pub fn universal_newlines(text: &str) -> Cow<'_, str> {
    if !text.contains('\r') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('\r') {
        out.push_str(&rest[..at]);
        out.push('\n');
        rest = &rest[at + 1..];
        if let Some(after) = rest.strip_prefix('\n') {
            rest = after;
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// The entries of a file's text: split on the delimiter, stripped, empty ones dropped.
/// Repeated entries are kept (see [`dedupe`]).
pub fn parse(text: &str) -> Vec<String> {
    if strip(text).is_empty() {
        return Vec::new();
    }
    text.split(DELIMITER)
        .map(strip)
        .filter(|e| !e.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Keeps the first occurrence of each entry (exact text), in order.
pub fn dedupe(entries: Vec<String>) -> Vec<String> {
    let mut seen = std::collections::HashSet::with_capacity(entries.len());
    let mut out = Vec::with_capacity(entries.len());
    for entry in entries {
        if seen.insert(entry.clone()) {
            out.push(entry);
        }
    }
    out
}

/// What the store holds after reading a file: [`parse`] then [`dedupe`].
pub fn load(text: &str) -> Vec<String> {
    dedupe(parse(text))
}

/// The file contents for `entries`: joined by the delimiter, empty when there are none.
pub fn join<S: AsRef<str>>(entries: &[S]) -> String {
    let mut out = String::new();
    for (i, entry) in entries.iter().enumerate() {
        if i > 0 {
            out.push_str(DELIMITER);
        }
        out.push_str(entry.as_ref());
    }
    out
}

/// Code points of [`join`]`(entries)`: what a budget is measured in.
pub fn char_count<S: AsRef<str>>(entries: &[S]) -> usize {
    let chars: usize = entries.iter().map(|e| e.as_ref().chars().count()).sum();
    chars + DELIMITER_CHARS * entries.len().saturating_sub(1)
}

/// Whether the file's text is something the memory tool could not have written: rewriting
/// it from its parsed entries would change more than the file's outer whitespace, or one
/// entry alone is longer than the whole budget (free text appended by hand or by a shell).
pub fn is_drifted(text: &str, limit: i64) -> bool {
    let stripped = strip(text);
    if stripped.is_empty() {
        return false;
    }
    let parsed = parse(text);
    let longest = parsed.iter().map(|e| e.chars().count()).max().unwrap_or(0);
    stripped != join(&parsed) || i64::try_from(longest).unwrap_or(i64::MAX) > limit
}

/// `min(100, int(current / limit * 100))`, 0 for a limit ≤ 0: computed in floating point as
/// Python does, so 29 of 100 is 28 %.
pub fn percent(current: usize, limit: i64) -> i64 {
    if limit <= 0 {
        return 0;
    }
    let pct = (current as f64 / limit as f64) * 100.0;
    (pct as i64).min(100)
}

/// `"{pct}% — {current:,}/{limit:,} chars"`, as in success answers and prompt headers.
pub fn usage_line(current: usize, limit: i64) -> String {
    format!(
        "{}% — {}/{} chars",
        percent(current, limit),
        thousands(count(current)),
        thousands(limit)
    )
}

/// `"{current:,}/{limit:,}"`, as in error answers.
pub fn usage_short(current: usize, limit: i64) -> String {
    format!("{}/{}", thousands(count(current)), thousands(limit))
}

/// A count as a signed number for [`grouped`].
pub fn count(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// The first 80 code points of an entry, `...` appended when it was longer.
pub fn preview(entry: &str) -> String {
    const WIDTH: usize = 80;
    match entry.char_indices().nth(WIDTH) {
        Some((at, _)) => format!("{}...", &entry[..at]),
        None => entry.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_like_python() {
        assert_eq!(parse(""), Vec::<String>::new());
        assert_eq!(parse(" \n\t "), Vec::<String>::new());
        assert_eq!(parse("a \n§\nb\n§\n\n§\nc\n"), vec!["a", "b", "c"]);
        // A bare § is content, and so is "§ " on its own line.
        assert_eq!(parse("a§b\n§ \nc"), vec!["a§b\n§ \nc"]);
        assert_eq!(parse("a\n§\nb\n§ \nc"), vec!["a", "b\n§ \nc"]);
        // \x1c-\x1f are whitespace to Python's strip.
        assert_eq!(parse("\u{1c}x\u{1f}\n§\n\u{a0}y\u{3000}"), vec!["x", "y"]);
        // A BOM is not whitespace: it stays part of the first entry.
        assert_eq!(parse("\u{feff}a"), vec!["\u{feff}a"]);
    }

    #[test]
    fn load_keeps_first_of_repeated_entries() {
        assert_eq!(
            load("Name is Bob\n§\nName is Bob\n§\nx\n§\n  spaced  "),
            vec!["Name is Bob", "x", "spaced"]
        );
    }

    #[test]
    fn text_mode_newlines() {
        assert_eq!(universal_newlines("a\r\n§\r\nb\rc"), "a\n§\nb\nc");
        assert_eq!(parse(&universal_newlines("a\r\n§\r\nb")), vec!["a", "b"]);
        assert!(matches!(universal_newlines("plain"), Cow::Borrowed(_)));
    }

    #[test]
    fn invalid_utf8_names_the_offset() {
        let err = decode(Path::new("/h/memories/MEMORY.md"), b"ok\n\xff").expect_err("bad");
        assert_eq!(
            err.to_string(),
            "/h/memories/MEMORY.md: not valid UTF-8 (first bad byte at offset 3)"
        );
    }

    #[test]
    fn counts_code_points_of_the_joined_file() {
        assert_eq!(char_count::<&str>(&[]), 0);
        assert_eq!(char_count(&["é"]), 1);
        assert_eq!(char_count(&["User likes tea", "ab"]), 14 + 3 + 2);
        let entries = [
            "User likes green tea",
            "Project uses pytest",
            "Editor is helix",
        ];
        assert_eq!(char_count(&entries), join(&entries).chars().count());
    }

    #[test]
    fn drift_cases_of_the_reference() {
        assert!(is_drifted("a \n§\nb\n§\n\n§\nc\n", 2200));
        assert!(!is_drifted("a\n§\nb\n§ \nc", 2200));
        assert!(!is_drifted("a\n§\nb\n", 2200));
        assert!(!is_drifted("  \n", 2200));
        assert!(is_drifted(&"x".repeat(1400), 1375));
        assert!(!is_drifted(&"x".repeat(1375), 1375));
        // Repeated entries are not drift; they are dropped on the next write.
        assert!(!is_drifted("a\n§\na", 100));
    }

    #[test]
    fn numbers_as_python_prints_them() {
        assert_eq!(percent(29, 100), 28);
        assert_eq!(percent(57, 100), 56);
        assert_eq!(percent(14, 100), 14);
        assert_eq!(percent(3000, 2200), 100);
        assert_eq!(percent(5, 0), 0);
        assert_eq!(percent(5, -3), 0);
        assert_eq!(usage_line(167, 1375), "12% — 167/1,375 chars");
        assert_eq!(usage_short(2000, 2200), "2,000/2,200");
    }

    #[test]
    fn previews_cut_at_80_code_points() {
        assert_eq!(preview("short"), "short");
        let long = "é".repeat(81);
        assert_eq!(preview(&long), format!("{}...", "é".repeat(80)));
        assert_eq!(preview(&"x".repeat(80)), "x".repeat(80));
    }
}
