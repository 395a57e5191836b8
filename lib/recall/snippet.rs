//! Snippets for hits of the CJK bigram index, in the shape FTS5's `snippet(…, '>>>', '<<<',
//! '...', 40)` gives the trigram table (which counts a character as a token): a window of
//! 40 characters of the message's indexed text around the first match, each match
//! wrapped in `>>>` and `<<<`, and `...` where text was left out.

/// The window, in characters.
pub const WINDOW: usize = 40;

/// The snippet of `text` (content, tool name and tool calls joined by spaces, as indexed)
/// for the words `needles`.
pub fn cjk_snippet(text: &str, needles: &[String]) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut marked = vec![false; chars.len()];
    for needle in needles {
        let needle: Vec<char> = needle.chars().collect();
        if needle.is_empty() || needle.len() > chars.len() {
            continue;
        }
        for start in 0..=chars.len() - needle.len() {
            if chars[start..start + needle.len()] == needle[..] {
                marked[start..start + needle.len()].fill(true);
            }
        }
    }
    let (start, end) = window(&marked);
    let mut out = String::new();
    if start > 0 {
        out.push_str("...");
    }
    let mut open = false;
    for i in start..end {
        if marked[i] && !open {
            out.push_str(">>>");
            open = true;
        } else if !marked[i] && open {
            out.push_str("<<<");
            open = false;
        }
        out.push(chars[i]);
    }
    if open {
        out.push_str("<<<");
    }
    if end < chars.len() {
        out.push_str("...");
    }
    out
}

/// The window: the first match and what follows it within [`WINDOW`] characters, centred.
fn window(marked: &[bool]) -> (usize, usize) {
    let len = marked.len();
    if len <= WINDOW {
        return (0, len);
    }
    let Some(first) = marked.iter().position(|m| *m) else {
        return (0, WINDOW);
    };
    let last = (first..len.min(first + WINDOW))
        .rev()
        .find(|&i| marked[i])
        .unwrap_or(first);
    let span = last - first + 1;
    let start = first.saturating_sub((WINDOW - span) / 2).min(len - WINDOW);
    (start, start + WINDOW)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn needles(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn short_texts_are_shown_whole() {
        assert_eq!(
            cjk_snippet("我们讨论了数据库的设计和索引优化  ", &needles(&["数据库"])),
            "我们讨论了>>>数据库<<<的设计和索引优化  "
        );
        assert_eq!(
            cjk_snippet("广西桂林漓江旅游攻略  ", &needles(&["广西", "桂林"])),
            ">>>广西桂林<<<漓江旅游攻略  "
        );
        assert_eq!(cjk_snippet("无关  ", &needles(&["数据"])), "无关  ");
    }

    #[test]
    fn long_texts_get_a_window_around_the_first_match() {
        let text = format!("{}数据{}", "a".repeat(100), "b".repeat(100));
        let snippet = cjk_snippet(&text, &needles(&["数据"]));
        assert_eq!(
            snippet,
            format!("...{}>>>数据<<<{}...", "a".repeat(19), "b".repeat(19))
        );
        let at_end = format!("{}数据", "a".repeat(100));
        assert_eq!(
            cjk_snippet(&at_end, &needles(&["数据"])),
            format!("...{}>>>数据<<<", "a".repeat(38))
        );
        let at_start = format!("数据{}", "a".repeat(100));
        assert_eq!(
            cjk_snippet(&at_start, &needles(&["数据"])),
            format!(">>>数据<<<{}...", "a".repeat(38))
        );
    }

    #[test]
    fn overlapping_matches_merge() {
        assert_eq!(
            cjk_snippet("哈哈哈  ", &needles(&["哈哈"])),
            ">>>哈哈哈<<<  "
        );
    }
}
