//! `search_files`: regex search of file contents, or glob search of file names, in-process.
//!
//! Hidden files and directories below the start directory are skipped, as ripgrep skips
//! them, and so is what ignore files list (see `ignore`); the start directory itself is
//! searched even when its own name is hidden or is `.` (upstream's grep fallback excluded
//! `.` itself and found nothing, reference §10 Q6).
//! Files holding a NUL byte in their first 8 KiB count as binary and are not searched.
//! Results come in path order, so the same tree always pages the same way.
//!
//! Answers: content `{"total_count", "matches": [{"path", "line", "content"}]}`, where with
//! `context` > 0 each match also carries `"before"` and `"after"` arrays of its neighbouring
//! lines (our shape: upstream's context lines are not pinned by the reference);
//! `files_only` and file-name search `{"total_count", "files": [...]}`; `count`
//! `{"total_count", "counts": {path: n}}`; nothing found `{"total_count": 0}`.
//! `total_count` counts everything found; `offset`/`limit` page the list.
//!
//! Paths are shown as ripgrep shows them: under the given directory (`src/a.rs` for
//! `path="src"`), without a leading `./` for content results when searching `.`, and with it
//! for file-name results (`./notes/a.txt`), as upstream's answers have them.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use globset::{GlobBuilder, GlobMatcher};
use regex::Regex;
use serde_json::{Map, Value, json};
use walkdir::WalkDir;

use super::ignore::Ignores;
use super::lines::read_capped;
use super::{Workspace, args, paths};

const DEFAULT_LIMIT: i64 = 50;
/// A matched line longer than this is cut (minified files).
const MAX_LINE_CHARS: usize = 500;
const SNIFF_BYTES: usize = 8192;
/// Bytes of a line searched; the rest of a longer one (a minified bundle) is not.
const LINE_CAP_BYTES: usize = 1 << 20;

pub fn search_files(ws: &mut Workspace, args: &Map<String, Value>) -> Value {
    let Some(pattern) = args::string(args, "pattern").filter(|p| !p.is_empty()) else {
        return json!({"error": "pattern is required"});
    };
    let given = args::string(args, "path")
        .filter(|p| !p.is_empty())
        .unwrap_or(".");
    let root = paths::resolve(ws.cwd(), given);
    if let Some(refusal) = super::refuse::sandbox_refusal(ws.sandbox(), given, &root, false) {
        return json!({ "error": refusal });
    }
    if !root.exists() {
        return json!({"error": format!("Path not found: {given}")});
    }
    let limit = usize::try_from(args::int(args, "limit").unwrap_or(DEFAULT_LIMIT).max(1))
        .unwrap_or(usize::MAX);
    let offset = usize::try_from(args::int(args, "offset").unwrap_or(0).max(0)).unwrap_or(0);
    let page = Page { offset, limit };
    match args::string(args, "target").unwrap_or("content") {
        "files" => {
            let glob = match glob(pattern) {
                Ok(g) => g,
                Err(e) => return json!({"error": e}),
            };
            let found: Vec<String> = walk(&root)
                .filter(|rel| glob_matches(&glob, pattern, rel))
                .map(|rel| show(given, &rel, true))
                .collect();
            listing(found.len(), "files", page.take(found))
        }
        "content" => {
            let re = match Regex::new(pattern) {
                Ok(re) => re,
                Err(e) => return json!({"error": format!("Invalid regex pattern: {e}")}),
            };
            let filter = match args::string(args, "file_glob").filter(|g| !g.is_empty()) {
                Some(g) => match glob(g) {
                    Ok(m) => Some((m, g)),
                    Err(e) => return json!({"error": e}),
                },
                None => None,
            };
            let context =
                usize::try_from(args::int(args, "context").unwrap_or(0).clamp(0, 50)).unwrap_or(0);
            let mode = args::string(args, "output_mode").unwrap_or("content");
            let files = walk(&root).filter(|rel| {
                filter
                    .as_ref()
                    .is_none_or(|(m, text)| glob_matches(m, text, rel))
            });
            grep(&root, given, files, &re, context, mode, page)
        }
        other => json!({"error": format!("Unknown target '{other}': use 'content' or 'files'")}),
    }
}

#[derive(Clone, Copy)]
struct Page {
    offset: usize,
    limit: usize,
}

impl Page {
    fn take<T>(self, items: Vec<T>) -> Vec<T> {
        items
            .into_iter()
            .skip(self.offset)
            .take(self.limit)
            .collect()
    }
}

/// `{"total_count": n, key: items}`, or just `{"total_count": 0}` when nothing matched.
fn listing(total: usize, key: &str, items: Vec<String>) -> Value {
    let mut out = Map::new();
    out.insert("total_count".into(), json!(total));
    if total > 0 {
        out.insert(key.into(), json!(items));
    }
    Value::Object(out)
}

fn grep(
    root: &Path,
    given: &str,
    files: impl Iterator<Item = String>,
    re: &Regex,
    context: usize,
    mode: &str,
    page: Page,
) -> Value {
    let mut matches: Vec<Value> = Vec::new();
    let mut counts: Vec<(String, usize)> = Vec::new();
    let mut total = 0usize;
    for rel in files {
        let full = if rel.is_empty() {
            root.to_path_buf()
        } else {
            root.join(&rel)
        };
        let Some(lines) = text_lines(&full) else {
            continue;
        };
        let shown = show(given, &rel, false);
        let mut here = 0usize;
        for (i, line) in lines.iter().enumerate() {
            if !re.is_match(line) {
                continue;
            }
            here += 1;
            if mode == "content" {
                let mut m = Map::new();
                m.insert("path".into(), json!(shown));
                m.insert("line".into(), json!(i + 1));
                m.insert("content".into(), json!(cut(line)));
                if context > 0 {
                    let before = &lines[i.saturating_sub(context)..i];
                    let after = &lines[i + 1..(i + 1 + context).min(lines.len())];
                    m.insert(
                        "before".into(),
                        json!(before.iter().map(|l| cut(l)).collect::<Vec<_>>()),
                    );
                    m.insert(
                        "after".into(),
                        json!(after.iter().map(|l| cut(l)).collect::<Vec<_>>()),
                    );
                }
                matches.push(Value::Object(m));
            }
        }
        if here > 0 {
            total += here;
            counts.push((shown, here));
        }
    }
    match mode {
        "files_only" => {
            let files: Vec<String> = counts.into_iter().map(|(p, _)| p).collect();
            listing(files.len(), "files", page.take(files))
        }
        "count" => {
            let mut out = Map::new();
            out.insert("total_count".into(), json!(total));
            if total > 0 {
                let per_file: Map<String, Value> = page
                    .take(counts)
                    .into_iter()
                    .map(|(p, n)| (p, json!(n)))
                    .collect();
                out.insert("counts".into(), Value::Object(per_file));
            }
            Value::Object(out)
        }
        _ => {
            let mut out = Map::new();
            out.insert("total_count".into(), json!(total));
            if total > 0 {
                out.insert("matches".into(), Value::Array(page.take(matches)));
            }
            Value::Object(out)
        }
    }
}

/// The relative paths of the regular files under `root` (just `""` when `root` is a file),
/// hidden and ignored entries below `root` left out, in path order. The root itself is
/// searched whatever its name, as a path given explicitly is.
fn walk(root: &Path) -> impl Iterator<Item = String> + '_ {
    let mut ignores = Ignores::new(root);
    WalkDir::new(root)
        .follow_links(false)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(move |e| {
            e.depth() == 0
                || !(e.file_name().to_string_lossy().starts_with('.')
                    || ignores.is_ignored(e.path(), e.file_type().is_dir()))
        })
        // Unreadable directories are skipped, as ripgrep skips them.
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .filter_map(move |e| {
            let rel = e.path().strip_prefix(root).ok()?;
            Some(rel.to_string_lossy().into_owned())
        })
}

/// How a result path is shown: under the directory as given.
fn show(given: &str, rel: &str, dot_prefix: bool) -> String {
    if rel.is_empty() {
        return given.to_string();
    }
    let base = given.trim_end_matches('/');
    if base == "." || base.is_empty() {
        if dot_prefix {
            format!("./{rel}")
        } else {
            rel.to_string()
        }
    } else {
        format!("{base}/{rel}")
    }
}

fn glob(pattern: &str) -> Result<GlobMatcher, String> {
    GlobBuilder::new(pattern)
        .literal_separator(false)
        .build()
        .map(|g| g.compile_matcher())
        .map_err(|e| format!("Invalid glob pattern: {e}"))
}

/// A glob without a `/` matches the file name, one with a `/` the path below the root.
fn glob_matches(glob: &GlobMatcher, text: &str, rel: &str) -> bool {
    if text.contains('/') {
        glob.is_match(rel)
    } else {
        let name = Path::new(rel)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        glob.is_match(name)
    }
}

/// The lines of a text file, or `None` for a binary or unreadable one.
fn text_lines(path: &Path) -> Option<Vec<String>> {
    let file = File::open(path).ok()?;
    let mut reader = BufReader::new(file);
    let head = reader.fill_buf().ok()?;
    if head[..head.len().min(SNIFF_BYTES)].contains(&0) {
        return None;
    }
    let mut lines = Vec::new();
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match read_capped(&mut reader, &mut buf, LINE_CAP_BYTES) {
            Ok(0) => break,
            Ok(_) => {
                let raw = buf.strip_suffix(b"\r").unwrap_or(&buf);
                lines.push(String::from_utf8_lossy(raw).into_owned());
            }
            Err(_) => return None,
        }
    }
    Some(lines)
}

fn cut(line: &str) -> String {
    match line.char_indices().nth(MAX_LINE_CHARS) {
        Some((at, _)) => format!("{}...", &line[..at]),
        None => line.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::pyjson::tool_result;

    use crate::tools::testing::{map, workspace};

    fn tree() -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().join(".project");
        for (rel, text) in [
            ("notes/a.txt", "alpha\nBETA\ngamma\n"),
            ("notes/b.md", "beta\nBETA again\n"),
            (".git/config", "BETA hidden\n"),
            ("src/.cache/x.txt", "BETA hidden\n"),
            ("bin/blob", "BETA\0binary"),
            (".ignore", "skipped/\n"),
            ("skipped/a.txt", "BETA ignored\n"),
        ] {
            let p = root.join(rel);
            std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
            std::fs::write(&p, text).expect("write");
        }
        let ws = Workspace::new(root, dir.path().join("hh"));
        (dir, ws)
    }

    #[test]
    fn content_search_from_a_hidden_start_dir_skips_hidden_below() {
        let (_dir, mut ws) = tree();
        assert_eq!(
            tool_result(&search_files(
                &mut ws,
                &map(json!({"pattern": "BETA", "file_glob": "*.txt"}))
            )),
            r#"{"total_count": 1, "matches": [{"path": "notes/a.txt", "line": 2, "content": "BETA"}]}"#
        );
        assert_eq!(
            tool_result(&search_files(&mut ws, &map(json!({"pattern": "^BETA"})))),
            r#"{"total_count": 2, "matches": [{"path": "notes/a.txt", "line": 2, "content": "BETA"}, {"path": "notes/b.md", "line": 2, "content": "BETA again"}]}"#
        );
    }

    #[test]
    fn file_search_lists_dot_prefixed_paths() {
        let (_dir, mut ws) = tree();
        assert_eq!(
            tool_result(&search_files(
                &mut ws,
                &map(json!({"pattern": "*.txt", "target": "files"}))
            )),
            r#"{"total_count": 1, "files": ["./notes/a.txt"]}"#
        );
        assert_eq!(
            tool_result(&search_files(
                &mut ws,
                &map(
                    json!({"pattern": "*", "target": "files", "path": "notes", "limit": 1, "offset": 1})
                )
            )),
            r#"{"total_count": 2, "files": ["notes/b.md"]}"#
        );
    }

    #[test]
    fn nothing_found_is_just_a_zero_count() {
        let (_dir, mut ws) = tree();
        assert_eq!(
            tool_result(&search_files(&mut ws, &map(json!({"pattern": "nowhere"})))),
            r#"{"total_count": 0}"#
        );
    }

    #[test]
    fn output_modes_context_and_paging() {
        let (_dir, mut ws) = tree();
        assert_eq!(
            tool_result(&search_files(
                &mut ws,
                &map(json!({"pattern": "(?i)beta", "output_mode": "files_only"}))
            )),
            r#"{"total_count": 2, "files": ["notes/a.txt", "notes/b.md"]}"#
        );
        assert_eq!(
            tool_result(&search_files(
                &mut ws,
                &map(json!({"pattern": "(?i)beta", "output_mode": "count"}))
            )),
            r#"{"total_count": 3, "counts": {"notes/a.txt": 1, "notes/b.md": 2}}"#
        );
        assert_eq!(
            tool_result(&search_files(
                &mut ws,
                &map(json!({"pattern": "BETA", "path": "notes/a.txt", "context": 1}))
            )),
            r#"{"total_count": 1, "matches": [{"path": "notes/a.txt", "line": 2, "content": "BETA", "before": ["alpha"], "after": ["gamma"]}]}"#
        );
        assert_eq!(
            tool_result(&search_files(
                &mut ws,
                &map(json!({"pattern": "(?i)beta", "offset": 2}))
            )),
            r#"{"total_count": 3, "matches": [{"path": "notes/b.md", "line": 2, "content": "BETA again"}]}"#
        );
    }

    #[test]
    fn bad_input_is_named() {
        let (_dir, mut ws) = tree();
        assert_eq!(
            search_files(&mut ws, &map(json!({"pattern": "("}))),
            json!({"error": "Invalid regex pattern: regex parse error:\n    (\n    ^\nerror: unclosed group"})
        );
        assert_eq!(
            search_files(&mut ws, &map(json!({"pattern": "x", "path": "nope"}))),
            json!({"error": "Path not found: nope"})
        );
    }

    fn search(ws: &mut Workspace, args: Value) -> String {
        tool_result(&search_files(ws, &map(args)))
    }

    #[test]
    fn more_bad_input_is_named() {
        let (_dir, mut ws) = tree();
        assert_eq!(
            search(&mut ws, json!({})),
            r#"{"error": "pattern is required"}"#
        );
        assert_eq!(
            search(&mut ws, json!({"pattern": ""})),
            r#"{"error": "pattern is required"}"#
        );
        assert_eq!(
            search(&mut ws, json!({"pattern": "x", "target": "dirs"})),
            r#"{"error": "Unknown target 'dirs': use 'content' or 'files'"}"#
        );
        let bad_glob = search(&mut ws, json!({"pattern": "a[", "target": "files"}));
        assert!(
            bad_glob.starts_with(r#"{"error": "Invalid glob pattern: "#),
            "{bad_glob}"
        );
        let bad_filter = search(&mut ws, json!({"pattern": "x", "file_glob": "a["}));
        assert!(
            bad_filter.starts_with(r#"{"error": "Invalid glob pattern: "#),
            "{bad_filter}"
        );
        // An empty path or filter is no path or filter.
        assert_eq!(
            search(
                &mut ws,
                json!({"pattern": "gamma", "path": "", "file_glob": ""})
            ),
            r#"{"total_count": 1, "matches": [{"path": "notes/a.txt", "line": 3, "content": "gamma"}]}"#
        );
    }

    #[test]
    fn a_glob_with_a_slash_matches_the_path_and_paging_has_a_floor() {
        let (_dir, mut ws) = tree();
        assert_eq!(
            search(&mut ws, json!({"pattern": "notes/*.md", "target": "files"})),
            r#"{"total_count": 1, "files": ["./notes/b.md"]}"#
        );
        assert_eq!(
            search(
                &mut ws,
                json!({"pattern": "BETA", "file_glob": "notes/*.txt"})
            ),
            r#"{"total_count": 1, "matches": [{"path": "notes/a.txt", "line": 2, "content": "BETA"}]}"#
        );
        // limit below one is one; a negative offset is none.
        assert_eq!(
            search(
                &mut ws,
                json!({"pattern": "*", "target": "files", "limit": 0, "offset": -4})
            ),
            r#"{"total_count": 3, "files": ["./bin/blob"]}"#
        );
        assert_eq!(
            search(
                &mut ws,
                json!({"pattern": "(?i)beta", "output_mode": "count", "offset": 1})
            ),
            r#"{"total_count": 3, "counts": {"notes/b.md": 2}}"#
        );
        assert_eq!(
            search(
                &mut ws,
                json!({"pattern": "(?i)beta", "output_mode": "files_only", "limit": 1})
            ),
            r#"{"total_count": 2, "files": ["notes/a.txt"]}"#
        );
        assert_eq!(
            search(
                &mut ws,
                json!({"pattern": "nowhere", "output_mode": "count"})
            ),
            r#"{"total_count": 0}"#
        );
        assert_eq!(
            search(&mut ws, json!({"pattern": "nowhere", "target": "files"})),
            r#"{"total_count": 0}"#
        );
        // Files searched without a match are not listed.
        assert_eq!(
            search(
                &mut ws,
                json!({"pattern": "nowhere", "output_mode": "files_only"})
            ),
            r#"{"total_count": 0}"#
        );
    }

    #[test]
    fn context_stops_at_the_file_edges_and_is_capped() {
        let (_dir, mut ws) = workspace(&[("f.txt", "1\n2\n3\n4\n5\n")]);
        assert_eq!(
            search(&mut ws, json!({"pattern": "^[15]$", "context": 2})),
            r#"{"total_count": 2, "matches": [{"path": "f.txt", "line": 1, "content": "1", "before": [], "after": ["2", "3"]}, {"path": "f.txt", "line": 5, "content": "5", "before": ["3", "4"], "after": []}]}"#
        );
        let capped = search(&mut ws, json!({"pattern": "^1$", "context": 999}));
        assert!(
            capped.contains(r#""after": ["2", "3", "4", "5"]"#),
            "{capped}"
        );
        assert_eq!(
            search(&mut ws, json!({"pattern": "^3$", "context": -2})),
            r#"{"total_count": 1, "matches": [{"path": "f.txt", "line": 3, "content": "3"}]}"#
        );
    }

    #[test]
    fn long_lines_are_cut_and_crlf_endings_dropped() {
        let long = format!("{}é{}\r\nnext\n", "x".repeat(499), "y".repeat(10));
        let (_dir, mut ws) = workspace(&[("long.txt", &long), ("crlf.txt", "a\r\nb\r\n")]);
        let found = search_files(&mut ws, &map(json!({"pattern": "y", "path": "long.txt"})));
        let content = found["matches"][0]["content"].as_str().unwrap_or("");
        assert_eq!(content, format!("{}é...", "x".repeat(499)));
        assert_eq!(found["matches"][0]["path"], "long.txt");
        assert_eq!(
            search(&mut ws, json!({"pattern": "b$", "path": "crlf.txt"})),
            r#"{"total_count": 1, "matches": [{"path": "crlf.txt", "line": 2, "content": "b"}]}"#
        );
        assert_eq!(cut("short"), "short");
        assert_eq!(cut(&"z".repeat(500)), "z".repeat(500));
    }

    #[test]
    fn paths_are_shown_under_the_directory_as_given() {
        assert_eq!(show("src", "a.rs", false), "src/a.rs");
        assert_eq!(show("src/", "a.rs", true), "src/a.rs");
        assert_eq!(show(".", "a.rs", false), "a.rs");
        assert_eq!(show("./", "a.rs", true), "./a.rs");
        assert_eq!(show("", "a.rs", false), "a.rs");
        assert_eq!(show("f.txt", "", true), "f.txt");
    }

    #[test]
    fn a_nul_past_the_sniffed_bytes_does_not_make_a_file_binary() {
        let late = format!("{}\nNEEDLE\0\n", "a".repeat(SNIFF_BYTES));
        let early = format!("{}\0NEEDLE\n", "a".repeat(SNIFF_BYTES - 1));
        let (_dir, mut ws) = workspace(&[("late.txt", &late), ("early.txt", &early)]);
        let found = search_files(
            &mut ws,
            &map(json!({"pattern": "NEEDLE", "output_mode": "files_only"})),
        );
        assert_eq!(found, json!({"total_count": 1, "files": ["late.txt"]}));
    }
}
