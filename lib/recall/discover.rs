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
        // The current session is in the current lineage: leaving the lineage out leaves it out.
        if current_root
            .as_deref()
            .is_some_and(|c| !c.is_empty() && c == root)
        {
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A session: `(id, source, parent, model, title, started_at)`.
    type Session<'a> = (
        &'a str,
        &'a str,
        Option<&'a str>,
        Option<&'a str>,
        Option<&'a str>,
        &'a str,
    );

    /// Sessions `(id, source, parent, model, title, started_at)` and messages
    /// `(session, role, content, timestamp)`, ids in the order given.
    fn store(
        sessions: &[Session<'_>],
        messages: &[(&str, &str, &str, f64)],
    ) -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("state.db");
        let (db, _, _) = crate::sessions::open_for_write(&path, true, &|_| {}).expect("create");
        for (id, source, parent, model, title, started) in sessions {
            db.conn()
                .execute(
                    "INSERT INTO sessions (id, source, parent_session_id, model, title, started_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                    (id, source, parent, model, title, started),
                )
                .expect("session");
        }
        for (session, role, content, ts) in messages {
            db.conn()
                .execute(
                    "INSERT INTO messages (session_id, role, content, timestamp, active) VALUES (?1, ?2, ?3, ?4, 1)",
                    (session, role, content, ts),
                )
                .expect("message");
        }
        db.close();
        let store = Store::open(&path).expect("open");
        (dir, store)
    }

    /// Lineage a (root, a title and a model) → a2 (its continuation); b on telegram; c from
    /// cron, the densest match; t a tool session (hidden); d a root with neither start, model
    /// nor source → d2, which has them. Start times are text, so that `when` shows them as
    /// they are, whatever the time zone.
    fn lineages() -> (tempfile::TempDir, Store) {
        store(
            &[
                (
                    "a",
                    "cli",
                    None,
                    Some("m-a"),
                    Some("Deploy notes"),
                    "a-start",
                ),
                ("a2", "cli", Some("a"), Some("m-a2"), None, "a2-start"),
                ("b", "telegram", None, None, None, "b-start"),
                ("c", "cron", None, None, None, "c-start"),
                ("t", "tool", None, None, None, "t-start"),
                ("d", "", None, None, None, ""),
                ("d2", "slack", Some("d"), Some("m-d2"), None, "d2-start"),
            ],
            &[
                ("a", "user", "hello there", 1.0),
                (
                    "a",
                    "assistant",
                    "we deploy kubernetes today, all of it",
                    2.0,
                ),
                ("a2", "user", "kubernetes again", 3.0),
                ("c", "user", "kubernetes kubernetes kubernetes", 4.0),
                ("t", "user", "kubernetes", 5.0),
                ("b", "user", "kubernetes in telegram", 6.0),
                ("b", "assistant", "ok", 7.0),
                ("d2", "user", "helm charts", 8.0),
            ],
        )
    }

    /// (session, root's parent link, matched message) of each result.
    fn found(answer: &Value) -> Vec<(String, Option<String>, i64)> {
        answer["results"]
            .as_array()
            .map(|results| {
                results
                    .iter()
                    .map(|r| {
                        (
                            r["session_id"].as_str().unwrap_or("").to_string(),
                            r["parent_session_id"].as_str().map(str::to_string),
                            r["match_message_id"].as_i64().unwrap_or(0),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    fn s(id: &str) -> String {
        id.to_string()
    }

    /// One result per lineage (its best row), hidden sources left out, cron sessions after
    /// the interactive ones however well they match, and no more than `limit`.
    #[test]
    fn one_result_per_lineage_demoted_sources_last_up_to_the_limit() {
        let (_dir, store) = lineages();
        let answer = discover(&store, "kubernetes", None, 3, Sort::Rank, None);
        assert_eq!(
            found(&answer),
            [
                (s("a2"), Some(s("a")), 3),
                (s("b"), None, 6),
                (s("c"), None, 4)
            ]
        );
        assert_eq!(
            (&answer["count"], &answer["sessions_searched"]),
            (&json!(3), &json!(3))
        );
        let two = discover(&store, "kubernetes", None, 2, Sort::Rank, None);
        assert_eq!(found(&two), [(s("a2"), Some(s("a")), 3), (s("b"), None, 6)]);
        let one = discover(&store, "kubernetes", None, 1, Sort::Rank, None);
        assert_eq!(found(&one), [(s("a2"), Some(s("a")), 3)]);
        let assistant = discover(
            &store,
            "kubernetes",
            Some(vec![s("assistant")]),
            3,
            Sort::Rank,
            None,
        );
        assert_eq!(found(&assistant), [(s("a"), None, 2)]);
    }

    /// The current session's whole lineage is left out, whichever member is current.
    #[test]
    fn the_current_lineage_is_left_out() {
        let (_dir, store) = lineages();
        let from_b = discover(&store, "kubernetes", None, 10, Sort::Rank, Some("b"));
        assert_eq!(
            found(&from_b),
            [(s("a2"), Some(s("a")), 3), (s("c"), None, 4)]
        );
        let from_a2 = discover(&store, "kubernetes", None, 10, Sort::Rank, Some("a2"));
        assert_eq!(found(&from_a2), [(s("b"), None, 6), (s("c"), None, 4)]);
        let from_a = discover(&store, "kubernetes", None, 10, Sort::Rank, Some("a"));
        assert_eq!(found(&from_a), [(s("b"), None, 6), (s("c"), None, 4)]);
        let none = discover(&store, "kubernetes", None, 10, Sort::Rank, Some(""));
        assert_eq!(found(&none).len(), 3);
    }

    /// A result shows the lineage root's start, source, model and title, falling back to the
    /// matched session's where the root has none (the model to "unknown" after that).
    #[test]
    fn a_result_describes_its_lineage() {
        let (_dir, store) = lineages();
        let answer = discover(&store, "kubernetes", None, 3, Sort::Rank, None);
        let described: Vec<[&Value; 5]> = answer["results"]
            .as_array()
            .map(|r| {
                r.iter()
                    .map(|r| {
                        [
                            &r["when"],
                            &r["source"],
                            &r["model"],
                            &r["title"],
                            &r["matched_role"],
                        ]
                    })
                    .collect()
            })
            .unwrap_or_default();
        assert_eq!(
            described,
            [
                [
                    &json!("a-start"),
                    &json!("cli"),
                    &json!("m-a"),
                    &json!("Deploy notes"),
                    &json!("user")
                ],
                [
                    &json!("b-start"),
                    &json!("telegram"),
                    &json!("unknown"),
                    &Value::Null,
                    &json!("user")
                ],
                [
                    &json!("c-start"),
                    &json!("cron"),
                    &json!("unknown"),
                    &Value::Null,
                    &json!("user")
                ],
            ]
        );
        let b = &answer["results"][1];
        assert_eq!(b["snippet"], json!(">>>kubernetes<<< in telegram  "));
        assert_eq!(
            (
                &b["bookend_start"],
                &b["bookend_end"],
                &b["messages_before"],
                &b["messages_after"]
            ),
            (&json!([]), &json!([]), &json!(0), &json!(1))
        );
        assert_eq!(
            b["messages"],
            json!([
                {"id": 6, "role": "user", "content": "kubernetes in telegram", "timestamp": 6.0, "anchor": true},
                {"id": 7, "role": "assistant", "content": "ok", "timestamp": 7.0}
            ])
        );
        let d = discover(&store, "helm", None, 3, Sort::Rank, None);
        assert_eq!(found(&d), [(s("d2"), Some(s("d")), 8)]);
        let d = &d["results"][0];
        assert_eq!(
            [&d["when"], &d["source"], &d["model"], &d["title"]],
            [
                &json!("d2-start"),
                &json!("slack"),
                &json!("m-d2"),
                &Value::Null
            ]
        );
    }

    /// A query naming a session's title puts it first, in its own slot; nothing found at all
    /// (or a query the sanitiser empties) is the no-match answer.
    #[test]
    fn a_title_match_comes_first_and_no_match_says_so() {
        let (_dir, store) = lineages();
        let answer = discover(&store, "Deploy notes", None, 3, Sort::Rank, None);
        assert_eq!(found(&answer), [(s("a"), None, 1)]);
        assert_eq!(answer["results"][0]["matched_role"], json!("session_title"));
        assert_eq!(
            (&answer["count"], &answer["sessions_searched"]),
            (&json!(1), &json!(1))
        );
        let with_rows = discover(&store, "deploy", None, 3, Sort::Rank, None);
        assert_eq!(found(&with_rows), [(s("a"), None, 2)]);
        let none = json!({"success": true, "mode": "discover", "query": "nothing",
            "results": [], "count": 0, "message": "No matching sessions found."});
        assert_eq!(discover(&store, "nothing", None, 3, Sort::Rank, None), none);
        let mut starred = none.clone();
        starred["query"] = json!("***");
        assert_eq!(discover(&store, "***", None, 3, Sort::Rank, None), starred);
    }
}
