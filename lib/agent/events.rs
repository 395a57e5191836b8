//! What a turn reports while it runs, to whoever drives it: the `--json` event writer, the
//! one-shot printer, the terminal session. Items follow the envelope of Codex's `exec --json`
//! (CLI.md § hermes-chat).

use std::time::Duration;

use serde_json::{Map, Value, json};

use crate::llm::{Delta, LlmError};

/// One item of a turn: `{"id": …, "type": …, …}`.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    pub id: String,
    pub kind: &'static str,
    pub fields: Map<String, Value>,
}

impl Item {
    pub fn new(id: String, kind: &'static str, fields: Value) -> Item {
        Item {
            id,
            kind,
            fields: match fields {
                Value::Object(m) => m,
                _ => Map::new(),
            },
        }
    }

    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("id".into(), json!(self.id));
        m.insert("type".into(), json!(self.kind));
        for (k, v) in &self.fields {
            m.insert(k.clone(), v.clone());
        }
        Value::Object(m)
    }
}

/// A flagged command waiting for a decision.
#[derive(Debug, Clone, PartialEq)]
pub struct ApprovalRequest {
    pub tool_use_id: String,
    pub command: String,
    pub rule: String,
    pub description: String,
    pub input: Value,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    Once,
    /// Approve this rule for the rest of the session.
    Session,
    Deny,
}

impl Decision {
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Once => "approved",
            Decision::Session => "approved_for_session",
            Decision::Deny => "denied",
        }
    }
}

/// The driver of a turn. Every method has a quiet default.
pub trait Observer {
    fn delta(&mut self, _item_id: &str, _delta: &Delta<'_>) {}
    fn item_started(&mut self, _item: &Item) {}
    fn item_completed(&mut self, _item: &Item) {}
    fn retrying(&mut self, _attempt: u32, _of: u32, _error: &LlmError, _wait: Duration) {}
    /// A person-facing note (stderr in one-shot modes).
    fn notice(&mut self, _text: &str) {}
    /// Asked only under `--approvals ask`; the default refuses.
    fn approve(&mut self, _request: &ApprovalRequest) -> Decision {
        Decision::Deny
    }
}

/// An observer that reports nothing and refuses every approval.
pub struct Silent;

impl Observer for Silent {}
