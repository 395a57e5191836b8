//! One conversation with its stores: the agent's state between turns (the transcript, the
//! frozen system prompt, the session row, the review counters) and the dispatch of every
//! tool call to the library module that answers it.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use serde_json::{Map, Value, json};

use super::approval::{self, Check};
use super::events::{ApprovalRequest, Decision, Item, Observer};
use super::prompt::{self, Loaded, PromptInputs};
use super::registry::Registry;
use super::review::Counters;
use super::settings::AgentSettings;
use crate::home::{Config, Home};
use crate::io::pyjson;
use crate::llm::{Client, Endpoint, Message, ToolCall};
use crate::memory::{self, Limits, MemoryStore};
use crate::sessions::Db;
use crate::sessions::live::{self, NewSession};
use crate::skills::guards::Origin;
use crate::skills::library::Library;
use crate::skills::manage::{ManageArgs, Session as SkillSession};

/// How flagged terminal commands are handled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApprovalMode {
    Ask,
    Deny,
    Allow,
}

/// The clock of a run: `HERMES_NOW` holds still (reproducible runs), else the system clock.
#[derive(Debug, Clone, Copy)]
pub struct Clock {
    fixed: Option<f64>,
}

impl Clock {
    pub fn new(fixed: Option<f64>) -> Clock {
        Clock { fixed }
    }

    pub fn now(&self) -> f64 {
        self.fixed.unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs_f64())
                .unwrap_or(0.0)
        })
    }

    pub fn is_fixed(&self) -> bool {
        self.fixed.is_some()
    }
}

/// Everything a run is made of, gathered by the binary.
pub struct AgentParts {
    pub home: Home,
    pub config: Config,
    pub settings: AgentSettings,
    pub endpoint: Endpoint,
    pub client: Client,
    pub db: Db,
    pub cwd: PathBuf,
    pub source: String,
    pub approvals: ApprovalMode,
    pub registry: Registry,
    pub interrupt: Arc<AtomicBool>,
    pub clock: Clock,
    /// `--ignore-rules`.
    pub ignore_rules: bool,
    /// Extra text sent after the system prompt but never stored (preloaded skills).
    pub ephemeral: String,
}

pub struct Agent {
    pub home: Home,
    pub config: Config,
    pub settings: AgentSettings,
    pub endpoint: Endpoint,
    pub(super) client: Client,
    pub(super) db: Db,
    pub session_id: String,
    /// The live transcript (no system message).
    pub messages: Vec<Message>,
    pub(super) system_prompt: String,
    pub(super) ephemeral: String,
    pub loaded: Loaded,
    pub registry: Registry,
    memory: Option<MemoryStore>,
    library: Library,
    workspace: crate::tools::Workspace,
    pub approvals: ApprovalMode,
    approved_rules: HashSet<String>,
    pub counters: Counters,
    pub interrupt: Arc<AtomicBool>,
    pub clock: Clock,
    pub source: String,
    pub(super) session_created: bool,
    pub resumed: bool,
    pub(super) item_seq: u64,
    /// Whether `memory` answered successfully in this turn (resets the memory counter).
    pub(super) last_prompt_tokens: u64,
    /// When set, answers every tool call in place of the built-in dispatch (the review).
    pub(super) tool_hook: Option<Box<dyn ToolHook>>,
}

/// Answers tool calls for a run that is not a chat: `hermes-review` routes every call
/// through its own whitelist, write origin and proposal recording, so the chat's dispatch
/// never has to know about them.
pub trait ToolHook {
    /// The result object of one call (a refusal is a result too).
    fn call(&mut self, name: &str, args: &Value) -> Value;
}

/// Problems setting a run up (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    #[error(transparent)]
    Sessions(#[from] crate::sessions::Error),
    #[error(transparent)]
    Memory(#[from] crate::memory::MemoryError),
    #[error("Session not found: {0}")]
    SessionNotFound(String),
}

impl Agent {
    /// A new session (its row is written at the start of the first turn).
    pub fn new(parts: AgentParts) -> Result<Agent, SetupError> {
        let mut agent = Agent::assemble(parts)?;
        agent.session_id = agent.fresh_session_id()?;
        agent.build_prompt();
        Ok(agent)
    }

    /// Goes on with a stored session: its live transcript and, when the model and provider
    /// are the same, its stored system prompt byte for byte.
    pub fn resume(parts: AgentParts, wanted: &str) -> Result<Agent, SetupError> {
        let mut agent = Agent::assemble(parts)?;
        let id = live::resolve_resume(&agent.db, wanted)?
            .ok_or_else(|| SetupError::SessionNotFound(wanted.to_string()))?;
        agent.adopt(&id)?;
        Ok(agent)
    }

    /// `--continue`: the newest session of this source.
    pub fn continue_newest(parts: AgentParts) -> Result<Agent, SetupError> {
        let mut agent = Agent::assemble(parts)?;
        let id = live::newest(&agent.db, &agent.source)?.ok_or_else(|| {
            SetupError::SessionNotFound(format!("no {} session yet", agent.source))
        })?;
        agent.adopt(&id)?;
        Ok(agent)
    }

    /// `--fork ID`: a copy of a stored session's live transcript in a new session whose
    /// parent is the original.
    pub fn fork(parts: AgentParts, wanted: &str) -> Result<Agent, SetupError> {
        let mut agent = Agent::assemble(parts)?;
        let from = live::resolve_resume(&agent.db, wanted)?
            .ok_or_else(|| SetupError::SessionNotFound(wanted.to_string()))?;
        let id = agent.fresh_session_id()?;
        agent.session_id = id.clone();
        agent.build_prompt();
        let model_config = pyjson::dumps(
            &json!({"max_iterations": agent.settings.max_turns, "reasoning_config": null,
                "max_tokens": null, "_branched_from": from}),
            pyjson::Dumps::TOOL_RESULT,
        );
        let cwd = agent.workspace.cwd().display().to_string();
        let new = NewSession {
            id: &id,
            source: &agent.source,
            model: &agent.endpoint.model,
            model_config: Some(&model_config),
            system_prompt: Some(&agent.system_prompt),
            parent_session_id: Some(&from),
            cwd: Some(&cwd),
            started_at: agent.clock.now(),
        };
        live::fork(&mut agent.db, &from, &new)?;
        agent.session_created = true;
        agent.messages = live::load_conversation(&agent.db, &id)?;
        agent
            .counters
            .hydrate(&agent.messages, agent.settings.memory_nudge_interval);
        Ok(agent)
    }

    fn assemble(parts: AgentParts) -> Result<Agent, SetupError> {
        let memory = if memory::available(&parts.config.memory) && parts.registry.allows("memory") {
            Some(MemoryStore::load(
                &parts.home,
                Limits::from_config(&parts.config.memory),
            )?)
        } else {
            None
        };
        let library = Library::new(
            parts.home.clone(),
            parts.config.clone(),
            crate::skills::runtime::Runtime::detect(&parts.config),
        );
        let mut workspace =
            crate::tools::Workspace::new(parts.cwd.clone(), parts.home.root().to_path_buf());
        workspace.set_default_timeout(parts.settings.terminal_timeout);
        // The model's shell never inherits the keys the agent itself uses.
        workspace.set_env(
            std::env::vars()
                .filter(|(k, _)| !is_secret_variable(k))
                .collect(),
        );
        let counters = Counters::new(&parts.settings);
        Ok(Agent {
            home: parts.home,
            config: parts.config,
            settings: parts.settings,
            endpoint: parts.endpoint,
            client: parts.client,
            db: parts.db,
            session_id: String::new(),
            messages: Vec::new(),
            system_prompt: String::new(),
            ephemeral: parts.ephemeral,
            loaded: Loaded::default(),
            registry: parts.registry,
            memory,
            library,
            workspace,
            approvals: parts.approvals,
            approved_rules: HashSet::new(),
            counters,
            interrupt: parts.interrupt,
            clock: parts.clock,
            source: parts.source,
            session_created: false,
            resumed: false,
            item_seq: 0,
            last_prompt_tokens: 0,
            tool_hook: None,
        })
    }

    fn adopt(&mut self, id: &str) -> Result<(), SetupError> {
        let head =
            live::head(&self.db, id)?.ok_or_else(|| SetupError::SessionNotFound(id.to_string()))?;
        self.session_id = head.id.clone();
        self.messages = live::load_conversation(&self.db, id)?;
        match head
            .system_prompt
            .filter(|p| prompt::reusable(p, &self.endpoint.model, &self.endpoint.provider))
        {
            Some(stored) => {
                self.system_prompt = stored;
                // What the stored prompt holds is what the model sees; count it as loaded.
                self.build_loaded_only();
            }
            None => {
                self.build_prompt();
                live::set_system_prompt(&mut self.db, id, &self.system_prompt)?;
            }
        }
        live::reopen_session(&mut self.db, id)?;
        self.session_created = true;
        self.resumed = true;
        self.counters
            .hydrate(&self.messages, self.settings.memory_nudge_interval);
        Ok(())
    }

    /// `YYYYmmdd_HHMMSS_<6 hex>` in local time. Under a fixed clock the hex is derived from
    /// the time alone, so a replayed run names its session the same way.
    fn fresh_session_id(&self) -> Result<String, SetupError> {
        let now = self.clock.now();
        let ts = jiff::Timestamp::from_microsecond((now * 1e6) as i64)
            .unwrap_or(jiff::Timestamp::UNIX_EPOCH);
        let stamp = ts
            .to_zoned(jiff::tz::TimeZone::system())
            .strftime("%Y%m%d_%H%M%S")
            .to_string();
        for attempt in 0u64..1000 {
            let seed = if self.clock.is_fixed() {
                fnv(&format!("{now}:{attempt}"))
            } else {
                fnv(&format!(
                    "{now}:{}:{attempt}:{:?}",
                    std::process::id(),
                    std::time::Instant::now()
                ))
            };
            let id = format!("{stamp}_{:06x}", seed & 0xff_ffff);
            if !live::session_exists(&self.db, &id)? {
                return Ok(id);
            }
        }
        Ok(format!(
            "{stamp}_{:06x}",
            fnv(&format!("{now}-last")) & 0xff_ffff
        ))
    }

    fn prompt_inputs(&self) -> (String, usize, String, usize, usize) {
        let skills_index =
            if self.registry.allows("skill_view") || self.registry.allows("skills_list") {
                let options = crate::skills::prompt::PromptOptions {
                    tools: Some(self.registry.names().clone()),
                    ..Default::default()
                };
                let index = crate::skills::prompt::collect(&self.library, &options);
                let count = index_count(&index);
                let text = crate::skills::prompt::render(&index, &Default::default());
                (text, count)
            } else {
                (String::new(), 0)
            };
        let (block, mem, user) = match &self.memory {
            Some(store) => (
                store.snapshot().prompt_part(
                    self.config.memory.memory_enabled,
                    self.config.memory.user_profile_enabled,
                ),
                store.char_count(crate::memory::Target::Memory),
                store.char_count(crate::memory::Target::User),
            ),
            None => (String::new(), 0, 0),
        };
        (skills_index.0, skills_index.1, block, mem, user)
    }

    fn build_prompt(&mut self) {
        let (skills_index, skills_count, memory_block, memory_chars, user_chars) =
            self.prompt_inputs();
        let date = jiff::Timestamp::from_microsecond((self.clock.now() * 1e6) as i64)
            .map(prompt::date_line)
            .unwrap_or_default();
        let inputs = PromptInputs {
            hermes_home: self.home.root(),
            cwd: self.workspace.cwd(),
            tools: self.registry.names(),
            skills_index,
            skills_count,
            memory_block,
            memory_chars,
            user_chars,
            date,
            model: &self.endpoint.model,
            provider: &self.endpoint.provider,
            ignore_rules: false,
        };
        let (text, loaded) = prompt::build(&inputs);
        self.system_prompt = text;
        self.loaded = loaded;
    }

    fn build_loaded_only(&mut self) {
        let stored = std::mem::take(&mut self.system_prompt);
        self.build_prompt();
        self.system_prompt = stored;
    }

    pub fn system_prompt(&self) -> &str {
        &self.system_prompt
    }

    /// Sends `text` as the system prompt, byte for byte (a review on the chat's own model
    /// reuses the chat's prompt so the provider's prompt cache still holds the prefix).
    pub fn set_system_prompt(&mut self, text: String) {
        self.system_prompt = text;
    }

    /// Routes every tool call, whatever its name, to `hook`.
    pub fn set_tool_hook(&mut self, hook: Box<dyn ToolHook>) {
        self.tool_hook = Some(hook);
    }

    /// The system message as sent: the stored prompt plus the ephemeral additions.
    pub(super) fn wire_system_prompt(&self) -> String {
        if self.ephemeral.trim().is_empty() {
            self.system_prompt.clone()
        } else {
            format!("{}\n\n{}", self.system_prompt, self.ephemeral.trim())
                .trim()
                .to_string()
        }
    }

    pub(super) fn next_item_id(&mut self) -> String {
        self.item_seq += 1;
        format!("item_{}", self.item_seq)
    }

    /// Writes the session row if this is the first turn.
    pub(super) fn ensure_session(&mut self) -> Result<(), crate::sessions::Error> {
        if self.session_created {
            return Ok(());
        }
        let model_config = pyjson::dumps(
            &json!({"max_iterations": self.settings.max_turns, "reasoning_config":
                self.endpoint.reasoning_effort.as_ref().map(|e| json!({"enabled": e != "none", "effort": e})),
                "max_tokens": null}),
            pyjson::Dumps::TOOL_RESULT,
        );
        let cwd = self.workspace.cwd().display().to_string();
        let new = NewSession {
            id: &self.session_id,
            source: &self.source,
            model: &self.endpoint.model,
            model_config: Some(&model_config),
            system_prompt: Some(&self.system_prompt),
            parent_session_id: None,
            cwd: Some(&cwd),
            started_at: self.clock.now(),
        };
        live::create_session(&mut self.db, &new)?;
        self.session_created = true;
        Ok(())
    }

    /// Stores a message (once) and keeps it in the transcript.
    pub(super) fn push(&mut self, mut m: Message) -> Result<(), crate::sessions::Error> {
        if m.stored_id.is_none() {
            let ts = m.timestamp.unwrap_or_else(|| self.clock.now());
            m.timestamp = Some(ts);
            let id = live::append_message(&mut self.db, &self.session_id, &m, ts)?;
            m.stored_id = Some(id);
        }
        self.messages.push(m);
        Ok(())
    }

    /// After a compaction the model no longer holds what it read: let it read again.
    pub(super) fn forget_reads(&mut self) {
        self.workspace.forget_reads();
    }

    pub fn db(&mut self) -> &mut Db {
        &mut self.db
    }

    /// Ends the session row (the first reason wins).
    pub fn end(&mut self, reason: &str) -> Result<(), crate::sessions::Error> {
        if self.session_created {
            live::end_session(&mut self.db, &self.session_id, reason, self.clock.now())?;
        }
        Ok(())
    }

    /// Runs one tool call and returns the result text and the item that shows it. Approval
    /// of terminal commands happens here, through `observer` when the mode is `ask`.
    pub(super) fn dispatch(
        &mut self,
        call: &ToolCall,
        args: &Map<String, Value>,
        id: String,
        observer: &mut dyn Observer,
    ) -> (String, Item, Option<Item>) {
        let args_value = Value::Object(args.clone());
        if let Some(hook) = self.tool_hook.as_mut() {
            let result = hook.call(&call.name, &args_value);
            let text = pyjson::tool_result(&result);
            let failed =
                result.get("success") == Some(&Value::Bool(false)) || result.get("error").is_some();
            let item = Item::new(
                id,
                "tool_call",
                json!({"name": call.name, "arguments": args_value,
                "result": text, "status": if failed { "failed" } else { "completed" }}),
            );
            return (text, item, None);
        }
        match call.name.as_str() {
            "terminal" => self.run_terminal(call, args, id, observer),
            "write_file" | "patch" => {
                let result = if call.name == "write_file" {
                    crate::tools::write_file(&mut self.workspace, args)
                } else {
                    crate::tools::patch(&mut self.workspace, args)
                };
                let ok = result.get("error").is_none()
                    && result.get("success") != Some(&Value::Bool(false));
                let paths: Vec<Value> = result
                    .get("files_modified")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_else(|| vec![args.get("path").cloned().unwrap_or(Value::Null)]);
                let kind = if call.name == "write_file" {
                    "add"
                } else {
                    "update"
                };
                let changes: Vec<Value> = paths
                    .iter()
                    .map(|p| json!({"path": p, "kind": kind}))
                    .collect();
                let item = Item::new(
                    id,
                    "file_change",
                    json!({"changes": changes,
                    "status": if ok { "completed" } else { "failed" }}),
                );
                (pyjson::tool_result(&result), item, None)
            }
            name => {
                let result = match name {
                    "read_file" => crate::tools::read_file(&mut self.workspace, args),
                    "search_files" => crate::tools::search_files(&mut self.workspace, args),
                    "memory" => match self.memory.as_mut() {
                        Some(store) => memory::tool::answer(store, &args_value),
                        None => memory::tool::unavailable(),
                    },
                    "skills_list" => {
                        let category = args.get("category").and_then(Value::as_str);
                        crate::skills::list::skills_list_tool(&self.library, category)
                    }
                    "skill_view" => {
                        let scanner = crate::skills::write_scan::Unavailable;
                        let mut s = SkillSession::new(&self.library, Origin::Foreground, &scanner);
                        let name = args.get("name").and_then(Value::as_str).unwrap_or("");
                        let file = args.get("file_path").and_then(Value::as_str);
                        s.view(name, file)
                    }
                    "skill_manage" => match ManageArgs::from_json(&args_value) {
                        Ok(manage) => {
                            let scanner = crate::guard::write_guard::agent_write_scanner();
                            let mut s =
                                SkillSession::new(&self.library, Origin::Foreground, scanner);
                            s.manage(&manage)
                        }
                        Err(message) => json!({"success": false, "error": message}),
                    },
                    "session_search" => match crate::recall::Recall::open(self.home.clone()) {
                        Ok(recall) => recall.answer(
                            &crate::recall::Args::from_object(args),
                            Some(&self.session_id),
                        ),
                        Err(e) => crate::recall::unavailable(&e),
                    },
                    other => json!({"error": format!("Unknown tool: {other}")}),
                };
                let text = pyjson::tool_result(&result);
                let failed = result.get("success") == Some(&Value::Bool(false))
                    || result.get("error").is_some();
                let item = Item::new(
                    id,
                    "tool_call",
                    json!({"name": name, "arguments": args_value,
                    "result": text, "status": if failed { "failed" } else { "completed" }}),
                );
                (text, item, None)
            }
        }
    }

    fn run_terminal(
        &mut self,
        call: &ToolCall,
        args: &Map<String, Value>,
        id: String,
        observer: &mut dyn Observer,
    ) -> (String, Item, Option<Item>) {
        let command = args
            .get("command")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let blocked = |text: String| json!({"output": "", "exit_code": -1, "error": text, "status": "blocked"});
        let mut approval_item = None;
        let check = approval::check(
            &command,
            &self.settings.deny_globs,
            &self.settings.allowlist,
        );
        let refusal = match check {
            Check::Clear => None,
            Check::Hardline { description } => {
                approval_item = Some(self.approval_item(&command, "hardline", "blocked"));
                Some(blocked(approval::hardline_text(&description)))
            }
            Check::Denied { pattern } => {
                approval_item =
                    Some(self.approval_item(&command, &format!("deny:{pattern}"), "blocked"));
                Some(blocked(approval::deny_glob_text(&pattern)))
            }
            Check::Flagged { rule, description } => {
                let decision = if self.approved_rules.contains(&rule) {
                    Decision::Session
                } else {
                    match self.approvals {
                        ApprovalMode::Allow => Decision::Once,
                        ApprovalMode::Deny => Decision::Deny,
                        ApprovalMode::Ask => observer.approve(&ApprovalRequest {
                            tool_use_id: call.id.clone(),
                            command: command.clone(),
                            rule: rule.clone(),
                            description: description.clone(),
                            input: Value::Object(args.clone()),
                        }),
                    }
                };
                if decision == Decision::Session {
                    self.approved_rules.insert(rule.clone());
                }
                approval_item = Some(self.approval_item(&command, &rule, decision.as_str()));
                (decision == Decision::Deny).then(|| {
                    blocked(approval::denied_text(
                        &rule,
                        &description,
                        self.approvals == ApprovalMode::Ask,
                    ))
                })
            }
        };
        let result = match refusal {
            Some(r) => r,
            None => crate::tools::terminal(&mut self.workspace, args, &self.interrupt),
        };
        let exit_code = result.get("exit_code").cloned().unwrap_or(Value::Null);
        let status = if result.get("status").and_then(Value::as_str) == Some("blocked") {
            "declined"
        } else if exit_code == json!(0) {
            "completed"
        } else {
            "failed"
        };
        let item = Item::new(
            id,
            "command_execution",
            json!({"command": command,
            "aggregated_output": result.get("output").cloned().unwrap_or(json!("")),
            "exit_code": exit_code, "status": status}),
        );
        (pyjson::tool_result(&result), item, approval_item)
    }

    fn approval_item(&mut self, command: &str, rule: &str, decision: &str) -> Item {
        let id = self.next_item_id();
        Item::new(
            id,
            "approval",
            json!({"command": command, "rule": rule, "decision": decision}),
        )
    }

    /// The conversation as review input lines: the system prompt as sent first (so a review
    /// on the same model can reuse its bytes), then the messages.
    pub fn transcript_lines(&self) -> Vec<Value> {
        std::iter::once(json!({"role": "system", "content": self.wire_system_prompt()}))
            .chain(self.messages.iter().map(Message::to_line))
            .collect()
    }
}

fn index_count(index: &crate::skills::prompt::SkillIndex) -> usize {
    index.skills.len()
}

/// Variables that hold credentials of the agent's own endpoints.
fn is_secret_variable(name: &str) -> bool {
    name.ends_with("_API_KEY")
        || name == "HERMES_API_KEY"
        || name.ends_with("_TOKEN") && name.starts_with("HERMES")
}

/// FNV-1a, for ids that only need to be spread out.
pub fn fnv(text: &str) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}
