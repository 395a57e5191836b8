//! One review: the conversation in, the model's memory and skill changes made (or proposed)
//! through the review's tools, and the records `hermes-review` prints out.
//!
//! Same model as the chat, with the chat's system prompt at hand: the request is the chat's
//! last request (same system prompt bytes, same tools, the whole conversation) plus the
//! review's own user message, so the provider's prompt cache serves the prefix. Another model
//! (`--model`/`--provider` or `auxiliary.background_review.*`): a prompt of our own, only the
//! four review tools, and the digest of long conversations (reference `loop` §1.3-§1.5).
//! Either way the calls go through the agent's tool loop with a budget of 16 model calls,
//! and nothing of the review's own conversation is stored in state.db (§1.10): the agent
//! gets an in-memory session store.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::{Arc, Mutex};

use anyhow::Context;
use serde_json::{Value, json};

use super::digest;
use super::input::Conversation;
use super::prompts::{self, Kind};
use super::summary::{self, Notify};
use super::tools::{self, Log, ReviewTools, Scratch};
use super::transport::{self, Counting, DryRun, Sent};
use crate::agent::events::Observer;
use crate::agent::registry::Registry;
use crate::agent::session::ProviderUse;
use crate::agent::{Agent, AgentParts, AgentSettings, ApprovalMode, Clock};
use crate::home::{Config, Home};
use crate::llm::cassette::Placeholders;
use crate::llm::{Client, Endpoint, RetryPolicy, Transport};
use crate::memory::{self, Limits, MemoryStore};
use crate::sessions::{Db, migrate};
use crate::skills::library::Library;

/// Model calls a review may make (upstream's `max_iterations=16`).
pub const BUDGET: u32 = 16;

/// Everything a review needs besides the conversation and the transport.
pub struct Setup {
    pub home: Home,
    pub config: Config,
    pub endpoint: Endpoint,
    /// Another model than the chat's: own prompt, four tools, digest.
    pub routed: bool,
    pub kind: Kind,
    pub notify: Notify,
    pub propose: bool,
    pub dry_run: bool,
    pub clock: Clock,
    pub cwd: PathBuf,
    pub quiet: bool,
}

/// What one review produced.
#[derive(Debug, Default)]
pub struct Report {
    /// `action` (or `read`/`proposal`) records, then one `summary` record.
    pub records: Vec<Value>,
    /// The one-line reason the review failed, when it did.
    pub failure: Option<String>,
    /// `--dry-run`: the request that would have been sent.
    pub request: Option<Value>,
}

/// The machine-specific values a cassette hides (as hermes-chat hides them, so a review of
/// a chat's conversation records the same placeholders).
pub fn placeholders(home: &Path, cwd: &Path) -> Placeholders {
    crate::llm::connect::placeholders(&crate::home::Home::at(home), cwd)
}

/// A copy of the home's stores for `--propose`, removed when dropped.
pub struct ScratchHome {
    pub root: PathBuf,
}

impl ScratchHome {
    /// Copies `skills/` (without curator backups) and `memories/`.
    pub fn copy_of(home: &Home) -> std::io::Result<ScratchHome> {
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let root =
            std::env::temp_dir().join(format!("hermes-review-{}-{stamp}", std::process::id()));
        std::fs::create_dir_all(&root)?;
        let scratch = ScratchHome { root };
        for dir in ["skills", "memories"] {
            let from = home.root().join(dir);
            if from.is_dir() {
                copy_tree(&from, &scratch.root.join(dir))?;
            }
        }
        Ok(scratch)
    }
}

impl Drop for ScratchHome {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let name = entry.file_name();
        if name == ".curator_backups" {
            continue;
        }
        let kind = entry.file_type()?;
        let target = to.join(&name);
        if kind.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else if kind.is_symlink() {
            let link = std::fs::read_link(entry.path())?;
            std::os::unix::fs::symlink(link, &target)?;
        } else {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

struct Notes {
    quiet: bool,
}

impl Observer for Notes {
    fn notice(&mut self, text: &str) {
        if !self.quiet {
            eprintln!("hermes-review: {text}");
        }
    }
}

/// The stores the review works on: the home, or a scratch copy of it.
fn stores(home: &Home, config: &Config) -> anyhow::Result<(Library, Option<MemoryStore>)> {
    let library = Library::new(
        home.clone(),
        config.clone(),
        crate::skills::runtime::Runtime::detect(config),
    );
    let store = if memory::available(&config.memory) {
        Some(
            MemoryStore::load(home, Limits::from_config(&config.memory))
                .context("cannot read memory")?,
        )
    } else {
        None
    };
    Ok((library, store))
}

fn skill_names(library: &Library) -> Vec<(String, String)> {
    if !library.roots.local.is_dir() {
        return Vec::new();
    }
    let listed = crate::skills::list::skills_list_tool(library, None);
    listed
        .get("skills")
        .and_then(Value::as_array)
        .map(|rows| {
            rows.iter()
                .map(|r| {
                    let text = |k: &str| r.get(k).and_then(Value::as_str).unwrap_or("").to_string();
                    (text("name"), text("description"))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Runs one review of `conversation`, the model answering through `transport`.
pub fn review(
    setup: &Setup,
    conversation: &Conversation,
    transport: Box<dyn Transport>,
    scratch: Option<&ScratchHome>,
) -> anyhow::Result<Report> {
    let kind = Kind {
        memory: setup.kind.memory && memory::available(&setup.config.memory),
        skills: setup.kind.skills,
    };
    let work_home = match scratch {
        Some(s) => Home::at(s.root.clone()),
        None => setup.home.clone(),
    };
    let (library, store) = stores(&work_home, &setup.config)?;
    let holdings = prompts::holdings(store.as_ref(), &skill_names(&library), kind);
    let request = prompts::request(kind, &holdings);

    let seen = Arc::new(Mutex::new(None));
    let (transport, sent): (Box<dyn Transport>, Arc<Mutex<Sent>>) = if setup.dry_run {
        let dry = DryRun { seen: seen.clone() };
        let (counting, sent) = Counting::new(Box::new(dry));
        (Box::new(counting), sent)
    } else {
        let (counting, sent) = Counting::new(transport);
        (Box::new(counting), sent)
    };
    let mut settings = AgentSettings::from_config(&setup.config);
    settings.max_turns = BUDGET;
    settings.compression.enabled = false;
    settings.memory_nudge_interval = 0;
    settings.skill_nudge_interval = 0;
    let client = Client::new(
        transport,
        RetryPolicy {
            attempts: settings.api_max_retries,
            backoff_base: settings.retry_backoff,
        },
        Arc::new(std::sync::atomic::AtomicBool::new(false)),
    );
    let mut db = Db::create(Path::new(":memory:"), Default::default())
        .context("cannot open the review's scratch session store")?;
    migrate::ensure_schema(&mut db).context("cannot prepare the scratch session store")?;

    // The chat's prompt is reused only on the chat's own model: a prompt that names another
    // model or provider (the chat ran with `-m`) is not, whatever config.yaml says.
    let chat_prompt = conversation.system_prompt.clone().filter(|p| {
        !setup.routed
            && (!p.lines().any(|l| l.starts_with("Model: "))
                || crate::agent::prompt::reusable(
                    p,
                    &setup.endpoint.model,
                    &setup.endpoint.provider,
                ))
    });
    let registry = if chat_prompt.is_some() {
        // The chat's own tools, so the request prefix is byte for byte the chat's.
        Registry::new(None)
    } else {
        let mut names: Vec<&str> = tools::WHITELIST.to_vec();
        if !memory::available(&setup.config.memory) {
            names.retain(|n| *n != "memory");
        }
        Registry::new(Some(&names))
    };
    // The agent's own prompt is built from the real home: a scratch copy holds the same
    // stores, and its path must not reach the model.
    let parts = AgentParts {
        home: setup.home.clone(),
        config: setup.config.clone(),
        settings,
        endpoint: setup.endpoint.clone(),
        client,
        db,
        cwd: setup.cwd.clone(),
        source: "review".into(),
        approvals: ApprovalMode::Deny,
        registry,
        interrupt: Arc::new(std::sync::atomic::AtomicBool::new(false)),
        clock: setup.clock,
        ignore_rules: false,
        ephemeral: String::new(),
        // The review's own conversation is not the user's: the provider only hears of the
        // memory writes it makes (never of proposals, which write to a scratch copy).
        provider_use: if setup.propose {
            ProviderUse::Off
        } else {
            ProviderUse::MirrorWrites
        },
    };
    let mut agent = Agent::new(parts).context("cannot set the review up")?;
    if let Some(prompt) = chat_prompt {
        agent.set_system_prompt(prompt);
    }
    agent.messages = if setup.routed {
        digest::digest(&conversation.messages)
    } else {
        conversation.messages.clone()
    };
    for m in &mut agent.messages {
        m.stored_id = None;
    }
    let log = Rc::new(RefCell::new(Log::default()));
    let scratch_info = scratch.map(|s| Scratch {
        root: s.root.clone(),
        home: setup.home.root().to_path_buf(),
    });
    let mut tools = ReviewTools::new(library, store, log.clone(), scratch_info);
    if super::approval::gate_on(&setup.config) {
        tools.stage_memory_in(work_home.clone(), setup.clock.now());
    }
    agent.set_tool_hook(Box::new(tools));
    let mut notes = Notes { quiet: setup.quiet };
    let outcome = agent
        .run_turn(&request, &mut notes)
        .context("the review's scratch session store failed")?;
    drop(agent);

    let mut report = Report::default();
    if setup.dry_run {
        report.request = seen.lock().ok().and_then(|mut s| s.take());
        return Ok(report);
    }
    let log = log.borrow();
    if setup.propose {
        report.records.extend(log.proposals.iter().cloned());
    } else {
        for a in &log.actions {
            report.records.push(json!({"type": "action", "tool": a.tool,
                "arguments": a.arguments, "result": a.result}));
        }
    }
    let writes = log.actions.iter().filter(|a| summary::is_write(a)).count();
    let mut line = summary::line(&log.actions, setup.notify);
    if setup.propose {
        line = line.map(|l| {
            l.replacen(
                summary::PREFIX,
                "💡 Self-improvement review (proposed, nothing written): ",
                1,
            )
        });
    }
    let mut failure = outcome.error.clone();
    if failure.is_none() && outcome.api_calls > BUDGET {
        failure = Some(format!(
            "the review spent its budget of {BUDGET} model calls"
        ));
    }
    let sent = sent.lock().map(|s| *s).unwrap_or_default();
    report.records.push(json!({
        "type": "summary",
        "line": line,
        "writes": if setup.propose { 0 } else { writes },
        "proposals": if setup.propose { writes } else { 0 },
        "calls": log.actions.len(),
        "requests": sent.requests,
        "bytes_sent": sent.bytes,
        "routed": setup.routed,
        "reply": outcome.answer,
        "error": failure,
    }));
    report.failure = failure;
    Ok(report)
}

/// Whether a failure is the end of a dry run rather than a real one.
pub fn is_dry_run_end(failure: &str) -> bool {
    failure.contains(transport::DRY_RUN)
}
