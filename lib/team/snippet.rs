//! Snippets for the store's word hits, in the shape of FTS5's `snippet(…, '>>>', '<<<',
//! '...', 40)`: the whole text when it has at most 40 words, else a 40-word window around
//! the first match, matched words wrapped in `>>>`/`<<<` and `...` where text was left out.
//! FTS5 picks its window by a score over every candidate position; this one centres the
//! first matches, so long texts can show a different stretch (`docs/decisions.md`).

use super::words::{Word, words};

/// Words in a window.
pub const WINDOW: usize = 40;

/// The spans of `all` (word index ranges) that match a phrase of `terms`: its words in a
/// row, the last one as a prefix when the phrase ends in `*`.
fn spans(all: &[Word], terms: &[String]) -> Vec<(usize, usize)> {
    let phrases: Vec<(Vec<&str>, bool)> = terms
        .iter()
        .map(|t| match t.strip_suffix('*') {
            Some(p) => (p.split(' ').collect(), true),
            None => (t.split(' ').collect(), false),
        })
        .collect();
    let mut out = Vec::new();
    for i in 0..all.len() {
        for (words, prefix) in &phrases {
            let n = words.len();
            if i + n > all.len() {
                continue;
            }
            let hit = words.iter().enumerate().all(|(k, w)| {
                let folded = &all[i + k].folded;
                if *prefix && k + 1 == n {
                    folded.starts_with(w)
                } else {
                    folded == w
                }
            });
            if hit {
                out.push((i, i + n));
                break;
            }
        }
    }
    out
}

/// The snippet of `text` for the folded `terms` (phrases with their words joined by a
/// space; a prefix phrase ends in `*`).
pub fn word_snippet(text: &str, terms: &[String]) -> String {
    let all = words(text);
    let spans = spans(&all, terms);
    let n = all.len();
    let (start, end) = if n <= WINDOW {
        (0, n)
    } else {
        let first = spans.first().map_or(0, |s| s.0);
        let last = spans
            .iter()
            .filter(|s| s.1 <= first + WINDOW)
            .map(|s| s.1 - 1)
            .max()
            .unwrap_or(first);
        let span = last - first + 1;
        let start = first.saturating_sub((WINDOW - span) / 2).min(n - WINDOW);
        (start, start + WINDOW)
    };
    let mut out = String::new();
    let from = if start == 0 { 0 } else { all[start].start };
    let to = if end == n {
        text.len()
    } else {
        all[end - 1].end
    };
    if start > 0 {
        out.push_str("...");
    }
    let mut pos = from;
    let mut open_until: Option<usize> = None;
    for (i, w) in all.iter().enumerate().take(end).skip(start) {
        out.push_str(&text[pos..w.start]);
        if open_until.is_none()
            && let Some(s) = spans.iter().find(|s| s.0 == i)
        {
            out.push_str(">>>");
            open_until = Some(s.1.min(end));
        }
        out.push_str(&text[w.start..w.end]);
        pos = w.end;
        if open_until == Some(i + 1) {
            out.push_str("<<<");
            open_until = None;
        }
    }
    if open_until.is_some() {
        out.push_str("<<<");
    }
    out.push_str(&text[pos..to]);
    if end < n {
        out.push_str("...");
    }
    out
}

/// The LIKE path's snippet (reference `recall` §3.4): 120 characters of the content from
/// 40 before the first word's first occurrence (case-sensitive, as SQLite's `instr`).
pub fn like_snippet(content: &str, first: &str) -> String {
    let chars: Vec<char> = content.chars().collect();
    let needle: Vec<char> = first.chars().collect();
    let at = if needle.is_empty() {
        Some(0)
    } else {
        (0..chars.len()).find(|&i| chars[i..].starts_with(&needle))
    };
    let start = at.map_or(0, |i| i.saturating_sub(40));
    chars.iter().skip(start).take(120).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_texts_are_whole_with_every_match_marked() {
        assert_eq!(
            word_snippet(
                "Renewed and reloaded nginx. The job was missing the --nginx flag.  ",
                &["nginx".to_string()]
            ),
            "Renewed and reloaded >>>nginx<<<. The job was missing the -->>>nginx<<< flag.  "
        );
        assert_eq!(
            word_snippet("Deploying now", &["deploy*".to_string()]),
            ">>>Deploying<<< now"
        );
        assert_eq!(
            word_snippet("on the staging nginx box", &["staging nginx".to_string()]),
            "on the >>>staging nginx<<< box"
        );
        assert_eq!(
            word_snippet("nginx nginx", &["nginx".to_string()]),
            ">>>nginx<<< >>>nginx<<<"
        );
    }

    #[test]
    fn long_texts_get_a_window() {
        let text = format!("{}needle{}", "a ".repeat(100), " b".repeat(100));
        let s = word_snippet(&text, &["needle".to_string()]);
        assert!(s.starts_with("...a a"), "{s}");
        assert!(s.ends_with("b b..."), "{s}");
        assert_eq!(s.matches(">>>needle<<<").count(), 1);
        assert_eq!(words(&s.replace("...", " ")).len(), WINDOW);
    }

    #[test]
    fn like_snippets_start_40_characters_before_the_word() {
        let text = format!("{}部署{}", "x".repeat(50), "y".repeat(200));
        let s = like_snippet(&text, "部署");
        assert_eq!(s.chars().count(), 120);
        assert!(s.starts_with(&format!("{}部署", "x".repeat(40))));
        assert_eq!(like_snippet("abc", "zz"), "abc");
    }
}
