//! Every position of one byte in a text, for bytes that recur every few dozen bytes (line
//! ends, hyphens).
//!
//! `memchr_iter` is made for bytes that are rare: each step is a call that sets up a vector
//! search of the rest of the text, and finds the next byte a few dozen bytes on. Here the
//! text is compared 64 bytes at a time into a bit mask, and the positions are read off the
//! mask: on the public corpus the newlines (one in 35 bytes) are found in half the time.
//! For rare bytes `memchr` stays the better choice.

/// The positions of `needle` in `haystack`, in increasing order.
pub fn of(haystack: &[u8], needle: u8) -> Positions<'_> {
    Positions {
        haystack,
        needle,
        base: 0,
        mask: 0,
        next: 0,
    }
}

/// See [`of`].
#[derive(Debug, Clone)]
pub struct Positions<'h> {
    haystack: &'h [u8],
    needle: u8,
    /// Offset of the block that `mask` describes.
    base: usize,
    /// The block's bytes equal to `needle` and not yet yielded, one bit each.
    mask: u64,
    /// Offset of the next block to compare.
    next: usize,
}

impl Iterator for Positions<'_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        while self.mask == 0 {
            let rest = self.haystack.get(self.next..).filter(|r| !r.is_empty())?;
            self.base = self.next;
            self.mask = block_mask(rest, self.needle);
            self.next += BLOCK;
        }
        let at = self.base + self.mask.trailing_zeros() as usize;
        self.mask &= self.mask - 1;
        Some(at)
    }

    /// What `for_each` runs on: block after block in one loop, the mask in a register,
    /// rather than a call of `next` per position that keeps the iterator's state in memory
    /// (the line starts of every file are found this way: 1.7 % of a tree scan before).
    #[inline]
    fn fold<B, F: FnMut(B, usize) -> B>(mut self, init: B, mut f: F) -> B {
        let mut acc = init;
        while self.mask != 0 {
            acc = f(acc, self.base + self.mask.trailing_zeros() as usize);
            self.mask &= self.mask - 1;
        }
        while let Some(rest) = self.haystack.get(self.next..).filter(|r| !r.is_empty()) {
            let (base, mut mask) = (self.next, block_mask(rest, self.needle));
            self.next += BLOCK;
            while mask != 0 {
                acc = f(acc, base + mask.trailing_zeros() as usize);
                mask &= mask - 1;
            }
        }
        acc
    }
}

const BLOCK: usize = 64;

/// Bit `i` set where byte `i` of the first 64 of `rest` is `needle`; a shorter `rest` is
/// padded with a byte that is not.
#[inline]
fn block_mask(rest: &[u8], needle: u8) -> u64 {
    match rest.first_chunk::<BLOCK>() {
        Some(block) => mask(block, needle),
        None => {
            let mut padded = [!needle; BLOCK];
            padded[..rest.len()].copy_from_slice(rest);
            mask(&padded, needle)
        }
    }
}

/// SSE2 is part of every x86-64 processor: compiled in, not checked for at run time.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline]
fn mask(block: &[u8; BLOCK], needle: u8) -> u64 {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
    };
    let mut bits = 0u64;
    for (k, lane) in block.chunks_exact(16).enumerate() {
        // SAFETY: the `cfg` above compiles this only where SSE2 is enabled for the whole
        // build, and `lane` is 16 bytes of `block` (`chunks_exact`), exactly what an
        // unaligned 128-bit load reads.
        let equal = unsafe {
            let loaded = _mm_loadu_si128(lane.as_ptr().cast::<__m128i>());
            _mm_movemask_epi8(_mm_cmpeq_epi8(loaded, _mm_set1_epi8(needle as i8)))
        };
        // movemask sets only the low 16 bits.
        bits |= u64::from(equal as u16) << (16 * k);
    }
    bits
}

#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
#[inline]
fn mask(block: &[u8; BLOCK], needle: u8) -> u64 {
    mask_by_words(block, needle)
}

/// [`mask`] eight bytes at a time in ordinary registers, for other processors.
#[cfg_attr(all(target_arch = "x86_64", target_feature = "sse2"), allow(dead_code))]
fn mask_by_words(block: &[u8; BLOCK], needle: u8) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let spread = u64::from_ne_bytes([needle; 8]);
    let mut bits = 0u64;
    for (k, word) in block.chunks_exact(8).enumerate() {
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(word);
        let x = u64::from_le_bytes(bytes) ^ spread;
        // The top bit of each byte set exactly where that byte of `x` is zero (no carry
        // crosses bytes, unlike the usual `(x - 0x01..) & !x & 0x80..` test).
        let zero = !(((x & LOW7) + LOW7) | x | LOW7);
        // Gather the eight top bits into one byte, byte 0's bit lowest.
        let gathered = ((zero >> 7).wrapping_mul(0x0102_0408_1020_4080)) >> 56;
        bits |= gathered << (8 * k);
    }
    bits
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(haystack: &[u8], needle: u8) -> Vec<usize> {
        (0..haystack.len())
            .filter(|&i| haystack[i] == needle)
            .collect()
    }

    /// Texts of every length around the block size and its multiples, with the needle
    /// at the edges, in runs, alone, absent, and next to bytes one bit away from it.
    #[test]
    fn finds_what_a_look_at_every_byte_finds() {
        let mut random = crate::testing::XorShift::new(0x2545_f491_4f6c_dd1d);
        let alphabet = [b'\n', b'-', b'a', 0x0b, 0x8a, b'\r', 0xff, 0];
        for len in (0..200).chain([255, 256, 257, 1000, 4095, 4096, 4097]) {
            for density in [0, 1, 4, 8] {
                let text: Vec<u8> = (0..len)
                    .map(|_| {
                        let seed = random.next();
                        let pick = (seed % 8) as usize;
                        if pick < density {
                            alphabet[pick % 2]
                        } else {
                            alphabet[2 + (seed >> 8) as usize % 6]
                        }
                    })
                    .collect();
                for needle in [b'\n', b'-', 0, 0xff] {
                    let want = naive(&text, needle);
                    assert_eq!(
                        of(&text, needle).collect::<Vec<_>>(),
                        want,
                        "{len} {needle}"
                    );
                    // Folded from the start, and after some were taken one by one.
                    for taken in [0, 1, 3] {
                        let mut positions = of(&text, needle);
                        let mut got: Vec<usize> = positions.by_ref().take(taken).collect();
                        positions.for_each(|at| got.push(at));
                        assert_eq!(got, want, "{len} {needle} {taken}");
                    }
                }
            }
        }
        assert_eq!(of(b"", b'\n').count(), 0);
        assert_eq!(of(&[b'\n'; 130], b'\n').count(), 130);
    }

    #[test]
    fn the_portable_mask_agrees_with_the_vector_one() {
        let mut block = [0u8; BLOCK];
        for (i, b) in block.iter_mut().enumerate() {
            *b = (i * 37 % 256) as u8;
        }
        for needle in 0..=255u8 {
            let want: u64 = (0..BLOCK)
                .filter(|&i| block[i] == needle)
                .map(|i| 1u64 << i)
                .sum();
            assert_eq!(mask_by_words(&block, needle), want, "{needle}");
            assert_eq!(mask(&block, needle), want, "{needle}");
        }
        let full = [b'-'; BLOCK];
        assert_eq!(mask_by_words(&full, b'-'), u64::MAX);
        assert_eq!(mask(&full, b'-'), u64::MAX);
    }
}
