//! `hermes-index export --after-id N`: the composable form of a push. Every message with
//! an id above N, one per line, as the message objects `hermes-index ingest` accepts (every
//! `messages` column, content decoded, plus the session's `source`), in id order; a last
//! record-free line is never written, so `tail -1 | jq .id` is the next N.

use serde_json::Value;

use crate::io::pyjson::{self, Dumps};
use crate::sessions::export::{decode_content, sql_to_json};
use crate::sessions::{Db, Result};

const DUMPS: Dumps = Dumps {
    indent: None,
    ensure_ascii: false,
    sort_keys: false,
};

/// Writes the lines; returns how many.
pub fn export_after(
    db: &Db,
    after: i64,
    out: &mut dyn FnMut(&str) -> std::io::Result<()>,
) -> Result<u64> {
    let conn = db.conn();
    let err = |e| db.err("exporting messages", e);
    conn.execute_batch("BEGIN").map_err(err)?;
    let mut stmt = conn
        .prepare(
            "SELECT m.*, s.source AS source FROM messages m LEFT JOIN sessions s ON s.id = m.session_id
             WHERE m.id > ?1 ORDER BY m.id",
        )
        .map_err(err)?;
    let names: Vec<String> = stmt.column_names().map(|s| s.to_string()).collect();
    let mut rows = stmt.query([after]).map_err(err)?;
    let mut n = 0;
    while let Some(row) = rows.next().map_err(err)? {
        let mut object = serde_json::Map::with_capacity(names.len());
        for (i, name) in names.iter().enumerate() {
            let mut value = sql_to_json(row.get_ref(i).map_err(err)?);
            if name == "content" {
                decode_content(&mut value);
            }
            object.insert(name.clone(), value);
        }
        let mut line = pyjson::dumps(&Value::Object(object), DUMPS);
        line.push('\n');
        out(&line).map_err(crate::sessions::Error::Input)?;
        n += 1;
    }
    drop(rows);
    drop(stmt);
    let _ = conn.execute_batch("COMMIT");
    Ok(n)
}
