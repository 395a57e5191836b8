//! Turning ingest lines into rows, with every value in the form Python Hermes stores it
//! (reference `recall` §2.2, §7 "Writing"): `tool_calls` as `json.dumps` text, multimodal
//! content behind the `"\x00json:"` prefix, `active` set explicitly, REAL timestamps.
//!
//! Two line shapes are accepted: a session object carrying a `messages` array (what
//! `hermes sessions export` and `hermes-index export` write), and a single message carrying
//! `session_id` and `role`, whose session is created from the line's `source` and any
//! `session_<column>` fields (the shape of the reference benchmark's corpus dump).

use std::collections::HashSet;

use rusqlite::types::Value as Sql;
use serde_json::{Map, Value};

use crate::io::pyjson::{self, Dumps};

/// The prefix Python puts before JSON-encoded (multimodal) content.
pub const CONTENT_JSON_PREFIX: &str = "\x00json:";

/// `json.dumps(value)` with Python's defaults: `", "`/`": "`, ASCII only, keys in order.
const PY_DUMPS: Dumps = Dumps {
    indent: None,
    ensure_ascii: true,
    sort_keys: false,
};

/// The live tables' column names, so values for columns a newer Hermes added are kept and
/// keys that are not columns (`last_active`, `segments`, …) are ignored.
#[derive(Debug, Clone, Default)]
pub struct Columns {
    pub sessions: HashSet<String>,
    pub messages: HashSet<String>,
}

/// A session row to create or enrich.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionRow {
    pub id: String,
    /// Columns to set, in input order (never `id`, `parent_session_id` or the counters).
    pub columns: Vec<(String, Sql)>,
    pub parent: Option<String>,
    pub message_count: Option<i64>,
    pub tool_call_count: Option<i64>,
    /// `source` when the line gave none: `import` for session objects (as Python's import
    /// does), `cli` for message lines (the CLI contract).
    pub default_source: &'static str,
    /// `started_at` when the line gave none (the first message's timestamp, else now).
    pub fallback_started_at: Option<f64>,
}

impl SessionRow {
    pub fn column(&self, name: &str) -> Option<&Sql> {
        self.columns.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }
}

/// A message row to insert.
#[derive(Debug, Clone, PartialEq)]
pub struct MessageRow {
    pub line: usize,
    /// The id it had where it was exported; kept when free (see ingest).
    pub id: Option<i64>,
    pub role: String,
    /// Stored content (after encoding); part of the duplicate key.
    pub content: Sql,
    /// `None` when the line had no timestamp: ingest's running clock fills it.
    pub timestamp: Option<f64>,
    /// Every other column to set, in a fixed order per input shape.
    pub columns: Vec<(String, Sql)>,
    /// How many tool calls this message adds to its session's `tool_call_count`.
    pub tool_calls: i64,
    /// Its `messages_fts_cjk` document, when it holds CJK letters.
    pub cjk: Option<String>,
}

/// One parsed line.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    pub line: usize,
    pub session: SessionRow,
    pub messages: Vec<MessageRow>,
    /// Whether the line was a session object (its counters describe the whole session).
    pub is_session_object: bool,
}

/// Parses one JSONL value into an [`Item`], or says what is wrong with it.
pub fn parse_line(line: usize, value: Value, columns: &Columns) -> Result<Item, String> {
    let Value::Object(mut object) = value else {
        return Err("expected a JSON object (a session with `messages`, or a message)".into());
    };
    if object.contains_key("messages") {
        parse_session_object(line, object, columns)
    } else if object.contains_key("role") && object.contains_key("session_id") {
        let session = session_from_message_line(&mut object, columns)?;
        let message = parse_message(line, object, columns).map_err(|e| format!("message: {e}"))?;
        let mut session = session;
        session.fallback_started_at = message.timestamp;
        Ok(Item {
            line,
            session,
            messages: vec![message],
            is_session_object: false,
        })
    } else {
        Err(
            "expected a session object with `messages`, or a message with `session_id` and `role`"
                .into(),
        )
    }
}

fn parse_session_object(
    line: usize,
    mut object: Map<String, Value>,
    columns: &Columns,
) -> Result<Item, String> {
    let messages = match object.remove("messages") {
        Some(Value::Array(items)) => items,
        Some(Value::Null) | None => Vec::new(),
        Some(_) => return Err("`messages` must be a list".into()),
    };
    let id = session_id(object.remove("id"), "id")?;
    let mut session = SessionRow {
        id,
        columns: Vec::new(),
        parent: None,
        message_count: None,
        tool_call_count: None,
        default_source: "import",
        fallback_started_at: None,
    };
    for (key, value) in object {
        set_session_field(&mut session, &key, value, columns)?;
    }
    let mut rows = Vec::with_capacity(messages.len());
    for (i, message) in messages.into_iter().enumerate() {
        let Value::Object(message) = message else {
            return Err(format!("messages[{i}] must be an object"));
        };
        rows.push(
            parse_message(line, message, columns).map_err(|e| format!("messages[{i}]: {e}"))?,
        );
    }
    session.fallback_started_at = rows.iter().find_map(|m| m.timestamp);
    Ok(Item {
        line,
        session,
        messages: rows,
        is_session_object: true,
    })
}

fn session_id(value: Option<Value>, field: &str) -> Result<String, String> {
    match value {
        // session_search reads `profile/id`: an id with a slash could never be read back.
        Some(Value::String(s)) if s.contains('/') => {
            Err(format!("`{field}` must not contain '/' (got {s:?})"))
        }
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.trim().to_string()),
        _ => Err(format!("`{field}` must be a non-empty string")),
    }
}

/// The session of a message line: `session_id`, `source`, and `session_<column>` fields.
fn session_from_message_line(
    object: &mut Map<String, Value>,
    columns: &Columns,
) -> Result<SessionRow, String> {
    let id = session_id(object.remove("session_id"), "session_id")?;
    let mut session = SessionRow {
        id,
        columns: Vec::new(),
        parent: None,
        message_count: None,
        tool_call_count: None,
        default_source: "cli",
        fallback_started_at: None,
    };
    let source = object.remove("source");
    let keys: Vec<String> = object
        .keys()
        .filter(|k| k.starts_with("session_"))
        .cloned()
        .collect();
    for key in keys {
        let Some(value) = object.remove(&key) else {
            continue;
        };
        let column = &key["session_".len()..];
        // A session's own counters are not a message line's to set.
        if column == "message_count" || column == "tool_call_count" || column == "id" {
            continue;
        }
        set_session_field(&mut session, column, value, columns)?;
    }
    if session.column("source").is_none()
        && let Some(source) = source
    {
        set_session_field(&mut session, "source", source, columns)?;
    }
    Ok(session)
}

fn set_session_field(
    session: &mut SessionRow,
    key: &str,
    value: Value,
    columns: &Columns,
) -> Result<(), String> {
    match key {
        "id" => {}
        "parent_session_id" => {
            session.parent = match value {
                Value::Null => None,
                Value::String(s) if s.trim().is_empty() => None,
                Value::String(s) => Some(s.trim().to_string()),
                _ => return Err("`parent_session_id` must be a string".into()),
            }
        }
        "message_count" | "tool_call_count" => {
            let n = match value {
                Value::Null => None,
                Value::Number(n) => n.as_i64().or_else(|| n.as_f64().map(|f| f as i64)),
                _ => return Err(format!("`{key}` must be an integer")),
            };
            if key == "message_count" {
                session.message_count = n;
            } else {
                session.tool_call_count = n;
            }
        }
        "source" => match value {
            Value::String(s) if !s.is_empty() => session.columns.push((key.into(), Sql::Text(s))),
            Value::Null => {}
            _ => return Err("`source` must be a non-empty string".into()),
        },
        "started_at" | "ended_at" => {
            let v = real(&value).ok_or_else(|| format!("`{key}` must be a number"))?;
            if let Some(v) = v {
                session.columns.push((key.into(), Sql::Real(v)));
            }
        }
        "model_config" => {
            let stored = match value {
                Value::Null => Sql::Null,
                Value::Object(_) => Sql::Text(pyjson::dumps(&value, PY_DUMPS)),
                // Python's readers run json_extract over it: invalid JSON would break them.
                Value::String(s) => match serde_json::from_str::<Value>(&s) {
                    Ok(Value::Object(_)) => Sql::Text(s),
                    _ => return Err("`model_config` must be a JSON object".into()),
                },
                _ => return Err("`model_config` must be a JSON object".into()),
            };
            session.columns.push((key.into(), stored));
        }
        _ if columns.sessions.contains(key) => session.columns.push((key.into(), generic(value))),
        _ => {}
    }
    Ok(())
}

/// One message object (from a session's `messages` or a whole message line).
fn parse_message(
    line: usize,
    mut object: Map<String, Value>,
    columns: &Columns,
) -> Result<MessageRow, String> {
    let role = match object.remove("role") {
        Some(Value::String(s)) if !s.is_empty() => s,
        _ => return Err("`role` must be a non-empty string".into()),
    };
    let id = match object.remove("id") {
        Some(Value::Number(n)) => n.as_i64().filter(|&i| i > 0),
        _ => None,
    };
    let content = match object.remove("content") {
        None | Some(Value::Null) => Sql::Null,
        Some(Value::String(s)) => Sql::Text(s),
        Some(v @ (Value::Array(_) | Value::Object(_))) => Sql::Text(format!(
            "{CONTENT_JSON_PREFIX}{}",
            pyjson::dumps(&v, PY_DUMPS)
        )),
        Some(v) => generic(v),
    };
    let timestamp = real(&object.remove("timestamp").unwrap_or(Value::Null))
        .ok_or("`timestamp` must be a number")?;
    let (tool_calls_text, tool_calls) = tool_calls(object.remove("tool_calls"))?;
    let tool_name = text_or_null(object.remove("tool_name"), "tool_name")?;
    if !object.contains_key("platform_message_id")
        && let Some(alias) = object.remove("message_id")
    {
        object.insert("platform_message_id".into(), alias);
    }
    let mut rest = Vec::new();
    rest.push((
        "tool_calls".to_string(),
        tool_calls_text.clone().map_or(Sql::Null, Sql::Text),
    ));
    rest.push((
        "tool_name".to_string(),
        tool_name.clone().map_or(Sql::Null, Sql::Text),
    ));
    let mut active = Sql::Integer(1);
    let mut compacted = Sql::Integer(0);
    let mut observed = Sql::Integer(0);
    for (key, value) in object {
        match key.as_str() {
            "session_id" => {}
            "active" => active = flag(&value, 1).ok_or("`active` must be 0, 1 or a boolean")?,
            "compacted" => {
                compacted = flag(&value, 0).ok_or("`compacted` must be 0, 1 or a boolean")?
            }
            "observed" => {
                observed = flag(&value, 0).ok_or("`observed` must be 0, 1 or a boolean")?
            }
            "reasoning_details" | "codex_reasoning_items" | "codex_message_items" => {
                let stored = match value {
                    Value::String(s) if !s.is_empty() => Sql::Text(s),
                    v if crate::pytext::truthy(&v) => Sql::Text(pyjson::dumps(&v, PY_DUMPS)),
                    _ => Sql::Null,
                };
                rest.push((key, stored));
            }
            "token_count" => match value {
                Value::Null => rest.push((key, Sql::Null)),
                Value::Number(n) if n.as_i64().is_some() => {
                    rest.push((key, Sql::Integer(n.as_i64().unwrap_or(0))))
                }
                _ => return Err("`token_count` must be an integer".into()),
            },
            _ if columns.messages.contains(&key) => rest.push((key, generic(value))),
            _ => {}
        }
    }
    rest.push(("active".into(), active));
    rest.push(("compacted".into(), compacted));
    rest.push(("observed".into(), observed));
    let cjk = super::cjk_index::text_document(
        match &content {
            Sql::Text(s) => Some(s.as_str()),
            _ => None,
        },
        tool_name.as_deref(),
        tool_calls_text.as_deref(),
    );
    Ok(MessageRow {
        line,
        id,
        role,
        content,
        timestamp,
        columns: rest,
        tool_calls,
        cjk,
    })
}

/// `tool_calls` as Python stores it, and how many calls it counts: a non-empty list or
/// object becomes `json.dumps` text; a string is taken as already-stored text; anything
/// empty is NULL.
fn tool_calls(value: Option<Value>) -> Result<(Option<String>, i64), String> {
    match value {
        None | Some(Value::Null) | Some(Value::Bool(false)) => Ok((None, 0)),
        Some(Value::Array(items)) if items.is_empty() => Ok((None, 0)),
        Some(Value::Object(map)) if map.is_empty() => Ok((None, 0)),
        Some(v @ Value::Array(_)) => {
            let n = v.as_array().map_or(0, Vec::len) as i64;
            Ok((Some(pyjson::dumps(&v, PY_DUMPS)), n))
        }
        Some(v @ Value::Object(_)) => Ok((Some(pyjson::dumps(&v, PY_DUMPS)), 1)),
        Some(Value::String(s)) if s.is_empty() => Ok((None, 0)),
        Some(Value::String(s)) => {
            let n = match serde_json::from_str::<Value>(&s) {
                Ok(Value::Array(items)) => items.len() as i64,
                _ => 1,
            };
            Ok((Some(s), n))
        }
        Some(_) => Err("`tool_calls` must be a list".into()),
    }
}

fn text_or_null(value: Option<Value>, field: &str) -> Result<Option<String>, String> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(format!("`{field}` must be a string")),
    }
}

/// A number, a numeric string, or null (`Some(None)`); `None` for anything else.
fn real(value: &Value) -> Option<Option<f64>> {
    match value {
        Value::Null => Some(None),
        Value::Number(n) => n.as_f64().map(Some),
        Value::String(s) => s
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|f| f.is_finite())
            .map(Some),
        _ => None,
    }
}

fn flag(value: &Value, default: i64) -> Option<Sql> {
    match value {
        Value::Null => Some(Sql::Integer(default)),
        Value::Bool(b) => Some(Sql::Integer(i64::from(*b))),
        Value::Number(n) => n.as_i64().map(Sql::Integer),
        _ => None,
    }
}

/// Any other column: JSON scalars as SQLite values, lists and objects as `json.dumps` text.
fn generic(value: Value) -> Sql {
    match value {
        Value::Null => Sql::Null,
        Value::Bool(b) => Sql::Integer(i64::from(b)),
        Value::Number(n) => match n.as_i64() {
            Some(i) => Sql::Integer(i),
            None => n.as_f64().map_or(Sql::Null, Sql::Real),
        },
        Value::String(s) => Sql::Text(s),
        v @ (Value::Array(_) | Value::Object(_)) => Sql::Text(pyjson::dumps(&v, PY_DUMPS)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn columns() -> Columns {
        let conn = rusqlite::Connection::open_in_memory().expect("db");
        for sql in &crate::sessions::schema::TABLES[..crate::sessions::schema::TABLE_COUNT] {
            conn.execute_batch(sql).expect("ddl");
        }
        let names = |t: &str| -> HashSet<String> {
            let mut stmt = conn
                .prepare(&format!("PRAGMA table_info({t})"))
                .expect("pragma");
            stmt.query_map([], |r| r.get(1))
                .expect("q")
                .map(|r| r.expect("r"))
                .collect()
        };
        Columns {
            sessions: names("sessions"),
            messages: names("messages"),
        }
    }

    fn col<'a>(m: &'a MessageRow, name: &str) -> &'a Sql {
        m.columns
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v)
            .expect(name)
    }

    #[test]
    fn tool_calls_are_stored_as_python_dumps_them() {
        let line = json!({"session_id": "s", "role": "assistant", "content": "",
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"数\"}"}}],
            "timestamp": 1700000001});
        let item = parse_line(1, line, &columns()).expect("parse");
        let m = &item.messages[0];
        assert_eq!(
            col(m, "tool_calls"),
            &Sql::Text(r#"[{"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"\u6570\"}"}}]"#.into())
        );
        assert_eq!(m.tool_calls, 1);
        assert_eq!(m.timestamp, Some(1700000001.0));
        assert_eq!(m.cjk, None, "escaped CJK in tool calls is not CJK text");
        assert_eq!(item.session.default_source, "cli");
        assert_eq!(item.session.fallback_started_at, Some(1700000001.0));
    }

    #[test]
    fn multimodal_content_gets_the_json_prefix() {
        let line = json!({"id": "s1", "source": "cli", "messages": [
            {"role": "user", "content": [{"type": "text", "text": "héllo"}], "timestamp": 2.5}
        ]});
        let item = parse_line(3, line, &columns()).expect("parse");
        assert_eq!(
            item.messages[0].content,
            Sql::Text("\u{0}json:[{\"type\": \"text\", \"text\": \"h\\u00e9llo\"}]".into())
        );
        assert!(item.is_session_object);
        assert_eq!(
            item.session.column("source"),
            Some(&Sql::Text("cli".into()))
        );
    }

    #[test]
    fn export_lines_keep_columns_and_ignore_computed_keys() {
        let line = json!({"id": "s1", "source": "telegram", "model_config": "{\"_delegate_from\": \"r\"}",
        "parent_session_id": "r", "started_at": 10.0, "message_count": 7, "tool_call_count": 2,
        "last_active": 99.0, "archived": 1, "title": "T", "messages": [
            {"id": 41, "session_id": "s1", "role": "user", "content": "数据库", "timestamp": 11.0,
             "active": 0, "compacted": 1, "observed": 0, "token_count": null}
        ]});
        let item = parse_line(1, line, &columns()).expect("parse");
        let s = &item.session;
        assert_eq!(s.parent.as_deref(), Some("r"));
        assert_eq!((s.message_count, s.tool_call_count), (Some(7), Some(2)));
        assert!(s.column("last_active").is_none());
        assert_eq!(s.column("archived"), Some(&Sql::Integer(1)));
        let m = &item.messages[0];
        assert_eq!(m.id, Some(41));
        assert_eq!(col(m, "active"), &Sql::Integer(0));
        assert_eq!(col(m, "compacted"), &Sql::Integer(1));
        assert_eq!(m.cjk.as_deref(), Some("数据 据库 库"));
    }

    #[test]
    fn message_lines_carry_their_session_fields() {
        let line = json!({"session_id": "c1", "session_source": "cron", "session_parent_session_id": null,
            "session_title": "Nightly", "session_started_at": 5, "seq": 3, "role": "user", "content": "x",
            "tool_calls": "[{\"id\": \"a\"}, {\"id\": \"b\"}]", "timestamp": 6});
        let item = parse_line(1, line, &columns()).expect("parse");
        assert_eq!(
            item.session.column("source"),
            Some(&Sql::Text("cron".into()))
        );
        assert_eq!(
            item.session.column("title"),
            Some(&Sql::Text("Nightly".into()))
        );
        assert_eq!(item.session.column("started_at"), Some(&Sql::Real(5.0)));
        assert_eq!(item.messages[0].tool_calls, 2);
    }

    #[test]
    fn floats_round_trip_exactly_as_python_wrote_them() {
        // serde_json's default float parser can be one ulp off; Python's repr round-trips.
        let line: Value = serde_json::from_str(
            r#"{"id": "s", "started_at": 1795985938.3311357, "messages": []}"#,
        )
        .expect("json");
        let item = parse_line(1, line, &columns()).expect("parse");
        let Some(Sql::Real(f)) = item.session.column("started_at") else {
            panic!("started_at");
        };
        assert_eq!(crate::io::pyjson::py_float_repr(*f), "1795985938.3311357");
    }

    #[test]
    fn bad_lines_say_what_is_wrong() {
        let cols = columns();
        let err = |v: Value| parse_line(1, v, &cols).expect_err("bad");
        assert_eq!(
            err(json!({"session_id": "work/s1", "role": "user"})),
            "`session_id` must not contain '/' (got \"work/s1\")"
        );
        assert_eq!(
            err(json!([1])),
            "expected a JSON object (a session with `messages`, or a message)"
        );
        assert_eq!(
            err(json!({"id": "", "messages": []})),
            "`id` must be a non-empty string"
        );
        assert_eq!(
            err(json!({"id": "s", "messages": [{"content": "x"}]})),
            "messages[0]: `role` must be a non-empty string"
        );
        assert_eq!(
            err(json!({"id": "s", "messages": {}})),
            "`messages` must be a list"
        );
        assert_eq!(
            err(json!({"id": "s", "model_config": "nope", "messages": []})),
            "`model_config` must be a JSON object"
        );
        assert_eq!(
            err(json!({"session_id": "s", "role": "user", "timestamp": "soon"})),
            "message: `timestamp` must be a number"
        );
        assert_eq!(
            err(json!({"hello": 1})),
            "expected a session object with `messages`, or a message with `session_id` and `role`"
        );
    }
}
