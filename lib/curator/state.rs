//! `skills/.curator_state`: when the curator last ran, what it did, whether it is paused.
//! A JSON object written as Python's `atomic_json_write(indent=2, sort_keys=True)` writes it
//! (no trailing newline); on load only the known keys and keys starting with `_` are kept,
//! as Hermes keeps them.
//!
//! Scheduling is [`schedule`]: Hermes's `should_run_now`, including the first-run seed (the
//! first look at a home never runs; it records now and waits one interval).

use std::path::PathBuf;

use jiff::{SignedDuration, Timestamp};
use serde_json::{Map, Value as Json};

use crate::clock;
use crate::home::{CuratorConfig, Home};
use crate::io::FileError;
use crate::io::atomic::{FileMode, write_atomic};
use crate::io::pyjson::{Dumps, dumps};

/// The summary a first-run seed leaves, word for word Hermes's.
pub const SEED_SUMMARY: &str = "deferred first run — curator seeded, will run after one interval; use `hermes curator run --dry-run` to preview now";

/// The state file's contents: the known keys (defaults filled in) and any `_`-keys.
#[derive(Debug, Clone, PartialEq)]
pub struct CuratorState {
    pub data: Map<String, Json>,
}

/// What loading found.
#[derive(Debug, Clone, PartialEq)]
pub enum Loaded {
    /// The file as Hermes would read it (defaults when missing).
    Ok(CuratorState),
    /// The file exists but is not a JSON object: defaults, and the reason. Hermes reads
    /// defaults too, and overwrites the file on its next save.
    Corrupt(CuratorState, String),
}

impl Default for CuratorState {
    fn default() -> Self {
        let mut data = Map::new();
        data.insert("last_run_at".into(), Json::Null);
        data.insert("last_run_duration_seconds".into(), Json::Null);
        data.insert("last_run_summary".into(), Json::Null);
        data.insert("last_run_summary_shown_at".into(), Json::Null);
        data.insert("last_report_path".into(), Json::Null);
        data.insert("paused".into(), Json::Bool(false));
        data.insert("run_count".into(), Json::from(0));
        CuratorState { data }
    }
}

impl CuratorState {
    /// Reads `.curator_state`.
    pub fn load(home: &Home) -> Loaded {
        let path = home.curator_state();
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Loaded::Ok(CuratorState::default());
            }
            Err(e) => return Loaded::Corrupt(CuratorState::default(), e.to_string()),
        };
        match serde_json::from_slice::<Json>(&bytes) {
            Ok(Json::Object(file)) => {
                let mut state = CuratorState::default();
                for (key, value) in file {
                    if state.data.contains_key(&key) || key.starts_with('_') {
                        state.data.insert(key, value);
                    }
                }
                Loaded::Ok(state)
            }
            Ok(_) => Loaded::Corrupt(CuratorState::default(), "not a JSON object".into()),
            Err(e) => Loaded::Corrupt(CuratorState::default(), e.to_string()),
        }
    }

    /// The state, a corrupt file read as defaults (its bytes are kept aside on save).
    pub fn load_lenient(home: &Home) -> CuratorState {
        match CuratorState::load(home) {
            Loaded::Ok(s) | Loaded::Corrupt(s, _) => s,
        }
    }

    /// The file as Python writes it.
    pub fn to_python_json(&self) -> String {
        dumps(&Json::Object(self.data.clone()), Dumps::SIDECAR)
    }

    /// Writes the state atomically, keeping the file's permission bits. A file that could
    /// not be read is never overwritten: it is copied to `.curator_state.corrupt` and the
    /// save fails.
    pub fn save(&self, home: &Home) -> Result<(), FileError> {
        let path = home.curator_state();
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| FileError::new("create", parent, e))?;
        }
        if let Loaded::Corrupt(_, why) = CuratorState::load(home) {
            return Err(refuse_corrupt(home, &why));
        }
        let mode = std::fs::metadata(&path)
            .ok()
            .map(|m| {
                use std::os::unix::fs::PermissionsExt;
                FileMode::Exact(m.permissions().mode() & 0o7777)
            })
            .unwrap_or(FileMode::Private);
        write_atomic(&path, self.to_python_json().as_bytes(), mode)
    }

    pub fn str_field(&self, key: &str) -> Option<&str> {
        self.data.get(key).and_then(Json::as_str)
    }

    /// `bool(state.get("paused"))`.
    pub fn paused(&self) -> bool {
        self.data.get("paused").is_some_and(crate::pytext::truthy)
    }

    pub fn set_paused(&mut self, paused: bool) {
        self.data.insert("paused".into(), Json::Bool(paused));
    }

    /// `int(state.get("run_count", 0))`, 0 when it is not a number.
    pub fn run_count(&self) -> i64 {
        match self.data.get("run_count") {
            Some(Json::Number(n)) => n
                .as_i64()
                .or_else(|| n.as_f64().map(|f| f as i64))
                .unwrap_or(0),
            Some(Json::Bool(b)) => i64::from(*b),
            Some(Json::String(s)) => s.trim().parse().unwrap_or(0),
            _ => 0,
        }
    }

    /// `last_run_at`, parsed (naive = UTC); `None` when missing or unparsable.
    pub fn last_run_at(&self) -> Option<Timestamp> {
        self.str_field("last_run_at")
            .filter(|s| !s.is_empty())
            .and_then(clock::parse_timestamp)
    }

    /// Records a live run that started at `start`.
    pub fn record_run(&mut self, start: Timestamp) {
        self.data
            .insert("last_run_at".into(), Json::String(clock::isoformat(start)));
        let count = self.run_count().saturating_add(1);
        self.data.insert("run_count".into(), Json::from(count));
    }

    pub fn set(&mut self, key: &str, value: Json) {
        self.data.insert(key.into(), value);
    }
}

/// Where the bytes of an unreadable state file are kept before it is rewritten.
/// The rule for every sidecar we parse: a file that does not parse is never overwritten.
/// Its bytes are copied to `.curator_state.corrupt` and the error says so.
pub fn refuse_corrupt(home: &Home, why: &str) -> FileError {
    let path = home.curator_state();
    let copy = corrupt_copy(home);
    if let Ok(bytes) = std::fs::read(&path) {
        let _ = write_atomic(&copy, &bytes, FileMode::Private);
    }
    FileError::new(
        "replace",
        &path,
        std::io::Error::other(format!(
            "it does not parse ({why}); left as it is (a copy is in {}): fix it, or move it away to start afresh",
            copy.display()
        )),
    )
}

pub fn corrupt_copy(home: &Home) -> PathBuf {
    home.curator_state()
        .with_file_name(".curator_state.corrupt")
}

/// What the schedule says about running now.
#[derive(Debug, Clone, PartialEq)]
pub enum Schedule {
    /// An interval has passed since the last run.
    Due {
        last_run_at: Timestamp,
    },
    /// Not yet: the next run is due at `next_run_at`.
    NotDue {
        last_run_at: Timestamp,
        next_run_at: Timestamp,
    },
    /// The first look at this home: `last_run_at` is set to now and the first real run
    /// waits one interval (the state to save is returned with it).
    Seed(CuratorState),
    Paused,
    Disabled,
}

impl Schedule {
    pub fn is_due(&self) -> bool {
        matches!(self, Schedule::Due { .. })
    }

    /// The reason a run does not happen, as a word for the JSON record.
    pub fn reason(&self) -> &'static str {
        match self {
            Schedule::Due { .. } => "due",
            Schedule::NotDue { .. } => "not_due",
            Schedule::Seed(_) => "seeded",
            Schedule::Paused => "paused",
            Schedule::Disabled => "disabled",
        }
    }
}

/// `should_run_now(now)`: disabled, then paused, then the seed, then the interval. Pure: a
/// seed is returned, not written.
pub fn schedule(state: &CuratorState, config: &CuratorConfig, now: Timestamp) -> Schedule {
    if !config.enabled {
        return Schedule::Disabled;
    }
    if state.paused() {
        return Schedule::Paused;
    }
    let Some(last) = state.last_run_at() else {
        let mut seeded = state.clone();
        seeded.set("last_run_at", Json::String(clock::isoformat(now)));
        seeded.set("last_run_summary", Json::String(SEED_SUMMARY.into()));
        return Schedule::Seed(seeded);
    };
    let interval = SignedDuration::from_secs(config.interval_hours.saturating_mul(3600));
    let next = last
        .checked_add(interval)
        .unwrap_or(if interval.is_negative() {
            Timestamp::MIN
        } else {
            Timestamp::MAX
        });
    if now >= next {
        Schedule::Due { last_run_at: last }
    } else {
        Schedule::NotDue {
            last_run_at: last,
            next_run_at: next,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::home::Config;

    fn ts(s: &str) -> Timestamp {
        clock::parse_timestamp(s).expect("ts")
    }

    #[test]
    fn first_look_seeds_then_waits_one_interval() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        let config = Config::defaults().curator;
        let now = ts("2026-06-01T12:00:00Z");
        let state = CuratorState::load_lenient(&home);
        let Schedule::Seed(seeded) = schedule(&state, &config, now) else {
            panic!("expected a seed");
        };
        seeded.save(&home).expect("save");
        assert_eq!(
            std::fs::read_to_string(home.curator_state()).expect("read"),
            "{\n  \"last_report_path\": null,\n  \"last_run_at\": \"2026-06-01T12:00:00+00:00\",\n  \"last_run_duration_seconds\": null,\n  \"last_run_summary\": \"deferred first run — curator seeded, will run after one interval; use `hermes curator run --dry-run` to preview now\",\n  \"last_run_summary_shown_at\": null,\n  \"paused\": false,\n  \"run_count\": 0\n}"
        );
        let state = CuratorState::load_lenient(&home);
        assert!(!schedule(&state, &config, ts("2026-06-08T11:00:00Z")).is_due());
        assert!(schedule(&state, &config, ts("2026-06-08T12:00:00Z")).is_due());
        let mut paused = state.clone();
        paused.set_paused(true);
        assert_eq!(
            schedule(&paused, &config, ts("2027-01-01T00:00:00Z")),
            Schedule::Paused
        );
        let mut off = config.clone();
        off.enabled = false;
        assert_eq!(schedule(&state, &off, now), Schedule::Disabled);
    }

    #[test]
    fn unknown_keys_dropped_underscore_kept_naive_is_utc() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        std::fs::create_dir_all(home.skills_dir()).expect("mkdir");
        std::fs::write(
            home.curator_state(),
            r#"{"last_run_at": "2026-06-01T12:00:00", "junk": 1, "_custom": [1], "run_count": 2}"#,
        )
        .expect("write");
        let state = CuratorState::load_lenient(&home);
        assert_eq!(state.data.get("junk"), None);
        assert_eq!(state.data.get("_custom"), Some(&serde_json::json!([1])));
        assert_eq!(state.last_run_at(), Some(ts("2026-06-01T12:00:00Z")));
        assert_eq!(state.run_count(), 2);
    }

    #[test]
    fn a_corrupt_file_is_kept_aside_and_never_rewritten() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        std::fs::create_dir_all(home.skills_dir()).expect("mkdir");
        std::fs::write(home.curator_state(), "{not json").expect("write");
        assert!(matches!(CuratorState::load(&home), Loaded::Corrupt(..)));
        let mut state = CuratorState::load_lenient(&home);
        state.set_paused(true);
        state.save(&home).expect_err("refused");
        assert_eq!(
            std::fs::read_to_string(corrupt_copy(&home)).expect("copy"),
            "{not json"
        );
        assert_eq!(
            std::fs::read_to_string(home.curator_state()).expect("state"),
            "{not json"
        );
    }

    #[test]
    fn a_state_path_that_cannot_be_read_is_corrupt_not_missing() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        std::fs::create_dir_all(home.curator_state()).expect("mkdir");
        assert_eq!(
            CuratorState::load(&home),
            Loaded::Corrupt(
                CuratorState::default(),
                "Is a directory (os error 21)".into()
            )
        );
        std::fs::remove_dir(home.curator_state()).expect("rmdir");
        std::fs::write(home.curator_state(), "[1, 2]").expect("write");
        assert_eq!(
            CuratorState::load(&home),
            Loaded::Corrupt(CuratorState::default(), "not a JSON object".into())
        );
        let err = CuratorState::default().save(&home).expect_err("refused");
        assert_eq!(
            err.to_string(),
            format!(
                "cannot replace {}: it does not parse (not a JSON object); left as it is (a copy is in {}): fix it, or move it away to start afresh",
                home.curator_state().display(),
                dir.path().join("skills/.curator_state.corrupt").display()
            )
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("skills/.curator_state.corrupt"))
                .expect("copy"),
            "[1, 2]"
        );
    }

    #[test]
    fn a_save_keeps_the_mode_of_the_file_it_replaces() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        let mode = |home: &Home| {
            std::fs::metadata(home.curator_state())
                .expect("stat")
                .permissions()
                .mode()
                & 0o7777
        };
        // No skills/ yet: the save makes it, and a new file is private.
        CuratorState::default().save(&home).expect("save");
        assert_eq!(mode(&home), 0o600);
        std::fs::set_permissions(home.curator_state(), std::fs::Permissions::from_mode(0o644))
            .expect("chmod");
        let mut state = CuratorState::load_lenient(&home);
        state.set_paused(true);
        state.save(&home).expect("save");
        assert_eq!(mode(&home), 0o644);
        assert!(CuratorState::load_lenient(&home).paused());
    }

    #[test]
    fn run_count_reads_what_python_int_reads() {
        let with = |v: Json| {
            let mut s = CuratorState::default();
            s.set("run_count", v);
            s.run_count()
        };
        assert_eq!(with(serde_json::json!(4)), 4);
        assert_eq!(with(serde_json::json!(2.9)), 2);
        assert_eq!(with(serde_json::json!(true)), 1);
        assert_eq!(with(serde_json::json!(false)), 0);
        assert_eq!(with(serde_json::json!(" 7 ")), 7);
        assert_eq!(with(serde_json::json!("seven")), 0);
        assert_eq!(with(Json::Null), 0);
    }

    #[test]
    fn a_run_records_its_start_and_counts_itself() {
        let mut state = CuratorState::default();
        state.set("run_count", serde_json::json!("3"));
        state.record_run(ts("2026-06-01T12:00:00Z"));
        assert_eq!(
            state.data.get("last_run_at"),
            Some(&serde_json::json!("2026-06-01T12:00:00+00:00"))
        );
        assert_eq!(state.data.get("run_count"), Some(&serde_json::json!(4)));
        state.set("run_count", serde_json::json!(i64::MAX));
        state.record_run(ts("2026-06-02T00:00:00Z"));
        assert_eq!(state.run_count(), i64::MAX);
        assert_eq!(state.last_run_at(), Some(ts("2026-06-02T00:00:00Z")));
    }

    #[test]
    fn each_schedule_has_its_reason_word() {
        let now = ts("2026-06-01T12:00:00Z");
        let words: Vec<&str> = [
            Schedule::Due { last_run_at: now },
            Schedule::NotDue {
                last_run_at: now,
                next_run_at: now,
            },
            Schedule::Seed(CuratorState::default()),
            Schedule::Paused,
            Schedule::Disabled,
        ]
        .iter()
        .map(Schedule::reason)
        .collect();
        assert_eq!(words, ["due", "not_due", "seeded", "paused", "disabled"]);
        let mut state = CuratorState::default();
        state.set(
            "last_run_at",
            serde_json::json!("2026-06-01T00:00:00+00:00"),
        );
        let config = crate::home::Config::defaults().curator;
        assert_eq!(
            schedule(&state, &config, now),
            Schedule::NotDue {
                last_run_at: ts("2026-06-01T00:00:00Z"),
                next_run_at: ts("2026-06-08T00:00:00Z"),
            }
        );
    }
}
