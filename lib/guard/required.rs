//! Literals every match of a pattern holds, read off the parsed pattern itself: a text
//! without them cannot match, so the rule's automaton need not run on it.
//!
//! The anchors say which lines a rule could match: a few words each rule is likely to hold,
//! chosen by hand. Many lines that hold an anchor still cannot match, because the pattern
//! also needs other words around it (`approved … every … command`). For the rules whose
//! automata are built lazily, running on such a line costs most of a microsecond (states
//! built for text never seen before); looking for the other words first costs a fraction of
//! that, and a rule no line needs is never compiled at all.
//!
//! The condition is derived by induction over the syntax tree: a literal needs itself; a
//! concatenation needs what each of its parts needs (adjacent literal characters joined into
//! one literal); an alternation needs what one of its branches needs; a repetition that may
//! repeat zero times, a class and an assertion need nothing. A literal too short to rule
//! much out counts as needing nothing, which only weakens the condition: what is kept is
//! implied by every match, never the reverse.
//!
//! Literals are compared ignoring ASCII case, which is implied by every rule's matching: a
//! case-folded pattern accepts a text only if the lower-cased text holds the lower-cased
//! literal, and a case-sensitive one a fortiori.

use memchr::memmem;
use regex_syntax::hir::{Class, Hir, HirKind};

/// Literals shorter than this are in nearly every line: they count as needing nothing.
const SHORTEST_USEFUL: usize = 2;

/// At most this many distinct literals (one bit each); a pattern with more is not checked.
const MOST_LITERALS: usize = 128;

/// A condition on the literals a text holds.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Need {
    /// The literal of this number.
    Literal(usize),
    /// Each of these; none: nothing is needed.
    All(Vec<Need>),
    /// One of these (at least two).
    Any(Vec<Need>),
}

const NOTHING: Need = Need::All(Vec::new());

impl Need {
    fn is_nothing(&self) -> bool {
        *self == NOTHING
    }

    /// Whether a text holding the literals whose bits are set meets the condition.
    fn met(&self, held: u128) -> bool {
        self.met_with(&mut |bit| held & (1 << bit) != 0)
    }

    /// Whether a text meets the condition, `holds` telling whether it holds a literal.
    fn met_with(&self, holds: &mut impl FnMut(usize) -> bool) -> bool {
        match self {
            Need::Literal(i) => holds(*i),
            Need::All(needs) => needs.iter().all(|n| n.met_with(holds)),
            Need::Any(needs) => needs.iter().any(|n| n.met_with(holds)),
        }
    }

    fn all(needs: Vec<Need>) -> Need {
        let mut flat = Vec::new();
        for need in needs {
            match need {
                Need::All(inner) => flat.extend(inner),
                other => flat.push(other),
            }
        }
        flat.dedup();
        match flat.len() {
            1 => flat.remove(0),
            _ => Need::All(flat),
        }
    }

    fn any(needs: Vec<Need>) -> Need {
        let mut flat = Vec::new();
        for need in needs {
            match need {
                // One branch that needs nothing: the alternation needs nothing.
                n if n.is_nothing() => return NOTHING,
                Need::Any(inner) => flat.extend(inner),
                other => flat.push(other),
            }
        }
        flat.dedup();
        match flat.len() {
            1 => flat.remove(0),
            _ => Need::Any(flat),
        }
    }
}

/// What every match of a pattern holds, ready to be checked against texts.
pub struct Required {
    need: Need,
    /// The literals, lower-cased: `Need::Literal(i)` is `finders[i]`'s.
    finders: Vec<memmem::Finder<'static>>,
}

impl Required {
    /// The condition of `hir`, leaving out what every text that holds one of `known`
    /// already meets (literals the caller found in the text before asking, such as a rule's
    /// anchors: a line reaches a rule only by holding one). `None` when nothing is left to
    /// check.
    pub fn of<S: AsRef<[u8]>>(hir: &Hir, known: &[S]) -> Option<Required> {
        let mut literals = Vec::new();
        let need = need(hir, &mut literals);
        let (need, literals) = renumbered(cheapest_first(simplified(need, &literals)), &literals);
        if literals.len() > MOST_LITERALS {
            return None;
        }
        // What each known literal brings with it: every literal it contains.
        let brought: Vec<u128> = known
            .iter()
            .map(|k| {
                let k = k.as_ref().to_ascii_lowercase();
                literals
                    .iter()
                    .enumerate()
                    .filter(|(_, l)| contains(&k, l))
                    .fold(0u128, |bits, (i, _)| bits | 1 << i)
            })
            .collect();
        let already_met = |n: &Need| !brought.is_empty() && brought.iter().all(|&b| n.met(b));
        let need = match need {
            Need::All(needs) => Need::all(needs.into_iter().filter(|n| !already_met(n)).collect()),
            other if already_met(&other) => NOTHING,
            other => other,
        };
        if need.is_nothing() {
            return None;
        }
        let finders = literals
            .iter()
            .map(|l| memmem::Finder::new(l).into_owned())
            .collect();
        Some(Required { need, finders })
    }

    /// The condition as bytes, to ship with a rule's prebuilt automaton (see
    /// `prebuilt::Entry`): the literals (a little-endian `u32` count, then each as a `u32`
    /// length and its bytes), then the condition's tree, each node a tag (0 a literal, 1 all
    /// of, 2 any of) and a `u32` (the literal's number, or how many parts follow).
    pub fn to_bytes(&self) -> Vec<u8> {
        fn node(need: &Need, out: &mut Vec<u8>) {
            let (tag, value, parts): (u8, usize, &[Need]) = match need {
                Need::Literal(i) => (0, *i, &[]),
                Need::All(needs) => (1, needs.len(), needs),
                Need::Any(needs) => (2, needs.len(), needs),
            };
            out.push(tag);
            out.extend(u32::try_from(value).unwrap_or(u32::MAX).to_le_bytes());
            for part in parts {
                node(part, out);
            }
        }
        let mut out = Vec::new();
        let count = u32::try_from(self.finders.len()).unwrap_or(u32::MAX);
        out.extend(count.to_le_bytes());
        for finder in &self.finders {
            let needle = finder.needle();
            out.extend(
                u32::try_from(needle.len())
                    .unwrap_or(u32::MAX)
                    .to_le_bytes(),
            );
            out.extend(needle);
        }
        node(&self.need, &mut out);
        out
    }

    /// The condition [`Required::to_bytes`] wrote; `None` unless `bytes` are one whole and
    /// well-formed (every literal named exists, the tree is not deeper than any pattern's).
    pub fn from_bytes(bytes: &[u8]) -> Option<Required> {
        fn u32_at(bytes: &mut &[u8]) -> Option<usize> {
            let (head, rest) = bytes.split_first_chunk::<4>()?;
            *bytes = rest;
            usize::try_from(u32::from_le_bytes(*head)).ok()
        }
        fn node(bytes: &mut &[u8], literals: usize, depth: usize) -> Option<Need> {
            let (&tag, rest) = bytes.split_first()?;
            *bytes = rest;
            let value = u32_at(bytes)?;
            if tag == 0 {
                return (value < literals).then_some(Need::Literal(value));
            }
            // Each part takes five bytes at least: no count of parts beyond them is believed.
            if depth == MAX_DEPTH || value > bytes.len() / 5 {
                return None;
            }
            let parts = (0..value)
                .map(|_| node(bytes, literals, depth + 1))
                .collect::<Option<Vec<Need>>>()?;
            match tag {
                1 => Some(Need::All(parts)),
                2 => Some(Need::Any(parts)),
                _ => None,
            }
        }
        /// Deeper than any condition a pattern gives; bounds the recursion on bad bytes.
        const MAX_DEPTH: usize = 64;
        let mut rest = bytes;
        let count = u32_at(&mut rest)?;
        if count > MOST_LITERALS {
            return None;
        }
        let mut finders = Vec::with_capacity(count);
        for _ in 0..count {
            let len = u32_at(&mut rest)?;
            let needle = rest.get(..len)?;
            rest = &rest[len..];
            finders.push(memmem::Finder::new(needle).into_owned());
        }
        let need = node(&mut rest, count, 0)?;
        (rest.is_empty() && !need.is_nothing()).then_some(Required { need, finders })
    }

    /// Whether `lowered` (a text with its ASCII letters lower-cased) holds what every match
    /// holds: false means the text holds no match. Each literal is looked for at most once,
    /// and only when the answer depends on it.
    pub fn met_by(&self, lowered: &[u8]) -> bool {
        let (mut looked, mut held) = (0u128, 0u128);
        self.need.met_with(&mut |i| {
            let bit = 1u128 << i;
            if looked & bit == 0 {
                looked |= bit;
                if self.finders[i].find(lowered).is_some() {
                    held |= bit;
                }
            }
            held & bit != 0
        })
    }

    /// The condition written out: `"a" & ("b" | "c")`.
    #[cfg(test)]
    pub fn describe(&self) -> String {
        self.write(&self.need, true)
    }

    #[cfg(test)]
    fn write(&self, need: &Need, top: bool) -> String {
        let join = |needs: &[Need], with: &str| {
            let parts: Vec<String> = needs.iter().map(|n| self.write(n, false)).collect();
            let joined = parts.join(with);
            if top { joined } else { format!("({joined})") }
        };
        match need {
            Need::Literal(i) => format!("{:?}", String::from_utf8_lossy(self.finders[*i].needle())),
            Need::All(needs) => join(needs, " & "),
            Need::Any(needs) => join(needs, " | "),
        }
    }
}

/// `need` with what is implied dropped: of two literals where one holds the other, the
/// longer from a choice (the shorter is there whenever the longer is), the shorter from a
/// conjunction (it is there whenever the longer is).
fn simplified(need: Need, literals: &[Vec<u8>]) -> Need {
    let holds = |a: &Need, b: &Need| match (a, b) {
        (Need::Literal(a), Need::Literal(b)) => a != b && contains(&literals[*a], &literals[*b]),
        _ => false,
    };
    // The parts simplified, without those that hold another part (`drop_longer`) or that
    // another part holds.
    let parts = |needs: Vec<Need>, drop_longer: bool| -> Vec<Need> {
        let needs: Vec<Need> = needs.into_iter().map(|n| simplified(n, literals)).collect();
        needs
            .iter()
            .filter(|n| {
                !needs.iter().any(|other| match drop_longer {
                    true => holds(n, other),
                    false => holds(other, n),
                })
            })
            .cloned()
            .collect()
    };
    match need {
        Need::Literal(_) => need,
        Need::All(needs) => Need::all(parts(needs, false)),
        Need::Any(needs) => Need::any(parts(needs, true)),
    }
}

/// `need` with the parts of each conjunction and choice in order of how many literals they
/// name, fewest first: a conjunction stops at its first unmet part and a choice at its first
/// met one, and a single literal settles either with one search where a choice of six takes
/// up to six.
fn cheapest_first(need: Need) -> Need {
    fn size(need: &Need) -> usize {
        match need {
            Need::Literal(_) => 1,
            Need::All(needs) | Need::Any(needs) => needs.iter().map(size).sum(),
        }
    }
    let ordered = |needs: Vec<Need>| {
        let mut needs: Vec<Need> = needs.into_iter().map(cheapest_first).collect();
        needs.sort_by_key(size);
        needs
    };
    match need {
        Need::Literal(_) => need,
        Need::All(needs) => Need::All(ordered(needs)),
        Need::Any(needs) => Need::Any(ordered(needs)),
    }
}

/// `need` over only the literals it names, numbered afresh in the order first named.
fn renumbered(need: Need, literals: &[Vec<u8>]) -> (Need, Vec<Vec<u8>>) {
    fn walk(need: Need, old: &[Vec<u8>], new: &mut Vec<Vec<u8>>) -> Need {
        match need {
            Need::Literal(i) => {
                let at = new.iter().position(|l| *l == old[i]).unwrap_or_else(|| {
                    new.push(old[i].clone());
                    new.len() - 1
                });
                Need::Literal(at)
            }
            Need::All(needs) => Need::All(needs.into_iter().map(|n| walk(n, old, new)).collect()),
            Need::Any(needs) => Need::Any(needs.into_iter().map(|n| walk(n, old, new)).collect()),
        }
    }
    let mut new = Vec::new();
    let need = walk(need, literals, &mut new);
    (need, new)
}

/// Whether `haystack` holds `needle`.
fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    needle.is_empty() || haystack.windows(needle.len()).any(|w| w == needle)
}

/// The condition every match of `hir` meets, its literals numbered in `literals`.
fn need(hir: &Hir, literals: &mut Vec<Vec<u8>>) -> Need {
    if let Some(strings) = exact_strings(hir) {
        return strings_need(&strings, literals);
    }
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) | HirKind::Class(_) | HirKind::Literal(_) => NOTHING,
        HirKind::Capture(capture) => need(&capture.sub, literals),
        HirKind::Repetition(repetition) => match repetition.min {
            0 => NOTHING,
            _ => need(&repetition.sub, literals),
        },
        HirKind::Concat(items) => {
            let mut needs = Vec::new();
            // The strings the items since the last inexact one match, one after the other.
            let mut run: Vec<Vec<u8>> = vec![Vec::new()];
            for item in items {
                if let Some(strings) = exact_strings(item) {
                    if let Some(longer) = product(&run, &strings) {
                        run = longer;
                        continue;
                    }
                    needs.push(strings_need(&run, literals));
                    run = strings;
                    continue;
                }
                needs.push(strings_need(&run, literals));
                run = vec![Vec::new()];
                needs.push(need(item, literals));
            }
            needs.push(strings_need(&run, literals));
            Need::all(needs)
        }
        HirKind::Alternation(branches) => {
            Need::any(branches.iter().map(|b| need(b, literals)).collect())
        }
    }
}

/// At most this many strings are followed through a concatenation.
const MOST_STRINGS: usize = 64;

/// The strings `hir` matches, lower-cased, when they are few: a literal, a class of one
/// letter's cases, and concatenations, alternations and options of those. An assertion
/// matches the empty string (it takes no text).
fn exact_strings(hir: &Hir) -> Option<Vec<Vec<u8>>> {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => Some(vec![Vec::new()]),
        HirKind::Literal(_) | HirKind::Class(_) => literal_bytes(hir).map(|b| vec![b]),
        HirKind::Capture(capture) => exact_strings(&capture.sub),
        HirKind::Repetition(repetition) => match (repetition.min, repetition.max) {
            (0, Some(1)) => {
                let mut strings = exact_strings(&repetition.sub)?;
                strings.push(Vec::new());
                Some(strings)
            }
            (1, Some(1)) => exact_strings(&repetition.sub),
            _ => None,
        },
        HirKind::Concat(items) => items.iter().try_fold(vec![Vec::new()], |run, item| {
            product(&run, &exact_strings(item)?)
        }),
        HirKind::Alternation(branches) => {
            let mut strings = Vec::new();
            for branch in branches {
                strings.extend(exact_strings(branch)?);
                if strings.len() > MOST_STRINGS {
                    return None;
                }
            }
            Some(strings)
        }
    }
}

/// Each of `left` followed by each of `right`, unless that makes too many.
fn product(left: &[Vec<u8>], right: &[Vec<u8>]) -> Option<Vec<Vec<u8>>> {
    if left.len() * right.len() > MOST_STRINGS {
        return None;
    }
    Some(
        left.iter()
            .flat_map(|l| right.iter().map(move |r| [l.as_slice(), r].concat()))
            .collect(),
    )
}

/// One of `strings`: nothing when one of them is too short to rule much out.
fn strings_need(strings: &[Vec<u8>], literals: &mut Vec<Vec<u8>>) -> Need {
    Need::any(strings.iter().map(|s| literal_need(s, literals)).collect())
}

/// A literal's condition: itself (numbered, lower-cased), or nothing when it is too short.
fn literal_need(literal: &[u8], literals: &mut Vec<Vec<u8>>) -> Need {
    if literal.len() < SHORTEST_USEFUL {
        return NOTHING;
    }
    let literal = literal.to_ascii_lowercase();
    let at = match literals.iter().position(|l| *l == literal) {
        Some(at) => at,
        None => {
            literals.push(literal);
            literals.len() - 1
        }
    };
    Need::Literal(at)
}

/// The bytes `hir` matches when it matches exactly one string up to ASCII case, lower-cased.
fn literal_bytes(hir: &Hir) -> Option<Vec<u8>> {
    match hir.kind() {
        HirKind::Literal(literal) => Some(literal.0.to_ascii_lowercase()),
        HirKind::Capture(capture) => literal_bytes(&capture.sub),
        HirKind::Class(class) => {
            let mut bytes = Vec::new();
            match class {
                Class::Bytes(class) => {
                    for range in class.ranges() {
                        bytes.extend(range.start()..=range.end());
                        if bytes.len() > 2 {
                            return None;
                        }
                    }
                }
                Class::Unicode(class) => {
                    for range in class.ranges() {
                        for c in u32::from(range.start())..=u32::from(range.end()) {
                            bytes.push(u8::try_from(c).ok().filter(u8::is_ascii)?);
                            if bytes.len() > 2 {
                                return None;
                            }
                        }
                    }
                }
            }
            let lower = bytes.first()?.to_ascii_lowercase();
            bytes
                .iter()
                .all(|b| b.to_ascii_lowercase() == lower)
                .then(|| vec![lower])
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::guard::engine::syntax_config;

    /// `pattern` read as the engine reads a rule's.
    fn parsed(pattern: &str, case_sensitive: bool) -> Hir {
        regex_automata::util::syntax::parse_with(pattern, &syntax_config(case_sensitive))
            .expect("pattern parses")
    }

    fn described(pattern: &str, known: &[&str]) -> Option<String> {
        Required::of(&parsed(pattern, false), known).map(|r| r.describe())
    }

    #[test]
    fn conditions_follow_the_pattern() {
        let cases: &[(&str, Option<&str>)] = &[
            // Words apart from each other are each needed; case folding is undone.
            (r"\bcurl\s+[^\n]*\|\s*sh\b", Some(r#""curl" & "sh""#)),
            // A choice is a choice; a word holding another is met whenever the other is.
            // Parts that name fewer literals come first: they settle the answer sooner.
            (
                r"(?:nc|ncat|netcat)\s+-e",
                Some(r#""-e" & ("nc" | "netcat")"#),
            ),
            (
                r"(?:every|all)\s+commands?|never\s+ask",
                Some(r#"("never" & "ask") | ("command" & ("every" | "all"))"#),
            ),
            // Options spelled out, within what a concatenation follows.
            (r"pre-?approved", Some(r#""pre-approved" | "preapproved""#)),
            (r"\bapprove(?:d|s)?\b", Some(r#""approve""#)),
            // Nothing needed: what may repeat zero times, classes, a branch without words.
            (r"(?:foo)?(?:bar)*", None),
            (r"[a-z]+\d+", None),
            (r"secret|\w+=", None),
            // Single letters are too common to look for.
            (r"a\s+b", None),
        ];
        for (pattern, want) in cases {
            assert_eq!(described(pattern, &[]).as_deref(), *want, "{pattern}");
        }
    }

    #[test]
    fn what_every_known_literal_brings_is_not_checked_again() {
        // A line reaches the rule by holding "curl" or "wget": only the rest is checked.
        let pattern = r"\b(?:curl|wget)\b[^\n]*\|\s*(?:bash|sh)\b";
        assert_eq!(
            described(pattern, &["curl", "wget"]).as_deref(),
            Some(r#""sh""#)
        );
        // An anchor that holds a longer literal brings the shorter one too.
        assert_eq!(described(r"\bssh\b.*\bkey", &["ssh-key"]), None);
        // A clause only one anchor meets is still checked.
        assert_eq!(
            described(r"curl.*\bpost\b", &["curl", "post"]).as_deref(),
            Some(r#""curl" & "post""#)
        );
    }

    /// What `to_bytes` writes reads back as the same condition, for every rule of the
    /// catalogue; bytes cut short, extended or with a bad part read as none.
    #[test]
    fn conditions_read_back_from_their_bytes_and_only_whole() {
        use crate::guard::catalogue;
        use crate::guard::rule::Detect;
        let mut read_back = 0;
        for rule in catalogue::rules() {
            let Detect::Pattern {
                pattern,
                case_sensitive,
                anchors,
                ..
            } = rule.detect
            else {
                continue;
            };
            let Some(required) = Required::of(&parsed(pattern, case_sensitive), anchors) else {
                continue;
            };
            let bytes = required.to_bytes();
            let again = Required::from_bytes(&bytes).expect("reads back");
            assert_eq!(again.need, required.need, "{}", rule.id);
            assert_eq!(again.describe(), required.describe(), "{}", rule.id);
            for cut in 0..bytes.len() {
                assert!(
                    Required::from_bytes(&bytes[..cut]).is_none(),
                    "{} cut at {cut}",
                    rule.id
                );
            }
            let mut longer = bytes.clone();
            longer.push(0);
            assert!(Required::from_bytes(&longer).is_none(), "{}", rule.id);
            read_back += 1;
        }
        assert!(read_back > 30, "{read_back} conditions");
        // A literal that is not there, an unknown tag, a condition of nothing.
        let one_literal = |tree: &[u8]| {
            let mut bytes = vec![1, 0, 0, 0, 2, 0, 0, 0, b'a', b'b'];
            bytes.extend(tree);
            Required::from_bytes(&bytes)
        };
        assert!(one_literal(&[0, 0, 0, 0, 0]).is_some());
        assert!(one_literal(&[0, 1, 0, 0, 0]).is_none());
        assert!(one_literal(&[3, 1, 0, 0, 0, 0, 0, 0, 0, 0]).is_none());
        assert!(one_literal(&[1, 0, 0, 0, 0]).is_none());
        // A count of parts beyond what the bytes can hold is not believed.
        assert!(one_literal(&[2, 255, 255, 255, 255, 0, 0, 0, 0, 0]).is_none());
    }

    #[test]
    fn texts_are_checked_for_each_needed_word() {
        let required = Required::of(
            &parsed(
                r"(?:every|all)\s+commands?\s+without\s+asking|never\s+ask",
                false,
            ),
            &[] as &[&str],
        )
        .expect("a condition");
        let met = |text: &str| required.met_by(text.to_ascii_lowercase().as_bytes());
        assert!(met("Run all commands without asking"));
        assert!(met("You never ASK"));
        assert!(!met("run all commands, asking first"));
        assert!(!met("without asking, run every step"));
        assert!(!met(""));
    }

    #[test]
    fn case_sensitive_patterns_are_checked_ignoring_case_which_only_widens() {
        let required =
            Required::of(&parsed(r"AKIA[0-9A-Z]{16}", true), &[] as &[&str]).expect("a condition");
        assert_eq!(required.describe(), r#""akia""#);
        assert!(required.met_by(b"key akiaxxxx"));
    }
}
