//! `cron/jobs.json` as the curator sees it: which skills the jobs load (those are never
//! aged out), and, on rollback, the skill links put back as they were.
//!
//! Read as Hermes's `load_jobs` reads it: UTF-8 with an optional BOM, raw control characters
//! inside strings tolerated, `{"jobs": [...]}` or a bare list. Unlike Hermes, a file that
//! still cannot be read is an error, not "no references": the curator would otherwise
//! archive skills that a job needs.

use std::collections::BTreeSet;
use std::path::PathBuf;

use jiff::Timestamp;
use serde_json::{Map, Value as Json};

use crate::clock;
use crate::home::Home;
use crate::io::FileError;
use crate::io::atomic::{FileMode, write_atomic};
use crate::io::lock::FileLock;
use crate::io::pyjson::{Dumps, dumps};

/// `cron/jobs.json` could not be used.
#[derive(Debug, thiserror::Error)]
pub enum CronError {
    #[error(transparent)]
    File(#[from] FileError),
    #[error("{path} is not valid JSON ({reason})")]
    NotJson { path: PathBuf, reason: String },
    #[error("{path}: expected {{\"jobs\": [...]}}, got {found}")]
    Shape { path: PathBuf, found: &'static str },
}

/// The jobs file, parsed.
#[derive(Debug, Clone, PartialEq)]
pub struct Jobs {
    /// Each job as stored (every field kept, in order).
    pub jobs: Vec<Json>,
}

/// Reads the jobs; `Ok(None)` when there is no jobs file.
pub fn load(home: &Home) -> Result<Option<Jobs>, CronError> {
    let path = home.cron_jobs();
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(FileError::new("read", &path, e).into()),
    };
    parse(&bytes).map(Some).map_err(|e| e.at(path))
}

enum ParseError {
    NotJson(String),
    Shape(&'static str),
}

impl ParseError {
    fn at(self, path: PathBuf) -> CronError {
        match self {
            ParseError::NotJson(reason) => CronError::NotJson { path, reason },
            ParseError::Shape(found) => CronError::Shape { path, found },
        }
    }
}

fn parse(bytes: &[u8]) -> Result<Jobs, ParseError> {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let text = std::str::from_utf8(bytes).map_err(|e| ParseError::NotJson(e.to_string()))?;
    let data: Json = match serde_json::from_str(text) {
        Ok(v) => v,
        // `json.loads(strict=False)`: control characters inside strings are allowed.
        Err(first) => serde_json::from_str(&escape_controls_in_strings(text))
            .map_err(|_| ParseError::NotJson(first.to_string()))?,
    };
    let jobs = match data {
        Json::Object(mut map) => match map.remove("jobs") {
            Some(Json::Array(jobs)) => jobs,
            // A `jobs` that is not a list holds no job objects for Hermes either.
            _ => Vec::new(),
        },
        Json::Array(jobs) => jobs,
        Json::Null => return Err(ParseError::Shape("NoneType")),
        Json::Bool(_) => return Err(ParseError::Shape("bool")),
        Json::Number(_) => return Err(ParseError::Shape("number")),
        Json::String(_) => return Err(ParseError::Shape("str")),
    };
    Ok(Jobs { jobs })
}

/// Escapes raw control characters that sit inside JSON strings, so a strict parser reads
/// what Python's `strict=False` reads.
fn escape_controls_in_strings(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut in_string = false;
    let mut escaped = false;
    for c in text.chars() {
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            } else if (c as u32) < 0x20 {
                out.push_str(&format!("\\u{:04x}", c as u32));
                continue;
            }
        } else if c == '"' {
            in_string = true;
        }
        out.push(c);
    }
    out
}

/// `_normalize_skill_list(job.skill, job.skills)`: `skills` wins when present (a string is
/// one name), else the legacy `skill`; stripped, empty ones dropped, first occurrence kept.
pub fn skill_list(job: &Map<String, Json>) -> Vec<String> {
    let raw: Vec<&Json> = match job.get("skills") {
        // A falsy legacy `skill` (null, "", false, 0, an empty list) reads as "" and is
        // dropped like any empty name.
        None | Some(Json::Null) => job.get("skill").into_iter().collect(),
        Some(Json::Array(items)) => items.iter().collect(),
        Some(Json::Object(map)) => return dedup(map.keys().map(|k| k.trim().to_string())),
        Some(other) => vec![other],
    };
    dedup(raw.into_iter().map(|v| py_str(v).trim().to_string()))
}

/// A job's `id`, when it has a non-empty one (jobs without are left alone).
fn job_id(job: &Map<String, Json>) -> Option<&str> {
    job.get("id")
        .and_then(Json::as_str)
        .filter(|s| !s.is_empty())
}

fn dedup(items: impl Iterator<Item = String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for item in items {
        if !item.is_empty() && !out.contains(&item) {
            out.push(item);
        }
    }
    out
}

/// `str(item or "")` for the values a job list holds in practice.
fn py_str(value: &Json) -> String {
    match value {
        Json::String(s) => s.clone(),
        Json::Bool(true) => "True".into(),
        Json::Number(n) if n.as_f64() == Some(0.0) => String::new(),
        Json::Number(n) => n.to_string(),
        // `null` and `false` are falsy (`item or ""`); a nested list or object is never a
        // skill name, and Python's repr of it is not either.
        _ => String::new(),
    }
}

/// `referenced_skill_names()`: every skill any job names (paused and disabled jobs too),
/// with a leading `/` removed.
pub fn referenced_names(jobs: &Jobs) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for job in &jobs.jobs {
        let Json::Object(job) = job else { continue };
        for name in skill_list(job) {
            let cleaned = name.trim().trim_start_matches('/');
            if !cleaned.is_empty() {
                names.insert(cleaned.to_string());
            }
        }
    }
    names
}

/// The skills referenced by the home's jobs (none when there is no jobs file).
pub fn referenced_skill_names(home: &Home) -> Result<BTreeSet<String>, CronError> {
    Ok(load(home)?
        .map(|j| referenced_names(&j))
        .unwrap_or_default())
}

/// Writes the jobs as Hermes's `save_jobs` does: `{"jobs": [...], "updated_at": <now>}`,
/// `indent=2`, ASCII-escaped, mode 0600, atomically. The caller holds the cron lock.
fn save(home: &Home, jobs: &[Json], now: Timestamp) -> Result<(), FileError> {
    let mut doc = Map::new();
    doc.insert("jobs".into(), Json::Array(jobs.to_vec()));
    doc.insert("updated_at".into(), Json::String(clock::isoformat(now)));
    let text = dumps(
        &Json::Object(doc),
        Dumps {
            indent: Some(2),
            ensure_ascii: true,
            sort_keys: false,
        },
    );
    write_atomic(&home.cron_jobs(), text.as_bytes(), FileMode::Exact(0o600))
}

/// What restoring the skill links of a snapshot did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LinkRestore {
    pub attempted: bool,
    pub restored: usize,
    pub skipped_missing: usize,
    pub unchanged: usize,
    pub error: Option<String>,
}

impl LinkRestore {
    /// The `; cron links: …` part of the rollback message (empty when there is nothing to say).
    pub fn message(&self) -> String {
        if !self.attempted {
            return String::new();
        }
        if let Some(error) = &self.error {
            return format!("cron links: error — {error}");
        }
        let mut parts = Vec::new();
        if self.restored > 0 {
            parts.push(format!("{} job(s) had skill links restored", self.restored));
        }
        if self.skipped_missing > 0 {
            parts.push(format!(
                "{} backed-up job(s) no longer exist (skipped)",
                self.skipped_missing
            ));
        }
        if self.unchanged > 0 {
            parts.push(format!("{} already matched", self.unchanged));
        }
        if parts.is_empty() {
            String::new()
        } else {
            format!("cron links: {}", parts.join(", "))
        }
    }
}

/// Puts the `skills`/`skill` fields of a snapshot's `cron-jobs.json` back on the live jobs
/// that still exist (matched by `id`); every other field is live state and stays.
pub fn restore_links(home: &Home, backed_up: &[u8], now: Timestamp) -> LinkRestore {
    let mut report = LinkRestore::default();
    let backup = match parse(backed_up) {
        Ok(jobs) => jobs,
        Err(ParseError::NotJson(reason)) => {
            report.error = Some(format!("failed to load backed-up jobs: {reason}"));
            return report;
        }
        Err(ParseError::Shape(_)) => {
            report.error = Some("backed-up cron-jobs.json has no jobs list".into());
            return report;
        }
    };
    let mut by_id: Vec<(String, Option<Json>, Option<Json>)> = Vec::new();
    for job in &backup.jobs {
        let Json::Object(job) = job else { continue };
        let Some(id) = job_id(job) else { continue };
        by_id.push((
            id.to_string(),
            job.get("skills").filter(|v| !v.is_null()).cloned(),
            job.get("skill").filter(|v| !v.is_null()).cloned(),
        ));
    }
    report.attempted = true;
    if by_id.is_empty() {
        return report;
    }
    let result = (|| -> Result<(), String> {
        let _lock = FileLock::acquire(&home.cron_lock()).map_err(|e| e.to_string())?;
        let mut live = match load(home) {
            Ok(Some(jobs)) => jobs.jobs,
            Ok(None) => Vec::new(),
            Err(e) => return Err(e.to_string()),
        };
        let mut live_ids = BTreeSet::new();
        let mut changed = false;
        for job in live.iter_mut() {
            let Json::Object(job) = job else { continue };
            let Some(id) = job_id(job) else { continue };
            let id = id.to_string();
            live_ids.insert(id.clone());
            let Some((_, skills, skill)) = by_id.iter().find(|(bid, ..)| *bid == id) else {
                continue;
            };
            let current_skills = job.get("skills").filter(|v| !v.is_null()).cloned();
            let current_skill = job.get("skill").filter(|v| !v.is_null()).cloned();
            if current_skills == *skills && current_skill == *skill {
                report.unchanged += 1;
                continue;
            }
            for (key, value) in [("skills", skills), ("skill", skill)] {
                match value {
                    Some(v) => {
                        job.insert(key.into(), v.clone());
                    }
                    None => {
                        job.shift_remove(key);
                    }
                }
            }
            report.restored += 1;
            changed = true;
        }
        report.skipped_missing = by_id
            .iter()
            .filter(|(id, ..)| !live_ids.contains(id))
            .count();
        if changed {
            save(home, &live, now).map_err(|e| e.to_string())?;
        }
        Ok(())
    })();
    if let Err(e) = result {
        report.error = Some(format!("restore failed mid-flight: {e}"));
    }
    report
}

/// After a consolidation: jobs that named a consolidated skill name its umbrella, jobs that
/// named a pruned one drop it (`rewrite_skill_refs`, reference `loop` §4.11). Names are
/// compared without a leading `/` (upstream compares them as written, so `/old` is protected
/// from archiving but never rewritten). Only a live run calls this. The report object:
/// `{"rewrites": [{job_id, job_name, before, after, mapped, dropped}], "jobs_updated",
/// "jobs_scanned"}`, plus `error` when the file could not be rewritten.
pub fn rewrite_skill_refs(
    home: &Home,
    consolidated: &std::collections::BTreeMap<String, String>,
    pruned: &[String],
    now: Timestamp,
) -> Json {
    let empty = || serde_json::json!({"rewrites": [], "jobs_updated": 0, "jobs_scanned": 0});
    if consolidated.is_empty() && pruned.is_empty() {
        return empty();
    }
    let result = (|| -> Result<Json, String> {
        let _lock = FileLock::acquire(&home.cron_lock()).map_err(|e| e.to_string())?;
        let Some(jobs) = load(home).map_err(|e| e.to_string())? else {
            return Ok(empty());
        };
        let mut jobs = jobs.jobs;
        let mut rewrites = Vec::new();
        for job in jobs.iter_mut() {
            let Json::Object(job) = job else { continue };
            let before = skill_list(job);
            if before.is_empty() {
                continue;
            }
            let (mut after, mut mapped, mut dropped) = (Vec::new(), Map::new(), Vec::new());
            for name in &before {
                let bare = name.trim_start_matches('/');
                let next = if let Some(umbrella) = consolidated.get(bare) {
                    mapped.insert(name.clone(), Json::String(umbrella.clone()));
                    Some(umbrella.clone())
                } else if pruned.iter().any(|p| p == bare) {
                    dropped.push(Json::String(name.clone()));
                    None
                } else {
                    Some(name.clone())
                };
                if let Some(n) = next
                    && !after.contains(&n)
                {
                    after.push(n);
                }
            }
            if after == before {
                continue;
            }
            let id = job.get("id").cloned().unwrap_or(Json::Null);
            let name = job
                .get("name")
                .filter(|v| crate::pytext::truthy(v))
                .cloned()
                .unwrap_or_else(|| id.clone());
            job.insert(
                "skills".into(),
                Json::Array(after.iter().cloned().map(Json::String).collect()),
            );
            job.insert(
                "skill".into(),
                after.first().cloned().map_or(Json::Null, Json::String),
            );
            rewrites.push(
                serde_json::json!({"job_id": id, "job_name": name, "before": before,
                "after": after, "mapped": mapped, "dropped": dropped}),
            );
        }
        let scanned = jobs.len();
        if !rewrites.is_empty() {
            save(home, &jobs, now).map_err(|e| e.to_string())?;
        }
        Ok(
            serde_json::json!({"jobs_updated": rewrites.len(), "rewrites": rewrites,
            "jobs_scanned": scanned}),
        )
    })();
    match result {
        Ok(v) => {
            // Key order as upstream: rewrites, jobs_updated, jobs_scanned.
            serde_json::json!({"rewrites": v["rewrites"], "jobs_updated": v["jobs_updated"],
                "jobs_scanned": v["jobs_scanned"]})
        }
        Err(e) => {
            let mut v = empty();
            v["error"] = Json::String(e);
            v
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn jobs(text: &str) -> Jobs {
        match parse(text.as_bytes()) {
            Ok(j) => j,
            Err(_) => panic!("parse failed"),
        }
    }

    #[test]
    fn references_include_paused_jobs_and_strip_the_slash() {
        let j = jobs(
            "\u{feff}{\"jobs\": [{\"id\": \"a\", \"skills\": [\"pdf\", \" keep \", \"pdf\"], \"enabled\": false},
              {\"id\": \"b\", \"skill\": \"/old-util\"}, {\"id\": \"c\", \"skills\": \"one\", \"skill\": \"ignored\"},
              {\"id\": \"d\", \"skills\": [], \"skill\": \"legacy\"}, 7]}",
        );
        assert_eq!(
            referenced_names(&j),
            BTreeSet::from(["keep", "old-util", "one", "pdf"].map(String::from))
        );
    }

    #[test]
    fn bare_lists_and_control_characters_are_read_as_python_reads_them() {
        let j = jobs("[{\"id\": \"a\", \"skill\": \"x\", \"prompt\": \"line\none\"}]");
        assert_eq!(referenced_names(&j), BTreeSet::from(["x".to_string()]));
        assert!(matches!(parse(b"{nope"), Err(ParseError::NotJson(_))));
        assert!(matches!(parse(b"\"text\""), Err(ParseError::Shape("str"))));
    }

    #[test]
    fn restore_puts_back_skill_links_only() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        std::fs::create_dir_all(dir.path().join("cron")).expect("mkdir");
        std::fs::write(
            home.cron_jobs(),
            r#"{"jobs": [{"id": "a", "name": "Ä", "skills": ["new"], "skill": "new", "schedule": "live"},
                {"id": "b", "skills": ["same"]}], "updated_at": "x"}"#,
        )
        .expect("write");
        let backup =
            br#"{"jobs": [{"id": "a", "skills": ["old", "two"], "skill": "old", "schedule": "old"},
            {"id": "b", "skills": ["same"]}, {"id": "gone", "skills": ["z"]}]}"#;
        let now = clock::parse_timestamp("2026-06-01T12:00:00Z").expect("ts");
        let report = restore_links(&home, backup, now);
        assert_eq!(
            report.message(),
            "cron links: 1 job(s) had skill links restored, 1 backed-up job(s) no longer exist (skipped), 1 already matched"
        );
        let text = std::fs::read_to_string(home.cron_jobs()).expect("read");
        assert_eq!(
            text,
            "{\n  \"jobs\": [\n    {\n      \"id\": \"a\",\n      \"name\": \"\\u00c4\",\n      \"skills\": [\n        \"old\",\n        \"two\"\n      ],\n      \"skill\": \"old\",\n      \"schedule\": \"live\"\n    },\n    {\n      \"id\": \"b\",\n      \"skills\": [\n        \"same\"\n      ]\n    }\n  ],\n  \"updated_at\": \"2026-06-01T12:00:00+00:00\"\n}"
        );
    }

    fn home_with_jobs(text: &str) -> (tempfile::TempDir, Home) {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        std::fs::create_dir_all(dir.path().join("cron")).expect("mkdir");
        std::fs::write(home.cron_jobs(), text).expect("write");
        (dir, home)
    }

    fn ts(s: &str) -> Timestamp {
        clock::parse_timestamp(s).expect("ts")
    }

    fn set(names: &[&str]) -> BTreeSet<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    /// Raw control characters are escaped inside strings only (after an escaped quote the
    /// string goes on; whitespace between tokens stays as it is).
    #[test]
    fn control_characters_inside_strings_are_escaped() {
        let text = "{\n\t\"jobs\": [{\"id\": \"a\\\"\tb\", \"p\": \"\\\\\u{1}\", \"q\": \"x\u{1f} \u{7f}\"}]\r\n}";
        assert_eq!(
            escape_controls_in_strings(text),
            "{\n\t\"jobs\": [{\"id\": \"a\\\"\\u0009b\", \"p\": \"\\\\\\u0001\", \"q\": \"x\\u001f \u{7f}\"}]\r\n}"
        );
        assert_eq!(
            jobs(text).jobs,
            [serde_json::json!({"id": "a\"\tb", "p": "\\\u{1}", "q": "x\u{1f} \u{7f}"})]
        );
    }

    #[test]
    fn skill_lists_read_values_as_python_str_does() {
        let list = |v: Json| match v {
            Json::Object(m) => skill_list(&m),
            _ => panic!("object"),
        };
        assert_eq!(
            list(
                serde_json::json!({"skills": [" a ", "", "a", true, false, 0, 0.0, 7, 1.5,
                null, [], {}, "b"]})
            ),
            ["a", "True", "7", "1.5", "b"]
        );
        assert_eq!(
            list(serde_json::json!({"skills": {" x ": 1, "y": 2}})),
            ["x", "y"]
        );
        assert_eq!(list(serde_json::json!({"skills": 5})), ["5"]);
        assert_eq!(
            list(serde_json::json!({"skills": null, "skill": " s "})),
            ["s"]
        );
        for falsy in [
            serde_json::json!(null),
            serde_json::json!(""),
            serde_json::json!(false),
            serde_json::json!(0),
            serde_json::json!([]),
        ] {
            assert_eq!(
                list(serde_json::json!({"skill": falsy})),
                Vec::<String>::new()
            );
        }
        assert_eq!(list(serde_json::json!({"skill": true})), ["True"]);
        assert_eq!(list(serde_json::json!({})), Vec::<String>::new());
    }

    #[test]
    fn a_bare_slash_names_no_skill() {
        let j = jobs("{\"jobs\": [{\"skills\": [\"/\", \" / \", \"//x\"]}]}");
        assert_eq!(referenced_names(&j), set(&["x"]));
    }

    #[test]
    fn the_homes_references_or_why_they_are_unknown() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        assert_eq!(
            referenced_skill_names(&home).expect("none"),
            BTreeSet::new()
        );
        std::fs::create_dir_all(home.cron_jobs()).expect("mkdir");
        assert_eq!(
            referenced_skill_names(&home)
                .expect_err("a folder")
                .to_string(),
            format!(
                "cannot read {}: Is a directory (os error 21)",
                home.cron_jobs().display()
            )
        );
        let (_dir, home) =
            home_with_jobs("{\"jobs\": [{\"skill\": \"/pdf\"}, {\"skills\": [\"x\"]}]}");
        assert_eq!(
            referenced_skill_names(&home).expect("read"),
            set(&["pdf", "x"])
        );
        let (_dir, home) = home_with_jobs("{\"jobs\": [}");
        assert_eq!(
            referenced_skill_names(&home).expect_err("bad").to_string(),
            format!(
                "{} is not valid JSON (expected value at line 1 column 11)",
                home.cron_jobs().display()
            )
        );
        let (_dir, home) = home_with_jobs("3");
        assert_eq!(
            referenced_skill_names(&home)
                .expect_err("shape")
                .to_string(),
            format!(
                "{}: expected {{\"jobs\": [...]}}, got number",
                home.cron_jobs().display()
            )
        );
    }

    #[test]
    fn the_link_restore_message_names_what_happened() {
        let report = |restored, skipped_missing, unchanged| LinkRestore {
            attempted: true,
            restored,
            skipped_missing,
            unchanged,
            error: None,
        };
        assert_eq!(LinkRestore::default().message(), "");
        assert_eq!(report(0, 0, 0).message(), "");
        assert_eq!(
            report(2, 0, 0).message(),
            "cron links: 2 job(s) had skill links restored"
        );
        assert_eq!(
            report(0, 3, 0).message(),
            "cron links: 3 backed-up job(s) no longer exist (skipped)"
        );
        assert_eq!(report(0, 0, 1).message(), "cron links: 1 already matched");
        let failed = LinkRestore {
            error: Some("boom".into()),
            ..report(1, 1, 1)
        };
        assert_eq!(failed.message(), "cron links: error — boom");
    }

    /// A job whose `skills` match but whose `skill` differs is restored; a value absent
    /// (or null) in the backup removes the key; a job without an id is left alone.
    #[test]
    fn restore_matches_both_fields_and_removes_absent_ones() {
        let (_dir, home) = home_with_jobs(
            r#"[{"id": "a", "skills": ["x"], "skill": "y"}, {"id": "b", "skill": "z", "skills": null}, {"id": "", "skills": ["q"]}, {"skills": ["q"]}, {"id": "c", "skill": null}]"#,
        );
        let backup = br#"{"jobs": [{"id": "a", "skills": ["x"], "skill": "x"}, {"id": "b", "skills": null}, {"id": "", "skills": ["r"]}, {"skills": ["r"]}, {"id": "c"}, "junk"]}"#;
        let report = restore_links(&home, backup, ts("2026-06-01T12:00:00Z"));
        assert_eq!(
            report,
            LinkRestore {
                attempted: true,
                restored: 2,
                skipped_missing: 0,
                unchanged: 1,
                error: None
            }
        );
        assert_eq!(
            std::fs::read_to_string(home.cron_jobs()).expect("read"),
            "{\n  \"jobs\": [\n    {\n      \"id\": \"a\",\n      \"skills\": [\n        \"x\"\n      ],\n      \"skill\": \"x\"\n    },\n    {\n      \"id\": \"b\"\n    },\n    {\n      \"id\": \"\",\n      \"skills\": [\n        \"q\"\n      ]\n    },\n    {\n      \"skills\": [\n        \"q\"\n      ]\n    },\n    {\n      \"id\": \"c\",\n      \"skill\": null\n    }\n  ],\n  \"updated_at\": \"2026-06-01T12:00:00+00:00\"\n}"
        );
    }

    #[test]
    fn restore_reports_what_it_could_not_do() {
        let now = ts("2026-06-01T12:00:00Z");
        let (_dir, home) = home_with_jobs("{\"jobs\": [{\"id\": \"a\", \"skills\": [\"x\"]}]}");
        let unchanged = std::fs::read_to_string(home.cron_jobs()).expect("read");
        let error = |bytes: &[u8]| restore_links(&home, bytes, now).error;
        assert_eq!(
            error(b"{\"jobs\": [}"),
            Some("failed to load backed-up jobs: expected value at line 1 column 11".into())
        );
        assert_eq!(
            error(b"null"),
            Some("backed-up cron-jobs.json has no jobs list".into())
        );
        // Nothing to restore: no job with an id in the backup.
        assert_eq!(
            restore_links(&home, b"{\"jobs\": [{\"skills\": [\"y\"]}]}", now),
            LinkRestore {
                attempted: true,
                ..LinkRestore::default()
            }
        );
        // Every backed-up job already matches: the file is not rewritten.
        assert_eq!(
            restore_links(&home, b"[{\"id\": \"a\", \"skills\": [\"x\"]}]", now).unchanged,
            1
        );
        assert_eq!(
            std::fs::read_to_string(home.cron_jobs()).expect("read"),
            unchanged
        );
        std::fs::write(home.cron_jobs(), "{oops").expect("write");
        assert_eq!(
            error(b"[{\"id\": \"a\", \"skills\": [\"y\"]}]"),
            Some(format!(
                "restore failed mid-flight: {} is not valid JSON (key must be a string at line 1 column 2)",
                home.cron_jobs().display()
            ))
        );
        std::fs::remove_file(home.cron_jobs()).expect("rm");
        assert_eq!(
            restore_links(&home, b"[{\"id\": \"a\", \"skills\": [\"y\"]}]", now),
            LinkRestore {
                attempted: true,
                skipped_missing: 1,
                ..LinkRestore::default()
            }
        );
        assert!(!home.cron_jobs().exists());
    }

    /// Consolidated names become their umbrella (once), pruned ones go, a leading `/` is
    /// looked through; the file is rewritten only when a job changed.
    #[test]
    fn rewriting_maps_drops_and_reports_in_upstreams_shape() {
        let (_dir, home) = home_with_jobs(
            r#"{"jobs": [{"id": "j1", "name": "Daily", "skills": ["old-a", "/old-b", "keep"], "skill": "old-a", "prompt": "p"}, {"id": "j2", "name": "", "skill": "/stale"}, {"id": "j3", "skills": ["keep"]}, {"id": "j4"}, 7], "updated_at": "x"}"#,
        );
        let consolidated = BTreeMap::from([
            ("old-a".to_string(), "umbrella".to_string()),
            ("old-b".to_string(), "umbrella".to_string()),
        ]);
        let report = rewrite_skill_refs(
            &home,
            &consolidated,
            &["stale".to_string(), "keepx".to_string()],
            ts("2026-06-01T12:00:00Z"),
        );
        assert_eq!(
            serde_json::to_string(&report).expect("json"),
            r#"{"rewrites":[{"job_id":"j1","job_name":"Daily","before":["old-a","/old-b","keep"],"after":["umbrella","keep"],"mapped":{"old-a":"umbrella","/old-b":"umbrella"},"dropped":[]},{"job_id":"j2","job_name":"j2","before":["/stale"],"after":[],"mapped":{},"dropped":["/stale"]}],"jobs_updated":2,"jobs_scanned":5}"#
        );
        assert_eq!(
            std::fs::read_to_string(home.cron_jobs()).expect("read"),
            "{\n  \"jobs\": [\n    {\n      \"id\": \"j1\",\n      \"name\": \"Daily\",\n      \"skills\": [\n        \"umbrella\",\n        \"keep\"\n      ],\n      \"skill\": \"umbrella\",\n      \"prompt\": \"p\"\n    },\n    {\n      \"id\": \"j2\",\n      \"name\": \"\",\n      \"skill\": null,\n      \"skills\": []\n    },\n    {\n      \"id\": \"j3\",\n      \"skills\": [\n        \"keep\"\n      ]\n    },\n    {\n      \"id\": \"j4\"\n    },\n    7\n  ],\n  \"updated_at\": \"2026-06-01T12:00:00+00:00\"\n}"
        );
    }

    #[test]
    fn pruning_alone_rewrites_and_nothing_to_do_writes_nothing() {
        let text = r#"{"jobs": [{"id": "j", "skills": ["a", "b"]}]}"#;
        let (_dir, home) = home_with_jobs(text);
        let now = ts("2026-06-01T12:00:00Z");
        let none = BTreeMap::new();
        assert_eq!(
            rewrite_skill_refs(&home, &none, &["zzz".to_string()], now),
            serde_json::json!({"rewrites": [], "jobs_updated": 0, "jobs_scanned": 1})
        );
        assert_eq!(
            std::fs::read_to_string(home.cron_jobs()).expect("read"),
            text
        );
        assert_eq!(
            rewrite_skill_refs(&home, &none, &[], now),
            serde_json::json!({"rewrites": [], "jobs_updated": 0, "jobs_scanned": 0})
        );
        let report = rewrite_skill_refs(&home, &none, &["a".to_string()], now);
        assert_eq!(report["jobs_updated"], 1);
        assert_eq!(
            std::fs::read_to_string(home.cron_jobs()).expect("read"),
            "{\n  \"jobs\": [\n    {\n      \"id\": \"j\",\n      \"skills\": [\n        \"b\"\n      ],\n      \"skill\": \"b\"\n    }\n  ],\n  \"updated_at\": \"2026-06-01T12:00:00+00:00\"\n}"
        );
        std::fs::write(home.cron_jobs(), "[").expect("write");
        assert_eq!(
            rewrite_skill_refs(&home, &none, &["a".to_string()], now),
            serde_json::json!({"rewrites": [], "jobs_updated": 0, "jobs_scanned": 0,
                "error": format!("{} is not valid JSON (EOF while parsing a list at line 1 column 1)",
                    home.cron_jobs().display())})
        );
        std::fs::remove_file(home.cron_jobs()).expect("rm");
        assert_eq!(
            rewrite_skill_refs(&home, &none, &["a".to_string()], now),
            serde_json::json!({"rewrites": [], "jobs_updated": 0, "jobs_scanned": 0})
        );
        assert!(!home.cron_jobs().exists());
    }
}
