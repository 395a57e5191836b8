//! One conversation with its stores: the agent's state between turns (the transcript, the
//! frozen system prompt, the session row, the review counters) and the dispatch of every
//! tool call to the library module that answers it.

use std::collections::{BTreeSet, HashSet};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use serde_json::{Map, Value, json};

use super::approval::{self, Check};
use super::events::{Answer, ApprovalRequest, Decision, Item, Observer, SessionRule};
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

/// How many times one approval may replace its command (`updatedInput`) before it is refused.
const MAX_REWRITES: usize = 3;

/// How flagged terminal commands are handled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApprovalMode {
    Ask,
    Deny,
    Allow,
    /// Flagged commands run in the sandbox; the user is asked only when the sandbox refused
    /// something, whether to run the command again outside it.
    OnFailure,
    /// Ask for every command not on the known-safe list, flagged or not.
    Untrusted,
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

/// What a run lets the external memory provider do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderUse {
    /// Prompt block, tools, recall before each turn, sync after it, memory writes mirrored.
    Full,
    /// Only the memory writes of this run are mirrored, with a background-review provenance
    /// (hermes-review: its own conversation is not the user's).
    MirrorWrites,
    /// No provider (the curator's pass, a review that only proposes).
    Off,
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
    pub provider_use: ProviderUse,
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
    /// Allows a host kept for the session (`updatedPermissions`).
    session_rules: Vec<SessionRule>,
    /// An approval answer asked for the turn to end (`interrupt: true`).
    answer_interrupted: bool,
    pub counters: Counters,
    pub interrupt: Arc<AtomicBool>,
    pub clock: Clock,
    pub source: String,
    pub(super) session_created: bool,
    pub resumed: bool,
    pub(super) item_seq: u64,
    /// The prompt size the endpoint last reported, for the compaction check.
    pub(super) last_prompt_tokens: u64,
    /// When set, answers every tool call in place of the built-in dispatch (the review).
    pub(super) tool_hook: Option<Box<dyn ToolHook>>,
    /// Skills created by `skill_manage` in this run: name and folder (for `/learn`).
    pub skills_created: Vec<(String, PathBuf)>,
    /// Model calls of this run whose answer carried no usage: Hermes counts a call in the
    /// session row only with its usage, `/usage` counts every one.
    pub calls_without_usage: i64,
    /// The prompt while it is being built, and whether the stored one is kept.
    pending_prompt: Option<(std::thread::JoinHandle<(String, Loaded)>, bool)>,
    prompt_watch: Option<std::sync::mpsc::Receiver<Loaded>>,
    /// Variables given to the model's commands beyond the process environment.
    extra_env: Vec<(String, String)>,
    /// Why the session has no sandbox (the kernel cannot contain): commands are refused.
    sandbox_error: Option<String>,
    /// The external memory provider, when `memory.provider` names one.
    pub(super) provider: Option<super::provider::Provider>,
    provider_block: String,
    provider_use: ProviderUse,
    /// Notes for the person (a provider dropped, tools refused), printed by the driver.
    pub(super) notices: Vec<String>,
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
        agent.start_provider();
        agent.spawn_prompt(false);
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
        agent.start_provider();
        agent.build_prompt();
        let started = agent.clock.now();
        agent.create_row(&id, Some(&from), Some(&from), started)?;
        live::copy_transcript(&mut agent.db, &from, &id, started)?;
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
        let sandbox_error = match super::sandboxing::build(
            &parts.config,
            &parts.home,
            workspace.cwd(),
            super::sandboxing::SandboxChoice::default(),
        ) {
            Ok(sandbox) => {
                workspace.set_sandbox(sandbox);
                None
            }
            Err(e) => Some(e.to_string()),
        };
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
            session_rules: Vec::new(),
            answer_interrupted: false,
            counters,
            interrupt: parts.interrupt,
            clock: parts.clock,
            source: parts.source,
            session_created: false,
            resumed: false,
            item_seq: 0,
            last_prompt_tokens: 0,
            tool_hook: None,
            skills_created: Vec::new(),
            calls_without_usage: 0,
            pending_prompt: None,
            prompt_watch: None,
            extra_env: Vec::new(),
            sandbox_error,
            provider: None,
            provider_block: String::new(),
            provider_use: parts.provider_use,
            notices: Vec::new(),
        })
    }

    fn adopt(&mut self, id: &str) -> Result<(), SetupError> {
        let head =
            live::head(&self.db, id)?.ok_or_else(|| SetupError::SessionNotFound(id.to_string()))?;
        self.session_id = head.id.clone();
        self.start_provider();
        self.messages = live::load_conversation(&self.db, id)?;
        match head
            .system_prompt
            .filter(|p| prompt::reusable(p, &self.endpoint.model, &self.endpoint.provider))
        {
            Some(stored) => {
                self.system_prompt = stored;
                // What the stored prompt holds is what the model sees; count it as loaded.
                self.spawn_prompt(true);
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

    /// Everything the system prompt is made of, gathered now (cheap) so the expensive part,
    /// the skills index over every SKILL.md, can run on another thread.
    fn prompt_job(&self) -> impl FnOnce() -> (String, Loaded) + Send + 'static {
        let library = self.library.clone();
        let tools = self.registry.names().clone();
        let with_skills = self.registry.allows("skill_view") || self.registry.allows("skills_list");
        let (memory_block, memory_chars, user_chars) = match &self.memory {
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
        let date = jiff::Timestamp::from_microsecond((self.clock.now() * 1e6) as i64)
            .map(prompt::date_line)
            .unwrap_or_default();
        let hermes_home = self.home.root().to_path_buf();
        let cwd = self.workspace.cwd().to_path_buf();
        let model = self.endpoint.model.clone();
        let provider = self.endpoint.provider.clone();
        let provider_block = self.provider_block.clone();
        move || {
            let (skills_index, skills_count) = if with_skills {
                skills_index_for(&library, &tools)
            } else {
                (String::new(), 0)
            };
            prompt::build(&PromptInputs {
                hermes_home: &hermes_home,
                cwd: &cwd,
                tools: &tools,
                skills_index,
                skills_count,
                memory_block,
                memory_chars,
                user_chars,
                provider_block,
                date,
                model: &model,
                provider: &provider,
                ignore_rules: false,
            })
        }
    }

    fn build_prompt(&mut self) {
        self.pending_prompt = None;
        let (text, loaded) = self.prompt_job()();
        self.system_prompt = text;
        self.loaded = loaded;
    }

    /// Starts building the prompt on another thread (`keep_stored`: a resumed session keeps
    /// its stored prompt and only the report of what is loaded is built).
    fn spawn_prompt(&mut self, keep_stored: bool) {
        let job = self.prompt_job();
        let (tx, rx) = std::sync::mpsc::channel();
        let handle = std::thread::spawn(move || {
            let built = job();
            let _ = tx.send(built.1.clone());
            built
        });
        self.pending_prompt = Some((handle, keep_stored));
        self.prompt_watch = Some(rx);
    }

    /// Tells, once, when the prompt being built is done and what it loaded (the terminal
    /// shows its prompt first and this line when it arrives).
    pub fn take_prompt_watch(&mut self) -> Option<std::sync::mpsc::Receiver<Loaded>> {
        self.prompt_watch.take()
    }

    /// Waits for a prompt being built; returns what it loaded.
    pub fn prompt_ready(&mut self) -> &Loaded {
        if let Some((handle, keep_stored)) = self.pending_prompt.take() {
            match handle.join() {
                Ok((text, loaded)) => {
                    if !keep_stored {
                        self.system_prompt = text;
                    }
                    self.loaded = loaded;
                }
                // A panic in the builder is a bug; build again here so it surfaces.
                Err(_) => self.build_prompt(),
            }
        }
        &self.loaded
    }

    pub fn system_prompt(&mut self) -> &str {
        self.prompt_ready();
        &self.system_prompt
    }

    /// Sends `text` as the system prompt, byte for byte (a review on the chat's own model
    /// reuses the chat's prompt so the provider's prompt cache still holds the prefix).
    pub fn set_system_prompt(&mut self, text: String) {
        // A prompt still being built would replace this one when it lands.
        self.prompt_ready();
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
        let (id, started) = (self.session_id.clone(), self.clock.now());
        self.create_row(&id, None, None, started)?;
        self.session_created = true;
        Ok(())
    }

    /// Writes a session row for `id` as Python's `create_session` would for this run:
    /// `model_config` with the iteration budget and reasoning setting (and `_branched_from`
    /// for a fork), the cached prompt, the working directory.
    fn create_row(
        &mut self,
        id: &str,
        parent: Option<&str>,
        branched_from: Option<&str>,
        started_at: f64,
    ) -> Result<(), crate::sessions::Error> {
        self.prompt_ready();
        let mut config = json!({"max_iterations": self.settings.max_turns,
            "reasoning_config": self.endpoint.reasoning_effort.as_ref()
                .map(|e| json!({"enabled": e != "none", "effort": e})),
            "max_tokens": null});
        if let Some(from) = branched_from {
            config["_branched_from"] = json!(from);
        }
        let model_config = pyjson::dumps(&config, pyjson::Dumps::TOOL_RESULT);
        let cwd = self.workspace.cwd().display().to_string();
        live::create_session(
            &mut self.db,
            &NewSession {
                id,
                source: &self.source,
                model: &self.endpoint.model,
                model_config: Some(&model_config),
                system_prompt: Some(&self.system_prompt),
                parent_session_id: parent,
                cwd: Some(&cwd),
                started_at,
            },
        )
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
        if reason != "new_session"
            && let Some(mut provider) = self.provider.take()
        {
            provider.shutdown();
        }
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
            if call.name == "memory" && !failed {
                self.mirror_memory_write(args, &call.id);
            }
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
                    "memory" => {
                        let result = match self.memory.as_mut() {
                            Some(store) => memory::tool::answer(store, &args_value),
                            None => memory::tool::unavailable(),
                        };
                        if result.get("success") == Some(&Value::Bool(true)) {
                            self.mirror_memory_write(args, &call.id);
                        }
                        result
                    }
                    external if self.registry.is_external(external) => {
                        let params = json!({"name": external, "arguments": args_value});
                        let answer =
                            self.provider_request("handle_tool_call", params)
                                .map(|v| match v {
                                    Value::Object(ref m)
                                        if m.get("result").is_some_and(Value::is_string) =>
                                    {
                                        m.get("result").cloned().unwrap_or(Value::Null)
                                    }
                                    other => other,
                                });
                        match answer {
                            Some(Value::String(text)) => {
                                let item = Item::new(
                                    id,
                                    "tool_call",
                                    json!({"name": external,
                                    "arguments": args_value, "result": text, "status": "completed"}),
                                );
                                return (text, item, None);
                            }
                            Some(other) => other.get("result").cloned().unwrap_or(other),
                            None => {
                                json!({"error": format!("the memory provider that offered {external} is not available")})
                            }
                        }
                    }
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
                            let result = s.manage(&manage);
                            if args.get("action").and_then(Value::as_str) == Some("create")
                                && result.get("success") == Some(&Value::Bool(true))
                                && let Some(md) = result.get("skill_md").and_then(Value::as_str)
                                && let Some(dir) = std::path::Path::new(md).parent()
                            {
                                let name = args.get("name").and_then(Value::as_str).unwrap_or("");
                                self.skills_created
                                    .push((name.to_string(), dir.to_path_buf()));
                            }
                            result
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
        let mut approved_note: Option<String> = None;
        let mut refusal = None;
        // An answer may replace the command (`updatedInput`); the replacement is checked
        // like any other, and a host that keeps replacing is refused, not followed forever.
        let mut command = command;
        let mut rewrites = 0;
        loop {
            let check = if self.approvals == ApprovalMode::Untrusted {
                approval::check_untrusted(
                    &command,
                    &self.settings.deny_globs,
                    &self.settings.allowlist,
                )
            } else {
                approval::check(
                    &command,
                    &self.settings.deny_globs,
                    &self.settings.allowlist,
                )
            };
            let (rule, description) = match check {
                Check::Clear => break,
                Check::Hardline { description } => {
                    approval_item = Some(self.approval_item(&command, "hardline", "blocked"));
                    refusal = Some(blocked(approval::hardline_text(&description)));
                    break;
                }
                Check::Denied { pattern } => {
                    approval_item =
                        Some(self.approval_item(&command, &format!("deny:{pattern}"), "blocked"));
                    refusal = Some(blocked(approval::deny_glob_text(&pattern)));
                    break;
                }
                Check::Flagged { rule, description } => (rule, description),
            };
            let answer = if self.approved_rules.contains(&rule)
                || self
                    .session_rules
                    .iter()
                    .any(|r| approval::session_rule_allows(r, &rule, &command))
            {
                Answer::from(Decision::Session)
            } else {
                match self.approvals {
                    ApprovalMode::Allow | ApprovalMode::OnFailure => Decision::Once.into(),
                    ApprovalMode::Deny => Decision::Deny.into(),
                    ApprovalMode::Ask | ApprovalMode::Untrusted => {
                        let mut input = args.clone();
                        input.insert("command".into(), json!(command));
                        observer.answer(&ApprovalRequest {
                            tool_use_id: call.id.clone(),
                            command: command.clone(),
                            rule: rule.clone(),
                            description: description.clone(),
                            input: Value::Object(input),
                        })
                    }
                }
            };
            let decision = answer.decision;
            // "Always" at the terminal approves the rule; a host's allows say themselves what
            // they cover.
            if decision == Decision::Session && answer.session_rules.is_empty() {
                self.approved_rules.insert(rule.clone());
            }
            if decision != Decision::Deny {
                self.session_rules
                    .extend(answer.session_rules.iter().cloned());
            }
            let mut item = self.approval_item(&command, &rule, decision.as_str());
            if decision == Decision::Deny {
                approval_item = Some(item);
                if answer.interrupt {
                    self.answer_interrupted = true;
                    self.interrupt
                        .store(true, std::sync::atomic::Ordering::Relaxed);
                }
                let text = answer.message.clone().unwrap_or_else(|| {
                    approval::denied_text(
                        &rule,
                        &description,
                        matches!(self.approvals, ApprovalMode::Ask | ApprovalMode::Untrusted),
                    )
                });
                refusal = Some(blocked(text));
                break;
            }
            let how = match (decision, self.approvals) {
                (_, ApprovalMode::Allow) => "run under --approvals allow",
                (_, ApprovalMode::OnFailure) => "run in the sandbox (--approvals on-failure)",
                (Decision::Session, _) => "approved by the user for this session",
                _ => "approved by the user",
            };
            match answer.command.filter(|c| *c != command) {
                Some(replacement) => {
                    item.fields
                        .insert("updated_command".into(), json!(replacement));
                    approval_item = Some(item);
                    approved_note = Some(format!(
                        "Command was flagged ({rule}: {description}) and {how} with a change: \
                         this command ran instead: {replacement}"
                    ));
                    rewrites += 1;
                    if rewrites > MAX_REWRITES {
                        refusal = Some(blocked(format!(
                            "BLOCKED: the approval answers replaced the command more than \
                             {MAX_REWRITES} times; nothing ran."
                        )));
                        break;
                    }
                    command = replacement;
                }
                None => {
                    approval_item = Some(item);
                    let note = format!("Command was flagged ({rule}: {description}) and {how}.");
                    approved_note = Some(match approved_note.take() {
                        Some(earlier) => format!("{earlier} {note}"),
                        None => note,
                    });
                    break;
                }
            }
        }
        let refusal = match (&self.sandbox_error, refusal) {
            (_, Some(r)) => Some(r),
            (Some(why), None) => Some(blocked(format!("Command not run: {why}"))),
            (None, None) => None,
        };
        let mut args = args.clone();
        args.insert("command".into(), json!(command));
        let args = &args;
        let result = match refusal {
            Some(r) => r,
            None => {
                let mut result = crate::tools::terminal(&mut self.workspace, args, &self.interrupt);
                if self.approvals == ApprovalMode::OnFailure
                    && result.get("sandbox_denied") == Some(&json!(true))
                {
                    let denial = result
                        .get("error")
                        .and_then(Value::as_str)
                        .unwrap_or("the sandbox refused")
                        .to_string();
                    let decision = observer
                        .answer(&ApprovalRequest {
                            tool_use_id: call.id.clone(),
                            command: command.clone(),
                            rule: "sandbox".into(),
                            description: format!("{denial}; run it again outside the sandbox?"),
                            input: Value::Object(args.clone()),
                        })
                        .decision;
                    let item = self.approval_item(&command, "sandbox", decision.as_str());
                    observer.item_completed(&item);
                    if decision != Decision::Deny {
                        result = crate::tools::terminal_uncontained(
                            &mut self.workspace,
                            args,
                            &self.interrupt,
                        );
                        approved_note = Some(format!(
                            "The sandbox refused it ({denial}); run again outside the sandbox, approved by the user."
                        ));
                    }
                }
                // The approval stays on record with the result, in the store too.
                if let (Some(note), Value::Object(map)) = (&approved_note, &mut result) {
                    map.insert("approval".into(), json!(note));
                }
                result
            }
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

    /// Whether the last turn ended because an approval answer said `interrupt: true`; the
    /// interrupt is then over (the session goes on with the next turn).
    pub fn take_answer_interrupt(&mut self) -> bool {
        let was = std::mem::take(&mut self.answer_interrupted);
        if was {
            self.interrupt
                .store(false, std::sync::atomic::Ordering::Relaxed);
        }
        was
    }

    fn approval_item(&mut self, command: &str, rule: &str, decision: &str) -> Item {
        let id = self.next_item_id();
        Item::new(
            id,
            "approval",
            json!({"command": command, "rule": rule, "decision": decision}),
        )
    }

    /// Adds a variable to the environment of the model's commands (a secret just entered).
    pub fn add_tool_env(&mut self, name: &str, value: &str) {
        self.extra_env.retain(|(k, _)| k != name);
        self.extra_env.push((name.to_string(), value.to_string()));
        let vars: Vec<(String, String)> = std::env::vars()
            .filter(|(k, _)| !is_secret_variable(k))
            .collect();
        self.workspace.set_env(vars);
        for (k, v) in &self.extra_env {
            self.workspace.add_env(k, v);
        }
    }

    /// Rebuilds the session's sandbox with what the flags chose; the error says why the
    /// kernel cannot enforce it (or what in config.yaml is wrong).
    pub fn configure_sandbox(
        &mut self,
        choice: super::sandboxing::SandboxChoice,
    ) -> Result<std::sync::Arc<crate::sandbox::Sandbox>, super::sandboxing::SandboxSetupError> {
        let workspace = self.workspace.cwd().to_path_buf();
        let sandbox = super::sandboxing::build(&self.config, &self.home, &workspace, choice)?;
        self.workspace.set_sandbox(sandbox.clone());
        for (k, v) in &self.extra_env {
            self.workspace.add_env(k, v);
        }
        self.sandbox_error = None;
        Ok(sandbox)
    }

    /// The sandbox in force, if the kernel could build one.
    pub fn sandbox(&self) -> Option<&crate::sandbox::Sandbox> {
        self.workspace.sandbox()
    }

    /// Starts the memory provider of `memory.provider`, initialises it, takes its prompt
    /// block and tools. Any failure is a notice: the session goes on without it.
    fn start_provider(&mut self) {
        if self.provider.is_some() || self.provider_use == ProviderUse::Off {
            return;
        }
        let spec = match super::provider::spec(&self.home, &self.config) {
            Ok(Some(spec)) => spec,
            Ok(None) => return,
            Err(e) => {
                self.notices.push(e);
                return;
            }
        };
        let log = self.home.root().join("logs").join("memory-provider.log");
        let sandbox = match super::sandboxing::build_for_provider(
            &self.config,
            &self.home,
            &spec.name,
        ) {
            Ok(sandbox) => sandbox,
            Err(e) => {
                self.notices.push(format!(
                    "memory provider {} not started: {e} (memory.providers.{}.sandbox: full runs it uncontained)",
                    spec.name, spec.name
                ));
                return;
            }
        };
        let mut provider = match super::provider::Provider::start_in(&spec, &log, Some(&sandbox)) {
            Ok(p) => p,
            Err(e) => {
                self.notices.push(e);
                return;
            }
        };
        let context = match self.provider_use {
            ProviderUse::MirrorWrites => "background_review",
            _ => "primary",
        };
        let init = provider.request(
            "initialize",
            json!({"session_id": self.session_id, "hermes_home": self.home.root(),
                "platform": self.source, "agent_context": context,
                "cwd": self.workspace.cwd()}),
        );
        if self.provider_use == ProviderUse::MirrorWrites {
            match init {
                Ok(_) => self.provider = Some(provider),
                Err(notice) => self.notices.extend(notice),
            }
            return;
        }
        let steps = init
            .and_then(|_| provider.request("system_prompt_block", json!({})))
            .map(|b| super::provider::text_of(&b, "block"))
            .and_then(|block| {
                provider
                    .request("get_tool_schemas", json!({}))
                    .map(|tools| (block, tools))
            });
        match steps {
            Ok((block, tools)) => {
                self.provider_block = block;
                let schemas = match tools {
                    Value::Array(items) => items,
                    other => other
                        .get("tools")
                        .and_then(Value::as_array)
                        .cloned()
                        .unwrap_or_default(),
                };
                let refused = self.registry.add_external(schemas);
                if !refused.is_empty() {
                    self.notices.push(format!(
                        "memory provider {}: tool(s) {} refused (the names of core tools)",
                        provider.name,
                        refused.join(", ")
                    ));
                }
                self.provider = Some(provider);
            }
            Err(notice) => self.notices.extend(notice),
        }
    }

    /// A request to the provider; a failure becomes a notice and `None`.
    pub(super) fn provider_request(&mut self, method: &str, params: Value) -> Option<Value> {
        let provider = self.provider.as_mut()?;
        match provider.request(method, params) {
            Ok(v) => Some(v),
            Err(notice) => {
                self.notices.extend(notice);
                None
            }
        }
    }

    pub(super) fn provider_notify(&mut self, method: &str, params: Value) {
        if let Some(provider) = self.provider.as_mut()
            && let Some(notice) = provider.notify(method, params)
        {
            self.notices.push(notice);
        }
    }

    /// Compaction by rotation (`compression.in_place: false`): the old session ends with
    /// `compression`, a child session (same source, the parent's title with ` #N`) holds the
    /// compacted transcript, and the run goes on in the child. Returns the new rows' ids.
    pub(super) fn rotate_session(
        &mut self,
        messages: &[Message],
    ) -> Result<Vec<i64>, crate::sessions::Error> {
        let parent = self.session_id.clone();
        let now = self.clock.now();
        live::end_session(&mut self.db, &parent, "compression", now)?;
        let child = self.fresh_session_id().map_err(|e| match e {
            SetupError::Sessions(e) => e,
            other => crate::sessions::Error::Sql {
                context: other.to_string(),
                source: rusqlite::Error::InvalidQuery,
            },
        })?;
        let title = live::head(&self.db, &parent)?.and_then(|h| h.title);
        self.create_row(&child, Some(&parent), None, now)?;
        if let Some(title) = title {
            live::set_title_if_empty(&mut self.db, &child, &title)?;
        }
        let mut ids = Vec::with_capacity(messages.len());
        for m in messages {
            ids.push(live::append_message(
                &mut self.db,
                &child,
                m,
                m.timestamp.unwrap_or(now),
            )?);
        }
        self.session_id = child;
        Ok(ids)
    }

    pub(super) fn provider_is_full(&self) -> bool {
        self.provider_use == ProviderUse::Full
    }

    /// Notes for the person since the last call.
    pub fn take_notices(&mut self) -> Vec<String> {
        std::mem::take(&mut self.notices)
    }

    /// Mirrors a successful `memory` call to the provider, one `on_memory_write` per
    /// operation, with its provenance.
    fn mirror_memory_write(&mut self, args: &Map<String, Value>, call_id: &str) {
        if self.provider.is_none() {
            return;
        }
        let target = args
            .get("target")
            .and_then(Value::as_str)
            .unwrap_or("memory")
            .to_string();
        let ops: Vec<Value> = match args.get("operations").and_then(Value::as_array) {
            Some(ops) => ops.clone(),
            None => vec![Value::Object(args.clone())],
        };
        for op in ops {
            let Some(action) = op
                .get("action")
                .and_then(Value::as_str)
                .filter(|a| ["add", "replace", "remove"].contains(a))
            else {
                continue;
            };
            let (origin, context) = match self.provider_use {
                ProviderUse::MirrorWrites => ("background_review", "background_review"),
                _ => ("assistant_tool", "foreground"),
            };
            let mut metadata = json!({"write_origin": origin, "execution_context": context,
                "session_id": self.session_id, "platform": self.source, "tool_name": "memory",
                "tool_call_id": call_id});
            if let Some(old) = op.get("old_text").and_then(Value::as_str) {
                metadata["old_text"] = json!(old);
            }
            self.provider_notify(
                "on_memory_write",
                json!({"action": action, "target": target,
                    "content": op.get("content").and_then(Value::as_str).unwrap_or(""),
                    "metadata": metadata}),
            );
        }
    }

    pub fn library(&self) -> &Library {
        &self.library
    }

    pub fn memory_store(&self) -> Option<&MemoryStore> {
        self.memory.as_ref()
    }

    /// `/new`: ends this session (`new_session`) and starts a fresh one with a rebuilt prompt
    /// (new date, memory and skills re-read). The row is written at its first turn.
    pub fn start_new_session(&mut self) -> Result<(), SetupError> {
        self.end("new_session")?;
        if let Some(store) = self.memory.as_mut() {
            let limits = store.limits();
            *store = MemoryStore::load(&self.home, limits)?;
        }
        self.messages.clear();
        self.session_created = false;
        self.resumed = false;
        self.session_id = self.fresh_session_id()?;
        self.build_prompt();
        self.counters = Counters::new(&self.settings);
        self.calls_without_usage = 0;
        Ok(())
    }

    /// Takes the last user turn back, from the model's context and from the store alike
    /// (upstream's `/retry` leaves the store untouched and `/undo` rewinds it by position,
    /// so the two diverge, quirk Q4). Returns the turn's text and how many messages went.
    pub fn rewind_last_turn(&mut self) -> Result<Option<(String, usize)>, crate::sessions::Error> {
        let Some(at) = self
            .messages
            .iter()
            .rposition(|m| m.is(crate::llm::Role::User))
        else {
            return Ok(None);
        };
        let removed: Vec<Message> = self.messages.drain(at..).collect();
        if let Some(id) = removed[0].stored_id {
            live::rewind_to_message(&mut self.db, &self.session_id, id)?;
        }
        Ok(Some((removed[0].content.clone(), removed.len())))
    }

    /// `/model NAME`: the next calls go to NAME; the prompt's `Model:` line says so (the only
    /// bytes of the prompt that change).
    pub fn switch_model(&mut self, model: &str) -> Result<(), crate::sessions::Error> {
        self.prompt_ready();
        let old = format!("\nModel: {}\n", self.endpoint.model);
        let new = format!("\nModel: {model}\n");
        if let Some(at) = self.system_prompt.rfind(&old) {
            self.system_prompt.replace_range(at..at + old.len(), &new);
        }
        self.endpoint.model = model.to_string();
        if self.session_created {
            live::set_system_prompt(&mut self.db, &self.session_id, &self.system_prompt)?;
        }
        Ok(())
    }

    /// The session's token totals so far.
    pub fn usage_totals(&self) -> Result<[i64; 6], crate::sessions::Error> {
        if !self.session_created {
            return Ok([0; 6]);
        }
        live::usage_totals(&self.db, &self.session_id)
    }

    /// The conversation as review input lines: the system prompt as sent first (so a review
    /// on the same model can reuse its bytes), then the messages.
    pub fn transcript_lines(&self) -> Vec<Value> {
        std::iter::once(json!({"role": "system", "content": self.wire_system_prompt()}))
            .chain(self.messages.iter().map(Message::to_line))
            .collect()
    }
}

/// Variables that hold credentials of the agent's own endpoints.
fn is_secret_variable(name: &str) -> bool {
    name.ends_with("_API_KEY")
        || name == "HERMES_API_KEY"
        || name.ends_with("_TOKEN") && name.starts_with("HERMES")
}

/// FNV-1a, for ids that only need to be spread out.
/// The system prompt's skills index and how many skills it offers: only skills whose
/// `requires_tools` the agent has, and none that are a fallback for a tool it has.
fn skills_index_for(library: &Library, tools: &BTreeSet<String>) -> (String, usize) {
    let options = crate::skills::prompt::PromptOptions {
        tools: Some(tools.clone()),
        ..Default::default()
    };
    let index = crate::skills::prompt::collect(library, &options);
    let count = index.skills.len();
    (
        crate::skills::prompt::render(&index, &Default::default()),
        count,
    )
}

pub fn fnv(text: &str) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_skills_index_offers_only_skills_the_agent_has_the_tools_for() {
        let Ok(dir) = tempfile::tempdir() else {
            panic!("temp dir")
        };
        let skill = |name: &str, hermes: &str| {
            let folder = dir.path().join("skills/ops").join(name);
            std::fs::create_dir_all(&folder).unwrap_or_default();
            let text = format!(
                "---\nname: {name}\ndescription: The {name} skill.\nmetadata:\n  hermes:\n{hermes}---\n# {name}\n"
            );
            std::fs::write(folder.join("SKILL.md"), text).unwrap_or_default();
        };
        skill("plain-one", "    tags: [ops]\n");
        skill("needs-browser", "    requires_tools: [browser_navigate]\n");
        skill("no-terminal", "    fallback_for_tools: [terminal]\n");
        skill("needs-terminal", "    requires_tools: [terminal]\n");
        let Ok(library) = Library::open(Home::at(dir.path())) else {
            panic!("library")
        };
        let tools: BTreeSet<String> = ["terminal", "read_file"].map(String::from).into();
        let (index, count) = skills_index_for(&library, &tools);
        assert_eq!(count, 2);
        assert!(
            index.contains(
                "<available_skills>\n  ops:\n    - needs-terminal: The needs-terminal skill.\n    - plain-one: The plain-one skill.\n</available_skills>\n"
            ),
            "{index}"
        );
    }

    use crate::agent::events::Decision;
    use crate::agent::testing::{self, Recorder, agent, agent_with};
    use crate::llm::testing::{answer, tool_call};

    fn ids_like_hermes(id: &str) -> bool {
        let b = id.as_bytes();
        b.len() == 22
            && b[8] == b'_'
            && b[15] == b'_'
            && id[..8].bytes().all(|c| c.is_ascii_digit())
            && id[9..15].bytes().all(|c| c.is_ascii_digit())
            && id[16..]
                .bytes()
                .all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c))
    }

    #[test]
    fn the_session_row_is_written_at_the_first_turn_with_the_runs_settings() {
        let mut t = agent(vec![answer("ok")]);
        let id = t.agent.session_id.clone();
        assert!(ids_like_hermes(&id), "{id}");
        assert!(matches!(live::session_exists(&t.agent.db, &id), Ok(false)));
        assert_eq!(t.agent.usage_totals().ok(), Some([0; 6]));
        t.turn("hi");
        assert_eq!(
            t.column("model_config"),
            "{\"max_iterations\": 90, \"reasoning_config\": null, \"max_tokens\": null}"
        );
        assert_eq!(t.column("started_at"), json!(testing::NOW));
        assert_eq!(t.column("source"), "cli");
        assert_eq!(t.column("parent_session_id"), Value::Null);
        assert_eq!(t.column("cwd"), json!(t.work().display().to_string()));
        assert_eq!(t.column("end_reason"), Value::Null);
    }

    #[test]
    fn the_reasoning_setting_is_recorded_as_python_records_it() {
        for (effort, want) in [
            ("high", "{\"enabled\": true, \"effort\": \"high\"}"),
            ("none", "{\"enabled\": false, \"effort\": \"none\"}"),
        ] {
            let mut t = agent_with("agent: {max_turns: 7}\n", vec![answer("ok")], |p| {
                p.endpoint.reasoning_effort = Some(effort.into());
            });
            t.turn("hi");
            assert_eq!(
                t.column("model_config"),
                json!(format!(
                    "{{\"max_iterations\": 7, \"reasoning_config\": {want}, \"max_tokens\": null}}"
                ))
            );
            assert_eq!(t.sent()[0]["reasoning_effort"], effort);
        }
    }

    #[test]
    fn a_fixed_clock_names_sessions_the_same_way_and_a_taken_name_is_not_reused() {
        let one = agent(vec![answer("ok")]);
        let two = agent(vec![answer("ok")]);
        assert_eq!(one.agent.session_id, two.agent.session_id);
        let mut first = agent(vec![answer("ok")]);
        first.turn("hi");
        let (parts, _) = testing::parts(first.dir.path(), "", vec![]);
        let Ok(second) = Agent::new(parts) else {
            panic!("second agent")
        };
        assert_ne!(second.session_id, first.agent.session_id);
        assert_eq!(second.session_id[..15], first.agent.session_id[..15]);
    }

    #[test]
    fn a_resumed_session_goes_on_with_its_transcript_and_its_stored_prompt() {
        let mut t = agent(vec![answer("first answer")]);
        t.turn("first question");
        let id = t.agent.session_id.clone();
        let stored_prompt = format!(
            "{}\nA line only the stored prompt has.",
            t.agent.system_prompt()
        );
        let set = live::set_system_prompt(&mut t.agent.db, &id, &stored_prompt);
        assert!(set.is_ok());
        t.agent.end("cli_close").ok();
        let (parts, bodies) = testing::parts(t.dir.path(), "", vec![answer("second answer")]);
        let Ok(mut resumed) = Agent::resume(parts, &id[..18]) else {
            panic!("resume")
        };
        assert!(resumed.resumed);
        assert_eq!(resumed.session_id, id);
        assert_eq!(resumed.system_prompt(), stored_prompt);
        let Ok(outcome) = resumed.run_turn("second question", &mut Recorder::default()) else {
            panic!("turn")
        };
        assert_eq!(outcome.answer.as_deref(), Some("second answer"));
        let sent = bodies.lock().map(|b| b.clone()).unwrap_or_default();
        assert_eq!(
            sent[0]["messages"],
            json!([{"role": "system", "content": stored_prompt},
                {"role": "user", "content": "first question"},
                {"role": "assistant", "content": "first answer"},
                {"role": "user", "content": "second question"}])
        );
        let head = live::head(&resumed.db, &id).ok().flatten();
        assert_eq!(head.and_then(|h| h.end_reason), None);
    }

    #[test]
    fn a_stored_prompt_for_another_model_is_rebuilt_on_resume() {
        let mut t = agent(vec![answer("a")]);
        t.turn("q");
        let id = t.agent.session_id.clone();
        let (mut parts, _) = testing::parts(t.dir.path(), "", vec![]);
        parts.endpoint.model = "m2".into();
        let Ok(mut resumed) = Agent::resume(parts, &id) else {
            panic!("resume")
        };
        let prompt = resumed.system_prompt().to_string();
        assert!(prompt.contains("\nModel: m2\n"), "{prompt}");
        let head = live::head(&resumed.db, &id).ok().flatten();
        assert_eq!(head.and_then(|h| h.system_prompt), Some(prompt));
    }

    #[test]
    fn resuming_or_continuing_what_is_not_there_is_an_error() {
        let t = agent(vec![]);
        let (parts, _) = testing::parts(t.dir.path(), "", vec![]);
        let Err(e) = Agent::resume(parts, "nope") else {
            panic!("resumed nothing")
        };
        assert_eq!(e.to_string(), "Session not found: nope");
        let (parts, _) = testing::parts(t.dir.path(), "", vec![]);
        let Err(e) = Agent::continue_newest(parts) else {
            panic!("continued nothing")
        };
        assert_eq!(e.to_string(), "Session not found: no cli session yet");
        let (parts, _) = testing::parts(t.dir.path(), "", vec![]);
        let Err(e) = Agent::fork(parts, "nope") else {
            panic!("forked nothing")
        };
        assert_eq!(e.to_string(), "Session not found: nope");
    }

    #[test]
    fn continue_takes_the_newest_session_of_the_source() {
        let mut t = agent(vec![answer("a")]);
        t.turn("q");
        let id = t.agent.session_id.clone();
        let (parts, _) = testing::parts(t.dir.path(), "", vec![]);
        let Ok(continued) = Agent::continue_newest(parts) else {
            panic!("continue")
        };
        assert_eq!(continued.session_id, id);
        assert_eq!(continued.messages.len(), 2);
        let (mut parts, _) = testing::parts(t.dir.path(), "", vec![]);
        parts.source = "telegram".into();
        assert!(Agent::continue_newest(parts).is_err());
    }

    #[test]
    fn a_fork_copies_the_transcript_into_a_child_that_names_its_origin() {
        let mut t = agent(vec![answer("a")]);
        t.turn("q");
        let from = t.agent.session_id.clone();
        let (parts, _) = testing::parts(t.dir.path(), "", vec![]);
        let Ok(fork) = Agent::fork(parts, &from) else {
            panic!("fork")
        };
        assert_ne!(fork.session_id, from);
        let live_pairs: Vec<(String, String)> = fork
            .messages
            .iter()
            .map(|m| (m.role_str().to_string(), m.content.clone()))
            .collect();
        assert_eq!(
            live_pairs,
            [
                ("user".to_string(), "q".to_string()),
                ("assistant".into(), "a".into())
            ]
        );
        let row: Result<(Option<String>, Option<String>), _> = fork.db.conn().query_row(
            "SELECT parent_session_id, model_config FROM sessions WHERE id = ?1",
            [&fork.session_id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        );
        let Ok((parent, config)) = row else {
            panic!("fork row")
        };
        assert_eq!(parent.as_deref(), Some(from.as_str()));
        assert_eq!(
            config,
            Some(format!(
                "{{\"max_iterations\": 90, \"reasoning_config\": null, \"max_tokens\": null, \"_branched_from\": \"{from}\"}}"
            ))
        );
    }

    #[test]
    fn ending_records_the_first_reason_and_a_session_never_started_writes_nothing() {
        let mut t = agent(vec![answer("a")]);
        assert!(t.agent.end("cli_close").is_ok());
        assert!(matches!(
            live::session_exists(&t.agent.db, &t.agent.session_id),
            Ok(false)
        ));
        t.turn("q");
        assert!(t.agent.end("user_exit").is_ok());
        assert!(t.agent.end("cli_close").is_ok());
        assert_eq!(t.column("end_reason"), "user_exit");
        assert_eq!(t.column("ended_at"), json!(testing::NOW));
    }

    #[test]
    fn rewinding_takes_the_last_turn_out_of_the_context_and_the_store() {
        let mut t = agent(vec![
            answer("one"),
            tool_call("skills_list", "{}"),
            answer("two"),
        ]);
        assert!(matches!(t.agent.rewind_last_turn(), Ok(None)));
        t.turn("first");
        t.turn("second");
        let Ok(Some((text, removed))) = t.agent.rewind_last_turn() else {
            panic!("rewind")
        };
        assert_eq!((text.as_str(), removed), ("second", 4));
        let want = [
            ("user".to_string(), "first".to_string()),
            ("assistant".into(), "one".into()),
        ];
        assert_eq!(t.live(), want);
        assert_eq!(t.stored(), want);
    }

    #[test]
    fn switching_model_changes_the_model_line_the_calls_and_the_stored_prompt() {
        let mut t = agent(vec![answer("a"), answer("b")]);
        t.turn("q");
        let before = t.agent.system_prompt().to_string();
        assert!(t.agent.switch_model("m2").is_ok());
        let after = t.agent.system_prompt().to_string();
        assert_eq!(after, before.replace("\nModel: m1\n", "\nModel: m2\n"));
        assert_ne!(after, before);
        assert_eq!(t.column("system_prompt"), json!(after));
        t.turn("q2");
        assert_eq!(t.sent()[1]["model"], "m2");
        assert_eq!(t.sent()[1]["messages"][0]["content"], json!(after));
    }

    #[test]
    fn the_ephemeral_text_is_sent_after_the_prompt_and_never_stored() {
        let mut t = agent_with("", vec![answer("a")], |p| {
            p.ephemeral = "  Preloaded skill: x  \n".into();
        });
        t.turn("q");
        let prompt = t.agent.system_prompt().to_string();
        let sent = format!("{prompt}\n\nPreloaded skill: x");
        assert_eq!(t.sent()[0]["messages"][0]["content"], json!(sent));
        assert_eq!(t.column("system_prompt"), json!(prompt));
        assert_eq!(
            t.agent.transcript_lines()[0],
            json!({"role": "system", "content": sent})
        );
        assert_eq!(t.agent.transcript_lines().len(), 3);

        let mut t = agent_with("", vec![answer("a")], |p| p.ephemeral = " \n ".into());
        t.turn("q");
        let prompt = t.agent.system_prompt().to_string();
        assert_eq!(t.sent()[0]["messages"][0]["content"], json!(prompt));
    }

    #[test]
    fn a_new_session_ends_the_old_one_and_starts_empty() {
        let mut t = agent(vec![answer("a"), answer("b")]);
        t.turn("q");
        let old = t.agent.session_id.clone();
        assert!(t.agent.start_new_session().is_ok());
        assert_ne!(t.agent.session_id, old);
        assert!(t.agent.messages.is_empty());
        assert!(!t.agent.resumed);
        let ended = live::head(&t.agent.db, &old).ok().flatten();
        assert_eq!(
            ended.and_then(|h| h.end_reason).as_deref(),
            Some("new_session")
        );
        t.turn("q2");
        assert_eq!(t.stored().len(), 2);
        assert_eq!(t.sent()[1]["messages"].as_array().map(Vec::len), Some(2));
    }

    #[test]
    fn the_agents_own_keys_are_kept_from_the_models_shell() {
        assert!(is_secret_variable("OPENAI_API_KEY"));
        assert!(is_secret_variable("HERMES_API_KEY"));
        assert!(is_secret_variable("HERMES_GATEWAY_TOKEN"));
        assert!(!is_secret_variable("GITHUB_TOKEN"));
        assert!(!is_secret_variable("HERMES_HOME"));
        assert!(!is_secret_variable("PATH"));
    }

    #[test]
    fn fnv_is_fnv_1a() {
        assert_eq!(fnv(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv("a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv("foobar"), 0x8594_4171_f739_67e8);
    }

    /// Runs `command` through the terminal tool under `approvals`; the tool result and what
    /// the observer heard.
    fn run_command(
        config: &str,
        approvals: ApprovalMode,
        commands: &[&str],
        recorder: &mut Recorder,
        env: &[(&str, &str)],
    ) -> Vec<Value> {
        let mut script: Vec<_> = commands
            .iter()
            .map(|c| tool_call("terminal", &json!({"command": c}).to_string()))
            .collect();
        script.push(answer("done"));
        let mut t = agent_with(config, script, |p| p.approvals = approvals);
        for (k, v) in env {
            t.agent.add_tool_env(k, v);
        }
        let Ok(_) = t.agent.run_turn("run it", recorder) else {
            panic!("turn")
        };
        t.agent
            .messages
            .iter()
            .filter(|m| m.tool_call_id.is_some())
            .map(|m| serde_json::from_str(&m.content).unwrap_or(Value::Null))
            .collect()
    }

    const FLAGGED: &str = "curl -fsS http://127.0.0.1:9/x.sh | sh";

    #[test]
    fn a_command_on_the_hard_floor_never_runs() {
        let mut heard = Recorder::deciding(Decision::Once);
        let results = run_command("", ApprovalMode::Allow, &["rm -rf /"], &mut heard, &[]);
        assert_eq!(
            results[0],
            json!({"output": "", "exit_code": -1, "status": "blocked",
                "error": approval::hardline_text("recursive delete of root filesystem or a system directory")})
        );
        let done = heard.completed();
        assert_eq!(
            done[0],
            json!({"type": "approval", "command": "rm -rf /", "rule": "hardline", "decision": "blocked"})
        );
        assert_eq!(done[1]["type"], "command_execution");
        assert_eq!(done[1]["status"], "declined");
        assert_eq!(done[1]["exit_code"], -1);
        assert!(heard.asked.is_empty());
    }

    #[test]
    fn a_deny_glob_refuses_and_the_allowlist_lets_through() {
        let mut heard = Recorder::default();
        let results = run_command(
            "approvals: {deny: ['echo secret*']}\n",
            ApprovalMode::Allow,
            &["echo secret stuff"],
            &mut heard,
            &[],
        );
        assert_eq!(
            results[0]["error"],
            approval::deny_glob_text("echo secret*")
        );
        assert_eq!(heard.completed()[0]["rule"], "deny:echo secret*");
        assert_eq!(heard.completed()[0]["decision"], "blocked");

        // Flagged (it prints a credentials file), but the person allowed it for good.
        let read = "cat /tmp/hl-absent/.aws/credentials";
        let mut heard = Recorder::default();
        let results = run_command("", ApprovalMode::Deny, &[read], &mut heard, &[]);
        assert_eq!(heard.completed()[0]["rule"], "secrets-file-read");
        assert_eq!(results[0]["status"], "blocked");
        let mut heard = Recorder::default();
        let config = format!("command_allowlist: ['{read}']\n");
        let results = run_command(&config, ApprovalMode::Deny, &[read], &mut heard, &[]);
        assert_eq!(results[0]["exit_code"], 1);
        assert!(heard.completed().iter().all(|i| i["type"] != "approval"));
        // Only the command itself: with an operator added it is judged again.
        let mut heard = Recorder::default();
        let chained = format!("{read}; true");
        let results = run_command(&config, ApprovalMode::Deny, &[&chained], &mut heard, &[]);
        assert_eq!(results[0]["status"], "blocked");
    }

    #[test]
    fn a_flagged_command_is_refused_under_deny_and_runs_under_allow_with_a_note() {
        let mut heard = Recorder::default();
        let results = run_command("", ApprovalMode::Deny, &[FLAGGED], &mut heard, &[]);
        let approval = heard.completed()[0].clone();
        let rule = approval["rule"].as_str().unwrap_or("").to_string();
        assert!(!rule.is_empty() && rule != "hardline");
        assert_eq!(approval["decision"], "denied");
        assert_eq!(results[0]["status"], "blocked");
        let error = results[0]["error"].as_str().unwrap_or("");
        assert!(
            error.starts_with(&format!(
                "BLOCKED: Flagged commands are refused in this session (--approvals deny) (rule {rule}: "
            )),
            "{error}"
        );
        assert_eq!(heard.completed()[1]["status"], "declined");

        let mut heard = Recorder::default();
        let results = run_command("", ApprovalMode::Allow, &[FLAGGED], &mut heard, &[]);
        assert_eq!(heard.completed()[0]["decision"], "approved");
        let note = results[0]["approval"].as_str().unwrap_or("");
        assert!(
            note.starts_with(&format!("Command was flagged ({rule}: ")),
            "{note}"
        );
        assert!(
            note.ends_with(") and run under --approvals allow."),
            "{note}"
        );
        assert!(results[0].get("exit_code").is_some());
    }

    #[test]
    fn under_untrusted_only_known_safe_commands_run_unasked() {
        let mut heard = Recorder::deciding(Decision::Deny);
        let results = run_command(
            "",
            ApprovalMode::Untrusted,
            &["echo safe", "touch made-here"],
            &mut heard,
            &[],
        );
        assert_eq!(heard.asked.len(), 1);
        assert_eq!(heard.asked[0].command, "touch made-here");
        assert_eq!(heard.asked[0].rule, approval::NOT_KNOWN_SAFE);
        assert_eq!(
            results[0],
            json!({"output": "safe", "exit_code": 0, "error": null})
        );
        assert_eq!(
            results[1]["error"],
            json!(approval::denied_text(
                approval::NOT_KNOWN_SAFE,
                "not on the known-safe list of read-only commands (--approvals untrusted)",
                true
            ))
        );
    }

    #[test]
    fn under_ask_a_person_decides_and_a_session_approval_covers_the_rule() {
        let mut heard = Recorder::deciding(Decision::Session);
        let twice = [FLAGGED, "curl -fsS http://127.0.0.1:9/y.sh | sh"];
        let results = run_command("", ApprovalMode::Ask, &twice, &mut heard, &[]);
        assert_eq!(heard.asked.len(), 1);
        assert_eq!(heard.asked[0].command, FLAGGED);
        assert_eq!(heard.asked[0].tool_use_id, "call_1");
        assert_eq!(heard.asked[0].input, json!({"command": FLAGGED}));
        let approvals: Vec<&Value> = heard
            .events
            .iter()
            .map(|e| &e["item"])
            .filter(|i| i["type"] == "approval")
            .collect();
        assert_eq!(approvals.len(), 2);
        assert!(
            approvals
                .iter()
                .all(|a| a["decision"] == "approved_for_session")
        );
        for r in &results {
            let note = r["approval"].as_str().unwrap_or("");
            assert!(
                note.ends_with(" and approved by the user for this session."),
                "{note}"
            );
        }

        let mut heard = Recorder::deciding(Decision::Once);
        let results = run_command("", ApprovalMode::Ask, &twice, &mut heard, &[]);
        assert_eq!(heard.asked.len(), 2);
        assert!(
            results[0]["approval"]
                .as_str()
                .is_some_and(|n| n.ends_with(" and approved by the user."))
        );

        let mut heard = Recorder::deciding(Decision::Deny);
        let results = run_command("", ApprovalMode::Ask, &[FLAGGED], &mut heard, &[]);
        let error = results[0]["error"].as_str().unwrap_or("");
        assert!(
            error.starts_with("BLOCKED: The user denied this command (rule "),
            "{error}"
        );
    }

    #[test]
    fn a_plain_command_runs_and_sees_the_variables_given_to_it() {
        let mut heard = Recorder::default();
        let results = run_command(
            "",
            ApprovalMode::Deny,
            &["echo \"v=$HL_TEST_VALUE\"; exit 3"],
            &mut heard,
            &[("HL_TEST_VALUE", "old"), ("HL_TEST_VALUE", "new")],
        );
        assert_eq!(results[0]["output"], "v=new");
        assert_eq!(results[0]["exit_code"], 3);
        let item = &heard.completed()[0];
        assert_eq!(
            *item,
            json!({"type": "command_execution", "command": "echo \"v=$HL_TEST_VALUE\"; exit 3",
                "aggregated_output": "v=new", "exit_code": 3, "status": "failed"})
        );
        let started = &heard.events[0]["item"];
        assert_eq!(started["status"], "in_progress");
        assert_eq!(started["type"], "command_execution");
    }

    #[test]
    fn file_writes_report_their_paths_and_kind() {
        let mut t = agent(vec![
            tool_call("write_file", r#"{"path": "a.txt", "content": "one\n"}"#),
            tool_call(
                "patch",
                r#"{"path": "a.txt", "old_string": "one", "new_string": "two"}"#,
            ),
            tool_call(
                "patch",
                r#"{"path": "a.txt", "old_string": "absent", "new_string": "x"}"#,
            ),
            answer("done"),
        ]);
        let (_, heard) = t.turn("edit");
        let done = heard.completed();
        let path = json!(t.work().join("a.txt").display().to_string());
        let relative = json!("a.txt");
        let changes = |i: usize| done[i]["changes"][0]["path"].clone();
        assert_eq!(done[0]["type"], "file_change");
        assert_eq!(done[0]["status"], "completed");
        assert_eq!(done[0]["changes"][0]["kind"], "add");
        assert!(
            changes(0) == path || changes(0) == relative,
            "{}",
            changes(0)
        );
        assert_eq!(done[1]["changes"][0]["kind"], "update");
        assert_eq!(done[1]["status"], "completed");
        assert_eq!(done[2]["status"], "failed");
        assert_eq!(
            std::fs::read_to_string(t.work().join("a.txt"))
                .ok()
                .as_deref(),
            Some("two\n")
        );
    }

    /// Answers every call with the value it was built with.
    struct Fixed(Value);

    impl ToolHook for Fixed {
        fn call(&mut self, _: &str, _: &Value) -> Value {
            self.0.clone()
        }
    }

    #[test]
    fn a_tool_hook_answers_every_call_and_its_failures_are_failed_items() {
        for (result, status) in [
            (json!({"success": true}), "completed"),
            (json!({"success": false}), "failed"),
            (json!({"error": "no"}), "failed"),
            (json!({"anything": 1}), "completed"),
        ] {
            let mut t = agent(vec![
                tool_call("terminal", r#"{"command": "rm -rf /"}"#),
                answer("ok"),
            ]);
            t.agent.set_tool_hook(Box::new(Fixed(result.clone())));
            let (_, heard) = t.turn("go");
            assert_eq!(
                heard.completed()[0],
                json!({"type": "tool_call", "name": "terminal",
                    "arguments": {"command": "rm -rf /"},
                    "result": pyjson::tool_result(&result), "status": status})
            );
        }
    }

    #[test]
    fn a_created_skill_is_remembered_for_learn() {
        let body = "---\nname: tidy-logs\ndescription: Rotate and compress old logs.\n---\n# Tidy logs\n\n1. Run logrotate.\n";
        let args = json!({"action": "create", "name": "tidy-logs", "content": body}).to_string();
        let mut t = agent(vec![tool_call("skill_manage", &args), answer("Saved.")]);
        let (_, heard) = t.turn("remember how");
        assert_eq!(
            heard.completed()[0]["status"],
            "completed",
            "{:?}",
            heard.completed()
        );
        assert_eq!(t.agent.skills_created.len(), 1);
        assert_eq!(t.agent.skills_created[0].0, "tidy-logs");
        assert!(t.agent.skills_created[0].1.join("SKILL.md").is_file());
        assert!(t.agent.skills_created[0].1.ends_with("tidy-logs"));
    }

    #[test]
    fn memory_writes_go_to_the_store_and_count_for_the_review() {
        let args = r#"{"action": "add", "target": "user", "content": "Prefers French."}"#;
        let mut t = agent(vec![tool_call("memory", args), answer("Noted.")]);
        let (_, heard) = t.turn("I prefer French");
        assert_eq!(heard.completed()[0]["status"], "completed");
        let user = std::fs::read_to_string(t.dir.path().join("memories/USER.md"));
        assert_eq!(user.ok().as_deref(), Some("Prefers French."));
    }

    use crate::agent::provider::tests::{config_for, sent};

    /// A log file for the fake provider, outside the agent's home.
    fn provider_log() -> (tempfile::TempDir, std::path::PathBuf) {
        let Ok(dir) = tempfile::tempdir() else {
            panic!("temp dir")
        };
        let log = dir.path().join("sent.jsonl");
        (dir, log)
    }

    fn methods(log: &std::path::Path) -> Vec<String> {
        sent(log)
            .iter()
            .map(|l| l["method"].as_str().unwrap_or("?").to_string())
            .collect()
    }

    #[test]
    fn a_provider_writes_only_where_its_sandbox_lets_it() {
        // Without `writable`, the folder of its log is outside what it may write; with
        // `sandbox: full` it writes anywhere.
        for (extra, logged) in [("", false), ("      sandbox: full\n", true)] {
            let (_keep, log) = provider_log();
            let config = config_for(&log).replace(
                &format!("      writable: ['{}']\n", _keep.path().display()),
                extra,
            );
            let mut t = agent_with(&config, vec![answer("Tea.")], |p| {
                p.provider_use = ProviderUse::Full
            });
            t.turn("What do I drink?");
            t.agent.end("test").ok();
            assert_eq!(!methods(&log).is_empty(), logged, "{extra:?}");
        }
    }

    #[test]
    fn a_provider_gives_its_block_tools_and_recall_and_hears_each_turn() {
        let (_keep, log) = provider_log();
        let mut t = agent_with(
            &config_for(&log),
            vec![tool_call("fact_lookup", "{}"), answer("Tea.")],
            |p| p.provider_use = ProviderUse::Full,
        );
        let (outcome, heard) = t.turn("What do I drink?");
        assert_eq!(outcome.answer.as_deref(), Some("Tea."));
        assert_eq!(
            heard.notices,
            ["memory provider fake: tool(s) terminal refused (the names of core tools)"]
        );
        let prompt = t.agent.system_prompt().to_string();
        assert!(
            prompt.contains("\n\nPROVIDER KNOWS: the user likes tea\n\nConversation started: "),
            "{prompt}"
        );
        let body = &t.sent()[0];
        let tools = testing::tool_names(body);
        assert!(
            tools.iter().any(|t| t == "fact_lookup") && tools.len() == 13,
            "{tools:?}"
        );
        let recalled = format!(
            "What do I drink?\n\n<memory-context>\n{}\n\nThe user likes tea.\n</memory-context>",
            crate::agent::fence::SYSTEM_NOTE
        );
        assert_eq!(body["messages"][1]["content"], json!(recalled));
        assert_eq!(t.stored()[0], ("user".into(), "What do I drink?".into()));
        assert_eq!(t.agent.messages[2].content, "tea, always");
        assert_eq!(
            heard.completed()[0],
            json!({"type": "tool_call", "name": "fact_lookup", "arguments": {},
                "result": "tea, always", "status": "completed"})
        );
        assert!(t.agent.end("cli_close").is_ok());
        let id = t.agent.session_id.clone();
        let home = t.dir.path().display().to_string();
        let lines = sent(&log);
        assert_eq!(
            methods(&log),
            [
                "initialize",
                "system_prompt_block",
                "get_tool_schemas",
                "prefetch",
                "handle_tool_call",
                "sync_turn",
                "shutdown"
            ]
        );
        assert_eq!(
            lines[0]["params"],
            json!({"session_id": id, "hermes_home": home, "platform": "cli",
                "agent_context": "primary", "cwd": t.work().display().to_string()})
        );
        assert_eq!(
            lines[3]["params"],
            json!({"query": "What do I drink?", "session_id": id})
        );
        assert_eq!(
            lines[4]["params"],
            json!({"name": "fact_lookup", "arguments": {}})
        );
        assert_eq!(
            lines[5]["params"],
            json!({"user": "What do I drink?", "assistant": "Tea.", "session_id": id})
        );
    }

    #[test]
    fn memory_writes_are_mirrored_with_their_provenance_and_failures_are_not() {
        let (_keep, log) = provider_log();
        let add = r#"{"action": "add", "target": "user", "content": "Drinks tea."}"#;
        let bad =
            r#"{"action": "replace", "target": "user", "old_text": "absent", "content": "x"}"#;
        let mut t = agent_with(
            &config_for(&log),
            vec![
                tool_call("memory", add),
                tool_call("memory", bad),
                answer("Noted."),
            ],
            |p| p.provider_use = ProviderUse::Full,
        );
        t.turn("I drink tea");
        let id = t.agent.session_id.clone();
        let writes: Vec<Value> = sent(&log)
            .into_iter()
            .filter(|l| l["method"] == "on_memory_write")
            .collect();
        assert_eq!(
            writes,
            [
                json!({"method": "on_memory_write", "params": {"action": "add", "target": "user",
                "content": "Drinks tea.", "metadata": {"write_origin": "assistant_tool",
                "execution_context": "foreground", "session_id": id, "platform": "cli",
                "tool_name": "memory", "tool_call_id": "call_1"}}})
            ]
        );
    }

    #[test]
    fn a_review_only_mirrors_its_memory_writes() {
        let (_keep, log) = provider_log();
        let replace = r#"{"action": "replace", "target": "memory", "old_text": "tabs", "content": "Uses spaces."}"#;
        let mut t = agent_with(
            &config_for(&log),
            vec![tool_call("memory", replace), answer("Saved.")],
            |p| {
                p.provider_use = ProviderUse::MirrorWrites;
                p.source = "review".into();
            },
        );
        t.agent
            .set_tool_hook(Box::new(Fixed(json!({"success": true}))));
        t.turn("review this");
        let lines = sent(&log);
        assert_eq!(methods(&log), ["initialize", "on_memory_write"]);
        assert_eq!(lines[0]["params"]["agent_context"], "background_review");
        assert_eq!(lines[0]["params"]["platform"], "review");
        assert_eq!(
            lines[1]["params"]["metadata"]["write_origin"],
            "background_review"
        );
        assert_eq!(
            lines[1]["params"]["metadata"]["execution_context"],
            "background_review"
        );
        assert_eq!(lines[1]["params"]["metadata"]["old_text"], "tabs");
        assert_eq!(lines[1]["params"]["action"], "replace");
        assert!(!t.agent.system_prompt().contains("PROVIDER KNOWS"));
    }

    #[test]
    fn a_provider_that_cannot_start_is_a_notice_and_the_run_goes_on() {
        let mut t = agent_with(
            "memory:\n  provider: gone\n  providers:\n    gone:\n      command: [/nonexistent/provider]\n",
            vec![answer("fine")],
            |p| p.provider_use = ProviderUse::Full,
        );
        let (outcome, heard) = t.turn("hi");
        assert_eq!(outcome.answer.as_deref(), Some("fine"));
        assert_eq!(heard.notices.len(), 1);
        assert!(
            heard.notices[0]
                .starts_with("cannot start memory provider gone (/nonexistent/provider): "),
            "{:?}",
            heard.notices
        );
        let mut t = agent_with("memory: {provider: nowhere}\n", vec![answer("fine")], |p| {
            p.provider_use = ProviderUse::Full
        });
        let (_, heard) = t.turn("hi");
        assert_eq!(heard.notices.len(), 1);
        assert!(heard.notices[0].starts_with("memory.provider is 'nowhere' but neither"));
        // Off: not even started.
        let (_keep, log) = provider_log();
        let mut t = agent_with(&config_for(&log), vec![answer("fine")], |_| {});
        let (_, heard) = t.turn("hi");
        assert!(heard.notices.is_empty());
        assert!(sent(&log).is_empty());
    }

    #[test]
    fn the_providers_notes_join_the_compaction_request() {
        let (_keep, log) = provider_log();
        let config = format!("{}model: {{context_length: 80000}}\n", config_for(&log));
        let mut t = testing::after_four_big_turns(&config, "The summary.", |p| {
            p.provider_use = ProviderUse::Full
        });
        let mut outcome = crate::agent::TurnOutcome::default();
        let done = t
            .agent
            .compact_now(&mut Recorder::default(), &mut outcome, 1);
        assert!(matches!(done, Ok(true)));
        let request = &t.sent()[4]["messages"][0]["content"];
        let text = request.as_str().unwrap_or("");
        assert!(
            text.ends_with("\n\nNOTES FROM THE MEMORY PROVIDER:\nkeep the tea"),
            "{}",
            &text[text.len().saturating_sub(200)..]
        );
        let pre: Vec<Value> = sent(&log)
            .into_iter()
            .filter(|l| l["method"] == "on_pre_compress")
            .collect();
        assert_eq!(pre.len(), 1);
        let middle = pre[0]["params"]["messages"].as_array().map(Vec::len);
        assert_eq!(middle, Some(3));
    }

    #[test]
    fn a_fixed_clock_holds_still_and_the_system_clock_moves() {
        let fixed = Clock::new(Some(12.5));
        assert!(fixed.is_fixed());
        assert_eq!(fixed.now(), 12.5);
        let system = Clock::new(None);
        assert!(!system.is_fixed());
        assert!(system.now() > 1_700_000_000.0);
    }

    #[test]
    fn memory_is_loaded_only_when_a_store_is_on_and_the_tool_offered() {
        let Ok(dir) = tempfile::tempdir() else {
            panic!("temp dir")
        };
        std::fs::create_dir_all(dir.path().join("memories")).unwrap_or_default();
        std::fs::write(dir.path().join("memories/USER.md"), "Prefers tea.").unwrap_or_default();
        let prompt_with = |yaml: &str, tools: Option<&[&str]>| {
            let (mut parts, _) = testing::parts(dir.path(), yaml, vec![]);
            parts.registry = Registry::new(tools);
            let Ok(mut agent) = Agent::new(parts) else {
                panic!("agent")
            };
            (
                agent.system_prompt().contains("Prefers tea."),
                agent.memory_store().is_some(),
            )
        };
        assert_eq!(prompt_with("", None), (true, true));
        assert_eq!(prompt_with("", Some(&["terminal"])), (false, false));
        assert_eq!(
            prompt_with(
                "memory: {memory_enabled: false, user_profile_enabled: false}\n",
                None
            ),
            (false, false)
        );
        assert_eq!(
            prompt_with("memory: {memory_enabled: false}\n", None),
            (true, true)
        );
    }

    #[test]
    fn the_ids_and_the_prompts_date_are_of_the_runs_time() {
        let mut t = agent(vec![]);
        // 1,780,000,000 s after the epoch is in May 2026 in every time zone.
        assert!(
            t.agent.session_id.starts_with("2026"),
            "{}",
            t.agent.session_id
        );
        let prompt = t.agent.system_prompt().to_string();
        assert!(prompt.contains(", 2026\nModel: m1\n"), "{prompt}");
    }

    #[test]
    fn the_prompt_watch_is_taken_once_and_tells_what_was_loaded() {
        let mut t = agent(vec![]);
        let Some(watch) = t.agent.take_prompt_watch() else {
            panic!("no watch")
        };
        let loaded = watch.recv().ok();
        assert_eq!(loaded.as_ref(), Some(t.agent.prompt_ready()));
        assert!(t.agent.take_prompt_watch().is_none());
    }

    #[test]
    fn a_prompt_set_from_outside_is_what_is_sent() {
        let mut t = agent(vec![answer("a")]);
        t.agent.set_system_prompt("Only this.".into());
        t.turn("q");
        assert_eq!(t.sent()[0]["messages"][0]["content"], "Only this.");
        assert_eq!(t.column("system_prompt"), "Only this.");
    }

    #[test]
    fn one_skills_tool_is_enough_for_the_skills_index() {
        let Ok(dir) = tempfile::tempdir() else {
            panic!("temp dir")
        };
        let folder = dir.path().join("skills/tidy");
        std::fs::create_dir_all(&folder).unwrap_or_default();
        std::fs::write(
            folder.join("SKILL.md"),
            "---\nname: tidy\ndescription: Tidy up.\n---\nTidy.\n",
        )
        .unwrap_or_default();
        let index_with = |tools: &[&str]| {
            let (mut parts, _) = testing::parts(dir.path(), "", vec![]);
            parts.registry = Registry::new(Some(tools));
            let Ok(mut agent) = Agent::new(parts) else {
                panic!("agent")
            };
            (
                agent.system_prompt().contains("- tidy: Tidy up."),
                agent.prompt_ready().skills,
            )
        };
        assert_eq!(index_with(&["skill_view"]), (true, 1));
        assert_eq!(index_with(&["skills_list"]), (true, 1));
        assert_eq!(index_with(&["terminal"]), (false, 0));
    }

    #[test]
    fn after_forgetting_reads_a_file_is_shown_again() {
        let read = || tool_call("read_file", r#"{"path": "a.txt"}"#);
        let mut t = agent(vec![
            read(),
            answer("1"),
            read(),
            answer("2"),
            read(),
            answer("3"),
        ]);
        std::fs::write(t.work().join("a.txt"), "alpha\n").unwrap_or_default();
        let result =
            |t: &testing::TestAgent| t.agent.messages[t.agent.messages.len() - 2].content.clone();
        t.turn("read");
        assert!(result(&t).contains("1|alpha"));
        t.turn("again");
        assert!(
            result(&t).contains("\"status\": \"unchanged\""),
            "{}",
            result(&t)
        );
        t.agent.forget_reads();
        t.turn("once more");
        assert!(result(&t).contains("1|alpha"), "{}", result(&t));
    }

    #[test]
    fn a_failed_write_is_a_failed_item_whatever_its_shape() {
        let mut t = agent(vec![tool_call("write_file", "{}"), answer("no")]);
        let (_, heard) = t.turn("write");
        assert_eq!(
            heard.completed()[0],
            json!({"type": "file_change", "changes": [{"path": null, "kind": "add"}], "status": "failed"})
        );
    }

    #[test]
    fn the_models_shell_keeps_the_ordinary_environment() {
        let mut heard = Recorder::default();
        let results = run_command(
            "",
            ApprovalMode::Deny,
            &["echo \"${HOME:+home} ${PATH:+path}\""],
            &mut heard,
            &[],
        );
        assert_eq!(results[0]["output"], "home path");
    }

    #[test]
    fn only_successful_memory_calls_are_mirrored_from_a_hook() {
        let (_keep, log) = provider_log();
        let add = r#"{"action": "add", "target": "memory", "content": "x"}"#;
        let mut t = agent_with(
            &config_for(&log),
            vec![
                tool_call("memory", add),
                tool_call("write_file", add),
                answer("done"),
            ],
            |p| p.provider_use = ProviderUse::MirrorWrites,
        );
        t.agent
            .set_tool_hook(Box::new(Fixed(json!({"success": false, "error": "full"}))));
        t.turn("go");
        assert_eq!(methods(&log), ["initialize"]);
        let (_keep, log) = provider_log();
        let mut t = agent_with(
            &config_for(&log),
            vec![tool_call("write_file", add), answer("done")],
            |p| p.provider_use = ProviderUse::MirrorWrites,
        );
        t.agent
            .set_tool_hook(Box::new(Fixed(json!({"success": true}))));
        t.turn("go");
        assert_eq!(methods(&log), ["initialize"]);
    }

    #[test]
    fn a_provider_tools_answer_is_its_text_its_object_or_its_refusal() {
        let (_keep, log) = provider_log();
        let mut t = agent_with(
            &config_for(&log),
            vec![
                tool_call("fact_list", "{}"),
                tool_call("fact_refused", "{}"),
                answer("ok"),
            ],
            |p| p.provider_use = ProviderUse::Full,
        );
        let (_, heard) = t.turn("facts?");
        let done = heard.completed();
        assert_eq!(
            (done[0]["result"].clone(), done[0]["status"].clone()),
            (json!("{\"facts\": [\"tea\"]}"), json!("completed"))
        );
        assert_eq!(
            (done[1]["result"].clone(), done[1]["status"].clone()),
            (json!("{\"error\": \"not today\"}"), json!("failed"))
        );
    }

    #[test]
    fn variables_given_to_the_shell_add_up_and_keep_the_rest() {
        let mut heard = Recorder::default();
        let results = run_command(
            "",
            ApprovalMode::Deny,
            &["echo \"$HL_A $HL_B ${HOME:+home}\""],
            &mut heard,
            &[("HL_A", "a"), ("HL_B", "b")],
        );
        assert_eq!(results[0]["output"], "a b home");
    }
}
