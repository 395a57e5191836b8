//! Characters that hide or disguise text: unicode tag characters (the U+E0000 block spells
//! ASCII nobody sees), bidirectional controls (Trojan Source), zero-width characters,
//! variation selectors used as a data channel, look-alike letters from another script inside
//! a Latin word, and raw terminal control characters.
//!
//! Reports are deterministic: one finding per rule and line, naming every distinct character
//! of the line in code-point order. A byte-order mark at the very start of a file is how
//! some editors save UTF-8 and is not reported.

use std::collections::BTreeSet;

use super::catalogue::ids;
use super::lines::Lines;

/// A hidden-character finding on one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnicodeHit {
    pub rule: &'static str,
    pub line: usize,
    /// Byte span (within the line) of the first offending character.
    pub start: usize,
    pub end: usize,
    /// What was found, for the message.
    pub detail: String,
}

/// Every hidden-character finding in `text`, by line, then rule.
pub fn check(text: &str, lines: &Lines) -> Vec<UnicodeHit> {
    let bytes = text.as_bytes();
    let Some(first) = next_look(bytes, 0) else {
        return Vec::new();
    };
    let mut found = Found::default();
    let mut at = first;
    while at < bytes.len() {
        let b = bytes[at];
        if !needs_look(b) {
            match next_look(bytes, at + 1) {
                Some(next) => at = next,
                None => break,
            }
            continue;
        }
        let width = utf8_width(b);
        // Most non-ASCII text (accents, CJK, emoji, dashes) can hold nothing of interest:
        // skip it by its lead byte without decoding.
        if b >= 0x80 && !interesting_lead(b)
            || b == 0xE2 && !interesting_after_e2(bytes.get(at + 1..at + 3))
        {
            at += width;
            continue;
        }
        let Some(c) = text[at..].chars().next() else {
            break;
        };
        let width = c.len_utf8();
        let prev = text[..at].chars().next_back();
        let next = text[at + width..].chars().next();
        if let Some((rule, name)) = classify(c, at, prev, next) {
            found.add(rule, c, name, at, width, lines);
        } else if is_confusable(c) {
            found.homoglyph(text, at, c, lines);
        }
        at += width;
    }
    found.finish()
}

/// The length of the UTF-8 sequence a byte starts (1 for ASCII and stray bytes).
fn utf8_width(lead: u8) -> usize {
    match lead {
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        _ => 1,
    }
}

/// Whether the two bytes after an E2 lead make one of the U+2xxx characters [`classify`]
/// looks at: U+200B–U+200F, U+202A–U+202E, U+2060–U+2064 and U+2066–U+2069. Dashes, quotes,
/// bullets, arrows, box drawing and check marks share that lead and are most of the
/// non-ASCII text of skills: decoding each (and its neighbours) was most of this pass.
fn interesting_after_e2(next: Option<&[u8]>) -> bool {
    matches!(
        next,
        Some([0x80, 0x8B..=0x8F | 0xAA..=0xAE] | [0x81, 0xA0..=0xA4 | 0xA6..=0xA9])
    )
}

/// Lead bytes of the characters [`classify`] and [`is_confusable`] look at: C1 controls
/// (C2), ɡ (C9), Greek (CE CF), Cyrillic (D0 D1 D3 D4), the Arabic letter mark (D8),
/// U+1xxx fillers and separators (E1), U+2xxx formatting (E2), U+3164 (E3), U+FExx and
/// U+FFA0 (EF), tag characters and variation selectors (F3).
fn interesting_lead(b: u8) -> bool {
    matches!(
        b,
        0xC2 | 0xC9
            | 0xCE
            | 0xCF
            | 0xD0
            | 0xD1
            | 0xD3
            | 0xD4
            | 0xD8
            | 0xE1
            | 0xE2
            | 0xE3
            | 0xEF
            | 0xF3
    )
}

/// The next byte from `from` that [`needs_look`]. Plain text is skipped a block at a
/// time: the test of a whole block is a branch-free pass the compiler turns into vector
/// compares, and only a block that holds such a byte is searched byte by byte.
fn next_look(bytes: &[u8], from: usize) -> Option<usize> {
    const BLOCK: usize = 64;
    let rest = bytes.get(from..)?;
    let mut blocks = rest.chunks_exact(BLOCK);
    let mut at = from;
    for block in blocks.by_ref() {
        if block_needs_look(block) {
            return block.iter().position(|&b| needs_look(b)).map(|i| at + i);
        }
        at += BLOCK;
    }
    blocks
        .remainder()
        .iter()
        .position(|&b| needs_look(b))
        .map(|i| at + i)
}

/// Whether any of the 64 bytes of `block` [`needs_look`], sixteen at a time: the
/// compiler's vectors for the fold below took 1.2 instructions a byte, the one pass over
/// every byte of every file this check is.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline]
fn block_needs_look(block: &[u8]) -> bool {
    use std::arch::x86_64::{
        __m128i, _mm_andnot_si128, _mm_cmpeq_epi8, _mm_cmplt_epi8, _mm_loadu_si128, _mm_min_epu8,
        _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8, _mm_setzero_si128, _mm_sub_epi8,
    };
    debug_assert_eq!(block.len(), 64);
    // SAFETY: SSE2 is enabled for the whole build (the `cfg` above), and each load reads 16
    // bytes of `block`, which `chunks_exact` guarantees.
    unsafe {
        let mut any = _mm_setzero_si128();
        for lane in block.chunks_exact(16) {
            let x = _mm_loadu_si128(lane.as_ptr().cast::<__m128i>());
            // Below 0x20 or from 0x80 on: both are negative or small as signed bytes.
            let low_or_high = _mm_cmplt_epi8(x, _mm_set1_epi8(0x20));
            let delete = _mm_cmpeq_epi8(x, _mm_set1_epi8(0x7f));
            // Tab, line feed, form feed and carriage return (9, 10, 12, 13) pass: 9..=13
            // but vertical tab (11).
            let from_tab = _mm_sub_epi8(x, _mm_set1_epi8(9));
            let tab_to_cr = _mm_cmpeq_epi8(_mm_min_epu8(from_tab, _mm_set1_epi8(4)), from_tab);
            let vertical_tab = _mm_cmpeq_epi8(x, _mm_set1_epi8(11));
            let passes = _mm_andnot_si128(vertical_tab, tab_to_cr);
            let flagged = _mm_andnot_si128(passes, _mm_or_si128(low_or_high, delete));
            any = _mm_or_si128(any, flagged);
        }
        _mm_movemask_epi8(any) != 0
    }
}

#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
fn block_needs_look(block: &[u8]) -> bool {
    block.iter().fold(false, |any, &b| any | needs_look(b))
}

fn needs_look(b: u8) -> bool {
    b >= 0x7f || (b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0c))
}

/// Which rule a character falls under, if any, with its name.
fn classify(
    c: char,
    offset: usize,
    prev: Option<char>,
    next: Option<char>,
) -> Option<(&'static str, &'static str)> {
    let code = c as u32;
    match code {
        0xE0000..=0xE007F => Some((ids::TAG_CHARACTERS, "TAG CHARACTER")),
        0x202A => Some((ids::BIDI_CONTROL, "LEFT-TO-RIGHT EMBEDDING")),
        0x202B => Some((ids::BIDI_CONTROL, "RIGHT-TO-LEFT EMBEDDING")),
        0x202C => Some((ids::BIDI_CONTROL, "POP DIRECTIONAL FORMATTING")),
        0x202D => Some((ids::BIDI_CONTROL, "LEFT-TO-RIGHT OVERRIDE")),
        0x202E => Some((ids::BIDI_CONTROL, "RIGHT-TO-LEFT OVERRIDE")),
        0x2066 => Some((ids::BIDI_CONTROL, "LEFT-TO-RIGHT ISOLATE")),
        0x2067 => Some((ids::BIDI_CONTROL, "RIGHT-TO-LEFT ISOLATE")),
        0x2068 => Some((ids::BIDI_CONTROL, "FIRST STRONG ISOLATE")),
        0x2069 => Some((ids::BIDI_CONTROL, "POP DIRECTIONAL ISOLATE")),
        // Marks that right-to-left text uses legitimately; suspicious only in Latin text.
        0x200E | 0x200F | 0x061C if !near_rtl(prev, next) => Some((
            ids::BIDI_CONTROL,
            match code {
                0x200E => "LEFT-TO-RIGHT MARK",
                0x200F => "RIGHT-TO-LEFT MARK",
                _ => "ARABIC LETTER MARK",
            },
        )),
        0x200B => Some((ids::ZERO_WIDTH, "ZERO WIDTH SPACE")),
        0x200C if !near_joining_script(prev, next) => {
            Some((ids::ZERO_WIDTH, "ZERO WIDTH NON-JOINER"))
        }
        0x200D if !joins_emoji(prev, next) && !near_joining_script(prev, next) => {
            Some((ids::ZERO_WIDTH, "ZERO WIDTH JOINER"))
        }
        0x2060 => Some((ids::ZERO_WIDTH, "WORD JOINER")),
        0x2061 => Some((ids::ZERO_WIDTH, "FUNCTION APPLICATION")),
        0x2062 => Some((ids::ZERO_WIDTH, "INVISIBLE TIMES")),
        0x2063 => Some((ids::ZERO_WIDTH, "INVISIBLE SEPARATOR")),
        0x2064 => Some((ids::ZERO_WIDTH, "INVISIBLE PLUS")),
        0x180E => Some((ids::ZERO_WIDTH, "MONGOLIAN VOWEL SEPARATOR")),
        0x115F | 0x1160 | 0x3164 | 0xFFA0 => Some((ids::ZERO_WIDTH, "HANGUL FILLER")),
        0x17B4 | 0x17B5 => Some((ids::ZERO_WIDTH, "KHMER INHERENT VOWEL")),
        // A byte-order mark opening the file is an encoding signature, not content.
        0xFEFF if offset > 0 => Some((ids::ZERO_WIDTH, "ZERO WIDTH NO-BREAK SPACE")),
        0xE0100..=0xE01EF if !prev.is_some_and(is_ideograph) => {
            Some((ids::VARIATION_SELECTORS, "VARIATION SELECTOR SUPPLEMENT"))
        }
        0xFE00..=0xFE0F if prev.is_some_and(is_variation_selector) => {
            Some((ids::VARIATION_SELECTORS, "VARIATION SELECTOR"))
        }
        0x1B => Some((ids::TERMINAL_ESCAPE, "ESCAPE")),
        0x00..=0x1F | 0x7F..=0x9F => Some((ids::TERMINAL_ESCAPE, "CONTROL CHARACTER")),
        _ => None,
    }
}

fn is_variation_selector(c: char) -> bool {
    matches!(c as u32, 0xFE00..=0xFE0F | 0xE0100..=0xE01EF)
}

fn is_ideograph(c: char) -> bool {
    matches!(c as u32, 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x3FFFF)
}

fn is_emoji(c: char) -> bool {
    matches!(c as u32,
        0x1F000..=0x1FAFF | 0x2600..=0x27BF | 0x2300..=0x23FF | 0x2B00..=0x2BFF
        | 0xFE0F | 0x20E3 | 0xE0020..=0xE007F)
}

fn joins_emoji(prev: Option<char>, next: Option<char>) -> bool {
    prev.is_some_and(is_emoji) && next.is_some_and(is_emoji)
}

/// Scripts whose shaping uses zero-width joiners and non-joiners (Arabic, Persian, Syriac,
/// the Indic scripts, Thai, Tibetan, Myanmar, Khmer, Sinhala).
fn is_joining_script(c: char) -> bool {
    matches!(c as u32,
        0x0600..=0x08FF | 0x0900..=0x0DFF | 0x0E00..=0x0FFF
        | 0x1000..=0x109F | 0x1780..=0x17FF | 0xFB50..=0xFDFF | 0xFE70..=0xFEFC)
}

fn near_joining_script(prev: Option<char>, next: Option<char>) -> bool {
    prev.is_some_and(is_joining_script) || next.is_some_and(is_joining_script)
}

fn is_rtl(c: char) -> bool {
    matches!(c as u32, 0x0590..=0x08FF | 0xFB1D..=0xFDFF | 0xFE70..=0xFEFC)
}

fn near_rtl(prev: Option<char>, next: Option<char>) -> bool {
    prev.is_some_and(is_rtl) || next.is_some_and(is_rtl)
}

/// Cyrillic and Greek letters that look like Latin ones.
fn is_confusable(c: char) -> bool {
    matches!(
        c,
        'а' | 'в'
            | 'е'
            | 'к'
            | 'м'
            | 'н'
            | 'о'
            | 'р'
            | 'с'
            | 'т'
            | 'у'
            | 'х'
            | 'і'
            | 'ј'
            | 'ѕ'
            | 'ԁ'
            | 'ԛ'
            | 'ԝ'
            | 'ӏ'
            | 'ү'
            | 'һ'
            | 'ɡ'
            | 'А'
            | 'В'
            | 'Е'
            | 'К'
            | 'М'
            | 'Н'
            | 'О'
            | 'Р'
            | 'С'
            | 'Т'
            | 'Х'
            | 'І'
            | 'Ј'
            | 'Ѕ'
            | 'ο'
            | 'α'
            | 'ν'
            | 'ρ'
            | 'ι'
            | 'κ'
            | 'υ'
            | 'Α'
            | 'Β'
            | 'Ε'
            | 'Ζ'
            | 'Η'
            | 'Ι'
            | 'Κ'
            | 'Μ'
            | 'Ν'
            | 'Ο'
            | 'Ρ'
            | 'Τ'
            | 'Υ'
            | 'Χ'
    )
}

fn script_name(c: char) -> &'static str {
    match c as u32 {
        0x0370..=0x03FF => "Greek",
        0x0250..=0x02AF => "IPA",
        _ => "Cyrillic",
    }
}

#[derive(Default)]
struct Found {
    /// (line, rule) → characters seen and first position.
    entries: Vec<Entry>,
}

struct Entry {
    line: usize,
    rule: &'static str,
    start: usize,
    end: usize,
    chars: BTreeSet<(u32, &'static str)>,
    hidden: String,
    words: Vec<String>,
}

impl Found {
    fn entry(&mut self, rule: &'static str, line: usize, start: usize, end: usize) -> &mut Entry {
        let at = self
            .entries
            .iter()
            .rposition(|e| e.line == line && e.rule == rule);
        match at {
            Some(i) => &mut self.entries[i],
            None => {
                self.entries.push(Entry {
                    line,
                    rule,
                    start,
                    end,
                    chars: BTreeSet::new(),
                    hidden: String::new(),
                    words: Vec::new(),
                });
                let last = self.entries.len() - 1;
                &mut self.entries[last]
            }
        }
    }

    fn add(
        &mut self,
        rule: &'static str,
        c: char,
        name: &'static str,
        at: usize,
        width: usize,
        lines: &Lines,
    ) {
        let line = lines.line_of(at);
        let start = at - lines.start(line);
        let entry = self.entry(rule, line, start, start + width);
        entry.chars.insert((c as u32, name));
        if rule == ids::TAG_CHARACTERS
            && let Some(ascii) = char::from_u32(c as u32 - 0xE0000)
            && (' '..='~').contains(&ascii)
        {
            entry.hidden.push(ascii);
        }
    }

    fn homoglyph(&mut self, text: &str, at: usize, c: char, lines: &Lines) {
        // Only a look-alike touching a Latin letter disguises a word; Greek letters next to
        // `_`, digits or operators are mathematics (`z_α`, `σ²`).
        let before = text[..at].chars().next_back();
        let after = text[at + c.len_utf8()..].chars().next();
        let touches_latin = |ch: Option<char>| ch.is_some_and(|ch| ch.is_ascii_alphabetic());
        if !touches_latin(before) && !touches_latin(after) {
            return;
        }
        let is_word = |ch: char| ch.is_alphanumeric() || ch == '_';
        let start = text[..at]
            .char_indices()
            .rev()
            .take_while(|&(_, ch)| is_word(ch))
            .last()
            .map_or(at, |(i, _)| i);
        let end = text[at..]
            .char_indices()
            .find(|&(_, ch)| !is_word(ch))
            .map_or(text.len(), |(i, _)| at + i);
        let word = &text[start..end];
        if !word.chars().any(|ch| ch.is_ascii_alphabetic()) {
            return;
        }
        let line = lines.line_of(at);
        let line_start = lines.start(line);
        let entry = self.entry(
            ids::MIXED_SCRIPT,
            line,
            at - line_start,
            at - line_start + c.len_utf8(),
        );
        entry.chars.insert((c as u32, script_name(c)));
        if !entry.words.iter().any(|w| w == word) {
            entry.words.push(word.to_string());
        }
    }

    fn finish(mut self) -> Vec<UnicodeHit> {
        self.entries.sort_by_key(|e| (e.line, rule_rank(e.rule)));
        self.entries
            .into_iter()
            .map(|e| UnicodeHit {
                rule: e.rule,
                line: e.line,
                start: e.start,
                end: e.end,
                detail: describe(&e),
            })
            .collect()
    }
}

fn rule_rank(rule: &str) -> usize {
    [
        ids::TAG_CHARACTERS,
        ids::BIDI_CONTROL,
        ids::ZERO_WIDTH,
        ids::VARIATION_SELECTORS,
        ids::MIXED_SCRIPT,
        ids::TERMINAL_ESCAPE,
    ]
    .iter()
    .position(|r| *r == rule)
    .unwrap_or(usize::MAX)
}

fn describe(e: &Entry) -> String {
    if e.rule == ids::MIXED_SCRIPT {
        let letters: Vec<String> = e
            .chars
            .iter()
            .map(|(code, script)| {
                let c = char::from_u32(*code).unwrap_or('?');
                format!("{script} '{c}' U+{code:04X}")
            })
            .collect();
        return format!("{} ({})", e.words.join(", "), letters.join(", "));
    }
    if e.rule == ids::TAG_CHARACTERS {
        let count = e.chars.len();
        let hidden: String = e.hidden.chars().take(80).collect();
        return format!("{count} distinct tag characters spelling \"{hidden}\"");
    }
    e.chars
        .iter()
        .map(|(code, name)| format!("U+{code:04X} {name}"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str) -> Vec<(usize, &'static str, String)> {
        let lines = Lines::new(text);
        check(text, &lines)
            .into_iter()
            .map(|h| (h.line, h.rule, h.detail))
            .collect()
    }

    #[test]
    fn leading_bom_is_not_a_finding_but_an_inner_one_is() {
        assert!(run("\u{feff}---\nname: x\n").is_empty());
        assert_eq!(
            run("a\u{feff}b"),
            vec![(
                0,
                ids::ZERO_WIDTH,
                "U+FEFF ZERO WIDTH NO-BREAK SPACE".to_string()
            )]
        );
    }

    #[test]
    fn several_characters_on_a_line_are_reported_in_code_point_order() {
        let text = "x\u{202e}y\u{200b}z\u{2066}";
        let out = run(text);
        assert_eq!(
            out,
            vec![
                (
                    0,
                    ids::BIDI_CONTROL,
                    "U+202E RIGHT-TO-LEFT OVERRIDE, U+2066 LEFT-TO-RIGHT ISOLATE".to_string()
                ),
                (0, ids::ZERO_WIDTH, "U+200B ZERO WIDTH SPACE".to_string()),
            ]
        );
        // Same every time: no hash order anywhere.
        for _ in 0..10 {
            assert_eq!(run(text), out);
        }
    }

    #[test]
    fn tag_characters_are_decoded() {
        let hidden: String = "run rm"
            .chars()
            .map(|c| char::from_u32(0xE0000 + c as u32).expect("tag"))
            .collect();
        let out = run(&format!("Nice skill.{hidden}\n"));
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].1, ids::TAG_CHARACTERS);
        assert!(out[0].2.ends_with("spelling \"run rm\""), "{}", out[0].2);
    }

    #[test]
    fn legitimate_joiners_pass() {
        assert!(run("family: 👨\u{200d}👩\u{200d}👧").is_empty());
        assert!(run("فارسی: می\u{200c}خواهم").is_empty());
        assert!(run("日本\u{e0100}").is_empty());
        assert!(run("שלום\u{200f} world").is_empty());
        assert_eq!(run("hello\u{200f} world")[0].1, ids::BIDI_CONTROL);
    }

    #[test]
    fn homoglyphs_inside_latin_words() {
        let out = run("curl https://pаypal.com/login\nПривет мир\nμs timing, z_α, σ²");
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].0, 0);
        assert_eq!(out[0].1, ids::MIXED_SCRIPT);
        assert_eq!(out[0].2, "pаypal (Cyrillic 'а' U+0430)");
    }

    /// The vector test flags exactly the bytes the byte test does, at every place of a block.
    #[test]
    fn the_block_test_agrees_with_the_byte_test() {
        for byte in 0..=u8::MAX {
            for at in [0, 1, 15, 16, 31, 47, 48, 63] {
                let mut block = [b'a'; 64];
                block[at] = byte;
                assert_eq!(
                    block_needs_look(&block),
                    needs_look(byte),
                    "{byte:#x} at {at}"
                );
            }
        }
        assert!(!block_needs_look(&[b'\n'; 64]));
        assert!(!block_needs_look(
            b"\t\r\x0c plain text, tabs\tand\r\nline ends; a block of sixty-four bytes"
        ));
    }

    #[test]
    fn the_word_skip_finds_every_kind_of_byte() {
        for (i, special) in ["\u{1b}", "\u{7f}", "é", "\u{200b}", "\u{0}"]
            .iter()
            .enumerate()
        {
            for pad in 0..17 {
                let text = format!("{}{special}{}", "a\n\t".repeat(pad), "z".repeat(i));
                let at = text.find(special).expect("special");
                assert_eq!(next_look(text.as_bytes(), 0), Some(at), "{text:?}");
            }
        }
        assert_eq!(next_look(b"plain ascii text\nwith lines\r\n", 0), None);
        // A control byte next to a newline, in every position of a word.
        for control in [0x01u8, 0x0b, 0x1f, 0x00] {
            for at in 0..8 {
                let mut text = b"\n\n\n\n\n\n\n\n\n".to_vec();
                text[at] = control;
                assert_eq!(next_look(&text, 0), Some(at), "{text:?}");
            }
        }
        assert_eq!(next_look(b"\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n", 0), None);
    }

    #[test]
    fn terminal_escapes() {
        let out = run("title\x1b[2K\x1b[1Ahidden");
        assert_eq!(
            out,
            vec![(0, ids::TERMINAL_ESCAPE, "U+001B ESCAPE".to_string())]
        );
    }

    /// The skip by the bytes after an E2 lead passes over no character of U+2000–U+2FFF
    /// that a rule would name, whatever stands beside it (right-to-left and joining
    /// scripts, emoji, ideographs, nothing).
    #[test]
    fn the_e2_skip_passes_over_nothing_a_rule_names() {
        let neighbours = [
            None,
            Some('a'),
            Some('\u{05d0}'),
            Some('\u{0915}'),
            Some('\u{1f600}'),
            Some('\u{2600}'),
            Some('\u{4e00}'),
            Some('\u{fe00}'),
        ];
        let mut named = 0;
        for code in 0x2000..=0x2FFFu32 {
            let Some(c) = char::from_u32(code) else {
                continue;
            };
            let mut utf8 = [0u8; 4];
            let bytes = c.encode_utf8(&mut utf8).as_bytes();
            assert_eq!(bytes[0], 0xE2);
            let looked_at = interesting_after_e2(bytes.get(1..3));
            let would_name = neighbours.iter().any(|&prev| {
                neighbours
                    .iter()
                    .any(|&next| classify(c, 5, prev, next).is_some())
            }) || is_confusable(c);
            assert!(looked_at || !would_name, "U+{code:04X} skipped but named");
            named += usize::from(would_name);
        }
        assert_eq!(
            named, 19,
            "the zero-width, bidi and invisible operators of U+2xxx"
        );
        // In a text, among dashes, arrows and box drawing.
        let text = "a \u{2014} b \u{2192} \u{251c}\u{2500} c\u{200b}d \u{2705} e\u{2066}f";
        let found: Vec<_> = run(text).into_iter().map(|(_, rule, _)| rule).collect();
        assert_eq!(found, vec![ids::BIDI_CONTROL, ids::ZERO_WIDTH]);
    }
}
