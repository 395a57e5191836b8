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

    #[test]
    fn install_paths() {
        assert!(normalize_install_path("cat/x", "x").is_ok());
        assert!(normalize_install_path("x", "x").is_ok());
        for bad in ["../x", "/x", "cat/y", "", "cat/../x"] {
            assert!(normalize_install_path(bad, "x").is_err(), "{bad}");
        }
    }
}
