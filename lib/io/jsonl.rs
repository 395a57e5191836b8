//! Reading JSONL: one JSON value per line, blank lines skipped, each bad line named by its
//! number. With `--keep-going` the caller reports a bad line and reads on. The input limits
//! every binary enforces are here, in one place (README "Input limits").

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

use super::FileError;

/// The longest line of calls, turns or conversation messages a binary reads (8 MiB): room
/// for a message of [`MAX_MESSAGE_CHARS`] with every character escaped, and far above any
/// real line; a longer one is a bad line, and is never held in memory whole.
pub const MAX_LINE_BYTES: usize = 8 << 20;

/// The longest line of sessions (`hermes-index ingest`, `hermes-review` reading an export):
/// one exported session holds every message and tool output of a conversation (256 MiB).
pub const MAX_SESSION_LINE_BYTES: usize = 256 << 20;

/// The longest user message hermes-chat sends (a million characters, about 250,000 tokens):
/// more than the context window of any model it talks to, so a longer one could only fail at
/// the model after being stored.
pub const MAX_MESSAGE_CHARS: usize = 1_000_000;

/// One parsed line.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// 1-based line number in the input.
    pub line: usize,
    pub value: serde_json::Value,
}

/// Why a line could not be read.
#[derive(Debug, thiserror::Error)]
pub enum JsonlError {
    #[error("line {line}: {message}")]
    BadLine { line: usize, message: String },
    #[error("reading input: {0}")]
    Io(#[from] io::Error),
}

impl JsonlError {
    /// A bad line can be skipped; a failing read cannot.
    pub fn is_bad_line(&self) -> bool {
        matches!(self, JsonlError::BadLine { .. })
    }
}

/// What is wrong with a line that is not JSON, by the column of the line (serde's own
/// message counts lines of the one line it was given, always line 1).
pub fn json_error(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let position = format!(" at line {} column {}", e.line(), e.column());
    let what = text.strip_suffix(&position).unwrap_or(&text);
    format!("invalid JSON at column {}: {what}", e.column())
}

/// A line longer than `max` bytes.
fn too_long(max: usize) -> String {
    format!("longer than the {} MiB a line may hold", max >> 20)
}

/// The lines of a stream as text, numbered, each checked for UTF-8 and for length.
pub struct Lines<R> {
    reader: R,
    line: usize,
    buf: Vec<u8>,
    max: usize,
    done: bool,
}

impl<R: BufRead> Lines<R> {
    /// Lines of at most [`MAX_LINE_BYTES`].
    pub fn new(reader: R) -> Lines<R> {
        Lines::with_max(reader, MAX_LINE_BYTES)
    }

    /// Lines of at most `max` bytes (without the newline).
    pub fn with_max(reader: R, max: usize) -> Lines<R> {
        Lines {
            reader,
            line: 0,
            buf: Vec::with_capacity(4096),
            max,
            done: false,
        }
    }

    /// Reads the next line into `buf` (newline included), up to `max` bytes and its newline;
    /// the rest of a longer line is read and dropped. `Ok(None)` at the end of the input,
    /// `Ok(Some(true))` for a line that was too long.
    fn read_line(&mut self) -> io::Result<Option<bool>> {
        self.buf.clear();
        let limit = self.max as u64 + 1;
        let n = read_until_retrying(&mut (&mut self.reader).take(limit), &mut self.buf)?;
        if n == 0 {
            return Ok(None);
        }
        if self.buf.len() as u64 == limit && self.buf.last() != Some(&b'\n') {
            let mut rest = Vec::new();
            loop {
                rest.clear();
                let n = read_until_retrying(&mut (&mut self.reader).take(1 << 16), &mut rest)?;
                if n == 0 || rest.last() == Some(&b'\n') {
                    break;
                }
            }
            return Ok(Some(true));
        }
        Ok(Some(false))
    }
}

/// `read_until` a newline, again after an interrupted read.
fn read_until_retrying(reader: &mut impl BufRead, buf: &mut Vec<u8>) -> io::Result<usize> {
    loop {
        match reader.read_until(b'\n', buf) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            other => return other,
        }
    }
}

impl<R: BufRead> Lines<R> {
    /// The next line's number and text (without the line ending), borrowed: the JSONL
    /// reader parses it in place, with no copy per line.
    fn next_text(&mut self) -> Option<Result<(usize, &str), JsonlError>> {
        if self.done {
            return None;
        }
        let too_long_line = match self.read_line() {
            Ok(None) => {
                self.done = true;
                return None;
            }
            Ok(Some(too_long_line)) => too_long_line,
            Err(e) => {
                self.done = true;
                return Some(Err(JsonlError::Io(e)));
            }
        };
        self.line += 1;
        let line = self.line;
        if too_long_line {
            return Some(Err(JsonlError::BadLine {
                line,
                message: too_long(self.max),
            }));
        }
        let bytes = self.buf.strip_suffix(b"\n").unwrap_or(&self.buf);
        let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
        Some(match std::str::from_utf8(bytes) {
            Ok(text) => Ok((line, text)),
            Err(e) => Err(JsonlError::BadLine {
                line,
                message: format!("invalid UTF-8 at byte {}", e.valid_up_to()),
            }),
        })
    }
}

impl<R: BufRead> Iterator for Lines<R> {
    /// The line's number and its text, without the line ending.
    type Item = Result<(usize, String), JsonlError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_text()
            .map(|r| r.map(|(line, text)| (line, text.to_string())))
    }
}

/// Iterates the JSON values of a JSONL stream.
pub struct Records<R> {
    lines: Lines<R>,
}

impl<R: BufRead> Records<R> {
    /// Lines of at most [`MAX_LINE_BYTES`].
    pub fn new(reader: R) -> Records<R> {
        Records::with_max(reader, MAX_LINE_BYTES)
    }

    /// Lines of at most `max` bytes.
    pub fn with_max(reader: R, max: usize) -> Records<R> {
        Records {
            lines: Lines::with_max(reader, max),
        }
    }
}

impl<R: BufRead> Iterator for Records<R> {
    type Item = Result<Record, JsonlError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let (line, text) = match self.lines.next_text()? {
                Ok(pair) => pair,
                Err(e) => return Some(Err(e)),
            };
            let trimmed = text.trim();
            if trimmed.is_empty() {
                continue;
            }
            return Some(
                serde_json::from_str(trimmed)
                    .map(|value| Record { line, value })
                    .map_err(|e| JsonlError::BadLine {
                        line,
                        message: json_error(&e),
                    }),
            );
        }
    }
}

/// A batch read whole before any of it is acted on: the objects of every good line, and
/// the bad lines `keep_going` let through (already reported by the caller's `warn`).
#[derive(Debug, Default, PartialEq)]
pub struct Batch {
    pub records: Vec<Record>,
    pub bad_lines: usize,
}

/// Reads every line of a batch of `what` (JSON objects, one a line) before any is applied,
/// so that a bad line leaves everything unwritten. A line that is not an object is a bad
/// line. With `keep_going`, bad lines go to `warn` and the rest is returned; without, the
/// first one is the error. A failing read is always the error.
pub fn read_batch(
    input: impl BufRead,
    what: &str,
    keep_going: bool,
    mut warn: impl FnMut(&JsonlError),
) -> Result<Batch, JsonlError> {
    let mut batch = Batch::default();
    for record in Records::new(input) {
        let checked = record.and_then(|r| {
            if r.value.is_object() {
                Ok(r)
            } else {
                Err(JsonlError::BadLine {
                    line: r.line,
                    message: format!("expected a JSON object of {what}"),
                })
            }
        });
        match checked {
            Ok(r) => batch.records.push(r),
            Err(e) if keep_going && e.is_bad_line() => {
                warn(&e);
                batch.bad_lines += 1;
            }
            Err(e) => return Err(e),
        }
    }
    Ok(batch)
}

/// The whole of a text input (a conversation, a prompt), as it is, with each line checked:
/// the first overlong line or invalid UTF-8 is the error, by its line number. Reading stops
/// at the first overlong line (never held whole) and once `max_total` bytes are passed.
pub fn read_text(
    input: impl BufRead,
    max_line: usize,
    max_total: usize,
) -> Result<String, JsonlError> {
    let mut lines = Lines::with_max(input, max_line);
    let mut text = String::new();
    while let Some(too_long_line) = lines.read_line()? {
        lines.line += 1;
        let line = lines.line;
        let bad = |message| JsonlError::BadLine { line, message };
        if too_long_line {
            return Err(bad(too_long(max_line)));
        }
        match std::str::from_utf8(&lines.buf) {
            Ok(part) => text.push_str(part),
            Err(e) => return Err(bad(format!("invalid UTF-8 at byte {}", e.valid_up_to()))),
        }
        if text.len() > max_total {
            return Err(bad(format!(
                "the input passes the {} MiB it may hold",
                max_total >> 20
            )));
        }
    }
    Ok(text)
}

/// A user message longer than [`MAX_MESSAGE_CHARS`], said for `where` (e.g. "line 3").
pub fn check_message(text: &str, place: &str) -> Result<(), String> {
    let chars = text.chars().count();
    if chars > MAX_MESSAGE_CHARS {
        return Err(format!(
            "{place}: the message is {chars} characters, above the {MAX_MESSAGE_CHARS} one \
             message may hold"
        ));
    }
    Ok(())
}

/// Before reading stdin: when it is a terminal, says what is expected and how to end it, so
/// a command waiting for input does not look hung. Nothing when stdin is a pipe or a file.
pub fn announce_stdin(bin: &str, what: &str, path: Option<&Path>) {
    use std::io::IsTerminal;
    if let Some(note) = stdin_note(bin, what, path, io::stdin().is_terminal()) {
        eprintln!("{note}");
    }
}

/// The words of [`announce_stdin`] when `terminal` says stdin is one.
fn stdin_note(bin: &str, what: &str, path: Option<&Path>, terminal: bool) -> Option<String> {
    let stdin = path.is_none_or(|p| p.as_os_str() == "-");
    (stdin && terminal)
        .then(|| format!("{bin}: reading {what} from stdin; end with Ctrl-D (Ctrl-C cancels)"))
}

/// Opens `path` for reading, or stdin when it is `None` or `-`.
pub fn open_input(path: Option<&Path>) -> Result<Box<dyn BufRead + Send>, FileError> {
    match path {
        None => Ok(Box::new(BufReader::new(io::stdin()))),
        Some(p) if p.as_os_str() == "-" => Ok(Box::new(BufReader::new(io::stdin()))),
        Some(p) => {
            let file = File::open(p).map_err(|e| FileError::new("open", p, e))?;
            Ok(Box::new(BufReader::with_capacity(256 * 1024, file)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn names_the_bad_line_and_reads_on() {
        let input = b"{\"a\":1}\n\n{bad\n\xff\n{\"b\":2}\n";
        let got: Vec<_> = Records::new(&input[..]).collect();
        assert_eq!(got.len(), 4);
        assert_eq!(got[0].as_ref().expect("ok").line, 1);
        assert_eq!(
            got[1].as_ref().expect_err("bad").to_string(),
            "line 3: invalid JSON at column 2: key must be a string"
        );
        assert_eq!(
            got[2].as_ref().expect_err("bad").to_string(),
            "line 4: invalid UTF-8 at byte 0"
        );
        assert_eq!(
            got[3].as_ref().expect("ok").value,
            serde_json::json!({"b": 2})
        );
    }

    #[test]
    fn only_a_bad_line_can_be_skipped() {
        let bad = JsonlError::BadLine {
            line: 3,
            message: "invalid JSON".into(),
        };
        assert!(bad.is_bad_line());
        assert!(!JsonlError::Io(io::Error::from(io::ErrorKind::Other)).is_bad_line());
    }

    /// Hands out the reads it was given, in order, then the end of the input.
    struct Scripted {
        reads: std::collections::VecDeque<io::Result<&'static [u8]>>,
        current: &'static [u8],
    }

    impl io::Read for Scripted {
        fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
            unreachable!("Records reads through BufRead")
        }
    }

    impl BufRead for Scripted {
        fn fill_buf(&mut self) -> io::Result<&[u8]> {
            if self.current.is_empty() {
                match self.reads.pop_front() {
                    Some(Ok(bytes)) => self.current = bytes,
                    Some(Err(e)) => return Err(e),
                    None => {}
                }
            }
            Ok(self.current)
        }
        fn consume(&mut self, amt: usize) {
            self.current = &self.current[amt..];
        }
    }

    #[test]
    fn an_interrupted_read_is_retried_and_a_failed_one_ends_the_stream() {
        let reads = Scripted {
            reads: [
                Err(io::Error::from(io::ErrorKind::Interrupted)),
                Ok(&b"{\"a\":1}\n"[..]),
                Err(io::Error::other("disk gone")),
                Ok(&b"{\"b\":2}\n"[..]),
            ]
            .into(),
            current: b"",
        };
        let got: Vec<_> = Records::new(reads).collect();
        assert_eq!(got.len(), 2);
        assert_eq!(
            got[0].as_ref().expect("ok"),
            &Record {
                line: 1,
                value: serde_json::json!({"a": 1})
            }
        );
        assert_eq!(
            got[1].as_ref().expect_err("io").to_string(),
            "reading input: disk gone"
        );
    }

    #[test]
    fn line_numbers_count_every_line() {
        let got: Vec<_> = Records::new(&b"\n{\"a\":1}\n\n\n[2]\n"[..])
            .map(|r| r.expect("ok").line)
            .collect();
        assert_eq!(got, [2, 5]);
    }

    #[test]
    fn the_stdin_note_is_for_a_terminal_only() {
        let note = "hermes-x: reading calls (JSONL) from stdin; end with Ctrl-D (Ctrl-C cancels)";
        assert_eq!(
            stdin_note("hermes-x", "calls (JSONL)", None, true).as_deref(),
            Some(note)
        );
        assert_eq!(
            stdin_note("hermes-x", "calls (JSONL)", Some(Path::new("-")), true).as_deref(),
            Some(note)
        );
        assert_eq!(stdin_note("hermes-x", "calls (JSONL)", None, false), None);
        assert_eq!(
            stdin_note(
                "hermes-x",
                "calls (JSONL)",
                Some(Path::new("calls.jsonl")),
                true
            ),
            None
        );
    }

    #[test]
    fn a_path_is_read_and_a_dash_is_stdin() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("calls.jsonl");
        std::fs::write(&path, "{\"a\":1}\n").expect("write");
        let mut text = String::new();
        open_input(Some(&path))
            .expect("open")
            .read_to_string(&mut text)
            .expect("read");
        assert_eq!(text, "{\"a\":1}\n");
        // No file named "-" exists here: opening one would fail.
        assert!(open_input(Some(Path::new("-"))).is_ok());
        let missing = dir.path().join("missing.jsonl");
        let err = open_input(Some(&missing)).err().expect("missing file");
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
        assert!(
            err.to_string()
                .starts_with(&format!("cannot open {}: ", missing.display())),
            "{err}"
        );
    }

    #[test]
    fn last_line_without_newline_is_read() {
        let got: Vec<_> = Records::new(&b"{\"a\":1}"[..]).collect();
        assert_eq!(got.len(), 1);
    }

    #[test]
    fn an_overlong_line_is_a_bad_line_and_the_next_one_is_read() {
        let mut input = b"{\"a\":1}\n".to_vec();
        input.extend(std::iter::repeat_n(b'x', 100_000));
        input.extend(b"\n[1]\n12345678\n");
        let got: Vec<_> = Records::with_max(&input[..], 8).collect();
        assert_eq!(got.len(), 4);
        assert_eq!(got[0].as_ref().expect("ok").line, 1);
        // The limit is said in MiB; 8 bytes is 0 of them.
        assert_eq!(
            got[1].as_ref().expect_err("long").to_string(),
            "line 2: longer than the 0 MiB a line may hold"
        );
        assert_eq!(got[2].as_ref().expect("ok").value, serde_json::json!([1]));
        // Exactly the limit, newline aside, is a line.
        assert_eq!(
            got[3].as_ref().expect("ok").value,
            serde_json::json!(12345678)
        );
        let long = "x".repeat(MAX_LINE_BYTES + 1);
        let got: Vec<_> = Records::new(long.as_bytes()).collect();
        assert_eq!(
            got[0].as_ref().expect_err("long").to_string(),
            "line 1: longer than the 8 MiB a line may hold"
        );
    }

    #[test]
    fn a_batch_is_read_whole_and_a_line_that_is_not_an_object_is_bad() {
        let input = b"{\"a\":1}\n[1,2,3]\n\"text\"\n{\"b\":2}\n";
        let err = read_batch(&input[..], "memory tool arguments", false, |_| {
            unreachable!("no warning without keep_going")
        })
        .expect_err("bad line");
        assert_eq!(
            err.to_string(),
            "line 2: expected a JSON object of memory tool arguments"
        );
        let mut warned = Vec::new();
        let batch = read_batch(&input[..], "calls", true, |e| warned.push(e.to_string()))
            .expect("keep going");
        assert_eq!(
            warned,
            [
                "line 2: expected a JSON object of calls",
                "line 3: expected a JSON object of calls"
            ]
        );
        assert_eq!(batch.bad_lines, 2);
        let lines: Vec<usize> = batch.records.iter().map(|r| r.line).collect();
        assert_eq!(lines, [1, 4]);
    }

    #[test]
    fn a_text_input_names_the_line_of_its_invalid_utf8() {
        let input = b"one\r\ntwo\nthr\xffee\n";
        assert_eq!(
            read_text(&input[..], MAX_LINE_BYTES, usize::MAX)
                .expect_err("bad")
                .to_string(),
            "line 3: invalid UTF-8 at byte 3"
        );
        assert_eq!(
            read_text(&b"one\r\ntwo"[..], MAX_LINE_BYTES, usize::MAX).expect("text"),
            "one\r\ntwo"
        );
        assert_eq!(
            read_text(&b"ok\n123456789\n"[..], 8, usize::MAX)
                .expect_err("long")
                .to_string(),
            "line 2: longer than the 0 MiB a line may hold"
        );
        // An endless input ends at the total: `yes | hermes-chat -z -`.
        let endless = std::io::repeat(b'\n').take(1 << 40);
        assert_eq!(
            read_text(io::BufReader::new(endless), 8, 3 << 20)
                .expect_err("endless")
                .to_string(),
            format!(
                "line {}: the input passes the 3 MiB it may hold",
                (3 << 20) + 1
            )
        );
    }

    #[test]
    fn a_message_above_the_limit_is_refused_by_its_place() {
        assert_eq!(
            check_message(&"é".repeat(MAX_MESSAGE_CHARS), "line 1"),
            Ok(())
        );
        assert_eq!(
            check_message(&"x".repeat(MAX_MESSAGE_CHARS + 1), "line 4"),
            Err(
                "line 4: the message is 1000001 characters, above the 1000000 one message may hold"
                    .into()
            )
        );
    }
}
