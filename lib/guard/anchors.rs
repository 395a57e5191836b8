//! The anchor automaton: every occurrence of every anchor literal in a text, overlapping
//! ones included, ASCII case ignored.
//!
//! A general-purpose Aho-Corasick search pays for its generality on every byte (match-kind
//! bookkeeping, state kinds, an iterator protocol); here the whole scan is one table lookup
//! per byte and one comparison, which matters because this loop is the one part of a scan
//! that touches every byte of every file. The table is a dense DFA over byte classes (the
//! bytes the literals use, folded to lower case, plus one class for every other byte) whose
//! entries are premultiplied state offsets, so a step needs no multiplication. The states at
//! which some literal ends are numbered after all the others, so whether a step reached one
//! is a comparison of the offset it already has: no flag to test, none to mask off before
//! the next step.

use std::borrow::Cow;
use std::collections::VecDeque;

use super::prebuilt::{skip_padding, take_u32};

/// Bytes in about the order of how often they occur in skills (English prose, and shell and
/// code in Markdown), the most frequent first. Classes are numbered in this order, so the
/// entries a walk reads most sit together at the start of each state's row: a row is some
/// sixty entries over four cache lines, and most steps then read from the first. Over the
/// public corpus, walks took a fifth less time than with classes in the order the literals
/// first use their bytes (22 ms against 28). Only speed depends on it.
const LIKELY_FIRST: &[u8] =
    b" etaoinsrhldcumfpgwybvk-./_x:=$\"'01jq2(z)3>|4{}[]5,68*79;<&`#@!%^+~?";

/// `(byte, state offset)` of each step of a walk that reached a state some literal ends at.
type Ends = Vec<(usize, usize)>;

/// A stretch of the text walked, `from..to`, starting at a line start.
#[derive(Clone, Copy)]
struct Segment {
    from: usize,
    to: usize,
}

/// A walk over a segment: the segment, the next byte, the state reached.
#[derive(Clone, Copy, Default)]
struct Lane {
    segment: usize,
    at: usize,
    state: usize,
}

/// How many walks run side by side at most.
const LANES: usize = 4;

/// The first bytes of [`Anchors::to_shipped`]'s form; the digit is its version.
const SHIPPED_MAGIC: &[u8; 8] = b"HANCHOR1";

/// `bytes` as the `u32` it holds, in place, where the machine reads them as written
/// (little-endian) and they start on a multiple of four.
fn borrowed_words(bytes: &'static [u8]) -> Option<&'static [u32]> {
    if cfg!(target_endian = "big") {
        return None;
    }
    // SAFETY: every bit pattern is a valid `u32`, and `align_to` only yields the part of
    // `bytes` that is aligned for it.
    let (before, words, after) = unsafe { bytes.align_to::<u32>() };
    (before.is_empty() && after.is_empty()).then_some(words)
}

/// The buffers of a walk, kept from one text to the next: grown afresh for every text, the
/// lanes' notes alone cost some 28,000 reallocations over the public corpus (1 % of a scan's
/// instructions).
#[derive(Default)]
struct Scratch {
    /// What each lane noted.
    notes: [Ends; LANES],
    /// The segments the text is cut into, in the order they were cut off.
    segments: Vec<Segment>,
    /// For each segment taken so far, the lane that walks it and the range of that lane's
    /// notes it made.
    taken: Vec<(usize, usize, usize)>,
    /// The segments in the order of the text.
    in_order: Vec<usize>,
}

/// Notes a lane's buffer may keep room for between texts (1 MiB).
const KEPT_NOTES: usize = 1 << 16;

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

pub struct Anchors {
    /// Byte → class. Bytes no literal uses share class 0.
    classes: [u8; 256],
    /// Number of classes: the stride of a state's row.
    stride: usize,
    /// Turns a state's offset back into its number.
    by_stride: ExactDivisor,
    /// `transitions[state_offset + class]`: the next state's offset. Borrowed from the
    /// binary when the automaton was built ahead of time ([`Anchors::shipped`]).
    transitions: Cow<'static, [u32]>,
    /// The offset of the first state at which a literal ends; every state from there on is
    /// one (see [`Anchors::new`]).
    first_ending: usize,
    /// For each state (by index), the range of [`Self::outputs`] naming the literals that
    /// end there, its own and those of its suffixes.
    output_ranges: Vec<(u32, u32)>,
    outputs: Vec<u32>,
    /// Each literal's length in bytes, to turn an end into a start.
    lengths: Vec<u32>,
    /// Whether a text may be cut at line starts to be walked in segments (see
    /// [`Anchors::for_each`]).
    literals_hold_no_newline: bool,
}

impl Anchors {
    /// The automaton of `literals` (bytes compared ASCII-case-insensitively). Empty
    /// literals never match.
    pub fn new<S: AsRef<[u8]>>(literals: &[S]) -> Anchors {
        let mut used = [false; 256];
        for &byte in literals.iter().flat_map(|l| l.as_ref()) {
            used[usize::from(byte.to_ascii_lowercase())] = true;
        }
        let mut classes = [0u8; 256];
        let mut next_class = 1usize;
        let in_byte_order = (0..=u8::MAX).filter(|b| !LIKELY_FIRST.contains(b));
        for byte in LIKELY_FIRST.iter().copied().chain(in_byte_order) {
            if used[usize::from(byte)] && classes[usize::from(byte)] == 0 {
                // 256 distinct bytes would need 257 classes; more than 255 distinct
                // lower-cased bytes cannot occur (upper-case letters fold away).
                classes[usize::from(byte)] = u8::try_from(next_class).unwrap_or(u8::MAX);
                next_class += 1;
            }
        }
        for upper in b'A'..=b'Z' {
            classes[usize::from(upper)] = classes[usize::from(upper.to_ascii_lowercase())];
        }
        let stride = next_class;
        // The trie is built in the table that becomes the automaton, `table[state * stride +
        // class]`, 0 meaning "no edge" (the root is never a child, so 0 is free to mean
        // that) until the breadth-first pass below fills every missing edge in. One table,
        // not a trie and a copy: it is most of what a scan allocates before reading a byte.
        // At most a state per literal byte: reserved once, so the table never moves, and
        // only the rows used are touched.
        let most_states = 1 + literals.iter().map(|l| l.as_ref().len()).sum::<usize>();
        let mut table: Vec<u32> = Vec::with_capacity(most_states * stride);
        table.resize(stride, 0);
        // The literals that end exactly at each state, as lists threaded through literal
        // ids: `ends_here[state]` is the first, `next_literal[id]` the one after it. One
        // entry per state: its length is the number of states.
        const NONE: u32 = u32::MAX;
        let mut ends_here: Vec<u32> = vec![NONE];
        let mut next_literal: Vec<u32> = vec![NONE; literals.len()];
        let mut lengths = Vec::with_capacity(literals.len());
        for (id, literal) in literals.iter().enumerate() {
            let literal = literal.as_ref();
            lengths.push(u32::try_from(literal.len()).unwrap_or(u32::MAX));
            if literal.is_empty() {
                continue;
            }
            let mut state = 0usize;
            for &byte in literal {
                let at = state * stride + usize::from(classes[usize::from(byte)]);
                state = match table[at] {
                    0 => {
                        let new = ends_here.len();
                        ends_here.push(NONE);
                        table.resize(ends_here.len() * stride, 0);
                        table[at] = new as u32;
                        new
                    }
                    child => child as usize,
                };
            }
            next_literal[id] = ends_here[state];
            ends_here[state] = id as u32;
        }

        // Breadth-first, so a state's failure link (its longest proper suffix in the trie)
        // has its row and its outputs complete before the state is visited: a missing edge
        // is the failure state's edge, and the outputs are the state's own followed by the
        // failure state's.
        let states = ends_here.len();
        let mut fail = vec![0usize; states];
        let mut output_ranges = vec![(0u32, 0u32); states];
        let mut outputs: Vec<u32> = Vec::new();
        let mut queue = VecDeque::new();
        queue.extend(
            table[..stride]
                .iter()
                .filter(|&&c| c != 0)
                .map(|&c| c as usize),
        );
        while let Some(state) = queue.pop_front() {
            let from = outputs.len();
            let mut id = ends_here[state];
            while id != NONE {
                outputs.push(id);
                id = next_literal[id as usize];
            }
            outputs[from..].reverse();
            let (fail_from, fail_to) = output_ranges[fail[state]];
            outputs.extend_from_within(fail_from as usize..fail_to as usize);
            output_ranges[state] = (from as u32, outputs.len() as u32);
            let (row, fail_row) = (state * stride, fail[state] * stride);
            for class in 0..stride {
                let via_fail = table[fail_row + class];
                match table[row + class] {
                    0 => table[row + class] = via_fail,
                    child => {
                        fail[child as usize] = via_fail as usize;
                        queue.push_back(child as usize);
                    }
                }
            }
        }

        // Renumbered: the states no literal ends at first, in their breadth-first order (the
        // start state stays 0), then those some literal ends at.
        let (plain, ending): (Vec<usize>, Vec<usize>) =
            (0..states).partition(|&s| output_ranges[s].0 == output_ranges[s].1);
        let first_ending = plain.len() * stride;
        let order = [plain, ending].concat();
        let mut renumbered = vec![0usize; states];
        for (new, &old) in order.iter().enumerate() {
            renumbered[old] = new;
        }
        let mut transitions = vec![0u32; table.len()];
        for (new, &old) in order.iter().enumerate() {
            for class in 0..stride {
                let next = renumbered[table[old * stride + class] as usize];
                transitions[new * stride + class] = (next * stride) as u32;
            }
        }
        let output_ranges = order.iter().map(|&old| output_ranges[old]).collect();
        Anchors {
            classes,
            stride,
            by_stride: ExactDivisor::new(stride),
            transitions: Cow::Owned(transitions),
            first_ending,
            output_ranges,
            outputs,
            lengths,
            literals_hold_no_newline: literals.iter().all(|l| !l.as_ref().contains(&b'\n')),
        }
    }

    /// The automaton in the form [`Anchors::shipped`] reads: built once, ahead of time, and
    /// compiled into the binary (`make rule-dfas` writes it; building it is a fifth of a
    /// one-skill scan's start-up). All numbers little-endian, every array of `u32` on a
    /// multiple of four bytes from the start:
    ///
    /// - `SHIPPED_MAGIC`; literal count, stride, state count, first ending state's offset,
    ///   output count, flags (bit 0: no literal holds a newline), each a `u32`;
    /// - the 256 byte classes;
    /// - the literals, each its length (`u32`) and bytes, then zeros to a multiple of four;
    /// - the transitions, the output ranges (two `u32` a state), the outputs, the lengths.
    pub fn to_shipped<S: AsRef<[u8]>>(&self, literals: &[S]) -> Vec<u8> {
        let word = |n: usize| u32::try_from(n).unwrap_or(u32::MAX).to_le_bytes();
        let mut out = SHIPPED_MAGIC.to_vec();
        for n in [
            literals.len(),
            self.stride,
            self.transitions.len() / self.stride.max(1),
            self.first_ending,
            self.outputs.len(),
            usize::from(self.literals_hold_no_newline),
        ] {
            out.extend(word(n));
        }
        out.extend(self.classes);
        for literal in literals {
            out.extend(word(literal.as_ref().len()));
            out.extend(literal.as_ref());
        }
        out.resize(out.len().next_multiple_of(4), 0);
        let ranges = self.output_ranges.iter().flat_map(|&(from, to)| [from, to]);
        let words = self.transitions.iter().copied().chain(ranges);
        for word in words
            .chain(self.outputs.iter().copied())
            .chain(self.lengths.iter().copied())
        {
            out.extend(word.to_le_bytes());
        }
        out
    }

    /// The automaton of `literals` read from `bytes` (see [`Anchors::to_shipped`]), or
    /// `None` when `bytes` holds another set of literals (the rules changed since the file
    /// was made) or does not read as an automaton. The transitions stay in `bytes` when it
    /// starts on a multiple of four and the machine is little-endian.
    ///
    /// Every entry is checked to keep the walk's unchecked lookups inside the table; that
    /// each is the start of a row, and the right one, is for the test that compares the
    /// shipped file with a fresh build (`prebuilt_anchors_are_current`).
    pub fn shipped<S: AsRef<[u8]>>(bytes: &'static [u8], literals: &[S]) -> Option<Anchors> {
        let mut rest = bytes.strip_prefix(SHIPPED_MAGIC.as_slice())?;
        let mut header = [0usize; 6];
        for field in &mut header {
            (*field, rest) = take_u32(rest)?;
        }
        let [count, stride, states, first_ending, output_count, flags] = header;
        let (classes, mut rest) = rest.split_first_chunk::<256>()?;
        if count != literals.len() {
            return None;
        }
        for literal in literals {
            let (length, after) = take_u32(rest)?;
            let (stored, after) = after.split_at_checked(length)?;
            if stored != literal.as_ref() {
                return None;
            }
            rest = after;
        }
        rest = skip_padding(rest, bytes.as_ptr() as usize)?;
        let table_len = states.checked_mul(stride)?;
        let (table, rest) = rest.split_at_checked(table_len.checked_mul(4)?)?;
        let words = |bytes: &[u8]| -> Vec<u32> {
            bytes
                .chunks_exact(4)
                .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
                .collect()
        };
        let (ranges, rest) = rest.split_at_checked(states.checked_mul(8)?)?;
        let (outputs, lengths) = rest.split_at_checked(output_count.checked_mul(4)?)?;
        if lengths.len() != count * 4 {
            return None;
        }
        let transitions =
            borrowed_words(table).map_or_else(|| Cow::Owned(words(table)), Cow::Borrowed);
        let output_ranges: Vec<(u32, u32)> = words(ranges)
            .chunks_exact(2)
            .map(|r| (r[0], r[1]))
            .collect();
        let anchors = Anchors {
            classes: *classes,
            stride,
            by_stride: ExactDivisor::new(stride),
            transitions,
            first_ending,
            output_ranges,
            outputs: words(outputs),
            lengths: words(lengths),
            literals_hold_no_newline: flags & 1 != 0,
        };
        anchors.is_sound(literals).then_some(anchors)
    }

    /// Whether every lookup a walk and its reports make stays in bounds and the lengths are
    /// those of `literals`: what [`Anchors::new`] guarantees by construction.
    fn is_sound<S: AsRef<[u8]>>(&self, literals: &[S]) -> bool {
        let (stride, table) = (self.stride, &*self.transitions);
        let states = table.len() / stride.max(1);
        stride >= 1
            && table.len() == states * stride
            && states >= 1
            && self.classes.iter().all(|&c| usize::from(c) < stride)
            // A maximum, not a test per entry: it runs as vector code.
            && table
                .iter()
                .copied()
                .max()
                .is_some_and(|last| last as usize + stride <= table.len())
            && self.first_ending.is_multiple_of(stride)
            && self.output_ranges.len() == states
            && self
                .output_ranges
                .iter()
                .enumerate()
                .all(|(state, &(from, to))| {
                    from <= to
                        && to as usize <= self.outputs.len()
                        && (state * stride >= self.first_ending) == (from != to)
                })
            && self.outputs.iter().all(|&l| (l as usize) < literals.len())
            && self.lengths.len() == literals.len()
            && self
                .lengths
                .iter()
                .zip(literals)
                .all(|(&n, l)| n as usize == l.as_ref().len())
            && self.literals_hold_no_newline
                == literals.iter().all(|l| !l.as_ref().contains(&b'\n'))
    }

    /// Calls `found(start, literal)` for every occurrence in `haystack`, in order of its end
    /// (literals ending at the same byte in no particular order).
    ///
    /// Each step of the automaton needs the state the step before computed, so one walk
    /// waits on a memory load per byte. Up to four walks therefore run side by side, each
    /// over a segment of the text: the walks do not depend on each other, so the processor
    /// overlaps their loads. The first walk starts on the whole text; a walk with nothing
    /// to do takes the second half of what the walk with the most left has still to do,
    /// cut at a line start (no literal holds a newline, so none spans a cut, and each
    /// segment starts in the start state). So the walks share the text about evenly and end
    /// about together, however its lines fall.
    ///
    /// The walks only note where they reached a state some literal ends at; the literals
    /// are reported afterwards, segment by segment. A loop that called `found` itself would
    /// share its registers with the caller's code and keep its states in memory, adding a
    /// store and a load to every step.
    pub fn for_each(&self, haystack: &[u8], found: impl FnMut(usize, usize)) {
        SCRATCH.with(|scratch| match scratch.try_borrow_mut() {
            Ok(mut scratch) => self.walk_with(&mut scratch, haystack, found),
            // Only if `found` walks a text itself: that walk gets buffers of its own.
            Err(_) => self.walk_with(&mut Scratch::default(), haystack, found),
        })
    }

    /// [`Anchors::for_each`] with the buffers of `scratch`.
    fn walk_with(
        &self,
        scratch: &mut Scratch,
        haystack: &[u8],
        mut found: impl FnMut(usize, usize),
    ) {
        let Scratch {
            notes,
            segments,
            taken,
            in_order,
        } = scratch;
        for lane_notes in notes.iter_mut() {
            lane_notes.clear();
        }
        taken.clear();
        segments.clear();
        segments.push(Segment {
            from: 0,
            to: haystack.len(),
        });
        let mut lanes = [Lane::default(); LANES];
        let mut busy = [false; LANES];
        loop {
            for k in 0..LANES {
                if busy[k] {
                    continue;
                }
                let segment = if taken.len() < segments.len() {
                    taken.len()
                } else if let Some(cut) = self.split_off(haystack, segments, &lanes, busy) {
                    cut
                } else {
                    continue;
                };
                taken.push((k, notes[k].len(), 0));
                lanes[k] = Lane {
                    segment,
                    at: segments[segment].from,
                    state: 0,
                };
                busy[k] = true;
            }
            let mut walking = [0usize; LANES];
            let mut count = 0;
            for k in (0..LANES).filter(|&k| busy[k]) {
                walking[count] = k;
                count += 1;
            }
            let [a, b, ..] = walking;
            let lanes = &mut lanes;
            match count {
                0 => break,
                1 => {
                    let ends = [&mut notes[a]];
                    self.advance(haystack, segments, lanes, [a], ends, Self::walk);
                }
                2 | 3 => {
                    // `a < b`: the lanes were gathered in order.
                    let (before, from_b) = notes.split_at_mut(b);
                    let ends = [&mut before[a], &mut from_b[0]];
                    self.advance(haystack, segments, lanes, [a, b], ends, Self::walk_two);
                }
                _ => {
                    let ends = notes.each_mut();
                    self.advance(haystack, segments, lanes, walking, ends, Self::walk_four);
                }
            }
            for k in 0..LANES {
                let walk = lanes[k];
                if busy[k] && walk.at == segments[walk.segment].to {
                    taken[walk.segment].2 = notes[k].len();
                    busy[k] = false;
                }
            }
        }
        // A segment cut off later comes after the one it was cut from.
        in_order.clear();
        in_order.extend(0..segments.len());
        in_order.sort_unstable_by_key(|&i| segments[i].from);
        for &i in in_order.iter() {
            let (lane, from, to) = taken[i];
            for &(at, offset) in &notes[lane][from..to] {
                self.report(offset, at, &mut found);
            }
        }
        // A text dense with literals leaves big buffers; they are not kept for the next.
        for lane_notes in notes.iter_mut().filter(|n| n.capacity() > KEPT_NOTES) {
            *lane_notes = Vec::new();
        }
    }

    /// Cuts the second half off what the busy walk with the most left has still to do, at
    /// the first line start from its middle on, and returns it as a new segment; none if no
    /// walk has enough left to be worth sharing (a segment of less than 256 bytes costs more
    /// in starting than it saves), or a literal holds a newline.
    fn split_off(
        &self,
        haystack: &[u8],
        segments: &mut Vec<Segment>,
        lanes: &[Lane; LANES],
        busy: [bool; LANES],
    ) -> Option<usize> {
        const SHORTEST: usize = 256;
        if !self.literals_hold_no_newline {
            return None;
        }
        let walk = (0..LANES)
            .filter(|&k| busy[k])
            .map(|k| lanes[k])
            .max_by_key(|w| segments[w.segment].to - w.at)?;
        let to = segments[walk.segment].to;
        let left = to - walk.at;
        if left < 2 * SHORTEST {
            return None;
        }
        // The first line start from the middle on (the middle is past `walk.at`).
        let middle = walk.at + left / 2;
        let cut = middle + memchr::memchr(b'\n', &haystack[middle - 1..to - SHORTEST])?;
        segments[walk.segment].to = cut;
        segments.push(Segment { from: cut, to });
        Some(segments.len() - 1)
    }

    /// Walks the lanes `which` side by side with `together` for as long as the shortest
    /// has left of its segment, each noting in its own list of `ends`.
    fn advance<const N: usize>(
        &self,
        haystack: &[u8],
        segments: &[Segment],
        lanes: &mut [Lane; LANES],
        which: [usize; N],
        ends: [&mut Ends; N],
        together: impl Fn(&Self, [&[u8]; N], [usize; N], [usize; N], [&mut Ends; N]) -> [usize; N],
    ) {
        let walks = which.map(|k| lanes[k]);
        let length = walks
            .iter()
            .map(|w| segments[w.segment].to - w.at)
            .min()
            .unwrap_or(0);
        let pieces = walks.map(|w| &haystack[w.at..w.at + length]);
        let states = together(
            self,
            pieces,
            walks.map(|w| w.at),
            walks.map(|w| w.state),
            ends,
        );
        for ((k, walk), state) in which.into_iter().zip(walks).zip(states) {
            lanes[k] = Lane {
                at: walk.at + length,
                state,
                ..walk
            };
        }
    }

    /// Walks one piece from the state at `offset`, noting `(byte, state offset)` at each
    /// state some literal ends at (bytes counted from `start`); returns the state reached.
    #[inline(never)]
    fn walk(
        &self,
        [piece]: [&[u8]; 1],
        [start]: [usize; 1],
        [mut offset]: [usize; 1],
        [ends]: [&mut Ends; 1],
    ) -> [usize; 1] {
        let table = &*self.transitions;
        let first_ending = self.first_ending;
        for (i, &byte) in piece.iter().enumerate() {
            offset = self.step(table, offset, byte);
            if offset >= first_ending {
                ends.push((start + i, offset));
            }
        }
        [offset]
    }

    /// [`Anchors::walk`] over two pieces of the same length, side by side.
    #[inline(never)]
    fn walk_two(
        &self,
        [p0, p1]: [&[u8]; 2],
        starts: [usize; 2],
        [mut s0, mut s1]: [usize; 2],
        mut ends: [&mut Ends; 2],
    ) -> [usize; 2] {
        let table = &*self.transitions;
        let first_ending = self.first_ending;
        // Zipped slices: the loop checks no bounds.
        for (i, (&b0, &b1)) in p0.iter().zip(p1).enumerate() {
            s0 = self.step(table, s0, b0);
            s1 = self.step(table, s1, b1);
            if s0.max(s1) >= first_ending {
                self.note([s0, s1], starts, i, &mut ends);
            }
        }
        [s0, s1]
    }

    /// [`Anchors::walk`] over four pieces of the same length, side by side.
    #[inline(never)]
    fn walk_four(
        &self,
        [p0, p1, p2, p3]: [&[u8]; 4],
        starts: [usize; 4],
        [mut s0, mut s1, mut s2, mut s3]: [usize; 4],
        mut ends: [&mut Ends; 4],
    ) -> [usize; 4] {
        let table = &*self.transitions;
        let first_ending = self.first_ending;
        let bytes = p0.iter().zip(p1).zip(p2).zip(p3);
        for (i, (((&b0, &b1), &b2), &b3)) in bytes.enumerate() {
            s0 = self.step(table, s0, b0);
            s1 = self.step(table, s1, b1);
            s2 = self.step(table, s2, b2);
            s3 = self.step(table, s3, b3);
            if s0.max(s1).max(s2.max(s3)) >= first_ending {
                self.note([s0, s1, s2, s3], starts, i, &mut ends);
            }
        }
        [s0, s1, s2, s3]
    }

    /// Notes `(byte, state offset)` in the list of each walk side by side whose state some
    /// literal ends at, at step `i` (the rare path of [`Anchors::walk_two`] and
    /// [`Anchors::walk_four`]).
    #[inline(always)]
    fn note<const N: usize>(
        &self,
        states: [usize; N],
        starts: [usize; N],
        i: usize,
        ends: &mut [&mut Ends; N],
    ) {
        for (k, state) in states.into_iter().enumerate() {
            if state >= self.first_ending {
                ends[k].push((starts[k] + i, state));
            }
        }
    }

    /// The offset of the state `byte` leads to from the state at `offset`.
    #[inline(always)]
    fn step(&self, table: &[u32], offset: usize, byte: u8) -> usize {
        let index = offset + usize::from(self.classes[usize::from(byte)]);
        debug_assert!(index < table.len());
        // SAFETY: `offset` is 0 or an entry of `transitions`, which `new` only ever sets to
        // `state * stride` for a state that has a full row (and `shipped` refuses a table
        // with an entry less than `stride` from its end), and every class is below
        // `stride`; so `index` is inside the table. This lookup runs once per byte of every
        // file: the bounds check was a fifth of its cost.
        (unsafe { *table.get_unchecked(index) }) as usize
    }

    /// Reports the literals ending at byte `at`, in the state at `offset`.
    #[inline(always)]
    fn report(&self, offset: usize, at: usize, found: &mut impl FnMut(usize, usize)) {
        let (from, to) = self.output_ranges[self.by_stride.divide(offset)];
        for &literal in &self.outputs[from as usize..to as usize] {
            let length = self.lengths[literal as usize] as usize;
            found(at + 1 - length, literal as usize);
        }
    }
}

/// Division by a fixed number of a multiple of it, as a shift and a multiplication: the
/// division instruction takes a few dozen cycles, and [`Anchors::report`] divides once per
/// literal occurrence (some 230,000 over the public corpus).
#[derive(Debug, Clone, Copy)]
struct ExactDivisor {
    /// The divisor's factors of two.
    shift: u32,
    /// The inverse of its odd part modulo 2^64.
    inverse: u64,
}

impl ExactDivisor {
    /// `divisor` must not be 0 (a stride never is; 0 gives a divisor of 1).
    fn new(divisor: usize) -> ExactDivisor {
        let divisor = divisor.max(1) as u64;
        let shift = divisor.trailing_zeros();
        let odd = divisor >> shift;
        // Newton's iteration: an odd number is its own inverse modulo 8 (three bits), and
        // each step doubles the bits that are right: 3, 6, 12, 24, 48, 96.
        let mut inverse = odd;
        for _ in 0..5 {
            inverse = inverse.wrapping_mul(2u64.wrapping_sub(odd.wrapping_mul(inverse)));
        }
        ExactDivisor { shift, inverse }
    }

    /// `multiple / divisor`, for a `multiple` of the divisor.
    #[inline(always)]
    fn divide(self, multiple: usize) -> usize {
        ((multiple as u64 >> self.shift).wrapping_mul(self.inverse)) as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::XorShift;

    #[test]
    fn exact_division_divides_multiples() {
        for divisor in (1..=300).chain([1 << 10, 3 << 20, 255 * 4096]) {
            let by = ExactDivisor::new(divisor);
            for quotient in (0..2_000).chain([1 << 20, u32::MAX as usize]) {
                assert_eq!(
                    by.divide(quotient * divisor),
                    quotient,
                    "{quotient} * {divisor}"
                );
            }
        }
    }

    fn naive(literals: &[&str], text: &str) -> Vec<(usize, usize)> {
        let lower = text.to_ascii_lowercase();
        let mut out = Vec::new();
        for end in 1..=lower.len() {
            for (id, literal) in literals.iter().enumerate() {
                let literal = literal.to_ascii_lowercase();
                if !literal.is_empty()
                    && end >= literal.len()
                    && lower.as_bytes()[end - literal.len()..end] == *literal.as_bytes()
                {
                    out.push((end - literal.len(), id));
                }
            }
        }
        out.sort();
        out
    }

    fn ours(literals: &[&str], text: &str) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        Anchors::new(literals).for_each(text.as_bytes(), |start, id| out.push((start, id)));
        out.sort();
        out
    }

    #[test]
    fn overlapping_and_nested_occurrences_are_all_reported() {
        let literals = ["sh ", "bash ", "curl", "url", "rl -", "", "a"];
        let text = "CURL -s x | BASH \nbash curl";
        assert_eq!(ours(&literals, text), naive(&literals, text));
        assert_eq!(
            ours(&["sh ", "bash "], "bash x"),
            vec![(0, 1), (2, 0)],
            "both anchors of `bash ` are found"
        );
    }

    #[test]
    fn occurrences_are_reported_in_order_of_their_end() {
        let anchors = Anchors::new(&["abcd", "bc", "c"]);
        let mut ends = Vec::new();
        anchors.for_each(b"xabcdx", |start, id| {
            ends.push(start + ["abcd", "bc", "c"][id].len())
        });
        assert!(ends.windows(2).all(|w| w[0] <= w[1]), "{ends:?}");
        assert_eq!(ends.len(), 3);
    }

    #[test]
    fn matches_a_brute_force_search_on_generated_texts() {
        // A small alphabet makes overlaps and failure chains frequent.
        let literals = [
            "ab", "abab", "ba", "bab", "aab", "b", "caa", "AbC", "cc", "abcab", "-e ", "e -",
        ];
        let alphabet = b"abcABC -e\n\xc3\xa9";
        let mut random = XorShift::new(0x9e37_79b9_7f4a_7c15);
        for _ in 0..400 {
            let mut text = Vec::new();
            for _ in 0..40 {
                text.push(random.pick(alphabet));
            }
            let text = String::from_utf8_lossy(&text).into_owned();
            assert_eq!(ours(&literals, &text), naive(&literals, &text), "{text:?}");
        }
    }

    /// The shipped form reads back as the automaton it was written from, in place when
    /// aligned and copied when not, and only for the literals it was built from.
    #[test]
    fn the_shipped_form_reads_back_for_its_own_literals_only() {
        let literals = ["sh ", "bash ", "curl", "url", "rl -", "", "a", "é"];
        let built = Anchors::new(&literals);
        let bytes = built.to_shipped(&literals);
        let aligned: &'static [u32] = Box::leak(
            bytes
                .chunks(4)
                .map(|w| {
                    let mut word = [0u8; 4];
                    word[..w.len()].copy_from_slice(w);
                    u32::from_ne_bytes(word)
                })
                .collect::<Vec<_>>()
                .into_boxed_slice(),
        );
        // SAFETY: a `u32` slice read as its bytes, which are all initialised.
        let aligned: &'static [u8] =
            unsafe { std::slice::from_raw_parts(aligned.as_ptr().cast::<u8>(), bytes.len()) };
        let mut shifted = vec![0u8];
        shifted.extend(&bytes);
        let misaligned: &'static [u8] = &Box::leak(shifted.into_boxed_slice())[1..];
        let text = "run bash -c 'curl -sSL URL | sh ' now, é";
        let want = {
            let mut found = Vec::new();
            built.for_each(text.as_bytes(), |start, literal| {
                found.push((start, literal))
            });
            found
        };
        for (bytes, in_place) in [(aligned, true), (misaligned, false)] {
            let read = Anchors::shipped(bytes, &literals).expect("reads back");
            assert_eq!(
                matches!(read.transitions, Cow::Borrowed(_)),
                in_place && cfg!(target_endian = "little")
            );
            assert_eq!(read.to_shipped(&literals), built.to_shipped(&literals));
            let mut found = Vec::new();
            read.for_each(text.as_bytes(), |start, literal| {
                found.push((start, literal))
            });
            assert_eq!(found, want);
        }
        let others = ["sh ", "bash ", "curl", "url", "rl -", "", "a", "è"];
        assert!(
            Anchors::shipped(aligned, &others).is_none(),
            "other literals"
        );
        assert!(
            Anchors::shipped(aligned, &literals[..7]).is_none(),
            "fewer literals"
        );
        assert!(
            Anchors::shipped(&aligned[..aligned.len() - 4], &literals).is_none(),
            "cut short"
        );
        assert!(Anchors::shipped(b"", &literals).is_none());
        assert!(
            Anchors::shipped(&aligned[8..], &literals).is_none(),
            "no magic"
        );
    }

    /// A shipped table whose entries would lead a walk out of the table is refused,
    /// whatever else in it is right. (An entry inside the table but off a row start is
    /// wrong, not unsafe: `prebuilt_anchors_are_current` catches that.)
    #[test]
    fn a_shipped_table_that_would_lead_out_of_bounds_is_refused() {
        let literals = ["ab", "b", "ca"];
        let built = Anchors::new(&literals);
        let good = built.to_shipped(&literals);
        let table_at = good.len()
            - 4 * (built.transitions.len()
                + 2 * built.output_ranges.len()
                + built.outputs.len()
                + built.lengths.len());
        let leak = |bytes: Vec<u8>| -> &'static [u8] { Box::leak(bytes.into_boxed_slice()) };
        assert!(Anchors::shipped(leak(good.clone()), &literals).is_some());
        let patch = |at: usize, value: u32| {
            let mut bytes = good.clone();
            bytes[at..at + 4].copy_from_slice(&value.to_le_bytes());
            leak(bytes)
        };
        let stride = built.stride as u32;
        let len = built.transitions.len() as u32;
        for bad in [len, len - stride + 1, u32::MAX] {
            assert!(
                Anchors::shipped(patch(table_at, bad), &literals).is_none(),
                "entry {bad}"
            );
        }
        // A byte class past the stride.
        let mut bytes = good.clone();
        bytes[8 + 24 + usize::from(b'a')] = u8::try_from(stride).expect("small");
        assert!(Anchors::shipped(leak(bytes), &literals).is_none(), "class");
        // An output range past the outputs, and an output naming no literal.
        let ranges_at = table_at + 4 * built.transitions.len();
        let last_range = ranges_at + 8 * (built.output_ranges.len() - 1);
        assert!(
            Anchors::shipped(patch(last_range + 4, 1000), &literals).is_none(),
            "range"
        );
        let outputs_at = ranges_at + 8 * built.output_ranges.len();
        assert!(
            Anchors::shipped(patch(outputs_at, 3), &literals).is_none(),
            "output"
        );
        // The flag that lets a walk cut texts at line starts must match the literals.
        let mut bytes = good.clone();
        bytes[8 + 20] ^= 1;
        assert!(Anchors::shipped(leak(bytes), &literals).is_none(), "flag");
    }

    /// The invariant the search loop's unchecked lookup rests on.
    #[test]
    fn every_entry_names_a_state_with_a_full_row() {
        for literals in [
            &["sh ", "bash ", "curl", "url", "rl -", "", "a"][..],
            &[][..],
            &["x"][..],
        ] {
            let anchors = Anchors::new(literals);
            assert!(anchors.stride >= 1);
            assert_eq!(anchors.transitions.len() % anchors.stride, 0);
            assert!(
                anchors
                    .classes
                    .iter()
                    .all(|&c| usize::from(c) < anchors.stride)
            );
            // The walk reports exactly at the states some literal ends at.
            for (state, &(from, to)) in anchors.output_ranges.iter().enumerate() {
                assert_eq!(state * anchors.stride >= anchors.first_ending, from != to);
            }
            for &entry in anchors.transitions.iter() {
                let offset = entry as usize;
                assert_eq!(offset % anchors.stride, 0);
                assert!(offset + anchors.stride <= anchors.transitions.len());
            }
        }
    }

    /// Texts are walked in segments side by side; what they find, and its order, is that
    /// of one walk, whatever the length and however often lines start.
    #[test]
    fn texts_walked_in_segments_find_the_same_in_the_same_order() {
        let literals = [
            "ab", "abab", "ba", "bab", "aab", "b", "caa", "AbC", "cc", "e -",
        ];
        let anchors = Anchors::new(&literals);
        let mut random = XorShift::new(0x2545_f491_4f6c_dd1d);
        let lengths = [
            0, 1, 255, 511, 512, 513, 1023, 1024, 2047, 4097, 9000, 20_000,
        ];
        // A newline in about one byte of 10, of 100, of 1,000, and none.
        for newline_in in [10, 100, 1000, u64::MAX] {
            for length in lengths {
                let mut text = Vec::new();
                for _ in 0..length {
                    let seed = random.next();
                    let alphabet = b"abcABC -e";
                    text.push(if seed.is_multiple_of(newline_in) {
                        b'\n'
                    } else {
                        alphabet[(seed >> 20) as usize % alphabet.len()]
                    });
                }
                let text = String::from_utf8(text).expect("ascii");
                let mut in_order = Vec::new();
                anchors.for_each(text.as_bytes(), |start, id| {
                    in_order.push((start + literals[id].len(), start, id))
                });
                assert!(
                    in_order.windows(2).all(|w| w[0].0 <= w[1].0),
                    "ends in order, length {length}, newline in {newline_in}"
                );
                let mut found: Vec<(usize, usize)> =
                    in_order.iter().map(|&(_, s, i)| (s, i)).collect();
                found.sort();
                assert_eq!(found, naive(&literals, &text), "length {length}");
            }
        }
        // Lines of very different lengths.
        for text in [
            format!("{}\n{}", "ab".repeat(5000), "ba".repeat(1500)),
            format!(
                "{}\n{}\n{}",
                "ab".repeat(500),
                "ab".repeat(4000),
                "cab".repeat(10)
            ),
        ] {
            assert_eq!(ours(&literals, &text), naive(&literals, &text));
        }
    }

    /// The buffers kept from one text to the next carry nothing over, and a walk started
    /// from inside another's report gets buffers of its own.
    #[test]
    fn walks_one_after_another_and_one_inside_another_find_their_own() {
        let literals = ["ab", "b", "xy"];
        let anchors = Anchors::new(&literals);
        let dense = "ab\n".repeat(2000);
        let sparse = format!("{}\nxy", "z".repeat(3000));
        for text in [&dense, &sparse, &dense] {
            assert_eq!(ours(&literals, text), naive(&literals, text));
        }
        let mut outer = Vec::new();
        let mut inner = Vec::new();
        anchors.for_each(sparse.as_bytes(), |start, id| {
            outer.push((start, id));
            anchors.for_each(dense.as_bytes(), |start, id| inner.push((start, id)));
        });
        assert_eq!(outer, naive(&literals, &sparse));
        inner.sort();
        assert_eq!(inner, naive(&literals, &dense));
    }

    /// A walk with nothing to do takes the second half of the longest walk's work, from a
    /// line start; so a text whose lines allow it is walked in four about equal segments.
    #[test]
    fn idle_walks_take_half_of_the_longest_walks_work_from_a_line_start() {
        let anchors = Anchors::new(&["ab"]);
        let text = format!("{}\n", "x".repeat(63)).repeat(64);
        let mut segments = vec![Segment {
            from: 0,
            to: text.len(),
        }];
        let mut lanes = [Lane::default(); LANES];
        let mut busy = [true, false, false, false];
        for k in 1..LANES {
            let cut = anchors.split_off(text.as_bytes(), &mut segments, &lanes, busy);
            assert_eq!(cut, Some(k));
            lanes[k] = Lane {
                segment: k,
                at: segments[k].from,
                state: 0,
            };
            busy[k] = true;
        }
        let mut bounds: Vec<(usize, usize)> = segments.iter().map(|s| (s.from, s.to)).collect();
        bounds.sort();
        assert_eq!(
            bounds,
            [(0, 1024), (1024, 2048), (2048, 3072), (3072, 4096)]
        );
        // Too little left to share: a walk 511 bytes from its end keeps it.
        lanes = [Lane::default(); LANES];
        segments = vec![Segment { from: 0, to: 511 }];
        busy = [true, false, false, false];
        assert_eq!(
            anchors.split_off(text.as_bytes(), &mut segments, &lanes, busy),
            None
        );
        // A literal that holds a newline: never cut.
        let anchors = Anchors::new(&["a\nb"]);
        segments = vec![Segment {
            from: 0,
            to: text.len(),
        }];
        assert_eq!(
            anchors.split_off(text.as_bytes(), &mut segments, &lanes, busy),
            None
        );
    }

    /// A literal that holds a newline would span the split at a line start: such a text is
    /// walked whole.
    #[test]
    fn a_literal_holding_a_newline_is_found_across_the_middle_of_a_long_text() {
        let filler = "y".repeat(5000);
        let text = format!("{filler}a\nb{filler}");
        assert_eq!(ours(&["a\nb"], &text), vec![(5000, 0)]);
    }

    #[test]
    fn non_ascii_bytes_match_exactly_and_do_not_fold() {
        assert_eq!(ours(&["é"], "É é"), vec![(3, 0)]);
        assert!(ours(&["abc"], "").is_empty());
        assert!(ours(&[] as &[&str], "abc").is_empty());
    }
}
