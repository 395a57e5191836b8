//! Where a match can start: for a pattern every match of which begins with one of a few
//! literals, the places those literals occur.
//!
//! A rule's lazy automaton searching a line unanchored carries every partial match along
//! at once, and on text it has not seen it builds a new state for nearly every byte
//! (`\bsk-[A-Za-z0-9_-]{32,}` on a line with "task-" and "desk-" in it). Searching anchored,
//! from each place one of the pattern's first literals occurs, follows one partial match at
//! a time through a handful of states that are built once and reused on every line. The
//! matches are the same: the leftmost match starts where some first literal occurs, and an
//! anchored search from there finds it with the same preference among alternatives.

use regex_automata::{Anchored, Input, Match, MatchError};
use regex_syntax::hir::Hir;
use regex_syntax::hir::literal::{ExtractKind, Extractor};

/// At most this many first literals: more, and looking for each costs more than it saves.
const MOST_LITERALS: usize = 48;

/// The literals every match of a pattern begins with, exactly as the pattern matches them
/// (each case spelled out when the pattern folds case).
pub struct Starts {
    literals: Vec<Vec<u8>>,
    /// Whether a literal may begin with each byte.
    first: [bool; 256],
}

impl Starts {
    /// The first literals of `hir`, `None` when a match may begin otherwise (a class, a
    /// repetition that may be empty) or there are too many.
    pub fn of(hir: &Hir) -> Option<Starts> {
        let mut extractor = Extractor::new();
        extractor
            .kind(ExtractKind::Prefix)
            .limit_total(MOST_LITERALS)
            .limit_class(4)
            .limit_literal_len(16);
        let seq = extractor.extract(hir);
        let found = seq.literals()?;
        Starts::from_literals(found.iter().map(|l| l.as_bytes().to_vec()).collect())
    }

    /// Places where one of `literals` occurs, as [`Starts::of`] a pattern whose matches all
    /// begin with one of them (shipped with a rule's prebuilt automaton, see
    /// `prebuilt::Entry`); `None` when there is none, or one is empty.
    pub fn from_literals(mut literals: Vec<Vec<u8>>) -> Option<Starts> {
        if literals.is_empty() || literals.iter().any(Vec::is_empty) {
            return None;
        }
        literals.sort();
        literals.dedup();
        // One that begins with another occurs only where the other does.
        let all = literals.clone();
        literals.retain(|l| !all.iter().any(|other| other != l && l.starts_with(other)));
        let mut first = [false; 256];
        for literal in &literals {
            first[usize::from(literal[0])] = true;
        }
        Some(Starts { literals, first })
    }

    /// The literals, in byte order; none begins with another.
    pub fn literals(&self) -> &[Vec<u8>] {
        &self.literals
    }

    /// The matches in `haystack`, leftmost first and not overlapping, of a pattern every
    /// match of which begins with one of the literals, handed to `f` until it returns
    /// `Some`; `search` finds the match anchored at the start of its input, if any. The next
    /// match is the first found anchored at a place a literal occurs, from the end of the
    /// last one on; look-behind still sees the bytes before each place.
    pub fn each_match<T>(
        &self,
        haystack: &[u8],
        mut search: impl FnMut(&Input<'_>) -> Result<Option<Match>, MatchError>,
        mut f: impl FnMut(Match) -> Option<T>,
    ) -> Result<Option<T>, MatchError> {
        let mut from = 0;
        while let Some(at) = self.in_text(haystack, from).next() {
            let input = Input::new(haystack)
                .span(at..haystack.len())
                .anchored(Anchored::Yes);
            from = at + 1;
            if let Some(m) = search(&input)? {
                if let Some(found) = f(m) {
                    return Ok(Some(found));
                }
                from = from.max(m.end());
            }
        }
        Ok(None)
    }

    /// The offsets of `haystack`, from `from` on and in order, at which one of the literals
    /// occurs.
    pub fn in_text<'h>(
        &'h self,
        haystack: &'h [u8],
        from: usize,
    ) -> impl Iterator<Item = usize> + 'h {
        (from..haystack.len()).filter(move |&at| {
            self.first[usize::from(haystack[at])]
                && self
                    .literals
                    .iter()
                    .any(|literal| haystack[at..].starts_with(literal))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::guard::engine::syntax_config;

    fn starts(pattern: &str, case_sensitive: bool) -> Option<Vec<String>> {
        let hir = regex_automata::util::syntax::parse_with(pattern, &syntax_config(case_sensitive))
            .expect("pattern parses");
        Starts::of(&hir).map(|s| {
            s.literals
                .iter()
                .map(|l| String::from_utf8_lossy(l).into_owned())
                .collect()
        })
    }

    #[test]
    fn first_literals_are_read_off_the_pattern() {
        assert_eq!(
            starts(r"\bsk-(?:proj-)?[a-z0-9]{32,}", true),
            Some(vec!["sk-".to_string()])
        );
        assert_eq!(
            starts(r"(?:nc|netcat)\s+-e", true),
            Some(vec!["nc".to_string(), "netcat".to_string()])
        );
        // Case folding spells out each case.
        assert_eq!(starts(r"ab\d", false).map(|l| l.len()), Some(4));
        // A match that may begin with any letter, or with nothing in particular.
        assert_eq!(starts(r"[a-z]+@", true), None);
        assert_eq!(starts(r"(?:x)?y*z?", true), None);
    }

    #[test]
    fn places_are_where_a_first_literal_occurs() {
        let hir = regex_automata::util::syntax::parse_with(r"(?:ab|b)\d", &syntax_config(true))
            .expect("pattern parses");
        let starts = Starts::of(&hir).expect("first literals");
        let found: Vec<usize> = starts.in_text(b"abcb bab", 0).collect();
        assert_eq!(found, vec![0, 1, 3, 5, 6, 7]);
        let found: Vec<usize> = starts.in_text(b"abcb bab", 2).collect();
        assert_eq!(found, vec![3, 5, 6, 7]);
    }
}
