//! Writing records to stdout: buffered, one JSON object per line, errors (a closed pipe
//! included) handed back so the exit path can end quietly.

use std::io::{self, BufWriter, Stdout, Write};

use serde::Serialize;

/// Buffered stdout. Flushes on drop, but callers should call [`Output::finish`] to see errors.
pub struct Output {
    inner: BufWriter<Stdout>,
}

impl Output {
    pub fn stdout() -> Output {
        Output {
            inner: BufWriter::with_capacity(64 * 1024, io::stdout()),
        }
    }

    /// One record as a single JSON line.
    pub fn jsonl<T: Serialize + ?Sized>(&mut self, record: &T) -> io::Result<()> {
        serde_json::to_writer(&mut self.inner, record).map_err(io::Error::from)?;
        self.inner.write_all(b"\n")
    }

    /// The whole answer as one pretty-printed JSON value.
    pub fn json<T: Serialize + ?Sized>(&mut self, value: &T) -> io::Result<()> {
        serde_json::to_writer_pretty(&mut self.inner, value).map_err(io::Error::from)?;
        self.inner.write_all(b"\n")
    }

    /// A line of text.
    pub fn line(&mut self, text: &str) -> io::Result<()> {
        self.inner.write_all(text.as_bytes())?;
        self.inner.write_all(b"\n")
    }

    /// Raw bytes, as they are.
    pub fn raw(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.inner.write_all(bytes)
    }

    pub fn finish(mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}
