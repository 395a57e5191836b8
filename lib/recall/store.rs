//! The session store as recall reads it: one connection, what its schema offers (which FTS
//! tables exist, whether our CJK index has seen every message), and the per-call caches
//! of session rows and lineage roots that upstream re-reads for every hit.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::Path;
use std::rc::Rc;
use std::time::Duration;

use rusqlite::types::Value as SqlValue;
use rusqlite::{Connection, OptionalExtension};

use crate::sessions::{self, Access, Db, Lag, RetryPolicy};

/// How long a search waits for another writer before reading without catching the CJK index
/// up: a search must not hang behind a busy gateway.
pub const SEARCH_RETRY: RetryPolicy = RetryPolicy {
    attempts: 2,
    busy_timeout: Duration::from_millis(250),
    min_sleep: Duration::from_millis(20),
    max_sleep: Duration::from_millis(60),
};

/// What the store can answer with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capabilities {
    /// `messages_fts` exists (upstream: FTS enabled).
    pub fts: bool,
    /// `messages_fts_trigram` exists (upstream: `_trigram_available`).
    pub trigram: bool,
    /// Our `messages_fts_cjk` exists and has seen every message.
    pub bigram: bool,
}

/// The columns of a `sessions` row that recall reads.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionMeta {
    pub id: String,
    pub source: SqlValue,
    pub model: SqlValue,
    pub title: SqlValue,
    pub started_at: SqlValue,
    pub parent_session_id: Option<String>,
}

impl SessionMeta {
    /// `source` as text, when it is text.
    pub fn source_str(&self) -> Option<&str> {
        match &self.source {
            SqlValue::Text(s) => Some(s),
            _ => None,
        }
    }
}

/// An open store plus the caches one tool call may reuse.
pub struct Store {
    db: Db,
    caps: Capabilities,
    lag: Lag,
    sessions: RefCell<HashMap<String, Option<Rc<SessionMeta>>>>,
    roots: RefCell<HashMap<String, String>>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("db", &self.db)
            .field("caps", &self.caps)
            .finish_non_exhaustive()
    }
}

impl Store {
    /// Opens `path` for searching: read-write when possible, so the CJK index is caught up
    /// (and an older schema brought to v22, as Python does on every open), read-only
    /// otherwise. Never creates the file.
    pub fn open(path: &Path) -> sessions::Result<Store> {
        let opened = sessions::open_for_search(path, SEARCH_RETRY)?;
        let mut db = opened.db;
        if db.access() == Access::ReadWrite
            && db
                .schema_version()?
                .is_some_and(|v| v < sessions::schema::SCHEMA_VERSION)
        {
            sessions::migrate::ensure_schema(&mut db)?;
        }
        Store::with(db, opened.lag)
    }

    /// Opens another profile's store read-only, as upstream opens it.
    pub fn open_read_only(path: &Path) -> sessions::Result<Store> {
        let db = Db::open_for_reading(path, SEARCH_RETRY)?;
        let lag = sessions::cjk_index::lag(db.conn())
            .map_err(|e| db.err("reading the CJK index state", e))?;
        Store::with(db, lag)
    }

    fn with(db: Db, lag: Lag) -> sessions::Result<Store> {
        tune(db.conn());
        let has = |name: &str| -> sessions::Result<bool> {
            db.conn()
                .query_row(
                    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1",
                    [name],
                    |_| Ok(()),
                )
                .optional()
                .map(|r| r.is_some())
                .map_err(|e| db.err("reading the schema", e))
        };
        let caps = Capabilities {
            fts: has("messages_fts")?,
            trigram: has("messages_fts_trigram")?,
            bigram: lag.is_current() && has(sessions::cjk_index::TABLE)?,
        };
        Ok(Store {
            db,
            caps,
            lag,
            sessions: RefCell::new(HashMap::new()),
            roots: RefCell::new(HashMap::new()),
        })
    }

    pub fn conn(&self) -> &Connection {
        self.db.conn()
    }

    pub fn path(&self) -> &Path {
        self.db.path()
    }

    pub fn capabilities(&self) -> Capabilities {
        self.caps
    }

    /// Pretends the CJK index is absent or stale (tests, and the fallback benchmark).
    pub fn set_capabilities(&mut self, caps: Capabilities) {
        self.caps = caps;
    }

    /// The CJK index's state when the store was opened.
    pub fn lag(&self) -> Lag {
        self.lag
    }

    /// Forgets cached rows: each tool call sees the store as it is then.
    pub fn forget(&self) {
        self.sessions.borrow_mut().clear();
        self.roots.borrow_mut().clear();
    }

    /// Starts one read transaction for a whole tool call: every query of the call sees the
    /// same snapshot, and the shared lock is taken once instead of once per statement.
    pub fn snapshot(&self) -> Snapshot<'_> {
        let open = self.conn().execute_batch("BEGIN").is_ok();
        Snapshot {
            conn: self.conn(),
            open,
        }
    }

    /// `get_session(id)`: the row, or `None`.
    pub fn session(&self, id: &str) -> rusqlite::Result<Option<Rc<SessionMeta>>> {
        if let Some(hit) = self.sessions.borrow().get(id) {
            return Ok(hit.clone());
        }
        let row = self
            .conn()
            .prepare_cached(
                "SELECT source, model, title, started_at, parent_session_id FROM sessions WHERE id = ?1",
            )?
            .query_row([id], |r| {
                Ok(SessionMeta {
                    id: id.to_string(),
                    source: r.get(0)?,
                    model: r.get(1)?,
                    title: r.get(2)?,
                    started_at: r.get(3)?,
                    parent_session_id: match r.get::<_, SqlValue>(4)? {
                        SqlValue::Text(p) => Some(p),
                        SqlValue::Null => None,
                        other => Some(sql_text(&other)),
                    },
                })
            })
            .optional()?
            .map(Rc::new);
        self.sessions
            .borrow_mut()
            .insert(id.to_string(), row.clone());
        Ok(row)
    }

    /// `_resolve_to_parent`: up the `parent_session_id` chain to the topmost ancestor. A
    /// missing parent ends the walk at the missing id; a cycle ends it at the first id seen
    /// twice; a read error ends it where it stands.
    pub fn root_of(&self, id: &str) -> String {
        if id.is_empty() {
            return String::new();
        }
        if let Some(root) = self.roots.borrow().get(id) {
            return root.clone();
        }
        let mut visited = std::collections::HashSet::new();
        let mut cur = id.to_string();
        while !cur.is_empty() && visited.insert(cur.clone()) {
            match self.session(&cur) {
                Ok(Some(meta)) => match &meta.parent_session_id {
                    Some(parent) if !parent.is_empty() => cur = parent.clone(),
                    _ => break,
                },
                _ => break,
            }
        }
        self.roots.borrow_mut().insert(id.to_string(), cur.clone());
        cur
    }
}

/// A read transaction, ended when dropped.
pub struct Snapshot<'a> {
    conn: &'a Connection,
    open: bool,
}

impl Drop for Snapshot<'_> {
    fn drop(&mut self) {
        if self.open {
            let _ = self.conn.execute_batch("COMMIT");
        }
    }
}

/// Connection settings for a reader that looks rows up by id all over the file: a query
/// plan that does not depend on bound values (with SQLite's STAT4, rebinding a value the
/// planner looked at re-prepares the statement, which cost more than the lookup) and a
/// larger page cache. Neither changes the file; each is best effort. (Memory-mapped reads
/// were measured slower here: the page faults cost more than the reads they replace.)
fn tune(conn: &Connection) {
    let _ = conn.set_db_config(
        rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG,
        true,
    );
    let _ = conn.execute_batch("PRAGMA cache_size = -65536");
}

/// A SQLite value as the text Python would format it with.
pub fn sql_text(value: &SqlValue) -> String {
    match value {
        SqlValue::Null => "None".into(),
        SqlValue::Integer(i) => i.to_string(),
        SqlValue::Real(f) => crate::io::pyjson::py_float_repr(*f),
        SqlValue::Text(s) => s.clone(),
        SqlValue::Blob(b) => String::from_utf8_lossy(b).into_owned(),
    }
}

/// Python truthiness of a SQLite value.
pub fn sql_truthy(value: &SqlValue) -> bool {
    match value {
        SqlValue::Null => false,
        SqlValue::Integer(i) => *i != 0,
        SqlValue::Real(f) => *f != 0.0,
        SqlValue::Text(s) => !s.is_empty(),
        SqlValue::Blob(b) => !b.is_empty(),
    }
}

/// A SQLite value as JSON, the way Python's `sqlite3` hands it to `json.dumps`.
pub fn sql_json(value: &SqlValue) -> serde_json::Value {
    crate::sessions::export::sql_to_json(value.into())
}
