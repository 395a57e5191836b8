//! Rule automata built ahead of time and shipped in the binary.
//!
//! A rule's lazy DFA spends most of its cost not searching but being made: the pattern
//! parsed and compiled to an NFA, then each DFA state built the first time a search reaches
//! it. For the rules whose complete DFAs are small, all of that is done once, when the
//! catalogue changes: `rule-dfas.bin` holds their forward and reverse DFAs, minimized and
//! dense, and a scan reads them in place and walks them. Dense, not sparse: a sparse DFA is
//! a third of the size but costs several times as much per byte searched, more than the lazy
//! DFA it replaces.
//!
//! A rule whose unanchored DFA would be large (a filler such as `(?:\w+\s+)*?` between
//! alternatives multiplies its states) can still have a small anchored one: searched from
//! each place one of the pattern's first literals occurs (see [`super::starts`]), it follows
//! one partial match at a time. Such an entry ships that DFA, the literals and what every
//! match holds (the check before a search), and a scan needs neither to parse the pattern
//! nor to compile it, nor builds any state on a line it has not seen: before, these few
//! rules' parsing, compiling and lazy states were a twentieth of a scan of many skills. The
//! rest (no first literals, or too large even anchored) keep their lazy DFAs, which build
//! only the states a scan visits. The scanner's own patterns that weigh where a match sits
//! are shipped the same way, under their names (`pattern`).
//!
//! The file is linked only into binaries that ask for it ([`enable`], called by
//! hermes-skill-scan before its first scan): the other binaries scan a skill now and then,
//! and for them the lazy DFAs are fast enough and 18 MB smaller.
//!
//! Each entry carries a fingerprint of what its DFA was built from (the rule's pattern, its
//! case handling and the recipe below). An entry whose fingerprint no longer matches its rule
//! is ignored and the rule compiled as before, so a stale file costs time, never a wrong
//! match; the test `prebuilt_dfas_are_current` fails until the file is made again with
//! `make rule-dfas`. A file the DFA library cannot read (another version's format, a
//! big-endian machine) is ignored the same way.

use std::sync::OnceLock;

use regex_automata::dfa::{Automaton as _, dense, regex::Regex};
use regex_automata::util::iter::Searcher;
use regex_automata::{Input, Match, MatchError};

use super::catalogue;
use super::required::Required;
use super::rule::Detect;
use super::starts::Starts;

/// The bytes of a file, aligned for the DFAs' `u32` transitions.
#[repr(C)]
struct Aligned<Bytes: ?Sized> {
    _align: [u32; 0],
    bytes: Bytes,
}

/// The DFAs, as `make rule-dfas` writes them: each starts on a multiple of four bytes.
static FILE: &Aligned<[u8]> = &Aligned {
    _align: [],
    bytes: *include_bytes!("rule-dfas.bin"),
};

/// The anchor automaton, built ahead of time as well ([`super::anchors::Anchors::shipped`]).
static ANCHORS_FILE: &Aligned<[u8]> = &Aligned {
    _align: [],
    bytes: *include_bytes!("anchors.bin"),
};

/// The file's first bytes; the digit is the version of its layout.
const MAGIC: &[u8; 8] = b"HRULDFA2";

/// How the DFAs of a [`Kind::Unanchored`] entry are built; part of its fingerprint, so
/// changing it makes each such entry stale.
const RECIPE: &str = "v2: bytes, ASCII classes, multi-line; leftmost-first forward, \
                      anchored all-matches reverse; at most 1 MiB each, minimized; dense";

/// How the DFA of a [`Kind::FromFirstLiterals`] entry is built, and its literals found.
const RECIPE_FROM_FIRST_LITERALS: &str = "v1: bytes, ASCII classes, multi-line; anchored \
                      leftmost-first forward from each first literal (prefix literals, at \
                      most 48, classes of 4, 16 bytes long); built within 4 MiB, at most 1 MiB \
                      minimized; dense";

/// What an entry holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// An unanchored forward DFA (where matches end) and an anchored reverse one (where
    /// they start).
    Unanchored,
    /// An anchored forward DFA and the literals every match begins with.
    FromFirstLiterals,
}

impl Kind {
    /// The kind as the file writes it (only `make rule-dfas` writes it); [`Kind::from_code`]
    /// reads it back.
    #[cfg(test)]
    fn code(self) -> u32 {
        match self {
            Kind::Unanchored => 0,
            Kind::FromFirstLiterals => 1,
        }
    }

    fn from_code(code: usize) -> Option<Kind> {
        match code {
            0 => Some(Kind::Unanchored),
            1 => Some(Kind::FromFirstLiterals),
            _ => None,
        }
    }

    fn recipe(self) -> &'static str {
        match self {
            Kind::Unanchored => RECIPE,
            Kind::FromFirstLiterals => RECIPE_FROM_FIRST_LITERALS,
        }
    }
}

/// A prebuilt DFA, read in place from the binary.
type PrebuiltDfa = dense::DFA<&'static [u32]>;

/// A prebuilt rule automaton (boxed: a DFA's header is most of a kilobyte, and the engine
/// keeps a place for one per rule).
pub(super) enum Prebuilt {
    /// Searched unanchored, both ends found by the two DFAs.
    Regex(Box<Regex<PrebuiltDfa>>),
    /// Searched anchored from each place a first literal occurs.
    FromFirstLiterals(Box<(PrebuiltDfa, Starts)>),
}

impl Prebuilt {
    /// Whether `haystack` holds a match; an error as for [`Prebuilt::find_map`].
    pub(super) fn is_match(&self, haystack: &[u8]) -> Result<bool, MatchError> {
        match self {
            // Only the forward DFA, stopping at the first match state it reaches.
            Prebuilt::Regex(regex) => Ok(regex
                .forward()
                .try_search_fwd(&Input::new(haystack).earliest(true))?
                .is_some()),
            Prebuilt::FromFirstLiterals(_) => Ok(self.find_map(haystack, |_| Some(()))?.is_some()),
        }
    }

    /// Calls `f` on each match in `haystack`, leftmost first and not overlapping, until it
    /// returns `Some`. An error means the automaton cannot answer for this haystack (never
    /// expected: these DFAs have no quit bytes and hold the start states their searches
    /// use); the caller then asks another.
    pub(super) fn find_map<T>(
        &self,
        haystack: &[u8],
        mut f: impl FnMut(Match) -> Option<T>,
    ) -> Result<Option<T>, MatchError> {
        match self {
            Prebuilt::Regex(regex) => {
                let mut matches = Searcher::new(Input::new(haystack));
                while let Some(m) = matches.try_advance(|input| regex.try_search(input))? {
                    if let Some(found) = f(m) {
                        return Ok(Some(found));
                    }
                }
                Ok(None)
            }
            Prebuilt::FromFirstLiterals(anchored) => {
                let (forward, starts) = &**anchored;
                let search = |input: &Input<'_>| {
                    Ok(forward
                        .try_search_fwd(input)?
                        .map(|end| Match::new(end.pattern(), input.start()..end.offset())))
                };
                starts.each_match(haystack, search, f)
            }
        }
    }
}

/// A rule's serialized automaton.
#[derive(Clone, Copy)]
pub(super) struct Entry {
    kind: Kind,
    forward: &'static [u8],
    /// The reverse DFA ([`Kind::Unanchored`]); or ([`Kind::FromFirstLiterals`]) the length
    /// of the first literals' part as a little-endian `u32`, that part (each literal a `u32`
    /// length and its bytes), then what every match holds (see [`Required::to_bytes`];
    /// nothing when there is nothing to check).
    rest: &'static [u8],
}

impl Entry {
    /// The automaton, or `None` when the bytes do not read as DFAs (a format of another
    /// version of the library, a big-endian machine, a misaligned slice).
    ///
    /// Read without checking every transition: that check touches each page of the table
    /// and costs about what the search saves. The bytes are the shipped file's, which
    /// `every_prebuilt_dfa_reads_checked` reads with every check.
    pub(super) fn automaton(self) -> Option<Prebuilt> {
        // SAFETY: the slices are parts of `FILE`, compiled into the binary from
        // `rule-dfas.bin`, which regex-automata's own serializer wrote
        // (`generate::build`) and which a test deserializes with full validation
        // (`dense::DFA::from_bytes`). The header, alignment, endianness and version are
        // still checked here.
        self.read(|bytes| {
            unsafe { dense::DFA::from_bytes_unchecked(bytes) }
                .ok()
                .map(|d| d.0)
        })
    }

    /// The automaton read with every check (tests).
    #[cfg(test)]
    pub(super) fn automaton_checked(self) -> Option<Prebuilt> {
        self.read(|bytes| dense::DFA::from_bytes(bytes).ok().map(|d| d.0))
    }

    /// What the entry holds.
    pub(super) fn kind(self) -> Kind {
        self.kind
    }

    fn read(self, dfa: impl Fn(&'static [u8]) -> Option<PrebuiltDfa>) -> Option<Prebuilt> {
        let forward = dfa(self.forward)?;
        Some(match self.kind {
            Kind::Unanchored => Prebuilt::Regex(Box::new(
                Regex::builder().build_from_dfas(forward, dfa(self.rest)?),
            )),
            Kind::FromFirstLiterals => {
                let literals = literals(self.first_literals_and_required()?.0)?;
                Prebuilt::FromFirstLiterals(Box::new((forward, Starts::from_literals(literals)?)))
            }
        })
    }

    /// What every match holds beyond its anchors, shipped so that checking it needs no
    /// parsing of the pattern ([`Kind::FromFirstLiterals`] entries only); `None` when there
    /// is nothing to check (or the bytes are not a condition: the check is only a
    /// prefilter, and a line is then searched).
    pub(super) fn required(self) -> Option<Required> {
        match self.kind {
            Kind::Unanchored => None,
            Kind::FromFirstLiterals => {
                let (_, required) = self.first_literals_and_required()?;
                Required::from_bytes(required)
            }
        }
    }

    fn first_literals_and_required(self) -> Option<(&'static [u8], &'static [u8])> {
        let (len, rest) = take_u32(self.rest)?;
        take(rest, len)
    }
}

/// The literals of a [`Kind::FromFirstLiterals`] entry; `None` if they do not read whole.
fn literals(mut bytes: &[u8]) -> Option<Vec<Vec<u8>>> {
    let mut out = Vec::new();
    while !bytes.is_empty() {
        let (len, rest) = take_u32(bytes)?;
        let (literal, rest) = take(rest, len)?;
        out.push(literal.to_vec());
        bytes = rest;
    }
    Some(out)
}

/// The files, once [`enable`]d (always in tests): the rules' DFAs, the anchor automaton.
static ENABLED: OnceLock<(&'static [u8], &'static [u8])> = OnceLock::new();

/// Makes the engine use the shipped DFAs and anchor automaton. Only a call to this links
/// them into a binary; it must come before the engine's first use (it is built once, with
/// the files there were then).
pub fn enable() {
    ENABLED.get_or_init(|| (&FILE.bytes, &ANCHORS_FILE.bytes));
}

/// The files, if enabled.
fn enabled() -> (&'static [u8], &'static [u8]) {
    if cfg!(test) {
        enable();
    }
    ENABLED.get().copied().unwrap_or_default()
}

/// For each catalogue rule, its current entry in the shipped file, if it is enabled.
pub(super) fn entries(on_lowered: &[bool]) -> Vec<Option<Entry>> {
    entries_in(enabled().0, on_lowered)
}

/// The shipped anchor automaton (see [`super::anchors::Anchors::to_shipped`]), if enabled;
/// whether it is that of today's literals is for the reader to check.
pub(super) fn anchors() -> &'static [u8] {
    enabled().1
}

fn entries_in(file: &'static [u8], on_lowered: &[bool]) -> Vec<Option<Entry>> {
    let rules = catalogue::rules();
    let mut out = vec![None; rules.len()];
    // Entries are written in catalogue order; a rule moved since costs a search.
    let mut next = 0;
    for item in entries_of(file) {
        let Some((id, fingerprint, entry)) = item else {
            return vec![None; rules.len()];
        };
        let at = if rules.get(next).is_some_and(|r| r.id == id) {
            next
        } else if let Some(at) = rules.iter().position(|r| r.id == id) {
            at
        } else {
            continue;
        };
        next = at + 1;
        if rule_fingerprint(at, on_lowered[at], entry.kind) == Some(fingerprint) {
            out[at] = Some(entry);
        }
    }
    out
}

/// The entries of `file` in order, each its id, fingerprint and entry: an item of `None`
/// where one does not read whole (the last item then), and none at all in a file without
/// the magic bytes.
fn entries_of(file: &'static [u8]) -> impl Iterator<Item = Option<(&'static str, u64, Entry)>> {
    let base = file.as_ptr() as usize;
    let mut rest = file.strip_prefix(MAGIC.as_slice());
    std::iter::from_fn(move || {
        let bytes = rest.filter(|bytes| !bytes.is_empty())?;
        let read = read_entry(bytes, base);
        rest = read.map(|(_, _, _, after)| after);
        Some(read.map(|(id, fingerprint, entry, _)| (id, fingerprint, entry)))
    })
}

/// How many entries the shipped file holds, current or not (tests).
#[cfg(test)]
pub(super) fn entry_count() -> usize {
    entries_of(&FILE.bytes).map_while(|item| item).count()
}

/// One entry: the rule's id, the fingerprint, the kind, the lengths of its two parts and,
/// each from the next multiple of four bytes in the file (`base` is where it starts), the
/// forward DFA and the rest (see [`Entry`]).
fn read_entry(
    bytes: &'static [u8],
    base: usize,
) -> Option<(&'static str, u64, Entry, &'static [u8])> {
    let (id_len, rest) = take_u32(bytes)?;
    let (id, rest) = take(rest, id_len)?;
    let id = std::str::from_utf8(id).ok()?;
    let (fingerprint, rest) = rest.split_first_chunk::<8>()?;
    let (kind, rest) = take_u32(rest)?;
    let kind = Kind::from_code(kind)?;
    let (forward_len, rest) = take_u32(rest)?;
    let (rest_len, rest) = take_u32(rest)?;
    let (forward, rest) = take(skip_padding(rest, base)?, forward_len)?;
    let (second, rest) = take(skip_padding(rest, base)?, rest_len)?;
    Some((
        id,
        u64::from_le_bytes(*fingerprint),
        Entry {
            kind,
            forward,
            rest: second,
        },
        rest,
    ))
}

/// A little-endian `u32` off the front of `bytes`, and the rest (also read by
/// [`super::anchors::Anchors::shipped`]).
pub(super) fn take_u32(bytes: &[u8]) -> Option<(usize, &[u8])> {
    let (head, rest) = bytes.split_first_chunk::<4>()?;
    Some((usize::try_from(u32::from_le_bytes(*head)).ok()?, rest))
}

fn take(bytes: &[u8], len: usize) -> Option<(&[u8], &[u8])> {
    (len <= bytes.len()).then(|| bytes.split_at(len))
}

/// `bytes` from the next offset in the file that is a multiple of four (`base`: the file's
/// address; also used by [`super::anchors::Anchors::shipped`]).
pub(super) fn skip_padding(bytes: &[u8], base: usize) -> Option<&[u8]> {
    let offset = (bytes.as_ptr() as usize).wrapping_sub(base);
    bytes.get(padding(offset)..)
}

/// Bytes from `offset` to the next multiple of four.
fn padding(offset: usize) -> usize {
    (4 - offset % 4) % 4
}

/// What a rule's automaton is built from, hashed: its pattern, its case handling and the
/// recipe of its kind. `None` for a rule without a pattern.
fn rule_fingerprint(index: usize, on_lowered: bool, kind: Kind) -> Option<u64> {
    let Detect::Pattern {
        pattern,
        case_sensitive,
        ..
    } = catalogue::rules().get(index)?.detect
    else {
        return None;
    };
    Some(fingerprint(kind, pattern, case_sensitive, on_lowered))
}

/// What an automaton is built from, hashed: the recipe of its kind, the case handling and
/// the pattern.
fn fingerprint(kind: Kind, pattern: &str, case_sensitive: bool, on_lowered: bool) -> u64 {
    let mut hash = Fnv::default();
    hash.write(kind.recipe().as_bytes());
    hash.write(&[u8::from(case_sensitive), u8::from(on_lowered)]);
    hash.write(pattern.as_bytes());
    hash.0
}

/// The prebuilt automaton of a pattern of the scanner's own (not a rule's: the patterns
/// that weigh where a match sits, see `intent::shipped_patterns`), if the shipped file holds
/// one for this name that is current: built from `pattern`, case-insensitive, read for
/// lower-cased text `on_lowered`. Such an entry's id is the pattern's name, which no rule id
/// is (names hold a `/`).
pub(super) fn pattern(name: &str, pattern: &str, on_lowered: bool) -> Option<Prebuilt> {
    pattern_entry(name, pattern, on_lowered)?.automaton()
}

/// The entry [`pattern`] reads.
pub(super) fn pattern_entry(name: &str, pattern: &str, on_lowered: bool) -> Option<Entry> {
    let wanted = fingerprint(Kind::Unanchored, pattern, false, on_lowered);
    let (_, fingerprint, entry) = entries_of(enabled().0)
        .map_while(|item| item)
        .find(|(id, _, _)| *id == name)?;
    (fingerprint == wanted && entry.kind == Kind::Unanchored).then_some(entry)
}

/// FNV-1a, 64 bits: stable across releases and platforms, which `std`'s hasher is not.
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
        // A separator, so that ("ab", "c") and ("a", "bc") differ.
        self.0 = (self.0 ^ 0xff).wrapping_mul(0x0100_0000_01b3);
    }
}

/// Making the file (tests and `make rule-dfas` only: building DFAs needs regex-automata's
/// `dfa-build`, a dev-dependency feature, so release binaries do not carry the determinizer).
#[cfg(test)]
pub(super) mod generate {
    use regex_automata::MatchKind;
    use regex_automata::dfa::{StartKind, dense};
    use regex_automata::nfa::thompson::{self, WhichCaptures};
    use regex_syntax::hir::Hir;

    use super::{Kind, MAGIC, padding, rule_fingerprint};
    use regex_automata::util::syntax::parse_with;

    use crate::guard::catalogue;
    use crate::guard::engine::syntax_config;
    use crate::guard::required::Required;
    use crate::guard::rule::Detect;
    use crate::guard::starts::Starts;

    fn u32_bytes(len: usize) -> [u8; 4] {
        u32::try_from(len).expect("under 4 GiB").to_le_bytes()
    }

    /// Largest dense DFA (each direction) worth shipping: past it a rule keeps its lazy DFA.
    const DENSE_LIMIT: usize = 1024 * 1024;

    /// A rule's automaton: its kind and the two parts of its entry (see `Entry`), or `None`
    /// when neither kind fits. `anchors`: the rule's, which every line searched holds.
    pub fn build<S: AsRef<[u8]>>(hir: &Hir, anchors: &[S]) -> Option<(Kind, Vec<u8>, Vec<u8>)> {
        if let Some((forward, reverse)) = unanchored(hir) {
            return Some((Kind::Unanchored, forward, reverse));
        }
        let starts = Starts::of(hir)?;
        // Determinized within four times the limit: minimizing shrinks these several times.
        let forward = dfa_within(hir, StartKind::Anchored, false, 4 * DENSE_LIMIT)?;
        let mut literals = Vec::new();
        for literal in starts.literals() {
            literals.extend(u32_bytes(literal.len()));
            literals.extend(literal);
        }
        let mut rest = u32_bytes(literals.len()).to_vec();
        rest.extend(literals);
        if let Some(required) = Required::of(hir, anchors) {
            rest.extend(required.to_bytes());
        }
        Some((Kind::FromFirstLiterals, forward, rest))
    }

    /// The two DFAs of a [`Kind::Unanchored`] entry, or `None` when they do not fit.
    fn unanchored(hir: &Hir) -> Option<(Vec<u8>, Vec<u8>)> {
        Some((
            dfa(hir, StartKind::Unanchored, false)?,
            dfa(hir, StartKind::Anchored, true)?,
        ))
    }

    /// One DFA, serialized: forward, the leftmost-first search that finds where a match
    /// ends (unanchored, or anchored at a first literal); reverse, the anchored all-matches
    /// search back from there that finds where it starts (what `dfa::regex::Regex` expects
    /// of its two halves).
    fn dfa(hir: &Hir, start_kind: StartKind, reverse: bool) -> Option<Vec<u8>> {
        dfa_within(hir, start_kind, reverse, DENSE_LIMIT)
    }

    /// [`dfa`], determinized within `limit` bytes and shipped only if it is at most
    /// `DENSE_LIMIT` once minimized.
    fn dfa_within(
        hir: &Hir,
        start_kind: StartKind,
        reverse: bool,
        limit: usize,
    ) -> Option<Vec<u8>> {
        let nfa = thompson::Compiler::new()
            .configure(
                thompson::Config::new()
                    .which_captures(WhichCaptures::None)
                    .reverse(reverse)
                    .shrink(reverse),
            )
            .build_from_hir(hir)
            .ok()?;
        let match_kind = match reverse {
            true => MatchKind::All,
            false => MatchKind::LeftmostFirst,
        };
        let dfa = dense::Builder::new()
            .configure(
                dense::Config::new()
                    .prefilter(None)
                    .specialize_start_states(false)
                    .minimize(true)
                    .dfa_size_limit(Some(limit))
                    .determinize_size_limit(Some(4 * limit))
                    .start_kind(start_kind)
                    .match_kind(match_kind),
            )
            .build_from_nfa(&nfa)
            .ok()?;
        let (bytes, padding) = dfa.to_bytes_little_endian();
        (bytes.len() - padding <= DENSE_LIMIT).then(|| bytes[padding..].to_vec())
    }

    /// The whole file, from each rule's parsed pattern (`hir`) and case handling.
    pub fn file(hir: impl Fn(usize) -> Option<Hir>, on_lowered: &[bool]) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        for (index, rule) in catalogue::rules().iter().enumerate() {
            let Detect::Pattern { anchors, .. } = rule.detect else {
                continue;
            };
            let Some((kind, forward, rest)) = hir(index).and_then(|hir| build(&hir, anchors))
            else {
                continue;
            };
            let Some(fingerprint) = rule_fingerprint(index, on_lowered[index], kind) else {
                continue;
            };
            push_entry(&mut out, rule.id, fingerprint, kind, &forward, &rest);
        }
        for (name, pattern) in crate::guard::intent::shipped_patterns() {
            // Read as `intent::compile` reads it: for lower-cased text (case-sensitively)
            // where it has that form, case-folded otherwise.
            let on_lowered = crate::guard::lowered::folds_on_lowered_text(&pattern);
            let hir = match on_lowered {
                true => crate::guard::lowered::parse(&pattern, &syntax_config(true)),
                false => parse_with(&pattern, &syntax_config(false)).ok(),
            };
            let Some(hir) = hir else {
                continue;
            };
            if let Some((forward, reverse)) = unanchored(&hir) {
                let fingerprint = super::fingerprint(Kind::Unanchored, &pattern, false, on_lowered);
                push_entry(
                    &mut out,
                    name,
                    fingerprint,
                    Kind::Unanchored,
                    &forward,
                    &reverse,
                );
            }
        }
        out
    }

    /// Appends one entry to a file that starts at `out[0]` (see `read_entry`).
    pub fn push_entry(
        out: &mut Vec<u8>,
        id: &str,
        fingerprint: u64,
        kind: Kind,
        forward: &[u8],
        rest: &[u8],
    ) {
        out.extend(u32_bytes(id.len()));
        out.extend(id.as_bytes());
        out.extend(fingerprint.to_le_bytes());
        out.extend(kind.code().to_le_bytes());
        for part in [forward, rest] {
            out.extend(u32_bytes(part.len()));
        }
        for part in [forward, rest] {
            out.resize(out.len() + padding(out.len()), 0);
            out.extend(part);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::generate::push_entry;
    use super::*;

    fn leak(bytes: Vec<u8>) -> &'static [u8] {
        Box::leak(bytes.into_boxed_slice())
    }

    /// The first two pattern rules: their indices and fingerprints.
    fn two_rules() -> [(usize, u64); 2] {
        let mut found = (0..catalogue::rules().len())
            .filter_map(|i| Some((i, rule_fingerprint(i, false, Kind::Unanchored)?)));
        [found.next(), found.next()].map(|r| r.expect("two pattern rules"))
    }

    fn id(index: usize) -> &'static str {
        catalogue::rules()[index].id
    }

    #[test]
    fn entries_are_read_back_with_their_bytes_whatever_their_alignment() {
        let [(a, fa), (b, fb)] = two_rules();
        let mut file = MAGIC.to_vec();
        push_entry(&mut file, id(a), fa, Kind::Unanchored, b"forward", b"rev");
        push_entry(&mut file, id(b), fb, Kind::Unanchored, b"", b"xy");
        let file = leak(file);
        let entries = entries_in(file, &vec![false; catalogue::rules().len()]);
        let base = file.as_ptr() as usize;
        let read: Vec<(usize, &[u8], &[u8])> = entries
            .iter()
            .enumerate()
            .filter_map(|(i, e)| e.map(|e| (i, e.forward, e.rest)))
            .collect();
        assert_eq!(
            read,
            [(a, &b"forward"[..], &b"rev"[..]), (b, &b""[..], &b"xy"[..])]
        );
        for entry in entries.iter().flatten() {
            for part in [entry.forward, entry.rest] {
                assert_eq!(
                    (part.as_ptr() as usize - base) % 4,
                    0,
                    "aligned in the file"
                );
            }
        }
    }

    #[test]
    fn an_entry_is_taken_only_while_its_fingerprint_matches_its_rule() {
        let [(a, fa), (b, fb)] = two_rules();
        let mut file = MAGIC.to_vec();
        push_entry(&mut file, id(a), fa ^ 1, Kind::Unanchored, b"f", b"r");
        push_entry(&mut file, "no-such-rule", fb, Kind::Unanchored, b"f", b"r");
        push_entry(&mut file, id(b), fb, Kind::Unanchored, b"f", b"r");
        let entries = entries_in(leak(file), &vec![false; catalogue::rules().len()]);
        assert!(entries[a].is_none(), "stale");
        assert!(entries[b].is_some(), "read past an unknown rule");
        // Read for lower-cased text, the same pattern is another automaton.
        let mut on_lowered = vec![false; catalogue::rules().len()];
        on_lowered[b] = true;
        let mut file = MAGIC.to_vec();
        push_entry(&mut file, id(b), fb, Kind::Unanchored, b"f", b"r");
        assert!(entries_in(leak(file), &on_lowered)[b].is_none());
    }

    #[test]
    fn entries_out_of_catalogue_order_are_found() {
        let [(a, fa), (b, fb)] = two_rules();
        let mut file = MAGIC.to_vec();
        push_entry(&mut file, id(b), fb, Kind::Unanchored, b"f", b"r");
        push_entry(&mut file, id(a), fa, Kind::Unanchored, b"f", b"r");
        let entries = entries_in(leak(file), &vec![false; catalogue::rules().len()]);
        assert!(entries[a].is_some() && entries[b].is_some());
    }

    #[test]
    fn a_file_without_its_magic_or_cut_short_yields_no_entries() {
        let [(a, fa), _] = two_rules();
        let rules = catalogue::rules().len();
        let mut whole = MAGIC.to_vec();
        push_entry(
            &mut whole,
            id(a),
            fa,
            Kind::Unanchored,
            b"forward",
            b"reverse",
        );
        assert!(entries_in(leak(whole.clone()), &vec![false; rules])[a].is_some());
        for cut in MAGIC.len() + 1..whole.len() {
            let entries = entries_in(leak(whole[..cut].to_vec()), &vec![false; rules]);
            assert!(entries.iter().all(Option::is_none), "cut at {cut}");
        }
        assert!(entries_in(leak(whole[1..].to_vec()), &vec![false; rules])[a].is_none());
        assert!(
            entries_in(b"", &vec![false; rules])
                .iter()
                .all(Option::is_none)
        );
    }

    #[test]
    fn bytes_that_are_not_a_dfa_read_as_none() {
        for kind in [Kind::Unanchored, Kind::FromFirstLiterals] {
            let entry = Entry {
                kind,
                forward: b"not a dfa at all",
                rest: b"",
            };
            assert!(entry.automaton().is_none());
            assert!(entry.automaton_checked().is_none());
        }
    }

    /// An entry's kind is read back, and is part of what its fingerprint covers: the same
    /// bytes under the other kind are another automaton.
    #[test]
    fn an_entry_keeps_its_kind_and_its_fingerprint_covers_it() {
        let [(a, _), _] = two_rules();
        let rules = catalogue::rules().len();
        let anchored = rule_fingerprint(a, false, Kind::FromFirstLiterals).expect("a pattern");
        let file_of = |kind| {
            let mut file = MAGIC.to_vec();
            push_entry(&mut file, id(a), anchored, kind, b"f", b"r");
            file
        };
        let entry = entries_in(leak(file_of(Kind::FromFirstLiterals)), &vec![false; rules])[a]
            .expect("current");
        assert_eq!(entry.kind(), Kind::FromFirstLiterals);
        assert!(entries_in(leak(file_of(Kind::Unanchored)), &vec![false; rules])[a].is_none());
        // A kind this version does not know ends the reading, as a cut file does.
        let mut file = file_of(Kind::FromFirstLiterals);
        let at = MAGIC.len() + 4 + id(a).len() + 8;
        file[at] = 7;
        assert!(entries_in(leak(file), &vec![false; rules])[a].is_none());
    }

    #[test]
    fn first_literals_read_back_only_when_whole() {
        let mut bytes = Vec::new();
        for literal in [&b"nc"[..], b"netcat"] {
            bytes.extend(u32::try_from(literal.len()).expect("short").to_le_bytes());
            bytes.extend(literal);
        }
        assert_eq!(
            literals(&bytes),
            Some(vec![b"nc".to_vec(), b"netcat".to_vec()])
        );
        for cut in 1..bytes.len() {
            if cut != 6 {
                assert_eq!(literals(&bytes[..cut]), None, "cut at {cut}");
            }
        }
        assert_eq!(literals(&bytes[..6]), Some(vec![b"nc".to_vec()]));
        assert_eq!(literals(b""), Some(Vec::new()));
    }

    #[test]
    fn padding_reaches_the_next_multiple_of_four() {
        let got: Vec<usize> = (0..9).map(padding).collect();
        assert_eq!(got, [0, 3, 2, 1, 0, 3, 2, 1, 0]);
    }

    #[test]
    fn fingerprints_keep_their_parts_apart() {
        let hash = |parts: &[&[u8]]| {
            let mut h = Fnv::default();
            for part in parts {
                h.write(part);
            }
            h.0
        };
        assert_ne!(hash(&[b"ab", b"c"]), hash(&[b"a", b"bc"]));
        assert_ne!(hash(&[b"ab"]), hash(&[b"ba"]));
    }
}
