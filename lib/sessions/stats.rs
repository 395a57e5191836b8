//! `hermes-index stats`: what the store holds and where its bytes go. Users report homes of
//! 1.6 GB to 100 GB in which every message's text is stored three times (the row and two
//! FTS content copies); the per-object sizes show that growth.

use std::path::PathBuf;

use rusqlite::Connection;

use super::cjk_index::{self, Lag};
use super::db::Db;
use super::error::Result;
use super::maintain::wal_path;
use super::schema::FTS_TABLES;

/// The sessions and messages of one source.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SourceCount {
    pub source: String,
    pub sessions: u64,
    pub messages: u64,
}

/// The bytes of one table or index (from SQLite's `dbstat`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ObjectSize {
    pub name: String,
    /// `table`, `index`, `fts` (the shadow tables of a full-text table) or `schema`.
    pub kind: String,
    /// The table an index belongs to, or the full-text table a shadow table belongs to.
    pub owner: String,
    pub bytes: u64,
}

/// Everything `stats` reports.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Stats {
    pub path: PathBuf,
    pub file_bytes: u64,
    pub wal_bytes: u64,
    pub page_size: u64,
    pub pages: u64,
    pub free_pages: u64,
    pub journal_mode: String,
    pub schema_version: Option<i64>,
    pub sessions: u64,
    pub messages: u64,
    /// Messages hidden from the live transcript (compacted or rewound).
    pub inactive_messages: u64,
    pub sources: Vec<SourceCount>,
    /// Bytes per full-text table, all its shadow tables together.
    pub full_text: Vec<ObjectSize>,
    /// Every table and index, largest first.
    pub objects: Vec<ObjectSize>,
    pub cjk: Lag,
}

/// Reads the statistics (works on a read-only connection).
pub fn stats(db: &Db) -> Result<Stats> {
    let conn = db.conn();
    let err = |e| db.err("reading statistics", e);
    let count = |sql: &str| -> rusqlite::Result<u64> {
        conn.query_row(sql, [], |r| r.get::<_, i64>(0))
            .map(|n| n as u64)
    };
    let size = |p: &std::path::Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    let objects = object_sizes(conn).map_err(err)?;
    let full_text = FTS_TABLES
        .iter()
        .map(|t| t.name)
        .chain([cjk_index::TABLE])
        .filter_map(|name| {
            let parts: Vec<&ObjectSize> = objects
                .iter()
                .filter(|o| o.kind == "fts" && o.owner == name)
                .collect();
            (!parts.is_empty()).then(|| ObjectSize {
                name: name.to_string(),
                kind: "fts".into(),
                owner: "messages".into(),
                bytes: parts.iter().map(|o| o.bytes).sum(),
            })
        })
        .collect();
    Ok(Stats {
        path: db.path().to_path_buf(),
        file_bytes: size(db.path()),
        wal_bytes: size(&wal_path(db.path())),
        page_size: count("PRAGMA page_size").map_err(err)?,
        pages: count("PRAGMA page_count").map_err(err)?,
        free_pages: count("PRAGMA freelist_count").map_err(err)?,
        journal_mode: conn
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .map_err(err)?,
        schema_version: db.schema_version()?,
        sessions: count("SELECT count(*) FROM sessions").map_err(err)?,
        messages: count("SELECT count(*) FROM messages").map_err(err)?,
        inactive_messages: count("SELECT count(*) FROM messages WHERE active = 0").map_err(err)?,
        sources: sources(conn).map_err(err)?,
        full_text,
        objects,
        cjk: cjk_index::lag(conn).map_err(err)?,
    })
}

fn sources(conn: &Connection) -> rusqlite::Result<Vec<SourceCount>> {
    let mut stmt = conn.prepare(
        "SELECT s.source, count(*), COALESCE(sum(m.n), 0)
         FROM sessions s
         LEFT JOIN (SELECT session_id, count(*) AS n FROM messages GROUP BY session_id) m ON m.session_id = s.id
         GROUP BY s.source
         ORDER BY count(*) DESC, s.source",
    )?;
    stmt.query_map([], |r| {
        Ok(SourceCount {
            source: r.get(0)?,
            sessions: r.get::<_, i64>(1)? as u64,
            messages: r.get::<_, i64>(2)? as u64,
        })
    })?
    .collect()
}

fn object_sizes(conn: &Connection) -> rusqlite::Result<Vec<ObjectSize>> {
    let fts_tables: Vec<String> = {
        let mut stmt = conn.prepare(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%USING fts5%'",
        )?;
        stmt.query_map([], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?
    };
    let mut stmt = conn.prepare(
        "SELECT d.name, d.pgsize, m.type, m.tbl_name
         FROM dbstat AS d LEFT JOIN sqlite_master AS m ON m.name = d.name
         WHERE d.aggregate = TRUE",
    )?;
    let mut out: Vec<ObjectSize> = stmt
        .query_map([], |r| {
            let name: String = r.get(0)?;
            let bytes = r.get::<_, i64>(1)? as u64;
            let kind: Option<String> = r.get(2)?;
            let owner: Option<String> = r.get(3)?;
            Ok((name, bytes, kind, owner))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?
        .into_iter()
        .map(|(name, bytes, kind, owner)| {
            let shadow_of = fts_tables.iter().find(|t| {
                name.strip_prefix(t.as_str()).is_some_and(|rest| {
                    ["_data", "_idx", "_content", "_docsize", "_config"].contains(&rest)
                })
            });
            let (kind, owner) = match (shadow_of, kind) {
                (Some(t), _) => ("fts".to_string(), t.clone()),
                (None, Some(kind)) => (kind, owner.unwrap_or_default()),
                (None, None) => ("schema".to_string(), String::new()),
            };
            ObjectSize {
                name,
                kind,
                owner,
                bytes,
            }
        })
        .collect();
    out.sort_by(|a, b| b.bytes.cmp(&a.bytes).then_with(|| a.name.cmp(&b.name)));
    Ok(out)
}
