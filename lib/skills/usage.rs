//! `skills/.usage.json`: per-skill telemetry (use, view and patch counts with their last
//! times) and lifecycle (`state`, `pinned`, `archived_at`, provenance in `created_by`), shared
//! byte for byte with Python Hermes.
//!
//! The file is one JSON object, name → record, written as Python's
//! `json.dump(indent=2, sort_keys=True, ensure_ascii=False)` writes it (no trailing newline),
//! mode 0600, by atomic replace, every read-modify-write under `flock` on
//! `skills/.usage.json.lock` — the lock Python takes — so the two programs can bump counters
//! on the same skills at once and lose nothing. Reads take no lock and forgive everything:
//! a missing, unreadable or non-JSON file reads as empty, and entries that are not objects
//! are dropped. Unknown keys in a record are kept.

use std::path::Path;

use jiff::Timestamp;
use serde_json::{Map, Value as Json};

use crate::clock;
use crate::home::Home;
use crate::io::atomic::{FileMode, write_atomic};
use crate::io::lock::FileLock;
use crate::io::pyjson::{Dumps, dumps};
use crate::io::{FileError, read_file};

pub const STATE_ACTIVE: &str = "active";
pub const STATE_STALE: &str = "stale";
pub const STATE_ARCHIVED: &str = "archived";

/// One skill's record, keys as stored (unknown keys kept).
pub type Record = Map<String, Json>;

/// Why a sidecar update did not happen.
#[derive(Debug, thiserror::Error)]
pub enum UsageError {
    #[error(transparent)]
    File(#[from] FileError),
    /// A counter holds something Python's `int()` refuses; Python skips the update too.
    #[error("{name}: {key} is {value}, not a number; the record was left as it is")]
    NotACount {
        name: String,
        key: String,
        value: String,
    },
    /// The sidecar does not parse: it is never overwritten (Python would replace it with
    /// the one record being written, losing every other skill's history).
    #[error(
        "{} does not parse ({reason}); left as it is, nothing recorded (a copy is in {}): fix it, or move it away to start counting afresh",
        path.display(),
        copy.display()
    )]
    Corrupt {
        path: std::path::PathBuf,
        copy: std::path::PathBuf,
        reason: String,
    },
}

/// The whole sidecar: skill name → record, in file order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UsageMap {
    pub records: Map<String, Json>,
}

impl UsageMap {
    /// The record stored for `name`, if any.
    pub fn get(&self, name: &str) -> Option<&Record> {
        self.records.get(name).and_then(Json::as_object)
    }

    /// `get_record`: the stored record with missing keys filled in (not persisted).
    pub fn record_or_default(&self, name: &str, now: Timestamp) -> Record {
        let mut record = self.get(name).cloned().unwrap_or_default();
        for (key, value) in empty_record(now) {
            record.entry(key).or_insert(value);
        }
        record
    }

    /// Serialises as Python's `json.dump(indent=2, sort_keys=True, ensure_ascii=False)`.
    pub fn to_python_json(&self) -> String {
        dumps(&Json::Object(self.records.clone()), Dumps::SIDECAR)
    }
}

/// A fresh record (`_empty_record`), created now.
pub fn empty_record(now: Timestamp) -> Record {
    let mut r = Map::new();
    r.insert("created_by".into(), Json::Null);
    r.insert("use_count".into(), Json::from(0));
    r.insert("view_count".into(), Json::from(0));
    r.insert("last_used_at".into(), Json::Null);
    r.insert("last_viewed_at".into(), Json::Null);
    r.insert("patch_count".into(), Json::from(0));
    r.insert("last_patched_at".into(), Json::Null);
    r.insert("created_at".into(), Json::String(clock::isoformat(now)));
    r.insert("state".into(), Json::String(STATE_ACTIVE.into()));
    r.insert("pinned".into(), Json::Bool(false));
    r.insert("archived_at".into(), Json::Null);
    r
}

/// Reads the sidecar as Python's `load_usage` does: anything unreadable is empty.
pub fn load(home: &Home) -> UsageMap {
    load_path(&home.usage_json()).unwrap_or_default()
}

/// `None` when the file is missing or unusable.
fn load_path(path: &Path) -> Option<UsageMap> {
    let bytes = std::fs::read(path).ok()?;
    let Json::Object(map) = serde_json::from_slice::<Json>(&bytes).ok()? else {
        return None;
    };
    let records = map.into_iter().filter(|(_, v)| v.is_object()).collect();
    Some(UsageMap { records })
}

/// Applies `change` to `name`'s record (a fresh one when missing) under the lock and writes
/// the file back. `change` may refuse by returning an error, and then nothing is written.
/// Returns the record as written (`None` for an empty name, which Python ignores).
pub fn mutate(
    home: &Home,
    name: &str,
    now: Timestamp,
    change: impl FnOnce(&mut Record) -> Result<(), UsageError>,
) -> Result<Option<Record>, UsageError> {
    if name.is_empty() {
        return Ok(None);
    }
    let mut written = None;
    update(home, |map| {
        let mut record = map
            .records
            .get(name)
            .and_then(Json::as_object)
            .cloned()
            .unwrap_or_else(|| empty_record(now));
        change(&mut record)?;
        map.records
            .insert(name.to_string(), Json::Object(record.clone()));
        written = Some(record);
        Ok(true)
    })?;
    Ok(written)
}

/// Read-modify-write of the whole map under the lock; `change` returns whether to write.
pub fn update(
    home: &Home,
    change: impl FnOnce(&mut UsageMap) -> Result<bool, UsageError>,
) -> Result<(), UsageError> {
    let path = home.usage_json();
    let _lock = FileLock::acquire(&home.usage_lock())?;
    let mut map = match load_checked(home) {
        Ok(map) => map,
        Err(SidecarError::File(e)) => return Err(e.into()),
        Err(SidecarError::Corrupt { path, reason }) => {
            // One rule for every sidecar we parse: never overwrite what we could not read;
            // keep a copy of its bytes (the file may be edited or replaced meanwhile) and
            // say so.
            let copy = corrupt_copy(&path);
            if let Ok(bytes) = read_file(&path) {
                write_atomic(&copy, &bytes, FileMode::Private)?;
            }
            return Err(UsageError::Corrupt { path, copy, reason });
        }
    };
    if !change(&mut map)? {
        return Ok(());
    }
    write_atomic(&path, map.to_python_json().as_bytes(), FileMode::Private)?;
    Ok(())
}

/// Where the bytes of an unparsable sidecar are kept: `<name>.corrupt` beside it.
pub fn corrupt_copy(path: &Path) -> std::path::PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".corrupt");
    path.with_file_name(name)
}

/// Python's `int(value or 0)` for a counter; an error where Python's `int()` raises.
pub fn count_of(name: &str, record: &Record, key: &str) -> Result<i64, UsageError> {
    count(name, record, key)
}

/// Python's `int(value or 0)` for a counter: what Python reads as false is 0, the rest goes
/// through `int()` (strings as `int()` parses them: `_` only between digits).
fn count(name: &str, record: &Record, key: &str) -> Result<i64, UsageError> {
    let value = record.get(key).unwrap_or(&Json::Null);
    if !crate::pytext::truthy(value) {
        return Ok(0);
    }
    match crate::pytext::py_int_of(value) {
        Some(crate::pytext::PyInt::Small(n)) => Ok(n),
        // Python's int() takes a number past 64 bits; a counter that big is refused rather
        // than clamped, so the record keeps what it holds.
        _ => Err(UsageError::NotACount {
            name: name.to_string(),
            key: key.to_string(),
            value: value.to_string(),
        }),
    }
}

/// A telemetry event on a skill.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// `skill_view` read it (counts as a view).
    View,
    /// It was loaded to act on (a `skill_view` call, a slash invocation, a cron run).
    Use,
    /// `skill_manage` changed it (edit, patch, write_file, remove_file).
    Patch,
}

impl Event {
    fn keys(self) -> (&'static str, &'static str) {
        match self {
            Event::View => ("view_count", "last_viewed_at"),
            Event::Use => ("use_count", "last_used_at"),
            Event::Patch => ("patch_count", "last_patched_at"),
        }
    }
}

/// Bumps the counters of `events` on one record in one locked write (Python's `bump_view`,
/// `bump_use`, `bump_patch`). Applies to every skill, whatever its provenance.
pub fn bump(
    home: &Home,
    name: &str,
    events: &[Event],
    now: Timestamp,
) -> Result<Option<Record>, UsageError> {
    let stamp = clock::isoformat(now);
    mutate(home, name, now, |record| {
        let mut counts = Vec::with_capacity(events.len());
        for event in events {
            let (count_key, _) = event.keys();
            counts.push(count(name, record, count_key)?);
        }
        for (event, n) in events.iter().zip(counts) {
            let (count_key, time_key) = event.keys();
            record.insert(count_key.into(), Json::from(n.saturating_add(1)));
            record.insert(time_key.into(), Json::String(stamp.clone()));
        }
        Ok(())
    })
}

/// Drops `name`'s record (a hard delete). Writes only when there was one.
pub fn forget(home: &Home, name: &str) -> Result<(), UsageError> {
    if name.is_empty() {
        return Ok(());
    }
    update(home, |map| Ok(map.records.remove(name).is_some()))
}

/// Sets `created_by: "agent"`: the skill is curator-managed from now on.
pub fn mark_agent_created(
    home: &Home,
    name: &str,
    now: Timestamp,
) -> Result<Option<Record>, UsageError> {
    mutate(home, name, now, |r| {
        r.insert("created_by".into(), Json::String("agent".into()));
        Ok(())
    })
}

/// Sets the lifecycle state: `archived` stamps `archived_at`, `active` clears it, `stale`
/// leaves it. Any other state is ignored, as in Python.
pub fn set_state(
    home: &Home,
    name: &str,
    state: &str,
    now: Timestamp,
) -> Result<Option<Record>, UsageError> {
    if ![STATE_ACTIVE, STATE_STALE, STATE_ARCHIVED].contains(&state) {
        return Ok(None);
    }
    mutate(home, name, now, |r| {
        r.insert("state".into(), Json::String(state.into()));
        if state == STATE_ARCHIVED {
            r.insert("archived_at".into(), Json::String(clock::isoformat(now)));
        } else if state == STATE_ACTIVE {
            r.insert("archived_at".into(), Json::Null);
        }
        Ok(())
    })
}

pub fn set_pinned(
    home: &Home,
    name: &str,
    pinned: bool,
    now: Timestamp,
) -> Result<Option<Record>, UsageError> {
    mutate(home, name, now, |r| {
        r.insert("pinned".into(), Json::Bool(pinned));
        Ok(())
    })
}

/// `_is_curator_managed_record`: `created_by == "agent"`, or the legacy `agent_created: true`.
pub fn is_curator_managed(record: Option<&Record>) -> bool {
    record.is_some_and(|r| {
        r.get("created_by").and_then(Json::as_str) == Some("agent")
            || r.get("agent_created") == Some(&Json::Bool(true))
    })
}

/// Whether the record says the skill is pinned (`bool(rec.get("pinned"))`).
pub fn is_pinned(record: Option<&Record>) -> bool {
    record
        .and_then(|r| r.get("pinned"))
        .is_some_and(crate::pytext::truthy)
}

/// A sidecar that cannot be read as a JSON object of records.
#[derive(Debug, thiserror::Error)]
pub enum SidecarError {
    #[error(transparent)]
    File(#[from] FileError),
    #[error("{path} does not parse ({reason}); left as it is")]
    Corrupt {
        path: std::path::PathBuf,
        reason: String,
    },
}

/// Reads the sidecar, telling a missing file (empty) from one that cannot be used, which
/// Python would silently read as empty and then overwrite.
pub fn load_checked(home: &Home) -> Result<UsageMap, SidecarError> {
    let path = home.usage_json();
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(UsageMap::default()),
        Err(e) => return Err(FileError::new("read", &path, e).into()),
    };
    let corrupt = |reason: String| SidecarError::Corrupt {
        path: path.clone(),
        reason,
    };
    match serde_json::from_slice::<Json>(&bytes) {
        Ok(Json::Object(map)) => Ok(UsageMap {
            records: map.into_iter().filter(|(_, v)| v.is_object()).collect(),
        }),
        Ok(_) => Err(corrupt(
            "the top level is not an object of skill records".into(),
        )),
        Err(e) => Err(corrupt(e.to_string())),
    }
}

/// The sidecar held under its lock for a whole pass: read once, changed in memory, written
/// once. Python's bumps wait for the lock meanwhile, so none is lost.
#[derive(Debug)]
pub struct Locked {
    _lock: FileLock,
    home: Home,
    pub map: UsageMap,
}

/// Takes the lock and reads the sidecar; an unusable file is an error (nothing is written).
pub fn lock_checked(home: &Home) -> Result<Locked, SidecarError> {
    let lock = FileLock::acquire(&home.usage_lock())?;
    let map = load_checked(home)?;
    Ok(Locked {
        _lock: lock,
        home: home.clone(),
        map,
    })
}

impl Locked {
    /// Writes the map back (atomically, as Python writes it); the lock stays held.
    pub fn save(&self) -> Result<(), FileError> {
        write_atomic(
            &self.home.usage_json(),
            self.map.to_python_json().as_bytes(),
            FileMode::Private,
        )
    }
}

/// `latest_activity_at`: the newest of `last_used_at`, `last_viewed_at`, `last_patched_at`
/// (compared as instants; naive times are UTC; unparsable ones ignored), as stored.
pub fn latest_activity_at(record: &Record) -> Option<String> {
    let mut latest: Option<(Timestamp, String)> = None;
    for key in ["last_used_at", "last_viewed_at", "last_patched_at"] {
        let Some(raw) = record.get(key).filter(|v| crate::pytext::truthy(v)) else {
            continue;
        };
        let text = match raw {
            Json::String(s) => s.clone(),
            other => other.to_string(),
        };
        let Some(ts) = parse_iso(&text) else {
            continue;
        };
        if latest.as_ref().is_none_or(|(best, _)| ts > *best) {
            latest = Some((ts, text));
        }
    }
    latest.map(|(_, text)| text)
}

/// `datetime.fromisoformat` as Hermes uses it (naive = UTC).
pub fn parse_iso(text: &str) -> Option<Timestamp> {
    clock::parse_timestamp(text)
}

/// `activity_count`: use + view + patch counts, ignoring values that are not numbers.
pub fn activity_count(record: &Record) -> i64 {
    ["use_count", "view_count", "patch_count"]
        .iter()
        .filter_map(|k| count("", record, k).ok())
        .fold(0i64, i64::saturating_add)
}

/// A counter as a number for display (0 when missing or not a number).
pub fn counter(record: Option<&Record>, key: &str) -> i64 {
    record.and_then(|r| count("", r, key).ok()).unwrap_or(0)
}

/// The lifecycle state (`active` when missing).
pub fn state(record: Option<&Record>) -> String {
    record
        .and_then(|r| r.get("state"))
        .and_then(Json::as_str)
        .unwrap_or(STATE_ACTIVE)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ts(text: &str) -> Timestamp {
        clock::parse_timestamp(text).expect("timestamp")
    }

    #[test]
    fn writes_like_python_json_dump() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        let now = ts("2026-11-29T19:08:47.655155Z");
        bump(&home, "démo", &[Event::View, Event::Use], now).expect("bump");
        let text = std::fs::read_to_string(home.usage_json()).expect("read");
        assert_eq!(
            text,
            "{\n  \"démo\": {\n    \"archived_at\": null,\n    \"created_at\": \"2026-11-29T19:08:47.655155+00:00\",\n    \"created_by\": null,\n    \"last_patched_at\": null,\n    \"last_used_at\": \"2026-11-29T19:08:47.655155+00:00\",\n    \"last_viewed_at\": \"2026-11-29T19:08:47.655155+00:00\",\n    \"patch_count\": 0,\n    \"pinned\": false,\n    \"state\": \"active\",\n    \"use_count\": 1,\n    \"view_count\": 1\n  }\n}"
        );
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(home.usage_json())
            .expect("meta")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        assert!(home.usage_lock().exists());
    }

    /// Python reads `.usage.json` without our lock: each write must put a new file in place
    /// (a hard link to the old one keeps the old bytes), never rewrite the old one in place.
    #[test]
    fn sidecar_writes_replace_the_file_never_rewrite_it() {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        std::fs::create_dir_all(home.skills_dir()).expect("mkdir");
        let old = "{\"a\": {\"use_count\": 3}}";
        std::fs::write(home.usage_json(), old).expect("seed");
        let held = dir.path().join("held");
        std::fs::hard_link(home.usage_json(), &held).expect("link");
        let inode = std::fs::metadata(home.usage_json()).expect("meta").ino();
        bump(&home, "a", &[Event::Use], ts("2026-11-29T19:08:47Z")).expect("bump");
        assert_eq!(std::fs::read_to_string(&held).expect("held"), old);
        assert_ne!(
            std::fs::metadata(home.usage_json()).expect("meta").ino(),
            inode
        );
        let inode = std::fs::metadata(home.usage_json()).expect("meta").ino();
        std::fs::remove_file(&held).expect("unlink");
        std::fs::hard_link(home.usage_json(), &held).expect("link");
        let before = std::fs::read_to_string(&held).expect("held");
        forget(&home, "a").expect("forget");
        assert_eq!(std::fs::read_to_string(&held).expect("held"), before);
        assert_ne!(
            std::fs::metadata(home.usage_json()).expect("meta").ino(),
            inode
        );
        assert_eq!(
            std::fs::read_to_string(home.usage_json()).expect("read"),
            "{}"
        );
    }

    #[test]
    fn tolerant_reads_and_unknown_keys_kept() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        std::fs::create_dir_all(home.skills_dir()).expect("mkdir");
        std::fs::write(
            home.usage_json(),
            r#"{"a": {"agent_created": true, "view_count": "2", "extra": [1]}, "b": 3}"#,
        )
        .expect("seed");
        let map = load(&home);
        assert!(map.get("b").is_none());
        assert!(is_curator_managed(map.get("a")));
        bump(&home, "a", &[Event::View], ts("2026-01-01T00:00:00Z")).expect("bump");
        let map = load(&home);
        let a = map.get("a").expect("a");
        assert_eq!(a.get("view_count"), Some(&Json::from(3)));
        assert_eq!(a.get("extra"), Some(&serde_json::json!([1])));
        assert!(map.get("b").is_none());
        std::fs::write(home.usage_json(), "not json").expect("garbage");
        assert_eq!(load(&home), UsageMap::default());
    }

    #[test]
    fn a_corrupt_sidecar_is_never_overwritten() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        std::fs::create_dir_all(home.skills_dir()).expect("mkdir");
        std::fs::write(home.usage_json(), "{\"a\": {\"use_count\": 7},").expect("seed");
        let err = bump(&home, "b", &[Event::View], ts("2026-01-01T00:00:00Z")).expect_err("bad");
        assert!(matches!(err, UsageError::Corrupt { .. }), "{err}");
        assert_eq!(
            std::fs::read_to_string(home.usage_json()).expect("read"),
            "{\"a\": {\"use_count\": 7},"
        );
        assert_eq!(
            std::fs::read_to_string(home.skills_dir().join(".usage.json.corrupt")).expect("copy"),
            "{\"a\": {\"use_count\": 7},"
        );
    }

    #[test]
    fn bad_counter_leaves_the_file_alone() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        std::fs::create_dir_all(home.skills_dir()).expect("mkdir");
        let before = r#"{"a": {"use_count": "many"}}"#;
        std::fs::write(home.usage_json(), before).expect("seed");
        let err = bump(&home, "a", &[Event::Use], ts("2026-01-01T00:00:00Z")).expect_err("bad");
        assert!(matches!(err, UsageError::NotACount { .. }));
        assert_eq!(
            std::fs::read_to_string(home.usage_json()).expect("read"),
            before
        );
    }

    #[test]
    fn latest_activity_compares_instants_and_keeps_the_text() {
        let mut r = Record::new();
        r.insert(
            "last_used_at".into(),
            Json::String("2026-01-01T10:00:00".into()),
        );
        r.insert(
            "last_viewed_at".into(),
            Json::String("2026-01-01T11:00:00+02:00".into()),
        );
        r.insert("last_patched_at".into(), Json::String("garbage".into()));
        assert_eq!(
            latest_activity_at(&r).as_deref(),
            Some("2026-01-01T10:00:00")
        );
        r.insert("use_count".into(), Json::from(2));
        r.insert("view_count".into(), Json::String("x".into()));
        r.insert("patch_count".into(), Json::from(1.9));
        assert_eq!(activity_count(&r), 3);
    }

    #[test]
    fn forget_and_state() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        let now = ts("2026-01-01T00:00:00Z");
        set_state(&home, "a", STATE_ARCHIVED, now).expect("state");
        let a = load(&home).get("a").cloned().expect("a");
        assert_eq!(
            a["archived_at"],
            Json::String("2026-01-01T00:00:00+00:00".into())
        );
        set_state(&home, "a", STATE_ACTIVE, now).expect("state");
        assert_eq!(load(&home).get("a").expect("a")["archived_at"], Json::Null);
        forget(&home, "a").expect("forget");
        assert_eq!(load(&home).to_python_json(), "{}");
    }

    /// The sidecar's text, one line a piece (Python's `indent=2` layout).
    fn lines(lines: &[&str]) -> String {
        lines.join("\n")
    }

    fn seeded(text: &str) -> (tempfile::TempDir, Home) {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        std::fs::create_dir_all(home.skills_dir()).expect("mkdir");
        std::fs::write(home.usage_json(), text).expect("seed");
        (dir, home)
    }

    fn sidecar(home: &Home) -> String {
        std::fs::read_to_string(home.usage_json()).expect("read sidecar")
    }

    fn record(value: Json) -> Record {
        match value {
            Json::Object(map) => map,
            other => panic!("not an object: {other}"),
        }
    }

    const NOW: &str = "2026-03-04T05:06:07.000008+00:00";

    /// `int(value or 0)`: what Python reads as false is 0; `int()` truncates floats, takes
    /// booleans as 0/1 and strings with surrounding whitespace, a sign and `_` between
    /// digits; it raises on other strings, on non-empty lists and objects.
    #[test]
    fn counters_read_as_python_int_reads_them() {
        let cases = [
            (Json::Null, Some(0)),
            (json!(false), Some(0)),
            (json!(true), Some(1)),
            (json!(0), Some(0)),
            (json!(7), Some(7)),
            (json!(-3), Some(-3)),
            (json!(0.0), Some(0)),
            (json!(1.9), Some(1)),
            (json!(-2.7), Some(-2)),
            (json!(""), Some(0)),
            (json!("2"), Some(2)),
            (json!(" 12\n"), Some(12)),
            (json!("+5"), Some(5)),
            (json!("1_000"), Some(1000)),
            (json!([]), Some(0)),
            (json!({}), Some(0)),
            (json!("_1"), None),
            (json!("1_"), None),
            (json!("1__0"), None),
            (json!("1.5"), None),
            (json!("many"), None),
            (json!([1]), None),
            (json!({"n": 1}), None),
            // Python takes these, but a counter past 64 bits is refused, not clamped.
            (json!(1e19), None),
            (json!(18_446_744_073_709_551_615u64), None),
            (json!("99999999999999999999"), None),
        ];
        for (value, want) in cases {
            let r = record(json!({ "use_count": value.clone() }));
            match (count_of("s", &r, "use_count"), want) {
                (Ok(got), Some(want)) => assert_eq!(got, want, "{value}"),
                (
                    Err(UsageError::NotACount {
                        name,
                        key,
                        value: text,
                    }),
                    None,
                ) => {
                    assert_eq!(
                        (name.as_str(), key.as_str(), text),
                        ("s", "use_count", value.to_string())
                    );
                }
                (got, want) => panic!("{value}: got {got:?}, want {want:?}"),
            }
        }
        assert_eq!(count_of("s", &Record::new(), "use_count").ok(), Some(0));
        let err =
            count_of("s", &record(json!({"use_count": "many"})), "use_count").expect_err("many");
        assert_eq!(
            err.to_string(),
            "s: use_count is \"many\", not a number; the record was left as it is"
        );
    }

    #[test]
    fn display_helpers_read_counters_and_state() {
        let r = record(json!({"use_count": "5", "view_count": "x", "state": "stale"}));
        assert_eq!(counter(Some(&r), "use_count"), 5);
        assert_eq!(counter(Some(&r), "view_count"), 0);
        assert_eq!(counter(Some(&r), "patch_count"), 0);
        assert_eq!(counter(None, "use_count"), 0);
        assert_eq!(state(Some(&r)), "stale");
        assert_eq!(state(Some(&record(json!({"state": 3})))), "active");
        assert_eq!(state(Some(&Record::new())), "active");
        assert_eq!(state(None), "active");
        assert_eq!(
            activity_count(&record(json!({"use_count": 4, "patch_count": true}))),
            5
        );
    }

    #[test]
    fn get_and_record_or_default_keep_what_is_stored() {
        let map = UsageMap {
            records: record(json!({
                "a": {"use_count": 4, "state": "stale", "extra": 1},
                "n": 3,
            })),
        };
        assert_eq!(
            map.get("a"),
            Some(&record(
                json!({"use_count": 4, "state": "stale", "extra": 1})
            ))
        );
        assert_eq!(map.get("n"), None);
        assert_eq!(map.get("missing"), None);
        let now = ts(NOW);
        assert_eq!(
            map.record_or_default("a", now),
            record(json!({
                "use_count": 4,
                "state": "stale",
                "extra": 1,
                "created_by": null,
                "view_count": 0,
                "last_used_at": null,
                "last_viewed_at": null,
                "patch_count": 0,
                "last_patched_at": null,
                "created_at": NOW,
                "pinned": false,
                "archived_at": null,
            }))
        );
        assert_eq!(
            map.record_or_default("missing", now),
            record(json!({
                "created_by": null,
                "use_count": 0,
                "view_count": 0,
                "last_used_at": null,
                "last_viewed_at": null,
                "patch_count": 0,
                "last_patched_at": null,
                "created_at": NOW,
                "state": "active",
                "pinned": false,
                "archived_at": null,
            }))
        );
    }

    /// A bump raises the counters it names from what is stored (`"2"` counts as 2), stamps
    /// their times, and leaves the rest of the record — unknown keys included — as it is.
    #[test]
    fn bumps_count_from_the_stored_record_and_return_it() {
        let (_dir, home) = seeded(
            r#"{"a": {"created_at": "2025-12-31T23:00:00+00:00", "extra": [1], "last_used_at": "2026-01-02T00:00:00+00:00", "patch_count": null, "use_count": 4, "view_count": "2"}}"#,
        );
        let got = bump(&home, "a", &[Event::Patch, Event::Use], ts(NOW)).expect("bump");
        let want = lines(&[
            "{",
            "  \"a\": {",
            "    \"created_at\": \"2025-12-31T23:00:00+00:00\",",
            "    \"extra\": [",
            "      1",
            "    ],",
            "    \"last_patched_at\": \"2026-03-04T05:06:07.000008+00:00\",",
            "    \"last_used_at\": \"2026-03-04T05:06:07.000008+00:00\",",
            "    \"patch_count\": 1,",
            "    \"use_count\": 5,",
            "    \"view_count\": \"2\"",
            "  }",
            "}",
        ]);
        assert_eq!(sidecar(&home), want);
        assert_eq!(
            got,
            Some(record(json!({
                "created_at": "2025-12-31T23:00:00+00:00",
                "extra": [1],
                "last_used_at": NOW,
                "patch_count": 1,
                "use_count": 5,
                "view_count": "2",
                "last_patched_at": NOW,
            })))
        );
        let later = "2026-03-05T00:00:00+00:00";
        let got = bump(&home, "a", &[Event::View], ts(later)).expect("bump");
        assert_eq!(
            got.as_ref().and_then(|r| r.get("view_count")),
            Some(&json!(3))
        );
        assert_eq!(
            got.as_ref().and_then(|r| r.get("last_viewed_at")),
            Some(&json!(later))
        );
        assert_eq!(
            got.as_ref().and_then(|r| r.get("use_count")),
            Some(&json!(5))
        );
        // An empty name is ignored, as Python ignores it: nothing is written.
        let before = sidecar(&home);
        assert!(
            bump(&home, "", &[Event::Use], ts(later))
                .expect("bump")
                .is_none()
        );
        assert_eq!(sidecar(&home), before);
    }

    #[test]
    fn marking_and_pinning_write_the_whole_record() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        let got = mark_agent_created(&home, "a", ts(NOW)).expect("mark");
        let fresh = |created_by: &str, pinned: &str| {
            lines(&[
                "{",
                "  \"a\": {",
                "    \"archived_at\": null,",
                "    \"created_at\": \"2026-03-04T05:06:07.000008+00:00\",",
                &format!("    \"created_by\": {created_by},"),
                "    \"last_patched_at\": null,",
                "    \"last_used_at\": null,",
                "    \"last_viewed_at\": null,",
                "    \"patch_count\": 0,",
                &format!("    \"pinned\": {pinned},"),
                "    \"state\": \"active\",",
                "    \"use_count\": 0,",
                "    \"view_count\": 0",
                "  }",
                "}",
            ])
        };
        assert_eq!(sidecar(&home), fresh("\"agent\"", "false"));
        assert_eq!(
            got.as_ref().and_then(|r| r.get("created_by")),
            Some(&json!("agent"))
        );
        assert_eq!(got.map(|r| r.len()), Some(11));
        assert!(is_curator_managed(load(&home).get("a")));
        assert!(!is_pinned(load(&home).get("a")));

        let later = ts("2026-03-05T00:00:00Z");
        let got = set_pinned(&home, "a", true, later).expect("pin");
        assert_eq!(sidecar(&home), fresh("\"agent\"", "true"));
        assert_eq!(
            got.as_ref().and_then(|r| r.get("pinned")),
            Some(&json!(true))
        );
        assert!(is_pinned(load(&home).get("a")));
        let got = set_pinned(&home, "a", false, later).expect("unpin");
        assert_eq!(sidecar(&home), fresh("\"agent\"", "false"));
        assert_eq!(
            got.as_ref().and_then(|r| r.get("pinned")),
            Some(&json!(false))
        );
    }

    /// `archived` stamps `archived_at`, `stale` keeps it, `active` clears it; a state Python
    /// does not know is ignored without a write.
    #[test]
    fn set_state_stamps_keeps_and_clears_archived_at() {
        let (_dir, home) = seeded(r#"{"a": {"state": "active"}}"#);
        let got = set_state(&home, "a", STATE_ARCHIVED, ts(NOW)).expect("archive");
        let file = |archived_at: &str, state: &str| {
            lines(&[
                "{",
                "  \"a\": {",
                &format!("    \"archived_at\": {archived_at},"),
                &format!("    \"state\": \"{state}\""),
                "  }",
                "}",
            ])
        };
        let stamped = "\"2026-03-04T05:06:07.000008+00:00\"";
        assert_eq!(sidecar(&home), file(stamped, "archived"));
        assert_eq!(
            got,
            Some(record(json!({"state": "archived", "archived_at": NOW})))
        );
        set_state(&home, "a", STATE_STALE, ts("2026-03-06T00:00:00Z")).expect("stale");
        assert_eq!(sidecar(&home), file(stamped, "stale"));
        let got = set_state(&home, "a", STATE_ACTIVE, ts("2026-03-07T00:00:00Z")).expect("on");
        assert_eq!(sidecar(&home), file("null", "active"));
        assert_eq!(
            got,
            Some(record(json!({"state": "active", "archived_at": null})))
        );
        let before = sidecar(&home);
        assert!(
            set_state(&home, "a", "deleted", ts(NOW))
                .expect("bad")
                .is_none()
        );
        assert!(
            set_state(&home, "b", "deleted", ts(NOW))
                .expect("bad")
                .is_none()
        );
        assert_eq!(sidecar(&home), before);
    }

    /// Forgetting a name with no record writes nothing: the file keeps its bytes, even ones
    /// Python would lay out differently.
    #[test]
    fn forget_writes_only_when_a_record_goes() {
        let (_dir, home) = seeded(r#"{"a": {"use_count": 1}, "b": {}}"#);
        forget(&home, "c").expect("forget c");
        forget(&home, "").expect("forget empty");
        assert_eq!(sidecar(&home), r#"{"a": {"use_count": 1}, "b": {}}"#);
        forget(&home, "a").expect("forget a");
        assert_eq!(sidecar(&home), "{\n  \"b\": {}\n}");
    }

    #[test]
    fn curator_managed_and_pinned_read_the_record() {
        let managed = [
            (json!({"created_by": "agent"}), true),
            (json!({"agent_created": true}), true),
            (json!({"created_by": "agent", "agent_created": false}), true),
            (json!({"created_by": "user", "agent_created": true}), true),
            (json!({"created_by": "user"}), false),
            (json!({"created_by": null, "agent_created": false}), false),
            (json!({"agent_created": "yes"}), false),
            (json!({}), false),
        ];
        for (r, want) in managed {
            assert_eq!(is_curator_managed(Some(&record(r.clone()))), want, "{r}");
        }
        assert!(!is_curator_managed(None));
        let pinned = [
            (json!({"pinned": true}), true),
            (json!({"pinned": "yes"}), true),
            (json!({"pinned": 1}), true),
            (json!({"pinned": false}), false),
            (json!({"pinned": 0}), false),
            (json!({"pinned": ""}), false),
            (json!({}), false),
        ];
        for (r, want) in pinned {
            assert_eq!(is_pinned(Some(&record(r.clone()))), want, "{r}");
        }
        assert!(!is_pinned(None));
    }

    /// The newest instant wins, whichever key holds it; on a tie the first key (used, viewed,
    /// patched) keeps it; false values and text that is not a time are skipped.
    #[test]
    fn latest_activity_takes_the_newest_and_the_first_of_a_tie() {
        let r = record(json!({
            "last_used_at": "2026-01-01T10:00:00",
            "last_viewed_at": "2026-01-01T12:00:00+00:00",
            "last_patched_at": "2026-01-01T11:00:00.5+00:00",
            "created_at": "2027-01-01T00:00:00+00:00",
        }));
        assert_eq!(
            latest_activity_at(&r).as_deref(),
            Some("2026-01-01T12:00:00+00:00")
        );
        let tie = record(json!({
            "last_used_at": "2026-01-01T10:00:00",
            "last_viewed_at": "2026-01-01T12:00:00+02:00",
            "last_patched_at": "",
        }));
        assert_eq!(
            latest_activity_at(&tie).as_deref(),
            Some("2026-01-01T10:00:00")
        );
        let odd = record(json!({
            "last_used_at": 5,
            "last_viewed_at": false,
            "last_patched_at": "2026-01-01T09:00:00Z",
        }));
        assert_eq!(
            latest_activity_at(&odd).as_deref(),
            Some("2026-01-01T09:00:00Z")
        );
        assert_eq!(latest_activity_at(&Record::new()), None);
        assert_eq!(
            parse_iso("2026-01-01T12:00:00+02:00"),
            Some(Timestamp::from_second(1_767_261_600).expect("instant"))
        );
        assert_eq!(parse_iso("garbage"), None);
    }

    #[test]
    fn load_checked_tells_a_missing_sidecar_from_an_unusable_one() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        assert_eq!(load_checked(&home).expect("missing"), UsageMap::default());
        std::fs::create_dir_all(home.usage_json()).expect("a directory in its place");
        assert!(matches!(load_checked(&home), Err(SidecarError::File(_))));
        assert_eq!(load(&home), UsageMap::default());
        std::fs::remove_dir(home.usage_json()).expect("rmdir");
        std::fs::write(home.usage_json(), "[1]").expect("seed");
        match load_checked(&home) {
            Err(SidecarError::Corrupt { path, reason }) => {
                assert_eq!(path, home.usage_json());
                assert_eq!(reason, "the top level is not an object of skill records");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(load(&home), UsageMap::default());
        std::fs::write(
            home.usage_json(),
            r#"{"b": {"use_count": 1}, "n": [], "a": {}}"#,
        )
        .expect("seed");
        let want = UsageMap {
            records: record(json!({"b": {"use_count": 1}, "a": {}})),
        };
        assert_eq!(load_checked(&home).expect("read"), want);
        assert_eq!(load(&home), want);
    }

    #[test]
    fn the_corrupt_copy_sits_beside_the_sidecar() {
        assert_eq!(
            corrupt_copy(Path::new("/h/skills/.usage.json")),
            Path::new("/h/skills/.usage.json.corrupt")
        );
    }

    /// A locked pass holds the lock until it is dropped and writes the whole map back sorted,
    /// as Python writes it.
    #[test]
    fn a_locked_pass_holds_the_lock_and_saves_as_python_writes() {
        let (_dir, home) = seeded(r#"{"b": {"use_count": 1}, "a": {"pinned": true}}"#);
        let mut pass = lock_checked(&home).expect("lock");
        assert!(
            FileLock::acquire_within(&home.usage_lock(), std::time::Duration::ZERO)
                .expect("try")
                .is_none()
        );
        pass.map.records.insert("c".into(), json!({}));
        pass.save().expect("save");
        assert_eq!(
            sidecar(&home),
            lines(&[
                "{",
                "  \"a\": {",
                "    \"pinned\": true",
                "  },",
                "  \"b\": {",
                "    \"use_count\": 1",
                "  },",
                "  \"c\": {}",
                "}",
            ])
        );
        drop(pass);
        assert!(
            FileLock::acquire_within(&home.usage_lock(), std::time::Duration::ZERO)
                .expect("try")
                .is_some()
        );
    }
}
