//! Test helpers for the sessions area: the state.db of a temp home, and its rows.

use std::path::{Path, PathBuf};

/// `state.db` of `home`.
pub fn state_db(home: &Path) -> PathBuf {
    home.join("state.db")
}

/// A read-only connection to `home`'s state.db (opened and closed per call).
pub fn conn(home: &Path) -> rusqlite::Connection {
    rusqlite::Connection::open_with_flags(
        state_db(home),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    )
    .expect("open state.db")
}

/// The single integer `sql` returns.
pub fn int(home: &Path, sql: &str) -> i64 {
    conn(home).query_row(sql, [], |r| r.get(0)).expect(sql)
}

/// Every row of a one-column text query.
pub fn texts(home: &Path, sql: &str) -> Vec<String> {
    let conn = conn(home);
    let mut stmt = conn.prepare(sql).expect(sql);
    stmt.query_map([], |r| r.get::<_, String>(0))
        .expect(sql)
        .map(|r| r.expect("row"))
        .collect()
}

/// The message ids the CJK index finds for `query` (tokenised by our tokeniser).
pub fn cjk_ids(home: &Path, query: &str) -> Vec<i64> {
    let expr = hermes_loop::sessions::cjk::match_query(query).expect("a CJK query");
    let conn = conn(home);
    let mut stmt = conn
        .prepare(
            "SELECT rowid FROM messages_fts_cjk WHERE messages_fts_cjk MATCH ?1 ORDER BY rowid",
        )
        .expect("prepare");
    stmt.query_map([expr], |r| r.get(0))
        .expect("query")
        .map(|r| r.expect("row"))
        .collect()
}

/// stdout of a command as parsed JSON lines.
pub fn json_lines(stdout: &[u8]) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

/// A file under `testdata/sessions/`.
pub fn fixture(name: &str) -> PathBuf {
    super::testdata(&format!("sessions/{name}"))
}
