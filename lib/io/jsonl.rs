//! Reading JSONL: one JSON value per line, blank lines skipped, each bad line named by its
//! number. With `--keep-going` the caller reports a bad line and reads on.

use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::Path;

use super::FileError;

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

/// Iterates the JSON values of a JSONL stream.
pub struct Records<R> {
    reader: R,
    line: usize,
    buf: Vec<u8>,
    done: bool,
}

impl<R: BufRead> Records<R> {
    pub fn new(reader: R) -> Records<R> {
        Records {
            reader,
            line: 0,
            buf: Vec::with_capacity(4096),
            done: false,
        }
    }
}

impl<R: BufRead> Iterator for Records<R> {
    type Item = Result<Record, JsonlError>;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            self.buf.clear();
            match self.reader.read_until(b'\n', &mut self.buf) {
                Ok(0) => self.done = true,
                Ok(_) => {
                    self.line += 1;
                    let line = self.line;
                    let text = match std::str::from_utf8(&self.buf) {
                        Ok(text) => text,
                        Err(e) => {
                            return Some(Err(JsonlError::BadLine {
                                line,
                                message: format!("invalid UTF-8 at byte {}", e.valid_up_to()),
                            }));
                        }
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
                                message: format!("invalid JSON: {e}"),
                            }),
                    );
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.done = true;
                    return Some(Err(JsonlError::Io(e)));
                }
            }
        }
        None
    }
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
        assert!(
            got[1]
                .as_ref()
                .expect_err("bad")
                .to_string()
                .starts_with("line 3: invalid JSON")
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
    struct Scripted(std::collections::VecDeque<io::Result<&'static [u8]>>);

    impl io::Read for Scripted {
        fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
            unreachable!("Records reads with read_until")
        }
    }

    impl BufRead for Scripted {
        fn fill_buf(&mut self) -> io::Result<&[u8]> {
            unreachable!("Records reads with read_until")
        }
        fn consume(&mut self, _: usize) {}
        fn read_until(&mut self, _: u8, buf: &mut Vec<u8>) -> io::Result<usize> {
            match self.0.pop_front() {
                Some(Ok(bytes)) => {
                    buf.extend_from_slice(bytes);
                    Ok(bytes.len())
                }
                Some(Err(e)) => Err(e),
                None => Ok(0),
            }
        }
    }

    #[test]
    fn an_interrupted_read_is_retried_and_a_failed_one_ends_the_stream() {
        let reads = Scripted(
            [
                Err(io::Error::from(io::ErrorKind::Interrupted)),
                Ok(&b"{\"a\":1}\n"[..]),
                Err(io::Error::other("disk gone")),
                Ok(&b"{\"b\":2}\n"[..]),
            ]
            .into(),
        );
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
}
