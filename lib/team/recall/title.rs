//! The title match of discover from the store (see [`crate::recall::title`]).

use rusqlite::types::Value as SqlValue;
use serde_json::{Map, Value};

use super::TeamRecall;
use super::view;
use crate::pytext::strip;
use crate::recall::discover::shaped;
use crate::recall::store::{sql_json, sql_truthy};
use crate::recall::{HIDDEN_SOURCES, when};

impl TeamRecall {
    /// The title match (see [`crate::recall::title`]) among the visible homes, on its own
    /// statement: the newest `"<title> #N"` continuation, else the exact title; the
    /// caller's home wins ties. A failure reads as no match, as locally.
    pub(super) fn title_lookup(&mut self, wanted: &TitleWanted) -> Option<(String, String)> {
        let scope = self.scope.as_str();
        let found = self
            .client
            .query_opt(
                "SELECT home_id::text, id FROM hermes.title_match($1, $2, $3, $4)",
                &[&wanted.prefix, &wanted.exact, &wanted.mine, &scope],
            )
            .ok()
            .flatten()?;
        Some((found.get(0), found.get(1)))
    }

    /// The discover entry of the session the title match found.
    pub(super) fn title_entry(
        &mut self,
        found: (String, String),
        wanted: &TitleWanted,
        current_root: Option<&(String, String)>,
    ) -> Option<(String, String, Value)> {
        let wanted = wanted.exact.clone();
        let (home, session_id) = found;
        let root = self.root_of(&home, &session_id);
        if current_root.is_some_and(|(h, c)| *h == home && !c.is_empty() && *c == root) {
            return None;
        }
        let meta = self
            .session(&home, &root)
            .or_else(|| self.session(&home, &session_id));
        if meta
            .as_ref()
            .and_then(|m| m.source_str())
            .is_some_and(|s| HIDDEN_SOURCES.contains(&s))
        {
            return None;
        }
        let live = view::transcript(&mut self.client, &home, &session_id, 5, 3).unwrap_or_default();
        let first_rows: Vec<_> = live.head.iter().take(5).cloned().collect();
        let last_rows: Vec<_> = if live.tail.is_empty() {
            live.head[live.head.len().saturating_sub(3)..].to_vec()
        } else {
            live.tail.clone()
        };
        let anchor = live.head.first().map(|m| m.id);
        let anchored = anchor
            .and_then(|a| view::anchored(&mut self.client, &home, &session_id, a, 5, 3).ok())
            .map(|a| a.view);
        let title = meta
            .as_ref()
            .map(|m| &m.title)
            .filter(|t| sql_truthy(t))
            .map_or_else(|| Value::from(wanted.clone()), sql_json);
        let title_text = match &title {
            Value::String(s) => s.clone(),
            other => crate::pytext::py_str(other),
        };
        let pick = |from: Option<&Vec<crate::recall::view::Message>>,
                    fallback: &[crate::recall::view::Message]| {
            match from.filter(|v| !v.is_empty()) {
                Some(rows) => rows.clone(),
                None => fallback.to_vec(),
            }
        };
        let bookend_start = pick(
            anchored.as_ref().map(|v| &v.bookend_start),
            &first_rows[..first_rows.len().min(3)],
        );
        let window = pick(anchored.as_ref().map(|v| &v.window), &first_rows);
        let bookend_end = pick(anchored.as_ref().map(|v| &v.bookend_end), &last_rows);
        let (before, after) = match &anchored {
            Some(v) => (v.before, v.after),
            None => (0, live.total.saturating_sub(5)),
        };
        let mut e = Map::new();
        e.insert("session_id".into(), Value::from(session_id.clone()));
        e.insert("home_id".into(), Value::from(home.clone()));
        e.insert(
            "when".into(),
            Value::from(when::format(
                meta.as_ref().map_or(&SqlValue::Null, |m| &m.started_at),
            )),
        );
        e.insert(
            "source".into(),
            meta.as_ref()
                .map_or_else(|| Value::from("unknown"), |m| sql_json(&m.source)),
        );
        e.insert(
            "model".into(),
            meta.as_ref()
                .map(|m| &m.model)
                .filter(|v| sql_truthy(v))
                .map_or_else(|| Value::from("unknown"), sql_json),
        );
        e.insert("title".into(), title);
        e.insert("matched_role".into(), Value::from("session_title"));
        e.insert(
            "match_message_id".into(),
            anchor.map_or(Value::Null, Value::from),
        );
        e.insert(
            "snippet".into(),
            Value::from(format!("Session title matched: {title_text}")),
        );
        e.insert("bookend_start".into(), shaped(&bookend_start, None));
        e.insert("messages".into(), shaped(&window, anchor));
        e.insert("bookend_end".into(), shaped(&bookend_end, None));
        e.insert("messages_before".into(), Value::from(before));
        e.insert("messages_after".into(), Value::from(after));
        if !root.is_empty() && root != session_id {
            e.insert("parent_session_id".into(), Value::from(root.clone()));
        }
        Some((home, root, Value::Object(e)))
    }
}

/// What the title match looks for.
pub(super) struct TitleWanted {
    /// The `"<title> #N"` continuations: a LIKE pattern on the ASCII-folded title. SQLite's
    /// LIKE folds ASCII letters only; `translate` does the same, and an index on that
    /// expression serves the prefix (see `hermes.title_match`).
    pub prefix: String,
    /// The exact title.
    pub exact: String,
    /// The caller's home, which wins ties.
    pub mine: String,
}

impl TitleWanted {
    /// `None` when nothing is left of the query to match.
    pub fn of(query: &str, my_home: Option<&str>) -> Option<TitleWanted> {
        let exact = strip(query).trim_matches(['`', '\'', '"']).to_string();
        if exact.is_empty() {
            return None;
        }
        let escaped = exact
            .replace('\\', "\\\\")
            .replace('%', "\\%")
            .replace('_', "\\_");
        Some(TitleWanted {
            prefix: format!("{} #%", escaped.to_ascii_lowercase()),
            exact,
            mine: my_home.unwrap_or_default().to_string(),
        })
    }
}
