//! Browse from the store (see [`crate::recall::browse`]).

use std::collections::HashSet;

use serde_json::{Map, Value, json};

use super::TeamRecall;
use super::view::{real, text};
use crate::pytext::strip;
use crate::recall::error;
use crate::recall::store::{sql_json, sql_truthy};

impl TeamRecall {
    /// Browse (see [`crate::recall::browse`]): the most recently active conversations of
    /// the visible homes, a compressed one shown as its live tip. The store keeps no
    /// `model_config`, so branches and delegate runs are told apart only by their parent.
    pub(super) fn browse(&mut self, limit: usize, current: Option<&str>) -> Value {
        match self.browse_rows(limit, current) {
            Ok(results) => {
                let count = results.len();
                json!({
                    "success": true, "mode": "browse", "results": results, "count": count,
                    "message": format!("Showing {count} most recent sessions. Pass a query= to search, or session_id+around_message_id to scroll."),
                })
            }
            Err(e) => error(format!("Failed to list recent sessions: {e}")),
        }
    }

    fn browse_rows(
        &mut self,
        limit: usize,
        current: Option<&str>,
    ) -> std::result::Result<Vec<Value>, postgres::Error> {
        const LISTABLE: &str = "s.parent_session_id IS NULL AND s.source NOT IN ('subagent', 'tool') \
            AND coalesce(s.archived, 0) = 0";
        let listed = self.client.query(
            &format!(
                "WITH RECURSIVE chain(home_id, root_id, cur_id) AS (
                     SELECT s.home_id, s.id, s.id FROM hermes.sessions s WHERE {LISTABLE}
                     UNION
                     SELECT c.home_id, c.root_id, child.id FROM chain c
                     JOIN hermes.sessions parent ON parent.home_id = c.home_id AND parent.id = c.cur_id
                     JOIN hermes.sessions child ON child.home_id = c.home_id AND child.parent_session_id = c.cur_id
                     WHERE parent.end_reason = 'compression' AND coalesce(child.source, '') <> 'tool'
                 ),
                 chain_max AS (
                     SELECT c.home_id, c.root_id, max(coalesce(
                         (SELECT max(m.\"timestamp\") FROM hermes.messages m
                          WHERE m.home_id = c.home_id AND m.session_id = c.cur_id),
                         (SELECT ss.started_at FROM hermes.sessions ss
                          WHERE ss.home_id = c.home_id AND ss.id = c.cur_id))) AS effective
                     FROM chain c GROUP BY c.home_id, c.root_id
                 )
                 SELECT s.home_id::text, s.id, s.source, s.started_at, s.end_reason
                 FROM hermes.sessions s
                 LEFT JOIN chain_max cm ON cm.home_id = s.home_id AND cm.root_id = s.id
                 WHERE {LISTABLE}
                 ORDER BY coalesce(cm.effective, s.started_at) DESC, s.started_at DESC, s.id DESC
                 LIMIT $1"
            ),
            &[&((limit + 5) as i64)],
        )?;
        let current = current.filter(|c| !c.is_empty());
        let current_root = self.current_root(current);
        let mut results = Vec::new();
        for r in listed {
            let (home, id): (String, String) = (r.get(0), r.get(1));
            let end_reason: Option<String> = r.get(4);
            let mut shown = id.clone();
            if end_reason.as_deref() == Some("compression") {
                let tip = self.compression_tip(&home, &id)?;
                if tip != id && self.session(&home, &tip).is_some() {
                    shown = tip;
                }
            }
            if let Some((h, root)) = &current_root
                && *h == home
                && !root.is_empty()
                && (shown == *root || current == Some(shown.as_str()))
            {
                continue;
            }
            let Some(row) = self.client.query_opt(
                "SELECT s.title, s.message_count,
                     coalesce((SELECT max(m2.\"timestamp\") FROM hermes.messages m2
                               WHERE m2.home_id = s.home_id AND m2.session_id = s.id), s.started_at),
                     coalesce((SELECT substr(replace(replace(m.content, chr(10), ' '), chr(13), ' '), 1, 63)
                               FROM hermes.messages m
                               WHERE m.home_id = s.home_id AND m.session_id = s.id AND m.role = 'user'
                                 AND m.content IS NOT NULL
                               ORDER BY m.\"timestamp\", m.id LIMIT 1), '')
                 FROM hermes.sessions s WHERE s.home_id = $1::text::uuid AND s.id = $2",
                &[&home, &shown],
            )?
            else {
                continue;
            };
            let title = text(row.get(0));
            let preview: String = row.get(3);
            let preview = strip(&preview);
            let preview = if preview.chars().count() > 60 {
                format!("{}...", preview.chars().take(60).collect::<String>())
            } else {
                preview.to_string()
            };
            let mut out = Map::new();
            out.insert("session_id".into(), Value::from(shown));
            out.insert("home_id".into(), Value::from(home));
            out.insert(
                "title".into(),
                if sql_truthy(&title) {
                    sql_json(&title)
                } else {
                    Value::Null
                },
            );
            out.insert("source".into(), sql_json(&text(r.get(2))));
            out.insert("started_at".into(), sql_json(&real(r.get(3))));
            out.insert("last_active".into(), sql_json(&real(row.get(2))));
            out.insert(
                "message_count".into(),
                row.get::<_, Option<i64>>(1)
                    .map_or(Value::Null, Value::from),
            );
            out.insert("preview".into(), Value::from(preview));
            results.push(Value::Object(out));
            if results.len() >= limit {
                break;
            }
        }
        Ok(results)
    }

    /// `get_compression_tip` within one home.
    fn compression_tip(
        &mut self,
        home: &str,
        id: &str,
    ) -> std::result::Result<String, postgres::Error> {
        let mut current = id.to_string();
        let mut seen = HashSet::from([current.clone()]);
        for _ in 0..100 {
            let child = self.client.query_opt(
                "SELECT child.id FROM hermes.sessions parent
                 JOIN hermes.sessions child ON child.home_id = parent.home_id
                      AND child.parent_session_id = parent.id
                 WHERE parent.home_id = $1::text::uuid AND parent.id = $2
                   AND parent.end_reason = 'compression' AND coalesce(child.source, '') <> 'tool'
                 ORDER BY CASE WHEN child.end_reason = 'compression' THEN 0
                               WHEN child.ended_at IS NULL THEN 1 ELSE 2 END,
                          coalesce((SELECT max(m.\"timestamp\") FROM hermes.messages m
                                    WHERE m.home_id = child.home_id AND m.session_id = child.id),
                                   child.started_at) DESC,
                          child.started_at DESC, child.id DESC
                 LIMIT 1",
                &[&home, &current],
            )?;
            match child.map(|r| r.get::<_, String>(0)) {
                Some(c) if !c.is_empty() && seen.insert(c.clone()) => current = c,
                _ => return Ok(current),
            }
        }
        Ok(current)
    }
}
