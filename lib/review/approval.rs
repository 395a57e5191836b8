//! `memory.write_approval` for the review (reference `loop` §3.9): with the gate on, a memory
//! write from the background review is never made, only staged under
//! `$HERMES_HOME/pending/memory/<id>.json` for a person to approve (`/memory pending` in
//! Python Hermes). The store itself has no gate: a person at `hermes-memory` or in the chat
//! is their own approver.

use serde_json::{Map, Value, json};

use crate::home::{Config, Home};
use crate::io::FileError;

pub const STAGED_MESSAGE: &str = "Staged for approval (memory.write_approval is on). Not yet saved — review with /memory pending.";

/// Whether `memory.write_approval` is on (a YAML boolean, or one of Hermes's words).
pub fn gate_on(config: &Config) -> bool {
    match config.raw().to_json().pointer("/memory/write_approval") {
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) => ["on", "true", "yes", "1", "approve", "enabled"]
            .contains(&s.trim().to_lowercase().as_str()),
        Some(Value::Number(n)) => n.as_f64().is_some_and(|f| f != 0.0),
        _ => false,
    }
}

fn label(target: &str) -> &str {
    if target == "user" {
        "user profile"
    } else {
        "memory"
    }
}

fn clip(text: &str) -> String {
    text.chars().take(120).collect()
}

/// The pending payload and its one-line summary, from the memory tool's arguments.
pub fn payload(args: &Value) -> (Map<String, Value>, String) {
    let text = |k: &str| {
        args.get(k)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let target = args
        .get("target")
        .and_then(Value::as_str)
        .unwrap_or("memory")
        .to_string();
    let mut p = Map::new();
    if let Some(ops) = args.get("operations").and_then(Value::as_array) {
        p.insert("action".into(), json!("batch"));
        p.insert("target".into(), json!(target));
        p.insert("operations".into(), Value::Array(ops.clone()));
        let first = ops
            .first()
            .and_then(|o| o.get("content").or_else(|| o.get("old_text")))
            .and_then(Value::as_str)
            .unwrap_or("");
        let summary = format!(
            "apply {} op(s) to {}: {}",
            ops.len(),
            label(&target),
            clip(first)
        );
        return (p, summary);
    }
    let action = text("action");
    for (k, v) in [
        ("action", action.clone()),
        ("target", target.clone()),
        ("content", text("content")),
        ("old_text", text("old_text")),
    ] {
        p.insert(k.into(), json!(v));
    }
    let (verb, detail) = match action.as_str() {
        "add" => ("add to", text("content")),
        "replace" => ("replace in", text("content")),
        _ => ("remove from", text("old_text")),
    };
    (p, format!("{verb} {}: {}", label(&target), clip(&detail)))
}

/// Stages a background memory write; the tool's answer.
pub fn stage(home: &Home, args: &Value, now: f64) -> Result<Value, FileError> {
    let (payload, summary) = payload(args);
    let id = crate::skills::approval::pending_id();
    let record = json!({"id": id, "subsystem": "memory",
        "action": payload.get("action").cloned().unwrap_or(Value::Null),
        "summary": summary, "origin": "background_review", "created_at": now,
        "payload": payload});
    crate::skills::approval::write_pending(home, "memory", &id, &record)?;
    Ok(json!({"success": true, "staged": true, "pending_id": id, "message": STAGED_MESSAGE}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gate_reads_every_way_config_yaml_can_say_on() {
        let gate = |value: &str| {
            gate_on(&Config::from_yaml(&format!(
                "memory:\n  write_approval: {value}\n"
            )))
        };
        for on in [
            "true",
            "' On '",
            "yes-please-not",
            "approve",
            "ENABLED",
            "1",
            "0.5",
            "'1'",
        ] {
            let expected = on != "yes-please-not";
            assert_eq!(gate(on), expected, "{on}");
        }
        for off in ["false", "off", "0", "0.0", "no", "[]"] {
            assert!(!gate(off), "{off}");
        }
        assert!(!gate_on(&Config::defaults()));
    }

    /// With the gate on, a review's memory write waits for a person; the review is told so.
    #[test]
    fn a_staged_write_is_a_pending_file_and_not_a_memory() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        let args =
            json!({"action": "replace", "target": "memory", "content": "New", "old_text": "Old"});
        let Ok(answer) = stage(&home, &args, 1_780_000_000.5) else {
            panic!("staged")
        };
        assert_eq!(answer["success"], true);
        assert_eq!(answer["staged"], true);
        assert_eq!(answer["message"], STAGED_MESSAGE);
        let id = answer["pending_id"].as_str().unwrap_or("").to_string();
        let file = dir.path().join("pending/memory").join(format!("{id}.json"));
        let Ok(text) = std::fs::read_to_string(&file) else {
            panic!("no pending file at {}", file.display())
        };
        let record: Value = serde_json::from_str(&text).unwrap_or_default();
        assert_eq!(
            record,
            json!({"id": id, "subsystem": "memory", "action": "replace",
                "summary": "replace in memory: New", "origin": "background_review",
                "created_at": 1_780_000_000.5,
                "payload": {"action": "replace", "target": "memory", "content": "New", "old_text": "Old"}})
        );
        assert!(!dir.path().join("memories").exists());
        let (_, removal) = payload(&json!({"action": "remove", "old_text": &"z".repeat(130)}));
        assert_eq!(removal, format!("remove from memory: {}", "z".repeat(120)));
    }

    #[test]
    fn payloads_and_summaries_as_hermes_stages_them() {
        let (p, s) = payload(&json!({"action": "add", "target": "user", "content": "Likes tea"}));
        assert_eq!(
            Value::Object(p),
            json!({"action": "add", "target": "user", "content": "Likes tea", "old_text": ""})
        );
        assert_eq!(s, "add to user profile: Likes tea");
        let (p, s) = payload(
            &json!({"target": "memory", "operations": [{"action": "remove", "old_text": "x"}]}),
        );
        assert_eq!(p["action"], "batch");
        assert_eq!(s, "apply 1 op(s) to memory: x");
    }
}
