//! What can go wrong with the session store, in the terms a caller branches on.

use std::path::PathBuf;

use rusqlite::ErrorCode;

use super::schema::SCHEMA_VERSION;

/// An error from the session store.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No `state.db` where one was expected (read-only commands never create it).
    #[error("no session store at {}", .0.display())]
    Missing(PathBuf),

    /// The file is not a SQLite database, or its pages are damaged.
    #[error("{} is not a usable SQLite database: {detail}", path.display())]
    Corrupt { path: PathBuf, detail: String },

    /// The file is a SQLite database but holds no Hermes session store.
    #[error("{} is not a Hermes session store (no `{table}` table)", path.display())]
    NotSessionStore { path: PathBuf, table: &'static str },

    /// A newer Hermes wrote this database; we read it but do not write it.
    #[error(
        "{} has schema version {found}, newer than the v{SCHEMA_VERSION} this hermes-loop writes",
        path.display()
    )]
    NewerSchema { path: PathBuf, found: i64 },

    /// Another process held the write lock through every retry.
    #[error("the database is locked by another writer (gave up after {attempts} attempts)")]
    Locked { attempts: u32 },

    /// The file or its directory cannot be written (WAL needs the directory too).
    #[error("cannot write {}: {detail}", path.display())]
    ReadOnly { path: PathBuf, detail: String },

    /// A line of JSONL input that cannot be ingested.
    #[error("line {line}: {message}")]
    BadLine { line: usize, message: String },

    /// Reading the input failed.
    #[error("reading input: {0}")]
    Input(#[source] std::io::Error),

    /// The input file could not be opened.
    #[error(transparent)]
    File(#[from] crate::io::FileError),

    /// Any other SQLite failure, with what we were doing.
    #[error("{context}: {source}")]
    Sql {
        context: String,
        #[source]
        source: rusqlite::Error,
    },
}

impl Error {
    /// A SQLite error met while doing `context`, classified into the variants callers act on.
    pub fn sql(
        path: &std::path::Path,
        context: impl Into<String>,
        source: rusqlite::Error,
    ) -> Error {
        match source.sqlite_error_code() {
            Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt) => Error::Corrupt {
                path: path.to_path_buf(),
                detail: source.to_string(),
            },
            Some(ErrorCode::ReadOnly | ErrorCode::CannotOpen) => Error::ReadOnly {
                path: path.to_path_buf(),
                detail: source.to_string(),
            },
            _ => Error::Sql {
                context: context.into(),
                source,
            },
        }
    }

    /// Whether another connection's lock caused this (worth a retry).
    pub fn is_busy(&self) -> bool {
        match self {
            Error::Locked { .. } => true,
            Error::Sql { source, .. } => is_busy(source),
            _ => false,
        }
    }

    /// How a person can get past this error, when we know.
    pub fn hint(&self) -> Option<String> {
        match self {
            Error::Missing(_) => Some("create it with `hermes-index init` (or `hermes-index ingest`)".into()),
            Error::Corrupt { .. } => Some(
                "restore a backup, or let Python Hermes try its repair: `hermes sessions repair` \
                 (it keeps a copy of the damaged file first)"
                    .into(),
            ),
            Error::NotSessionStore { .. } => {
                Some("point --home at a Hermes home, or run `hermes-index init` to add the tables".into())
            }
            Error::NewerSchema { .. } => Some(
                "upgrade hermes-loop; export, stats and check still read this database".into(),
            ),
            Error::Locked { .. } => Some(
                "another Hermes process is writing (gateway, cron, an agent); try again when it is idle"
                    .into(),
            ),
            Error::ReadOnly { .. } => Some(
                "SQLite needs write access to state.db and to its directory (for the -wal and -shm files)"
                    .into(),
            ),
            _ => None,
        }
    }
}

/// Whether a SQLite error means "someone else holds the lock".
pub fn is_busy(err: &rusqlite::Error) -> bool {
    matches!(
        err.sqlite_error_code(),
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)
    )
}

/// `Result` with the session store's error.
pub type Result<T, E = Error> = std::result::Result<T, E>;
