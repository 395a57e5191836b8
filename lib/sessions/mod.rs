//! The session store, `$HERMES_HOME/state.db`: the schema Python Hermes 0.19.0 writes
//! (version 22, its two FTS5 tables and their triggers), our CJK bigram index beside it, and
//! the operations of `hermes-index` (init, ingest, export, rebuild, check, stats, optimize).
//!
//! For readers (hermes-recall):
//! - [`open_for_search`] opens the store and catches the CJK index up first when it can;
//! - [`cjk`] is the tokeniser, to cut queries exactly as the index cut the text
//!   ([`cjk::match_query`] builds the `messages_fts_cjk MATCH` expression);
//! - [`cjk_index::lag`] says whether the index has seen every message (when it has not, a
//!   reader falls back to the trigram or LIKE paths for the rows above the watermark).
//!
//! Layout: [`schema`] (the DDL), [`db`] (connection, PRAGMAs, write transactions with
//! jittered retries), [`migrate`] (create and migrate), [`fts`] (the upstream FTS tables),
//! [`cjk`] + [`cjk_index`] (our index), [`record`] + [`ingest`], [`export`], [`maintain`]
//! (rebuild, optimize), [`check`], [`stats`].

pub mod check;
pub mod cjk;
pub mod cjk_index;
pub mod db;
pub mod error;
pub mod export;
pub mod fts;
pub mod ingest;
pub mod live;
pub mod maintain;
pub mod migrate;
pub mod record;
pub mod render;
pub mod schema;
pub mod stats;

use std::path::Path;

pub use cjk_index::{CatchUp, Lag};
pub use db::{Access, Db, RetryPolicy};
pub use error::{Error, Result};

/// Opens the store read-write for a command that writes, brings its schema to v22 (creating
/// the file when `create`; else a missing file is [`Error::Missing`]) and catches the CJK
/// index up. `progress` counts the rows the catch-up reads.
pub fn open_for_write(
    path: &Path,
    create: bool,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<(Db, migrate::SchemaReport, CatchUp)> {
    let mut db = if create {
        Db::create(path, RetryPolicy::default())?
    } else {
        Db::open(path, Access::ReadWrite)?
    };
    let schema = migrate::ensure_schema(&mut db)?;
    let caught_up = cjk_index::catch_up(&mut db, progress)?;
    Ok((db, schema, caught_up))
}

/// A store opened for searching.
#[derive(Debug)]
pub struct Opened {
    pub db: Db,
    /// What the catch-up did, when it could run.
    pub caught_up: Option<CatchUp>,
    /// Why it could not, when it could not (read-only home, newer schema, locked).
    pub catch_up_error: Option<Error>,
    /// The CJK index's state after all that.
    pub lag: Lag,
}

/// Opens `state.db` for reading and catches the CJK index up first. Read-write when the file
/// allows it; read-only otherwise (a read-only home or file), and likewise when the catch-up
/// cannot write (newer schema, another writer holding the lock through `retry`): the error is
/// kept in [`Opened::catch_up_error`] and [`Opened::lag`] tells the caller which rows the
/// index has not seen. Never creates the file.
pub fn open_for_search(path: &Path, retry: RetryPolicy) -> Result<Opened> {
    let mut db = match Db::open_with(path, Access::ReadWrite, retry) {
        Ok(db) => db,
        Err(Error::ReadOnly { .. }) => Db::open_for_reading(path, retry)?,
        Err(e) => return Err(e),
    };
    let (caught_up, catch_up_error) = if db.access() == Access::ReadWrite {
        match cjk_index::catch_up(&mut db, &|_| {}) {
            Ok(done) => (Some(done), None),
            Err(
                e @ (Error::ReadOnly { .. } | Error::Locked { .. } | Error::NewerSchema { .. }),
            ) => (None, Some(e)),
            Err(e) => return Err(e),
        }
    } else {
        (None, None)
    };
    let lag = cjk_index::lag(db.conn()).map_err(|e| db.err("reading the CJK index state", e))?;
    Ok(Opened {
        db,
        caught_up,
        catch_up_error,
        lag,
    })
}
