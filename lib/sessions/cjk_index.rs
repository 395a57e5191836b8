//! `messages_fts_cjk`: the CJK bigram index, kept current without asking anything of the
//! Python writers that share the file.
//!
//! Python Hermes writes messages through its own triggers, which feed its two FTS tables.
//! Our tokeniser lives in this process only, so no trigger can call it (Python's sqlite3
//! would fail every write with "no such function"). Instead:
//!
//! - `messages_fts_cjk` is an ordinary FTS5 table (`ascii` tokenizer) holding, per message
//!   with CJK letters, the document of [`super::cjk::document`]; rowid = `messages.id`.
//! - `messages_fts_cjk_state` holds the **watermark**: every message with `id <= watermark`
//!   is reflected in the index, except the ids listed in the change log. Message ids are
//!   AUTOINCREMENT, so anything appended later has a larger id and is found by a range scan.
//! - `messages_fts_cjk_pending` is the **change log**: plain-SQL triggers record the ids of
//!   messages updated (content, tool name, tool calls or id) or deleted, and of rows inserted
//!   with an explicit id at or below the watermark. They only insert ids into a table, which
//!   any SQLite can do.
//! - [`catch_up`] (run by every hermes-index and hermes-recall invocation that may write)
//!   re-indexes the logged ids, indexes the rows above the watermark, clears the log and
//!   moves the watermark, in one transaction. When nothing changed it costs two indexed reads
//!   and takes no write lock.
//!
//! Every object is named `messages_fts_cjk*`, so Python's last-resort repair (which drops
//! `messages_fts%` from the schema) removes them together; a missing object, or a tokeniser
//! version other than ours, makes the next catch-up rebuild the index from scratch.

use rayon::prelude::*;
use rusqlite::types::ValueRef;
use rusqlite::{Connection, OptionalExtension};

use super::cjk::{self, TOKENIZER_VERSION};
use super::db::Db;
use super::error::{Error, Result};

/// The FTS5 table.
pub const TABLE: &str = "messages_fts_cjk";
/// The key/value table holding the watermark and the tokeniser version.
pub const STATE_TABLE: &str = "messages_fts_cjk_state";
/// The change log.
pub const PENDING_TABLE: &str = "messages_fts_cjk_pending";

/// Creates the FTS5 table.
pub const CREATE_TABLE: &str = "CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts_cjk USING fts5(
    content,
    tokenize='ascii'
)";

const CREATE_STATE: &str = "CREATE TABLE IF NOT EXISTS messages_fts_cjk_state (
    key TEXT PRIMARY KEY,
    value INTEGER NOT NULL
)";

const CREATE_PENDING: &str = "CREATE TABLE IF NOT EXISTS messages_fts_cjk_pending (
    id INTEGER PRIMARY KEY
)";

/// The change-log triggers: name and statement. Plain SQL only.
pub const TRIGGERS: [(&str, &str); 3] = [
    (
        "messages_fts_cjk_log_insert",
        "CREATE TRIGGER IF NOT EXISTS messages_fts_cjk_log_insert AFTER INSERT ON messages
WHEN new.id <= (SELECT value FROM messages_fts_cjk_state WHERE key = 'watermark') BEGIN
    INSERT OR IGNORE INTO messages_fts_cjk_pending(id) VALUES (new.id);
END",
    ),
    (
        "messages_fts_cjk_log_update",
        "CREATE TRIGGER IF NOT EXISTS messages_fts_cjk_log_update AFTER UPDATE OF id, content, tool_name, tool_calls ON messages BEGIN
    INSERT OR IGNORE INTO messages_fts_cjk_pending(id) VALUES (old.id);
    INSERT OR IGNORE INTO messages_fts_cjk_pending(id) VALUES (new.id);
END",
    ),
    (
        "messages_fts_cjk_log_delete",
        "CREATE TRIGGER IF NOT EXISTS messages_fts_cjk_log_delete AFTER DELETE ON messages BEGIN
    INSERT OR IGNORE INTO messages_fts_cjk_pending(id) VALUES (old.id);
END",
    ),
];

/// Every schema object of the CJK index, by name.
pub fn object_names() -> impl Iterator<Item = &'static str> {
    [TABLE, STATE_TABLE, PENDING_TABLE]
        .into_iter()
        .chain(TRIGGERS.iter().map(|(name, _)| *name))
}

/// How far the index is behind the messages table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct Lag {
    /// Every object exists and was built by our tokeniser version.
    pub present: bool,
    /// The highest message id folded in (0 when absent).
    pub watermark: i64,
    /// The highest message id in the table.
    pub max_id: i64,
    /// Messages above the watermark, not yet indexed.
    pub behind: u64,
    /// Ids in the change log, waiting to be re-indexed.
    pub pending: u64,
}

impl Lag {
    /// Whether a CJK query would see every message as it is now.
    pub fn is_current(&self) -> bool {
        self.present && self.behind == 0 && self.pending == 0
    }
}

/// What one catch-up or rebuild did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct CatchUp {
    /// The index was rebuilt from scratch (missing objects or another tokeniser version).
    pub rebuilt: bool,
    /// Messages read and tokenised.
    pub scanned: u64,
    /// Index rows written.
    pub indexed: u64,
    /// Change-log entries processed.
    pub pending: u64,
    /// The watermark afterwards.
    pub watermark: i64,
}

/// Reads the index's state without writing (works on a read-only connection).
pub fn lag(conn: &Connection) -> rusqlite::Result<Lag> {
    let max_id: i64 = conn.query_row("SELECT COALESCE(max(id), 0) FROM messages", [], |r| {
        r.get(0)
    })?;
    if !objects_present(conn)? {
        return Ok(Lag {
            present: false,
            watermark: 0,
            max_id,
            behind: count_after(conn, 0)?,
            pending: 0,
        });
    }
    let watermark = state_value(conn, "watermark")?.unwrap_or(0);
    let version = state_value(conn, "tokenizer")?;
    let pending: i64 =
        conn.query_row("SELECT count(*) FROM messages_fts_cjk_pending", [], |r| {
            r.get(0)
        })?;
    Ok(Lag {
        present: version == Some(TOKENIZER_VERSION),
        watermark,
        max_id,
        behind: count_after(conn, watermark)?,
        pending: pending as u64,
    })
}

fn count_after(conn: &Connection, id: i64) -> rusqlite::Result<u64> {
    conn.query_row("SELECT count(*) FROM messages WHERE id > ?1", [id], |r| {
        r.get::<_, i64>(0)
    })
    .map(|n| n as u64)
}

fn objects_present(conn: &Connection) -> rusqlite::Result<bool> {
    let mut stmt = conn.prepare_cached("SELECT 1 FROM sqlite_master WHERE name = ?1")?;
    for name in object_names() {
        if !stmt.exists([name])? {
            return Ok(false);
        }
    }
    Ok(true)
}

fn state_value(conn: &Connection, key: &str) -> rusqlite::Result<Option<i64>> {
    conn.query_row(
        "SELECT value FROM messages_fts_cjk_state WHERE key = ?1",
        [key],
        |r| r.get(0),
    )
    .optional()
}

fn set_state(conn: &Connection, key: &str, value: i64) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT INTO messages_fts_cjk_state(key, value) VALUES (?1, ?2)
         ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (key, value),
    )
    .map(|_| ())
}

/// Brings the index up to date: a no-op without a write lock when it already is, a catch-up
/// of the change log and of the rows above the watermark otherwise, a full rebuild when an
/// object is missing. `progress` is told how many rows each step read.
pub fn catch_up(db: &mut Db, progress: &(dyn Fn(u64) + Sync)) -> Result<CatchUp> {
    let before = lag(db.conn()).map_err(|e| db.err("reading the CJK index state", e))?;
    if before.is_current() {
        return Ok(CatchUp {
            watermark: before.watermark,
            ..CatchUp::default()
        });
    }
    db.require_writable_schema()?;
    let path = db.path().to_path_buf();
    db.write(|tx| sync(tx, progress).map_err(|e| Error::sql(&path, "catching up the CJK index", e)))
}

/// [`catch_up`] inside a transaction the caller holds (ingest runs it at the start of each
/// batch, so rows other writers appended between batches are indexed before ours).
pub fn sync(tx: &Connection, progress: &(dyn Fn(u64) + Sync)) -> rusqlite::Result<CatchUp> {
    let state = lag(tx)?;
    if !state.present {
        return rebuild(tx, progress);
    }
    if state.is_current() {
        return Ok(CatchUp {
            watermark: state.watermark,
            ..CatchUp::default()
        });
    }
    let mut done = CatchUp {
        watermark: state.watermark,
        ..CatchUp::default()
    };
    if state.pending > 0 {
        let ids: Vec<i64> = {
            let mut stmt = tx.prepare("SELECT id FROM messages_fts_cjk_pending ORDER BY id")?;
            stmt.query_map([], |r| r.get(0))?
                .collect::<rusqlite::Result<_>>()?
        };
        let mut delete = tx.prepare_cached("DELETE FROM messages_fts_cjk WHERE rowid = ?1")?;
        let mut read =
            tx.prepare_cached("SELECT content, tool_name, tool_calls FROM messages WHERE id = ?1")?;
        let mut insert = tx.prepare_cached(INSERT_DOC)?;
        for &id in &ids {
            delete.execute([id])?;
            // Rows above the watermark are picked up by the range scan below.
            if id > state.watermark {
                continue;
            }
            let doc = read
                .query_row([id], |r| {
                    Ok(row_document(r.get_ref(0)?, r.get_ref(1)?, r.get_ref(2)?))
                })
                .optional()?
                .flatten();
            done.scanned += 1;
            if let Some(doc) = doc {
                insert.execute((id, doc))?;
                done.indexed += 1;
            }
        }
        tx.execute("DELETE FROM messages_fts_cjk_pending", [])?;
        done.pending = ids.len() as u64;
        progress(ids.len() as u64);
    }
    if state.behind > 0 {
        let (scanned, indexed) = index_after(tx, state.watermark, progress)?;
        done.scanned += scanned;
        done.indexed += indexed;
    }
    done.watermark = state.max_id.max(state.watermark);
    set_state(tx, "watermark", done.watermark)?;
    Ok(done)
}

/// Drops and rebuilds the whole index from the messages table (tokenising in parallel), and
/// recreates any missing table or trigger.
pub fn rebuild(tx: &Connection, progress: &(dyn Fn(u64) + Sync)) -> rusqlite::Result<CatchUp> {
    // Dropping an FTS5 table discards its segments at once; deleting its rows one by one
    // would re-tokenise every stored document.
    tx.execute_batch("DROP TABLE IF EXISTS messages_fts_cjk")?;
    tx.execute_batch(CREATE_TABLE)?;
    ensure_side_tables(tx)?;
    tx.execute("DELETE FROM messages_fts_cjk_pending", [])?;
    let (scanned, indexed) = index_after(tx, i64::MIN, progress)?;
    let max_id: i64 = tx.query_row("SELECT COALESCE(max(id), 0) FROM messages", [], |r| {
        r.get(0)
    })?;
    set_state(tx, "watermark", max_id)?;
    set_state(tx, "tokenizer", TOKENIZER_VERSION)?;
    Ok(CatchUp {
        rebuilt: true,
        scanned,
        indexed,
        pending: 0,
        watermark: max_id,
    })
}

/// Creates the state table, change log and triggers when missing (never the FTS table).
pub fn ensure_side_tables(tx: &Connection) -> rusqlite::Result<()> {
    tx.execute_batch(CREATE_STATE)?;
    tx.execute_batch(CREATE_PENDING)?;
    for (_, sql) in TRIGGERS {
        tx.execute_batch(sql)?;
    }
    Ok(())
}

/// Inserts one index row.
pub const INSERT_DOC: &str = "INSERT INTO messages_fts_cjk(rowid, content) VALUES (?1, ?2)";

/// Sets the watermark (ingest moves it past the rows it indexed itself).
pub fn set_watermark(tx: &Connection, id: i64) -> rusqlite::Result<()> {
    set_state(tx, "watermark", id)
}

/// The index document of a message row from its three indexed columns. The columns are
/// joined by spaces in the FTS text, so no CJK run spans two of them and each can be
/// tokenised alone.
pub fn row_document(
    content: ValueRef<'_>,
    tool_name: ValueRef<'_>,
    tool_calls: ValueRef<'_>,
) -> Option<String> {
    let parts: Vec<String> = [content, tool_name, tool_calls]
        .into_iter()
        .filter_map(|v| match v {
            ValueRef::Text(bytes) if may_hold_cjk(bytes) => {
                cjk::document(&String::from_utf8_lossy(bytes))
            }
            _ => None,
        })
        .collect();
    (!parts.is_empty()).then(|| parts.join(" "))
}

/// The document for the texts of one message as ingest has them.
pub fn text_document(
    content: Option<&str>,
    tool_name: Option<&str>,
    tool_calls: Option<&str>,
) -> Option<String> {
    let parts: Vec<String> = [content, tool_name, tool_calls]
        .into_iter()
        .flatten()
        .filter_map(cjk::document)
        .collect();
    (!parts.is_empty()).then(|| parts.join(" "))
}

/// Whether UTF-8 `bytes` may hold a CJK character: every CJK range encodes to a lead byte
/// of 0xE3..=0xED or 0xF0, so text without one is skipped at memory speed.
pub fn may_hold_cjk(bytes: &[u8]) -> bool {
    bytes
        .iter()
        .any(|&b| (0xE3..=0xED).contains(&b) || b == 0xF0)
}

/// Indexes every message with `id > after`, reading in id order and tokenising the rows that
/// may hold CJK on all cores. Returns (rows read, index rows written).
fn index_after(
    tx: &Connection,
    after: i64,
    progress: &(dyn Fn(u64) + Sync),
) -> rusqlite::Result<(u64, u64)> {
    const CHUNK: usize = 8192;
    let mut select = tx.prepare(
        "SELECT id, content, tool_name, tool_calls FROM messages WHERE id > ?1 ORDER BY id",
    )?;
    let mut insert = tx.prepare_cached(INSERT_DOC)?;
    let mut rows = select.query([after])?;
    let mut candidates: Vec<(i64, [Option<String>; 3])> = Vec::with_capacity(CHUNK);
    let (mut scanned, mut indexed, mut since_report) = (0u64, 0u64, 0u64);
    let mut flush = |candidates: &mut Vec<(i64, [Option<String>; 3])>| -> rusqlite::Result<u64> {
        let docs: Vec<(i64, Option<String>)> = candidates
            .par_iter()
            .map(|(id, texts)| {
                let [a, b, c] = texts;
                (*id, text_document(a.as_deref(), b.as_deref(), c.as_deref()))
            })
            .collect();
        candidates.clear();
        let mut written = 0;
        for (id, doc) in docs {
            if let Some(doc) = doc {
                insert.execute((id, doc))?;
                written += 1;
            }
        }
        Ok(written)
    };
    while let Some(row) = rows.next()? {
        scanned += 1;
        since_report += 1;
        let texts = [row.get_ref(1)?, row.get_ref(2)?, row.get_ref(3)?];
        if texts
            .iter()
            .any(|v| matches!(v, ValueRef::Text(b) if may_hold_cjk(b)))
        {
            let owned = texts.map(|v| match v {
                ValueRef::Text(b) if may_hold_cjk(b) => {
                    Some(String::from_utf8_lossy(b).into_owned())
                }
                _ => None,
            });
            candidates.push((row.get(0)?, owned));
            if candidates.len() >= CHUNK {
                indexed += flush(&mut candidates)?;
            }
        }
        if since_report >= 4096 {
            progress(since_report);
            since_report = 0;
        }
    }
    indexed += flush(&mut candidates)?;
    progress(since_report);
    Ok((scanned, indexed))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> Connection {
        let conn = Connection::open_in_memory().expect("db");
        conn.execute_batch(
            "CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, content TEXT, tool_name TEXT, tool_calls TEXT);",
        )
        .expect("messages");
        conn
    }

    fn ids(conn: &Connection, q: &str) -> Vec<i64> {
        let mut stmt = conn
            .prepare(
                "SELECT rowid FROM messages_fts_cjk WHERE messages_fts_cjk MATCH ?1 ORDER BY rowid",
            )
            .expect("prepare");
        stmt.query_map([cjk::match_query(q).expect("cjk")], |r| r.get(0))
            .expect("query")
            .map(|r| r.expect("row"))
            .collect()
    }

    fn in_tx<T>(conn: &mut Connection, f: impl FnOnce(&rusqlite::Transaction<'_>) -> T) -> T {
        let tx = conn.transaction().expect("tx");
        let out = f(&tx);
        tx.commit().expect("commit");
        out
    }

    #[test]
    fn appends_updates_and_deletes_by_another_writer_are_caught_up() {
        let mut conn = setup();
        conn.execute(
            "INSERT INTO messages(content) VALUES ('广西桂林'), ('plain'), ('数据库')",
            [],
        )
        .expect("rows");
        let first = in_tx(&mut conn, |tx| sync(tx, &|_| {})).expect("first sync");
        assert!(first.rebuilt);
        assert_eq!((first.indexed, first.watermark), (2, 3));
        assert!(lag(&conn).expect("lag").is_current());
        assert_eq!(ids(&conn, "广西"), [1]);

        // Another writer: plain SQL only, as Python does it.
        conn.execute_batch(
            "INSERT INTO messages(content) VALUES ('新的广西');
             UPDATE messages SET content = '桂林山水' WHERE id = 3;
             UPDATE messages SET tool_name = '广西' WHERE id = 2;
             DELETE FROM messages WHERE id = 1;
             INSERT INTO messages(id, content) VALUES (1, '广西回来了');",
        )
        .expect("foreign writes");
        let behind = lag(&conn).expect("lag");
        assert_eq!((behind.behind, behind.pending), (1, 3), "{behind:?}");

        let second = in_tx(&mut conn, |tx| sync(tx, &|_| {})).expect("catch up");
        assert!(!second.rebuilt);
        assert_eq!(second.watermark, 4);
        assert!(lag(&conn).expect("lag").is_current());
        assert_eq!(ids(&conn, "广西"), [1, 2, 4]);
        assert_eq!(ids(&conn, "数据"), Vec::<i64>::new());
        assert_eq!(ids(&conn, "山水"), [3]);
        let docs: i64 = conn
            .query_row("SELECT count(*) FROM messages_fts_cjk", [], |r| r.get(0))
            .expect("count");
        assert_eq!(docs, 4);
    }

    #[test]
    fn a_missing_trigger_means_a_rebuild() {
        let mut conn = setup();
        conn.execute("INSERT INTO messages(content) VALUES ('广西')", [])
            .expect("row");
        in_tx(&mut conn, |tx| sync(tx, &|_| {})).expect("sync");
        conn.execute_batch(
            "DROP TRIGGER messages_fts_cjk_log_update; UPDATE messages SET content = '桂林';",
        )
        .expect("drop");
        assert!(!lag(&conn).expect("lag").present);
        let again = in_tx(&mut conn, |tx| sync(tx, &|_| {})).expect("sync");
        assert!(again.rebuilt);
        assert_eq!(ids(&conn, "桂林"), [1]);
        assert_eq!(ids(&conn, "广西"), Vec::<i64>::new());
    }

    #[test]
    fn documents_join_the_three_indexed_columns() {
        assert_eq!(
            text_document(
                Some("看 数据"),
                Some("工具"),
                Some("[{\"a\": \"\\u6570\"}]")
            )
            .as_deref(),
            Some("看 数据 据 工具 具")
        );
        assert_eq!(text_document(Some("abc"), None, None), None);
    }
}
