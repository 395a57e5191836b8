//! The denominator of the hermes-index benchmark: a bare FTS5 `rebuild` of both upstream
//! tables on a state.db, timed with the SQLite that hermes-loop bundles (Python's sqlite3
//! is an older, slower build; benches/bench_index.py times both).
//!
//!     bare-fts5-rebuild STATE_DB    prints the seconds
//!
//! Built by benches/bench_index.py (`cargo build --release --example bare-fts5-rebuild`).

use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args_os()
        .nth(1)
        .ok_or("usage: bare-fts5-rebuild STATE_DB")?;
    let conn = rusqlite::Connection::open(path)?;
    let started = Instant::now();
    conn.execute_batch(
        "BEGIN IMMEDIATE;
         INSERT INTO messages_fts(messages_fts) VALUES('rebuild');
         INSERT INTO messages_fts_trigram(messages_fts_trigram) VALUES('rebuild');
         COMMIT;",
    )?;
    let seconds = started.elapsed().as_secs_f64();
    conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")?;
    println!("{seconds}");
    Ok(())
}
