//! Helpers for the library's tests.

/// Xorshift64: a fixed stream of numbers from a seed, for tests that generate texts, so
/// that a failing text comes back on every run.
pub(crate) struct XorShift(u64);

impl XorShift {
    pub(crate) fn new(seed: u64) -> XorShift {
        XorShift(seed)
    }

    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A byte of `alphabet`, each about as likely.
    pub(crate) fn pick(&mut self, alphabet: &[u8]) -> u8 {
        alphabet[(self.next() % alphabet.len() as u64) as usize]
    }
}
