//! The write paths of a live conversation (reference `recall` §2.3, `agent` §6): the session
//! row, one `append_message` per message as it happens, usage after each model call, the
//! end and the title, in-place compaction, and reading a transcript back for a resume. Rows,
//! columns and JSON shapes are Python Hermes's, so either agent can go on with a session the
//! other started.

use rusqlite::{OptionalExtension, params};
use serde_json::Value;

use super::db::Db;
use super::error::Result;
use crate::llm::Usage;
use crate::llm::message::{Message, Role};

/// The columns a new session row is created with.
#[derive(Debug, Clone, Default)]
pub struct NewSession<'a> {
    pub id: &'a str,
    pub source: &'a str,
    pub model: &'a str,
    pub model_config: Option<&'a str>,
    pub system_prompt: Option<&'a str>,
    pub parent_session_id: Option<&'a str>,
    pub cwd: Option<&'a str>,
    pub started_at: f64,
}

/// `create_session`: an UPSERT that fills only what is still NULL and never changes `source`.
pub fn create_session(db: &mut Db, s: &NewSession<'_>) -> Result<()> {
    let path = db.path().to_path_buf();
    db.write(|tx| {
        tx.execute(
            "INSERT INTO sessions (id, source, model, model_config, system_prompt, \
             parent_session_id, cwd, started_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) \
             ON CONFLICT(id) DO UPDATE SET \
             model = COALESCE(sessions.model, excluded.model), \
             model_config = COALESCE(sessions.model_config, excluded.model_config), \
             system_prompt = COALESCE(sessions.system_prompt, excluded.system_prompt), \
             parent_session_id = COALESCE(sessions.parent_session_id, excluded.parent_session_id), \
             cwd = COALESCE(sessions.cwd, excluded.cwd)",
            params![
                s.id,
                s.source,
                s.model,
                s.model_config,
                s.system_prompt,
                s.parent_session_id,
                s.cwd,
                s.started_at
            ],
        )
        .map_err(|e| super::Error::sql(&path, "creating the session", e))?;
        Ok(())
    })
}

pub fn session_exists(db: &Db, id: &str) -> Result<bool> {
    db.conn()
        .query_row("SELECT 1 FROM sessions WHERE id = ?1", [id], |_| Ok(()))
        .optional()
        .map(|r| r.is_some())
        .map_err(|e| db.err("looking up the session", e))
}

/// `append_message`: the row (active) and the counters, in one transaction. Returns the id.
pub fn append_message(db: &mut Db, session_id: &str, m: &Message, timestamp: f64) -> Result<i64> {
    let tool_calls = m.stored_tool_calls();
    let calls = m.tool_calls.len() as i64;
    let path = db.path().to_path_buf();
    db.write(|tx| {
        tx.execute(
            "INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, \
             tool_name, timestamp, finish_reason, reasoning, reasoning_content, api_content, \
             active) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, 1)",
            params![
                session_id,
                m.role_str(),
                m.content,
                m.tool_call_id,
                tool_calls,
                m.tool_name,
                m.timestamp.unwrap_or(timestamp),
                m.finish_reason,
                m.reasoning,
                m.reasoning,
                m.api_content,
            ],
        )
        .map_err(|e| super::Error::sql(&path, "storing a message", e))?;
        let id = tx.last_insert_rowid();
        tx.execute(
            "UPDATE sessions SET message_count = message_count + 1, \
             tool_call_count = tool_call_count + ?2 WHERE id = ?1",
            params![session_id, calls],
        )
        .map_err(|e| super::Error::sql(&path, "counting a message", e))?;
        Ok(id)
    })
}

/// What one model call cost, added to the session row and its per-model usage row.
pub struct Billing<'a> {
    pub model: &'a str,
    pub provider: &'a str,
    pub base_url: &'a str,
    pub at: f64,
}

pub fn add_usage(db: &mut Db, session_id: &str, u: &Usage, b: &Billing<'_>) -> Result<()> {
    let path = db.path().to_path_buf();
    db.write(|tx| {
        let e = |e| super::Error::sql(&path, "recording token usage", e);
        tx.execute(
            "UPDATE sessions SET input_tokens = input_tokens + ?2, \
             output_tokens = output_tokens + ?3, cache_read_tokens = cache_read_tokens + ?4, \
             cache_write_tokens = cache_write_tokens + ?5, \
             reasoning_tokens = reasoning_tokens + ?6, api_call_count = api_call_count + 1, \
             billing_provider = COALESCE(billing_provider, ?7), \
             billing_base_url = COALESCE(billing_base_url, ?8), \
             estimated_cost_usd = COALESCE(estimated_cost_usd, 0) + 0.0, \
             cost_status = COALESCE(cost_status, 'unknown'), \
             cost_source = COALESCE(cost_source, 'none') WHERE id = ?1",
            params![
                session_id,
                u.input as i64,
                u.output as i64,
                u.cache_read as i64,
                u.cache_write as i64,
                u.reasoning as i64,
                b.provider,
                b.base_url
            ],
        )
        .map_err(e)?;
        tx.execute(
            "INSERT INTO session_model_usage (session_id, model, billing_provider, \
             billing_base_url, api_call_count, input_tokens, output_tokens, cache_read_tokens, \
             cache_write_tokens, reasoning_tokens, cost_status, cost_source, first_seen, last_seen) \
             VALUES (?1, ?2, ?3, ?4, 1, ?5, ?6, ?7, ?8, ?9, 'unknown', 'none', ?10, ?10) \
             ON CONFLICT(session_id, model, billing_provider, billing_base_url, billing_mode, task) \
             DO UPDATE SET api_call_count = api_call_count + 1, \
             input_tokens = input_tokens + excluded.input_tokens, \
             output_tokens = output_tokens + excluded.output_tokens, \
             cache_read_tokens = cache_read_tokens + excluded.cache_read_tokens, \
             cache_write_tokens = cache_write_tokens + excluded.cache_write_tokens, \
             reasoning_tokens = reasoning_tokens + excluded.reasoning_tokens, \
             last_seen = excluded.last_seen",
            params![
                session_id,
                b.model,
                b.provider,
                b.base_url,
                u.input as i64,
                u.output as i64,
                u.cache_read as i64,
                u.cache_write as i64,
                u.reasoning as i64,
                b.at
            ],
        )
        .map_err(e)?;
        Ok(())
    })
}

/// `end_session`: the first reason written wins.
pub fn end_session(db: &mut Db, session_id: &str, reason: &str, at: f64) -> Result<()> {
    let path = db.path().to_path_buf();
    db.write(|tx| {
        tx.execute(
            "UPDATE sessions SET ended_at = ?2, end_reason = ?3 WHERE id = ?1 AND ended_at IS NULL",
            params![session_id, at, reason],
        )
        .map_err(|e| super::Error::sql(&path, "ending the session", e))?;
        Ok(())
    })
}

/// A resumed session is live again.
pub fn reopen_session(db: &mut Db, session_id: &str) -> Result<()> {
    let path = db.path().to_path_buf();
    db.write(|tx| {
        tx.execute(
            "UPDATE sessions SET ended_at = NULL, end_reason = NULL WHERE id = ?1",
            [session_id],
        )
        .map_err(|e| super::Error::sql(&path, "reopening the session", e))?;
        Ok(())
    })
}

pub fn set_system_prompt(db: &mut Db, session_id: &str, prompt: &str) -> Result<()> {
    let path = db.path().to_path_buf();
    db.write(|tx| {
        tx.execute(
            "UPDATE sessions SET system_prompt = ?2 WHERE id = ?1",
            params![session_id, prompt],
        )
        .map_err(|e| super::Error::sql(&path, "storing the system prompt", e))?;
        Ok(())
    })
}

/// Sets the title when the session has none, made unique across sessions with ` #2`, ` #3`…
/// (titles are unique in the schema). Returns the title stored, if any.
pub fn set_title_if_empty(db: &mut Db, session_id: &str, wanted: &str) -> Result<Option<String>> {
    let base = sanitize_title(wanted);
    if base.is_empty() {
        return Ok(None);
    }
    let path = db.path().to_path_buf();
    db.write(|tx| {
        let e = |e| super::Error::sql(&path, "titling the session", e);
        let current: Option<Option<String>> = tx
            .query_row(
                "SELECT title FROM sessions WHERE id = ?1",
                [session_id],
                |r| r.get(0),
            )
            .optional()
            .map_err(e)?;
        if !matches!(current, Some(None)) {
            return Ok(None);
        }
        let mut title = base.clone();
        let mut n = 1;
        while tx
            .query_row("SELECT 1 FROM sessions WHERE title = ?1", [&title], |_| {
                Ok(())
            })
            .optional()
            .map_err(e)?
            .is_some()
        {
            n += 1;
            title = format!("{base} #{n}");
        }
        tx.execute(
            "UPDATE sessions SET title = ?2 WHERE id = ?1 AND title IS NULL",
            params![session_id, title],
        )
        .map_err(e)?;
        Ok(Some(title))
    })
}

/// Python's `sanitize_title`: no control or bidi characters, whitespace collapsed, at most
/// 100 characters.
pub fn sanitize_title(title: &str) -> String {
    let cleaned: String = title
        .chars()
        .map(|c| if c.is_control() || is_bidi(c) { ' ' } else { c })
        .collect();
    let collapsed = cleaned.split_whitespace().collect::<Vec<_>>().join(" ");
    collapsed.chars().take(100).collect()
}

fn is_bidi(c: char) -> bool {
    matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `archive_and_compact`: every active row becomes `active=0, compacted=1` (still searchable)
/// and `messages` are inserted as the new live transcript; the counters count live rows.
/// Returns the new rows' ids in order.
pub fn archive_and_compact(
    db: &mut Db,
    session_id: &str,
    messages: &[Message],
    now: f64,
) -> Result<Vec<i64>> {
    let path = db.path().to_path_buf();
    db.write(|tx| {
        let e = |e| super::Error::sql(&path, "compacting the session", e);
        tx.execute(
            "UPDATE messages SET active = 0, compacted = 1 WHERE session_id = ?1 AND active = 1",
            [session_id],
        )
        .map_err(e)?;
        let mut ids = Vec::with_capacity(messages.len());
        let mut clock = now;
        for m in messages {
            let ts = m.timestamp.unwrap_or(clock);
            tx.execute(
                "INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, \
                 tool_name, timestamp, finish_reason, reasoning, reasoning_content, active) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9, 1)",
                params![
                    session_id,
                    m.role_str(),
                    m.content,
                    m.tool_call_id,
                    m.stored_tool_calls(),
                    m.tool_name,
                    ts,
                    m.finish_reason,
                    m.reasoning,
                ],
            )
            .map_err(e)?;
            ids.push(tx.last_insert_rowid());
            clock = (clock + 1e-6).max(ts + 1e-6);
        }
        tx.execute(
            "UPDATE sessions SET message_count = (SELECT COUNT(*) FROM messages \
             WHERE session_id = ?1 AND active = 1), tool_call_count = (SELECT COALESCE(SUM( \
             CASE WHEN tool_calls IS NULL OR tool_calls = '' THEN 0 \
             ELSE json_array_length(tool_calls) END), 0) FROM messages \
             WHERE session_id = ?1 AND active = 1) WHERE id = ?1",
            [session_id],
        )
        .map_err(e)?;
        Ok(ids)
    })
}

/// The live transcript of a session, as a resume loads it: active rows by id, alternation
/// repaired (consecutive assistant texts merged, stray results dropped, consecutive user
/// messages merged).
pub fn load_conversation(db: &Db, session_id: &str) -> Result<Vec<Message>> {
    let e = |e| db.err("reading the session's messages", e);
    let mut stmt = db
        .conn()
        .prepare(
            "SELECT id, role, content, tool_call_id, tool_calls, tool_name, timestamp, \
             finish_reason, reasoning, reasoning_content, api_content FROM messages \
             WHERE session_id = ?1 AND active = 1 ORDER BY id",
        )
        .map_err(e)?;
    let rows = stmt
        .query_map([session_id], |r| {
            let role: String = r.get(1)?;
            let mut content: Option<String> = r.get(2)?;
            if let Some(c) = content.as_mut()
                && let Some(json) = c.strip_prefix(super::record::CONTENT_JSON_PREFIX)
            {
                *c = serde_json::from_str::<Value>(json)
                    .map(|v| crate::llm::message::flatten_content(&v))
                    .unwrap_or_default();
            }
            let tool_calls: Option<String> = r.get(4)?;
            let tool_name: Option<String> = r.get(5)?;
            let reasoning: Option<String> = r.get(8)?;
            let reasoning_content: Option<String> = r.get(9)?;
            Ok((
                role,
                Message {
                    role: None,
                    content: content.unwrap_or_default(),
                    tool_calls: tool_calls
                        .as_deref()
                        .map(Message::parse_stored_tool_calls)
                        .unwrap_or_default(),
                    tool_call_id: r.get(3)?,
                    wire_name: tool_name.clone(),
                    tool_name,
                    reasoning: reasoning.or(reasoning_content),
                    finish_reason: r.get(7)?,
                    api_content: r.get(10)?,
                    timestamp: r.get(6)?,
                    stored_id: Some(r.get(0)?),
                },
            ))
        })
        .map_err(e)?;
    let mut out: Vec<Message> = Vec::new();
    let mut open_calls: Vec<String> = Vec::new();
    for row in rows {
        let (role, mut m) = row.map_err(e)?;
        let Some(role) = Role::parse(&role).filter(|r| *r != Role::System) else {
            continue;
        };
        m.role = Some(role);
        if role != Role::Tool {
            m.content = m.content.trim().to_string();
        }
        match role {
            Role::Tool => {
                let answers = m
                    .tool_call_id
                    .as_ref()
                    .and_then(|id| open_calls.iter().position(|c| c == id));
                match answers {
                    Some(i) => {
                        open_calls.remove(i);
                        if m.wire_name.is_none() {
                            m.wire_name = find_call_name(&out, m.tool_call_id.as_deref());
                        }
                        out.push(m);
                    }
                    None => continue,
                }
            }
            Role::Assistant => {
                if let Some(prev) = out.last_mut()
                    && prev.is(Role::Assistant)
                    && prev.tool_calls.is_empty()
                    && m.tool_calls.is_empty()
                {
                    if !m.content.is_empty() {
                        if !prev.content.is_empty() {
                            prev.content.push_str("\n\n");
                        }
                        prev.content.push_str(&m.content);
                    }
                    continue;
                }
                open_calls = m.tool_calls.iter().map(|c| c.id.clone()).collect();
                out.push(m);
            }
            Role::User => {
                if let Some(prev) = out.last_mut()
                    && prev.is(Role::User)
                {
                    prev.content.push_str("\n\n");
                    prev.content.push_str(&m.content);
                    continue;
                }
                out.push(m);
            }
            Role::System => {}
        }
    }
    Ok(out)
}

fn find_call_name(messages: &[Message], id: Option<&str>) -> Option<String> {
    let id = id?;
    messages
        .iter()
        .rev()
        .flat_map(|m| m.tool_calls.iter())
        .find(|c| c.id == id)
        .map(|c| c.name.clone())
}

/// `rewind_to_message`: hides the user message `target` and everything after it from the live
/// transcript (`active=0`, `compacted` stays 0: rewound, not summarised) and counts the rewind.
/// Returns how many rows were hidden.
pub fn rewind_to_message(db: &mut Db, session_id: &str, target: i64) -> Result<usize> {
    let path = db.path().to_path_buf();
    db.write(|tx| {
        let e = |e| super::Error::sql(&path, "rewinding the session", e);
        let n = tx
            .execute(
                "UPDATE messages SET active = 0 WHERE session_id = ?1 AND active = 1 AND id >= ?2",
                params![session_id, target],
            )
            .map_err(e)?;
        tx.execute(
            "UPDATE sessions SET rewind_count = rewind_count + 1, message_count = (SELECT COUNT(*) \
             FROM messages WHERE session_id = ?1 AND active = 1) WHERE id = ?1",
            [session_id],
        )
        .map_err(e)?;
        Ok(n)
    })
}

/// The session's token totals: input, output, cache read, cache write, reasoning, calls.
pub fn usage_totals(db: &Db, session_id: &str) -> Result<[i64; 6]> {
    db.conn()
        .query_row(
            "SELECT input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, \
             reasoning_tokens, api_call_count FROM sessions WHERE id = ?1",
            [session_id],
            |r| {
                Ok([
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                ])
            },
        )
        .optional()
        .map(|o| o.unwrap_or([0; 6]))
        .map_err(|e| db.err("reading the session's usage", e))
}

/// The session row's fields a resume needs.
#[derive(Debug, Clone)]
pub struct SessionHead {
    pub id: String,
    pub source: String,
    pub model: Option<String>,
    pub system_prompt: Option<String>,
    pub cwd: Option<String>,
    pub title: Option<String>,
    pub end_reason: Option<String>,
}

pub fn head(db: &Db, session_id: &str) -> Result<Option<SessionHead>> {
    db.conn()
        .query_row(
            "SELECT id, source, model, system_prompt, cwd, title, end_reason FROM sessions \
             WHERE id = ?1",
            [session_id],
            |r| {
                Ok(SessionHead {
                    id: r.get(0)?,
                    source: r.get(1)?,
                    model: r.get(2)?,
                    system_prompt: r.get(3)?,
                    cwd: r.get(4)?,
                    title: r.get(5)?,
                    end_reason: r.get(6)?,
                })
            },
        )
        .optional()
        .map_err(|e| db.err("reading the session", e))
}

/// `--resume ID|TITLE`: an exact id, the only id with that prefix, or the newest session with
/// that title; then down the compression chain to the session that holds the transcript.
pub fn resolve_resume(db: &Db, wanted: &str) -> Result<Option<String>> {
    let found = match super::export::resolve_session_id(db, wanted)? {
        Some(id) => Some(id),
        None => db
            .conn()
            .query_row(
                "SELECT id FROM sessions WHERE title = ?1 ORDER BY started_at DESC LIMIT 1",
                [wanted.trim()],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| db.err("looking up the title", e))?,
    };
    match found {
        Some(id) => compression_tip(db, &id).map(Some),
        None => Ok(None),
    }
}

/// The newest session of `source` (`--continue`), followed to its compression tip.
pub fn newest(db: &Db, source: &str) -> Result<Option<String>> {
    let id: Option<String> = db
        .conn()
        .query_row(
            "SELECT id FROM sessions WHERE source = ?1 AND parent_session_id IS NULL \
             ORDER BY started_at DESC, id DESC LIMIT 1",
            [source],
            |r| r.get(0),
        )
        .optional()
        .map_err(|e| db.err("finding the newest session", e))?;
    match id {
        Some(id) => compression_tip(db, &id).map(Some),
        None => Ok(None),
    }
}

/// Follows `end_reason='compression'` edges down to the live continuation (at most 100 hops).
pub fn compression_tip(db: &Db, id: &str) -> Result<String> {
    let mut current = id.to_string();
    for _ in 0..100 {
        let child: Option<String> = db
            .conn()
            .query_row(
                "SELECT c.id FROM sessions c JOIN sessions p ON c.parent_session_id = p.id \
                 WHERE p.id = ?1 AND p.end_reason = 'compression' \
                 ORDER BY c.started_at DESC LIMIT 1",
                [&current],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| db.err("following the compression chain", e))?;
        match child {
            Some(c) if c != current => current = c,
            _ => break,
        }
    }
    Ok(current)
}

/// Copies the live transcript of `from` into the session `to` (a fork).
pub fn copy_transcript(db: &mut Db, from: &str, to: &str, at: f64) -> Result<()> {
    for m in load_conversation(db, from)? {
        append_message(db, to, &m, at)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::ToolCall;

    fn store() -> (tempfile::TempDir, Db) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.db");
        let (db, _, _) = crate::sessions::open_for_write(&path, true, &|_| {}).unwrap();
        (dir, db)
    }

    fn new(id: &str) -> NewSession<'_> {
        NewSession {
            id,
            source: "cli",
            model: "m",
            started_at: 1.0,
            ..NewSession::default()
        }
    }

    #[test]
    fn appended_messages_count_and_read_back() {
        let (_d, mut db) = store();
        create_session(&mut db, &new("s1")).unwrap();
        let mut a = Message::assistant("");
        a.tool_calls.push(ToolCall {
            id: "call_1".into(),
            name: "terminal".into(),
            arguments: "{\"command\": \"echo hi\"}".into(),
        });
        let r = Message::tool_result(&a.tool_calls[0], true, "{\"output\": \"hi\"}");
        for m in [Message::user("  hi  "), a, r, Message::assistant("done")] {
            append_message(&mut db, "s1", &m, 2.0).unwrap();
        }
        let (count, calls): (i64, i64) = db
            .conn()
            .query_row(
                "SELECT message_count, tool_call_count FROM sessions WHERE id='s1'",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        assert_eq!((count, calls), (4, 1));
        let back = load_conversation(&db, "s1").unwrap();
        assert_eq!(back.len(), 4);
        assert_eq!(back[0].content, "hi");
        assert_eq!(back[2].wire_name.as_deref(), Some("terminal"));
        assert_eq!(
            back[1].tool_calls[0].arguments,
            "{\"command\": \"echo hi\"}"
        );
    }

    #[test]
    fn titles_are_unique_and_set_once() {
        let (_d, mut db) = store();
        create_session(&mut db, &new("a")).unwrap();
        create_session(&mut db, &new("b")).unwrap();
        assert_eq!(
            set_title_if_empty(&mut db, "a", "Greeting")
                .unwrap()
                .as_deref(),
            Some("Greeting")
        );
        assert_eq!(set_title_if_empty(&mut db, "a", "Other").unwrap(), None);
        assert_eq!(
            set_title_if_empty(&mut db, "b", "Greeting")
                .unwrap()
                .as_deref(),
            Some("Greeting #2")
        );
        assert_eq!(
            resolve_resume(&db, "Greeting #2").unwrap().as_deref(),
            Some("b")
        );
    }

    #[test]
    fn the_first_end_reason_wins() {
        let (_d, mut db) = store();
        create_session(&mut db, &new("a")).unwrap();
        end_session(&mut db, "a", "agent_close", 5.0).unwrap();
        end_session(&mut db, "a", "cli_close", 6.0).unwrap();
        assert_eq!(
            head(&db, "a").unwrap().unwrap().end_reason.as_deref(),
            Some("agent_close")
        );
    }

    #[test]
    fn compaction_keeps_old_rows_searchable_and_counts_live_ones() {
        let (_d, mut db) = store();
        create_session(&mut db, &new("a")).unwrap();
        for t in ["one", "two", "three"] {
            append_message(&mut db, "a", &Message::user(t), 2.0).unwrap();
        }
        archive_and_compact(&mut db, "a", &[Message::user("summary")], 3.0).unwrap();
        let rows: Vec<(String, i64, i64)> = db
            .conn()
            .prepare("SELECT content, active, compacted FROM messages ORDER BY id")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .map(|r| r.unwrap())
            .collect();
        assert_eq!(rows[0], ("one".to_string(), 0, 1));
        assert_eq!(rows[3], ("summary".to_string(), 1, 0));
        let count: i64 = db
            .conn()
            .query_row("SELECT message_count FROM sessions WHERE id='a'", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(count, 1);
    }
}
