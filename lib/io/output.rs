//! Writing records to stdout: buffered, one JSON object per line, errors (a closed pipe
//! included) handed back so the exit path can end quietly.

use std::io::{self, BufWriter, Write};
use std::path::Path;

use serde::Serialize;

/// Buffered stdout (or a log file). Flushes on drop, but callers should call
/// [`Output::finish`] to see errors.
pub struct Output {
    inner: BufWriter<Box<dyn Write>>,
}

impl Output {
    pub fn stdout() -> Output {
        Output {
            inner: BufWriter::with_capacity(64 * 1024, Box::new(io::stdout())),
        }
    }

    /// Appends to a log file (`--log`), creating it and its folder when missing: a cron
    /// line must work on a home that has never had a `logs/` folder.
    pub fn append(path: &Path) -> io::Result<Output> {
        let file = open_log(path)?;
        Ok(Output {
            inner: BufWriter::with_capacity(64 * 1024, Box::new(file)),
        })
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

/// Opens `path` for appending, its folder created first.
pub fn open_log(path: &Path) -> io::Result<std::fs::File> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
}

/// Appends an error record (`{"error", "hint"?}`) to a `--log` file, so the log stays
/// pure JSONL and says why a run failed. Best effort: the error also goes to stderr.
pub fn log_error(path: &Path, err: &anyhow::Error) {
    let mut record = serde_json::json!({ "error": crate::io::exit::chain_text(err) });
    if let Some(hinted) = err
        .chain()
        .find_map(|e| e.downcast_ref::<crate::io::exit::Hinted>())
    {
        record["hint"] = serde_json::Value::String(hinted.hint.clone());
    }
    if let Ok(mut file) = open_log(path) {
        let _ = writeln!(file, "{record}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(path: &Path) -> String {
        std::fs::read_to_string(path).expect("read the log")
    }

    #[test]
    fn each_form_writes_its_bytes() {
        let dir = tempfile::tempdir().expect("tempdir");
        // The folder does not exist yet: a cron line's first run makes it.
        let path = dir.path().join("logs/run.jsonl");
        let mut out = Output::append(&path).expect("append");
        out.jsonl(&serde_json::json!({"a": 1, "b": [true]}))
            .expect("jsonl");
        out.json(&serde_json::json!({"c": null})).expect("json");
        out.line("plain").expect("line");
        out.raw(b"raw\x00").expect("raw");
        write!(out, "{}", 42).expect("write");
        out.finish().expect("finish");
        assert_eq!(
            read(&path),
            "{\"a\":1,\"b\":[true]}\n{\n  \"c\": null\n}\nplain\nraw\x0042"
        );
        // A second run appends.
        let mut again = Output::append(&path).expect("append");
        again.line("more").expect("line");
        again.finish().expect("finish");
        assert!(read(&path).ends_with("raw\x0042more\n"));
    }

    #[test]
    fn flush_reaches_the_file_before_finish() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("run.log");
        let mut out = Output::append(&path).expect("append");
        out.line("first").expect("line");
        assert_eq!(read(&path), "", "buffered until flushed");
        out.flush().expect("flush");
        assert_eq!(read(&path), "first\n");
        out.finish().expect("finish");
    }

    #[test]
    fn finish_reports_a_write_that_failed() {
        // /dev/full takes the open and refuses the bytes: the error only shows on flush.
        let Ok(mut out) = Output::append(Path::new("/dev/full")) else {
            return;
        };
        out.line("lost").expect("buffered");
        let err = out.finish().expect_err("the disk is full");
        assert_eq!(err.kind(), io::ErrorKind::StorageFull);
    }

    #[test]
    fn a_failed_run_leaves_its_error_and_hint_in_the_log() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("logs/curator.jsonl");
        let err = anyhow::Error::new(crate::io::exit::Hinted::new(
            "no model configured",
            "set model.default in config.yaml",
        ))
        .context("consolidating");
        log_error(&path, &err);
        log_error(&path, &anyhow::anyhow!("second"));
        assert_eq!(
            read(&path),
            "{\"error\":\"consolidating: no model configured\",\
             \"hint\":\"set model.default in config.yaml\"}\n{\"error\":\"second\"}\n"
        );
    }
}
