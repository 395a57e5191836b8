//! The rows a push sends, read from `state.db` and typed for the store: SQLite's loose
//! values become the store's columns (text without NUL, reals, integers), and each
//! message carries the documents its two tsvectors are built from.

use postgres::types::{ToSql, Type};
use rusqlite::types::Value as SqlValue;

use super::words;

/// The prefix Python Hermes stores list or dict content behind; PostgreSQL text cannot
/// hold NUL, so the store keeps a flag instead.
pub const JSON_PREFIX: &str = "\u{0}json:";

pub const SESSION_COLUMNS: &str = "id, source, user_id, model, parent_session_id, started_at, ended_at, \
    end_reason, message_count, tool_call_count, input_tokens, output_tokens, title, archived";

/// The message columns read, with the session's source (`m` is messages, `s` sessions).
pub const MESSAGE_COLUMNS: &str = "m.id, m.session_id, m.role, m.content, m.tool_call_id, m.tool_calls, \
    m.tool_name, m.timestamp, m.active, m.compacted, s.source";
pub const MESSAGE_FROM: &str = "messages m LEFT JOIN sessions s ON s.id = m.session_id";

pub const MESSAGE_TYPES: [Type; 15] = [
    Type::INT8,
    Type::TEXT,
    Type::TEXT,
    Type::TEXT,
    Type::TEXT,
    Type::BOOL,
    Type::TEXT,
    Type::TEXT,
    Type::TEXT,
    Type::FLOAT8,
    Type::INT8,
    Type::INT8,
    Type::TEXT,
    Type::TEXT,
    Type::BOOL,
];

pub const SESSION_TYPES: [Type; 14] = [
    Type::TEXT,
    Type::TEXT,
    Type::TEXT,
    Type::TEXT,
    Type::TEXT,
    Type::FLOAT8,
    Type::FLOAT8,
    Type::TEXT,
    Type::INT8,
    Type::INT8,
    Type::INT8,
    Type::INT8,
    Type::TEXT,
    Type::INT8,
];

/// A SQLite value as text the store can hold (NUL, which PostgreSQL text refuses, becomes
/// U+FFFD).
fn text(v: SqlValue) -> Option<String> {
    let s = match v {
        SqlValue::Null => return None,
        SqlValue::Text(s) => s,
        other => crate::recall::store::sql_text(&other),
    };
    Some(if s.contains('\0') {
        s.replace('\0', "\u{FFFD}")
    } else {
        s
    })
}

fn real(v: SqlValue) -> Option<f64> {
    match v {
        SqlValue::Real(f) => Some(f),
        SqlValue::Integer(i) => Some(i as f64),
        _ => None,
    }
}

fn int(v: SqlValue) -> Option<i64> {
    match v {
        SqlValue::Integer(i) => Some(i),
        SqlValue::Real(f) if f.fract() == 0.0 => Some(f as i64),
        _ => None,
    }
}

pub struct SessionValues {
    text: [Option<String>; 7],
    real: [Option<f64>; 2],
    int: [Option<i64>; 5],
}

impl SessionValues {
    pub fn read(row: &rusqlite::Row<'_>) -> rusqlite::Result<SessionValues> {
        let t = |i: usize| -> rusqlite::Result<Option<String>> { Ok(text(row.get(i)?)) };
        let r = |i: usize| -> rusqlite::Result<Option<f64>> { Ok(real(row.get(i)?)) };
        let n = |i: usize| -> rusqlite::Result<Option<i64>> { Ok(int(row.get(i)?)) };
        Ok(SessionValues {
            // id, source, user_id, model, parent_session_id, end_reason, title
            text: [t(0)?, t(1)?, t(2)?, t(3)?, t(4)?, t(7)?, t(12)?],
            real: [r(5)?, r(6)?],
            // message_count, tool_call_count, input_tokens, output_tokens, archived
            int: [n(8)?, n(9)?, n(10)?, n(11)?, n(13)?],
        })
    }

    pub fn params(&self) -> [&(dyn ToSql + Sync); 14] {
        [
            &self.text[0],
            &self.text[1],
            &self.text[2],
            &self.text[3],
            &self.text[4],
            &self.real[0],
            &self.real[1],
            &self.text[5],
            &self.int[0],
            &self.int[1],
            &self.int[2],
            &self.int[3],
            &self.text[6],
            &self.int[4],
        ]
    }
}

pub struct MessageValues {
    id: i64,
    session_id: Option<String>,
    source: Option<String>,
    role: Option<String>,
    content: Option<String>,
    content_json: bool,
    tool_call_id: Option<String>,
    tool_calls: Option<String>,
    tool_name: Option<String>,
    timestamp: Option<f64>,
    active: Option<i64>,
    compacted: Option<i64>,
    words: String,
    cjk: Option<String>,
    changed: bool,
}

impl MessageValues {
    pub fn read(row: &rusqlite::Row<'_>, changed: bool) -> rusqlite::Result<MessageValues> {
        let raw_content: SqlValue = row.get(3)?;
        let tool_calls = text(row.get(5)?);
        let tool_name = text(row.get(6)?);
        // The indexed text, as upstream's triggers build it (content, tool name, tool calls).
        let raw_text = match &raw_content {
            SqlValue::Text(s) => s.clone(),
            SqlValue::Null => String::new(),
            other => crate::recall::store::sql_text(other),
        };
        let indexed = format!(
            "{raw_text} {} {}",
            tool_name.as_deref().unwrap_or(""),
            tool_calls.as_deref().unwrap_or("")
        );
        let content_json = matches!(&raw_content, SqlValue::Text(t) if t.starts_with(JSON_PREFIX));
        let content = if content_json {
            Some(raw_text[JSON_PREFIX.len()..].replace('\0', "\u{FFFD}"))
        } else {
            text(raw_content)
        };
        Ok(MessageValues {
            id: row.get(0)?,
            session_id: text(row.get(1)?),
            source: text(row.get(10)?),
            role: text(row.get(2)?),
            content,
            content_json,
            tool_call_id: text(row.get(4)?),
            tool_calls,
            tool_name,
            timestamp: real(row.get(7)?),
            active: int(row.get(8)?),
            compacted: int(row.get(9)?),
            words: words::document(&indexed),
            cjk: words::cjk_document(&indexed),
            changed,
        })
    }

    pub fn params(&self) -> [&(dyn ToSql + Sync); 15] {
        [
            &self.id,
            &self.session_id,
            &self.source,
            &self.role,
            &self.content,
            &self.content_json,
            &self.tool_call_id,
            &self.tool_calls,
            &self.tool_name,
            &self.timestamp,
            &self.active,
            &self.compacted,
            &self.words,
            &self.cjk,
            &self.changed,
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_content_loses_its_prefix_and_nul_becomes_a_replacement_character() {
        let conn = rusqlite::Connection::open_in_memory().expect("sqlite");
        conn.execute_batch(
            "CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT);
             CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT, role TEXT,
                 content TEXT, tool_call_id TEXT, tool_calls TEXT, tool_name TEXT,
                 timestamp REAL, active INTEGER, compacted INTEGER);
             INSERT INTO sessions VALUES ('s1', 'cli');
             INSERT INTO messages VALUES (1, 's1', 'user', char(0) || 'json:[{\"type\": \"text\"}]',
                 NULL, NULL, 'read_file', 5, 1, 0);
             INSERT INTO messages VALUES (2, 's1', 'user', 'a' || char(0) || 'b 数据库',
                 NULL, NULL, NULL, 6, 0, 1);",
        )
        .expect("rows");
        let mut stmt = conn
            .prepare(&format!(
                "SELECT {MESSAGE_COLUMNS} FROM {MESSAGE_FROM} ORDER BY m.id"
            ))
            .expect("select");
        let rows: Vec<MessageValues> = stmt
            .query_map([], |r| MessageValues::read(r, false))
            .expect("query")
            .collect::<rusqlite::Result<_>>()
            .expect("read");
        assert_eq!(rows[0].content.as_deref(), Some("[{\"type\": \"text\"}]"));
        assert!(rows[0].content_json);
        assert_eq!(rows[0].source.as_deref(), Some("cli"));
        assert_eq!(rows[0].words, "json type text read file");
        assert_eq!(rows[0].cjk, None);
        assert_eq!(rows[1].content.as_deref(), Some("a\u{FFFD}b 数据库"));
        assert!(!rows[1].content_json);
        assert_eq!((rows[1].active, rows[1].compacted), (Some(0), Some(1)));
        assert_eq!(rows[1].cjk.as_deref(), Some("数据 据库 库"));
    }
}
