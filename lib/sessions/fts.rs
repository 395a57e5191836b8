//! The two upstream full-text tables: create, repopulate from `messages`, optimize, verify.

use rusqlite::Connection;

use super::schema::{FTS_TABLES, FTS_TEXT_SQL, FtsTable};

/// Creates each missing upstream FTS table and trigger. Returns the names it created.
pub fn ensure(conn: &Connection) -> rusqlite::Result<Vec<&'static str>> {
    let mut created = Vec::new();
    for table in FTS_TABLES {
        if !exists(conn, table.name)? {
            created.push(table.name);
        }
        conn.execute_batch(table.create)?;
        for (name, sql) in table.triggers {
            if !exists(conn, name)? {
                created.push(name);
            }
            conn.execute_batch(sql)?;
        }
    }
    Ok(created)
}

/// The upstream triggers that are missing.
pub fn missing_triggers(conn: &Connection) -> rusqlite::Result<Vec<&'static str>> {
    let mut missing = Vec::new();
    for name in super::schema::upstream_trigger_names() {
        if !exists(conn, name)? {
            missing.push(name);
        }
    }
    Ok(missing)
}

fn exists(conn: &Connection, name: &str) -> rusqlite::Result<bool> {
    conn.prepare_cached("SELECT 1 FROM sqlite_master WHERE name = ?1")?
        .exists([name])
}

/// Re-derives one table from `messages`, as Python's `_rebuild_fts_indexes` does, but by
/// dropping and recreating the table instead of deleting its rows: a `DELETE` on an FTS5
/// table re-tokenises every stored document to remove it, which doubles the work. The
/// table's triggers are on `messages`, so they survive; they are recreated if missing.
/// Returns the rows indexed.
pub fn repopulate(tx: &Connection, table: &FtsTable) -> rusqlite::Result<u64> {
    tx.execute_batch(&format!("DROP TABLE IF EXISTS {}", table.name))?;
    tx.execute_batch(table.create)?;
    for (_, sql) in table.triggers {
        tx.execute_batch(sql)?;
    }
    fill_from_messages(tx, table)
}

/// Empties `table` and refills it from `messages` without recreating it: Python's
/// `_rebuild_fts_indexes`. Slower than [`repopulate`] on a full table (each deleted row is
/// re-tokenised), but the table keeps its place in the schema; used where Python uses it.
pub fn refill_in_place(tx: &Connection, table: &FtsTable) -> rusqlite::Result<u64> {
    let is_empty = !tx
        .prepare(&format!("SELECT 1 FROM {} LIMIT 1", table.name))?
        .exists([])?;
    if !is_empty {
        tx.execute(&format!("DELETE FROM {}", table.name), [])?;
    }
    fill_from_messages(tx, table)
}

/// Indexes every row of `messages` into `table`, with the text Python's triggers index.
fn fill_from_messages(tx: &Connection, table: &FtsTable) -> rusqlite::Result<u64> {
    let rows = tx.execute(
        &format!(
            "INSERT INTO {}(rowid, content) SELECT id, {FTS_TEXT_SQL} FROM messages",
            table.name
        ),
        [],
    )?;
    Ok(rows as u64)
}

/// How [`rebuild`] re-derived a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rebuild {
    /// The table's stored text equalled every message's: FTS5 `rebuild` re-derived the
    /// inverted index from it (Python's `rebuild_fts`).
    Rederived,
    /// The stored text differed (or the table was unreadable): refilled from `messages`
    /// (Python's `_rebuild_fts_indexes`).
    Repopulated,
}

/// Re-derives `table` from the messages table, the cheap way when it can: the table keeps
/// its own copy of each message's text, and when one indexed join shows that copy equal to
/// the text of every message (same ids, same text), rebuilding the inverted index from it
/// gives exactly the index a refill would, without rewriting the copy. Returns the rows.
pub fn rebuild(tx: &Connection, table: &FtsTable) -> rusqlite::Result<(u64, Rebuild)> {
    if let Ok(true) = copy_matches_messages(tx, table) {
        tx.execute(
            &format!("INSERT INTO {0}({0}) VALUES('rebuild')", table.name),
            [],
        )?;
        for (_, sql) in table.triggers {
            tx.execute_batch(sql)?;
        }
        let rows: i64 = tx.query_row("SELECT count(*) FROM messages", [], |r| r.get(0))?;
        return Ok((rows as u64, Rebuild::Rederived));
    }
    Ok((repopulate(tx, table)?, Rebuild::Repopulated))
}

/// Whether `<table>_content` holds exactly one row per message, with the message's text.
fn copy_matches_messages(conn: &Connection, table: &FtsTable) -> rusqlite::Result<bool> {
    if !exists(conn, table.name)? {
        return Ok(false);
    }
    let content = format!("{}_content", table.name);
    let count = |sql: &str| conn.query_row(sql, [], |r| r.get::<_, i64>(0));
    let messages = count("SELECT count(*) FROM messages")?;
    let copies = count(&format!("SELECT count(*) FROM {content}"))?;
    // With equal counts, every message matching a row of its own id leaves no row over.
    let differing = count(&format!(
        "SELECT count(*) FROM messages LEFT JOIN {content} AS c ON c.id = messages.id WHERE c.c0 IS NOT ({FTS_TEXT_SQL})"
    ))?;
    Ok(messages == copies && differing == 0)
}

/// FTS5 `optimize` (merge every segment into one) on `table`. Changes only the layout.
pub fn optimize(conn: &Connection, table: &str) -> rusqlite::Result<()> {
    conn.execute(
        &format!("INSERT INTO {table}({table}) VALUES('optimize')"),
        [],
    )
    .map(|_| ())
}

/// How one FTS table's rows compare with the messages they index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct Consistency {
    /// Index rows (the table's own content copy).
    pub rows: u64,
    /// Messages with no index row.
    pub missing: u64,
    /// Index rows whose message is gone.
    pub orphaned: u64,
    /// Index rows whose text differs from the message's current text.
    pub stale: u64,
}

impl Consistency {
    pub fn is_ok(&self) -> bool {
        self.missing == 0 && self.orphaned == 0 && self.stale == 0
    }
}

/// Compares an upstream table's content copy (`<name>_content`, columns `id`, `c0`) with the
/// text each message should have there.
pub fn consistency(conn: &Connection, table: &FtsTable) -> rusqlite::Result<Consistency> {
    let content = format!("{}_content", table.name);
    let count = |sql: String| -> rusqlite::Result<u64> {
        conn.query_row(&sql, [], |r| r.get::<_, i64>(0))
            .map(|n| n as u64)
    };
    Ok(Consistency {
        rows: count(format!("SELECT count(*) FROM {content}"))?,
        missing: count(format!(
            "SELECT count(*) FROM messages m WHERE NOT EXISTS (SELECT 1 FROM {content} c WHERE c.id = m.id)"
        ))?,
        orphaned: count(format!(
            "SELECT count(*) FROM {content} c WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.id = c.id)"
        ))?,
        stale: count(format!(
            "SELECT count(*) FROM messages JOIN {content} c ON c.id = messages.id WHERE c.c0 IS NOT ({FTS_TEXT_SQL})"
        ))?,
    })
}
