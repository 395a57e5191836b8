//! `.hub/lock.json` (reference §7.6) and `.hub/audit.log` (§7.7), byte for byte as Python
//! Hermes writes them: lock.json as `json.dumps(indent=2, ensure_ascii=False)` plus a
//! newline, entries with the eleven keys in Python's order; audit lines
//! `<UTC time> <ACTION> <skill> <source>:<trust> <verdict>[ <extra>]`. Unlike Python, the lock
//! is replaced atomically under `lock.json.lock`, so a crash or a concurrent install never
//! leaves half a file.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use super::HubError;
use crate::home::Home;
use crate::io::FileError;
use crate::io::atomic::{FileMode, write_atomic};
use crate::io::lock::{FileLock, lock_path_for};
use crate::io::pyjson::{self, Dumps};

const LOCK_DUMPS: Dumps = Dumps {
    indent: Some(2),
    ensure_ascii: false,
    sort_keys: false,
};

/// One installed skill's entry, in Python's key order.
#[derive(Debug, Clone)]
pub struct Entry {
    pub source: String,
    pub identifier: String,
    pub trust_level: String,
    pub scan_verdict: String,
    pub content_hash: String,
    pub install_path: String,
    pub files: Vec<String>,
    pub metadata: Map<String, Value>,
    pub scan_provenance: Value,
}

/// `.hub/` with its files created as Python's `ensure_hub_dirs` creates them.
pub fn ensure_hub_dirs(home: &Home) -> Result<(), HubError> {
    for dir in [
        home.hub_dir(),
        home.hub_quarantine_dir(),
        home.hub_index_cache_dir(),
    ] {
        std::fs::create_dir_all(&dir).map_err(|e| FileError::new("create", &dir, e))?;
    }
    let defaults: [(PathBuf, &str); 3] = [
        (
            home.hub_lock_json(),
            "{\n  \"version\": 1,\n  \"installed\": {}\n}\n",
        ),
        (home.hub_audit_log(), ""),
        (home.hub_taps_json(), "{\n  \"taps\": []\n}\n"),
    ];
    for (path, text) in defaults {
        if !path.exists() {
            write_atomic(&path, text.as_bytes(), FileMode::Umask)?;
        }
    }
    Ok(())
}

/// The lock's contents; a missing or corrupt file is empty, as in Python.
pub fn load(home: &Home) -> Value {
    let empty = json!({"version": 1, "installed": {}});
    let Ok(bytes) = std::fs::read(home.hub_lock_json()) else {
        return empty;
    };
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(v) if v.get("installed").is_some_and(Value::is_object) => v,
        _ => empty,
    }
}

/// Lock entries: name and entry object, in file order.
pub type Entries = Vec<(String, Map<String, Value>)>;

/// Installed entries, name → entry object, in file order.
pub fn installed(home: &Home) -> Entries {
    load(home)
        .get("installed")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| v.as_object().map(|o| (k.clone(), o.clone())))
                .collect()
        })
        .unwrap_or_default()
}

pub fn get(home: &Home, name: &str) -> Option<Map<String, Value>> {
    installed(home)
        .into_iter()
        .find(|(n, _)| n == name)
        .map(|(_, e)| e)
}

/// Reads, changes and writes the lock under its lock file.
fn update(home: &Home, change: impl FnOnce(&mut Map<String, Value>)) -> Result<(), HubError> {
    let path = home.hub_lock_json();
    let _guard = FileLock::acquire(&lock_path_for(&path))?;
    let mut data = load(home);
    if let Some(installed) = data.get_mut("installed").and_then(Value::as_object_mut) {
        change(installed);
    }
    let text = pyjson::dumps(&data, LOCK_DUMPS) + "\n";
    write_atomic(&path, text.as_bytes(), FileMode::Umask)?;
    Ok(())
}

/// Records (or replaces) an install; both timestamps are `now` (Python resets them too).
pub fn record_install(home: &Home, name: &str, entry: Entry, now: &str) -> Result<(), HubError> {
    let value = json!({
        "source": entry.source,
        "identifier": entry.identifier,
        "trust_level": entry.trust_level,
        "scan_verdict": entry.scan_verdict,
        "content_hash": entry.content_hash,
        "install_path": entry.install_path,
        "files": entry.files,
        "metadata": entry.metadata,
        "scan_provenance": entry.scan_provenance,
        "installed_at": now,
        "updated_at": now,
    });
    update(home, |installed| {
        installed.insert(name.to_string(), value);
    })
}

pub fn record_uninstall(home: &Home, name: &str) -> Result<(), HubError> {
    update(home, |installed| {
        installed.shift_remove(name);
    })
}

/// One audit.log event.
pub struct Event<'a> {
    pub action: &'a str,
    pub name: &'a str,
    pub source: &'a str,
    pub trust: &'a str,
    pub verdict: &'a str,
    pub extra: &'a str,
}

/// Appends one audit line.
pub fn audit(home: &Home, time: jiff::Timestamp, event: &Event<'_>) -> Result<(), HubError> {
    let Event {
        action,
        name,
        source,
        trust,
        verdict,
        extra,
    } = *event;
    let stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ").to_string();
    let mut line = format!("{stamp} {action} {name} {source}:{trust} {verdict}");
    if !extra.is_empty() {
        line.push(' ');
        line.push_str(extra);
    }
    line.push('\n');
    append(&home.hub_audit_log(), line.as_bytes())
}

fn append(path: &Path, bytes: &[u8]) -> Result<(), HubError> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| FileError::new("create", dir, e))?;
    }
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| FileError::new("open", path, e))?;
    // One write of the whole line: O_APPEND keeps concurrent lines whole.
    file.write_all(bytes)
        .map_err(|e| FileError::new("append to", path, e))?;
    Ok(())
}

/// An install path from the lock: relative, no `..`, ending in `/<name>` (or `<name>`).
pub fn normalize_install_path(raw: &str, name: &str) -> Result<String, HubError> {
    let unsafe_path = || HubError::refused(format!("Unsafe install path: {raw}"));
    let normalized = super::bundle::normalize_path(raw).map_err(|_| unsafe_path())?;
    if normalized.rsplit('/').next() != Some(name) {
        return Err(unsafe_path());
    }
    Ok(normalized)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::hub::source::tests::temp_home as home;

    fn read(path: &Path) -> String {
        std::fs::read_to_string(path).expect("readable")
    }

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("parent made");
        std::fs::write(path, text).expect("written");
    }

    fn entry(files: &[&str], metadata: Value) -> Entry {
        Entry {
            source: "github".into(),
            identifier: "someone/repo/skills/hub-ok".into(),
            trust_level: "community".into(),
            scan_verdict: "safe".into(),
            content_hash: "sha256:93db397f255098cb".into(),
            install_path: "cat/sub/hub-ok".into(),
            files: files.iter().map(|f| f.to_string()).collect(),
            metadata: metadata.as_object().cloned().unwrap_or_default(),
            scan_provenance: json!({"fresh": true}),
        }
    }

    #[test]
    fn install_paths() {
        assert!(normalize_install_path("cat/x", "x").is_ok());
        assert!(normalize_install_path("x", "x").is_ok());
        for bad in ["../x", "/x", "cat/y", "", "cat/../x"] {
            assert!(normalize_install_path(bad, "x").is_err(), "{bad}");
        }
    }

    #[test]
    fn install_paths_are_normalized() {
        for (raw, normalized) in [
            ("cat/x", "cat/x"),
            ("x", "x"),
            ("./cat//x/", "cat/x"),
            ("cat\\sub\\x", "cat/sub/x"),
        ] {
            assert_eq!(
                normalize_install_path(raw, "x").ok().as_deref(),
                Some(normalized),
                "{raw}"
            );
        }
    }

    #[test]
    fn unsafe_install_paths_are_refused_by_name() {
        for bad in ["../x", "/x", "cat/y", "", "cat/../x", "cat/xx", "x/cat"] {
            let err = normalize_install_path(bad, "x").expect_err(bad);
            assert!(matches!(err, HubError::Refused(_)), "{bad}: {err:?}");
            assert_eq!(err.to_string(), format!("Unsafe install path: {bad}"));
        }
    }

    #[test]
    fn ensure_hub_dirs_creates_python_defaults() {
        let (_dir, home) = home();
        ensure_hub_dirs(&home).expect("dirs made");
        assert!(home.hub_quarantine_dir().is_dir());
        assert!(home.hub_index_cache_dir().is_dir());
        assert_eq!(
            read(&home.hub_lock_json()),
            "{\n  \"version\": 1,\n  \"installed\": {}\n}\n"
        );
        assert_eq!(read(&home.hub_audit_log()), "");
        assert_eq!(read(&home.hub_taps_json()), "{\n  \"taps\": []\n}\n");
    }

    #[test]
    fn ensure_hub_dirs_leaves_existing_files_alone() {
        let (_dir, home) = home();
        write(&home.hub_lock_json(), "{\"installed\": {\"a\": {}}}");
        write(&home.hub_audit_log(), "old line\n");
        write(&home.hub_taps_json(), "{\"taps\": [{\"repo\": \"a/b\"}]}");
        ensure_hub_dirs(&home).expect("dirs made");
        assert_eq!(read(&home.hub_lock_json()), "{\"installed\": {\"a\": {}}}");
        assert_eq!(read(&home.hub_audit_log()), "old line\n");
        assert_eq!(
            read(&home.hub_taps_json()),
            "{\"taps\": [{\"repo\": \"a/b\"}]}"
        );
    }

    #[test]
    fn a_missing_or_corrupt_lock_is_empty() {
        let (_dir, home) = home();
        let empty = json!({"version": 1, "installed": {}});
        assert_eq!(load(&home), empty);
        for text in [
            "",
            "not json",
            "[]",
            "{\"version\": 1}",
            "{\"installed\": []}",
            "{\"installed\": null}",
        ] {
            write(&home.hub_lock_json(), text);
            assert_eq!(load(&home), empty, "{text}");
            assert_eq!(installed(&home), Vec::new(), "{text}");
        }
    }

    #[test]
    fn a_valid_lock_is_read_as_it_is() {
        let (_dir, home) = home();
        write(
            &home.hub_lock_json(),
            "{\"version\": 2, \"installed\": {\"b\": {\"source\": \"tap\"}, \"a\": 3, \"c\": {}}, \"x\": true}",
        );
        assert_eq!(
            load(&home),
            json!({"version": 2, "installed": {"b": {"source": "tap"}, "a": 3, "c": {}}, "x": true})
        );
        // In file order; an entry that is not an object is skipped.
        let entries = installed(&home);
        let names: Vec<&str> = entries.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["b", "c"]);
        assert_eq!(
            Value::Object(entries[0].1.clone()),
            json!({"source": "tap"})
        );
        assert_eq!(
            get(&home, "b").map(Value::Object),
            Some(json!({"source": "tap"}))
        );
        assert_eq!(get(&home, "c").map(Value::Object), Some(json!({})));
        assert_eq!(get(&home, "a"), None);
        assert_eq!(get(&home, "zzz"), None);
    }

    #[test]
    fn record_install_writes_pythons_lock_json() {
        let (_dir, home) = home();
        let now = "2026-11-29T19:09:05.304857+00:00";
        record_install(
            &home,
            "hub-ok",
            entry(
                &["SKILL.md", "references/é.md"],
                json!({"source_url": "https://github.com/x"}),
            ),
            now,
        )
        .expect("recorded");
        // json.dumps(data, indent=2, ensure_ascii=False) + "\n", as Python writes it.
        assert_eq!(
            read(&home.hub_lock_json()),
            r#"{
  "version": 1,
  "installed": {
    "hub-ok": {
      "source": "github",
      "identifier": "someone/repo/skills/hub-ok",
      "trust_level": "community",
      "scan_verdict": "safe",
      "content_hash": "sha256:93db397f255098cb",
      "install_path": "cat/sub/hub-ok",
      "files": [
        "SKILL.md",
        "references/é.md"
      ],
      "metadata": {
        "source_url": "https://github.com/x"
      },
      "scan_provenance": {
        "fresh": true
      },
      "installed_at": "2026-11-29T19:09:05.304857+00:00",
      "updated_at": "2026-11-29T19:09:05.304857+00:00"
    }
  }
}
"#
        );
        // No lock file is left behind by the writer.
        let left: Vec<String> = std::fs::read_dir(home.hub_dir())
            .expect("hub dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .filter(|n| n != "lock.json" && n != "lock.json.lock")
            .collect();
        assert_eq!(left, Vec::<String>::new());
    }

    #[test]
    fn reinstalling_replaces_the_entry_in_place_and_uninstall_removes_it() {
        let (_dir, home) = home();
        for (name, now) in [("a", "t1"), ("b", "t2"), ("c", "t3"), ("a", "t4")] {
            record_install(&home, name, entry(&[], json!({})), now).expect("recorded");
        }
        let entries = installed(&home);
        let order: Vec<(&str, &str)> = entries
            .iter()
            .map(|(n, e)| (n.as_str(), e["installed_at"].as_str().unwrap_or_default()))
            .collect();
        assert_eq!(order, [("a", "t4"), ("b", "t2"), ("c", "t3")]);
        assert_eq!(entries[0].1["updated_at"], json!("t4"));
        assert_eq!(entries[0].1["files"], json!([]));
        assert_eq!(entries[0].1["metadata"], json!({}));

        record_uninstall(&home, "a").expect("removed");
        record_uninstall(&home, "not-there").expect("nothing to remove");
        let names: Vec<String> = installed(&home).into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, ["b", "c"]);
        assert!(
            read(&home.hub_lock_json())
                .starts_with("{\n  \"version\": 1,\n  \"installed\": {\n    \"b\": {\n")
        );
        assert!(read(&home.hub_lock_json()).ends_with("\n  }\n}\n"));

        record_uninstall(&home, "b").expect("removed");
        record_uninstall(&home, "c").expect("removed");
        assert_eq!(
            read(&home.hub_lock_json()),
            "{\n  \"version\": 1,\n  \"installed\": {}\n}\n"
        );
    }

    #[test]
    fn updating_a_corrupt_lock_starts_it_afresh() {
        let (_dir, home) = home();
        write(&home.hub_lock_json(), "{broken");
        record_uninstall(&home, "x").expect("written");
        assert_eq!(
            read(&home.hub_lock_json()),
            "{\n  \"version\": 1,\n  \"installed\": {}\n}\n"
        );
    }

    #[test]
    fn audit_lines_are_appended_in_pythons_format() {
        let (_dir, home) = home();
        let time = jiff::Timestamp::from_second(1_795_979_345).expect("a time");
        audit(
            &home,
            time,
            &Event {
                action: "INSTALL",
                name: "hub-ok",
                source: "github",
                trust: "community",
                verdict: "safe",
                extra: "sha256:93db397f255098cb",
            },
        )
        .expect("appended");
        audit(
            &home,
            jiff::Timestamp::UNIX_EPOCH,
            &Event {
                action: "UNINSTALL",
                name: "hub-ok",
                source: "github",
                trust: "community",
                verdict: "n/a",
                extra: "",
            },
        )
        .expect("appended");
        assert_eq!(
            read(&home.hub_audit_log()),
            "2026-11-29T19:09:05Z INSTALL hub-ok github:community safe sha256:93db397f255098cb\n\
             1970-01-01T00:00:00Z UNINSTALL hub-ok github:community n/a\n"
        );
    }

    #[test]
    fn append_fails_with_the_path_when_it_cannot_open() {
        let (dir, _home) = home();
        // A directory where the file should be.
        let err = append(dir.path(), b"x").expect_err("a directory");
        assert!(
            err.to_string()
                .starts_with(&format!("cannot open {}: ", dir.path().display())),
            "{err}"
        );
    }
}
