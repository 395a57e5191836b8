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
