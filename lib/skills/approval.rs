//! `skills.write_approval`: when on, a `skill_manage` write is not made but staged as
//! `$HERMES_HOME/pending/skills/<id>.json` for the user to approve with Hermes's
//! `/skills pending` (the record format is Hermes's, so either program can approve it).

use std::sync::LazyLock;

use jiff::Timestamp;
use regex::Regex;
use serde_json::{Map, Value as Json, json};

use crate::clock;
use crate::home::Home;
use crate::io::FileError;
use crate::io::atomic::{FileMode, write_atomic};
use crate::io::pyjson::{Dumps, dumps};
use crate::pytext;

static DESCRIPTION_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?m)^description:[ \t\n\r\x0b\x0c]*(.+)$").expect("static regex")
});

/// The message Hermes answers a staged write with.
pub const STAGED_MESSAGE: &str = "Staged for approval (skills.write_approval is on). Not yet saved — review with /skills pending.";

/// `skill_gist`: the one line the user approves or rejects by.
pub fn gist(
    action: &str,
    name: &str,
    content: &str,
    file_path: &str,
    old_string: &str,
    new_string: &str,
) -> String {
    match action {
        "create" | "edit" if !content.is_empty() => {
            let len = pytext::char_len(content);
            let size = if len >= 1024 {
                format!("{} KB", len / 1024 + 1)
            } else {
                format!("{len} chars")
            };
            let verb = if action == "create" {
                "create"
            } else {
                "rewrite"
            };
            let desc = DESCRIPTION_LINE
                .captures(content)
                .and_then(|c| c.get(1))
                .map(|m| {
                    let d = pytext::strip(m.as_str()).trim_matches(['\'', '"']);
                    pytext::take_chars(d, 140).to_string()
                })
                .unwrap_or_default();
            if desc.is_empty() {
                format!("{verb} '{name}' ({size})")
            } else {
                format!("{verb} '{name}' — {desc} ({size})")
            }
        }
        "patch" => {
            let target = if file_path.is_empty() {
                "SKILL.md"
            } else {
                file_path
            };
            let lines = |s: &str| {
                if s.is_empty() {
                    0
                } else {
                    s.matches('\n').count() + 1
                }
            };
            format!(
                "patch '{name}' {target} (+{}/-{} lines)",
                lines(new_string),
                lines(old_string)
            )
        }
        "write_file" => format!("write {file_path} in '{name}'"),
        "remove_file" => format!("remove {file_path} from '{name}'"),
        "delete" => format!("delete skill '{name}'"),
        _ => format!("{action} '{name}'"),
    }
}

/// An 8-hex-digit id, as `uuid4().hex[:8]` gives.
pub fn pending_id() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    hasher.write_u32(std::process::id());
    format!("{:08x}", hasher.finish() as u32)
}

/// Writes a staged write's record to `pending/<kind>/<id>.json`, as Python's
/// `write_approval` does (2-space JSON, the umask's permissions).
pub fn write_pending(home: &Home, kind: &str, id: &str, record: &Json) -> Result<(), FileError> {
    let dir = home.pending_dir(kind);
    std::fs::create_dir_all(&dir).map_err(|e| FileError::new("create directory", &dir, e))?;
    let text = dumps(
        record,
        Dumps {
            indent: Some(2),
            ensure_ascii: false,
            sort_keys: false,
        },
    );
    write_atomic(
        &dir.join(format!("{id}.json")),
        text.as_bytes(),
        FileMode::Umask,
    )
}

/// Writes the pending record and returns the tool's answer.
pub fn stage(
    home: &Home,
    payload: Map<String, Json>,
    summary: &str,
    origin: &str,
    now: Timestamp,
) -> Result<Json, FileError> {
    let id = pending_id();
    let record = json!({
        "id": id,
        "subsystem": "skills",
        "action": payload.get("action").cloned().unwrap_or(Json::String(String::new())),
        "summary": pytext::strip(summary),
        "origin": origin,
        "created_at": clock::unix_seconds(now),
        "payload": payload,
    });
    write_pending(home, "skills", &id, &record)?;
    Ok(json!({
        "success": true,
        "staged": true,
        "pending_id": id,
        "gist": summary,
        "message": STAGED_MESSAGE,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gists_like_hermes() {
        let content = "---\nname: a\ndescription: 'Does things.'\n---\nbody";
        assert_eq!(
            gist("create", "a", content, "", "", ""),
            "create 'a' — Does things. (48 chars)"
        );
        assert_eq!(
            gist("patch", "a", "", "", "x\ny", "z"),
            "patch 'a' SKILL.md (+1/-2 lines)"
        );
        assert_eq!(gist("delete", "a", "", "", "", ""), "delete skill 'a'");
        let big = format!("---\nname: a\n---\n{}", "x".repeat(2048));
        assert_eq!(gist("edit", "a", &big, "", "", ""), "rewrite 'a' (3 KB)");
    }

    #[test]
    fn stages_a_record() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        let mut payload = Map::new();
        payload.insert("action".into(), json!("delete"));
        payload.insert("name".into(), json!("a"));
        let now = clock::parse_timestamp("2026-01-01T00:00:00.5Z").expect("ts");
        let answer = stage(&home, payload, "delete skill 'a'", "foreground", now).expect("stage");
        let id = answer["pending_id"].as_str().expect("id").to_string();
        assert_eq!(id.len(), 8);
        let text = std::fs::read_to_string(home.pending_dir("skills").join(format!("{id}.json")))
            .expect("record");
        assert_eq!(
            text,
            format!(
                "{{\n  \"id\": \"{id}\",\n  \"subsystem\": \"skills\",\n  \"action\": \"delete\",\n  \"summary\": \"delete skill 'a'\",\n  \"origin\": \"foreground\",\n  \"created_at\": 1767225600.5,\n  \"payload\": {{\n    \"action\": \"delete\",\n    \"name\": \"a\"\n  }}\n}}"
            )
        );
    }
}
