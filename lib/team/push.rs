//! `hermes-index push --store URL`: one home's sessions and messages into the team store.
//!
//! 1. The home's identity ([`super::identity`]) and, in a short `state.db` write
//!    transaction, the change log's mark ([`super::changes::mark`]).
//! 2. In store transactions of at most [`CHUNK`] new message ids each: the home is
//!    registered (or found, its row locked) and its watermark read; messages above the
//!    watermark are copied (binary COPY) into a staging table and inserted with
//!    `ON CONFLICT DO NOTHING`, and the watermark moves in the same transaction. The first
//!    transaction also re-sends (upserts) or deletes the logged sessions and messages.
//! 3. The log entries sent are forgotten.
//!
//! So a repeated push sends nothing new, an interrupted one is taken up by the next from
//! its last committed chunk, and two runs from cron at once queue on the home's lock file
//! (and, across machines, on its row).

use std::path::Path;
use std::time::Instant;

use postgres::Transaction;
use postgres::binary_copy::BinaryCopyInWriter;
use postgres::types::{ToSql, Type};
use rusqlite::{Connection, OptionalExtension};
use serde::Serialize;

use super::changes::{self, Mark};
use super::connect::Store;
use super::error::{Error, Result, query};
use super::identity::{self, Origin};
use super::rows::{
    MESSAGE_COLUMNS, MESSAGE_FROM, MESSAGE_TYPES, MessageValues, SESSION_COLUMNS, SESSION_TYPES,
    SessionValues,
};
use super::schema;
use crate::io::lock::FileLock;
use crate::sessions::{Access, Db};

pub use super::rows::JSON_PREFIX;

/// What a push did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    pub home_id: String,
    pub identity: Origin,
    pub owner: String,
    /// Sessions written (new or changed).
    pub sessions: u64,
    pub sessions_deleted: u64,
    /// New messages the store did not have.
    pub messages: u64,
    /// Messages re-sent because they changed after they were pushed.
    pub messages_changed: u64,
    pub messages_deleted: u64,
    /// The home's watermark in the store afterwards.
    pub watermark: i64,
    #[serde(serialize_with = "crate::io::format::milliseconds")]
    pub seconds: f64,
}

/// Pushes the home at `root` (its store at `state_db`) as `owner` (default: the role), at
/// most `chunk` new message ids per store transaction ([`CHUNK`] unless testing).
pub fn push(
    store: &mut Store,
    root: &Path,
    state_db: &Path,
    owner: Option<&str>,
    chunk: i64,
) -> Result<Report> {
    let started = Instant::now();
    schema::require_current(&mut store.client)?;
    // One push of a home at a time on this machine: two first pushes started together
    // would otherwise mint two identities. A later run waits, then finds nothing new.
    let lock_path = root.join(format!("{}.lock", identity::FILE));
    let _lock = FileLock::acquire(&lock_path).map_err(|e| Error::Identity {
        path: lock_path.display().to_string(),
        reason: e.to_string(),
    })?;
    let (identity, origin) = identity::resolve(root)?;
    let mut db = Db::open(state_db, Access::ReadWrite)?;
    let mark = db.write(|tx| {
        changes::mark(tx)
            .map_err(|e| crate::sessions::Error::sql(state_db, "marking the change log", e))
    })?;

    let owner: String = match owner {
        Some(o) => o.to_string(),
        None => store
            .client
            .query_one("SELECT session_user::text", &[])
            .map_err(query("reading the role"))?
            .get(0),
    };
    let home_id = parse_uuid(&identity.home_id)?;

    // One read snapshot of state.db for everything sent, over as many store transactions
    // as the new rows need.
    let conn = db.conn();
    conn.execute_batch("BEGIN")
        .map_err(|e| crate::sessions::Error::sql(state_db, "starting a read", e))?;
    let sent = send_all(
        &mut store.client,
        conn,
        &home_id,
        &owner,
        mark,
        chunk.max(1),
    );
    let _ = conn.execute_batch("COMMIT");
    let mut report = sent?;
    // New index entries wait in GIN's pending list, which every search reads whole until
    // it is merged; merged now, searches do not pay for this push.
    if report.messages + report.messages_changed > 0 {
        store
            .client
            .execute("SELECT hermes.merge_pending()", &[])
            .map_err(query("merging the new index entries"))?;
    }

    db.write(|tx| {
        changes::forget(tx, mark.seq)
            .map_err(|e| crate::sessions::Error::sql(state_db, "clearing the change log", e))
    })?;
    db.close();
    report.home_id = identity.home_id;
    report.identity = origin;
    report.owner = owner;
    report.seconds = started.elapsed().as_secs_f64();
    Ok(report)
}

/// A UUID text as the driver's type: sent as text and cast by the server, so no uuid crate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HomeId(pub String);

fn parse_uuid(text: &str) -> Result<HomeId> {
    let ok = text.len() == 36
        && text.chars().enumerate().all(|(i, c)| {
            if matches!(i, 8 | 13 | 18 | 23) {
                c == '-'
            } else {
                c.is_ascii_hexdigit()
            }
        });
    if ok {
        Ok(HomeId(text.to_ascii_lowercase()))
    } else {
        Err(Error::Identity {
            path: identity::FILE.into(),
            reason: format!("{text:?} is not a UUID"),
        })
    }
}

/// Registers the home (or finds it) and locks its row: concurrent pushes of one home wait
/// for each other. A home id registered by another role is refused.
fn register(tx: &mut Transaction<'_>, home: &HomeId, owner: &str) -> Result<(i64, bool)> {
    tx.execute(
        "INSERT INTO hermes.homes (home_id, owner) VALUES ($1::text::uuid, $2) ON CONFLICT (home_id) DO NOTHING",
        &[&home.0, &owner],
    )
    .map_err(|e| match e.code() {
        Some(c) if *c == postgres::error::SqlState::INSUFFICIENT_PRIVILEGE => Error::Refused(format!(
            "this role may not push as owner {owner:?} (an administrator maps owner names to roles in hermes.owner_roles)"
        )),
        _ => Error::Query {
            context: "registering the home".into(),
            source: e,
        },
    })?;
    let row = tx
        .query_opt(
            "SELECT watermark, sessions_complete FROM hermes.homes
             WHERE home_id = $1::text::uuid AND role = session_user FOR UPDATE",
            &[&home.0],
        )
        .map_err(query("locking the home"))?;
    match row {
        Some(r) => Ok((r.get(0), r.get(1))),
        None => Err(Error::Refused(format!(
            "home {} was registered by another role",
            home.0
        ))),
    }
}

impl ToSql for HomeId {
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut postgres::types::private::BytesMut,
    ) -> std::result::Result<postgres::types::IsNull, Box<dyn std::error::Error + Sync + Send>>
    {
        self.0.to_sql(ty, out)
    }
    fn accepts(ty: &Type) -> bool {
        <String as ToSql>::accepts(ty)
    }
    postgres::types::to_sql_checked!();
}

const STAGE: &str = "
CREATE TEMP TABLE IF NOT EXISTS hermes_push_sessions (
    id text, source text, user_id text, model text, parent_session_id text,
    started_at double precision, ended_at double precision, end_reason text,
    message_count bigint, tool_call_count bigint, input_tokens bigint, output_tokens bigint,
    title text, archived bigint
) ON COMMIT DELETE ROWS;
CREATE TEMP TABLE IF NOT EXISTS hermes_push_messages (
    id bigint, session_id text, source text, role text, content text, content_json boolean,
    tool_call_id text, tool_calls text, tool_name text, \"timestamp\" double precision,
    active bigint, compacted bigint, words text, cjk text, changed boolean
) ON COMMIT DELETE ROWS;
";

fn local(e: rusqlite::Error) -> Error {
    Error::Sessions(crate::sessions::Error::Sql {
        context: "reading state.db for a push".into(),
        source: e,
    })
}

/// The most new messages one store transaction carries: a first push of a large home that
/// is interrupted keeps the chunks it committed, and the next run goes on from there.
pub const CHUNK: i64 = 50_000;

/// Sends the home in chunks of new messages, each in its own transaction that moves the
/// watermark; the first also carries the sessions and the logged changes.
fn send_all(
    client: &mut postgres::Client,
    conn: &Connection,
    home: &HomeId,
    owner: &str,
    mark: Mark,
    chunk: i64,
) -> Result<Report> {
    let mut total: Option<Report> = None;
    loop {
        let mut tx = client.transaction().map_err(query("starting the push"))?;
        let (watermark, complete) = register(&mut tx, home, owner)?;
        let to = mark
            .max_id
            .min(watermark.saturating_add(chunk))
            .max(watermark);
        let first = total.is_none().then_some((complete, mark.seq));
        let part = send(&mut tx, conn, home, owner, (watermark, to), first)?;
        tx.execute(
            "UPDATE hermes.homes SET watermark = $2, sessions_complete = true, pushed_at = now(),
                 owner = $3
             WHERE home_id = $1::text::uuid",
            &[home, &to, &owner],
        )
        .map_err(query("moving the watermark"))?;
        tx.commit().map_err(query("committing the push"))?;
        let report = match total.take() {
            None => part,
            Some(mut sum) => {
                sum.messages += part.messages;
                sum.watermark = part.watermark;
                sum
            }
        };
        let done = to >= mark.max_id;
        total = Some(report);
        if done {
            break;
        }
    }
    total.ok_or_else(|| Error::Refused("nothing was sent".into()))
}

/// Copies and applies one transaction's share: the new messages with ids in `range`
/// (exclusive, inclusive], and with `first` (whether the store has the home's sessions, the
/// log's mark) the sessions and the logged changes.
fn send(
    tx: &mut Transaction<'_>,
    conn: &Connection,
    home: &HomeId,
    owner: &str,
    range: (i64, i64),
    first: Option<(bool, i64)>,
) -> Result<Report> {
    let (watermark, to) = range;
    tx.batch_execute(STAGE)
        .map_err(query("creating the staging tables"))?;
    let mut report = Report {
        home_id: String::new(),
        identity: Origin::Kept,
        owner: String::new(),
        sessions: 0,
        sessions_deleted: 0,
        messages: 0,
        messages_changed: 0,
        messages_deleted: 0,
        watermark: to,
        seconds: 0.0,
    };

    // Sessions: all of them on a home's first complete push, else those logged; none in
    // the later chunks.
    let session_ids: Option<Vec<String>> = match first {
        Some((false, _)) => None,
        Some((true, seq)) => Some(changes::logged(conn, "s", seq).map_err(local)?),
        None => Some(Vec::new()),
    };
    let mut gone_sessions = Vec::new();
    {
        let sink = tx
            .copy_in("COPY hermes_push_sessions FROM STDIN BINARY")
            .map_err(query("copying sessions"))?;
        let mut writer = BinaryCopyInWriter::new(sink, &SESSION_TYPES);
        let mut write = |row: &rusqlite::Row<'_>| -> Result<()> {
            let v = SessionValues::read(row).map_err(local)?;
            writer
                .write(&v.params())
                .map_err(query("copying sessions"))?;
            report.sessions += 1;
            Ok(())
        };
        match &session_ids {
            None => {
                let mut stmt = conn
                    .prepare(&format!("SELECT {SESSION_COLUMNS} FROM sessions"))
                    .map_err(local)?;
                let mut rows = stmt.query([]).map_err(local)?;
                while let Some(row) = rows.next().map_err(local)? {
                    write(row)?;
                }
            }
            Some(ids) => {
                let mut stmt = conn
                    .prepare(&format!(
                        "SELECT {SESSION_COLUMNS} FROM sessions WHERE id = ?1"
                    ))
                    .map_err(local)?;
                for id in ids {
                    let mut rows = stmt.query([id]).map_err(local)?;
                    match rows.next().map_err(local)? {
                        Some(row) => write(row)?,
                        None => gone_sessions.push(id.clone()),
                    }
                }
            }
        }
        writer.finish().map_err(query("copying sessions"))?;
    }

    // Messages: the new ones above the watermark, then the logged ones at or below it.
    let logged: Vec<i64> = match first {
        Some((_, seq)) => changes::logged(conn, "m", seq)
            .map_err(local)?
            .iter()
            .filter_map(|k| k.parse::<i64>().ok())
            .filter(|&id| id <= watermark)
            .collect(),
        None => Vec::new(),
    };
    let mut gone_messages: Vec<i64> = Vec::new();
    {
        let sink = tx
            .copy_in("COPY hermes_push_messages FROM STDIN BINARY")
            .map_err(query("copying messages"))?;
        let mut writer = BinaryCopyInWriter::new(sink, &MESSAGE_TYPES);
        let mut stmt = conn
            .prepare(&format!(
                "SELECT {MESSAGE_COLUMNS} FROM {MESSAGE_FROM} WHERE m.id > ?1 AND m.id <= ?2 ORDER BY m.id"
            ))
            .map_err(local)?;
        let mut rows = stmt.query((watermark, to)).map_err(local)?;
        while let Some(row) = rows.next().map_err(local)? {
            let v = MessageValues::read(row, false).map_err(local)?;
            writer
                .write(&v.params())
                .map_err(query("copying messages"))?;
        }
        let mut one = conn
            .prepare(&format!(
                "SELECT {MESSAGE_COLUMNS} FROM {MESSAGE_FROM} WHERE m.id = ?1"
            ))
            .map_err(local)?;
        for id in logged {
            let found = one
                .query_row([id], |row| MessageValues::read(row, true))
                .optional()
                .map_err(local)?;
            match found {
                Some(v) => {
                    writer
                        .write(&v.params())
                        .map_err(query("copying messages"))?;
                }
                None => gone_messages.push(id),
            }
        }
        writer.finish().map_err(query("copying messages"))?;
    }

    let params: [&(dyn ToSql + Sync); 2] = [home, &owner];
    tx.execute(
        &format!(
            "INSERT INTO hermes.sessions (home_id, owner, {SESSION_COLUMNS})
             SELECT $1::text::uuid, $2, {SESSION_COLUMNS} FROM hermes_push_sessions
             ON CONFLICT (home_id, id) DO UPDATE SET owner = EXCLUDED.owner,
                source = EXCLUDED.source, user_id = EXCLUDED.user_id, model = EXCLUDED.model,
                parent_session_id = EXCLUDED.parent_session_id, started_at = EXCLUDED.started_at,
                ended_at = EXCLUDED.ended_at, end_reason = EXCLUDED.end_reason,
                message_count = EXCLUDED.message_count, tool_call_count = EXCLUDED.tool_call_count,
                input_tokens = EXCLUDED.input_tokens, output_tokens = EXCLUDED.output_tokens,
                title = EXCLUDED.title, archived = EXCLUDED.archived"
        ),
        &params,
    )
    .map_err(query("writing sessions"))?;
    let insert = |changed: bool| {
        format!(
            "INSERT INTO hermes.messages (home_id, owner, id, session_id, source, role, content,
                content_json, tool_call_id, tool_calls, tool_name, \"timestamp\", active, compacted,
                fts, cjk)
             SELECT $1::text::uuid, $2, id, session_id, source, role, content, content_json, tool_call_id,
                tool_calls, tool_name, \"timestamp\", active, compacted,
                to_tsvector('simple', words), to_tsvector('simple', cjk)
             FROM hermes_push_messages WHERE changed = {changed}
             ON CONFLICT (home_id, id) DO {}",
            if changed {
                "UPDATE SET owner = EXCLUDED.owner, session_id = EXCLUDED.session_id,
                 source = EXCLUDED.source,
                 role = EXCLUDED.role, content = EXCLUDED.content,
                 content_json = EXCLUDED.content_json, tool_call_id = EXCLUDED.tool_call_id,
                 tool_calls = EXCLUDED.tool_calls, tool_name = EXCLUDED.tool_name,
                 \"timestamp\" = EXCLUDED.\"timestamp\", active = EXCLUDED.active,
                 compacted = EXCLUDED.compacted, fts = EXCLUDED.fts, cjk = EXCLUDED.cjk"
            } else {
                "NOTHING"
            }
        )
    };
    report.messages = tx
        .execute(&insert(false), &params)
        .map_err(query("writing messages"))?;
    report.messages_changed = tx
        .execute(&insert(true), &params)
        .map_err(query("writing changed messages"))?;
    if !gone_messages.is_empty() {
        report.messages_deleted = tx
            .execute(
                "DELETE FROM hermes.messages WHERE home_id = $1::text::uuid AND id = ANY ($2)",
                &[home, &gone_messages],
            )
            .map_err(query("deleting messages"))?;
    }
    if !gone_sessions.is_empty() {
        report.sessions_deleted = tx
            .execute(
                "DELETE FROM hermes.sessions WHERE home_id = $1::text::uuid AND id = ANY ($2)",
                &[home, &gone_sessions],
            )
            .map_err(query("deleting sessions"))?;
    }
    Ok(report)
}
