//! `hermes-index check [--repair]`: is the store sound, and are its indexes right?
//!
//! Checks, each reported whether it passes or not:
//! - `integrity`: `PRAGMA integrity_check` (pages, b-tree indexes, and with this SQLite the
//!   FTS5 indexes against their content);
//! - `schema`: version 22, every upstream table, index, column and trigger present;
//! - `messages_fts`, `messages_fts_trigram`: one row per message with the current text;
//! - `cjk`: the watermark lag, the change log, and every indexed document as the tokeniser
//!   would write it now.
//!
//! `--repair` fixes what it can (migrate the schema and recreate missing triggers, `REINDEX`,
//! repopulate an FTS table, rebuild or catch up the CJK index) and checks again. Damage to
//! the tables themselves is not repairable here: it is reported, with a hint.

use std::collections::HashMap;

use rayon::prelude::*;
use rusqlite::Connection;
use rusqlite::types::ValueRef;

use super::cjk_index::{self, Lag};
use super::db::Db;
use super::error::{Error, Result};
use super::schema::{FTS_TABLES, SCHEMA_VERSION};
use super::{fts, migrate};

/// One check's outcome.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Finding {
    pub check: &'static str,
    pub ok: bool,
    pub detail: String,
}

/// One repair step taken.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Repair {
    pub action: String,
    pub detail: String,
}

/// Runs every check (read-only).
pub fn check(db: &Db) -> Result<Vec<Finding>> {
    let conn = db.conn();
    let err = |e| db.err("checking", e);
    let mut findings = vec![integrity(conn).map_err(err)?];
    findings.push(schema(db)?);
    let have_messages = db.has_table("messages")?;
    for table in &FTS_TABLES {
        findings.push(
            if have_messages && db.has_table(&format!("{}_content", table.name))? {
                let c = fts::consistency(conn, table).map_err(err)?;
                Finding {
                    check: table.name,
                    ok: c.is_ok(),
                    detail: format!(
                        "{} rows; {} messages missing, {} orphaned, {} stale",
                        c.rows, c.missing, c.orphaned, c.stale
                    ),
                }
            } else {
                Finding {
                    check: table.name,
                    ok: false,
                    detail: "missing".into(),
                }
            },
        );
    }
    findings.push(cjk(conn).map_err(err)?);
    Ok(findings)
}

fn integrity(conn: &Connection) -> rusqlite::Result<Finding> {
    let mut stmt = conn.prepare("PRAGMA integrity_check(20)")?;
    let lines: Vec<String> = stmt
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let ok = lines.len() == 1 && lines[0] == "ok";
    Ok(Finding {
        check: "integrity",
        ok,
        detail: lines.join("; "),
    })
}

fn schema(db: &Db) -> Result<Finding> {
    let version = db.schema_version()?;
    let plan = migrate::inspect(db.conn()).map_err(|e| db.err("checking the schema", e))?;
    let mut problems = Vec::new();
    match version {
        Some(SCHEMA_VERSION) => {}
        Some(v) if v > SCHEMA_VERSION => {
            problems.push(format!("version {v} is newer than {SCHEMA_VERSION}"))
        }
        Some(v) => problems.push(format!("version {v} needs migrating to {SCHEMA_VERSION}")),
        None => problems.push("no schema_version".into()),
    }
    if !plan.missing_objects.is_empty() {
        problems.push(format!("missing {}", plan.missing_objects.join(", ")));
    }
    if !plan.missing_columns.is_empty() {
        problems.push(format!(
            "missing columns {}",
            plan.missing_columns.join(", ")
        ));
    }
    if plan.null_active {
        problems.push("messages with NULL active".into());
    }
    Ok(Finding {
        check: "schema",
        ok: problems.is_empty(),
        detail: if problems.is_empty() {
            format!("version {SCHEMA_VERSION}, every table, index, column and trigger present")
        } else {
            problems.join("; ")
        },
    })
}

/// The CJK index: objects, lag, and every document below the watermark as it should be.
fn cjk(conn: &Connection) -> rusqlite::Result<Finding> {
    let lag = cjk_index::lag(conn)?;
    if !lag.present {
        return Ok(Finding {
            check: "cjk",
            ok: false,
            detail: format!(
                "missing or built by another tokeniser; {} messages unindexed",
                lag.behind
            ),
        });
    }
    let (missing, orphaned, stale) = cjk_consistency(conn, &lag)?;
    let ok = lag.is_current() && missing == 0 && orphaned == 0 && stale == 0;
    Ok(Finding {
        check: "cjk",
        ok,
        detail: format!(
            "watermark {} of {}; {} behind, {} pending; {} missing, {} orphaned, {} stale",
            lag.watermark, lag.max_id, lag.behind, lag.pending, missing, orphaned, stale
        ),
    })
}

/// Compares stored documents with freshly tokenised ones, for the rows the watermark
/// claims are indexed (at or below it and not in the change log).
fn cjk_consistency(conn: &Connection, lag: &Lag) -> rusqlite::Result<(u64, u64, u64)> {
    let pending: std::collections::HashSet<i64> = {
        let mut stmt = conn.prepare("SELECT id FROM messages_fts_cjk_pending")?;
        stmt.query_map([], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?
    };
    let rows: Vec<(i64, [Option<String>; 3])> = {
        let mut stmt =
            conn.prepare("SELECT id, content, tool_name, tool_calls FROM messages WHERE id <= ?1")?;
        let mut rows = stmt.query([lag.watermark])?;
        let mut out = Vec::new();
        while let Some(row) = rows.next()? {
            let id: i64 = row.get(0)?;
            if pending.contains(&id) {
                continue;
            }
            // Only text that may hold CJK is copied out: a big home's messages never sit in
            // memory all at once.
            let text = |i| -> rusqlite::Result<Option<String>> {
                Ok(match row.get_ref(i)? {
                    ValueRef::Text(b) if cjk_index::may_hold_cjk(b) => {
                        Some(String::from_utf8_lossy(b).into_owned())
                    }
                    _ => None,
                })
            };
            let texts = [text(1)?, text(2)?, text(3)?];
            if texts.iter().any(Option::is_some) {
                out.push((id, texts));
            }
        }
        out
    };
    let expected: HashMap<i64, String> = rows
        .par_iter()
        .filter_map(|(id, [a, b, c])| {
            cjk_index::text_document(a.as_deref(), b.as_deref(), c.as_deref()).map(|d| (*id, d))
        })
        .collect();
    let stored: HashMap<i64, String> = {
        let mut stmt =
            conn.prepare("SELECT id, c0 FROM messages_fts_cjk_content WHERE id <= ?1")?;
        stmt.query_map([lag.watermark], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<Vec<(i64, String)>>>()?
            .into_iter()
            .filter(|(id, _)| !pending.contains(id))
            .collect()
    };
    let missing = expected
        .keys()
        .filter(|id| !stored.contains_key(id))
        .count() as u64;
    let orphaned = stored
        .keys()
        .filter(|id| !expected.contains_key(id))
        .count() as u64;
    let stale = expected
        .iter()
        .filter(|(id, doc)| stored.get(id).is_some_and(|s| s != *doc))
        .count() as u64;
    Ok((missing, orphaned, stale))
}

/// Repairs what the findings show wrong, in an order where each step can rely on the one
/// before: schema and triggers, b-tree indexes, FTS tables, the CJK index.
pub fn repair(db: &mut Db, findings: &[Finding]) -> Result<Vec<Repair>> {
    let failed = |name: &str| findings.iter().any(|f| f.check == name && !f.ok);
    let mut repairs = Vec::new();
    db.require_writable_schema()?;
    let integrity_failed = failed("integrity");
    if failed("schema") {
        let report = migrate::ensure_schema(db)?;
        repairs.push(Repair {
            action: "migrate".into(),
            detail: format!(
                "schema version {}; {} objects created, {} columns added{}",
                report.version,
                report.objects_created.len(),
                report.columns_added.len(),
                if report.fts_repopulated {
                    ", full-text tables repopulated"
                } else {
                    ""
                }
            ),
        });
    }
    let path = db.path().to_path_buf();
    if integrity_failed {
        db.write(|tx| {
            tx.execute_batch("REINDEX")
                .map_err(|e| Error::sql(&path, "REINDEX", e))
        })?;
        repairs.push(Repair {
            action: "reindex".into(),
            detail: "rebuilt every b-tree index".into(),
        });
    }
    for table in &FTS_TABLES {
        if integrity_failed || failed(table.name) {
            let rows = db.write(|tx| {
                fts::repopulate(tx, table)
                    .map_err(|e| Error::sql(&path, format!("repopulating {}", table.name), e))
            })?;
            repairs.push(Repair {
                action: format!("repopulate {}", table.name),
                detail: format!("{rows} rows from messages"),
            });
        }
    }
    if integrity_failed || failed("cjk") {
        let lag =
            cjk_index::lag(db.conn()).map_err(|e| db.err("reading the CJK index state", e))?;
        let rebuilt = db.write(|tx| {
            cjk_index::rebuild(tx, &|_| {})
                .map_err(|e| Error::sql(&path, "rebuilding the CJK index", e))
        })?;
        repairs.push(Repair {
            action: "rebuild messages_fts_cjk".into(),
            detail: format!(
                "{} documents from {} messages (was {} behind, {} pending)",
                rebuilt.indexed, rebuilt.scanned, lag.behind, lag.pending
            ),
        });
    }
    Ok(repairs)
}

/// The `check` answer as JSONL records: one per check, one per repair, then a summary.
pub fn records(findings: &[Finding], repairs: &[Repair]) -> Vec<serde_json::Value> {
    use serde_json::json;
    let problems = findings.iter().filter(|f| !f.ok).count();
    findings
        .iter()
        .map(|f| json!({"type": "check", "check": f.check, "ok": f.ok, "detail": f.detail}))
        .chain(repairs.iter().map(|r| json!({"type": "repair", "action": r.action, "detail": r.detail})))
        .chain([json!({"type": "summary", "ok": problems == 0, "problems": problems, "repaired": repairs.len()})])
        .collect()
}

/// The `check` answer as one JSON value (`--format json`).
pub fn document(findings: &[Finding], repairs: &[Repair]) -> serde_json::Value {
    serde_json::json!({"checks": findings, "repairs": repairs, "ok": findings.iter().all(|f| f.ok)})
}
