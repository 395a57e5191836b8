//! `read_file`: a page of a text file with line numbers (`N|text`), plus the file's line
//! count and size, so the model can page through it with `offset`/`limit`.
//!
//! Departure from upstream (reference §10 Q20): a file ending in a newline has as many lines
//! as newlines. Upstream shows a phantom empty line after the last one (`4|` for a
//! three-line file); we do not, and `total_lines` counts the same lines we show.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use serde_json::{Map, Value, json};

use super::lines::read_capped;
use super::reads::Stamp;
use super::{Workspace, args, paths};
use crate::pytext::thousands;

/// Lines per page when the model gives no `limit`, and the most it may ask for.
const DEFAULT_LIMIT: i64 = 500;
const MAX_LIMIT: i64 = 2000;
/// A longer line is cut (minified files would otherwise fill a page with one line).
const MAX_LINE_CHARS: usize = 2000;
/// Bytes kept of a line: enough for one character past the cut in any UTF-8.
const LINE_CAP_BYTES: usize = (MAX_LINE_CHARS + 1) * 4;
/// A page stops at the line that would take it past this many characters
/// (`file_read_max_chars`).
const MAX_PAGE_CHARS: usize = 100_000;
/// How much of the file's start is checked for NUL bytes.
const SNIFF_BYTES: usize = 8192;

const IMAGE_EXTENSIONS: [&str; 9] = [
    "png", "jpg", "jpeg", "gif", "webp", "bmp", "ico", "tiff", "tif",
];
const BINARY_EXTENSIONS: [&str; 24] = [
    "zip", "gz", "tgz", "bz2", "xz", "zst", "7z", "rar", "tar", "jar", "exe", "dll", "so", "dylib",
    "o", "a", "class", "pyc", "wasm", "pdf", "mp3", "mp4", "sqlite", "db",
];

pub fn read_file(ws: &mut Workspace, args: &Map<String, Value>) -> Value {
    let Some(given) = args::string(args, "path").filter(|p| !p.is_empty()) else {
        return failure("path is required".to_string(), 0);
    };
    let path = paths::resolve(ws.cwd(), given);
    if let Some(refusal) = super::refuse::sandbox_refusal(ws.sandbox(), given, &path, false) {
        return failure(refusal, 0);
    }
    let meta = match std::fs::metadata(&path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return failure(format!("File not found: {given}"), 0);
        }
        Err(e) => return failure(format!("Cannot read {given}: {e}"), 0),
    };
    if meta.is_dir() {
        return failure(
            format!("{given} is a directory; use search_files to list its files"),
            0,
        );
    }
    if !meta.is_file() {
        // A FIFO or a device would block the session or never end.
        return failure(
            format!("Refusing to read device or special file: {given}"),
            0,
        );
    }
    let size = meta.len();
    let ext = extension(&path);
    if IMAGE_EXTENSIONS.contains(&ext.as_str()) {
        let mut out = shape("", 0, size, false, true, true);
        out.insert(
            "error".into(),
            json!(format!(
                "{given} is an image; use vision_analyze to look at it"
            )),
        );
        return Value::Object(out);
    }

    let offset = args::int(args, "offset").unwrap_or(1).max(1);
    let limit = args::int(args, "limit")
        .unwrap_or(DEFAULT_LIMIT)
        .clamp(1, MAX_LIMIT);
    let stamp = Stamp {
        modified: meta.modified().ok(),
        size,
    };
    let region = (path.clone(), offset as u64, limit as u64);
    // Count only now, but undo nothing: a failed read below is a failure either way.
    let repeats = ws.reads.note(region, stamp);
    if repeats >= 3 {
        return json!({"error": format!(
            "BLOCKED: You have called read_file on this exact region {repeats} times and the file has not changed. Use the content you already have, or read a different offset."
        )});
    }
    if repeats == 2 {
        return json!({
            "status": "unchanged",
            "message": "This region of the file has not changed since your last read_file; the content you already have is current.",
            "path": given,
            "dedup": true,
            "content_returned": false,
        });
    }

    let file = match File::open(&path) {
        Ok(f) => f,
        Err(e) => return failure(format!("Cannot read {given}: {e}"), size),
    };
    let mut reader = BufReader::new(file);
    match is_binary(&mut reader, &ext) {
        Ok(false) => {}
        Ok(true) => {
            let mut out = shape("", 0, size, false, true, false);
            out.insert(
                "error".into(),
                json!(format!(
                    "{given} is a binary file ({} bytes); read_file shows text only",
                    thousands(size)
                )),
            );
            return Value::Object(out);
        }
        Err(e) => return failure(format!("Cannot read {given}: {e}"), size),
    }
    let page = match read_page(&mut reader, offset as u64, limit as u64) {
        Ok(p) => p,
        Err(e) => return failure(format!("Cannot read {given}: {e}"), size),
    };
    let truncated = page.next_line <= page.total_lines;
    let mut out = shape(
        &page.content,
        page.total_lines,
        size,
        truncated,
        false,
        false,
    );
    if truncated {
        out.insert("next_offset".into(), json!(page.next_line));
        out.insert(
            "hint".into(),
            json!(format!(
                "Showing lines {}-{} of {}. Call read_file with offset={} to continue.",
                offset,
                page.next_line - 1,
                page.total_lines,
                page.next_line
            )),
        );
    } else if offset as u64 > page.total_lines && page.total_lines > 0 {
        out.insert(
            "hint".into(),
            json!(format!(
                "offset {offset} is past the end of the file ({} lines)",
                page.total_lines
            )),
        );
    }
    Value::Object(out)
}

struct Page {
    content: String,
    total_lines: u64,
    /// The first line not shown (`total_lines + 1` when the page reached the end).
    next_line: u64,
}

/// Streams the file once: lines `offset..offset+limit` are formatted, all are counted.
fn read_page<R: BufRead>(reader: &mut R, offset: u64, limit: u64) -> std::io::Result<Page> {
    let mut content = String::new();
    let mut chars = 0usize;
    let mut total = 0u64;
    let mut next_line = offset;
    let mut full = false;
    let mut buf = Vec::new();
    loop {
        buf.clear();
        if read_capped(reader, &mut buf, LINE_CAP_BYTES)? == 0 {
            break;
        }
        total += 1;
        if full || total < offset || total >= offset + limit {
            continue;
        }
        let entry = numbered(total, &buf);
        let entry_chars = entry.chars().count() + usize::from(!content.is_empty());
        if chars + entry_chars > MAX_PAGE_CHARS && !content.is_empty() {
            full = true;
            continue;
        }
        if !content.is_empty() {
            content.push('\n');
        }
        content.push_str(&entry);
        chars += entry_chars;
        next_line = total + 1;
    }
    Ok(Page {
        content,
        total_lines: total,
        next_line,
    })
}

/// `N|text` for one raw line, its ending dropped and its length capped.
fn numbered(n: u64, raw: &[u8]) -> String {
    let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
    let text = String::from_utf8_lossy(raw);
    match text.char_indices().nth(MAX_LINE_CHARS) {
        Some((cut, _)) => format!("{n}|{}... [line truncated]", &text[..cut]),
        None => format!("{n}|{text}"),
    }
}

fn is_binary<R: BufRead>(reader: &mut R, ext: &str) -> std::io::Result<bool> {
    if BINARY_EXTENSIONS.contains(&ext) {
        return Ok(true);
    }
    // Peek without consuming: the page reader starts from the first byte. The first fill of
    // a `BufReader` holds its whole 8 KiB capacity for a regular file.
    let head = reader.fill_buf()?;
    let sniff = &head[..head.len().min(SNIFF_BYTES)];
    Ok(sniff.contains(&0))
}

fn extension(path: &Path) -> String {
    path.extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase()
}

fn shape(
    content: &str,
    total_lines: u64,
    size: u64,
    truncated: bool,
    is_binary: bool,
    is_image: bool,
) -> Map<String, Value> {
    let mut out = Map::new();
    out.insert("content".into(), json!(content));
    out.insert("total_lines".into(), json!(total_lines));
    out.insert("file_size".into(), json!(size));
    out.insert("truncated".into(), json!(truncated));
    out.insert("is_binary".into(), json!(is_binary));
    out.insert("is_image".into(), json!(is_image));
    out
}

fn failure(error: String, size: u64) -> Value {
    let mut out = shape("", 0, size, false, false, false);
    out.insert("error".into(), json!(error));
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::pyjson::tool_result;

    use crate::tools::testing::map;

    fn workspace() -> (tempfile::TempDir, Workspace) {
        crate::tools::testing::workspace(&[("a.txt", "alpha\nBETA\ngamma\n")])
    }

    fn read(ws: &mut Workspace, args: Value) -> String {
        tool_result(&read_file(ws, &map(args)))
    }

    #[test]
    fn numbered_lines_without_a_phantom_last_line() {
        let (_dir, mut ws) = workspace();
        assert_eq!(
            read(&mut ws, json!({"path": "a.txt"})),
            r#"{"content": "1|alpha\n2|BETA\n3|gamma", "total_lines": 3, "file_size": 17, "truncated": false, "is_binary": false, "is_image": false}"#
        );
    }

    #[test]
    fn a_missing_file_keeps_the_shape() {
        let (_dir, mut ws) = workspace();
        assert_eq!(
            read(&mut ws, json!({"path": "nope.txt"})),
            r#"{"content": "", "total_lines": 0, "file_size": 0, "truncated": false, "is_binary": false, "is_image": false, "error": "File not found: nope.txt"}"#
        );
    }

    #[test]
    fn offset_and_limit_page_with_a_hint() {
        let (_dir, mut ws) = workspace();
        assert_eq!(
            read(&mut ws, json!({"path": "a.txt", "offset": 2, "limit": 1})),
            r#"{"content": "2|BETA", "total_lines": 3, "file_size": 17, "truncated": true, "is_binary": false, "is_image": false, "next_offset": 3, "hint": "Showing lines 2-2 of 3. Call read_file with offset=3 to continue."}"#
        );
        // limit 0 is clamped to 1; the last line has no newline.
        std::fs::write(ws.cwd().join("b.txt"), "x\ny").expect("write");
        assert_eq!(
            read(&mut ws, json!({"path": "b.txt", "offset": 2, "limit": 0})),
            r#"{"content": "2|y", "total_lines": 2, "file_size": 3, "truncated": false, "is_binary": false, "is_image": false}"#
        );
    }

    #[test]
    fn a_line_of_four_byte_characters_is_cut_at_the_same_count() {
        let (_dir, mut ws) = workspace();
        let clef = '\u{1D11E}';
        let line: String = std::iter::repeat_n(clef, 2001).collect();
        std::fs::write(ws.cwd().join("wide.txt"), format!("{line}\n")).expect("write");
        let out = read_file(&mut ws, &map(json!({"path": "wide.txt"})));
        let kept: String = std::iter::repeat_n(clef, 2000).collect();
        assert_eq!(out["content"], format!("1|{kept}... [line truncated]"));
        std::fs::write(ws.cwd().join("exact.txt"), format!("{kept}\n")).expect("write");
        let out = read_file(&mut ws, &map(json!({"path": "exact.txt"})));
        assert_eq!(out["content"], format!("1|{kept}"));
    }

    #[test]
    fn a_path_below_a_file_cannot_be_read() {
        let (_dir, mut ws) = workspace();
        std::fs::write(ws.cwd().join("f.txt"), "x\n").expect("write");
        let out = read_file(&mut ws, &map(json!({"path": "f.txt/inner"})));
        assert_eq!(
            out["error"],
            "Cannot read f.txt/inner: Not a directory (os error 20)"
        );
    }

    #[test]
    fn long_lines_and_big_pages_are_cut() {
        let (_dir, mut ws) = workspace();
        let long = "x".repeat(2500);
        std::fs::write(ws.cwd().join("long.txt"), format!("{long}\nshort\n")).expect("write");
        let out = read_file(&mut ws, &map(json!({"path": "long.txt"})));
        assert_eq!(
            out["content"],
            format!("1|{}... [line truncated]\n2|short", "x".repeat(2000))
        );
        // 60 lines of 1,999 chars: each numbered line is about 2,002 chars, so the page
        // stops after 49 lines (100,000-char cap), on a line boundary.
        let body: String = (0..60).map(|_| format!("{}\n", "y".repeat(1999))).collect();
        std::fs::write(ws.cwd().join("big.txt"), body).expect("write");
        let out = read_file(&mut ws, &map(json!({"path": "big.txt"})));
        assert_eq!(out["truncated"], true);
        assert_eq!(out["next_offset"], 50);
        assert!(
            out["content"]
                .as_str()
                .unwrap_or("")
                .ends_with(&format!("49|{}", "y".repeat(1999)))
        );
    }

    #[test]
    fn binary_files_and_images_are_not_shown() {
        let (_dir, mut ws) = workspace();
        std::fs::write(ws.cwd().join("blob.bin"), b"ab\0cd").expect("write");
        assert_eq!(
            read(&mut ws, json!({"path": "blob.bin"})),
            r#"{"content": "", "total_lines": 0, "file_size": 5, "truncated": false, "is_binary": true, "is_image": false, "error": "blob.bin is a binary file (5 bytes); read_file shows text only"}"#
        );
        std::fs::write(ws.cwd().join("p.PNG"), b"\x89PNG").expect("write");
        let out = read_file(&mut ws, &map(json!({"path": "p.PNG"})));
        assert_eq!(out["is_image"], true);
        assert_eq!(out["content"], "");
    }

    #[test]
    fn rereading_an_unchanged_region_is_deduplicated_until_it_changes() {
        let (_dir, mut ws) = workspace();
        read(&mut ws, json!({"path": "a.txt"}));
        assert_eq!(
            read(&mut ws, json!({"path": "a.txt"})),
            r#"{"status": "unchanged", "message": "This region of the file has not changed since your last read_file; the content you already have is current.", "path": "a.txt", "dedup": true, "content_returned": false}"#
        );
        let third = read_file(&mut ws, &map(json!({"path": "a.txt"})));
        assert!(
            third["error"]
                .as_str()
                .unwrap_or("")
                .starts_with("BLOCKED: You have called read_file on this exact region 3 times")
        );
        std::fs::write(ws.cwd().join("a.txt"), "changed\n").expect("write");
        assert_eq!(
            read_file(&mut ws, &map(json!({"path": "a.txt"})))["content"],
            "1|changed"
        );
        ws.forget_reads();
        assert_eq!(
            read_file(&mut ws, &map(json!({"path": "a.txt"})))["content"],
            "1|changed"
        );
    }

    #[test]
    fn directories_and_empty_files() {
        let (_dir, mut ws) = workspace();
        std::fs::create_dir(ws.cwd().join("d")).expect("mkdir");
        let out = read_file(&mut ws, &map(json!({"path": "d"})));
        assert_eq!(
            out["error"],
            "d is a directory; use search_files to list its files"
        );
        std::fs::write(ws.cwd().join("empty"), "").expect("write");
        assert_eq!(
            read(&mut ws, json!({"path": "empty"})),
            r#"{"content": "", "total_lines": 0, "file_size": 0, "truncated": false, "is_binary": false, "is_image": false}"#
        );
    }

    #[test]
    fn the_path_is_required_and_special_files_refused() {
        let (_dir, mut ws) = workspace();
        assert_eq!(
            read_file(&mut ws, &map(json!({"path": ""})))["error"],
            "path is required"
        );
        assert_eq!(
            read_file(&mut ws, &map(json!({})))["error"],
            "path is required"
        );
        assert_eq!(
            read_file(&mut ws, &map(json!({"path": "/dev/null"})))["error"],
            "Refusing to read device or special file: /dev/null"
        );
        std::fs::write(ws.cwd().join("x.ZIP"), "text really").expect("write");
        let zipped = read_file(&mut ws, &map(json!({"path": "x.ZIP"})));
        assert_eq!(zipped["is_binary"], true);
        assert_eq!(
            zipped["error"],
            "x.ZIP is a binary file (11 bytes); read_file shows text only"
        );
    }

    #[test]
    fn an_offset_past_the_end_says_so_and_limits_are_clamped() {
        let (_dir, mut ws) = workspace();
        assert_eq!(
            read(&mut ws, json!({"path": "a.txt", "offset": 9})),
            r#"{"content": "", "total_lines": 3, "file_size": 17, "truncated": false, "is_binary": false, "is_image": false, "hint": "offset 9 is past the end of the file (3 lines)"}"#
        );
        assert_eq!(
            read(&mut ws, json!({"path": "a.txt", "offset": -5, "limit": 2})),
            r#"{"content": "1|alpha\n2|BETA", "total_lines": 3, "file_size": 17, "truncated": true, "is_binary": false, "is_image": false, "next_offset": 3, "hint": "Showing lines 1-2 of 3. Call read_file with offset=3 to continue."}"#
        );
        let body: String = (1..=2100).map(|i| format!("{i}\n")).collect();
        std::fs::write(ws.cwd().join("many.txt"), body).expect("write");
        let out = read_file(&mut ws, &map(json!({"path": "many.txt", "limit": 5000})));
        assert_eq!(out["next_offset"], 2001);
        let out = read_file(&mut ws, &map(json!({"path": "many.txt", "offset": 2})));
        assert_eq!(out["next_offset"], 502);
        // Exactly the last line: not truncated.
        let out = read_file(
            &mut ws,
            &map(json!({"path": "many.txt", "offset": 2100, "limit": 1})),
        );
        assert_eq!(
            (out["content"].as_str(), out["truncated"].as_bool()),
            (Some("2100|2100"), Some(false))
        );
    }

    #[test]
    fn a_page_fills_to_the_character_cap_exactly() {
        // Lines 1-49 of 1,997 characters: 9 entries of 1,999 (`N|`), 40 of 2,000, and 48
        // newlines make 98,039; line 50 of 1,957 (`50|` and the newline before it) brings the
        // page to exactly 100,000 characters. One character more and it waits.
        let page_of = |last: usize| {
            let mut text: String = (0..49).map(|_| format!("{}\n", "x".repeat(1997))).collect();
            text.push_str(&format!("{}\nafter\n", "y".repeat(last)));
            let mut reader = std::io::Cursor::new(text);
            match read_page(&mut reader, 1, 100) {
                Ok(p) => p,
                Err(e) => panic!("{e}"),
            }
        };
        let full = page_of(1957);
        assert_eq!(full.content.chars().count(), MAX_PAGE_CHARS);
        assert_eq!((full.total_lines, full.next_line), (51, 51));
        let over = page_of(1958);
        assert_eq!(over.content.chars().count(), 98_039);
        assert_eq!((over.total_lines, over.next_line), (51, 50));
        assert_eq!(numbered(7, b"x\r"), "7|x");
        assert_eq!(
            numbered(1, "é".repeat(2000).as_bytes()),
            format!("1|{}", "é".repeat(2000))
        );
    }
}
