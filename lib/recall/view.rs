//! Messages as session_search shows them: the window around an anchor (scroll, and every
//! discover hit), the bookends of a session, and the slimmed message object (`_shape_message`).
//!
//! Windows and bookends read every row whatever its `active` flag, as upstream does; only
//! `read` and the title match's fallback use the live transcript.

use rusqlite::types::Value as SqlValue;
use rusqlite::{Connection, OptionalExtension, Row};
use serde_json::{Map, Value};

use super::store::{sql_json, sql_truthy};

/// The columns a shaped message needs, in this order.
const COLUMNS: &str = "id, role, content, timestamp, tool_name, tool_calls, tool_call_id";

/// One message row, decoded as `get_messages` decodes it.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    pub id: i64,
    pub role: SqlValue,
    /// `content`, with `"\x00json:"` content decoded to the list or object it was.
    pub content: Value,
    pub timestamp: SqlValue,
    pub tool_name: SqlValue,
    /// `tool_calls` parsed when it is non-empty text (`[]` when that fails).
    pub tool_calls: Value,
    pub tool_call_id: SqlValue,
}

impl Message {
    fn from_row(row: &Row<'_>) -> rusqlite::Result<Message> {
        Ok(Message {
            id: row.get(0)?,
            role: row.get(1)?,
            content: decode_content(&row.get::<_, SqlValue>(2)?),
            timestamp: row.get(3)?,
            tool_name: row.get(4)?,
            tool_calls: decode_tool_calls(&row.get::<_, SqlValue>(5)?),
            tool_call_id: row.get(6)?,
        })
    }

    pub fn role_is(&self, role: &str) -> bool {
        matches!(&self.role, SqlValue::Text(r) if r == role)
    }

    /// `_shape_message`: id, role, content (always, even null), timestamp; tool name, calls
    /// and call id when truthy; `anchor: true` on the anchor. Other null values are dropped.
    pub fn shape(&self, anchor: Option<i64>) -> Value {
        let mut entry = Map::new();
        entry.insert("id".into(), Value::from(self.id));
        if !matches!(self.role, SqlValue::Null) {
            entry.insert("role".into(), sql_json(&self.role));
        }
        entry.insert("content".into(), self.content.clone());
        if !matches!(self.timestamp, SqlValue::Null) {
            entry.insert("timestamp".into(), sql_json(&self.timestamp));
        }
        if sql_truthy(&self.tool_name) {
            entry.insert("tool_name".into(), sql_json(&self.tool_name));
        }
        if crate::pytext::truthy(&self.tool_calls) {
            entry.insert("tool_calls".into(), self.tool_calls.clone());
        }
        if sql_truthy(&self.tool_call_id) {
            entry.insert("tool_call_id".into(), sql_json(&self.tool_call_id));
        }
        if anchor == Some(self.id) {
            entry.insert("anchor".into(), Value::Bool(true));
        }
        Value::Object(entry)
    }
}

/// `_decode_content`: text behind `"\x00json:"` parsed (kept as text when it does not parse).
pub fn decode_content(value: &SqlValue) -> Value {
    let mut content = sql_json(value);
    crate::sessions::export::decode_content(&mut content);
    content
}

pub fn decode_tool_calls(value: &SqlValue) -> Value {
    match value {
        SqlValue::Text(text) if !text.is_empty() => {
            serde_json::from_str(text).unwrap_or_else(|_| Value::Array(Vec::new()))
        }
        // Python only decodes truthy values; a number fails to decode and becomes [].
        SqlValue::Integer(0) => Value::from(0),
        SqlValue::Integer(_) | SqlValue::Real(_) => Value::Array(Vec::new()),
        other => sql_json(other),
    }
}

/// `get_messages_around`: up to `window` rows before the anchor, the anchor, up to `window`
/// after, by id; counts of the rows before and after. Empty when the anchor is not a row of
/// `session_id`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Around {
    pub rows: Vec<Message>,
    pub before: usize,
    pub after: usize,
}

pub fn around(
    conn: &Connection,
    session_id: &str,
    anchor: i64,
    window: i64,
) -> rusqlite::Result<Around> {
    let window = window.max(0);
    let exists = conn
        .prepare_cached("SELECT 1 FROM messages WHERE id = ?1 AND session_id = ?2 LIMIT 1")?
        .query_row((anchor, session_id), |_| Ok(()))
        .optional()?;
    if exists.is_none() {
        return Ok(Around::default());
    }
    let mut before: Vec<Message> = conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM messages WHERE session_id = ?1 AND id <= ?2 ORDER BY id DESC LIMIT ?3"
        ))?
        .query_map((session_id, anchor, window.saturating_add(1)), Message::from_row)?
        .collect::<rusqlite::Result<_>>()?;
    let after: Vec<Message> = conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM messages WHERE session_id = ?1 AND id > ?2 ORDER BY id ASC LIMIT ?3"
        ))?
        .query_map((session_id, anchor, window), Message::from_row)?
        .collect::<rusqlite::Result<_>>()?;
    let counts = (before.len().saturating_sub(1), after.len());
    before.reverse();
    before.extend(after);
    Ok(Around {
        rows: before,
        before: counts.0,
        after: counts.1,
    })
}

/// `get_anchored_view(…, keep_roles=("user", "assistant"))`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AnchoredView {
    /// The window's user and assistant rows, plus the anchor whatever its role.
    pub window: Vec<Message>,
    pub before: usize,
    pub after: usize,
    /// The session's first `bookend` user/assistant rows with content, before the window.
    pub bookend_start: Vec<Message>,
    /// Its last ones, after the window.
    pub bookend_end: Vec<Message>,
}

pub fn anchored(
    conn: &Connection,
    session_id: &str,
    anchor: i64,
    window: i64,
    bookend: i64,
) -> rusqlite::Result<AnchoredView> {
    let raw = around(conn, session_id, anchor, window)?;
    let (Some(first), Some(last)) = (raw.rows.first(), raw.rows.last()) else {
        return Ok(AnchoredView::default());
    };
    let (min_id, max_id) = (first.id, last.id);
    let bookend = bookend.max(0);
    let (mut bookend_start, mut bookend_end) = (Vec::new(), Vec::new());
    if bookend > 0 {
        // `length(content) > 0` is SQLite's length: text up to its first NUL, so multimodal
        // content (stored behind "\x00json:") never makes a bookend, as upstream.
        bookend_start = conn
            .prepare_cached(&format!(
                "SELECT {COLUMNS} FROM messages WHERE session_id = ?1 AND id < ?2 \
                 AND role IN ('user', 'assistant') AND length(content) > 0 ORDER BY id ASC LIMIT ?3"
            ))?
            .query_map((session_id, min_id, bookend), Message::from_row)?
            .collect::<rusqlite::Result<_>>()?;
        bookend_end = conn
            .prepare_cached(&format!(
                "SELECT {COLUMNS} FROM messages WHERE session_id = ?1 AND id > ?2 \
                 AND role IN ('user', 'assistant') AND length(content) > 0 ORDER BY id DESC LIMIT ?3"
            ))?
            .query_map((session_id, max_id, bookend), Message::from_row)?
            .collect::<rusqlite::Result<_>>()?;
        bookend_end.reverse();
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

/// The live transcript of a session, for read: its length, and its first `head` and last
/// `tail` rows (all of them when there are no more than `head + tail`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Transcript {
    pub total: usize,
    pub head: Vec<Message>,
    /// Empty unless the transcript is longer than `head + tail`.
    pub tail: Vec<Message>,
}

pub fn transcript(
    conn: &Connection,
    session_id: &str,
    head: usize,
    tail: usize,
) -> rusqlite::Result<Transcript> {
    let total: i64 = conn
        .prepare_cached("SELECT count(*) FROM messages WHERE session_id = ?1 AND active = 1")?
        .query_row([session_id], |r| r.get(0))?;
    let total = total.max(0) as usize;
    let limit = if total > head + tail { head } else { total };
    let head_rows: Vec<Message> = conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM messages WHERE session_id = ?1 AND active = 1 ORDER BY id LIMIT ?2"
        ))?
        .query_map((session_id, limit as i64), Message::from_row)?
        .collect::<rusqlite::Result<_>>()?;
    let mut tail_rows = Vec::new();
    if total > head + tail {
        tail_rows = conn
            .prepare_cached(&format!(
                "SELECT {COLUMNS} FROM messages WHERE session_id = ?1 AND active = 1 ORDER BY id DESC LIMIT ?2"
            ))?
            .query_map((session_id, tail as i64), Message::from_row)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        tail_rows.reverse();
    }
    Ok(Transcript {
        total,
        head: head_rows,
        tail: tail_rows,
    })
}

/// The message that owns `id`, whatever its session (`SELECT session_id FROM messages`).
pub fn owner_of(conn: &Connection, id: i64) -> rusqlite::Result<Option<String>> {
    conn.prepare_cached("SELECT session_id FROM messages WHERE id = ?1")?
        .query_row([id], |r| r.get::<_, SqlValue>(0))
        .optional()
        .map(|v| match v {
            Some(SqlValue::Text(s)) => Some(s),
            _ => None,
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn message(id: i64, role: &str, content: Value) -> Message {
        Message {
            id,
            role: SqlValue::Text(role.into()),
            content,
            timestamp: SqlValue::Real(1.5),
            tool_name: SqlValue::Null,
            tool_calls: Value::Null,
            tool_call_id: SqlValue::Null,
        }
    }

    #[test]
    fn shape_keeps_null_content_and_drops_empty_tool_fields() {
        let mut m = message(7, "assistant", Value::Null);
        m.tool_name = SqlValue::Text(String::new());
        m.tool_calls = json!([]);
        assert_eq!(
            m.shape(Some(7)),
            json!({"id": 7, "role": "assistant", "content": null, "timestamp": 1.5, "anchor": true})
        );
        m.tool_calls = json!([{"id": "c"}]);
        m.tool_call_id = SqlValue::Text("c".into());
        let shaped = m.shape(None);
        assert_eq!(
            shaped
                .as_object()
                .map(|o| o.keys().cloned().collect::<Vec<_>>()),
            Some(vec![
                "id".into(),
                "role".into(),
                "content".into(),
                "timestamp".into(),
                "tool_calls".into(),
                "tool_call_id".into()
            ])
        );
    }

    #[test]
    fn content_and_tool_calls_decode_as_python_does() {
        assert_eq!(
            decode_content(&SqlValue::Text("\u{0}json:[{\"type\": \"text\"}]".into())),
            json!([{"type": "text"}])
        );
        assert_eq!(
            decode_content(&SqlValue::Text("\u{0}json:{broken".into())),
            json!("\u{0}json:{broken")
        );
        assert_eq!(decode_tool_calls(&SqlValue::Text("nope".into())), json!([]));
        assert_eq!(decode_tool_calls(&SqlValue::Text(String::new())), json!(""));
        assert_eq!(decode_tool_calls(&SqlValue::Null), Value::Null);
    }
}
