//! BROWSE (`_list_recent_sessions`, reference `recall` §4.7): the most recently active
//! conversations, one row per conversation, a compressed one shown as its live tip.
//!
//! Upstream computes a preview and a last-active time for every listed session before it
//! sorts and cuts to `limit + 5`; we order first and read those for the rows shown.

use std::collections::HashSet;

use rusqlite::types::Value as SqlValue;
use rusqlite::{Connection, OptionalExtension};
use serde_json::{Map, Value};

use super::error;
use super::store::{Store, sql_json, sql_truthy};

/// Sessions that appear in a list: roots and branches; not delegate runs, not hidden
/// sources, not archived (`list_sessions_rich` defaults with `exclude_sources`).
const LISTABLE: &str = "(s.parent_session_id IS NULL \
    OR json_extract(COALESCE(s.model_config, '{}'), '$._branched_from') IS NOT NULL \
    OR EXISTS (SELECT 1 FROM sessions p WHERE p.id = s.parent_session_id \
               AND p.end_reason = 'branched' AND s.started_at >= p.ended_at)) \
    AND json_extract(COALESCE(s.model_config, '{}'), '$._delegate_from') IS NULL \
    AND s.source NOT IN ('subagent', 'tool') \
    AND s.archived = 0";

/// A compression continuation: the child of a session that ended with `compression`, not
/// marked as a branch or a delegate run, not a tool session.
const CONTINUATION: &str = "parent.end_reason = 'compression' \
    AND json_extract(COALESCE(child.model_config, '{}'), '$._branched_from') IS NULL \
    AND json_extract(COALESCE(child.model_config, '{}'), '$._delegate_from') IS NULL \
    AND COALESCE(child.source, '') != 'tool'";

/// The listed sessions ordered by the last activity anywhere in their forward compression
/// chain, then start, then id (all descending). `UNION` rather than `UNION ALL` so a
/// (corrupt) cycle of compression edges ends the walk instead of looping forever.
fn ordered_sql() -> String {
    format!(
        "WITH RECURSIVE chain(root_id, cur_id) AS (
             SELECT s.id, s.id FROM sessions s WHERE {LISTABLE}
             UNION
             SELECT c.root_id, child.id FROM chain c
             JOIN sessions parent ON parent.id = c.cur_id
             JOIN sessions child ON child.parent_session_id = c.cur_id
             WHERE {CONTINUATION}
         ),
         chain_max AS (
             SELECT root_id, MAX(COALESCE(
                 (SELECT MAX(m.timestamp) FROM messages m WHERE m.session_id = cur_id),
                 (SELECT started_at FROM sessions ss WHERE ss.id = cur_id))) AS effective
             FROM chain GROUP BY root_id
         )
         SELECT s.id, s.source, s.started_at, s.parent_session_id, s.end_reason
         FROM sessions s LEFT JOIN chain_max cm ON cm.root_id = s.id
         WHERE {LISTABLE}
         ORDER BY COALESCE(cm.effective, s.started_at) DESC, s.started_at DESC, s.id DESC
         LIMIT ?1"
    )
}

/// What a listed row shows of a session: title, message count, last activity, preview.
struct Shown {
    title: SqlValue,
    message_count: SqlValue,
    last_active: SqlValue,
    preview: String,
}

fn shown(conn: &Connection, id: &str) -> rusqlite::Result<Option<Shown>> {
    conn.prepare_cached(
        "SELECT s.title, s.message_count,
             COALESCE((SELECT MAX(m2.timestamp) FROM messages m2 WHERE m2.session_id = s.id), s.started_at),
             COALESCE((SELECT SUBSTR(REPLACE(REPLACE(m.content, X'0A', ' '), X'0D', ' '), 1, 63)
                       FROM messages m
                       WHERE m.session_id = s.id AND m.role = 'user' AND m.content IS NOT NULL
                       ORDER BY m.timestamp, m.id LIMIT 1), '')
         FROM sessions s WHERE s.id = ?1",
    )?
    .query_row([id], |r| {
        Ok(Shown {
            title: r.get(0)?,
            message_count: r.get(1)?,
            last_active: r.get(2)?,
            preview: preview(&r.get::<_, SqlValue>(3)?),
        })
    })
    .optional()
}

/// The first user message, newlines flattened, stripped, cut to 60 characters plus `...`.
fn preview(raw: &SqlValue) -> String {
    let text = match raw {
        SqlValue::Null => String::new(),
        other => super::store::sql_text(other),
    };
    let text = crate::pytext::strip(&text);
    let count = text.chars().count();
    if count > 60 {
        format!("{}...", text.chars().take(60).collect::<String>())
    } else {
        text.to_string()
    }
}

/// `get_compression_tip`: down the continuation edges to the live end of a conversation.
fn compression_tip(conn: &Connection, id: &str) -> rusqlite::Result<String> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT child.id FROM sessions parent
         JOIN sessions child ON child.parent_session_id = parent.id
         WHERE parent.id = ?1 AND {CONTINUATION}
         ORDER BY CASE WHEN child.end_reason = 'compression' THEN 0
                       WHEN child.ended_at IS NULL THEN 1 ELSE 2 END,
                  COALESCE((SELECT MAX(m.timestamp) FROM messages m WHERE m.session_id = child.id),
                           child.started_at) DESC,
                  child.started_at DESC, child.id DESC
         LIMIT 1"
    ))?;
    let mut current = id.to_string();
    let mut seen = HashSet::from([current.clone()]);
    for _ in 0..100 {
        let child: Option<String> = stmt.query_row([&current], |r| r.get(0)).optional()?;
        match child {
            Some(child) if !child.is_empty() && seen.insert(child.clone()) => current = child,
            _ => return Ok(current),
        }
    }
    Ok(current)
}

/// Browse: up to `limit` recent conversations, skipping the current one.
pub fn browse(store: &Store, limit: usize, current: Option<&str>) -> Value {
    match rows(store, limit, current) {
        Ok(results) => {
            let count = results.len();
            let mut out = Map::new();
            out.insert("success".into(), Value::Bool(true));
            out.insert("mode".into(), Value::from("browse"));
            out.insert("results".into(), Value::Array(results));
            out.insert("count".into(), Value::from(count));
            out.insert(
                "message".into(),
                Value::from(format!(
                    "Showing {count} most recent sessions. Pass a query= to search, or session_id+around_message_id to scroll."
                )),
            );
            Value::Object(out)
        }
        Err(e) => error(format!("Failed to list recent sessions: {e}")),
    }
}

fn rows(store: &Store, limit: usize, current: Option<&str>) -> rusqlite::Result<Vec<Value>> {
    let conn = store.conn();
    let current = current.filter(|c| !c.is_empty());
    let current_root = current.map(|c| store.root_of(c));
    let listed: Vec<(String, SqlValue, SqlValue, SqlValue, SqlValue)> = conn
        .prepare_cached(&ordered_sql())?
        .query_map([(limit + 5) as i64], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
        })?
        .collect::<rusqlite::Result<_>>()?;
    let mut results = Vec::new();
    for (id, source, started_at, parent, end_reason) in listed {
        // A compressed conversation is shown as its tip, keeping the root's start.
        let mut shown_id = id.clone();
        if matches!(&end_reason, SqlValue::Text(r) if r == "compression") {
            let tip = compression_tip(conn, &id)?;
            if tip != id && shown(conn, &tip)?.is_some() {
                shown_id = tip;
            }
        }
        if let Some(root) = &current_root
            && !root.is_empty()
            && (shown_id == *root || current == Some(shown_id.as_str()))
        {
            continue;
        }
        if sql_truthy(&parent) {
            continue;
        }
        let Some(row) = shown(conn, &shown_id)? else {
            continue;
        };
        let mut out = Map::new();
        out.insert("session_id".into(), Value::from(shown_id));
        out.insert(
            "title".into(),
            if sql_truthy(&row.title) {
                sql_json(&row.title)
            } else {
                Value::Null
            },
        );
        out.insert("source".into(), sql_json(&source));
        out.insert("started_at".into(), sql_json(&started_at));
        out.insert("last_active".into(), sql_json(&row.last_active));
        out.insert("message_count".into(), sql_json(&row.message_count));
        out.insert("preview".into(), Value::from(row.preview));
        results.push(Value::Object(out));
        if results.len() >= limit {
            break;
        }
    }
    Ok(results)
}
