//! `hermes-index export`: one session per line in the shape `hermes sessions export` writes
//! (every `sessions` column, then `last_active`, then `messages` with every `messages`
//! column, content and tool calls decoded), serialised byte for byte as Python's
//! `json.dumps(…, ensure_ascii=False)`.
//!
//! One deliberate difference, for backups: inactive rows (compacted or rewound) are exported
//! too, each with its own `active`/`compacted` flags, so `export | ingest` reproduces every
//! row. `active_only` gives exactly upstream's lines.

use rusqlite::types::ValueRef;
use rusqlite::{OptionalExtension, Statement};
use serde_json::{Map, Value};

use std::path::Path;

use super::db::Db;
use super::error::{Error, Result};
use super::record::CONTENT_JSON_PREFIX;
use crate::io::FileError;
use crate::io::pyjson::{self, Dumps};

/// What to export.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// One session (exact id or unique prefix), without the `last_active` key, as
    /// `hermes sessions export --session-id` writes it.
    pub session: Option<String>,
    /// Only the live transcript, as upstream exports it.
    pub active_only: bool,
}

/// What was written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Summary {
    pub sessions: u64,
    pub messages: u64,
}

/// The outcome of resolving `--session`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    Exported(Summary),
    /// No session has that id, and it is not the prefix of exactly one.
    NoSuchSession(String),
}

const DUMPS: Dumps = Dumps {
    indent: None,
    ensure_ascii: false,
    sort_keys: false,
};

/// Writes one line (with its `\n`) per session to `out`, most recently active first.
pub fn export(
    db: &Db,
    options: &Options,
    out: &mut dyn FnMut(&str) -> std::io::Result<()>,
) -> Result<Found> {
    let conn = db.conn();
    let sql_err = |e| db.err("exporting", e);
    let mut messages = conn
        .prepare(if options.active_only {
            "SELECT * FROM messages WHERE session_id = ?1 AND active = 1 ORDER BY id"
        } else {
            "SELECT * FROM messages WHERE session_id = ?1 ORDER BY id"
        })
        .map_err(sql_err)?;
    let mut summary = Summary::default();
    let mut write_session = |row: Map<String, Value>, summary: &mut Summary| -> Result<()> {
        let mut object = row;
        let id = object
            .get("id")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let rows = message_rows(&mut messages, &id).map_err(|e| db.err("exporting messages", e))?;
        summary.sessions += 1;
        summary.messages += rows.len() as u64;
        object.insert("messages".into(), Value::Array(rows));
        let mut line = pyjson::dumps(&Value::Object(object), DUMPS);
        line.push('\n');
        out(&line).map_err(Error::Input)
    };

    if let Some(wanted) = &options.session {
        let Some(id) = resolve_session_id(db, wanted)? else {
            return Ok(Found::NoSuchSession(wanted.clone()));
        };
        let mut stmt = conn
            .prepare("SELECT * FROM sessions WHERE id = ?1")
            .map_err(sql_err)?;
        let names = column_names(&stmt);
        let row = stmt
            .query_row([&id], |r| row_object(r, &names))
            .map_err(sql_err)?;
        write_session(row, &mut summary)?;
        return Ok(Found::Exported(summary));
    }

    let mut stmt = conn
        .prepare(
            "SELECT s.*, COALESCE(m.last_active, s.started_at) AS last_active
             FROM sessions s
             LEFT JOIN (SELECT session_id, MAX(timestamp) AS last_active FROM messages GROUP BY session_id) m
                    ON m.session_id = s.id
             ORDER BY last_active DESC, s.started_at DESC, s.id DESC",
        )
        .map_err(sql_err)?;
    let names = column_names(&stmt);
    let mut rows = stmt.query([]).map_err(sql_err)?;
    while let Some(row) = rows.next().map_err(sql_err)? {
        let object = row_object(row, &names).map_err(sql_err)?;
        write_session(object, &mut summary)?;
    }
    Ok(Found::Exported(summary))
}

/// [`export`] into `target`, replaced atomically: a temp file in the same directory,
/// fsync, rename, fsync of the directory. Nothing is written when `--session` finds nothing.
pub fn export_to_file(db: &Db, options: &Options, target: &Path) -> Result<Found> {
    use std::io::Write;
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let io = |action: &'static str, path: &Path| {
        let path = path.to_path_buf();
        move |e| Error::File(FileError::new(action, &path, e))
    };
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&temp)
        .map_err(io("create", &temp))?;
    let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
    let result = export(db, options, &mut |line| out.write_all(line.as_bytes()));
    let finished = result.and_then(|found| {
        let file = out
            .into_inner()
            .map_err(|e| io("write", &temp)(e.into_error()))?;
        file.sync_all().map_err(io("write", &temp))?;
        Ok(found)
    });
    match finished {
        Ok(found @ Found::Exported(_)) => {
            if let Err(e) = std::fs::rename(&temp, target) {
                // A failed write leaves nothing behind (a folder named as the target, a
                // read-only directory entry).
                let _ = std::fs::remove_file(&temp);
                return Err(io("replace", target)(e));
            }
            if let Ok(d) = std::fs::File::open(&dir) {
                let _ = d.sync_all();
            }
            Ok(found)
        }
        other => {
            let _ = std::fs::remove_file(&temp);
            other
        }
    }
}

/// An exact session id, else the only id starting with `wanted` (Python's
/// `resolve_session_id`).
pub fn resolve_session_id(db: &Db, wanted: &str) -> Result<Option<String>> {
    let conn = db.conn();
    let sql_err = |e| db.err("looking up the session", e);
    let exact: Option<String> = conn
        .query_row("SELECT id FROM sessions WHERE id = ?1", [wanted], |r| {
            r.get(0)
        })
        .optional()
        .map_err(sql_err)?;
    if exact.is_some() {
        return Ok(exact);
    }
    let escaped = wanted
        .replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_");
    let mut stmt = conn
        .prepare(
            "SELECT id FROM sessions WHERE id LIKE ?1 ESCAPE '\\' ORDER BY started_at DESC LIMIT 2",
        )
        .map_err(sql_err)?;
    let matches: Vec<String> = stmt
        .query_map([format!("{escaped}%")], |r| r.get(0))
        .map_err(sql_err)?
        .collect::<rusqlite::Result<_>>()
        .map_err(sql_err)?;
    Ok(if matches.len() == 1 {
        matches.into_iter().next()
    } else {
        None
    })
}

fn column_names(stmt: &Statement<'_>) -> Vec<String> {
    stmt.column_names().map(str::to_string).collect()
}

fn message_rows(stmt: &mut Statement<'_>, session_id: &str) -> rusqlite::Result<Vec<Value>> {
    let names = column_names(stmt);
    let mut rows = stmt.query([session_id])?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        let mut object = row_object(row, &names)?;
        if let Some(content) = object.get_mut("content") {
            decode_content(content);
        }
        if let Some(calls) = object.get_mut("tool_calls")
            && crate::pytext::truthy(calls)
        {
            *calls = match calls {
                Value::String(text) => {
                    serde_json::from_str(text).unwrap_or(Value::Array(Vec::new()))
                }
                _ => Value::Array(Vec::new()),
            };
        }
        out.push(Value::Object(object));
    }
    Ok(out)
}

/// Content stored behind `"\x00json:"` goes back to the list or object it was.
pub fn decode_content(content: &mut Value) {
    if let Value::String(text) = content
        && let Some(json) = text.strip_prefix(CONTENT_JSON_PREFIX)
        && let Ok(decoded) = serde_json::from_str::<Value>(json)
    {
        *content = decoded;
    }
}

fn row_object(row: &rusqlite::Row<'_>, names: &[String]) -> rusqlite::Result<Map<String, Value>> {
    let mut object = Map::with_capacity(names.len() + 1);
    for (i, name) in names.iter().enumerate() {
        object.insert(name.clone(), sql_to_json(row.get_ref(i)?));
    }
    Ok(object)
}

/// A SQLite value as Python's `sqlite3` hands it to `json.dumps`.
pub fn sql_to_json(value: ValueRef<'_>) -> Value {
    match value {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => Value::from(i),
        ValueRef::Real(f) => serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number),
        ValueRef::Text(bytes) => Value::String(String::from_utf8_lossy(bytes).into_owned()),
        ValueRef::Blob(bytes) => Value::String(String::from_utf8_lossy(bytes).into_owned()),
    }
}
