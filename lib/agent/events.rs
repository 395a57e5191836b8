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

/// An allow a host keeps for the rest of the session (Claude's `updatedPermissions`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionRule {
    /// The whole tool: every flagged command (never the hard floor or a deny glob).
    Everything,
    /// Claude's `ruleContent`: a rule id, an exact command, a `prefix:*` or a glob.
    Content(String),
}

/// A full answer to an approval request: Claude's `control_response` semantics.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub decision: Decision,
    /// `updatedInput.command`: what runs instead (checked again like any other command).
    pub command: Option<String>,
    /// `interrupt: true` with a deny: the turn ends.
    pub interrupt: bool,
    /// A deny's `message`: what the model reads as the tool result's error.
    pub message: Option<String>,
    pub session_rules: Vec<SessionRule>,
}

impl From<Decision> for Answer {
    fn from(decision: Decision) -> Answer {
        Answer {
            decision,
            command: None,
            interrupt: false,
            message: None,
            session_rules: Vec::new(),
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
    /// The full answer; drivers that can say more than yes or no (JSONL hosts) override it.
    fn answer(&mut self, request: &ApprovalRequest) -> Answer {
        self.approve(request).into()
    }
}

/// An observer that reports nothing and refuses every approval.
pub struct Silent;

impl Observer for Silent {}
