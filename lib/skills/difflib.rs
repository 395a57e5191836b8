//! Python's `difflib.SequenceMatcher` over characters, as the fuzzy patch matcher uses it:
//! the same longest-match recursion, the same "popular element" autojunk rule for sequences
//! of 200 or more, so similarity ratios (and therefore which fuzzy match wins) agree with
//! Hermes exactly.

use std::collections::HashMap;

/// A matching block: `a[a_start..a_start+len] == b[b_start..b_start+len]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Block {
    pub a: usize,
    pub b: usize,
    pub len: usize,
}

/// An edit turning a span of `a` into a span of `b`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tag {
    Equal,
    Replace,
    Delete,
    Insert,
}

/// `(tag, i1, i2, j1, j2)` as `get_opcodes` returns it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Opcode {
    pub tag: Tag,
    pub a1: usize,
    pub a2: usize,
    pub b1: usize,
    pub b2: usize,
}

/// `SequenceMatcher(None, a, b)` (autojunk on).
pub struct SequenceMatcher<'a> {
    a: &'a [char],
    b: &'a [char],
    b2j: HashMap<char, Vec<usize>>,
}

impl<'a> SequenceMatcher<'a> {
    pub fn new(a: &'a [char], b: &'a [char]) -> SequenceMatcher<'a> {
        let mut b2j: HashMap<char, Vec<usize>> = HashMap::new();
        for (j, c) in b.iter().enumerate() {
            b2j.entry(*c).or_default().push(j);
        }
        if b.len() >= 200 {
            let ntest = b.len() / 100 + 1;
            b2j.retain(|_, idxs| idxs.len() <= ntest);
        }
        SequenceMatcher { a, b, b2j }
    }

    /// `find_longest_match(alo, ahi, blo, bhi)`.
    pub fn find_longest_match(&self, alo: usize, ahi: usize, blo: usize, bhi: usize) -> Block {
        let (a, b) = (self.a, self.b);
        let (mut besti, mut bestj, mut bestsize) = (alo, blo, 0usize);
        let mut j2len: HashMap<usize, usize> = HashMap::new();
        for (i, ch) in a.iter().enumerate().take(ahi).skip(alo) {
            let mut next: HashMap<usize, usize> = HashMap::new();
            if let Some(js) = self.b2j.get(ch) {
                for &j in js {
                    if j < blo {
                        continue;
                    }
                    if j >= bhi {
                        break;
                    }
                    let k = j
                        .checked_sub(1)
                        .and_then(|p| j2len.get(&p))
                        .copied()
                        .unwrap_or(0)
                        + 1;
                    next.insert(j, k);
                    if k > bestsize {
                        besti = i + 1 - k;
                        bestj = j + 1 - k;
                        bestsize = k;
                    }
                }
            }
            j2len = next;
        }
        // No element is junk (no isjunk function), so only the first pair of extension
        // loops can grow the match; popular elements are not junk, only unindexed.
        while besti > alo && bestj > blo && a[besti - 1] == b[bestj - 1] {
            besti -= 1;
            bestj -= 1;
            bestsize += 1;
        }
        while besti + bestsize < ahi
            && bestj + bestsize < bhi
            && a[besti + bestsize] == b[bestj + bestsize]
        {
            bestsize += 1;
        }
        Block {
            a: besti,
            b: bestj,
            len: bestsize,
        }
    }

    /// `get_matching_blocks()`, ending with the `(len(a), len(b), 0)` sentinel.
    pub fn matching_blocks(&self) -> Vec<Block> {
        let (la, lb) = (self.a.len(), self.b.len());
        let mut queue = vec![(0, la, 0, lb)];
        let mut blocks = Vec::new();
        while let Some((alo, ahi, blo, bhi)) = queue.pop() {
            let m = self.find_longest_match(alo, ahi, blo, bhi);
            if m.len > 0 {
                blocks.push(m);
                if alo < m.a && blo < m.b {
                    queue.push((alo, m.a, blo, m.b));
                }
                if m.a + m.len < ahi && m.b + m.len < bhi {
                    queue.push((m.a + m.len, ahi, m.b + m.len, bhi));
                }
            }
        }
        blocks.sort();
        let mut merged: Vec<Block> = Vec::new();
        let (mut i1, mut j1, mut k1) = (0, 0, 0);
        for Block {
            a: i2,
            b: j2,
            len: k2,
        } in blocks
        {
            if i1 + k1 == i2 && j1 + k1 == j2 {
                k1 += k2;
            } else {
                if k1 > 0 {
                    merged.push(Block {
                        a: i1,
                        b: j1,
                        len: k1,
                    });
                }
                (i1, j1, k1) = (i2, j2, k2);
            }
        }
        if k1 > 0 {
            merged.push(Block {
                a: i1,
                b: j1,
                len: k1,
            });
        }
        merged.push(Block {
            a: la,
            b: lb,
            len: 0,
        });
        merged
    }

    /// `get_opcodes()`.
    pub fn opcodes(&self) -> Vec<Opcode> {
        let (mut i, mut j) = (0, 0);
        let mut out = Vec::new();
        for Block { a: ai, b: bj, len } in self.matching_blocks() {
            let tag = if i < ai && j < bj {
                Some(Tag::Replace)
            } else if i < ai {
                Some(Tag::Delete)
            } else if j < bj {
                Some(Tag::Insert)
            } else {
                None
            };
            if let Some(tag) = tag {
                out.push(Opcode {
                    tag,
                    a1: i,
                    a2: ai,
                    b1: j,
                    b2: bj,
                });
            }
            i = ai + len;
            j = bj + len;
            if len > 0 {
                out.push(Opcode {
                    tag: Tag::Equal,
                    a1: ai,
                    a2: i,
                    b1: bj,
                    b2: j,
                });
            }
        }
        out
    }

    /// `ratio()`: `2 * matches / (len(a) + len(b))`, 1.0 for two empty sequences.
    pub fn ratio(&self) -> f64 {
        let matches: usize = self.matching_blocks().iter().map(|b| b.len).sum();
        let total = self.a.len() + self.b.len();
        if total == 0 {
            1.0
        } else {
            2.0 * matches as f64 / total as f64
        }
    }
}

/// `SequenceMatcher(None, a, b).ratio()` of two strings.
pub fn ratio(a: &str, b: &str) -> f64 {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    SequenceMatcher::new(&a, &b).ratio()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chars(s: &str) -> Vec<char> {
        s.chars().collect()
    }

    #[test]
    fn ratios_match_python() {
        // Values from CPython 3.11's difflib.
        assert_eq!(ratio("abcd", "bcde"), 0.75);
        assert_eq!(ratio("", ""), 1.0);
        assert_eq!(ratio("abc", ""), 0.0);
        assert!(
            (ratio(
                "private Thread currentThread;",
                "private volatile Thread currentThread;"
            ) - 0.8656716417910447)
                .abs()
                < 1e-15
        );
        // Autojunk: 'a' is popular in a 200+ sequence and only found by extension.
        let b = format!("{}x", "a".repeat(250));
        assert!((ratio("aaax", &b) - 0.03137254901960784).abs() < 1e-15);
    }

    #[test]
    fn opcodes_match_python() {
        let a = chars("qabxcd");
        let b = chars("abycdf");
        let ops: Vec<(Tag, usize, usize, usize, usize)> = SequenceMatcher::new(&a, &b)
            .opcodes()
            .into_iter()
            .map(|o| (o.tag, o.a1, o.a2, o.b1, o.b2))
            .collect();
        assert_eq!(
            ops,
            vec![
                (Tag::Delete, 0, 1, 0, 0),
                (Tag::Equal, 1, 3, 0, 2),
                (Tag::Replace, 3, 4, 2, 3),
                (Tag::Equal, 4, 6, 3, 5),
                (Tag::Insert, 6, 6, 5, 6),
            ]
        );
    }
}
