//! The title match of discover (`_title_match_result`, reference `recall` §4.4): a query that
//! names a session's title (or the base of a `"<title> #N"` continuation) puts that session
//! first, whatever the full-text search finds.

use rusqlite::OptionalExtension;
use rusqlite::types::Value as SqlValue;
use serde_json::{Map, Value};

use super::discover::shaped;
use super::store::{Store, sql_json, sql_truthy};
use super::{HIDDEN_SOURCES, view, when};

/// A title match: its result entry and the lineage root it takes a slot for.
#[derive(Debug, Clone, PartialEq)]
pub struct TitleMatch {
    pub entry: Value,
    pub root: String,
}

/// Python's `str.strip("`'\"")` after `strip()`.
fn normalize(query: &str) -> &str {
    crate::pytext::strip(query).trim_matches(['`', '\'', '"'])
}

/// `resolve_session_by_title`: the newest `"<title> #N"` continuation, else the exact title.
/// Any error (a pattern SQLite finds too long, say) means no match, as upstream.
fn resolve(store: &Store, title: &str) -> Option<String> {
    let conn = store.conn();
    let exact: Option<String> = conn
        .prepare_cached("SELECT id FROM sessions WHERE title = ?1")
        .and_then(|mut s| s.query_row([title], |r| r.get(0)).optional())
        .ok()?;
    let escaped = title
        .replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_");
    let numbered: Option<String> = conn
        .prepare_cached(
            // `title IS NOT NULL` lets SQLite use the unique title index (a partial index);
            // `rowid` breaks ties in started_at as the table scan's order would.
            "SELECT id FROM sessions WHERE title IS NOT NULL AND title LIKE ?1 ESCAPE '\\' \
             ORDER BY started_at DESC, rowid LIMIT 1",
        )
        .and_then(|mut s| {
            s.query_row([format!("{escaped} #%")], |r| r.get(0))
                .optional()
        })
        .ok()?;
    numbered.or(exact)
}

/// The title match for `query`, unless it is in the current lineage or a hidden session.
pub fn title_match(store: &Store, query: &str, current_root: Option<&str>) -> Option<TitleMatch> {
    let wanted = normalize(query);
    if wanted.is_empty() {
        return None;
    }
    let session_id = resolve(store, wanted)?;
    let root = store.root_of(&session_id);
    if current_root.is_some_and(|c| !c.is_empty() && c == root) {
        return None;
    }
    let meta = match store.session(&root) {
        Ok(Some(meta)) => Some(meta),
        Ok(None) => store.session(&session_id).ok().flatten(),
        Err(_) => None,
    };
    if meta
        .as_ref()
        .and_then(|m| m.source_str())
        .is_some_and(|s| HIDDEN_SOURCES.contains(&s))
    {
        return None;
    }
    // The live transcript's first row is the anchor; its first 5 and last 3 rows stand in
    // for an empty window or bookend.
    let live = view::transcript(store.conn(), &session_id, 5, 3).unwrap_or_default();
    let first_rows: Vec<view::Message> = live.head.iter().take(5).cloned().collect();
    let last_rows: Vec<view::Message> = if live.tail.is_empty() {
        let n = live.head.len();
        live.head[n.saturating_sub(3)..].to_vec()
    } else {
        live.tail.clone()
    };
    let anchor = live.head.first().map(|m| m.id);
    let view = anchor.and_then(|a| view::anchored(store.conn(), &session_id, a, 5, 3).ok());

    let title = meta
        .as_ref()
        .map(|m| &m.title)
        .filter(|t| sql_truthy(t))
        .map_or_else(|| Value::from(wanted), sql_json);
    let title_text = match &title {
        Value::String(s) => s.clone(),
        other => crate::pytext::py_str(other),
    };
    let pick = |from_view: Option<&Vec<view::Message>>, fallback: &[view::Message]| match from_view
        .filter(|v| !v.is_empty())
    {
        Some(rows) => rows.clone(),
        None => fallback.to_vec(),
    };
    let bookend_start = pick(
        view.as_ref().map(|v| &v.bookend_start),
        &first_rows[..first_rows.len().min(3)],
    );
    let window = pick(view.as_ref().map(|v| &v.window), &first_rows);
    let bookend_end = pick(view.as_ref().map(|v| &v.bookend_end), &last_rows);
    let (before, after) = match &view {
        Some(v) => (v.before, v.after),
        None => (0, live.total.saturating_sub(5)),
    };

    let mut entry = Map::new();
    entry.insert("session_id".into(), Value::from(session_id.clone()));
    entry.insert(
        "when".into(),
        Value::from(when::format(
            meta.as_ref().map_or(&SqlValue::Null, |m| &m.started_at),
        )),
    );
    entry.insert(
        "source".into(),
        meta.as_ref()
            .map_or_else(|| Value::from("unknown"), |m| sql_json(&m.source)),
    );
    entry.insert(
        "model".into(),
        meta.as_ref()
            .map(|m| &m.model)
            .filter(|v| sql_truthy(v))
            .map_or_else(|| Value::from("unknown"), sql_json),
    );
    entry.insert("title".into(), title);
    entry.insert("matched_role".into(), Value::from("session_title"));
    entry.insert(
        "match_message_id".into(),
        anchor.map_or(Value::Null, Value::from),
    );
    entry.insert(
        "snippet".into(),
        Value::from(format!("Session title matched: {title_text}")),
    );
    entry.insert("bookend_start".into(), shaped(&bookend_start, None));
    entry.insert("messages".into(), shaped(&window, anchor));
    entry.insert("bookend_end".into(), shaped(&bookend_end, None));
    entry.insert("messages_before".into(), Value::from(before));
    entry.insert("messages_after".into(), Value::from(after));
    if !root.is_empty() && root != session_id {
        entry.insert("parent_session_id".into(), Value::from(root.clone()));
    }
    Some(TitleMatch {
        entry: Value::Object(entry),
        root,
    })
}
