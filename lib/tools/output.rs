//! What the model sees of a command's output: terminal escape sequences removed (colour codes
//! are noise to a model and cost tokens), surrounding whitespace stripped, and anything
//! beyond the cap cut to its head and tail around a marker that says how much is missing.

use std::sync::LazyLock;

use regex::Regex;

use crate::pytext::{char_len, strip, thousands};

/// Most characters of output a result carries (`tool_output.max_bytes`).
pub const MAX_OUTPUT_CHARS: usize = 50_000;

static ANSI: LazyLock<Option<Regex>> = LazyLock::new(|| {
    // CSI (colours, cursor moves), OSC (titles, hyperlinks; BEL or ST terminated), and the
    // charset selections (`ESC ( B`), the two-byte escapes; the 8-bit CSI introducer too.
    Regex::new(
        r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()*+][0-9A-Za-z]|\x1b[@-Z\\-_]|\u{9b}[0-?]*[ -/]*[@-~]",
    )
    .ok()
});

/// `raw` with escape sequences removed and surrounding whitespace stripped.
pub fn clean(raw: &str) -> String {
    let stripped = match ANSI.as_ref() {
        Some(re) => re.replace_all(raw, ""),
        None => raw.into(),
    };
    strip(&stripped).to_string()
}

/// `text` cut to `max` characters when longer: 40 % head, 60 % tail, and between them
/// `\n\n... [OUTPUT TRUNCATED - N chars omitted out of M total] ...\n\n` (counts with
/// thousands separators). The marker counts against `max`, so the result is exactly `max`
/// characters long; `seq 1 30000` keeps 49,925 characters of its 168,893 around a
/// 75-character marker.
#[cfg(test)]
pub fn truncate(text: &str, max: usize) -> String {
    truncate_with_hidden(text, max, 0)
}

/// [`truncate`] for output of which `hidden` more characters were printed but not kept
/// (the middle of something enormous): they count as omitted.
pub fn truncate_with_hidden(text: &str, max: usize, hidden: u64) -> String {
    let kept_total = char_len(text);
    let total = kept_total.saturating_add(usize::try_from(hidden).unwrap_or(usize::MAX));
    if total <= max {
        return text.to_string();
    }
    // The marker's length depends on the count it prints, which depends on the marker's
    // length; two rounds settle it because the count can only shrink by a digit or two.
    let mut kept = max;
    let mut marker = String::new();
    for _ in 0..3 {
        marker = format!(
            "\n\n... [OUTPUT TRUNCATED - {} chars omitted out of {} total] ...\n\n",
            thousands(total - kept),
            thousands(total)
        );
        kept = max.saturating_sub(char_len(&marker));
    }
    let head = kept * 2 / 5;
    let tail = kept - head;
    let mut out = String::with_capacity(max * 4);
    out.extend(text.chars().take(head));
    out.push_str(&marker);
    out.extend(text.chars().skip(kept_total.saturating_sub(tail)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_surrounding_whitespace_go() {
        assert_eq!(
            clean("\n  \x1b[1;31mred\x1b[0m and \x1b]0;title\x07plain\x1b(B \n\n"),
            "red and plain"
        );
    }

    #[test]
    fn short_text_is_untouched() {
        assert_eq!(truncate("abc", 3), "abc");
    }

    #[test]
    fn seq_30000_keeps_head_and_tail_around_an_exact_marker() {
        let text: String = (1..=30000).map(|i| format!("{i}\n")).collect();
        let text = clean(&text);
        assert_eq!(char_len(&text), 168_893);
        let out = truncate(&text, MAX_OUTPUT_CHARS);
        assert_eq!(char_len(&out), 50_000);
        let marker =
            "\n\n... [OUTPUT TRUNCATED - 118,968 chars omitted out of 168,893 total] ...\n\n";
        let at = out.find(marker).unwrap_or(usize::MAX);
        assert_eq!(at, 19_970);
        assert_eq!(&out[..at], &text[..19_970]);
        assert_eq!(&out[at + marker.len()..], &text[text.len() - 29_955..]);
    }
}
