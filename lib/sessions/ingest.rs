//! `hermes-index ingest`: JSONL in, rows out, in large transactions.
//!
//! A parser thread reads and validates lines (and tokenises CJK text) in chunks of about
//! 2,000 messages while the writer thread streams them into one `BEGIN IMMEDIATE`
//! transaction per batch (up to 100,000 messages or 5 s of holding the write lock). Each
//! transaction first catches the CJK index up with whatever other writers appended, so the
//! watermark can then move past our own rows.
//!
//! Guarantees:
//! - Idempotent: an existing session is enriched (NULL columns filled), never duplicated;
//!   a message already present (same session, role, timestamp and content) is skipped.
//! - Sessions before messages, parents before children: a child whose parent has not been
//!   seen yet is stored detached and attached when the parent arrives (later in the input);
//!   a parent that never arrives leaves it detached, with a warning, as Python's import does.
//! - A batch is written whole or not at all. A bad line stops the run and rolls back the
//!   batch it falls in (earlier batches stay: running again after the fix is idempotent),
//!   or, with `keep_going`, is reported and left out.
//! - Exported message ids are kept when they are all free, so a restore into an empty home
//!   reproduces every row, ids included, and `match_message_id` references stay valid.

use std::collections::{BTreeMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};
use std::io::{BufRead, Read};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::time::Instant;

use rusqlite::types::Value as Sql;
use rusqlite::{Connection, OptionalExtension, Statement, params_from_iter};

use super::db::Db;
use super::error::{Error, Result};
use super::record::{Columns, Item, MessageRow, parse_line};
use super::{cjk_index, fts, schema};
use crate::io::jsonl::{JsonlError, MAX_SESSION_LINE_BYTES, Records};

/// How to ingest.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// Report bad lines and go on instead of stopping at the first.
    pub keep_going: bool,
    /// Messages per transaction (the write lock is also released after 5 s).
    pub batch_messages: usize,
    /// Messages per parsed chunk handed from the parser thread to the writer.
    pub chunk_messages: usize,
    /// The time (epoch seconds) given to messages and sessions without one.
    pub now: f64,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            keep_going: false,
            batch_messages: 100_000,
            chunk_messages: 2_000,
            now: 0.0,
        }
    }
}

/// The record `ingest` ends with (CLI contract: `sessions`, `messages`, `skipped`, `seconds`).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Summary {
    /// Sessions created.
    pub sessions: u64,
    /// Messages inserted.
    pub messages: u64,
    /// Messages skipped because they were already present.
    pub skipped: u64,
    #[serde(serialize_with = "crate::io::format::milliseconds")]
    pub seconds: f64,
    /// Lines left out with `keep_going`.
    #[serde(skip)]
    pub bad_lines: u64,
}

/// Callbacks for what a person watching should see.
pub struct Observer<'a> {
    /// Input bytes read so far.
    pub progress: &'a (dyn Fn(u64) + Sync),
    /// A warning line (a skipped bad line, a detached session, a dropped duplicate title).
    pub warn: &'a (dyn Fn(&str) + Sync),
}

enum Chunk {
    Batch(Vec<Item>),
    Bad { line: usize, message: String },
    Failed(std::io::Error),
}

/// Ingests `input` into `db` (whose schema must already be v22).
pub fn ingest(
    db: &mut Db,
    input: Box<dyn BufRead + Send>,
    options: Options,
    observer: &Observer<'_>,
) -> Result<Summary> {
    let started = Instant::now();
    db.require_writable_schema()?;
    db.conn().set_prepared_statement_cache_capacity(64);
    let columns = Arc::new(live_columns(db)?);
    let read = Arc::new(AtomicU64::new(0));
    // Bulk-load settings, local to this connection (Python's keep their own): a page cache
    // (up to 256 MiB) that holds a whole batch's dirty pages so none is spilled to the WAL
    // and written twice; no fsync per commit and no checkpoint per commit, one TRUNCATE
    // checkpoint when the process ends instead. A power cut can lose the last batches,
    // never corrupt the file; ingesting again restores them.
    db.conn()
        .execute_batch(
            "PRAGMA temp_store = MEMORY; PRAGMA cache_size = -262144;
             PRAGMA wal_autocheckpoint = 0; PRAGMA synchronous = NORMAL",
        )
        .map_err(|e| db.err("configuring the connection for a bulk load", e))?;
    let mut writer = Writer::new(options);
    let outcome = std::thread::scope(|scope| -> Result<()> {
        let (tx, rx) = sync_channel::<Chunk>(2);
        let parser_columns = Arc::clone(&columns);
        let counter = Arc::clone(&read);
        scope.spawn(move || parse(input, counter, &parser_columns, options, tx));
        writer.run(db, rx, &read, observer)
    });
    outcome?;
    writer.finish(observer);
    let mut summary = writer.summary;
    summary.seconds = started.elapsed().as_secs_f64();
    Ok(summary)
}

/// The live column names of `sessions` and `messages`.
fn live_columns(db: &Db) -> Result<Columns> {
    let names = |table: &str| -> Result<Vec<String>> {
        let mut stmt = db
            .conn()
            .prepare(&format!("PRAGMA table_info({table})"))
            .map_err(|e| db.err("reading columns", e))?;
        let rows = stmt
            .query_map([], |r| r.get::<_, String>(1))
            .map_err(|e| db.err("reading columns", e))?;
        rows.collect::<rusqlite::Result<_>>()
            .map_err(|e| db.err("reading columns", e))
    };
    Ok(Columns {
        sessions: names("sessions")?.into_iter().collect(),
        messages: names("messages")?.into_iter().collect(),
    })
}

/// Counts the bytes a reader hands out.
struct Counting<R> {
    inner: R,
    count: Arc<AtomicU64>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Counting<R> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, amt: usize) {
        self.count.fetch_add(amt as u64, Ordering::Relaxed);
        self.inner.consume(amt);
    }
}

/// The parser thread: lines → validated items → chunks.
fn parse(
    input: Box<dyn BufRead + Send>,
    count: Arc<AtomicU64>,
    columns: &Columns,
    options: Options,
    out: SyncSender<Chunk>,
) {
    let reader = Counting {
        inner: input,
        count,
    };
    let mut batch: Vec<Item> = Vec::new();
    let mut clock = options.now;
    let mut messages = 0usize;
    for record in Records::with_max(reader, MAX_SESSION_LINE_BYTES) {
        let item = match record {
            Ok(record) => {
                parse_line(record.line, record.value, columns).map_err(|m| (record.line, m))
            }
            Err(JsonlError::BadLine { line, message }) => Err((line, message)),
            Err(JsonlError::Io(e)) => {
                let _ = out.send(Chunk::Failed(e));
                return;
            }
        };
        match item {
            Ok(mut item) => {
                fill_timestamps(&mut item, &mut clock);
                messages += item.messages.len().max(1);
                batch.push(item);
                // Small chunks: writing starts early and parser and writer work side by side.
                if messages >= options.chunk_messages {
                    if out.send(Chunk::Batch(std::mem::take(&mut batch))).is_err() {
                        return;
                    }
                    messages = 0;
                }
            }
            Err((line, message)) => {
                let stop = !options.keep_going;
                if out.send(Chunk::Bad { line, message }).is_err() || stop {
                    return;
                }
            }
        }
    }
    if !batch.is_empty() {
        let _ = out.send(Chunk::Batch(batch));
    }
}

/// Gives messages without a timestamp one from a running clock that starts at `now` and
/// always moves past the previous message, as Python's `_insert_message_rows` does; the
/// clock runs across the whole input, so message lines without timestamps keep their order.
fn fill_timestamps(item: &mut Item, clock: &mut f64) {
    for m in &mut item.messages {
        let ts = *m.timestamp.get_or_insert(*clock);
        *clock = (*clock + 1e-6).max(ts + 1e-6);
    }
}

/// What one transaction did, published only after it committed.
#[derive(Default)]
struct BatchOut {
    sessions: u64,
    messages: u64,
    skipped: u64,
    warnings: Vec<String>,
    waiting: BTreeMap<String, Vec<(String, usize)>>,
}

struct Writer {
    options: Options,
    summary: Summary,
    /// Parent id → children stored detached until it arrives (with the child's line).
    waiting: BTreeMap<String, Vec<(String, usize)>>,
}

/// The longest one transaction holds the write lock (it also ends at `batch_messages`).
/// Python's writers wait up to about 16 s (15 attempts of a 1 s busy timeout) before they
/// give up, so a gateway or cron job writing meanwhile is delayed, never failed.
const TRANSACTION_SECONDS: f64 = 5.0;

impl Writer {
    fn new(options: Options) -> Writer {
        Writer {
            options,
            summary: Summary::default(),
            waiting: BTreeMap::new(),
        }
    }

    /// Writes the parsed chunks in transactions of up to `batch_messages` messages (or
    /// [`TRANSACTION_SECONDS`]); each transaction is written whole or not at all.
    fn run(
        &mut self,
        db: &mut Db,
        rx: Receiver<Chunk>,
        read: &AtomicU64,
        observer: &Observer<'_>,
    ) -> Result<()> {
        let path = db.path().to_path_buf();
        let sql = |e| Error::sql(&path, "writing a batch", e);
        let mut rx = rx.into_iter();
        loop {
            // Bad lines between transactions need no transaction.
            let items = match self.next_items(&mut rx, observer)? {
                Some(items) => items,
                None => break,
            };
            let tx = db.begin_write()?;
            let mut txn = Txn::begin(&tx, &self.waiting, self.options.now).map_err(sql)?;
            let mut items = Some(items);
            loop {
                if let Some(items) = items.take() {
                    txn.write_chunk(&tx, &items).map_err(sql)?;
                }
                (observer.progress)(read.load(Ordering::Relaxed));
                if txn.messages >= self.options.batch_messages
                    || txn.started.elapsed().as_secs_f64() >= TRANSACTION_SECONDS
                {
                    break;
                }
                match self.next_items(&mut rx, observer)? {
                    Some(next) => items = Some(next),
                    None => break,
                }
            }
            let out = txn.finish(&tx).map_err(sql)?;
            tx.commit()?;
            self.summary.sessions += out.sessions;
            self.summary.messages += out.messages;
            self.summary.skipped += out.skipped;
            self.waiting = out.waiting;
            for warning in &out.warnings {
                (observer.warn)(warning);
            }
        }
        (observer.progress)(read.load(Ordering::Relaxed));
        Ok(())
    }

    /// The next chunk of items; a bad line is reported and skipped with `keep_going`, an
    /// error otherwise (which rolls back the open transaction). `None` at the end.
    fn next_items(
        &mut self,
        rx: &mut std::sync::mpsc::IntoIter<Chunk>,
        observer: &Observer<'_>,
    ) -> Result<Option<Vec<Item>>> {
        for chunk in rx.by_ref() {
            match chunk {
                Chunk::Batch(items) => return Ok(Some(items)),
                Chunk::Bad { line, message } => {
                    if !self.options.keep_going {
                        return Err(Error::BadLine { line, message });
                    }
                    self.summary.bad_lines += 1;
                    (observer.warn)(&format!("line {line}: {message} (skipped)"));
                }
                Chunk::Failed(e) => return Err(Error::Input(e)),
            }
        }
        Ok(None)
    }

    fn finish(&mut self, observer: &Observer<'_>) {
        for (parent, children) in &self.waiting {
            for (child, line) in children {
                (observer.warn)(&format!(
                    "line {line}: session {child}: parent {parent} is in neither state.db nor the input; stored without a parent"
                ));
            }
        }
    }
}

/// The state of one open ingest transaction.
///
/// The full-text tables are filled by one `INSERT … SELECT` per table and chunk, with the
/// upstream triggers' exact text expression, instead of by the triggers row by row: FTS5
/// flushes its in-memory index to a new segment at every statement savepoint, and an
/// `INSERT` whose triggers write an FTS table opens one, so a row-by-row insert leaves one
/// tiny segment per message to merge (about 6× the work). The triggers are dropped when the
/// transaction begins and recreated, with their exact upstream text, before it commits; no
/// other connection can see the moment in between.
struct Txn {
    watermark: i64,
    /// AUTOINCREMENT's next id, handed out by us so each row's CJK document can be written
    /// with it.
    next_id: i64,
    now: f64,
    /// Messages written in this transaction, by a 128-bit hash of (session, role,
    /// timestamp, content), for duplicates within it.
    seen: HashSet<u128, BuildHasherDefault<FxHasher>>,
    /// Sessions created in this transaction: all their stored messages are in `seen`.
    created: HashSet<String, BuildHasherDefault<FxHasher>>,
    out: BatchOut,
    messages: usize,
    started: Instant,
    /// Ids of the messages written, in insertion order.
    ids: Vec<i64>,
    /// CJK documents of the messages written.
    docs: Vec<(i64, String)>,
}

impl Txn {
    fn begin(
        tx: &Connection,
        waiting: &BTreeMap<String, Vec<(String, usize)>>,
        now: f64,
    ) -> rusqlite::Result<Txn> {
        // Rows other writers appended since the last transaction are indexed first, so the
        // watermark can then move past ours.
        let synced = cjk_index::sync(tx, &|_| {})?;
        // The CJK change log's insert trigger goes too: this transaction indexes every row it
        // writes, kept export ids at or below the watermark included, so none needs logging.
        for name in schema::upstream_trigger_names().chain([cjk_index::TRIGGERS[0].0]) {
            tx.execute_batch(&format!("DROP TRIGGER IF EXISTS {name}"))?;
        }
        // As SQLite would: the larger of the sequence and the largest id, plus one.
        let next_id: i64 = tx.query_row(
            "SELECT max(COALESCE((SELECT max(id) FROM messages), 0),
                        COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'messages'), 0)) + 1",
            [],
            |r| r.get(0),
        )?;
        Ok(Txn {
            watermark: synced.watermark,
            next_id,
            now,
            seen: HashSet::default(),
            created: HashSet::default(),
            out: BatchOut {
                waiting: waiting.clone(),
                ..BatchOut::default()
            },
            messages: 0,
            started: Instant::now(),
            ids: Vec::new(),
            docs: Vec::new(),
        })
    }

    fn write_chunk(&mut self, tx: &Connection, items: &[Item]) -> rusqlite::Result<()> {
        let mut docs: Vec<(i64, Option<&str>)> = Vec::new();
        {
            let mut insert = LastInsert {
                columns: Vec::new(),
                statement: None,
            };
            for item in items {
                self.write_item(tx, item, &mut insert, &mut docs)?;
            }
        }
        self.messages += items.iter().map(|i| i.messages.len().max(1)).sum::<usize>();
        for (id, doc) in docs {
            self.ids.push(id);
            if let Some(doc) = doc {
                self.docs.push((id, doc.to_string()));
            }
        }
        Ok(())
    }

    /// Indexes every row of the transaction, recreates the triggers and moves the watermark
    /// past every row now indexed.
    ///
    /// One `INSERT … SELECT` per FTS table for the whole transaction: each statement that
    /// writes an FTS table flushes every FTS table's pending index to a new segment first,
    /// so fewer, larger statements mean fewer segments to merge.
    fn finish(self, tx: &Connection) -> rusqlite::Result<BatchOut> {
        if let (Some(&lo), Some(&hi)) = (self.ids.first(), self.ids.last()) {
            // Fresh ids are handed out in order, so a transaction is usually one id range;
            // kept export ids may not be, and then the ids go through a temporary table.
            let contiguous = self.ids.windows(2).all(|w| w[1] == w[0] + 1);
            let source = if contiguous {
                format!("messages AS m WHERE m.id BETWEEN {lo} AND {hi} ORDER BY m.id")
            } else {
                tx.execute_batch(
                    "CREATE TEMP TABLE IF NOT EXISTS hermes_ingest_ids (id INTEGER PRIMARY KEY);
                     DELETE FROM temp.hermes_ingest_ids;",
                )?;
                let mut remember = tx.prepare_cached(
                    "INSERT OR IGNORE INTO temp.hermes_ingest_ids (id) VALUES (?1)",
                )?;
                for id in &self.ids {
                    remember.execute([id])?;
                }
                "temp.hermes_ingest_ids AS i JOIN messages AS m ON m.id = i.id ORDER BY i.id"
                    .to_string()
            };
            for table in &schema::FTS_TABLES {
                tx.execute(
                    &format!(
                        "INSERT INTO {}(rowid, content) SELECT m.id, {} FROM {source}",
                        table.name,
                        schema::FTS_TEXT_SQL
                    ),
                    [],
                )?;
            }
        }
        let mut insert_doc = tx.prepare_cached(cjk_index::INSERT_DOC)?;
        for (id, doc) in &self.docs {
            insert_doc.execute((id, doc))?;
        }
        fts::ensure(tx)?;
        cjk_index::ensure_side_tables(tx)?;
        let max_id: i64 = tx.query_row("SELECT COALESCE(max(id), 0) FROM messages", [], |r| {
            r.get(0)
        })?;
        cjk_index::set_watermark(tx, max_id.max(self.watermark))?;
        Ok(self.out)
    }

    fn write_item<'a, 'c>(
        &mut self,
        tx: &'c Connection,
        item: &'a Item,
        insert: &mut LastInsert<'a, 'c>,
        docs: &mut Vec<(i64, Option<&'a str>)>,
    ) -> rusqlite::Result<()> {
        let now = self.now;
        let out = &mut self.out;
        let session = &item.session;
        let existed = tx
            .prepare_cached("SELECT 1 FROM sessions WHERE id = ?1")?
            .exists([&session.id])?;
        if existed {
            enrich_session(tx, item)?;
        } else {
            insert_session(tx, item, now, out)?;
            self.created.insert(session.id.clone());
            out.sessions += 1;
        }
        let new_here = self.created.contains(&session.id);
        attach_parent(tx, item, out)?;
        if let Some(children) = out.waiting.remove(&session.id) {
            for (child, line) in children {
                link(tx, &child, &session.id, line, out)?;
            }
        }

        // Messages: drop the ones already present (stored before, or earlier in this
        // transaction), then keep their exported ids only if every one is free, so a
        // session's transcript order (by id) is never scrambled.
        let mut fresh: Vec<&'a MessageRow> = Vec::with_capacity(item.messages.len());
        {
            let mut dup = tx.prepare_cached(
                "SELECT 1 FROM messages WHERE session_id = ?1 AND timestamp = ?2 AND role = ?3 AND content IS ?4 LIMIT 1",
            )?;
            for m in &item.messages {
                let ts = m.timestamp.unwrap_or(now);
                if !self.seen.insert(dup_key(&session.id, m, ts))
                    || (!new_here
                        && dup.exists(rusqlite::params![&session.id, ts, &m.role, &m.content])?)
                {
                    out.skipped += 1;
                } else {
                    fresh.push(m);
                }
            }
        }
        let keep_ids = !fresh.is_empty() && {
            let mut taken = tx.prepare_cached("SELECT 1 FROM messages WHERE id = ?1")?;
            let mut mine = HashSet::with_capacity(fresh.len());
            let mut ok = true;
            for m in &fresh {
                match m.id {
                    Some(id) if mine.insert(id) && !taken.exists([id])? => {}
                    _ => {
                        ok = false;
                        break;
                    }
                }
            }
            ok
        };
        let (mut inserted, mut tool_calls) = (0i64, 0i64);
        for m in &fresh {
            let id = match (keep_ids, m.id) {
                (true, Some(id)) => id,
                _ => self.next_id,
            };
            self.next_id = self.next_id.max(id + 1);
            insert_message(tx, &session.id, m, id, now, insert)?;
            docs.push((id, m.cjk.as_deref()));
            inserted += 1;
            tool_calls += m.tool_calls;
        }
        out.messages += inserted as u64;

        if !existed && item.is_session_object {
            let messages = session.message_count.unwrap_or(inserted);
            let calls = session.tool_call_count.unwrap_or(tool_calls);
            tx.prepare_cached(
                "UPDATE sessions SET message_count = ?1, tool_call_count = ?2 WHERE id = ?3",
            )?
            .execute(rusqlite::params![messages, calls, &session.id])?;
        } else if inserted > 0 {
            tx.prepare_cached(
                "UPDATE sessions SET message_count = message_count + ?1, tool_call_count = tool_call_count + ?2 WHERE id = ?3",
            )?
            .execute(rusqlite::params![inserted, tool_calls, &session.id])?;
        }
        Ok(())
    }
}

/// A 128-bit hash of a message's duplicate key (session, role, exact timestamp, stored
/// content): two independent 64-bit hashes, so a false match is never a practical concern.
fn dup_key(session: &str, m: &MessageRow, timestamp: f64) -> u128 {
    use std::hash::Hash;
    let half = |seed: u8| {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        seed.hash(&mut h);
        session.hash(&mut h);
        m.role.hash(&mut h);
        timestamp.to_bits().hash(&mut h);
        match &m.content {
            Sql::Null => 0u8.hash(&mut h),
            Sql::Integer(i) => (1u8, i).hash(&mut h),
            Sql::Real(f) => (2u8, f.to_bits()).hash(&mut h),
            Sql::Text(t) => (3u8, t).hash(&mut h),
            Sql::Blob(b) => (4u8, b).hash(&mut h),
        }
        h.finish()
    };
    (u128::from(half(0)) << 64) | u128::from(half(1))
}

fn insert_message<'a, 'c>(
    tx: &'c Connection,
    session_id: &str,
    m: &'a MessageRow,
    id: i64,
    now: f64,
    last: &mut LastInsert<'a, 'c>,
) -> rusqlite::Result<()> {
    // Rows of one input share their column list: prepare the statement once per list.
    let same = last.statement.is_some()
        && last.columns.len() == m.columns.len()
        && last
            .columns
            .iter()
            .zip(&m.columns)
            .all(|(a, (b, _))| *a == b);
    if !same {
        last.columns = m.columns.iter().map(|(n, _)| n.as_str()).collect();
        let names: Vec<String> = ["id", "session_id", "role", "content", "timestamp"]
            .into_iter()
            .chain(last.columns.iter().copied())
            .map(|n| format!("\"{}\"", n.replace('"', "\"\"")))
            .collect();
        last.statement = Some(tx.prepare(&format!(
            "INSERT INTO messages ({}) VALUES ({})",
            names.join(", "),
            (1..=names.len()).map(|i| format!("?{i}")).collect::<Vec<_>>().join(", ")
        ))?);
    }
    let Some(stmt) = last.statement.as_mut() else {
        return Ok(());
    };
    stmt.raw_bind_parameter(1, id)?;
    stmt.raw_bind_parameter(2, session_id)?;
    stmt.raw_bind_parameter(3, m.role.as_str())?;
    stmt.raw_bind_parameter(4, &m.content)?;
    stmt.raw_bind_parameter(5, m.timestamp.unwrap_or(now))?;
    for (i, (_, value)) in m.columns.iter().enumerate() {
        stmt.raw_bind_parameter(6 + i, value)?;
    }
    stmt.raw_execute()?;
    Ok(())
}

/// The prepared `INSERT INTO messages` for the last column list seen.
struct LastInsert<'a, 'c> {
    columns: Vec<&'a str>,
    statement: Option<Statement<'c>>,
}

fn insert_session(
    tx: &Connection,
    item: &Item,
    now: f64,
    out: &mut BatchOut,
) -> rusqlite::Result<()> {
    let s = &item.session;
    let source = Sql::Text(s.default_source.to_string());
    let started = Sql::Real(s.fallback_started_at.unwrap_or(now));
    let mut names: Vec<&str> = vec!["id"];
    let id = Sql::Text(s.id.clone());
    let mut values: Vec<&Sql> = vec![&id];
    if s.column("source").is_none() {
        names.push("source");
        values.push(&source);
    }
    if s.column("started_at").is_none() {
        names.push("started_at");
        values.push(&started);
    }
    let title_taken = title_conflict(tx, s.column("title"), &s.id)?;
    for (name, value) in &s.columns {
        if name == "title" && title_taken {
            out.warnings.push(format!(
                "line {}: session {}: title {} belongs to another session; stored without it",
                item.line,
                s.id,
                display(value)
            ));
            continue;
        }
        names.push(name);
        values.push(value);
    }
    let sql = format!(
        "INSERT INTO sessions ({}) VALUES ({})",
        names
            .iter()
            .map(|n| format!("\"{n}\""))
            .collect::<Vec<_>>()
            .join(", "),
        (1..=names.len())
            .map(|i| format!("?{i}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    tx.prepare_cached(&sql)?.execute(params_from_iter(values))?;
    Ok(())
}

/// Fills the NULL columns of an existing session (Python's `create_session` upsert).
fn enrich_session(tx: &Connection, item: &Item) -> rusqlite::Result<()> {
    let s = &item.session;
    let mut sets = Vec::new();
    let mut values: Vec<&Sql> = Vec::new();
    let title_taken = title_conflict(tx, s.column("title"), &s.id)?;
    for (name, value) in &s.columns {
        if matches!(value, Sql::Null) || (name == "title" && title_taken) {
            continue;
        }
        values.push(value);
        sets.push(format!(
            "\"{name}\" = COALESCE(\"{name}\", ?{})",
            values.len()
        ));
    }
    if sets.is_empty() {
        return Ok(());
    }
    let id = Sql::Text(s.id.clone());
    values.push(&id);
    let sql = format!(
        "UPDATE sessions SET {} WHERE id = ?{}",
        sets.join(", "),
        values.len()
    );
    tx.prepare_cached(&sql)?.execute(params_from_iter(values))?;
    Ok(())
}

/// Whether `title` is held by a session other than `id` (the unique title index would
/// reject the whole batch otherwise).
fn title_conflict(tx: &Connection, title: Option<&Sql>, id: &str) -> rusqlite::Result<bool> {
    let Some(Sql::Text(title)) = title else {
        return Ok(false);
    };
    let holder: Option<String> = tx
        .prepare_cached("SELECT id FROM sessions WHERE title = ?1")?
        .query_row([title], |r| r.get(0))
        .optional()?;
    Ok(holder.is_some_and(|h| h != id))
}

fn display(value: &Sql) -> String {
    match value {
        Sql::Text(s) => format!("{s:?}"),
        other => format!("{other:?}"),
    }
}

/// Sets the session's parent when the line names one and the session has none yet; a parent
/// not stored yet is waited for.
fn attach_parent(tx: &Connection, item: &Item, out: &mut BatchOut) -> rusqlite::Result<()> {
    let Some(parent) = &item.session.parent else {
        return Ok(());
    };
    let current: Option<String> = tx
        .prepare_cached("SELECT parent_session_id FROM sessions WHERE id = ?1")?
        .query_row([&item.session.id], |r| r.get(0))?;
    if current.is_some() {
        return Ok(());
    }
    let parent_exists = tx
        .prepare_cached("SELECT 1 FROM sessions WHERE id = ?1")?
        .exists([parent])?;
    if parent_exists {
        link(tx, &item.session.id, parent, item.line, out)
    } else {
        let children = out.waiting.entry(parent.clone()).or_default();
        if !children.iter().any(|(c, _)| c == &item.session.id) {
            children.push((item.session.id.clone(), item.line));
        }
        Ok(())
    }
}

/// Points `child` at `parent` unless that would close a cycle.
fn link(
    tx: &Connection,
    child: &str,
    parent: &str,
    line: usize,
    out: &mut BatchOut,
) -> rusqlite::Result<()> {
    let mut cursor = Some(parent.to_string());
    let mut hops = 0;
    while let Some(id) = cursor {
        if id == child || hops > 10_000 {
            out.warnings.push(format!(
                "line {line}: session {child}: parent {parent} would make a cycle; stored without a parent"
            ));
            return Ok(());
        }
        cursor = tx
            .prepare_cached("SELECT parent_session_id FROM sessions WHERE id = ?1")?
            .query_row([&id], |r| r.get::<_, Option<String>>(0))
            .optional()?
            .flatten();
        hops += 1;
    }
    tx.prepare_cached(
        "UPDATE sessions SET parent_session_id = ?1 WHERE id = ?2 AND parent_session_id IS NULL",
    )?
    .execute([parent, child])?;
    Ok(())
}

/// A fast non-cryptographic hasher (the multiply-rotate of rustc's FxHasher) for sets whose
/// keys are already hashes or short ids of our own input.
#[derive(Default)]
struct FxHasher(u64);

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        for &b in chunks.remainder() {
            self.add(u64::from(b));
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

impl FxHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sessions::db::RetryPolicy;
    use crate::sessions::{check, migrate};

    fn run(db: &mut Db, input: &str, options: Options) -> (Summary, Vec<String>) {
        let (summary, warnings) = try_run(db, input, options);
        (summary.expect("ingest"), warnings)
    }

    fn try_run(db: &mut Db, input: &str, options: Options) -> (Result<Summary>, Vec<String>) {
        let warnings = std::sync::Mutex::new(Vec::new());
        let observer = Observer {
            progress: &|_| {},
            warn: &|w| warnings.lock().expect("lock").push(w.to_string()),
        };
        let summary = ingest(
            db,
            Box::new(std::io::Cursor::new(input.to_string())),
            options,
            &observer,
        );
        (summary, warnings.into_inner().expect("warnings"))
    }

    /// A v22 store in a fresh temporary folder.
    fn store() -> (tempfile::TempDir, Db) {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut db = Db::create(&dir.path().join("state.db"), RetryPolicy::default()).expect("db");
        migrate::ensure_schema(&mut db).expect("schema");
        (dir, db)
    }

    /// Every row of a one-column query, as text (`NULL` for null).
    fn column(db: &Db, sql: &str) -> Vec<String> {
        let mut stmt = db.conn().prepare(sql).expect(sql);
        let rows = stmt
            .query_map([], |r| {
                Ok(match r.get::<_, Sql>(0)? {
                    Sql::Null => "NULL".to_string(),
                    Sql::Integer(i) => i.to_string(),
                    Sql::Real(f) => f.to_string(),
                    Sql::Text(t) => t,
                    Sql::Blob(b) => format!("{b:?}"),
                })
            })
            .expect(sql);
        rows.map(|r| r.expect("row")).collect()
    }

    /// One message line of session `s` per content, at timestamps 1, 2, 3, …
    fn message_lines(contents: &[&str]) -> String {
        contents
            .iter()
            .enumerate()
            .map(|(i, c)| {
                format!(
                    "{{\"session_id\": \"s\", \"role\": \"user\", \"content\": \"{c}\", \"timestamp\": {}}}\n",
                    i + 1
                )
            })
            .collect()
    }

    fn sized(batch_messages: usize, chunk_messages: usize) -> Options {
        Options {
            batch_messages,
            chunk_messages,
            now: 100.0,
            ..Options::default()
        }
    }

    #[test]
    fn a_bad_line_rolls_back_only_the_transaction_it_falls_in() {
        let input = message_lines(&["a", "b", "c"]) + "not json\n" + &message_lines(&["d"]);
        let contents = "SELECT content FROM messages ORDER BY id";
        // One message per transaction: the three before the bad line are committed.
        let (_dir, mut db) = store();
        let (result, _) = try_run(&mut db, &input, sized(1, 1));
        assert!(
            matches!(result, Err(Error::BadLine { line: 4, .. })),
            "{result:?}"
        );
        assert_eq!(column(&db, contents), ["a", "b", "c"]);
        // One transaction for the whole input: nothing is.
        let (_dir, mut db) = store();
        let (result, _) = try_run(&mut db, &input, sized(100, 1));
        assert!(matches!(result, Err(Error::BadLine { line: 4, .. })));
        assert!(column(&db, contents).is_empty());
        // The three lines were still in the parser's chunk when the bad line came: nothing is.
        let (_dir, mut db) = store();
        let (result, _) = try_run(&mut db, &input, sized(1, 100));
        assert!(matches!(result, Err(Error::BadLine { line: 4, .. })));
        assert!(column(&db, contents).is_empty());
    }

    #[test]
    fn keep_going_reports_a_bad_line_and_writes_the_rest() {
        let input = message_lines(&["a", "b"]) + "[1]\n" + &message_lines(&["c"]) + "{\n";
        for (batch, chunk) in [(1, 1), (100, 100)] {
            let (_dir, mut db) = store();
            let options = Options {
                keep_going: true,
                ..sized(batch, chunk)
            };
            let (summary, warnings) = run(&mut db, &input, options);
            assert_eq!(
                (summary.messages, summary.bad_lines),
                (3, 2),
                "{batch}/{chunk}"
            );
            assert_eq!(
                column(&db, "SELECT content FROM messages ORDER BY id"),
                ["a", "b", "c"]
            );
            assert_eq!(
                warnings,
                [
                    "line 3: expected a JSON object (a session with `messages`, or a message) (skipped)",
                    "line 5: invalid JSON at column 1: EOF while parsing an object (skipped)",
                ]
            );
        }
    }

    #[test]
    fn progress_reports_every_byte_read() {
        let input = message_lines(&["a", "b", "c"]);
        let (_dir, mut db) = store();
        let last = AtomicU64::new(0);
        let observer = Observer {
            progress: &|n| last.store(n, Ordering::Relaxed),
            warn: &|_| {},
        };
        let reader = Box::new(std::io::Cursor::new(input.clone()));
        ingest(&mut db, reader, sized(1, 1), &observer).expect("ingest");
        assert_eq!(last.load(Ordering::Relaxed), input.len() as u64);

        // Read (not only BufRead) counts too.
        let count = Arc::new(AtomicU64::new(0));
        let mut counting = Counting {
            inner: &b"hello"[..],
            count: Arc::clone(&count),
        };
        let mut buf = [0u8; 3];
        assert_eq!(counting.read(&mut buf).expect("read"), 3);
        assert_eq!(counting.read(&mut buf).expect("read"), 2);
        assert_eq!(count.load(Ordering::Relaxed), 5);
    }

    #[test]
    fn children_wait_for_a_parent_across_transactions_and_a_missing_one_is_reported() {
        let input = concat!(
            "{\"id\": \"kid1\", \"parent_session_id\": \"p\", \"messages\": []}\n",
            "{\"id\": \"kid2\", \"parent_session_id\": \"p\", \"messages\": []}\n",
            "{\"id\": \"orphan\", \"parent_session_id\": \"nowhere\", \"messages\": []}\n",
            "{\"id\": \"orphan\", \"parent_session_id\": \"nowhere\", \"messages\": []}\n",
            "{\"id\": \"p\", \"messages\": []}\n",
        );
        let (_dir, mut db) = store();
        let (summary, warnings) = run(&mut db, input, sized(1, 1));
        assert_eq!(summary.sessions, 4);
        assert_eq!(
            column(
                &db,
                "SELECT id || '>' || COALESCE(parent_session_id, '') FROM sessions ORDER BY id"
            ),
            ["kid1>p", "kid2>p", "orphan>", "p>"]
        );
        assert_eq!(
            warnings,
            [
                "line 3: session orphan: parent nowhere is in neither state.db nor the input; stored without a parent"
            ]
        );
    }

    #[test]
    fn a_parent_that_would_close_a_cycle_is_left_out_with_a_warning() {
        let input = concat!(
            "{\"id\": \"a\", \"messages\": []}\n",
            "{\"id\": \"b\", \"parent_session_id\": \"a\", \"messages\": []}\n",
            "{\"id\": \"a\", \"parent_session_id\": \"b\", \"messages\": []}\n",
        );
        let (_dir, mut db) = store();
        let (_, warnings) = run(&mut db, input, Options::default());
        assert_eq!(
            column(
                &db,
                "SELECT id || '>' || COALESCE(parent_session_id, '') FROM sessions ORDER BY id"
            ),
            ["a>", "b>a"]
        );
        assert_eq!(
            warnings,
            ["line 3: session a: parent b would make a cycle; stored without a parent"]
        );
    }

    #[test]
    fn a_cycle_already_in_the_store_ends_the_walk_up_the_parents() {
        let (_dir, mut db) = store();
        db.conn()
            .execute_batch(
                "INSERT INTO sessions (id, source, started_at) VALUES ('x', 'cli', 1), ('y', 'cli', 1);
                 UPDATE sessions SET parent_session_id = 'y' WHERE id = 'x';
                 UPDATE sessions SET parent_session_id = 'x' WHERE id = 'y';",
            )
            .expect("damage");
        let input = "{\"id\": \"c\", \"parent_session_id\": \"x\", \"messages\": []}\n";
        let (_, warnings) = run(&mut db, input, Options::default());
        assert_eq!(
            warnings,
            ["line 1: session c: parent x would make a cycle; stored without a parent"]
        );
        assert_eq!(
            column(&db, "SELECT parent_session_id FROM sessions WHERE id = 'c'"),
            ["NULL"]
        );
    }

    #[test]
    fn a_title_another_session_holds_is_left_out_and_the_rest_is_stored() {
        let input = concat!(
            "{\"id\": \"s1\", \"title\": \"T\", \"messages\": []}\n",
            "{\"id\": \"s2\", \"title\": \"T\", \"model\": \"m2\", \"messages\": []}\n",
            "{\"id\": \"s3\", \"messages\": []}\n",
            "{\"id\": \"s3\", \"title\": \"U\", \"model\": \"m3\", \"messages\": []}\n",
            "{\"id\": \"s2\", \"title\": \"T\", \"billing_provider\": \"b2\", \"messages\": []}\n",
        );
        let (_dir, mut db) = store();
        let (summary, warnings) = run(&mut db, input, Options::default());
        assert_eq!(summary.sessions, 3);
        assert_eq!(
            column(
                &db,
                "SELECT id || ' ' || COALESCE(title, '-') || ' ' || COALESCE(model, '-') || ' ' || COALESCE(billing_provider, '-') FROM sessions ORDER BY id"
            ),
            ["s1 T - -", "s2 - m2 b2", "s3 U m3 -"]
        );
        assert_eq!(
            warnings,
            ["line 2: session s2: title \"T\" belongs to another session; stored without it"]
        );
    }

    #[test]
    fn messages_of_different_shapes_keep_each_column() {
        let input = concat!(
            "{\"id\": \"s\", \"messages\": [",
            "{\"role\": \"user\", \"content\": \"a\", \"timestamp\": 1},",
            "{\"role\": \"assistant\", \"content\": \"b\", \"timestamp\": 2, \"tool_name\": \"t2\", \"finish_reason\": \"f2\"},",
            "{\"role\": \"assistant\", \"content\": \"c\", \"timestamp\": 3, \"reasoning\": \"r3\"},",
            "{\"role\": \"tool\", \"content\": \"d\", \"timestamp\": 4, \"tool_name\": \"t4\", \"finish_reason\": \"f4\"}]}\n",
        );
        let (_dir, mut db) = store();
        run(&mut db, input, Options::default());
        assert_eq!(
            column(
                &db,
                "SELECT role || ' ' || content || ' ' || timestamp || ' ' || COALESCE(tool_name, '-') || ' ' || COALESCE(finish_reason, '-') || ' ' || COALESCE(reasoning, '-') FROM messages ORDER BY id"
            ),
            [
                "user a 1.0 - - -",
                "assistant b 2.0 t2 f2 -",
                "assistant c 3.0 - - r3",
                "tool d 4.0 t4 f4 -",
            ]
        );
    }

    /// Ids of the messages whose text the main full-text index finds for `word`.
    fn indexed(db: &Db, word: &str) -> Vec<String> {
        column(
            db,
            &format!(
                "SELECT rowid FROM messages_fts WHERE messages_fts MATCH '{word}' ORDER BY rowid"
            ),
        )
    }

    #[test]
    fn exported_ids_are_kept_when_all_are_free_and_fresh_ones_follow() {
        let input = concat!(
            "{\"id\": \"a\", \"messages\": [{\"id\": 40, \"role\": \"user\", \"content\": \"kept\", \"timestamp\": 1}, {\"id\": 41, \"role\": \"user\", \"content\": \"kept\", \"timestamp\": 2}]}\n",
            "{\"id\": \"b\", \"messages\": [{\"role\": \"user\", \"content\": \"kept\", \"timestamp\": 1}]}\n",
            "{\"id\": \"c\", \"messages\": [{\"id\": 7, \"role\": \"user\", \"content\": \"kept\", \"timestamp\": 1}, {\"id\": 7, \"role\": \"user\", \"content\": \"kept\", \"timestamp\": 2}]}\n",
            "{\"id\": \"d\", \"messages\": [{\"id\": 5, \"role\": \"user\", \"content\": \"kept\", \"timestamp\": 1}, {\"id\": 40, \"role\": \"user\", \"content\": \"kept\", \"timestamp\": 2}]}\n",
        );
        let (_dir, mut db) = store();
        run(&mut db, input, Options::default());
        assert_eq!(
            column(&db, "SELECT session_id || id FROM messages ORDER BY id"),
            ["a40", "a41", "b42", "c43", "c44", "d45", "d46"]
        );
        assert_eq!(
            indexed(&db, "kept"),
            ["40", "41", "42", "43", "44", "45", "46"]
        );
    }

    #[test]
    fn kept_ids_out_of_order_and_below_the_watermark_are_all_indexed() {
        let (_dir, mut db) = store();
        let descending = "{\"id\": \"z\", \"messages\": [{\"id\": 51, \"role\": \"user\", \"content\": \"kept\", \"timestamp\": 1}, {\"id\": 50, \"role\": \"user\", \"content\": \"kept\", \"timestamp\": 2}]}\n";
        run(&mut db, descending, Options::default());
        assert_eq!(indexed(&db, "kept"), ["50", "51"]);
        let below = concat!(
            "{\"id\": \"y\", \"messages\": [{\"id\": 10, \"role\": \"user\", \"content\": \"kept 广西\", \"timestamp\": 1}, {\"id\": 11, \"role\": \"user\", \"content\": \"kept\", \"timestamp\": 2}]}\n",
            "{\"id\": \"w\", \"messages\": [{\"id\": 30, \"role\": \"user\", \"content\": \"kept\", \"timestamp\": 1}, {\"id\": 20, \"role\": \"user\", \"content\": \"kept\", \"timestamp\": 2}]}\n",
        );
        run(&mut db, below, Options::default());
        assert_eq!(indexed(&db, "kept"), ["10", "11", "20", "30", "50", "51"]);
        assert!(column(&db, "SELECT id FROM messages_fts_cjk_pending").is_empty());
        let findings = check::check(&db).expect("check");
        assert!(findings.iter().all(|f| f.ok), "{findings:?}");
    }

    #[test]
    fn a_message_stored_before_or_repeated_in_a_transaction_is_skipped() {
        let first = concat!(
            "{\"id\": \"s\", \"messages\": [",
            "{\"role\": \"user\", \"content\": \"x\", \"timestamp\": 1},",
            "{\"role\": \"user\", \"content\": \"x\", \"timestamp\": 1},",
            "{\"role\": \"assistant\", \"content\": \"x\", \"timestamp\": 1},",
            "{\"role\": \"user\", \"content\": \"x\", \"timestamp\": 2},",
            "{\"role\": \"user\", \"content\": null, \"timestamp\": 1}]}\n",
        );
        let (_dir, mut db) = store();
        let (summary, _) = run(&mut db, first, Options::default());
        assert_eq!((summary.messages, summary.skipped), (4, 1));
        let second = concat!(
            "{\"session_id\": \"s\", \"role\": \"user\", \"content\": \"x\", \"timestamp\": 1}\n",
            "{\"session_id\": \"s\", \"role\": \"user\", \"content\": \"y\", \"timestamp\": 5}\n",
            "{\"session_id\": \"s\", \"role\": \"user\", \"content\": \"y\", \"timestamp\": 5}\n",
        );
        let (summary, _) = run(&mut db, second, Options::default());
        assert_eq!(
            (summary.sessions, summary.messages, summary.skipped),
            (0, 1, 2)
        );
        assert_eq!(
            column(&db, "SELECT message_count FROM sessions WHERE id = 's'"),
            ["5"]
        );
    }

    #[test]
    fn session_counters_are_taken_from_a_session_object_or_counted() {
        let calls = "\"tool_calls\": [{\"id\": \"1\"}, {\"id\": \"2\"}]";
        let input = format!(
            concat!(
                "{{\"id\": \"given\", \"message_count\": 10, \"tool_call_count\": 3, \"messages\": [{{\"role\": \"user\", \"content\": \"a\", \"timestamp\": 1}}]}}\n",
                "{{\"id\": \"counted\", \"messages\": [{{\"role\": \"assistant\", \"content\": \"a\", \"timestamp\": 1, {calls}}}]}}\n",
                "{{\"session_id\": \"lines\", \"role\": \"assistant\", \"content\": \"a\", \"timestamp\": 1, {calls}}}\n",
                "{{\"session_id\": \"lines\", \"role\": \"user\", \"content\": \"b\", \"timestamp\": 2}}\n",
            ),
            calls = calls
        );
        let (_dir, mut db) = store();
        run(&mut db, &input, Options::default());
        let counts =
            "SELECT id || ' ' || message_count || ' ' || tool_call_count FROM sessions ORDER BY id";
        assert_eq!(
            column(&db, counts),
            ["counted 1 2", "given 10 3", "lines 2 2"]
        );
        // A session object for a stored session adds what it brings.
        let more = format!(
            "{{\"id\": \"counted\", \"messages\": [{{\"role\": \"assistant\", \"content\": \"b\", \"timestamp\": 2, {calls}}}]}}\n"
        );
        run(&mut db, &more, Options::default());
        assert_eq!(
            column(&db, counts),
            ["counted 2 4", "given 10 3", "lines 2 2"]
        );
    }

    #[test]
    fn timestamps_filled_after_an_earlier_one_still_move_forward() {
        let (ts, _) = filled(
            serde_json::json!([
                {"role": "user", "content": "a"},
                {"role": "user", "content": "b", "timestamp": 5.0},
                {"role": "user", "content": "c"}
            ]),
            10.0,
        );
        assert_eq!(ts[..2], [10.0, 5.0]);
        assert!((ts[2] - 10.000002).abs() < 1e-9, "{ts:?}");
    }

    #[test]
    fn many_small_transactions_give_the_same_store() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut db = Db::create(&dir.path().join("state.db"), RetryPolicy::default()).expect("db");
        migrate::ensure_schema(&mut db).expect("schema");
        let input = concat!(
            "{\"id\": \"child\", \"source\": \"cli\", \"parent_session_id\": \"root\", \"started_at\": 5, \"messages\": [",
            "{\"id\": 40, \"role\": \"user\", \"content\": \"广西\", \"timestamp\": 6},",
            "{\"id\": 41, \"role\": \"assistant\", \"content\": \"ok\", \"timestamp\": 7}]}\n",
            "{\"session_id\": \"m\", \"role\": \"user\", \"content\": \"one\", \"timestamp\": 1}\n",
            "{\"session_id\": \"m\", \"role\": \"user\", \"content\": \"one\", \"timestamp\": 1}\n",
            "{\"session_id\": \"m\", \"role\": \"user\", \"content\": \"桂林 two\", \"timestamp\": 2}\n",
            "{\"id\": \"root\", \"source\": \"cli\", \"started_at\": 1, \"messages\": [",
            "{\"role\": \"user\", \"content\": \"root\", \"timestamp\": 2}]}\n",
        );
        let options = Options {
            batch_messages: 2,
            chunk_messages: 1,
            now: 100.0,
            ..Options::default()
        };
        let (summary, warnings) = run(&mut db, input, options);
        assert_eq!(
            (summary.sessions, summary.messages, summary.skipped),
            (3, 5, 1)
        );
        assert!(warnings.is_empty(), "{warnings:?}");
        let conn = db.conn();
        let parent: String = conn
            .query_row(
                "SELECT parent_session_id FROM sessions WHERE id = 'child'",
                [],
                |r| r.get(0),
            )
            .expect("parent");
        assert_eq!(parent, "root");
        let ids: Vec<i64> = conn
            .prepare("SELECT id FROM messages ORDER BY id")
            .expect("prepare")
            .query_map([], |r| r.get(0))
            .expect("query")
            .map(|r| r.expect("row"))
            .collect();
        assert_eq!(
            ids,
            [40, 41, 42, 43, 44],
            "kept ids, then AUTOINCREMENT's next ones"
        );
        let m: (i64, i64) = conn
            .query_row(
                "SELECT message_count, tool_call_count FROM sessions WHERE id = 'm'",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .expect("counts");
        assert_eq!(m, (2, 0));
        let findings = check::check(&db).expect("check");
        assert!(findings.iter().all(|f| f.ok), "{findings:?}");

        // Again, in one transaction: everything is already there.
        let (again, _) = run(
            &mut db,
            input,
            Options {
                now: 100.0,
                ..Options::default()
            },
        );
        assert_eq!((again.sessions, again.messages, again.skipped), (0, 0, 6));
    }

    /// The timestamps `fill_timestamps` gives a session's messages, starting at `clock`,
    /// and the clock after them.
    fn filled(messages: serde_json::Value, mut clock: f64) -> (Vec<f64>, f64) {
        let line = serde_json::json!({"id": "s", "messages": messages});
        let mut item =
            crate::sessions::record::parse_line(1, line, &Columns::default()).expect("parse");
        fill_timestamps(&mut item, &mut clock);
        let ts = item.messages.iter().map(|m| m.timestamp.expect("ts"));
        (ts.collect(), clock)
    }

    #[test]
    fn timestamps_fill_from_a_running_clock() {
        let (ts, clock) = filled(
            serde_json::json!([
                {"role": "user", "content": "a"},
                {"role": "user", "content": "b", "timestamp": 50.0},
                {"role": "user", "content": "c"}
            ]),
            10.0,
        );
        assert_eq!(ts, [10.0, 50.0, 50.000001]);
        assert!((clock - 50.000002).abs() < 1e-9, "{clock}");
    }
}
