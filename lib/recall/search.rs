//! `search_messages` as discover uses it: the rows a query matches, in upstream's order,
//! filtered by role, visibility and source, at most [`SCAN_LIMIT`] of them — computed lazily.
//!
//! Upstream runs `… MATCH ? ORDER BY rank LIMIT 300` with a snippet and a context query for
//! every row, then keeps a handful. We read every match's BM25 score once (the one cost
//! that ranking cannot avoid), order them ourselves — by `(rank, rowid)`, which is the order
//! FTS5's rank sort hands rows to the join — and look a row's message and session up only
//! when discover asks for the next row. Snippets are computed for the rows discover keeps.
//!
//! The LIKE scan has nothing to rank by; it runs upstream's statement (ordered by time,
//! limited to 300) with the visibility filter added, over the messages the bigram or
//! trigram index finds for its words when they can.

use std::cmp::Ordering;

use rusqlite::types::{Value as SqlValue, ValueRef};
use rusqlite::{Connection, ErrorCode, OptionalExtension, Row};

use super::route::{Indexes, Like, Route};
use super::snippet::cjk_snippet;
use super::store::Store;
use crate::sessions::schema::FTS_TEXT_SQL;

/// `_DISCOVER_SCAN_LIMIT`: discover looks at this many rows at most.
pub const SCAN_LIMIT: usize = 300;

/// The time order of `sort`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sort {
    Rank,
    Newest,
    Oldest,
}

/// The `WHERE` clauses beside the match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Filter {
    /// `m.role IN (…)`; empty means any role.
    pub roles: Vec<String>,
    /// `s.source NOT IN (…)`.
    pub exclude_sources: Vec<String>,
}

/// One matched row that passed the filters.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub id: i64,
    pub session_id: String,
    pub role: SqlValue,
    pub source: SqlValue,
    pub model: SqlValue,
    pub session_started: SqlValue,
}

/// Which table answered, and what its snippets need.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answered {
    Fts { expr: String },
    Trigram { expr: String },
    Bigram { needles: Vec<String> },
    Like { first: String },
    Nothing,
}

/// A search in progress.
pub struct Search<'s> {
    store: &'s Store,
    answered: Answered,
    rows: Rows,
    check: Option<String>,
    params: Vec<String>,
    yielded: usize,
}

enum Rows {
    /// Rowids in match order, looked up and filtered one at a time.
    Ranked(Ranked),
    /// Rows already filtered and ordered by SQL.
    Listed(std::vec::IntoIter<Hit>),
}

/// What went wrong beyond what upstream swallows.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct SearchError(#[from] pub rusqlite::Error);

/// Starts the search for a sanitised, non-empty query.
pub fn search<'s>(
    store: &'s Store,
    sanitized: &str,
    filter: &Filter,
    sort: Sort,
) -> Result<Search<'s>, SearchError> {
    let caps = store.capabilities();
    let empty = |store| {
        Search::new(
            store,
            Answered::Nothing,
            Rows::Listed(Vec::new().into_iter()),
            filter,
        )
    };
    if !caps.fts {
        return Ok(empty(store));
    }
    let indexes = Indexes {
        trigram: caps.trigram,
        bigram: caps.bigram,
    };
    let mut route = super::route::route(sanitized, indexes);
    loop {
        match route {
            Route::Fts { expr } => {
                return Ok(match ranked(store, "messages_fts", &expr, sort)? {
                    Some(rows) => {
                        Search::new(store, Answered::Fts { expr }, Rows::Ranked(rows), filter)
                    }
                    None => empty(store),
                });
            }
            Route::Bigram { expr, needles } => {
                match ranked(store, "messages_fts_cjk", &expr, sort)? {
                    Some(rows) => {
                        return Ok(Search::new(
                            store,
                            Answered::Bigram { needles },
                            Rows::Ranked(rows),
                            filter,
                        ));
                    }
                    None => {
                        route = super::route::route(
                            sanitized,
                            Indexes {
                                bigram: false,
                                ..indexes
                            },
                        )
                    }
                }
            }
            Route::Trigram { expr, like } => {
                match ranked(store, "messages_fts_trigram", &expr, sort)? {
                    Some(rows) => {
                        return Ok(Search::new(
                            store,
                            Answered::Trigram { expr },
                            Rows::Ranked(rows),
                            filter,
                        ));
                    }
                    None => route = Route::Like(like),
                }
            }
            Route::Like(like) => {
                let hits = like_scan(store, &like, filter)?;
                return Ok(Search::new(
                    store,
                    Answered::Like {
                        first: like.tokens.first().cloned().unwrap_or_default(),
                    },
                    Rows::Listed(hits.into_iter()),
                    filter,
                ));
            }
        }
    }
}

impl<'s> Search<'s> {
    fn new(store: &'s Store, answered: Answered, rows: Rows, filter: &Filter) -> Search<'s> {
        let (check, params) = match rows {
            Rows::Ranked(_) => {
                let (sql, params) = row_check(filter);
                (Some(sql), params)
            }
            Rows::Listed(_) => (None, Vec::new()),
        };
        Search {
            store,
            answered,
            rows,
            check,
            params,
            yielded: 0,
        }
    }

    /// The next row in upstream's order, or `None` after the last one (or the 300th).
    pub fn next_hit(&mut self) -> Result<Option<Hit>, SearchError> {
        if self.yielded >= SCAN_LIMIT {
            return Ok(None);
        }
        let hit = match &mut self.rows {
            Rows::Listed(rows) => rows.next(),
            Rows::Ranked(ranked) => {
                let conn = self.store.conn();
                let check = self.check.as_deref().unwrap_or_default();
                let mut stmt = conn.prepare_cached(check)?;
                let mut found = None;
                while let Some(rowid) = ranked.next(conn)? {
                    let mut params: Vec<&dyn rusqlite::ToSql> = vec![&rowid];
                    params.extend(self.params.iter().map(|p| p as &dyn rusqlite::ToSql));
                    let mut rows = stmt.query(params.as_slice())?;
                    if let Some(row) = rows.next()? {
                        found = Some(hit(rowid, row, 0)?);
                        break;
                    }
                }
                found
            }
        };
        if hit.is_some() {
            self.yielded += 1;
        }
        Ok(hit)
    }

    /// The snippet upstream's statement would have given `hit`.
    pub fn snippet(&self, hit: &Hit) -> Result<String, SearchError> {
        let conn = self.store.conn();
        let value: Option<SqlValue> = match &self.answered {
            Answered::Fts { expr } => snippet_sql(conn, "messages_fts", expr, hit.id)?,
            Answered::Trigram { expr } => snippet_sql(conn, "messages_fts_trigram", expr, hit.id)?,
            Answered::Bigram { needles } => {
                let text: Option<String> = conn
                    .prepare_cached(&format!("SELECT {FTS_TEXT_SQL} FROM messages WHERE id = ?1"))?
                    .query_row([hit.id], |r| Ok(text(r.get_ref(0)?)))
                    .optional()?;
                text.map(|t| SqlValue::Text(cjk_snippet(&t, needles)))
            }
            Answered::Like { first } => conn
                .prepare_cached(
                    "SELECT substr(content, max(1, instr(content, ?1) - 40), 120) FROM messages WHERE id = ?2",
                )?
                .query_row((first, hit.id), |r| r.get(0))
                .optional()?,
            Answered::Nothing => None,
        };
        Ok(match value {
            Some(SqlValue::Text(s)) => s,
            Some(SqlValue::Null) | None => String::new(),
            Some(other) => super::store::sql_text(&other),
        })
    }
}

fn snippet_sql(
    conn: &Connection,
    table: &str,
    expr: &str,
    rowid: i64,
) -> rusqlite::Result<Option<SqlValue>> {
    conn.prepare_cached(&format!(
        "SELECT snippet({table}, 0, '>>>', '<<<', '...', 40) FROM {table} WHERE {table} MATCH ?1 AND rowid = ?2"
    ))?
    .query_row((expr, rowid), |r| r.get(0))
    .optional()
}

/// The per-row filter: one row back when the message passes every `WHERE` clause upstream
/// applies beside the match (`?1` is the rowid).
fn row_check(filter: &Filter) -> (String, Vec<String>) {
    let (clauses, params) = filter_clauses(filter, 1);
    (
        format!(
            "SELECT m.session_id, m.role, s.source, s.model, s.started_at \
             FROM messages m JOIN sessions s ON s.id = m.session_id \
             WHERE m.id = ?1 AND (m.active = 1 OR m.compacted = 1){clauses}"
        ),
        params,
    )
}

/// ` AND s.source NOT IN (…) AND m.role IN (…)` with the placeholders after the first
/// `taken` ones, and their values.
fn filter_clauses(filter: &Filter, taken: usize) -> (String, Vec<String>) {
    let mut sql = String::new();
    let mut params = Vec::new();
    if !filter.exclude_sources.is_empty() {
        sql.push_str(&format!(
            " AND s.source NOT IN ({})",
            placeholders(taken + 1, filter.exclude_sources.len())
        ));
        params.extend(filter.exclude_sources.iter().cloned());
    }
    if !filter.roles.is_empty() {
        sql.push_str(&format!(
            " AND m.role IN ({})",
            placeholders(taken + 1 + params.len(), filter.roles.len())
        ));
        params.extend(filter.roles.iter().cloned());
    }
    (sql, params)
}

/// A hit from `session_id, role, source, model, started_at` at `first` onwards.
fn hit(id: i64, row: &Row<'_>, first: usize) -> rusqlite::Result<Hit> {
    Ok(Hit {
        id,
        session_id: text(row.get_ref(first)?),
        role: row.get(first + 1)?,
        source: row.get(first + 2)?,
        model: row.get(first + 3)?,
        session_started: row.get(first + 4)?,
    })
}

fn placeholders(first: usize, count: usize) -> String {
    (first..first + count)
        .map(|i| format!("?{i}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn text(value: ValueRef<'_>) -> String {
    match value {
        ValueRef::Text(b) | ValueRef::Blob(b) => String::from_utf8_lossy(b).into_owned(),
        ValueRef::Integer(i) => i.to_string(),
        ValueRef::Real(f) => crate::io::pyjson::py_float_repr(f),
        ValueRef::Null => String::new(),
    }
}

/// Whether FTS5's refusal of a query is one upstream turns into "no rows" (any
/// `OperationalError`), rather than a failure (a damaged file).
fn swallowed(e: &rusqlite::Error) -> bool {
    !matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase | ErrorCode::OutOfMemory)
    )
}

/// Every match of `expr` in `table`, in upstream's order; `None` when FTS5 refuses the query.
fn ranked(
    store: &Store,
    table: &str,
    expr: &str,
    sort: Sort,
) -> Result<Option<Ranked>, SearchError> {
    let conn = store.conn();
    let result = match sort {
        Sort::Rank => collect(
            conn,
            &format!("SELECT rowid, bm25({table}) FROM {table} WHERE {table} MATCH ?1"),
            expr,
            |r| Ok(Key::Rank(r.get(1)?)),
        ),
        Sort::Newest | Sort::Oldest => collect(
            conn,
            &format!(
                "SELECT {table}.rowid, m.timestamp FROM {table} \
                 JOIN messages m ON m.id = {table}.rowid WHERE {table} MATCH ?1"
            ),
            expr,
            |r| Ok(Key::Time(SortValue::from(r.get_ref(1)?))),
        ),
    };
    match result {
        Ok(entries) => Ok(Some(Ranked {
            entries,
            sorted: 0,
            next: 0,
            sort,
            table: table.to_string(),
            expr: expr.to_string(),
        })),
        Err(e) if swallowed(&e) => Ok(None),
        Err(e) => Err(SearchError(e)),
    }
}

fn collect(
    conn: &Connection,
    sql: &str,
    expr: &str,
    key: impl Fn(&rusqlite::Row<'_>) -> rusqlite::Result<Key>,
) -> rusqlite::Result<Vec<Entry>> {
    let mut stmt = conn.prepare_cached(sql)?;
    let mut rows = stmt.query([expr])?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        out.push(Entry {
            rowid: row.get(0)?,
            key: key(row)?,
            rank: None,
        });
    }
    Ok(out)
}

/// A value of `m.timestamp` ordered as SQLite orders values: NULL, numbers, text, blobs.
#[derive(Debug, Clone, PartialEq)]
enum SortValue {
    Null,
    Number(f64),
    Text(Vec<u8>),
    Blob(Vec<u8>),
}

impl From<ValueRef<'_>> for SortValue {
    fn from(v: ValueRef<'_>) -> SortValue {
        match v {
            ValueRef::Null => SortValue::Null,
            ValueRef::Integer(i) => SortValue::Number(i as f64),
            ValueRef::Real(f) => SortValue::Number(f),
            ValueRef::Text(t) => SortValue::Text(t.to_vec()),
            ValueRef::Blob(b) => SortValue::Blob(b.to_vec()),
        }
    }
}

impl SortValue {
    fn class(&self) -> u8 {
        match self {
            SortValue::Null => 0,
            SortValue::Number(_) => 1,
            SortValue::Text(_) => 2,
            SortValue::Blob(_) => 3,
        }
    }

    fn cmp(&self, other: &SortValue) -> Ordering {
        match (self, other) {
            (SortValue::Number(a), SortValue::Number(b)) => a.total_cmp(b),
            (SortValue::Text(a), SortValue::Text(b)) | (SortValue::Blob(a), SortValue::Blob(b)) => {
                a.cmp(b)
            }
            _ => self.class().cmp(&other.class()),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Key {
    Rank(f64),
    Time(SortValue),
}

#[derive(Debug, Clone)]
struct Entry {
    rowid: i64,
    key: Key,
    /// The BM25 rank, fetched only to order rows with equal timestamps.
    rank: Option<f64>,
}

/// Matches in upstream's order, sorted only as far as they are read.
struct Ranked {
    entries: Vec<Entry>,
    /// `entries[..sorted]` is in final order (ties on the timestamp not yet broken).
    sorted: usize,
    next: usize,
    sort: Sort,
    table: String,
    expr: String,
}

impl Ranked {
    /// Sorts at least through index `i` (doubling the sorted prefix each time).
    fn sort_through(&mut self, i: usize) {
        let len = self.entries.len();
        while self.sorted <= i && self.sorted < len {
            let want = (self.sorted * 2).max(64).max(i + 1).min(len);
            let rest = &mut self.entries[self.sorted..];
            let nth = want - self.sorted - 1;
            let sort = self.sort;
            let cmp = |a: &Entry, b: &Entry| order_with(sort, a, b);
            if nth + 1 < rest.len() {
                rest.select_nth_unstable_by(nth, cmp);
            }
            rest[..=nth].sort_unstable_by(cmp);
            self.sorted = want;
        }
    }

    fn next(&mut self, conn: &Connection) -> rusqlite::Result<Option<i64>> {
        if self.next >= self.entries.len() {
            return Ok(None);
        }
        self.sort_through(self.next);
        if matches!(self.sort, Sort::Newest | Sort::Oldest)
            && self.entries[self.next].rank.is_none()
        {
            self.break_time_ties(conn)?;
        }
        let rowid = self.entries[self.next].rowid;
        self.next += 1;
        Ok(Some(rowid))
    }

    /// Orders the run of rows sharing the next row's timestamp by rank, as `ORDER BY
    /// m.timestamp, rank` does.
    fn break_time_ties(&mut self, conn: &Connection) -> rusqlite::Result<()> {
        let start = self.next;
        let mut end = start + 1;
        loop {
            self.sort_through(end);
            if end >= self.entries.len() || self.entries[end].key != self.entries[start].key {
                break;
            }
            end += 1;
        }
        if end - start == 1 {
            self.entries[start].rank = Some(0.0);
            return Ok(());
        }
        let mut stmt = conn.prepare_cached(&format!(
            "SELECT bm25({t}) FROM {t} WHERE {t} MATCH ?1 AND rowid = ?2",
            t = self.table
        ))?;
        for entry in &mut self.entries[start..end] {
            entry.rank = Some(stmt.query_row((&self.expr, entry.rowid), |r| r.get(0))?);
        }
        self.entries[start..end].sort_by(|a, b| {
            let (x, y) = (a.rank.unwrap_or(0.0), b.rank.unwrap_or(0.0));
            x.total_cmp(&y).then(a.rowid.cmp(&b.rowid))
        });
        Ok(())
    }
}

fn order_with(sort: Sort, a: &Entry, b: &Entry) -> Ordering {
    let primary = match (&a.key, &b.key) {
        (Key::Rank(x), Key::Rank(y)) => x.total_cmp(y),
        (Key::Time(x), Key::Time(y)) => match sort {
            Sort::Newest => y.cmp(x),
            _ => x.cmp(y),
        },
        _ => Ordering::Equal,
    };
    primary.then(a.rowid.cmp(&b.rowid))
}

/// Upstream's LIKE statement with the visibility filter added, the first 300 rows.
///
/// When every word can be looked up in an index, the scan is restricted to the messages
/// those lookups find (`m.id IN (…)`), a superset of the rows the LIKE clauses accept: the
/// bigram index holds every CJK word of content, tool name and tool calls; the trigram
/// table every substring of three characters or more, case-folded further than LIKE folds.
/// The LIKE clauses still decide, and rows reach the time sort in id order either way, so
/// the answer is the full scan's.
fn like_scan(store: &Store, like: &Like, filter: &Filter) -> rusqlite::Result<Vec<Hit>> {
    let caps = store.capabilities();
    let candidates = candidate_lookups(like, caps.bigram, caps.trigram);
    if let Some((subquery, params)) = &candidates {
        match like_sql(store.conn(), like, filter, Some((subquery, params))) {
            Ok(hits) => return Ok(hits),
            Err(e) if swallowed(&e) => {}
            Err(e) => return Err(e),
        }
    }
    like_sql(store.conn(), like, filter, None)
}

/// `SELECT rowid … UNION ALL …` over the indexes that find each word, with its parameters;
/// `None` when a word has no index (a one- or two-character word that is not CJK).
fn candidate_lookups(like: &Like, bigram: bool, trigram: bool) -> Option<(String, Vec<String>)> {
    let mut parts = Vec::new();
    let mut params = Vec::new();
    for token in &like.tokens {
        let cjk_word = !token.is_empty() && token.chars().all(crate::sessions::cjk::is_token_char);
        if bigram && cjk_word {
            params.push(crate::sessions::cjk::match_run(token)?);
            parts.push(format!(
                "SELECT rowid FROM messages_fts_cjk WHERE messages_fts_cjk MATCH ?{}",
                params.len()
            ));
        } else if trigram && token.chars().count() >= 3 {
            params.push(format!("\"{}\"", token.replace('"', "\"\"")));
            parts.push(format!(
                "SELECT rowid FROM messages_fts_trigram WHERE messages_fts_trigram MATCH ?{}",
                params.len()
            ));
        } else {
            return None;
        }
    }
    (!parts.is_empty()).then(|| (parts.join(" UNION ALL "), params))
}

fn like_sql(
    conn: &Connection,
    like: &Like,
    filter: &Filter,
    candidates: Option<(&String, &Vec<String>)>,
) -> rusqlite::Result<Vec<Hit>> {
    let mut params: Vec<String> = Vec::new();
    let mut restrict = String::new();
    if let Some((subquery, lookup)) = candidates {
        params.extend(lookup.iter().cloned());
        restrict = format!("m.id IN ({subquery}) AND ");
    }
    let mut clauses = Vec::new();
    for token in &like.tokens {
        let escaped = token
            .replace('\\', "\\\\")
            .replace('%', "\\%")
            .replace('_', "\\_");
        let n = params.len();
        clauses.push(format!(
            "(m.content LIKE ?{} ESCAPE '\\' OR m.tool_name LIKE ?{} ESCAPE '\\' OR m.tool_calls LIKE ?{} ESCAPE '\\')",
            n + 1,
            n + 2,
            n + 3
        ));
        let pattern = format!("%{escaped}%");
        params.extend([pattern.clone(), pattern.clone(), pattern]);
    }
    let mut sql = format!(
        "SELECT m.id, m.session_id, m.role, s.source, s.model, s.started_at \
         FROM messages m JOIN sessions s ON s.id = m.session_id \
         WHERE {restrict}({}) AND (m.active = 1 OR m.compacted = 1)",
        clauses.join(" OR ")
    );
    let (filters, filter_params) = filter_clauses(filter, params.len());
    sql.push_str(&filters);
    params.extend(filter_params);
    sql.push_str(&format!(" ORDER BY m.timestamp DESC LIMIT {SCAN_LIMIT}"));
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt.query_map(rusqlite::params_from_iter(params.iter()), |r| {
        hit(r.get(0)?, r, 1)
    })?;
    rows.collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A store holding `(source, role, content, timestamp)` messages, one session per
    /// source (named after it), ids in the order given.
    fn store(rows: &[(&str, &str, &str, f64)]) -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("state.db");
        let (db, _, _) = crate::sessions::open_for_write(&path, true, &|_| {}).expect("create");
        for (source, role, content, ts) in rows {
            db.conn()
                .execute(
                    "INSERT OR IGNORE INTO sessions (id, source, started_at) VALUES (?1, ?1, 1.0)",
                    [source],
                )
                .expect("session");
            db.conn()
                .execute(
                    "INSERT INTO messages (session_id, role, content, timestamp, active) VALUES (?1, ?2, ?3, ?4, 1)",
                    (source, role, content, ts),
                )
                .expect("message");
        }
        db.close();
        let store = Store::open(&path).expect("open");
        (dir, store)
    }

    /// A store of `rows` whose database then had `sql` run on it (to damage or replace an
    /// index), opened again.
    fn altered(rows: &[(&str, &str, &str, f64)], sql: &str) -> (tempfile::TempDir, Store) {
        let (dir, store) = store(rows);
        drop(store);
        let path = dir.path().join("state.db");
        let conn = Connection::open(&path).expect("open");
        conn.execute_batch(sql).expect("alter the database");
        drop(conn);
        let store = Store::open(&path).expect("open");
        (dir, store)
    }

    /// No role asked for, no source left out.
    fn unfiltered() -> Filter {
        Filter {
            roles: vec![],
            exclude_sources: vec![],
        }
    }

    fn ids(store: &Store, query: &str, sort: Sort) -> Vec<i64> {
        let filter = Filter {
            roles: vec!["user".into(), "assistant".into()],
            exclude_sources: vec!["tool".into()],
        };
        let mut s = search(store, query, &filter, sort).expect("search");
        let mut out = Vec::new();
        while let Some(hit) = s.next_hit().expect("hit") {
            out.push(hit.id);
        }
        out
    }

    #[test]
    fn equal_ranks_keep_id_order_and_filters_apply() {
        let (_dir, store) = store(&[
            ("cli", "user", "alpha beta", 5.0),
            ("cli", "user", "alpha beta", 4.0),
            ("tool", "user", "alpha beta", 3.0),
            ("cli", "tool", "alpha beta", 2.0),
            ("cli", "assistant", "alpha alpha", 1.0),
            ("cli", "user", "alpha beta", 6.0),
        ]);
        // The denser row first, then the tie in id order; hidden source and role left out.
        assert_eq!(ids(&store, "alpha", Sort::Rank), [5, 1, 2, 6]);
        assert_eq!(ids(&store, "alpha", Sort::Newest), [6, 1, 2, 5]);
        assert_eq!(ids(&store, "alpha", Sort::Oldest), [5, 2, 1, 6]);
        assert_eq!(ids(&store, "\"beta alpha\"", Sort::Rank), Vec::<i64>::new());
        assert_eq!(
            ids(&store, "a - b", Sort::Rank),
            Vec::<i64>::new(),
            "FTS5 refuses it"
        );
    }

    #[test]
    fn equal_times_are_ordered_by_rank_then_id() {
        let (_dir, store) = store(&[
            ("cli", "user", "gamma filler filler filler", 7.0),
            ("cli", "user", "gamma gamma", 7.0),
            ("cli", "user", "gamma filler", 7.0),
            ("cli", "user", "gamma filler", 7.0),
            ("cli", "user", "gamma", 8.0),
        ]);
        assert_eq!(ids(&store, "gamma", Sort::Newest), [5, 2, 3, 4, 1]);
        assert_eq!(ids(&store, "gamma", Sort::Oldest), [2, 3, 4, 1, 5]);
    }

    #[test]
    fn the_scan_stops_at_300_rows() {
        let rows: Vec<(&str, &str, &str, f64)> = (0..320)
            .map(|i| ("cli", "user", "delta", i as f64))
            .collect();
        let (_dir, store) = store(&rows);
        assert_eq!(ids(&store, "delta", Sort::Rank).len(), SCAN_LIMIT);
    }

    #[test]
    fn like_words_are_looked_up_where_an_index_has_them() {
        let like = |words: &[&str]| Like {
            tokens: words.iter().map(|w| w.to_string()).collect(),
        };
        assert_eq!(
            candidate_lookups(&like(&["kubernetes", "部署"]), true, true),
            Some((
                "SELECT rowid FROM messages_fts_trigram WHERE messages_fts_trigram MATCH ?1 \
                 UNION ALL SELECT rowid FROM messages_fts_cjk WHERE messages_fts_cjk MATCH ?2"
                    .into(),
                vec!["\"kubernetes\"".into(), "\"部署\"".into()]
            ))
        );
        assert_eq!(candidate_lookups(&like(&["ab", "部署"]), true, true), None);
        assert_eq!(candidate_lookups(&like(&["部署"]), false, false), None);
        assert!(
            candidate_lookups(&like(&["部署x"]), true, true).is_some(),
            "trigram"
        );
    }

    #[test]
    fn like_scans_with_and_without_candidates_agree() {
        let (_dir, store) = store(&[
            ("cli", "user", "Kubernetes 部署 is done", 1.0),
            ("cli", "assistant", "部署完成", 3.0),
            ("cli", "user", "KUBERNETES only", 2.0),
            ("cli", "user", "nothing here", 4.0),
            ("cli", "user", "kubernetés accent", 5.0),
        ]);
        let filter = unfiltered();
        let like = Like {
            tokens: vec!["kubernetes".into(), "部署".into()],
        };
        let fast = like_scan(&store, &like, &filter).expect("fast");
        let full = like_sql(store.conn(), &like, &filter, None).expect("full");
        let ids: Vec<i64> = fast.iter().map(|h| h.id).collect();
        assert_eq!(ids, [2, 3, 1]);
        assert_eq!(fast, full);
    }

    /// Each index answers with its own snippet: FTS5's and the trigram table's `snippet()`,
    /// our bigram highlighter, the LIKE scan's 120 characters from 40 before the first word,
    /// and nothing when no index answered (FTS5 refused the query).
    #[test]
    fn each_index_answers_with_its_own_snippet() {
        let long = format!("{}部署x{}", "a".repeat(50), "b".repeat(150));
        let (_dir, store) = store(&[
            ("cli", "user", "部署完成 today we ship kubernetes", 1.0),
            (
                "cli",
                "assistant",
                "the 部署完成x plan and more words around it to make the snippet cut somewhere in the middle of a long text that goes on",
                2.0,
            ),
            ("cli", "user", &long, 3.0),
        ]);
        let filter = unfiltered();
        let answers = |query: &str| {
            let mut s = search(&store, query, &filter, Sort::Rank).expect("search");
            let mut out = Vec::new();
            while let Some(hit) = s.next_hit().expect("hit") {
                out.push((hit.id, s.snippet(&hit).expect("snippet")));
            }
            (s.answered.clone(), out)
        };
        let (answered, rows) = answers("kubernetes");
        assert_eq!(
            answered,
            Answered::Fts {
                expr: "kubernetes".into()
            }
        );
        assert_eq!(
            rows,
            [(1, "部署完成 today we ship >>>kubernetes<<<  ".to_string())]
        );
        let (answered, rows) = answers("部署 AND 完成");
        assert_eq!(
            answered,
            Answered::Bigram {
                needles: vec!["部署".into(), "完成".into()]
            }
        );
        assert_eq!(
            rows,
            [
                (1, ">>>部署完成<<< today we ship kubernetes  ".to_string()),
                (
                    2,
                    "the >>>部署完成<<<x plan and more words around it ...".to_string()
                )
            ]
        );
        let (answered, rows) = answers("部署完成x");
        assert_eq!(
            answered,
            Answered::Trigram {
                expr: "\"部署完成x\"".into()
            }
        );
        assert_eq!(
            rows,
            [(
                2,
                "the >>>部署完成x<<< plan and more words around it to...".to_string()
            )]
        );
        let (answered, rows) = answers("部署x");
        assert_eq!(
            answered,
            Answered::Like {
                first: "部署x".into()
            }
        );
        assert_eq!(
            rows,
            [(3, format!("{}部署x{}", "a".repeat(40), "b".repeat(77)))]
        );
        let (answered, rows) = answers("a - b");
        assert_eq!(answered, Answered::Nothing);
        assert!(rows.is_empty());
        let refused = search(&store, "a - b", &filter, Sort::Rank).expect("search");
        let hit = search(&store, "kubernetes", &filter, Sort::Rank)
            .expect("search")
            .next_hit()
            .expect("hit")
            .expect("a row");
        assert_eq!(refused.snippet(&hit).expect("snippet"), "");
    }

    /// By time, timestamps of any type sort as SQLite sorts values: numbers, then text, then
    /// blobs (each in its own order), newest first reversing all of it.
    #[test]
    fn timestamps_of_any_type_sort_as_sqlite_sorts_them() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("state.db");
        let (db, _, _) = crate::sessions::open_for_write(&path, true, &|_| {}).expect("create");
        db.conn()
            .execute(
                "INSERT INTO sessions (id, source, started_at) VALUES ('s', 'cli', 1.0)",
                [],
            )
            .expect("session");
        for (content, timestamp) in [
            ("omega a", "x'00'"),
            ("omega b", "'text'"),
            ("omega c", "5"),
            ("omega d", "2.5"),
            ("omega e", "'abc'"),
            ("omega f", "x'01'"),
        ] {
            db.conn()
                .execute(
                    &format!(
                        "INSERT INTO messages (session_id, role, content, timestamp, active) \
                         VALUES ('s', 'user', '{content}', {timestamp}, 1)"
                    ),
                    [],
                )
                .expect("message");
        }
        db.close();
        let store = Store::open(&path).expect("open");
        assert_eq!(ids(&store, "omega", Sort::Oldest), [4, 3, 5, 2, 1, 6]);
        assert_eq!(ids(&store, "omega", Sort::Newest), [6, 1, 2, 5, 3, 4]);
    }

    /// FTS5's refusal of a query is no rows, as upstream's `OperationalError`; a damaged or
    /// foreign file, or memory running out, is a failure.
    #[test]
    fn only_a_refused_query_is_no_rows() {
        let failure = |code| {
            rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(code), Some("x".into()))
        };
        assert!(swallowed(&failure(rusqlite::ffi::SQLITE_ERROR)));
        assert!(!swallowed(&failure(rusqlite::ffi::SQLITE_CORRUPT)));
        assert!(!swallowed(&failure(rusqlite::ffi::SQLITE_NOTADB)));
        assert!(!swallowed(&failure(rusqlite::ffi::SQLITE_NOMEM)));
    }

    /// Rows are sorted only as far as they are read, in chunks: past the first chunk (64
    /// rows) the order is still the full sort's.
    #[test]
    fn a_partial_sort_reads_as_the_full_sort() {
        let rows: Vec<(&str, &str, &str, f64)> = (0..100)
            .map(|i| ("cli", "user", "epsilon", f64::from(100 - i)))
            .collect();
        let (_dir, store) = store(&rows);
        let oldest: Vec<i64> = (1..=100).rev().collect();
        assert_eq!(ids(&store, "epsilon", Sort::Oldest), oldest);
        assert_eq!(
            ids(&store, "epsilon", Sort::Newest),
            (1..=100).collect::<Vec<i64>>()
        );
    }

    /// A damaged index is a failure, not an empty answer.
    #[test]
    fn a_damaged_index_is_an_error() {
        let (_dir, store) = altered(
            &[("cli", "user", "zeta", 1.0)],
            "DELETE FROM messages_fts_data",
        );
        let filter = unfiltered();
        let result = search(&store, "zeta", &filter, Sort::Rank).map(|s| s.answered.clone());
        assert!(result.is_err());
    }

    /// A damaged index that would have narrowed the LIKE scan is a failure too, not a reason
    /// to scan without it.
    #[test]
    fn a_damaged_lookup_index_is_an_error() {
        let (_dir, store) = altered(
            &[("cli", "user", "部署x short", 1.0)],
            "DELETE FROM messages_fts_trigram_data",
        );
        let filter = unfiltered();
        let like = Like {
            tokens: vec!["部署x".into()],
        };
        assert!(like_scan(&store, &like, &filter).is_err());
    }

    /// When the CJK index refuses a query, the search asks the other routes (as when the
    /// index is missing) instead of asking it again.
    #[test]
    fn a_cjk_index_that_refuses_the_query_falls_back() {
        let (_dir, store) = altered(
            &[("cli", "user", "部署x short", 1.0)],
            "DROP TABLE messages_fts_cjk; CREATE TABLE messages_fts_cjk (content TEXT);",
        );
        let filter = unfiltered();
        let mut s = search(&store, "部署", &filter, Sort::Rank).expect("search");
        assert_eq!(
            s.answered,
            Answered::Like {
                first: "部署".into()
            }
        );
        assert_eq!(s.next_hit().expect("hit").map(|h| h.id), Some(1));
    }
}
