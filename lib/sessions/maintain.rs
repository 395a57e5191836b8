//! `rebuild` and `optimize`: whole-index maintenance.

use std::path::Path;
use std::time::{Duration, Instant};

use super::cjk_index;
use super::db::Db;
use super::error::{Error, Result};
use super::fts;
use super::schema::FTS_TABLES;

/// What `rebuild` did.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct Rebuilt {
    pub messages: u64,
    pub fts_rows: u64,
    pub trigram_rows: u64,
    pub cjk_rows: u64,
    /// Upstream tables whose stored text differed from `messages` and were refilled from it
    /// (the others were re-derived from their verified copy).
    pub repopulated: u64,
    #[serde(serialize_with = "crate::io::format::milliseconds")]
    pub seconds: f64,
}

/// Re-derives every full-text index from the `messages` table in one transaction: both
/// upstream tables (see [`fts::rebuild`]: from their own copy of the text when it is
/// verified equal to the messages, else refilled from `messages`) and the CJK index
/// (tokenised on all cores). Missing triggers are recreated. `progress` counts rows: each
/// upstream table is one step of `messages` rows.
pub fn rebuild(db: &mut Db, progress: &(dyn Fn(u64) + Sync)) -> Result<Rebuilt> {
    let started = Instant::now();
    db.require_writable_schema()?;
    let path = db.path().to_path_buf();
    let mut done = db.write(|tx| {
        let err = |e| Error::sql(&path, "rebuilding the full-text indexes", e);
        let (fts_rows, a) = fts::rebuild(tx, &FTS_TABLES[0]).map_err(err)?;
        progress(fts_rows);
        let (trigram_rows, b) = fts::rebuild(tx, &FTS_TABLES[1]).map_err(err)?;
        progress(trigram_rows);
        let cjk = cjk_index::rebuild(tx, progress).map_err(err)?;
        Ok(Rebuilt {
            messages: cjk.scanned,
            fts_rows,
            trigram_rows,
            cjk_rows: cjk.indexed,
            repopulated: [a, b]
                .iter()
                .filter(|m| **m == fts::Rebuild::Repopulated)
                .count() as u64,
            seconds: 0.0,
        })
    })?;
    done.seconds = started.elapsed().as_secs_f64();
    Ok(done)
}

/// What `optimize` did.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct Optimized {
    /// `state.db` plus its `-wal`, before and after.
    pub bytes_before: u64,
    pub bytes_after: u64,
    #[serde(serialize_with = "crate::io::format::milliseconds")]
    pub seconds: f64,
}

/// FTS `optimize` on every full-text table, a truncating checkpoint, then `VACUUM`, as
/// Python's `hermes sessions optimize` does.
pub fn optimize(db: &mut Db) -> Result<Optimized> {
    let started = Instant::now();
    db.require_writable_schema()?;
    let bytes_before = file_bytes(db.path());
    let path = db.path().to_path_buf();
    db.write(|tx| {
        for table in FTS_TABLES.iter().map(|t| t.name).chain([cjk_index::TABLE]) {
            if tx
                .prepare_cached("SELECT 1 FROM sqlite_master WHERE name = ?1")
                .and_then(|mut s| s.exists([table]))
                .map_err(|e| Error::sql(&path, "optimizing", e))?
            {
                fts::optimize(tx, table)
                    .map_err(|e| Error::sql(&path, format!("optimizing {table}"), e))?;
            }
        }
        Ok(())
    })?;
    db.checkpoint();
    vacuum(db)?;
    db.checkpoint();
    Ok(Optimized {
        bytes_before,
        bytes_after: file_bytes(db.path()),
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// `VACUUM` cannot run inside a transaction, so it gets its own retry loop for a busy file.
fn vacuum(db: &Db) -> Result<()> {
    let attempts = 15;
    for attempt in 1..=attempts {
        match db.conn().execute_batch("VACUUM") {
            Ok(()) => return Ok(()),
            Err(e) if super::error::is_busy(&e) && attempt < attempts => {
                std::thread::sleep(Duration::from_millis(20 + 9 * attempt as u64));
            }
            Err(e) if super::error::is_busy(&e) => return Err(Error::Locked { attempts }),
            Err(e) => return Err(db.err("VACUUM", e)),
        }
    }
    Err(Error::Locked { attempts })
}

/// The bytes of the database file and its write-ahead log (metadata only: the files are
/// never opened behind SQLite's back).
pub fn file_bytes(path: &Path) -> u64 {
    let size = |p: &Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    size(path) + size(&wal_path(path))
}

/// `state.db-wal` beside `state.db`.
pub fn wal_path(path: &Path) -> std::path::PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push("-wal");
    std::path::PathBuf::from(name)
}
