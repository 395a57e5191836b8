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
