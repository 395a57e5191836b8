//! The find-and-replace behind `skill_manage(action="patch")`: Hermes's chain of nine
//! matching strategies, tried in order until one finds the old text — exact, line-trimmed,
//! whitespace-normalised, indentation-flexible, escape-normalised, trimmed-boundary,
//! unicode-normalised, block-anchor, context-aware — with the same guards on the
//! replacement (escape drift, `\t`/`\r` unescaping, re-indentation, keeping the file's
//! typographic characters). A model's patch succeeds or fails here exactly as it would in
//! Hermes, with the same error text.
//!
//! Positions are character offsets, as in Python.

use super::difflib::{SequenceMatcher, Tag, ratio};
use crate::pytext::is_space;

type Span = (usize, usize);

/// A successful replacement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replaced {
    pub content: String,
    pub count: usize,
    pub strategy: &'static str,
    /// Each match in the original text: its 1-based first line and the text matched.
    pub matched: Vec<(usize, String)>,
}

impl Replaced {
    /// Whether the old text was found as written (`exact`), not approximately.
    pub fn is_exact(&self) -> bool {
        self.strategy == "exact"
    }
}

/// Why no replacement was made (Hermes's message, plus the match count for the hint).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoMatch {
    pub message: String,
}

/// `fuzzy_find_and_replace(content, old, new, replace_all)`.
pub fn find_and_replace(
    content: &str,
    old: &str,
    new: &str,
    replace_all: bool,
) -> Result<Replaced, NoMatch> {
    find_and_replace_with(content, old, new, replace_all, false)
}

/// [`find_and_replace`]; with `exact_only`, only the exact strategy is tried (a person's
/// `patch --exact`: an approximate match may land on a different line).
pub fn find_and_replace_with(
    content: &str,
    old: &str,
    new: &str,
    replace_all: bool,
    exact_only: bool,
) -> Result<Replaced, NoMatch> {
    let fail = |m: &str| {
        Err(NoMatch {
            message: m.to_string(),
        })
    };
    if old.is_empty() {
        return fail("old_string cannot be empty");
    }
    if old == new {
        return fail("old_string and new_string are identical");
    }
    let c: Vec<char> = content.chars().collect();
    let p: Vec<char> = old.chars().collect();
    type Strategy = fn(&[char], &[char]) -> Vec<Span>;
    let strategies: [(&'static str, Strategy); 9] = [
        ("exact", exact),
        ("line_trimmed", line_trimmed),
        ("whitespace_normalized", whitespace_normalized),
        ("indentation_flexible", indentation_flexible),
        ("escape_normalized", escape_normalized),
        ("trimmed_boundary", trimmed_boundary),
        ("unicode_normalized", unicode_normalized),
        ("block_anchor", block_anchor),
        ("context_aware", context_aware),
    ];
    let tried = if exact_only { 1 } else { strategies.len() };
    for (name, strategy) in strategies.into_iter().take(tried) {
        let matches = strategy(&c, &p);
        if matches.is_empty() {
            continue;
        }
        if matches.len() > 1 && !replace_all {
            return Err(NoMatch {
                message: format!(
                    "Found {} matches for old_string. Provide more context to make it unique, or use replace_all=True.",
                    matches.len()
                ),
            });
        }
        if name != "exact"
            && let Some(message) = escape_drift(&c, &matches, old, new)
        {
            return Err(NoMatch { message });
        }
        let mut effective: Vec<char> = unescape_new(new, &c, &matches).chars().collect();
        if name == "unicode_normalized" {
            effective = preserve_unicode(&c, &matches, &p, &effective);
        }
        let replaced = apply(
            &c,
            &matches,
            &effective,
            (name != "exact").then_some(&p[..]),
        );
        let matched = matches
            .iter()
            .map(|&(start, end)| {
                let line = 1 + c[..start].iter().filter(|&&ch| ch == '\n').count();
                (line, c[start..end].iter().collect())
            })
            .collect();
        return Ok(Replaced {
            content: replaced.into_iter().collect(),
            count: matches.len(),
            strategy: name,
            matched,
        });
    }
    fail("Could not find a match for old_string in the file")
}

/// `format_no_match_hint`: for a plain "Could not find" failure, the closest lines of the
/// file as a "Did you mean" snippet; empty otherwise.
pub fn no_match_hint(error: &str, old: &str, content: &str) -> String {
    if !error.starts_with("Could not find") {
        return String::new();
    }
    let hint = closest_lines(old, content);
    if hint.is_empty() {
        return String::new();
    }
    format!("\n\nDid you mean one of these sections?\n{hint}")
}

// ── strategies ──────────────────────────────────────────────────────────────────────────

fn exact(content: &[char], pattern: &[char]) -> Vec<Span> {
    let mut out = Vec::new();
    if pattern.is_empty() || pattern.len() > content.len() {
        return out;
    }
    let mut start = 0;
    while start + pattern.len() <= content.len() {
        match find_from(content, pattern, start) {
            Some(pos) => {
                out.push((pos, pos + pattern.len()));
                start = pos + pattern.len();
            }
            None => break,
        }
    }
    out
}

fn find_from(hay: &[char], needle: &[char], start: usize) -> Option<usize> {
    let first = needle[0];
    let last_start = hay.len().checked_sub(needle.len())?;
    (start..=last_start).find(|&i| hay[i] == first && hay[i..i + needle.len()] == *needle)
}

fn split_lines(s: &[char]) -> Vec<&[char]> {
    s.split(|c| *c == '\n').collect()
}

fn strip(s: &[char]) -> &[char] {
    let start = s.iter().position(|c| !is_space(*c)).unwrap_or(s.len());
    let end = s
        .iter()
        .rposition(|c| !is_space(*c))
        .map_or(start, |i| i + 1);
    &s[start..end.max(start)]
}

fn lstrip(s: &[char]) -> &[char] {
    let start = s.iter().position(|c| !is_space(*c)).unwrap_or(s.len());
    &s[start..]
}

fn join_lines<T: AsRef<[char]>>(lines: &[T]) -> Vec<char> {
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.extend_from_slice(line.as_ref());
    }
    out
}

/// `_calculate_line_positions`.
fn line_span(lines: &[&[char]], start: usize, end: usize, total: usize) -> Span {
    let start_pos: usize = lines[..start].iter().map(|l| l.len() + 1).sum();
    let end_pos: usize = lines[..end].iter().map(|l| l.len() + 1).sum::<usize>() - 1;
    (start_pos, end_pos.min(total))
}

/// `_find_normalized_matches`: line blocks whose normalised form equals the normalised
/// pattern.
fn normalized_line_matches(
    content: &[char],
    lines: &[&[char]],
    norm_lines: &[&[char]],
    norm_pattern: &[char],
) -> Vec<Span> {
    let n = split_lines(norm_pattern).len();
    let mut out = Vec::new();
    if norm_lines.len() < n {
        return out;
    }
    for i in 0..=(norm_lines.len() - n) {
        if join_lines(&norm_lines[i..i + n]) == norm_pattern {
            out.push(line_span(lines, i, i + n, content.len()));
        }
    }
    out
}

fn line_trimmed(content: &[char], pattern: &[char]) -> Vec<Span> {
    let norm_pattern = join_lines(
        &split_lines(pattern)
            .into_iter()
            .map(strip)
            .collect::<Vec<_>>(),
    );
    let lines = split_lines(content);
    let norm: Vec<&[char]> = lines.iter().map(|l| strip(l)).collect();
    normalized_line_matches(content, &lines, &norm, &norm_pattern)
}

fn collapse_blanks(s: &[char]) -> Vec<char> {
    let mut out = Vec::with_capacity(s.len());
    let mut in_run = false;
    for &c in s {
        if c == ' ' || c == '\t' {
            if !in_run {
                out.push(' ');
            }
            in_run = true;
        } else {
            out.push(c);
            in_run = false;
        }
    }
    out
}

fn whitespace_normalized(content: &[char], pattern: &[char]) -> Vec<Span> {
    let norm_pattern = collapse_blanks(pattern);
    let norm_content = collapse_blanks(content);
    let matches = exact(&norm_content, &norm_pattern);
    if matches.is_empty() {
        return matches;
    }
    map_normalized_positions(content, &norm_content, &matches)
}

/// `_map_normalized_positions`, step for step.
fn map_normalized_positions(original: &[char], normalized: &[char], matches: &[Span]) -> Vec<Span> {
    let blank = |c: char| c == ' ' || c == '\t';
    let mut orig_to_norm: Vec<usize> = Vec::with_capacity(original.len());
    let (mut oi, mut ni) = (0, 0);
    while oi < original.len() && ni < normalized.len() {
        if original[oi] == normalized[ni] {
            orig_to_norm.push(ni);
            oi += 1;
            ni += 1;
        } else if blank(original[oi]) && normalized[ni] == ' ' {
            orig_to_norm.push(ni);
            oi += 1;
            if oi < original.len() && !blank(original[oi]) {
                ni += 1;
            }
        } else {
            orig_to_norm.push(ni);
            oi += 1;
        }
    }
    while oi < original.len() {
        orig_to_norm.push(normalized.len());
        oi += 1;
    }
    let mut start_of = std::collections::HashMap::new();
    let mut end_of = std::collections::HashMap::new();
    for (op, &np) in orig_to_norm.iter().enumerate() {
        start_of.entry(np).or_insert(op);
        end_of.insert(np, op);
    }
    let mut out = Vec::new();
    for &(ns, ne) in matches {
        let orig_start = match start_of.get(&ns) {
            Some(&s) => s,
            None => match orig_to_norm.iter().position(|&n| n >= ns) {
                Some(s) => s,
                // Python raises here (min() of nothing); no usable match.
                None => continue,
            },
        };
        let mut orig_end = match ne.checked_sub(1).and_then(|k| end_of.get(&k)) {
            Some(&e) => e + 1,
            None => orig_start + (ne - ns),
        };
        if ne < normalized.len() && ne > 0 && normalized[ne - 1] == ' ' {
            while orig_end < original.len() && blank(original[orig_end]) {
                orig_end += 1;
            }
        }
        out.push((orig_start, orig_end.min(original.len())));
    }
    out
}

fn indentation_flexible(content: &[char], pattern: &[char]) -> Vec<Span> {
    let lines = split_lines(content);
    let stripped: Vec<&[char]> = lines.iter().map(|l| lstrip(l)).collect();
    let norm_pattern = join_lines(
        &split_lines(pattern)
            .into_iter()
            .map(lstrip)
            .collect::<Vec<_>>(),
    );
    normalized_line_matches(content, &lines, &stripped, &norm_pattern)
}

fn escape_normalized(content: &[char], pattern: &[char]) -> Vec<Span> {
    let text: String = pattern.iter().collect();
    let unescaped = text
        .replace("\\n", "\n")
        .replace("\\t", "\t")
        .replace("\\r", "\r");
    if unescaped == text {
        return Vec::new();
    }
    let p: Vec<char> = unescaped.chars().collect();
    exact(content, &p)
}

fn trimmed_boundary(content: &[char], pattern: &[char]) -> Vec<Span> {
    let mut plines: Vec<&[char]> = split_lines(pattern);
    let n = plines.len();
    plines[0] = strip(plines[0]);
    if n > 1 {
        plines[n - 1] = strip(plines[n - 1]);
    }
    let modified = join_lines(&plines);
    let lines = split_lines(content);
    let mut out = Vec::new();
    if lines.len() < n {
        return out;
    }
    for i in 0..=(lines.len() - n) {
        let mut block: Vec<&[char]> = lines[i..i + n].to_vec();
        block[0] = strip(block[0]);
        if n > 1 {
            block[n - 1] = strip(block[n - 1]);
        }
        if join_lines(&block) == modified {
            out.push(line_span(&lines, i, i + n, content.len()));
        }
    }
    out
}

/// `UNICODE_MAP`: typographic characters and their ASCII stand-ins.
fn unicode_replacement(c: char) -> Option<&'static str> {
    Some(match c {
        '\u{201c}' | '\u{201d}' => "\"",
        '\u{2018}' | '\u{2019}' => "'",
        '\u{2014}' => "--",
        '\u{2013}' => "-",
        '\u{2026}' => "...",
        '\u{a0}' => " ",
        _ => return None,
    })
}

fn unicode_normalize(s: &[char]) -> Vec<char> {
    let mut out = Vec::with_capacity(s.len());
    for &c in s {
        match unicode_replacement(c) {
            Some(r) => out.extend(r.chars()),
            None => out.push(c),
        }
    }
    out
}

/// `_build_orig_to_norm_map`: each original index → its normalised index, plus a sentinel.
fn orig_to_norm_map(original: &[char]) -> Vec<usize> {
    let mut out = Vec::with_capacity(original.len() + 1);
    let mut pos = 0;
    for &c in original {
        out.push(pos);
        pos += unicode_replacement(c).map_or(1, |r| r.chars().count());
    }
    out.push(pos);
    out
}

fn unicode_normalized(content: &[char], pattern: &[char]) -> Vec<Span> {
    let norm_pattern = unicode_normalize(pattern);
    let norm_content = unicode_normalize(content);
    if norm_content == content && norm_pattern == pattern {
        return Vec::new();
    }
    let mut norm_matches = exact(&norm_content, &norm_pattern);
    if norm_matches.is_empty() {
        norm_matches = line_trimmed(&norm_content, &norm_pattern);
    }
    if norm_matches.is_empty() {
        return norm_matches;
    }
    let map = orig_to_norm_map(content);
    let mut first_orig = std::collections::HashMap::new();
    for (op, &np) in map[..map.len() - 1].iter().enumerate() {
        first_orig.entry(np).or_insert(op);
    }
    let orig_len = map.len() - 1;
    norm_matches
        .into_iter()
        .filter_map(|(ns, ne)| {
            let start = *first_orig.get(&ns)?;
            let mut end = start;
            while end < orig_len && map[end] < ne {
                end += 1;
            }
            Some((start, end))
        })
        .collect()
}

fn block_anchor(content: &[char], pattern: &[char]) -> Vec<Span> {
    let norm_pattern = unicode_normalize(pattern);
    let norm_content = unicode_normalize(content);
    let plines = split_lines(&norm_pattern);
    let n = plines.len();
    if n < 2 {
        return Vec::new();
    }
    let first = strip(plines[0]);
    let last = strip(plines[n - 1]);
    let norm_lines = split_lines(&norm_content);
    let orig_lines = split_lines(content);
    if norm_lines.len() < n {
        return Vec::new();
    }
    let candidates: Vec<usize> = (0..=(norm_lines.len() - n))
        .filter(|&i| strip(norm_lines[i]) == first && strip(norm_lines[i + n - 1]) == last)
        .collect();
    let threshold = if candidates.len() == 1 { 0.50 } else { 0.70 };
    let mut out = Vec::new();
    for i in candidates {
        let similarity = if n <= 2 {
            1.0
        } else {
            let content_middle = join_lines(&norm_lines[i + 1..i + n - 1]);
            let pattern_middle = join_lines(&plines[1..n - 1]);
            SequenceMatcher::new(&content_middle, &pattern_middle).ratio()
        };
        if similarity >= threshold && i + n <= orig_lines.len() {
            out.push(line_span(&orig_lines, i, i + n, content.len()));
        }
    }
    out
}

fn context_aware(content: &[char], pattern: &[char]) -> Vec<Span> {
    let plines = split_lines(pattern);
    let lines = split_lines(content);
    let n = plines.len();
    let mut out = Vec::new();
    if lines.len() < n {
        return out;
    }
    for i in 0..=(lines.len() - n) {
        let high = plines
            .iter()
            .zip(&lines[i..i + n])
            .filter(|(p, c)| SequenceMatcher::new(strip(p), strip(c)).ratio() >= 0.80)
            .count();
        if high as f64 >= n as f64 * 0.5 {
            out.push(line_span(&lines, i, i + n, content.len()));
        }
    }
    out
}

// ── the replacement ─────────────────────────────────────────────────────────────────────

fn regions(content: &[char], matches: &[Span]) -> String {
    matches
        .iter()
        .flat_map(|&(s, e)| content[s..e].iter())
        .collect()
}

/// `_detect_escape_drift`: `\'` or `\"` in both old and new text but not in the file.
fn escape_drift(content: &[char], matches: &[Span], old: &str, new: &str) -> Option<String> {
    if !new.contains("\\'") && !new.contains("\\\"") {
        return None;
    }
    let matched = regions(content, matches);
    for (suspect, suspect_repr, plain_repr) in
        [("\\'", "\"\\\\'\"", "\"'\""), ("\\\"", "'\\\\\"'", "'\"'")]
    {
        if new.contains(suspect) && old.contains(suspect) && !matched.contains(suspect) {
            return Some(format!(
                "Escape-drift detected: old_string and new_string contain the literal sequence {suspect_repr} but the matched region of the file does not. This is almost always a tool-call serialization artifact where an apostrophe or quote got prefixed with a spurious backslash. Re-read the file with read_file and pass old_string/new_string without backslash-escaping {plain_repr} characters."
            ));
        }
    }
    None
}

/// `_maybe_unescape_new_string`: `\t` / `\r` become real characters only where the matched
/// region of the file holds real ones.
fn unescape_new(new: &str, content: &[char], matches: &[Span]) -> String {
    if !new.contains("\\t") && !new.contains("\\r") {
        return new.to_string();
    }
    let matched = regions(content, matches);
    let mut out = new.to_string();
    if out.contains("\\t") && matched.contains('\t') {
        out = out.replace("\\t", "\t");
    }
    if out.contains("\\r") && matched.contains('\r') {
        out = out.replace("\\r", "\r");
    }
    out
}

/// `_preserve_unicode_in_replacement`: apply the model's ASCII edit to the file's original
/// typographic text, so untouched em-dashes and smart quotes survive.
fn preserve_unicode(content: &[char], matches: &[Span], old: &[char], new: &[char]) -> Vec<char> {
    let region: Vec<char> = matches
        .iter()
        .flat_map(|&(s, e)| content[s..e].iter().copied())
        .collect();
    let norm_old = unicode_normalize(old);
    let norm_region = unicode_normalize(&region);
    if norm_old != norm_region {
        return new.to_vec();
    }
    let map = orig_to_norm_map(&region);
    let mut first_orig = std::collections::HashMap::new();
    for (op, &np) in map[..map.len() - 1].iter().enumerate() {
        first_orig.entry(np).or_insert(op);
    }
    let mut out = Vec::new();
    for op in SequenceMatcher::new(&norm_old, new).opcodes() {
        match op.tag {
            Tag::Equal => {
                let start = first_orig.get(&op.a1).copied().unwrap_or(0);
                let mut end = start;
                while end < region.len() && map[end] < op.a2 {
                    end += 1;
                }
                out.extend_from_slice(&region[start..end]);
            }
            Tag::Replace | Tag::Insert => out.extend_from_slice(&new[op.b1..op.b2]),
            Tag::Delete => {}
        }
    }
    out
}

fn leading_blanks(line: &[char]) -> &[char] {
    let n = line
        .iter()
        .take_while(|c| **c == ' ' || **c == '\t')
        .count();
    &line[..n]
}

fn first_meaningful_line(text: &[char]) -> Option<&[char]> {
    split_lines(text).into_iter().find(|l| !strip(l).is_empty())
}

/// `_reindent_replacement`: move the replacement from the model's indentation to the file's.
fn reindent(region: &[char], old: &[char], new: &[char]) -> Vec<char> {
    if new.is_empty() {
        return Vec::new();
    }
    let (Some(old_first), Some(file_first)) =
        (first_meaningful_line(old), first_meaningful_line(region))
    else {
        return new.to_vec();
    };
    let old_indent = leading_blanks(old_first);
    let file_indent = leading_blanks(file_first);
    if old_indent == file_indent {
        return new.to_vec();
    }
    let lines: Vec<Vec<char>> = split_lines(new)
        .into_iter()
        .map(|line| {
            if strip(line).is_empty() {
                return line.to_vec();
            }
            let mut out = file_indent.to_vec();
            if leading_blanks(line).starts_with(old_indent) {
                out.extend_from_slice(&line[old_indent.len()..]);
            } else {
                let rest = line.iter().skip_while(|c| **c == ' ' || **c == '\t');
                out.extend(rest);
            }
            out
        })
        .collect();
    join_lines(&lines)
}

/// `_apply_replacements`: from the last match to the first, re-indenting after a fuzzy match.
fn apply(
    content: &[char],
    matches: &[Span],
    new: &[char],
    fuzzy_old: Option<&[char]>,
) -> Vec<char> {
    let mut sorted = matches.to_vec();
    sorted.sort_by_key(|m| std::cmp::Reverse(m.0));
    let mut result = content.to_vec();
    for (start, end) in sorted {
        let adjusted = match fuzzy_old {
            Some(old) => reindent(&content[start..end], old, new),
            None => new.to_vec(),
        };
        result.splice(start..end, adjusted);
    }
    result
}

/// Python's `str.splitlines()`.
fn py_splitlines(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = s.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let is_break = matches!(
            c,
            '\n' | '\r'
                | '\u{b}'
                | '\u{c}'
                | '\u{1c}'
                | '\u{1d}'
                | '\u{1e}'
                | '\u{85}'
                | '\u{2028}'
                | '\u{2029}'
        );
        if is_break {
            out.push(&s[start..i]);
            let mut next = i + c.len_utf8();
            if c == '\r' && chars.peek().map(|(_, n)| *n) == Some('\n') {
                chars.next();
                next += 1;
            }
            start = next;
        }
    }
    if start < s.len() {
        out.push(&s[start..]);
    }
    out
}

/// `find_closest_lines(old, content)`: up to three snippets around the lines most like the
/// first non-blank line of the old text, numbered `NNNN| line`.
fn closest_lines(old: &str, content: &str) -> String {
    if old.is_empty() || content.is_empty() {
        return String::new();
    }
    let old_lines = py_splitlines(old);
    let content_lines = py_splitlines(content);
    if old_lines.is_empty() || content_lines.is_empty() {
        return String::new();
    }
    let anchor = crate::pytext::strip(old_lines[0]);
    let anchor = if anchor.is_empty() {
        match old_lines
            .iter()
            .map(|l| crate::pytext::strip(l))
            .find(|l| !l.is_empty())
        {
            Some(a) => a,
            None => return String::new(),
        }
    } else {
        anchor
    };
    let mut scored: Vec<(f64, usize)> = Vec::new();
    for (i, line) in content_lines.iter().enumerate() {
        let stripped = crate::pytext::strip(line);
        if stripped.is_empty() {
            continue;
        }
        let r = ratio(anchor, stripped);
        if r > 0.3 {
            scored.push((r, i));
        }
    }
    if scored.is_empty() {
        return String::new();
    }
    scored.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap_or(std::cmp::Ordering::Equal));
    let mut parts = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for &(_, idx) in scored.iter().take(3) {
        let start = idx.saturating_sub(2);
        let end = (idx + old_lines.len() + 2).min(content_lines.len());
        if !seen.insert((start, end)) {
            continue;
        }
        let snippet: Vec<String> = (start..end)
            .map(|k| format!("{:4}| {}", k + 1, content_lines[k]))
            .collect();
        parts.push(snippet.join("\n"));
    }
    parts.join("\n---\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn replace(content: &str, old: &str, new: &str) -> Result<(String, &'static str), String> {
        find_and_replace(content, old, new, false)
            .map(|r| (r.content, r.strategy))
            .map_err(|e| e.message)
    }

    #[test]
    fn exact_and_ambiguous() {
        assert_eq!(replace("a b c", "b", "x"), Ok(("a x c".into(), "exact")));
        assert_eq!(
            replace("b b", "b", "x"),
            Err("Found 2 matches for old_string. Provide more context to make it unique, or use replace_all=True.".into())
        );
        let all = find_and_replace("aaaa", "aa", "b", true).expect("all");
        assert_eq!((all.content.as_str(), all.count), ("bb", 2));
        assert_eq!(
            replace("x", "x", "x"),
            Err("old_string and new_string are identical".into())
        );
        assert_eq!(
            replace("abc", "zzz", "y"),
            Err("Could not find a match for old_string in the file".into())
        );
    }

    #[test]
    fn fuzzy_strategies_reindent() {
        let content = "def f():\n    if x:\n        go()\n";
        let (out, strategy) =
            replace(content, "if x:\n    go()", "if y:\n    stop()").expect("patched");
        assert_eq!(strategy, "line_trimmed");
        assert_eq!(out, "def f():\n    if y:\n        stop()\n");
        let (out, strategy) = replace("a  =   1\n", "a = 1", "a = 2").expect("ws");
        assert_eq!(
            (out.as_str(), strategy),
            ("a = 2\n", "whitespace_normalized")
        );
    }

    #[test]
    fn unicode_is_preserved() {
        let content = "Use “quotes” — always.\n";
        let (out, strategy) = replace(
            content,
            "Use \"quotes\" -- always.",
            "Use \"quotes\" -- never.",
        )
        .expect("u");
        assert_eq!(strategy, "unicode_normalized");
        assert_eq!(out, "Use “quotes” — never.\n");
    }

    #[test]
    fn hint_shows_numbered_neighbours() {
        let content = "alpha\nbeta gamma\ndelta\n";
        let hint = no_match_hint("Could not find a match", "beta gamma!!", content);
        assert_eq!(
            hint,
            "\n\nDid you mean one of these sections?\n   1| alpha\n   2| beta gamma\n   3| delta"
        );
        assert_eq!(no_match_hint("Found 2 matches", "x", content), "");
    }
}
