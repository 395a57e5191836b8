//! The automatic transitions: Hermes's `apply_automatic_transitions(now)`, decision for
//! decision, planned from the rows in one pass ([`plan`], pure) and carried out in one
//! ([`apply`]): folders move into `.archive/`, the sidecar is changed in memory and
//! written once, `.curator_suppressed` once.
//!
//! For each curator-managed skill, sorted by name: pinned → untouched; named by any cron
//! job (paused ones too) → untouched; no record yet → seeded (its clock starts now); else
//! the anchor is the newest activity, else `created_at`, else now. A skill never used
//! (`use_count == 0`) younger than the stale cutoff is left alone (and reactivated if it was
//! stale); otherwise anchor ≤ archive cutoff → archived (skipping `stale`), anchor ≤ stale
//! cutoff and active → stale, anchor after the stale cutoff and stale → active. Both
//! boundaries are inclusive.

use std::collections::BTreeSet;
use std::path::PathBuf;

use jiff::Timestamp;
use serde::Serialize;
use serde_json::{Map, Value as Json};

use super::rows::Row;
use crate::clock;
use crate::home::CuratorConfig;
use crate::skills::archive;
use crate::skills::library::{Index, Library};
use crate::skills::usage::{self, STATE_ACTIVE, STATE_ARCHIVED, STATE_STALE};

/// The counters Hermes returns, in its key order.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub marked_stale: u64,
    pub archived: u64,
    pub reactivated: u64,
    pub checked: u64,
    pub seeded: u64,
}

impl Counts {
    /// Hermes's `auto_summary`: `"1 marked stale, 2 archived"`, or `"no changes"`.
    pub fn summary(&self) -> String {
        let mut parts = Vec::new();
        if self.marked_stale > 0 {
            parts.push(format!("{} marked stale", self.marked_stale));
        }
        if self.archived > 0 {
            parts.push(format!("{} archived", self.archived));
        }
        if self.reactivated > 0 {
            parts.push(format!("{} reactivated", self.reactivated));
        }
        if parts.is_empty() {
            "no changes".into()
        } else {
            parts.join(", ")
        }
    }

    pub fn to_json(&self) -> Json {
        serde_json::to_value(self).unwrap_or(Json::Null)
    }
}

/// What happens to one skill.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// No record yet: write a fresh one, so its clock starts now.
    Seed,
    MarkStale,
    Reactivate,
    Archive,
}

impl Action {
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Seed => "seed",
            Action::MarkStale => "mark_stale",
            Action::Reactivate => "reactivate",
            Action::Archive => "archive",
        }
    }
}

/// One planned change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Planned {
    pub name: String,
    pub action: Action,
    /// The state before (`active` for a value that is not a string).
    pub from: String,
}

/// The plan of a pass, with the counters as they will be if every step succeeds.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Plan {
    pub steps: Vec<Planned>,
    pub counts: Counts,
    /// Skills left alone because their record cannot be read (`use_count` not a number),
    /// where Hermes's whole pass would crash.
    pub skipped: Vec<(String, String)>,
}

/// The cutoffs of a pass.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cutoffs {
    pub now: Timestamp,
    pub stale: Timestamp,
    pub archive: Timestamp,
}

impl Cutoffs {
    pub fn new(config: &CuratorConfig, now: Timestamp) -> Cutoffs {
        Cutoffs {
            now,
            stale: super::days_before(now, config.stale_after_days),
            archive: super::days_before(now, config.archive_after_days),
        }
    }
}

/// Decides, for every row, what the pass does. Pure.
pub fn plan(rows: &[Row], cron_refs: &BTreeSet<String>, cutoffs: Cutoffs) -> Plan {
    let mut plan = Plan::default();
    for row in rows {
        plan.counts.checked += 1;
        if row.pinned() || cron_refs.contains(&row.name) {
            continue;
        }
        let from = row.state().unwrap_or(STATE_ACTIVE).to_string();
        let mut step = |action: Action, counter: &mut u64| {
            *counter += 1;
            plan.steps.push(Planned {
                name: row.name.clone(),
                action,
                from: from.clone(),
            });
        };
        if !row.persisted {
            step(Action::Seed, &mut plan.counts.seeded);
            continue;
        }
        let use_count = match usage::count_of(&row.name, &row.record, "use_count") {
            Ok(n) => n,
            Err(e) => {
                plan.skipped.push((row.name.clone(), e.to_string()));
                continue;
            }
        };
        let anchor = row
            .last_activity_at
            .as_deref()
            .and_then(clock::parse_timestamp)
            .or_else(|| {
                row.created_at()
                    .filter(|s| !s.is_empty())
                    .and_then(clock::parse_timestamp)
            })
            .unwrap_or(cutoffs.now);
        let current = row.state();
        if use_count == 0 && anchor > cutoffs.stale {
            if current == Some(STATE_STALE) {
                step(Action::Reactivate, &mut plan.counts.reactivated);
            }
            continue;
        }
        if anchor <= cutoffs.archive && current != Some(STATE_ARCHIVED) {
            step(Action::Archive, &mut plan.counts.archived);
        } else if anchor <= cutoffs.stale && current == Some(STATE_ACTIVE) {
            step(Action::MarkStale, &mut plan.counts.marked_stale);
        } else if anchor > cutoffs.stale && current == Some(STATE_STALE) {
            step(Action::Reactivate, &mut plan.counts.reactivated);
        }
    }
    plan
}

/// A state change that happened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Change {
    pub name: String,
    pub from: String,
    pub to: String,
}

/// A skill moved into `.archive/` by the pass.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArchivedSkill {
    pub name: String,
    pub dest: PathBuf,
}

/// What the pass did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Applied {
    pub counts: Counts,
    pub changes: Vec<Change>,
    pub archived: Vec<ArchivedSkill>,
    /// Skills whose step failed (a move refused by the disk), with the reason.
    pub failures: Vec<(String, String)>,
    /// Whether the sidecar changed (and must be written).
    pub sidecar_changed: bool,
    /// Bundled names archived by the pass (for `.curator_suppressed`).
    pub suppressed: Vec<String>,
}

/// Carries out `plan` on the index: moves the folders and changes `index.usage` in memory.
/// The caller writes the sidecar and `.curator_suppressed` once afterwards.
pub fn apply(lib: &Library, index: &mut Index, plan: &Plan, now: Timestamp) -> Applied {
    let mut applied = Applied {
        counts: Counts {
            checked: plan.counts.checked,
            ..Counts::default()
        },
        ..Applied::default()
    };
    let stamp = Json::String(clock::isoformat(now));
    for step in &plan.steps {
        let name = step.name.as_str();
        match step.action {
            Action::Seed => {
                // Counted whether or not a record was written, as Hermes counts it.
                applied.counts.seeded += 1;
                if index.is_curation_eligible(lib, name, None) && index.usage.get(name).is_none() {
                    index
                        .usage
                        .records
                        .insert(name.to_string(), Json::Object(usage::empty_record(now)));
                    applied.sidecar_changed = true;
                }
            }
            Action::MarkStale | Action::Reactivate => {
                let to = if step.action == Action::MarkStale {
                    STATE_STALE
                } else {
                    STATE_ACTIVE
                };
                if set_state(lib, index, name, to, &stamp) {
                    applied.sidecar_changed = true;
                }
                if step.action == Action::MarkStale {
                    applied.counts.marked_stale += 1;
                } else {
                    applied.counts.reactivated += 1;
                }
                applied.changes.push(Change {
                    name: name.to_string(),
                    from: step.from.clone(),
                    to: to.to_string(),
                });
            }
            Action::Archive => match archive::move_to_archive(lib, index, name, now) {
                Ok(moved) => {
                    if moved.bundled {
                        applied.suppressed.push(name.to_string());
                    }
                    if set_state(lib, index, name, STATE_ARCHIVED, &stamp) {
                        applied.sidecar_changed = true;
                    }
                    applied.counts.archived += 1;
                    applied.changes.push(Change {
                        name: name.to_string(),
                        from: step.from.clone(),
                        to: STATE_ARCHIVED.to_string(),
                    });
                    applied.archived.push(ArchivedSkill {
                        name: name.to_string(),
                        dest: moved.dest,
                    });
                }
                Err(message) => applied.failures.push((name.to_string(), message)),
            },
        }
    }
    applied
}

/// `set_state` on the in-memory sidecar: `archived` stamps `archived_at`, `active` clears
/// it, `stale` leaves it. Only for curation-eligible skills, as Hermes's lifecycle mutators.
fn set_state(lib: &Library, index: &mut Index, name: &str, state: &str, stamp: &Json) -> bool {
    if !index.is_curation_eligible(lib, name, None) {
        return false;
    }
    let now = clock::parse_timestamp(stamp.as_str().unwrap_or_default()).unwrap_or_default();
    let record = index
        .usage
        .records
        .entry(name.to_string())
        .or_insert_with(|| Json::Object(usage::empty_record(now)));
    if !record.is_object() {
        *record = Json::Object(Map::new());
    }
    let Json::Object(record) = record else {
        return false;
    };
    record.insert("state".into(), Json::String(state.into()));
    match state {
        STATE_ARCHIVED => {
            record.insert("archived_at".into(), stamp.clone());
        }
        STATE_ACTIVE => {
            record.insert("archived_at".into(), Json::Null);
        }
        _ => {}
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::home::Config;
    use serde_json::json;

    fn ts(s: &str) -> Timestamp {
        clock::parse_timestamp(s).expect("ts")
    }

    fn row(name: &str, record: Json) -> Row {
        let stored = record.as_object().cloned();
        let mut r = stored.clone().unwrap_or_default();
        for (k, v) in usage::empty_record(ts("2026-06-01T12:00:00Z")) {
            r.entry(k).or_insert(v);
        }
        Row {
            name: name.into(),
            last_activity_at: usage::latest_activity_at(&r),
            activity_count: usage::activity_count(&r),
            record: r,
            persisted: stored.is_some(),
            provenance: None,
        }
    }

    /// The 12-case table of the reference (scenario 38), whose counts were verified against
    /// Hermes 0.19.0.
    #[test]
    fn the_reference_transition_table() {
        let now = ts("2026-06-01T12:00:00Z");
        let rows = vec![
            row(
                "a-young",
                json!({"created_by": "agent", "created_at": "2026-05-22T12:00:00+00:00"}),
            ),
            row(
                "b-young-stale",
                json!({"created_by": "agent", "created_at": "2026-05-22T12:00:00+00:00", "state": "stale"}),
            ),
            row(
                "c-45",
                json!({"created_by": "agent", "created_at": "2026-04-17T12:00:00+00:00"}),
            ),
            row(
                "d-120",
                json!({"created_by": "agent", "created_at": "2026-02-01T12:00:00+00:00"}),
            ),
            row(
                "e-used-45",
                json!({"created_by": "agent", "use_count": 3, "last_used_at": "2026-04-17T12:00:00+00:00"}),
            ),
            row(
                "f-used-91",
                json!({"created_by": "agent", "use_count": 3, "last_used_at": "2026-03-02T12:00:00+00:00"}),
            ),
            row(
                "g-viewed",
                json!({"created_by": "agent", "use_count": 1, "state": "stale", "last_viewed_at": "2026-05-30T12:00:00+00:00", "created_at": "2025-08-05T12:00:00+00:00"}),
            ),
            row(
                "h-pinned",
                json!({"created_by": "agent", "pinned": true, "created_at": "2024-07-01T12:00:00+00:00"}),
            ),
            row(
                "i-cron",
                json!({"created_by": "agent", "created_at": "2025-11-13T12:00:00+00:00"}),
            ),
            row(
                "k-30",
                json!({"created_by": "agent", "use_count": 1, "last_used_at": "2026-05-02T12:00:00+00:00"}),
            ),
            row(
                "m-90",
                json!({"created_by": "agent", "use_count": 1, "last_used_at": "2026-03-03T12:00:00+00:00"}),
            ),
            row(
                "l-viewed-45",
                json!({"created_by": "agent", "last_viewed_at": "2026-04-17T12:00:00+00:00"}),
            ),
        ];
        let cron = BTreeSet::from(["i-cron".to_string()]);
        let cutoffs = Cutoffs::new(&Config::defaults().curator, now);
        let plan = plan(&rows, &cron, cutoffs);
        assert_eq!(
            plan.counts,
            Counts {
                marked_stale: 4,
                archived: 3,
                reactivated: 2,
                checked: 12,
                seeded: 0
            }
        );
        let steps: Vec<(&str, &str)> = plan
            .steps
            .iter()
            .map(|s| (s.name.as_str(), s.action.as_str()))
            .collect();
        assert_eq!(
            steps,
            vec![
                ("b-young-stale", "reactivate"),
                ("c-45", "mark_stale"),
                ("d-120", "archive"),
                ("e-used-45", "mark_stale"),
                ("f-used-91", "archive"),
                ("g-viewed", "reactivate"),
                ("k-30", "mark_stale"),
                ("m-90", "archive"),
                ("l-viewed-45", "mark_stale"),
            ]
        );
    }

    #[test]
    fn boundaries_are_inclusive_and_odd_states_follow_python() {
        let now = ts("2026-06-01T12:00:00Z");
        let rows = vec![
            row(
                "exactly-90",
                json!({"use_count": 1, "last_used_at": "2026-03-03T12:00:00+00:00"}),
            ),
            // A null state is never marked stale, but is archived.
            row(
                "null-state-45",
                json!({"use_count": 1, "last_used_at": "2026-04-17T12:00:00+00:00", "state": null}),
            ),
            row(
                "null-state-100",
                json!({"use_count": 1, "last_used_at": "2026-02-21T12:00:00+00:00", "state": null}),
            ),
            // Archived in the record while the folder is live: left alone forever.
            row(
                "archived-live",
                json!({"use_count": 1, "last_used_at": "2025-11-13T12:00:00+00:00", "state": "archived"}),
            ),
            row(
                "bad-count",
                json!({"use_count": "many", "created_at": "2025-11-13T12:00:00+00:00"}),
            ),
            row("new-builtin", Json::Null),
            // Never used, created exactly on the stale cutoff (30 days before `now`): old
            // enough to go stale, one second later it is still young.
            row(
                "never-used-on-cutoff",
                json!({"created_at": "2026-05-02T12:00:00+00:00"}),
            ),
            row(
                "never-used-second-after",
                json!({"created_at": "2026-05-02T12:00:01+00:00"}),
            ),
            row(
                "stale-never-used-on-cutoff",
                json!({"created_at": "2026-05-02T12:00:00+00:00", "state": "stale"}),
            ),
        ];
        let cutoffs = Cutoffs::new(&Config::defaults().curator, now);
        assert_eq!(cutoffs.stale, ts("2026-05-02T12:00:00Z"));
        assert_eq!(cutoffs.archive, ts("2026-03-03T12:00:00Z"));
        let plan = plan(&rows, &BTreeSet::new(), cutoffs);
        let steps: Vec<(&str, &str, &str)> = plan
            .steps
            .iter()
            .map(|s| (s.name.as_str(), s.action.as_str(), s.from.as_str()))
            .collect();
        assert_eq!(
            steps,
            vec![
                ("exactly-90", "archive", "active"),
                ("null-state-100", "archive", "active"),
                ("new-builtin", "seed", "active"),
                ("never-used-on-cutoff", "mark_stale", "active"),
            ]
        );
        assert_eq!(plan.skipped.len(), 1);
        assert_eq!(plan.counts.checked, 9);
        assert_eq!(plan.counts.seeded, 1);
    }

    /// Hermes's `auto_summary` and the counters' JSON.
    #[test]
    fn summary_and_counters_as_hermes_reports_them() {
        assert_eq!(Counts::default().summary(), "no changes");
        let all = Counts {
            marked_stale: 1,
            archived: 2,
            reactivated: 3,
            checked: 9,
            seeded: 4,
        };
        assert_eq!(all.summary(), "1 marked stale, 2 archived, 3 reactivated");
        let archived = Counts {
            archived: 1,
            ..Counts::default()
        };
        assert_eq!(archived.summary(), "1 archived");
        assert_eq!(
            all.to_json(),
            json!({"marked_stale": 1, "archived": 2, "reactivated": 3, "checked": 9, "seeded": 4})
        );
    }

    /// A never-used skill younger than the stale cutoff is left alone even when a shorter
    /// archive period has passed; a used one of the same age is archived.
    #[test]
    fn never_used_and_young_is_left_alone_whatever_the_archive_cutoff() {
        let cutoffs = Cutoffs {
            now: ts("2026-06-01T12:00:00Z"),
            stale: ts("2026-05-02T12:00:00Z"),
            archive: ts("2026-05-22T12:00:00Z"),
        };
        let rows = vec![
            row(
                "never-used-20",
                json!({"created_at": "2026-05-12T12:00:00+00:00"}),
            ),
            row(
                "used-20",
                json!({"use_count": 1, "last_used_at": "2026-05-12T12:00:00+00:00"}),
            ),
        ];
        let plan = plan(&rows, &BTreeSet::new(), cutoffs);
        let steps: Vec<(&str, &str)> = plan
            .steps
            .iter()
            .map(|s| (s.name.as_str(), s.action.as_str()))
            .collect();
        assert_eq!(steps, vec![("used-20", "archive")]);
    }

    /// Each step carried out on a real library: the folder moved, the record's state and
    /// stamps changed in memory (its other keys kept), the counters and changes as Hermes
    /// reports them; a protected skill is counted but its record is never touched.
    #[test]
    fn apply_carries_out_each_step() {
        use crate::home::Home;
        use crate::skills::library::{Index, Library};
        use crate::skills::runtime::Runtime;
        let dir = tempfile::tempdir().expect("tempdir");
        for name in ["new-one", "kept", "going-stale", "back", "old", "plan"] {
            let p = dir.path().join("skills").join(name);
            std::fs::create_dir_all(&p).expect("mkdir");
            std::fs::write(
                p.join("SKILL.md"),
                format!("---\nname: {name}\ndescription: d\n---\nbody\n"),
            )
            .expect("write");
        }
        std::fs::write(
            dir.path().join("skills/.usage.json"),
            r#"{"kept": {"created_by": "agent", "use_count": 5},
                "going-stale": {"created_by": "agent", "state": "active"},
                "back": {"created_by": "agent", "state": "stale", "archived_at": "2026-01-01T00:00:00+00:00"},
                "old": {"created_by": "agent", "state": "active"}}"#,
        )
        .expect("usage");
        let lib = Library::new(
            Home::at(dir.path()),
            Config::defaults(),
            Runtime::plain_linux(),
        );
        let mut index = Index::build(&lib);
        let step = |name: &str, action: Action, from: &str| Planned {
            name: name.into(),
            action,
            from: from.into(),
        };
        let plan = Plan {
            steps: vec![
                step("new-one", Action::Seed, "active"),
                step("kept", Action::Seed, "active"),
                step("going-stale", Action::MarkStale, "active"),
                step("back", Action::Reactivate, "stale"),
                step("old", Action::Archive, "active"),
            ],
            counts: Counts {
                checked: 7,
                ..Counts::default()
            },
            skipped: vec![],
        };
        let now = ts("2026-06-01T12:00:00Z");
        let applied = apply(&lib, &mut index, &plan, now);
        assert_eq!(
            applied.counts,
            Counts {
                marked_stale: 1,
                archived: 1,
                reactivated: 1,
                checked: 7,
                seeded: 2
            }
        );
        let changes: Vec<(&str, &str, &str)> = applied
            .changes
            .iter()
            .map(|c| (c.name.as_str(), c.from.as_str(), c.to.as_str()))
            .collect();
        assert_eq!(
            changes,
            vec![
                ("going-stale", "active", "stale"),
                ("back", "stale", "active"),
                ("old", "active", "archived"),
            ]
        );
        assert!(applied.sidecar_changed);
        assert!(applied.failures.is_empty());
        assert!(applied.suppressed.is_empty());
        assert_eq!(applied.archived.len(), 1);
        assert_eq!(applied.archived[0].name, "old");
        assert!(applied.archived[0].dest.join("SKILL.md").exists());
        assert!(!dir.path().join("skills/old").exists());
        let rec = |name: &str| Json::Object(index.usage.get(name).cloned().expect(name));
        assert_eq!(rec("new-one")["created_at"], "2026-06-01T12:00:00+00:00");
        assert_eq!(rec("new-one")["use_count"], 0);
        assert_eq!(rec("kept")["use_count"], 5);
        assert_eq!(rec("going-stale")["state"], "stale");
        assert_eq!(rec("going-stale")["created_by"], "agent");
        assert_eq!(rec("back")["state"], "active");
        assert_eq!(rec("back")["archived_at"], Json::Null);
        assert_eq!(rec("old")["state"], "archived");
        assert_eq!(rec("old")["archived_at"], "2026-06-01T12:00:00+00:00");

        // `plan` is protected: counted as Hermes counts it, its record never written.
        let protected = Plan {
            steps: vec![step("plan", Action::MarkStale, "active")],
            counts: Counts::default(),
            skipped: vec![],
        };
        let applied = apply(&lib, &mut index, &protected, now);
        assert!(!applied.sidecar_changed);
        assert_eq!(applied.counts.marked_stale, 1);
        assert!(index.usage.get("plan").is_none());
    }
}
