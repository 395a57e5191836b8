//! Windows, bookends and transcripts read from the team store, in the shapes
//! [`crate::recall::view`] gives them locally, so the answers are built by the same code.
//! Every read names the home: session ids are only unique within one.

use postgres::{Client, Row};
use rusqlite::types::Value as SqlValue;

use crate::recall::store::SessionMeta;
use crate::recall::view::{
    AnchoredView, Around, Message, Transcript, decode_content, decode_tool_calls,
};

use super::push::JSON_PREFIX;

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
    client: &mut Client,
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
    client: &mut Client,
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

/// `get_anchored_view` (see [`crate::recall::view::anchored`]). A bookend needs text
/// content: list or dict content never makes one, as locally.
pub fn anchored(
    client: &mut Client,
    home: &str,
    session_id: &str,
    anchor: i64,
    window: i64,
    bookend: i64,
) -> Result<AnchoredView, postgres::Error> {
    let raw = around(client, home, session_id, anchor, window)?;
    let (Some(first), Some(last)) = (raw.rows.first(), raw.rows.last()) else {
        return Ok(AnchoredView::default());
    };
    let (min_id, max_id) = (first.id, last.id);
    let mut bookend_start: Vec<Message> = client
        .query(
            &format!(
                "SELECT {COLUMNS} FROM hermes.messages WHERE home_id = $1::text::uuid AND session_id = $2
                 AND id < $3 AND role IN ('user', 'assistant') AND NOT content_json
                 AND length(content) > 0 ORDER BY id LIMIT $4"
            ),
            &[&home, &session_id, &min_id, &bookend.max(0)],
        )?
        .iter()
        .map(message)
        .collect();
    let mut bookend_end: Vec<Message> = client
        .query(
            &format!(
                "SELECT {COLUMNS} FROM hermes.messages WHERE home_id = $1::text::uuid AND session_id = $2
                 AND id > $3 AND role IN ('user', 'assistant') AND NOT content_json
                 AND length(content) > 0 ORDER BY id DESC LIMIT $4"
            ),
            &[&home, &session_id, &max_id, &bookend.max(0)],
        )?
        .iter()
        .map(message)
        .collect();
    bookend_end.reverse();
    if bookend <= 0 {
        bookend_start.clear();
        bookend_end.clear();
    }
    let window = raw
        .rows
        .into_iter()
        .filter(|m| m.id == anchor || m.role_is("user") || m.role_is("assistant"))
        .collect();
    Ok(AnchoredView {
        window,
        before: raw.before,
        after: raw.after,
        bookend_start,
        bookend_end,
    })
}

/// The live transcript (see [`crate::recall::view::transcript`]).
pub fn transcript(
    client: &mut Client,
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

/// A message's indexed text (content, tool name, tool calls), for its snippet.
pub fn indexed_text(client: &mut Client, home: &str, id: i64) -> Result<String, postgres::Error> {
    let row = client.query_opt(
        "SELECT content, content_json, tool_name, tool_calls FROM hermes.messages
         WHERE home_id = $1::text::uuid AND id = $2",
        &[&home, &id],
    )?;
    Ok(row.map_or_else(String::new, |r| {
        let content: Option<String> = r.get(0);
        let json: bool = r.get(1);
        let name: Option<String> = r.get(2);
        let calls: Option<String> = r.get(3);
        format!(
            "{}{} {} {}",
            if json { JSON_PREFIX } else { "" },
            content.unwrap_or_default(),
            name.unwrap_or_default(),
            calls.unwrap_or_default()
        )
    }))
}

/// A message's content as stored locally (list or dict content behind its prefix), for the
/// LIKE scan's snippet.
pub fn content(client: &mut Client, home: &str, id: i64) -> Result<String, postgres::Error> {
    let row = client.query_opt(
        "SELECT content, content_json FROM hermes.messages WHERE home_id = $1::text::uuid AND id = $2",
        &[&home, &id],
    )?;
    Ok(row.map_or_else(String::new, |r| {
        let content: Option<String> = r.get(0);
        let json: bool = r.get(1);
        format!(
            "{}{}",
            if json { JSON_PREFIX } else { "" },
            content.unwrap_or_default()
        )
    }))
}
