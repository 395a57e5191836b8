//! An agent for unit tests: a temp home, a session store in it, a scripted model that keeps
//! every request body, a fixed clock, and an observer that writes down what it is told.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use serde_json::{Value, json};

use super::events::{ApprovalRequest, Decision, Item, Observer};
use super::registry::Registry;
use super::session::{Agent, AgentParts, ApprovalMode, Clock, ProviderUse};
use super::settings::AgentSettings;
use crate::home::{Config, Home};
use crate::llm::client::RetryPolicy;
use crate::llm::testing::{Bodies, Scripted};
use crate::llm::{Client, Completion, Delta, LlmError};
use crate::sessions::{Db, migrate};

/// The time every test agent lives at.
pub(crate) const NOW: f64 = 1_780_000_000.0;

pub(crate) type Script = Vec<Result<Completion, LlmError>>;

/// An agent on a scripted model, with the home it works in.
pub(crate) struct TestAgent {
    pub agent: Agent,
    pub bodies: Bodies,
    pub dir: tempfile::TempDir,
}

impl TestAgent {
    /// The folder the agent works in (its commands' and file tools' directory).
    pub fn work(&self) -> std::path::PathBuf {
        self.dir.path().join("work")
    }
}

/// The parts of a run in `dir` under `config_yaml`, the model answering from `script`.
pub(crate) fn parts(dir: &Path, config_yaml: &str, script: Script) -> (AgentParts, Bodies) {
    let config = match Config::from_bytes(config_yaml.as_bytes(), &dir.join("config.yaml")) {
        Ok(c) => c,
        Err(e) => panic!("test config: {e}"),
    };
    let mut settings = AgentSettings::from_config(&config);
    settings.retry_backoff = std::time::Duration::ZERO;
    let model = Scripted::new(script);
    let bodies = model.bodies();
    let interrupt = Arc::new(AtomicBool::new(false));
    let client = Client::new(
        Box::new(model),
        RetryPolicy {
            attempts: settings.api_max_retries,
            backoff_base: std::time::Duration::ZERO,
        },
        interrupt.clone(),
    );
    let mut db = match Db::create(&dir.join("state.db"), Default::default()) {
        Ok(db) => db,
        Err(e) => panic!("session store: {e}"),
    };
    if let Err(e) = migrate::ensure_schema(&mut db) {
        panic!("schema: {e}");
    }
    let parts = AgentParts {
        home: Home::at(dir),
        config,
        settings,
        endpoint: crate::llm::testing::endpoint(),
        client,
        db,
        // Commands and file tools work in a folder of the home, as a user's project beside
        // it would be: the home itself is never writable under the sandbox.
        cwd: {
            let work = dir.join("work");
            if let Err(e) = std::fs::create_dir_all(&work) {
                panic!("work dir: {e}");
            }
            work
        },
        source: "cli".into(),
        approvals: ApprovalMode::Deny,
        registry: Registry::new(None),
        interrupt,
        clock: Clock::new(Some(NOW)),
        ignore_rules: false,
        ephemeral: String::new(),
        provider_use: ProviderUse::Off,
    };
    (parts, bodies)
}

/// A new session under the default config.
pub(crate) fn agent(script: Script) -> TestAgent {
    agent_with("", script, |_| {})
}

/// A new session under `config_yaml`, its parts changed by `adjust` first.
pub(crate) fn agent_with(
    config_yaml: &str,
    script: Script,
    adjust: impl FnOnce(&mut AgentParts),
) -> TestAgent {
    let Ok(dir) = tempfile::tempdir() else {
        panic!("temp dir")
    };
    let (mut parts, bodies) = parts(dir.path(), config_yaml, script);
    adjust(&mut parts);
    let agent = match Agent::new(parts) {
        Ok(a) => a,
        Err(e) => panic!("agent: {e}"),
    };
    TestAgent { agent, bodies, dir }
}

/// An agent under `config_yaml` after four turns of 20,000-character questions (`p`, `q`,
/// `r`, `s` repeated) and answers (`a`, `b`, `c`, `d`): enough for a compaction to find a
/// middle. The model's next answer is `next`.
pub(crate) fn after_four_big_turns(
    config_yaml: &str,
    next: &str,
    adjust: impl FnOnce(&mut AgentParts),
) -> TestAgent {
    let big = |c: char| c.to_string().repeat(20_000);
    let mut script: Script = ['a', 'b', 'c', 'd']
        .iter()
        .map(|c| crate::llm::testing::answer(&big(*c)))
        .collect();
    script.push(crate::llm::testing::answer(next));
    let mut t = agent_with(config_yaml, script, adjust);
    for q in ['p', 'q', 'r', 's'] {
        t.turn(&big(q));
    }
    t
}

/// The names of the tools a request body offers, in order.
pub(crate) fn tool_names(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|ts| {
            ts.iter()
                .filter_map(|t| t["function"]["name"].as_str())
                .map(String::from)
                .collect()
        })
        .unwrap_or_default()
}

impl TestAgent {
    /// Runs a turn for `text`; what the observer heard.
    pub(crate) fn turn(&mut self, text: &str) -> (super::TurnOutcome, Recorder) {
        let mut recorder = Recorder::default();
        match self.agent.run_turn(text, &mut recorder) {
            Ok(outcome) => (outcome, recorder),
            Err(e) => panic!("turn: {e}"),
        }
    }

    /// The request bodies sent so far.
    pub(crate) fn sent(&self) -> Vec<Value> {
        self.bodies.lock().map(|b| b.clone()).unwrap_or_default()
    }

    /// The stored transcript of the current session as `[role, content]` pairs.
    pub(crate) fn stored(&self) -> Vec<(String, String)> {
        let db = &self.agent.db;
        match crate::sessions::live::load_conversation(db, &self.agent.session_id) {
            Ok(messages) => messages
                .iter()
                .map(|m| (m.role_str().to_string(), m.content.clone()))
                .collect(),
            Err(e) => panic!("load: {e}"),
        }
    }

    /// The live transcript as `[role, content]` pairs.
    pub(crate) fn live(&self) -> Vec<(String, String)> {
        self.agent
            .messages
            .iter()
            .map(|m| (m.role_str().to_string(), m.content.clone()))
            .collect()
    }

    /// One column of the current session's row.
    pub(crate) fn column(&self, name: &str) -> Value {
        let sql = format!("SELECT {name} FROM sessions WHERE id = ?1");
        let got = self
            .agent
            .db
            .conn()
            .query_row(&sql, [&self.agent.session_id], |r| {
                r.get::<_, rusqlite::types::Value>(0)
            });
        match got {
            Ok(rusqlite::types::Value::Null) => Value::Null,
            Ok(rusqlite::types::Value::Integer(i)) => json!(i),
            Ok(rusqlite::types::Value::Real(f)) => json!(f),
            Ok(rusqlite::types::Value::Text(t)) => json!(t),
            Ok(rusqlite::types::Value::Blob(_)) => json!("<blob>"),
            Err(e) => panic!("{name}: {e}"),
        }
    }
}

/// What an observer was told, in order, as JSON lines a test can compare whole.
#[derive(Default)]
pub(crate) struct Recorder {
    pub events: Vec<Value>,
    pub notices: Vec<String>,
    pub asked: Vec<ApprovalRequest>,
    /// The answer to every approval request (`None`: refuse, as the default observer does).
    pub decision: Option<Decision>,
}

impl Recorder {
    pub(crate) fn deciding(decision: Decision) -> Recorder {
        Recorder {
            decision: Some(decision),
            ..Recorder::default()
        }
    }

    /// The completed items, without their ids.
    pub(crate) fn completed(&self) -> Vec<Value> {
        self.events
            .iter()
            .filter(|e| e["event"] == "completed")
            .map(|e| {
                let mut item = e["item"].clone();
                if let Some(map) = item.as_object_mut() {
                    map.remove("id");
                }
                item
            })
            .collect()
    }

    /// The text streamed, joined.
    pub(crate) fn streamed(&self) -> String {
        self.events
            .iter()
            .filter(|e| e["event"] == "delta")
            .filter_map(|e| e["text"].as_str())
            .collect()
    }
}

impl Observer for Recorder {
    fn delta(&mut self, item_id: &str, delta: &Delta<'_>) {
        if let Delta::Text(t) = delta {
            self.events
                .push(json!({"event": "delta", "id": item_id, "text": t}));
        }
    }

    fn item_started(&mut self, item: &Item) {
        self.events
            .push(json!({"event": "started", "item": item.to_json()}));
    }

    fn item_completed(&mut self, item: &Item) {
        self.events
            .push(json!({"event": "completed", "item": item.to_json()}));
    }

    fn notice(&mut self, text: &str) {
        self.notices.push(text.to_string());
    }

    fn retrying(&mut self, attempt: u32, of: u32, error: &LlmError, _: std::time::Duration) {
        self.events.push(
            json!({"event": "retry", "attempt": attempt, "of": of, "error": error.to_string()}),
        );
    }

    fn approve(&mut self, request: &ApprovalRequest) -> Decision {
        self.asked.push(request.clone());
        self.decision.unwrap_or(Decision::Deny)
    }
}
