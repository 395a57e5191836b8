//! Snippets for the store's word hits, in the shape of FTS5's `snippet(…, '>>>', '<<<',
//! '...', 40)`: the whole text when it has at most 40 words, else a 40-word window around
//! the first match, matched words wrapped in `>>>`/`<<<` and `...` where text was left out.
//! FTS5 picks its window by a score over every candidate position; this one centres the
//! first matches, so long texts can show a different stretch (`docs/decisions.md`).

use super::words::{Word, words};

/// Words in a window.
pub const WINDOW: usize = 40;

fn matches(word: &Word, terms: &[String]) -> bool {
    terms.iter().any(|t| match t.strip_suffix('*') {
        Some(prefix) => word.folded.starts_with(prefix),
        None => word.folded == *t,
    })
}

/// The snippet of `text` for the folded `terms` (a prefix term ends in `*`).
pub fn word_snippet(text: &str, terms: &[String]) -> String {
    let all = words(text);
    let marked: Vec<bool> = all.iter().map(|w| matches(w, terms)).collect();
    let n = all.len();
    let (start, end) = if n <= WINDOW {
        (0, n)
    } else {
        let first = marked.iter().position(|m| *m).unwrap_or(0);
        let last = (first..n.min(first + WINDOW))
            .rev()
            .find(|&i| marked[i])
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
    for (w, m) in all[start..end].iter().zip(&marked[start..end]) {
        out.push_str(&text[pos..w.start]);
        if *m {
            out.push_str(">>>");
            out.push_str(&text[w.start..w.end]);
            out.push_str("<<<");
        } else {
            out.push_str(&text[w.start..w.end]);
        }
        pos = w.end;
    }
    out.push_str(&text[pos..to]);
    if end < n {
        out.push_str("...");
    }
    out
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
}
