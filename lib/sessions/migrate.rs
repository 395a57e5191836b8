//! Creating and migrating the schema to v22, step for step as Python Hermes does on every
//! open (reference `recall` §1.5), so both programs leave the same database behind.
//!
//! Two differences, both in the direction of safety: the steps run in one `BEGIN IMMEDIATE`
//! transaction (Python runs them in autocommit, so a crash can leave half a migration), and
//! when a read shows nothing to do no write lock is taken at all.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::OnceLock;

use rusqlite::{Connection, OptionalExtension, Transaction};

use super::db::Db;
use super::error::{Error, Result};
use super::fts;
use super::schema::{
    DEFERRED_INDEXES, FTS_TABLES, SCHEMA_VERSION, TABLE_COUNT, TABLES, TITLE_INDEX,
};

/// What [`ensure_schema`] did.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize)]
pub struct SchemaReport {
    /// The store had no schema before (a new or empty file).
    pub created: bool,
    /// `schema_version` before (None when there was none).
    pub from_version: Option<i64>,
    /// `schema_version` after.
    pub version: i64,
    /// Columns added by reconciliation, as `table.column`.
    pub columns_added: Vec<String>,
    /// Schema objects (tables, indexes, triggers) created.
    pub objects_created: Vec<String>,
    /// The upstream FTS tables were repopulated from `messages`.
    pub fts_repopulated: bool,
    /// Duplicate titles cleared to restore the unique title index.
    pub titles_cleared: u64,
}

/// Brings the store to schema v22 exactly as Python Hermes would: creates what is missing,
/// adds missing columns, runs the data migrations for older versions and repopulates the
/// FTS tables when a trigger was missing. Refuses a newer schema without touching it.
pub fn ensure_schema(db: &mut Db) -> Result<SchemaReport> {
    let from_version = db.schema_version()?;
    db.require_writable_schema()?;
    let plan = inspect(db.conn()).map_err(|e| db.err("reading the schema", e))?;
    if plan.is_empty() && from_version == Some(SCHEMA_VERSION) {
        return Ok(SchemaReport {
            from_version,
            version: SCHEMA_VERSION,
            ..SchemaReport::default()
        });
    }
    let path = db.path().to_path_buf();
    let home = path.parent().map(Path::to_path_buf);
    db.write(|tx| {
        apply(tx, home.as_deref()).map_err(|e| Error::sql(&path, "migrating the schema", e))
    })
}

/// What a read of the schema says must change (empty: nothing).
#[derive(Debug, Default)]
pub(crate) struct Plan {
    pub(crate) missing_objects: Vec<String>,
    pub(crate) missing_columns: Vec<String>,
    pub(crate) null_active: bool,
}

impl Plan {
    pub(crate) fn is_empty(&self) -> bool {
        self.missing_objects.is_empty() && self.missing_columns.is_empty() && !self.null_active
    }
}

pub(crate) fn inspect(conn: &Connection) -> rusqlite::Result<Plan> {
    let mut plan = Plan::default();
    let names = expected_object_names();
    let mut stmt = conn.prepare("SELECT 1 FROM sqlite_master WHERE name = ?1")?;
    for name in &names {
        if !stmt.exists([name])? {
            plan.missing_objects.push(name.clone());
        }
    }
    for (table, columns) in expected_columns() {
        let live = live_columns(conn, table)?;
        if live.is_empty() {
            continue;
        }
        for (name, _) in columns {
            if !live.iter().any(|c| c == name) {
                plan.missing_columns.push(format!("{table}.{name}"));
            }
        }
    }
    if live_columns(conn, "messages")?
        .iter()
        .any(|c| c == "active")
    {
        plan.null_active = conn
            .query_row(
                "SELECT 1 FROM messages WHERE active IS NULL LIMIT 1",
                [],
                |_| Ok(()),
            )
            .optional()?
            .is_some();
    }
    Ok(plan)
}

/// The names of every upstream object a v22 store has.
fn expected_object_names() -> Vec<String> {
    TABLES
        .iter()
        .chain(DEFERRED_INDEXES)
        .chain([&TITLE_INDEX])
        .chain(FTS_TABLES.iter().map(|t| &t.create))
        .filter_map(|sql| object_name(sql))
        .chain(super::schema::upstream_trigger_names().map(str::to_string))
        .collect()
}

/// The name after `IF NOT EXISTS` in one of our `CREATE` statements.
fn object_name(sql: &str) -> Option<String> {
    let rest = sql.split_once("IF NOT EXISTS ")?.1;
    let end = rest.find(|c: char| c.is_whitespace() || c == '(')?;
    Some(rest[..end].to_string())
}

fn live_columns(conn: &Connection, table: &str) -> rusqlite::Result<Vec<String>> {
    let mut stmt = conn.prepare(&format!("PRAGMA table_info(\"{table}\")"))?;
    stmt.query_map([], |r| r.get::<_, String>(1))?.collect()
}

/// Every v22 table's columns with the type expression `ALTER TABLE ADD COLUMN` needs,
/// derived by letting SQLite parse our own `CREATE TABLE` statements in memory.
fn expected_columns() -> &'static BTreeMap<&'static str, Vec<(String, String)>> {
    static COLUMNS: OnceLock<BTreeMap<&'static str, Vec<(String, String)>>> = OnceLock::new();
    COLUMNS.get_or_init(|| parse_columns().unwrap_or_default())
}

fn parse_columns() -> rusqlite::Result<BTreeMap<&'static str, Vec<(String, String)>>> {
    let conn = Connection::open_in_memory()?;
    let mut out = BTreeMap::new();
    for sql in &TABLES[..TABLE_COUNT] {
        conn.execute_batch(sql)?;
        let Some(name) = object_name(sql) else {
            continue;
        };
        let table: &'static str = match name.as_str() {
            "schema_version" => "schema_version",
            "sessions" => "sessions",
            "messages" => "messages",
            "session_model_usage" => "session_model_usage",
            "state_meta" => "state_meta",
            "gateway_routing" => "gateway_routing",
            "compression_locks" => "compression_locks",
            "async_delegations" => "async_delegations",
            _ => continue,
        };
        let mut stmt = conn.prepare(&format!("PRAGMA table_info(\"{table}\")"))?;
        let columns = stmt
            .query_map([], |r| {
                let name: String = r.get(1)?;
                let kind: String = r.get::<_, Option<String>>(2)?.unwrap_or_default();
                let notnull: bool = r.get(3)?;
                let default: Option<String> = r.get(4)?;
                let pk: i64 = r.get(5)?;
                let mut parts = Vec::new();
                if !kind.is_empty() {
                    parts.push(kind);
                }
                if notnull && pk == 0 {
                    parts.push("NOT NULL".to_string());
                }
                if let Some(default) = default {
                    parts.push(format!("DEFAULT {default}"));
                }
                Ok((name, parts.join(" ")))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        out.insert(table, columns);
    }
    Ok(out)
}

/// The steps of §1.5, in Python's order, inside the caller's transaction.
fn apply(tx: &Transaction<'_>, home: Option<&Path>) -> rusqlite::Result<SchemaReport> {
    let from_version: Option<i64> = if table_exists(tx, "schema_version")? {
        tx.query_row("SELECT version FROM schema_version LIMIT 1", [], |r| {
            r.get(0)
        })
        .optional()?
    } else {
        None
    };
    let mut report = SchemaReport {
        created: !table_exists(tx, "sessions")?,
        from_version,
        ..SchemaReport::default()
    };
    let before: Vec<String> = {
        let mut stmt = tx.prepare("SELECT name FROM sqlite_master")?;
        stmt.query_map([], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?
    };

    for sql in TABLES {
        tx.execute_batch(sql)?;
    }
    reconcile_columns(tx, &mut report)?;
    for (i, sql) in DEFERRED_INDEXES.iter().enumerate() {
        match tx.execute_batch(sql) {
            Ok(()) => {}
            // Python tolerates only the platform-message index failing here.
            Err(_) if i == 0 => {}
            Err(e) => return Err(e),
        }
    }
    let _ = tx.execute("UPDATE messages SET active = 1 WHERE active IS NULL", []);

    let mut fts_done = false;
    match from_version {
        None => {
            tx.execute(
                "INSERT INTO schema_version (version) VALUES (?1)",
                [SCHEMA_VERSION],
            )?;
        }
        Some(current) => {
            if current < 11 {
                // v11: inline FTS tables that also index tool name and tool calls.
                for table in FTS_TABLES {
                    for (name, _) in table.triggers {
                        tx.execute_batch(&format!("DROP TRIGGER IF EXISTS {name}"))?;
                    }
                }
                for table in &FTS_TABLES {
                    fts::repopulate(tx, table)?;
                }
                fts_done = true;
                report.fts_repopulated = true;
            }
            if current < 16 {
                migrate_v16(tx);
            }
            if current < 18
                && let Some(home) = home
            {
                migrate_v18(tx, home);
            }
            if current < 20 {
                let _ = tx.execute_batch(MIGRATE_V20);
            }
            if current < 22 {
                migrate_v22(tx)?;
            }
            if current < SCHEMA_VERSION {
                tx.execute("UPDATE schema_version SET version = ?1", [SCHEMA_VERSION])?;
            }
        }
    }

    report.titles_cleared = ensure_title_index(tx)?;

    let triggers_missing = !fts::missing_triggers(tx)?.is_empty();
    fts::ensure(tx)?;
    if triggers_missing && !fts_done {
        // As Python does (delete and refill in place, so the tables keep their place in
        // the schema): writes made while a trigger was missing never reached the index.
        for table in &FTS_TABLES {
            fts::refill_in_place(tx, table)?;
        }
        report.fts_repopulated = true;
    }

    report.version = tx.query_row("SELECT version FROM schema_version LIMIT 1", [], |r| {
        r.get(0)
    })?;
    let mut stmt = tx.prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'index', 'trigger') AND name NOT LIKE 'sqlite_autoindex%'")?;
    let after: Vec<String> = stmt
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    report.objects_created = after
        .into_iter()
        .filter(|n| !before.contains(n) && !is_fts_shadow(n) && n != "sqlite_sequence")
        .collect();
    Ok(report)
}

fn is_fts_shadow(name: &str) -> bool {
    FTS_TABLES.iter().any(|t| {
        name.strip_prefix(t.name).is_some_and(|rest| {
            ["_data", "_idx", "_content", "_docsize", "_config"].contains(&rest)
        })
    })
}

fn table_exists(conn: &Connection, name: &str) -> rusqlite::Result<bool> {
    conn.prepare_cached("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1")?
        .exists([name])
}

/// Adds every v22 column a live table lacks, with Python's exact `ALTER TABLE` text (the
/// stored `CREATE TABLE` grows by that text, so the wording matters). A column SQLite
/// cannot add (a primary key, `NOT NULL` without a default) is skipped, as Python does.
fn reconcile_columns(tx: &Transaction<'_>, report: &mut SchemaReport) -> rusqlite::Result<()> {
    for (table, columns) in expected_columns() {
        let live = live_columns(tx, table)?;
        if live.is_empty() {
            continue;
        }
        for (name, kind) in columns {
            if live.iter().any(|c| c == name) {
                continue;
            }
            let safe = name.replace('"', "\"\"");
            let sql = format!("ALTER TABLE \"{table}\" ADD COLUMN \"{safe}\" {kind}");
            if tx.execute_batch(&sql).is_ok() {
                report.columns_added.push(format!("{table}.{name}"));
            }
        }
    }
    Ok(())
}

/// v16: tag delegate sub-agent sessions with `model_config._delegate_from`. Best effort,
/// like Python (a malformed `model_config` makes the JSON functions fail; nothing changes).
fn migrate_v16(tx: &Transaction<'_>) {
    let branch = "json_extract(COALESCE(sessions.model_config, '{}'), '$._branched_from') IS NOT NULL \
        OR EXISTS (SELECT 1 FROM sessions p WHERE p.id = sessions.parent_session_id \
        AND p.end_reason = 'branched' AND sessions.started_at >= p.ended_at)";
    let compression = "EXISTS (SELECT 1 FROM sessions p WHERE p.id = sessions.parent_session_id \
        AND p.end_reason = 'compression')";
    let tag_children = format!(
        "UPDATE sessions SET model_config = json_set(COALESCE(model_config, '{{}}'), '$._delegate_from', parent_session_id) \
         WHERE parent_session_id IS NOT NULL \
         AND json_extract(COALESCE(model_config, '{{}}'), '$._delegate_from') IS NULL \
         AND (sessions.parent_session_id IS NOT NULL AND NOT ({branch}) AND NOT ({compression}))"
    );
    let tag_orphans = "UPDATE sessions SET model_config = json_set(COALESCE(model_config, '{}'), '$._delegate_from', '__orphaned__') \
         WHERE parent_session_id IS NULL \
         AND json_extract(COALESCE(model_config, '{}'), '$._delegate_from') IS NULL \
         AND json_extract(COALESCE(model_config, '{}'), '$._branched_from') IS NULL \
         AND title IS NULL \
         AND message_count <= 25 \
         AND EXISTS (SELECT 1 FROM messages m WHERE m.session_id = sessions.id AND m.role = 'tool') \
         AND NOT EXISTS (SELECT 1 FROM sessions ch WHERE ch.parent_session_id = sessions.id)";
    if tx.execute_batch(&tag_children).is_ok() {
        let _ = tx.execute_batch(tag_orphans);
    }
}

/// v18: copy gateway metadata from `sessions/sessions.json` into NULL columns. Best effort.
fn migrate_v18(tx: &Transaction<'_>, home: &Path) {
    let Ok(text) = std::fs::read_to_string(home.join("sessions").join("sessions.json")) else {
        return;
    };
    let Ok(serde_json::Value::Object(entries)) = serde_json::from_str::<serde_json::Value>(&text)
    else {
        return;
    };
    let Ok(mut stmt) = tx.prepare(
        "UPDATE sessions
         SET session_key = COALESCE(session_key, ?1),
             chat_id = COALESCE(chat_id, ?2),
             chat_type = COALESCE(chat_type, ?3),
             thread_id = COALESCE(thread_id, ?4),
             display_name = COALESCE(display_name, ?5),
             origin_json = COALESCE(origin_json, ?6),
             expiry_finalized = CASE
                 WHEN COALESCE(expiry_finalized, 0) = 0 AND ?7 = 1 THEN 1
                 ELSE expiry_finalized
             END
         WHERE id = ?8",
    ) else {
        return;
    };
    use serde_json::Value;
    let text_of = |v: Option<&Value>| -> Option<String> {
        match v? {
            Value::Null => None,
            Value::String(s) => Some(s.clone()),
            other => Some(other.to_string()),
        }
    };
    let truthy = |v: Option<&Value>| match v {
        None | Some(Value::Null) | Some(Value::Bool(false)) => false,
        Some(Value::Number(n)) => n.as_f64() != Some(0.0),
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Array(a)) => !a.is_empty(),
        Some(Value::Object(o)) => !o.is_empty(),
        Some(Value::Bool(true)) => true,
    };
    for (key, entry) in &entries {
        let Value::Object(entry) = entry else {
            continue;
        };
        if key.starts_with('_') {
            continue;
        }
        let Some(session_id) = text_of(entry.get("session_id")).filter(|s| !s.is_empty()) else {
            continue;
        };
        let origin = entry.get("origin").and_then(Value::as_object);
        let session_key = text_of(entry.get("session_key"))
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| key.clone());
        let finalized =
            truthy(entry.get("expiry_finalized")) || truthy(entry.get("memory_flushed"));
        let _ = stmt.execute(rusqlite::params![
            session_key,
            origin.and_then(|o| text_of(o.get("chat_id"))),
            text_of(entry.get("chat_type")),
            origin.and_then(|o| text_of(o.get("thread_id"))),
            text_of(entry.get("display_name")),
            origin.map(|o| crate::io::pyjson::dumps(
                &Value::Object(o.clone()),
                crate::io::pyjson::Dumps {
                    indent: None,
                    ensure_ascii: true,
                    sort_keys: false
                }
            )),
            i64::from(finalized),
            session_id,
        ]);
    }
}

/// v20: seed per-model usage rows from each session's token totals.
const MIGRATE_V20: &str = "INSERT OR IGNORE INTO session_model_usage (
        session_id, model, billing_provider, billing_base_url, billing_mode,
        api_call_count, input_tokens, output_tokens, cache_read_tokens,
        cache_write_tokens, reasoning_tokens, estimated_cost_usd, actual_cost_usd,
        cost_status, cost_source, first_seen, last_seen
    )
    SELECT id, COALESCE(model, 'unknown'), COALESCE(billing_provider, ''),
           COALESCE(billing_base_url, ''), COALESCE(billing_mode, ''),
           COALESCE(api_call_count, 0), COALESCE(input_tokens, 0),
           COALESCE(output_tokens, 0), COALESCE(cache_read_tokens, 0),
           COALESCE(cache_write_tokens, 0), COALESCE(reasoning_tokens, 0),
           COALESCE(estimated_cost_usd, 0), COALESCE(actual_cost_usd, 0),
           cost_status, cost_source, started_at, COALESCE(ended_at, started_at)
    FROM sessions
    WHERE COALESCE(input_tokens, 0) + COALESCE(output_tokens, 0)
          + COALESCE(cache_read_tokens, 0) + COALESCE(cache_write_tokens, 0)
          + COALESCE(reasoning_tokens, 0) > 0";

/// v22: `task` joins the primary key of `session_model_usage`, which means a table rebuild.
fn migrate_v22(tx: &Transaction<'_>) -> rusqlite::Result<()> {
    let in_pk: i64 = tx.query_row(
        "SELECT COUNT(*) FROM pragma_table_info('session_model_usage') WHERE name = 'task' AND pk > 0",
        [],
        |r| r.get(0),
    )?;
    if in_pk > 0 {
        return Ok(());
    }
    let create = TABLES
        .iter()
        .find(|s| s.contains("session_model_usage ("))
        .map(|s| s.replace("IF NOT EXISTS ", ""))
        .unwrap_or_default();
    tx.execute_batch("ALTER TABLE session_model_usage RENAME TO session_model_usage_v21")?;
    tx.execute_batch(&create)?;
    tx.execute_batch(
        "INSERT INTO session_model_usage (
            session_id, model, billing_provider, billing_base_url, billing_mode, task,
            api_call_count, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens,
            reasoning_tokens, estimated_cost_usd, actual_cost_usd, cost_status, cost_source,
            first_seen, last_seen
        )
        SELECT session_id, model, billing_provider, billing_base_url, billing_mode, '',
               api_call_count, input_tokens, output_tokens, cache_read_tokens,
               cache_write_tokens, reasoning_tokens, estimated_cost_usd, actual_cost_usd,
               cost_status, cost_source, first_seen, last_seen
        FROM session_model_usage_v21;
        DROP TABLE session_model_usage_v21;
        CREATE INDEX IF NOT EXISTS idx_session_model_usage_session ON session_model_usage(session_id);
        CREATE INDEX IF NOT EXISTS idx_session_model_usage_model ON session_model_usage(model);",
    )
}

/// Creates the unique title index, first clearing older duplicates (the newest row keeps
/// the title) when the data violates it. Returns how many titles were cleared.
fn ensure_title_index(tx: &Transaction<'_>) -> rusqlite::Result<u64> {
    match tx.execute_batch(TITLE_INDEX) {
        Ok(()) => Ok(0),
        Err(e) if e.sqlite_error_code() == Some(rusqlite::ErrorCode::ConstraintViolation) => {
            let cleared = tx.execute(
                "UPDATE sessions AS older SET title = NULL
                 WHERE title IS NOT NULL
                   AND EXISTS (SELECT 1 FROM sessions AS newer
                               WHERE newer.title = older.title AND newer.rowid > older.rowid)",
                [],
            )?;
            tx.execute_batch(TITLE_INDEX)?;
            Ok(cleared as u64)
        }
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sessions::db::RetryPolicy;

    #[test]
    fn names_come_from_the_statements() {
        let names = expected_object_names();
        assert!(names.contains(&"sessions".to_string()));
        assert!(names.contains(&"idx_sessions_title_unique".to_string()));
        assert!(names.contains(&"messages_fts_trigram".to_string()));
        assert!(names.contains(&"messages_fts_update".to_string()));
        assert_eq!(names.len(), 8 + 9 + 6 + 1 + 2 + 6);
    }

    #[test]
    fn column_types_are_rebuilt_as_python_does() {
        let cols = expected_columns();
        let find = |t: &str, c: &str| {
            cols[t]
                .iter()
                .find(|(n, _)| n == c)
                .map(|(_, k)| k.clone())
                .expect("column")
        };
        assert_eq!(find("sessions", "archived"), "INTEGER NOT NULL DEFAULT 0");
        assert_eq!(find("sessions", "title"), "TEXT");
        // A primary-key column loses its NOT NULL, exactly as in Python's reconstruction.
        assert_eq!(find("session_model_usage", "task"), "TEXT DEFAULT ''");
        assert_eq!(
            find("session_model_usage", "api_call_count"),
            "INTEGER NOT NULL DEFAULT 0"
        );
        assert_eq!(find("messages", "id"), "INTEGER");
        assert_eq!(
            find("async_delegations", "delivery_state"),
            "TEXT NOT NULL DEFAULT 'pending'"
        );
    }

    #[test]
    fn a_fresh_store_then_nothing_to_do() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut db =
            Db::create(&dir.path().join("state.db"), RetryPolicy::default()).expect("create");
        let first = ensure_schema(&mut db).expect("create schema");
        assert!(first.created);
        assert_eq!(first.from_version, None);
        assert_eq!(first.version, 22);
        assert!(first.columns_added.is_empty());
        let second = ensure_schema(&mut db).expect("again");
        assert!(!second.created);
        assert_eq!(second.from_version, Some(22));
        assert!(second.objects_created.is_empty());
        assert!(inspect(db.conn()).expect("inspect").is_empty());
    }

    #[test]
    fn a_newer_schema_is_left_alone() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("state.db");
        {
            let conn = Connection::open(&path).expect("open");
            conn.execute_batch(
                "CREATE TABLE schema_version (version INTEGER NOT NULL); INSERT INTO schema_version VALUES (23);
                 CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT NOT NULL, started_at REAL NOT NULL, future TEXT);
                 CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT, role TEXT, timestamp REAL);",
            )
            .expect("newer");
        }
        let mut db = Db::open(&path, crate::sessions::db::Access::ReadWrite).expect("open");
        let err = ensure_schema(&mut db).expect_err("newer");
        assert!(
            matches!(err, Error::NewerSchema { found: 23, .. }),
            "{err:?}"
        );
        let tables: i64 = db
            .conn()
            .query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))
            .expect("count");
        assert_eq!(tables, 5, "nothing was created");
    }
}
