//! The `<memory-context>` fence (reference `loop` §3.10): recalled context is wrapped in it
//! when added to a user message, and never shown to the user when a model echoes it back.
//! [`block`] builds the fence, [`sanitize`] removes fenced spans from a whole text, and
//! [`Scrubber`] removes them from a stream whose chunks may split a tag anywhere.

use std::sync::LazyLock;

use regex::Regex;

const OPEN: &str = "<memory-context>";
const CLOSE: &str = "</memory-context>";

/// The note that tells the model what the fenced text is.
pub const SYSTEM_NOTE: &str = "[System note: The following is recalled memory context, NOT new user input. Treat as authoritative reference data — this is the agent's persistent memory and should inform all responses.]";

/// The fenced block for a provider's recalled text; `None` when there is nothing to add.
pub fn block(recalled: &str) -> Option<String> {
    let clean = sanitize(recalled);
    let clean = clean.trim();
    if clean.is_empty() {
        return None;
    }
    Some(format!("{OPEN}\n{SYSTEM_NOTE}\n\n{clean}\n{CLOSE}"))
}

static SPAN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?is)<\s*memory-context\s*>.*?<\s*/\s*memory-context\s*>").expect("valid regex")
});
static NOTE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\[System note: The following is recalled memory context, NOT new user input\. Treat as (?:informational background data|authoritative reference data)[^\]]*\]\s*")
        .expect("valid regex")
});
static TAG: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)<\s*/?\s*memory-context\s*>").expect("valid regex"));

/// Removes whole fenced spans, then stray system notes, then stray tags.
pub fn sanitize(text: &str) -> String {
    let text = SPAN.replace_all(text, "");
    let text = NOTE.replace_all(&text, "");
    TAG.replace_all(&text, "").into_owned()
}

/// Hides fenced spans from streamed text. An opening tag counts only at the start of a line
/// (after nothing but blanks) and followed by a line break, as Hermes's scrubber decides;
/// text that could still become a tag is held back until the next chunk settles it.
#[derive(Debug, Clone)]
pub struct Scrubber {
    in_span: bool,
    buf: String,
    /// Whether the visible text so far ends at a line start (only blanks since the last
    /// newline).
    at_line_start: bool,
}

impl Default for Scrubber {
    fn default() -> Scrubber {
        Scrubber {
            in_span: false,
            buf: String::new(),
            at_line_start: true,
        }
    }
}

impl Scrubber {
    /// Takes a chunk, returns what may be shown now.
    pub fn push(&mut self, chunk: &str) -> String {
        self.buf.push_str(chunk);
        let mut out = String::new();
        loop {
            if self.in_span {
                match find_ci(&self.buf, CLOSE) {
                    Some(at) => {
                        self.buf.drain(..at + CLOSE.len());
                        self.in_span = false;
                    }
                    None => {
                        // Keep only what could be the start of the closing tag.
                        let keep = partial_suffix(&self.buf, CLOSE);
                        let cut = self.buf.len() - keep;
                        self.buf.drain(..cut);
                        return out;
                    }
                }
                continue;
            }
            // Outside: find the next opening tag that stands at a line start.
            let mut search_from = 0;
            let mut found = None;
            while let Some(rel) = find_ci(&self.buf[search_from..], OPEN) {
                let at = search_from + rel;
                if self.line_start_before(&self.buf[..at]) {
                    found = Some(at);
                    break;
                }
                search_from = at + 1;
            }
            match found {
                Some(at) => {
                    let after = at + OPEN.len();
                    match self.buf[after..].chars().next() {
                        None => {
                            // A complete tag at the end: wait for the next character.
                            self.emit(&mut out, at);
                            return out;
                        }
                        Some('\n') | Some('\r') => {
                            self.emit(&mut out, at);
                            self.buf.drain(..OPEN.len());
                            self.in_span = true;
                        }
                        Some(_) => {
                            // Not a fence (inline mention): show through the tag.
                            self.emit(&mut out, after);
                        }
                    }
                }
                None => {
                    let keep = partial_suffix(&self.buf, OPEN);
                    let cut = self.buf.len() - keep;
                    self.emit(&mut out, cut);
                    return out;
                }
            }
        }
    }

    /// The held tail at the end of the stream (dropped when inside an unterminated span).
    pub fn flush(&mut self) -> String {
        let tail = std::mem::take(&mut self.buf);
        let in_span = std::mem::replace(&mut self.in_span, false);
        self.at_line_start = true;
        if in_span { String::new() } else { tail }
    }

    fn emit(&mut self, out: &mut String, upto: usize) {
        let shown: String = self.buf.drain(..upto).collect();
        if !shown.is_empty() {
            self.at_line_start = ends_at_line_start(&shown, self.at_line_start);
            out.push_str(&shown);
        }
    }

    fn line_start_before(&self, before: &str) -> bool {
        ends_at_line_start(before, self.at_line_start)
    }
}

/// Whether `text`, following visible text that ended at a line start or not, ends with only
/// blanks since a newline.
fn ends_at_line_start(text: &str, previous: bool) -> bool {
    match text.rfind('\n') {
        Some(nl) => text[nl + 1..].chars().all(|c| c == ' ' || c == '\t'),
        None => previous && text.chars().all(|c| c == ' ' || c == '\t'),
    }
}

fn find_ci(hay: &str, needle: &str) -> Option<usize> {
    let h = hay.as_bytes();
    let n = needle.as_bytes();
    if n.len() > h.len() {
        return None;
    }
    (0..=h.len() - n.len()).find(|&i| h[i..i + n.len()].eq_ignore_ascii_case(n))
}

/// The length of the longest suffix of `text` that is a proper prefix of `tag`.
fn partial_suffix(text: &str, tag: &str) -> usize {
    let t = text.as_bytes();
    let g = tag.as_bytes();
    (1..g.len().min(t.len() + 1))
        .rev()
        .find(|&k| t[t.len() - k..].eq_ignore_ascii_case(&g[..k]))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(chunks: &[&str]) -> (Vec<String>, String) {
        let mut s = Scrubber::default();
        let outs = chunks.iter().map(|c| s.push(c)).collect();
        (outs, s.flush())
    }

    #[test]
    fn the_reference_cases() {
        assert_eq!(
            run(&["Hello\n<memory-context>\nsecret\n</memory-context>\nWorld"]).0,
            ["Hello\n\nWorld"]
        );
        assert_eq!(
            run(&[
                "Hello\n<memo",
                "ry-context>\nsec",
                "ret</memory-con",
                "text>after"
            ])
            .0,
            ["Hello\n", "", "", "after"]
        );
        let inline = "inline <memory-context>\nnot a block</memory-context> ok";
        assert_eq!(run(&[inline]).0.concat() + &run(&[inline]).1, inline);
        assert_eq!(
            run(&["<memory-context>x"]).0.concat() + &run(&["<memory-context>x"]).1,
            "<memory-context>x"
        );
        assert_eq!(
            run(&["<memory-context>\nunterminated"]),
            (vec![String::new()], String::new())
        );
        assert_eq!(
            run(&["text ends with <mem"]),
            (vec!["text ends with ".to_string()], "<mem".to_string())
        );
        assert_eq!(run(&["<MEMORY-CONTEXT>\nX</memory-context>Y"]).0, ["Y"]);
        assert_eq!(
            run(&["a\n<memory-context>", "\nhidden</memory-context>b"]).0,
            ["a\n", "b"]
        );
    }

    /// The property: however a stream is cut into two chunks, at every byte position, what is
    /// shown is what the whole text shows.
    #[test]
    fn every_split_point_shows_the_same_text() {
        let texts = [
            "Sure.\n<memory-context>\n[System note: x]\n\nUser likes tabs.\n</memory-context>\nDone: tabs it is.",
            "one\n  <memory-context>\nhidden\n</memory-context>two <memory-context>\ninline stays",
            "<memory-context>\nat start</memory-context>\n\nafter",
            "no fence at all, just < and memory-context words",
            "é\n<memory-context>\n日本語</memory-context>ü",
        ];
        for text in texts {
            let (whole, tail) = run(&[text]);
            let expected = whole.concat() + &tail;
            for cut in 0..=text.len() {
                if !text.is_char_boundary(cut) {
                    continue;
                }
                let (parts, tail) = run(&[&text[..cut], &text[cut..]]);
                assert_eq!(
                    parts.concat() + &tail,
                    expected,
                    "split at {cut} of {text:?}"
                );
            }
            // And one byte-sized chunk at a time (on character boundaries).
            let chars: Vec<String> = text.chars().map(|c| c.to_string()).collect();
            let refs: Vec<&str> = chars.iter().map(String::as_str).collect();
            let (parts, tail) = run(&refs);
            assert_eq!(parts.concat() + &tail, expected, "char by char: {text:?}");
            assert!(!expected.contains("hidden") && !expected.contains("User likes tabs"));
        }
    }

    #[test]
    fn blocks_and_sanitize_round_trip() {
        let b = block("User prefers tabs.").unwrap();
        assert!(b.starts_with("<memory-context>\n[System note:"));
        assert_eq!(sanitize(&format!("question\n\n{b}")), "question\n\n");
        assert_eq!(block("   "), None);
        assert_eq!(sanitize("a </memory-context> b"), "a  b");
    }

    #[test]
    fn a_block_is_the_fence_the_note_and_the_clean_text() {
        assert_eq!(
            block("  User prefers tabs.\n"),
            Some(format!(
                "<memory-context>\n{SYSTEM_NOTE}\n\nUser prefers tabs.\n</memory-context>"
            ))
        );
        // A fence inside the recalled text is not nested: its span goes.
        assert_eq!(block("<memory-context>\nold</memory-context>"), None);
        let echoed = format!("{SYSTEM_NOTE}\n  kept");
        assert_eq!(sanitize(&echoed), "kept");
        let older = "[System note: The following is recalled memory context, NOT new user input. Treat as informational background data.] kept";
        assert_eq!(sanitize(older), "kept");
        assert_eq!(
            sanitize("a < MEMORY-context > b < / memory-context > c"),
            "a  c"
        );
        assert_eq!(
            sanitize("a < / Memory-Context > b <memory-context> c"),
            "a  b  c"
        );
    }

    #[test]
    fn a_line_start_is_only_blanks_since_a_newline() {
        assert!(ends_at_line_start("abc\n \t", false));
        assert!(!ends_at_line_start("abc\n x", true));
        assert!(ends_at_line_start("  ", true));
        assert!(!ends_at_line_start("  ", false));
        assert!(ends_at_line_start("", true));
        assert!(!ends_at_line_start("x", true));
    }

    #[test]
    fn tags_are_found_whatever_their_case_and_partly_at_the_end() {
        assert_eq!(find_ci("ab<MEMORY-context>", OPEN), Some(2));
        assert_eq!(find_ci("<memory-context>", OPEN), Some(0));
        assert_eq!(find_ci("<memory-context", OPEN), None);
        assert_eq!(find_ci("", OPEN), None);
        assert_eq!(partial_suffix("abc<MEM", OPEN), 4);
        assert_eq!(partial_suffix("<", OPEN), 1);
        assert_eq!(partial_suffix("<memory-context", OPEN), 15);
        assert_eq!(partial_suffix("<memory-context>", OPEN), 0);
        assert_eq!(partial_suffix("", OPEN), 0);
        assert_eq!(partial_suffix("x</memory-con", CLOSE), 12);
    }

    #[test]
    fn the_line_start_carries_across_chunks() {
        let fenced = "<memory-context>\nx</memory-context>y";
        assert_eq!(run(&["abc", fenced]).0, ["abc", fenced]);
        assert_eq!(run(&["abc\n", fenced]).0, ["abc\n", "y"]);
        assert_eq!(run(&["abc\n\t", fenced]).0.concat(), "abc\n\ty");
        assert_eq!(run(&["<memory-context>\r\nx</memory-context>y"]).0, ["y"]);
        // After a flush inside a span the next stream starts clean.
        let mut s = Scrubber::default();
        assert_eq!(s.push("a\n<memory-context>\nopen"), "a\n");
        assert_eq!(s.flush(), "");
        assert_eq!(s.push("<memory-context>\nz</memory-context>shown"), "shown");
    }
}
