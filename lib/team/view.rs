//! Windows, bookends and transcripts read from the team store, in the shapes
//! [`crate::recall::view`] gives them locally, so the answers are built by the same code.
//! Every read names the home: session ids are only unique within one.

use std::collections::HashMap;

use postgres::types::ToSql;
use postgres::{Client, Row, Statement};
use rusqlite::types::Value as SqlValue;

use crate::recall::store::SessionMeta;
use crate::recall::view::{
    AnchoredView, Around, Message, Transcript, decode_content, decode_tool_calls,
};

use super::push::JSON_PREFIX;

/// A connection that prepares each statement once: a statement prepared on the fly costs a
/// second round trip every time, and a discover runs a couple of dozen small ones.
pub struct Conn {
    pub client: Client,
    cache: HashMap<String, Statement>,
}

type Params<'a> = &'a [&'a (dyn ToSql + Sync)];

impl Conn {
    pub fn new(client: Client) -> Conn {
        Conn {
            client,
            cache: HashMap::new(),
        }
    }

    fn statement(&mut self, sql: &str) -> Result<Statement, postgres::Error> {
        if let Some(s) = self.cache.get(sql) {
            return Ok(s.clone());
        }
        let s = self.client.prepare(sql)?;
        self.cache.insert(sql.to_string(), s.clone());
        Ok(s)
    }

    pub fn query(&mut self, sql: &str, params: Params<'_>) -> Result<Vec<Row>, postgres::Error> {
        let s = self.statement(sql)?;
        self.client.query(&s, params)
    }

    pub fn query_opt(
        &mut self,
        sql: &str,
        params: Params<'_>,
    ) -> Result<Option<Row>, postgres::Error> {
        let s = self.statement(sql)?;
        self.client.query_opt(&s, params)
    }

    pub fn query_one(&mut self, sql: &str, params: Params<'_>) -> Result<Row, postgres::Error> {
        let s = self.statement(sql)?;
        self.client.query_one(&s, params)
    }
}

const COLUMNS: &str =
    "id, role, content, content_json, \"timestamp\", tool_name, tool_calls, tool_call_id";

pub fn text(v: Option<String>) -> SqlValue {
    v.map_or(SqlValue::Null, SqlValue::Text)
}

pub fn real(v: Option<f64>) -> SqlValue {
    v.map_or(SqlValue::Null, SqlValue::Real)
}

/// A message row as the local reader decodes it; list or dict content gets its prefix back.
fn message(row: &Row) -> Message {
    let json: bool = row.get(3);
    let content: Option<String> = row.get(2);
    let content = match content {
        Some(c) if json => SqlValue::Text(format!("{JSON_PREFIX}{c}")),
        other => text(other),
    };
    Message {
        id: row.get(0),
        role: text(row.get(1)),
        content: decode_content(&content),
        timestamp: real(row.get(4)),
        tool_name: text(row.get(5)),
        tool_calls: decode_tool_calls(&text(row.get(6))),
        tool_call_id: text(row.get(7)),
    }
}

/// `get_session` in a home; `None` when missing or not visible.
pub fn session(
    client: &mut Conn,
    home: &str,
    id: &str,
) -> Result<Option<SessionMeta>, postgres::Error> {
    let row = client.query_opt(
        "SELECT source, model, title, started_at, parent_session_id FROM hermes.sessions
         WHERE home_id = $1::text::uuid AND id = $2",
        &[&home, &id],
    )?;
    Ok(row.map(|r| SessionMeta {
        id: id.to_string(),
        source: text(r.get(0)),
        model: text(r.get(1)),
        title: text(r.get(2)),
        started_at: real(r.get(3)),
        parent_session_id: r.get(4),
    }))
}

/// `get_messages_around` (see [`crate::recall::view::around`]).
pub fn around(
    client: &mut Conn,
    home: &str,
    session_id: &str,
    anchor: i64,
    window: i64,
) -> Result<Around, postgres::Error> {
    let window = window.max(0);
    let exists = client.query_opt(
        "SELECT 1 FROM hermes.messages WHERE home_id = $1::text::uuid AND id = $2 AND session_id = $3",
        &[&home, &anchor, &session_id],
    )?;
    if exists.is_none() {
        return Ok(Around::default());
    }
    let mut before: Vec<Message> = client
        .query(
            &format!(
                "SELECT {COLUMNS} FROM hermes.messages WHERE home_id = $1::text::uuid AND session_id = $2
                 AND id <= $3 ORDER BY id DESC LIMIT $4"
            ),
            &[&home, &session_id, &anchor, &(window + 1)],
        )?
        .iter()
        .map(message)
        .collect();
    let after: Vec<Message> = client
        .query(
            &format!(
                "SELECT {COLUMNS} FROM hermes.messages WHERE home_id = $1::text::uuid AND session_id = $2
                 AND id > $3 ORDER BY id LIMIT $4"
            ),
            &[&home, &session_id, &anchor, &window],
        )?
        .iter()
        .map(message)
        .collect();
    let counts = (before.len().saturating_sub(1), after.len());
    before.reverse();
    before.extend(after);
    Ok(Around {
        rows: before,
        before: counts.0,
        after: counts.1,
    })
}

/// One anchored view and what the anchor's snippet needs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Anchored {
    pub view: AnchoredView,
    /// The anchor's indexed text (content, tool name, tool calls).
    pub text: String,
    /// The anchor's content as stored locally.
    pub content: String,
}

/// `get_anchored_view` (see [`crate::recall::view::anchored`]).
pub fn anchored(
    client: &mut Conn,
    home: &str,
    session_id: &str,
    anchor: i64,
    window: i64,
    bookend: i64,
) -> Result<Anchored, postgres::Error> {
    let mut all = anchored_many(client, &[(home, session_id, anchor)], window, bookend)?;
    Ok(all.pop().unwrap_or_default())
}

/// Several anchored views in one statement, in the order of `keys` (home, session,
/// anchor): each window's rows before and after its anchor, then the bookends beyond them.
/// A bookend needs text content: list or dict content never makes one, as locally.
pub fn anchored_many(
    client: &mut Conn,
    keys: &[(&str, &str, i64)],
    window: i64,
    bookend: i64,
) -> Result<Vec<Anchored>, postgres::Error> {
    const SQL: &str = "
        WITH k AS (SELECT * FROM unnest($1::text[]::uuid[], $2::text[], $3::bigint[])
                   WITH ORDINALITY AS k(home, sid, anchor, n)),
        a AS (SELECT k.* FROM k WHERE EXISTS (
                  SELECT 1 FROM hermes.messages m
                  WHERE m.home_id = k.home AND m.session_id = k.sid AND m.id = k.anchor)),
        b AS (SELECT a.n, x.id FROM a CROSS JOIN LATERAL (
                  SELECT m.id FROM hermes.messages m
                  WHERE m.home_id = a.home AND m.session_id = a.sid AND m.id <= a.anchor
                  ORDER BY m.id DESC LIMIT $4::bigint + 1) x),
        f AS (SELECT a.n, x.id FROM a CROSS JOIN LATERAL (
                  SELECT m.id FROM hermes.messages m
                  WHERE m.home_id = a.home AND m.session_id = a.sid AND m.id > a.anchor
                  ORDER BY m.id LIMIT $4::bigint) x),
        w AS (SELECT n, min(id) AS lo, max(id) AS hi
              FROM (SELECT * FROM b UNION ALL SELECT * FROM f) u GROUP BY n),
        s AS (SELECT a.n, x.id FROM a JOIN w ON w.n = a.n CROSS JOIN LATERAL (
                  SELECT m.id FROM hermes.messages m
                  WHERE m.home_id = a.home AND m.session_id = a.sid AND m.id < w.lo
                    AND m.role IN ('user', 'assistant') AND NOT m.content_json
                    AND length(m.content) > 0
                  ORDER BY m.id LIMIT $5::bigint) x),
        e AS (SELECT a.n, x.id FROM a JOIN w ON w.n = a.n CROSS JOIN LATERAL (
                  SELECT m.id FROM hermes.messages m
                  WHERE m.home_id = a.home AND m.session_id = a.sid AND m.id > w.hi
                    AND m.role IN ('user', 'assistant') AND NOT m.content_json
                    AND length(m.content) > 0
                  ORDER BY m.id DESC LIMIT $5::bigint) x),
        parts AS (SELECT n, 1 AS part, id FROM s UNION ALL SELECT n, 2, id FROM b
                  UNION ALL SELECT n, 3, id FROM f UNION ALL SELECT n, 4, id FROM e)
        SELECT m.id, m.role, m.content, m.content_json, m.\"timestamp\", m.tool_name,
               m.tool_calls, m.tool_call_id, p.part, p.n
        FROM parts p JOIN k ON k.n = p.n
        JOIN hermes.messages m ON m.home_id = k.home AND m.id = p.id
        ORDER BY p.n, p.part, m.id";
    let homes: Vec<&str> = keys.iter().map(|k| k.0).collect();
    let sessions: Vec<&str> = keys.iter().map(|k| k.1).collect();
    let anchors: Vec<i64> = keys.iter().map(|k| k.2).collect();
    let rows = client.query(
        SQL,
        &[&homes, &sessions, &anchors, &window.max(0), &bookend.max(0)],
    )?;
    let mut out: Vec<Anchored> = vec![Anchored::default(); keys.len()];
    let mut raw: Vec<Vec<Message>> = vec![Vec::new(); keys.len()];
    for row in &rows {
        let part: i32 = row.get(8);
        let n: i64 = row.get(9);
        let Some(i) = usize::try_from(n - 1).ok().filter(|&i| i < keys.len()) else {
            continue;
        };
        let m = message(row);
        let slot = &mut out[i];
        if m.id == keys[i].2 && part == 2 {
            let content: Option<String> = row.get(2);
            let json: bool = row.get(3);
            let name: Option<String> = row.get(5);
            let calls: Option<String> = row.get(6);
            slot.content = format!(
                "{}{}",
                if json { JSON_PREFIX } else { "" },
                content.unwrap_or_default()
            );
            slot.text = format!(
                "{} {} {}",
                slot.content,
                name.unwrap_or_default(),
                calls.unwrap_or_default()
            );
        }
        match part {
            1 => slot.view.bookend_start.push(m),
            2 => {
                slot.view.before += 1;
                raw[i].push(m)
            }
            3 => {
                slot.view.after += 1;
                raw[i].push(m)
            }
            _ => slot.view.bookend_end.push(m),
        }
    }
    for (i, rows) in raw.into_iter().enumerate() {
        let slot = &mut out[i];
        if rows.is_empty() {
            slot.view = AnchoredView::default();
            continue;
        }
        slot.view.before = slot.view.before.saturating_sub(1);
        let anchor = keys[i].2;
        slot.view.window = rows
            .into_iter()
            .filter(|m| m.id == anchor || m.role_is("user") || m.role_is("assistant"))
            .collect();
    }
    Ok(out)
}

/// The live transcript (see [`crate::recall::view::transcript`]).
pub fn transcript(
    client: &mut Conn,
    home: &str,
    session_id: &str,
    head: usize,
    tail: usize,
) -> Result<Transcript, postgres::Error> {
    let total: i64 = client
        .query_one(
            "SELECT count(*) FROM hermes.messages WHERE home_id = $1::text::uuid AND session_id = $2 AND active = 1",
            &[&home, &session_id],
        )?
        .get(0);
    let total = total.max(0) as usize;
    let limit = if total > head + tail { head } else { total } as i64;
    let head_rows = client
        .query(
            &format!(
                "SELECT {COLUMNS} FROM hermes.messages WHERE home_id = $1::text::uuid AND session_id = $2
                 AND active = 1 ORDER BY id LIMIT $3"
            ),
            &[&home, &session_id, &limit],
        )?
        .iter()
        .map(message)
        .collect();
    let mut tail_rows = Vec::new();
    if total > head + tail {
        tail_rows = client
            .query(
                &format!(
                    "SELECT {COLUMNS} FROM hermes.messages WHERE home_id = $1::text::uuid AND session_id = $2
                     AND active = 1 ORDER BY id DESC LIMIT $3"
                ),
                &[&home, &session_id, &(tail as i64)],
            )?
            .iter()
            .map(message)
            .collect::<Vec<_>>();
        tail_rows.reverse();
    }
    Ok(Transcript {
        total,
        head: head_rows,
        tail: tail_rows,
    })
}
