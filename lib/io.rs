//! The conventions every binary shares: output formats, JSONL in and out, Python-compatible
//! JSON, atomic writes, advisory locks, exit codes and terminal-safe text.

pub mod atomic;
pub mod cli;
pub mod exit;
pub mod format;
pub mod jsonl;
pub mod lock;
pub mod output;
pub mod progress;
pub mod pyjson;
pub mod sanitize;
pub mod table;

use std::path::{Path, PathBuf};

/// A filesystem operation that failed, with the path it failed on. Its message carries the
/// OS error, so it reports no `source()`: a chain printed with `{:#}` says it once.
#[derive(Debug)]
pub struct FileError {
    pub action: &'static str,
    pub path: PathBuf,
    pub source: std::io::Error,
}

impl std::fmt::Display for FileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "cannot {} {}: {}",
            self.action,
            self.path.display(),
            self.source
        )
    }
}

impl std::error::Error for FileError {}

impl FileError {
    pub fn new(action: &'static str, path: &Path, source: std::io::Error) -> FileError {
        FileError {
            action,
            path: path.to_path_buf(),
            source,
        }
    }

    pub fn kind(&self) -> std::io::ErrorKind {
        self.source.kind()
    }
}

/// Reads a whole file, naming it in the error.
pub fn read_file(path: &Path) -> Result<Vec<u8>, FileError> {
    std::fs::read(path).map_err(|e| FileError::new("read", path, e))
}
