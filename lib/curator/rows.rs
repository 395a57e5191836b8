//! The curator's view of each skill: Hermes's `agent_created_report()` (the skills the
//! curator manages) and `usage_report()` (every local skill, with its provenance), built
//! from one [`Index`] without touching the disk again.

use jiff::Timestamp;
use serde_json::{Map, Value as Json};

use crate::skills::library::Index;
use crate::skills::provenance::{Origin, curator_managed_names};
use crate::skills::usage::{self, Record};

/// One skill's record with the defaults filled in, as Hermes's report rows carry it.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub name: String,
    /// The stored record with missing keys backfilled (not persisted).
    pub record: Record,
    /// Whether `.usage.json` has a record for it.
    pub persisted: bool,
    pub last_activity_at: Option<String>,
    pub activity_count: i64,
    /// Set for usage rows only.
    pub provenance: Option<Origin>,
}

impl Row {
    fn new(name: &str, stored: Option<&Record>, now: Timestamp, provenance: Option<Origin>) -> Row {
        let mut record = stored.cloned().unwrap_or_default();
        for (key, value) in usage::empty_record(now) {
            record.entry(key).or_insert(value);
        }
        Row {
            name: name.to_string(),
            last_activity_at: usage::latest_activity_at(&record),
            activity_count: usage::activity_count(&record),
            record,
            persisted: stored.is_some(),
            provenance,
        }
    }

    /// `bool(row.get("pinned"))`.
    pub fn pinned(&self) -> bool {
        self.record.get("pinned").is_some_and(crate::pytext::truthy)
    }

    /// The state as stored: a string, or `None` for a value that is not one (which Hermes
    /// compares unequal to every state).
    pub fn state(&self) -> Option<&str> {
        self.record.get("state").and_then(Json::as_str)
    }

    /// A counter for display (0 when it is not a number).
    pub fn counter(&self, key: &str) -> i64 {
        usage::counter(Some(&self.record), key)
    }

    pub fn created_at(&self) -> Option<&str> {
        self.record.get("created_at").and_then(Json::as_str)
    }

    /// The row as Hermes's report dict: `name`, the record, then `provenance` (usage rows),
    /// `_persisted`, `last_activity_at`, `activity_count`.
    pub fn to_json(&self) -> Json {
        let mut out = Map::new();
        out.insert("name".into(), Json::String(self.name.clone()));
        for (k, v) in &self.record {
            out.insert(k.clone(), v.clone());
        }
        if let Some(p) = self.provenance {
            out.insert("provenance".into(), Json::String(p.as_str().into()));
        }
        out.insert("_persisted".into(), Json::Bool(self.persisted));
        out.insert(
            "last_activity_at".into(),
            self.last_activity_at
                .clone()
                .map_or(Json::Null, Json::String),
        );
        out.insert("activity_count".into(), Json::from(self.activity_count));
        Json::Object(out)
    }
}

/// `agent_created_report()`: the curator-managed skills, sorted by name.
pub fn agent_created(index: &Index, now: Timestamp) -> Vec<Row> {
    curator_managed_names(&index.provenance, index.identities(), &index.usage)
        .into_iter()
        .map(|name| Row::new(&name, index.usage.get(&name), now, None))
        .collect()
}

/// `usage_report()`: every local skill once (first identity wins), sorted by name, with
/// its provenance.
pub fn usage(index: &Index, now: Timestamp) -> Vec<Row> {
    let mut names: Vec<&str> = index
        .identities()
        .local_entries()
        .map(|(n, _)| n.as_str())
        .collect();
    names.sort_unstable();
    names.dedup();
    names
        .into_iter()
        .map(|name| {
            Row::new(
                name,
                index.usage.get(name),
                now,
                Some(index.provenance.origin(name)),
            )
        })
        .collect()
}

/// Rows and homes for the curator's unit tests.
#[cfg(test)]
pub(crate) mod fixture {
    use std::path::Path;

    use jiff::Timestamp;
    use serde_json::Value as Json;

    use super::Row;
    use crate::curator::consolidate::Model;
    use crate::home::{Config, Home};
    use crate::llm::{Completion, LlmError};
    use crate::skills::library::Library;
    use crate::skills::runtime::Runtime;

    pub fn ts(s: &str) -> Timestamp {
        crate::clock::parse_timestamp(s).expect("ts")
    }

    /// A report row as the index builds it (`record`: the stored record, or null for none).
    pub fn row(name: &str, record: Json, now: Timestamp) -> Row {
        Row::new(name, record.as_object(), now, None)
    }

    /// Three agent-created skills as of 2026-06-01: used 120 days ago (a run archives it),
    /// 45 days ago (marked stale), created 3 days ago and never used (left alone).
    pub fn small_home(dir: &Path, config: Config) -> Library {
        library(
            dir,
            &["old-used", "mid-used", "young-unused"],
            serde_json::json!({
                "old-used": {"created_by": "agent", "use_count": 1,
                             "last_used_at": "2026-02-01T12:00:00+00:00"},
                "mid-used": {"created_by": "agent", "use_count": 1,
                             "last_used_at": "2026-04-17T12:00:00+00:00"},
                "young-unused": {"created_by": "agent",
                                 "created_at": "2026-05-29T12:00:00+00:00"},
            }),
            config,
        )
    }

    /// `text` as the home's `cron/jobs.json`.
    pub fn cron_jobs(dir: &Path, text: &str) {
        std::fs::create_dir_all(dir.join("cron")).expect("mkdir cron");
        std::fs::write(dir.join("cron/jobs.json"), text).expect("write jobs.json");
    }

    /// A home under `dir` with one `skills/<name>/SKILL.md` per name and `usage` as
    /// `.usage.json` (none when null), read with `config`.
    pub fn library(dir: &Path, skills: &[&str], usage: Json, config: Config) -> Library {
        for name in skills {
            let p = dir.join("skills").join(name);
            std::fs::create_dir_all(&p).expect("mkdir");
            std::fs::write(
                p.join("SKILL.md"),
                format!("---\nname: {name}\ndescription: About {name}.\n---\nbody\n"),
            )
            .expect("write");
        }
        std::fs::create_dir_all(dir.join("skills")).expect("mkdir");
        if !usage.is_null() {
            std::fs::write(dir.join("skills/.usage.json"), usage.to_string()).expect("usage");
        }
        Library::new(Home::at(dir), config, Runtime::plain_linux())
    }

    pub use crate::llm::testing::{answer, tool_call};

    /// The consolidation pass's model `m1` on `custom`, answering from `script`.
    pub fn model(script: Vec<Result<Completion, LlmError>>) -> Model {
        Model {
            endpoint: crate::llm::testing::endpoint(),
            transport: Box::new(crate::llm::testing::Scripted::new(script)),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::fixture::{library, row, ts};
    use super::*;
    use crate::home::Config;

    #[test]
    fn a_row_reads_its_record_as_python_does() {
        let now = ts("2026-06-01T12:00:00Z");
        let r = row(
            "mine",
            json!({"state": "stale", "pinned": "yes", "use_count": 5, "view_count": "x",
                   "created_at": "2026-01-02T03:04:05+00:00"}),
            now,
        );
        assert!(r.pinned());
        assert_eq!(r.state(), Some("stale"));
        assert_eq!(r.counter("use_count"), 5);
        assert_eq!(r.counter("view_count"), 0);
        assert_eq!(r.created_at(), Some("2026-01-02T03:04:05+00:00"));
        let odd = row(
            "odd",
            json!({"pinned": 0, "state": 3, "created_at": null}),
            now,
        );
        assert!(!odd.pinned());
        assert_eq!(odd.state(), None);
        assert_eq!(odd.created_at(), None);
        let fresh = row("fresh", Json::Null, now);
        assert!(!fresh.persisted);
        assert_eq!(fresh.state(), Some("active"));
        assert_eq!(fresh.created_at(), Some("2026-06-01T12:00:00+00:00"));
    }

    /// The managed skills are the agent-created ones and (with `prune_builtins`, the
    /// default) the bundled ones, never a hub skill or one a person wrote; the usage report
    /// lists every local skill with its origin. Both carry Hermes's row keys, in its order.
    #[test]
    fn managed_and_usage_rows_with_hermes_keys() {
        let dir = tempfile::tempdir().expect("tempdir");
        let lib = library(
            dir.path(),
            &["mine", "hand", "bund", "hubbed"],
            json!({"mine": {"created_by": "agent", "use_count": 2,
                            "last_used_at": "2026-05-31T00:00:00+00:00"}}),
            Config::defaults(),
        );
        std::fs::write(dir.path().join("skills/.bundled_manifest"), "bund:abc\n").expect("w");
        std::fs::create_dir_all(dir.path().join("skills/.hub")).expect("mkdir");
        std::fs::write(
            dir.path().join("skills/.hub/lock.json"),
            r#"{"installed": {"hubbed": {"install_path": "hubbed"}}}"#,
        )
        .expect("w");
        let now = ts("2026-06-01T12:00:00Z");
        let index = Index::build(&lib);
        let managed: Vec<String> = agent_created(&index, now)
            .iter()
            .map(|r| r.to_json().to_string())
            .collect();
        assert_eq!(
            managed,
            [
                r#"{"name":"bund","created_by":null,"use_count":0,"view_count":0,"last_used_at":null,"last_viewed_at":null,"patch_count":0,"last_patched_at":null,"created_at":"2026-06-01T12:00:00+00:00","state":"active","pinned":false,"archived_at":null,"_persisted":false,"last_activity_at":null,"activity_count":0}"#,
                r#"{"name":"mine","created_by":"agent","use_count":2,"last_used_at":"2026-05-31T00:00:00+00:00","view_count":0,"last_viewed_at":null,"patch_count":0,"last_patched_at":null,"created_at":"2026-06-01T12:00:00+00:00","state":"active","pinned":false,"archived_at":null,"_persisted":true,"last_activity_at":"2026-05-31T00:00:00+00:00","activity_count":2}"#,
            ]
        );
        let usage: Vec<(String, Option<&str>, bool)> = super::usage(&index, now)
            .iter()
            .map(|r| {
                (
                    r.name.clone(),
                    r.provenance.map(|o| o.as_str()),
                    r.persisted,
                )
            })
            .collect();
        assert_eq!(
            usage,
            [
                ("bund".to_string(), Some("bundled"), false),
                ("hand".to_string(), Some("agent"), false),
                ("hubbed".to_string(), Some("hub"), false),
                ("mine".to_string(), Some("agent"), true),
            ]
        );
        assert_eq!(
            super::usage(&index, now)[2].to_json().to_string(),
            r#"{"name":"hubbed","created_by":null,"use_count":0,"view_count":0,"last_used_at":null,"last_viewed_at":null,"patch_count":0,"last_patched_at":null,"created_at":"2026-06-01T12:00:00+00:00","state":"active","pinned":false,"archived_at":null,"provenance":"hub","_persisted":false,"last_activity_at":null,"activity_count":0}"#
        );
    }
}
