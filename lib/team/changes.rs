//! The change log that lets `push` send what changed after a row was pushed: active and
//! compacted flips, titles, ends and counters, deletions. Like the CJK index's side tables,
//! it is kept by plain-SQL triggers in `state.db`, so Python Hermes's writes feed it without
//! knowing it exists:
//!
//! - `team_store_state` holds `logged_upto`: updates and deletes of messages with an id at
//!   or below it are logged (rows above it are new, and the next push sends them whole);
//! - `team_store_changes` is the log, one row per change, numbered by an AUTOINCREMENT
//!   `seq`. A push reads the log up to some `seq`, and deletes exactly that much once the
//!   store has committed; a change logged meanwhile gets a higher `seq` and waits for the
//!   next push. Every session write is logged (sessions are few; their counters change with
//!   every message).
//!
//! The names start with `team_store_`, away from upstream's `messages_fts%` repair sweep.

use rusqlite::{Connection, OptionalExtension};

/// The log's objects, created together.
const CREATE: &str = "
CREATE TABLE IF NOT EXISTS team_store_state (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS team_store_changes (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL,
    key TEXT NOT NULL
);
CREATE TRIGGER IF NOT EXISTS team_store_log_session_insert AFTER INSERT ON sessions BEGIN
    INSERT INTO team_store_changes(kind, key) VALUES ('s', new.id);
END;
CREATE TRIGGER IF NOT EXISTS team_store_log_session_update AFTER UPDATE ON sessions BEGIN
    INSERT INTO team_store_changes(kind, key) VALUES ('s', old.id);
    INSERT INTO team_store_changes(kind, key) SELECT 's', new.id WHERE new.id IS NOT old.id;
END;
CREATE TRIGGER IF NOT EXISTS team_store_log_session_delete AFTER DELETE ON sessions BEGIN
    INSERT INTO team_store_changes(kind, key) VALUES ('s', old.id);
END;
CREATE TRIGGER IF NOT EXISTS team_store_log_message_insert AFTER INSERT ON messages
WHEN new.id <= (SELECT value FROM team_store_state WHERE key = 'logged_upto') BEGIN
    INSERT INTO team_store_changes(kind, key) VALUES ('m', new.id);
END;
CREATE TRIGGER IF NOT EXISTS team_store_log_message_update AFTER UPDATE ON messages
WHEN old.id <= (SELECT value FROM team_store_state WHERE key = 'logged_upto') BEGIN
    INSERT INTO team_store_changes(kind, key) VALUES ('m', old.id);
    INSERT INTO team_store_changes(kind, key) SELECT 'm', new.id WHERE new.id IS NOT old.id;
END;
CREATE TRIGGER IF NOT EXISTS team_store_log_message_delete AFTER DELETE ON messages
WHEN old.id <= (SELECT value FROM team_store_state WHERE key = 'logged_upto') BEGIN
    INSERT INTO team_store_changes(kind, key) VALUES ('m', old.id);
END;
";

/// Where a push starts: every message up to `max_id` exists now and is watched from here
/// on; the log holds entries up to `seq`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mark {
    pub max_id: i64,
    pub seq: i64,
}

/// Creates the log if needed, moves `logged_upto` to the newest message and returns the
/// mark. Runs in the caller's write transaction; after it commits, any change to a message
/// up to `max_id` is logged, so a read that starts later misses nothing.
pub fn mark(tx: &Connection) -> rusqlite::Result<Mark> {
    tx.execute_batch(CREATE)?;
    let max_id: i64 = tx.query_row("SELECT COALESCE(max(id), 0) FROM messages", [], |r| {
        r.get(0)
    })?;
    tx.execute(
        "INSERT INTO team_store_state(key, value) VALUES ('logged_upto', ?1)
         ON CONFLICT(key) DO UPDATE SET value = max(value, excluded.value)",
        [max_id],
    )?;
    let seq: i64 = tx.query_row(
        "SELECT COALESCE(max(seq), 0) FROM team_store_changes",
        [],
        |r| r.get(0),
    )?;
    Ok(Mark { max_id, seq })
}

/// The distinct keys of `kind` logged up to `seq`.
pub fn logged(conn: &Connection, kind: &str, seq: i64) -> rusqlite::Result<Vec<String>> {
    let mut stmt = conn.prepare(
        "SELECT DISTINCT key FROM team_store_changes WHERE kind = ?1 AND seq <= ?2 ORDER BY key",
    )?;
    stmt.query_map((kind, seq), |r| r.get::<_, String>(0))?
        .collect()
}

/// Forgets the entries a committed push sent.
pub fn forget(tx: &Connection, seq: i64) -> rusqlite::Result<()> {
    let present = tx
        .query_row(
            "SELECT 1 FROM sqlite_master WHERE name = 'team_store_changes'",
            [],
            |_| Ok(()),
        )
        .optional()?;
    if present.is_some() {
        tx.execute("DELETE FROM team_store_changes WHERE seq <= ?1", [seq])?;
    }
    Ok(())
}

/// Entries waiting for the next push (0 when the log does not exist).
pub fn pending(conn: &Connection) -> rusqlite::Result<i64> {
    let present = conn
        .query_row(
            "SELECT 1 FROM sqlite_master WHERE name = 'team_store_changes'",
            [],
            |_| Ok(()),
        )
        .optional()?;
    match present {
        Some(()) => conn.query_row("SELECT count(*) FROM team_store_changes", [], |r| r.get(0)),
        None => Ok(0),
    }
}
