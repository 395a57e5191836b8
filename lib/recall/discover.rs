//! DISCOVER (`_discover`, reference `recall` §4.3): the sessions a query finds, one per
//! lineage, each with its hit in context. The order of work follows upstream's, but each
//! step does only what the answer shows: rows are read until `limit` lineages are found,
//! and snippets and windows are built for those rows only.

use std::collections::HashSet;

use serde_json::{Map, Value, json};

use super::search::{self, Filter, Hit, Sort};
use super::store::{SessionMeta, Store, sql_json, sql_truthy};
use super::{HIDDEN_SOURCES, error, title, view, when};

/// `_DEMOTED_SESSION_SOURCES`: automation sessions come after interactive ones.
pub const DEMOTED_SOURCES: &[&str] = &["cron"];

/// Runs discover for a stripped, non-empty query.
pub fn discover(
    store: &Store,
    query: &str,
    roles: Option<Vec<String>>,
    limit: usize,
    sort: Sort,
    current: Option<&str>,
) -> Value {
    let roles = roles.unwrap_or_else(|| vec!["user".into(), "assistant".into()]);
    let current_root = current.filter(|c| !c.is_empty()).map(|c| store.root_of(c));
    let title = title::title_match(store, query, current_root.as_deref());

    let filter = Filter {
        roles,
        exclude_sources: HIDDEN_SOURCES.iter().map(|s| s.to_string()).collect(),
    };
    let sanitized = super::sanitize::sanitize(query);
    let mut search = if sanitized.is_empty() {
        None
    } else {
        match search::search(store, &sanitized, &filter, sort) {
            Ok(s) => Some(s),
            Err(e) => return error(format!("Search failed: {e}")),
        }
    };

    // Lineage root → the row that represents it (None: the title match's slot).
    let mut seen: Vec<(String, Option<Hit>)> = Vec::new();
    let mut roots: HashSet<String> = HashSet::new();
    if let Some(t) = &title {
        roots.insert(t.root.clone());
        seen.push((t.root.clone(), None));
    }
    let mut any_rows = false;
    let mut demoted: Vec<Hit> = Vec::new();
    let mut take = |hit: Hit, seen: &mut Vec<(String, Option<Hit>)>| {
        let root = store.root_of(&hit.session_id);
        if current_root
            .as_deref()
            .is_some_and(|c| !c.is_empty() && c == root)
        {
            return;
        }
        if current.is_some_and(|c| !c.is_empty() && c == hit.session_id) {
            return;
        }
        if roots.insert(root.clone()) {
            seen.push((root, Some(hit)));
        }
    };
    if let Some(search) = &mut search {
        // Interactive rows in search order, then the demoted ones (a stable partition of
        // the first 300 rows), read only until `limit` lineages are found.
        while seen.len() < limit {
            let hit = match search.next_hit() {
                Ok(Some(hit)) => hit,
                Ok(None) => break,
                Err(e) => return error(format!("Search failed: {e}")),
            };
            any_rows = true;
            if is_demoted(&hit) {
                demoted.push(hit);
            } else {
                take(hit, &mut seen);
            }
        }
        for hit in demoted {
            if seen.len() >= limit {
                break;
            }
            take(hit, &mut seen);
        }
    }

    if !any_rows && title.is_none() {
        return json!({
            "success": true,
            "mode": "discover",
            "query": query,
            "results": [],
            "count": 0,
            "message": "No matching sessions found.",
        });
    }

    let sessions_searched = seen.len();
    let mut results: Vec<Value> = Vec::new();
    if let Some(t) = title {
        results.push(t.entry);
    }
    for (root, hit) in seen {
        let Some(hit) = hit else { continue };
        let Ok(view) = view::anchored(store.conn(), &hit.session_id, hit.id, 5, 3) else {
            continue;
        };
        let meta = store.session(&root).ok().flatten();
        let snippet = search
            .as_ref()
            .map(|s| s.snippet(&hit))
            .transpose()
            .ok()
            .flatten()
            .unwrap_or_default();
        results.push(entry(&hit, &root, meta.as_deref(), &view, snippet));
    }
    let count = results.len();
    json!({
        "success": true,
        "mode": "discover",
        "query": query,
        "results": results,
        "count": count,
        "sessions_searched": sessions_searched,
    })
}

fn is_demoted(hit: &Hit) -> bool {
    match &hit.source {
        rusqlite::types::Value::Text(s) => DEMOTED_SOURCES.contains(&s.as_str()),
        _ => false,
    }
}

/// One result: the hit's session, the lineage root's metadata, the window and bookends.
pub fn entry(
    hit: &Hit,
    root: &str,
    meta: Option<&SessionMeta>,
    view: &view::AnchoredView,
    snippet: String,
) -> Value {
    let started = meta
        .map(|m| &m.started_at)
        .filter(|v| sql_truthy(v))
        .unwrap_or(&hit.session_started);
    let source = meta
        .map(|m| &m.source)
        .filter(|v| sql_truthy(v))
        .map(sql_json)
        .unwrap_or_else(|| sql_json(&hit.source));
    let model = meta
        .map(|m| &m.model)
        .filter(|v| sql_truthy(v))
        .or(Some(&hit.model).filter(|v| sql_truthy(v)))
        .map_or_else(|| Value::from("unknown"), sql_json);
    let title = meta
        .map(|m| &m.title)
        .filter(|v| sql_truthy(v))
        .map_or(Value::Null, sql_json);
    let mut out = Map::new();
    out.insert("session_id".into(), Value::from(hit.session_id.clone()));
    out.insert("when".into(), Value::from(when::format(started)));
    out.insert("source".into(), source);
    out.insert("model".into(), model);
    out.insert("title".into(), title);
    out.insert("matched_role".into(), sql_json(&hit.role));
    out.insert("match_message_id".into(), Value::from(hit.id));
    out.insert("snippet".into(), Value::from(snippet));
    out.insert("bookend_start".into(), shaped(&view.bookend_start, None));
    out.insert("messages".into(), shaped(&view.window, Some(hit.id)));
    out.insert("bookend_end".into(), shaped(&view.bookend_end, None));
    out.insert("messages_before".into(), Value::from(view.before));
    out.insert("messages_after".into(), Value::from(view.after));
    if !root.is_empty() && root != hit.session_id {
        out.insert("parent_session_id".into(), Value::from(root));
    }
    Value::Object(out)
}

pub fn shaped(messages: &[view::Message], anchor: Option<i64>) -> Value {
    Value::Array(messages.iter().map(|m| m.shape(anchor)).collect())
}
