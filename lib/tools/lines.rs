//! Reading a file line by line with a cap on what is kept of each line, so a huge file with
//! no newlines (a minified bundle, a database dump) cannot make a tool hold all of it.

use std::io::{BufRead, ErrorKind};

/// Reads through the next `\n` (or to the end), appending at most `cap` bytes of the line,
/// its newline excluded, to `buf`. Answers the bytes consumed, 0 at the end of the input.
pub fn read_capped<R: BufRead>(
    reader: &mut R,
    buf: &mut Vec<u8>,
    cap: usize,
) -> std::io::Result<usize> {
    let mut consumed = 0;
    loop {
        let chunk = match reader.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok(consumed);
        }
        let (body, used, done) = match memchr::memchr(b'\n', chunk) {
            Some(i) => (&chunk[..i], i + 1, true),
            None => (chunk, chunk.len(), false),
        };
        let room = cap.saturating_sub(buf.len());
        buf.extend_from_slice(&body[..body.len().min(room)]);
        reader.consume(used);
        consumed += used;
        if done {
            return Ok(consumed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that fails once with `kind` before it gives its bytes.
    struct FailsOnce {
        kind: Option<ErrorKind>,
        bytes: &'static [u8],
    }

    impl std::io::Read for FailsOnce {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            let n = self.fill_buf()?.len().min(out.len());
            out[..n].copy_from_slice(&self.bytes[..n]);
            self.consume(n);
            Ok(n)
        }
    }

    impl BufRead for FailsOnce {
        fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
            match self.kind.take() {
                Some(kind) => Err(kind.into()),
                None => Ok(self.bytes),
            }
        }

        fn consume(&mut self, n: usize) {
            self.bytes = &self.bytes[n..];
        }
    }

    #[test]
    fn an_interrupted_read_is_retried_and_any_other_error_returned() {
        let mut buf = Vec::new();
        let mut interrupted = FailsOnce {
            kind: Some(ErrorKind::Interrupted),
            bytes: b"one\ntwo",
        };
        assert_eq!(read_capped(&mut interrupted, &mut buf, 10).ok(), Some(4));
        assert_eq!(buf, b"one");
        let mut broken = FailsOnce {
            kind: Some(ErrorKind::Other),
            bytes: b"one\n",
        };
        let got = read_capped(&mut broken, &mut Vec::new(), 10);
        assert_eq!(got.map_err(|e| e.kind()), Err(ErrorKind::Other));
    }

    #[test]
    fn lines_are_cut_but_fully_consumed() {
        let mut input: &[u8] = b"abcdef\nxy\nlast";
        let mut buf = Vec::new();
        assert_eq!(read_capped(&mut input, &mut buf, 3).ok(), Some(7));
        assert_eq!(buf, b"abc");
        buf.clear();
        assert_eq!(read_capped(&mut input, &mut buf, 3).ok(), Some(3));
        assert_eq!(buf, b"xy");
        buf.clear();
        assert_eq!(read_capped(&mut input, &mut buf, 3).ok(), Some(4));
        assert_eq!(buf, b"las");
        buf.clear();
        assert_eq!(read_capped(&mut input, &mut buf, 3).ok(), Some(0));
        assert!(buf.is_empty());
    }

    #[test]
    fn a_line_longer_than_the_reader_buffer_is_read_across_fills() {
        let text = format!("{}\n{}", "a".repeat(40), "b".repeat(5));
        let mut reader = std::io::BufReader::with_capacity(8, text.as_bytes());
        let mut buf = Vec::new();
        assert_eq!(read_capped(&mut reader, &mut buf, 100).ok(), Some(41));
        assert_eq!(buf, "a".repeat(40).as_bytes());
        buf.clear();
        assert_eq!(read_capped(&mut reader, &mut buf, 2).ok(), Some(5));
        assert_eq!(buf, b"bb");
        // What is already in the buffer counts against the cap.
        let mut reader: &[u8] = b"xyz\n";
        let mut buf = b"12".to_vec();
        assert_eq!(read_capped(&mut reader, &mut buf, 3).ok(), Some(4));
        assert_eq!(buf, b"12x");
    }
}
