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
use super::handoff;
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
    dir: tempfile::TempDir,
}

impl ScratchHome {
    /// Copies `skills/` (without curator backups) and `memories/`.
    pub fn copy_of(home: &Home) -> std::io::Result<ScratchHome> {
        let scratch = ScratchHome {
            dir: tempfile::Builder::new()
                .prefix("hermes-review-")
                .tempdir()?,
        };
        for dir in ["skills", "memories"] {
            let from = home.root().join(dir);
            if from.is_dir() {
                copy_tree(&from, &scratch.root().join(dir))?;
            }
        }
        Ok(scratch)
    }

    /// Where the copy is.
    pub fn root(&self) -> &Path {
        self.dir.path()
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
        Some(s) => Home::at(s.root()),
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
        root: s.root().to_path_buf(),
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

/// After one review (not a dry run): its outcome in `logs/review.log`, and the hand-off
/// file it read removed when it was one (a proposal leaves it for the real review). A log
/// that cannot be written is said on stderr; the review's own outcome stands.
pub fn log_outcome(
    home: &Home,
    input: Option<&Path>,
    session_id: Option<&str>,
    reviewed: &anyhow::Result<(Setup, Report)>,
    propose: bool,
) {
    let outcome = match reviewed {
        Ok((_, report)) => match &report.failure {
            Some(why) => handoff::Outcome::Failed(why.clone()),
            None => {
                let summary = report.records.last();
                let n = |k: &str| summary.and_then(|s| s.get(k)).and_then(Value::as_u64);
                handoff::Outcome::Done {
                    line: summary
                        .and_then(|s| s.get("line"))
                        .and_then(Value::as_str)
                        .map(str::to_string),
                    writes: n(if propose { "proposals" } else { "writes" }).unwrap_or(0),
                    requests: n("requests").unwrap_or(0),
                }
            }
        },
        Err(e) => handoff::Outcome::Failed(crate::io::exit::chain_text(e)),
    };
    let at = crate::clock::now().unwrap_or_else(|_| jiff::Timestamp::now());
    let line = handoff::log_line(at, &handoff::session_of(session_id, input), &outcome);
    if let Err(e) = handoff::log(home, &line) {
        eprintln!(
            "hermes-review: cannot write {}: {e}",
            home.review_log().display()
        );
        return;
    }
    if let Some(file) = input.filter(|f| !propose && handoff::is_handoff(home, f))
        && let Err(e) = std::fs::remove_file(file)
    {
        eprintln!("hermes-review: cannot remove {}: {e}", file.display());
    }
}

/// Whether a failure is the end of a dry run rather than a real one.
pub fn is_dry_run_end(failure: &str) -> bool {
    failure.contains(transport::DRY_RUN)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::llm::Message;
    use crate::llm::testing::{Bodies, Scripted, answer, endpoint, tool_call};

    /// A review of the home under `dir` on model `m1`, quiet, at a fixed time.
    pub(crate) fn setup(dir: &Path) -> Setup {
        Setup {
            home: Home::at(dir),
            config: Config::defaults(),
            endpoint: endpoint(),
            routed: false,
            kind: Kind {
                memory: true,
                skills: true,
            },
            notify: Notify::On,
            propose: false,
            dry_run: false,
            clock: Clock::new(Some(1_780_000_000.0)),
            cwd: dir.to_path_buf(),
            quiet: true,
        }
    }

    pub(crate) fn conversation() -> Conversation {
        Conversation {
            session_id: Some("s1".into()),
            system_prompt: None,
            messages: vec![
                Message::user("Please always answer me in French."),
                Message::assistant("D'accord."),
            ],
        }
    }

    /// Runs one review of [`conversation`] against `script`; the report and the bodies.
    pub(crate) fn run(
        setup: &Setup,
        script: Vec<Result<crate::llm::Completion, crate::llm::LlmError>>,
    ) -> (Report, Bodies) {
        let model = Scripted::new(script);
        let bodies = model.bodies();
        let Ok(report) = review(setup, &conversation(), Box::new(model), None) else {
            panic!("the review runs")
        };
        (report, bodies)
    }

    fn sent_bytes(bodies: &Bodies) -> u64 {
        let bodies = bodies.lock().expect("bodies");
        bodies
            .iter()
            .map(|b| serde_json::to_vec(b).map_or(0, |v| v.len() as u64))
            .sum()
    }

    fn tool_names(body: &Value) -> Vec<String> {
        body["tools"]
            .as_array()
            .map(|tools| {
                tools
                    .iter()
                    .filter_map(|t| t["function"]["name"].as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    }

    #[test]
    fn a_memory_write_is_an_action_and_the_summary_counts_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (report, bodies) = run(
            &setup(dir.path()),
            vec![
                tool_call(
                    "memory",
                    r#"{"action": "add", "target": "user", "content": "Answers in French."}"#,
                ),
                answer("Saved the language preference."),
            ],
        );
        assert_eq!(report.failure, None);
        assert_eq!(report.request, None);
        let result = json!({"success": true, "done": true, "target": "user",
            "usage": "1% — 18/1,375 chars", "entry_count": 1, "message": "Entry added.",
            "note": "Write saved. This update is complete — do not repeat it."});
        assert_eq!(
            report.records,
            [
                json!({"type": "action", "tool": "memory",
                    "arguments": {"action": "add", "target": "user", "content": "Answers in French."},
                    "result": result}),
                json!({"type": "summary", "line": "💾 Self-improvement review: User profile updated",
                    "writes": 1, "proposals": 0, "calls": 1, "requests": 2,
                    "bytes_sent": sent_bytes(&bodies), "routed": false,
                    "reply": "Saved the language preference.", "error": null}),
            ]
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("memories/USER.md"))
                .ok()
                .as_deref(),
            Some("Answers in French.")
        );
        let bodies = bodies.lock().expect("bodies");
        // No chat prompt to reuse: the agent's own prompt and the four review tools, the
        // conversation, then the review's request; the second call carries the result.
        assert_eq!(
            tool_names(&bodies[0]),
            ["memory", "skill_manage", "skill_view", "skills_list"]
        );
        let first = bodies[0]["messages"].as_array().expect("messages");
        assert_eq!(first.len(), 4);
        assert_eq!(
            first[1],
            json!({"role": "user", "content": "Please always answer me in French."})
        );
        assert_eq!(
            first[2],
            json!({"role": "assistant", "content": "D'accord."})
        );
        let request = first[3]["content"].as_str().unwrap_or("");
        assert!(request.starts_with("Review the conversation above for two things worth keeping"));
        assert!(request.contains("\nUSER.md: (empty)\nMEMORY.md: (empty)\nSkills: (none)\n"));
        let second = bodies[1]["messages"].as_array().expect("messages");
        assert_eq!(second.len(), 6);
        assert_eq!(second[5]["role"], "tool");
        assert_eq!(second[5]["tool_call_id"], "call_1");
        assert_eq!(
            serde_json::from_str::<Value>(second[5]["content"].as_str().unwrap_or("")).ok(),
            Some(result)
        );
    }

    #[test]
    fn with_write_approval_on_a_memory_write_is_staged_for_a_person() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut gated = setup(dir.path());
        gated.config = Config::from_yaml("memory:\n  write_approval: true\n");
        let (report, _) = run(
            &gated,
            vec![
                tool_call(
                    "memory",
                    r#"{"action": "add", "target": "user", "content": "Answers in French."}"#,
                ),
                answer("Staged."),
            ],
        );
        let result = &report.records[0]["result"];
        assert_eq!(result["staged"], true);
        assert_eq!(result["message"], super::super::approval::STAGED_MESSAGE);
        assert!(!dir.path().join("memories/USER.md").exists());
        let pending = std::fs::read_dir(dir.path().join("pending/memory"))
            .map(|d| d.count())
            .unwrap_or(0);
        assert_eq!(pending, 1);
    }

    #[test]
    fn nothing_to_save_writes_nothing_and_says_nothing() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (report, bodies) = run(&setup(dir.path()), vec![answer("Nothing to save.")]);
        assert_eq!(
            report.records,
            [
                json!({"type": "summary", "line": null, "writes": 0, "proposals": 0,
                "calls": 0, "requests": 1, "bytes_sent": sent_bytes(&bodies),
                "routed": false, "reply": "Nothing to save.", "error": null})
            ]
        );
        assert!(!dir.path().join("memories/USER.md").exists());
    }

    #[test]
    fn a_dry_run_keeps_the_request_and_sends_nothing() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut dry = setup(dir.path());
        dry.dry_run = true;
        let (report, bodies) = run(&dry, vec![answer("never sent")]);
        assert!(bodies.lock().expect("bodies").is_empty());
        assert!(report.records.is_empty());
        assert_eq!(report.failure, None);
        let Some(request) = report.request else {
            panic!("the request is kept")
        };
        assert_eq!(request["model"], "m1");
        assert_eq!(request["messages"].as_array().map(Vec::len), Some(4));
    }

    #[test]
    fn a_proposal_is_recorded_and_the_home_is_left_alone() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut propose = setup(dir.path());
        propose.propose = true;
        let Ok(scratch) = ScratchHome::copy_of(&propose.home) else {
            panic!("scratch home")
        };
        let model = Scripted::new(vec![
            tool_call(
                "memory",
                r#"{"action": "add", "target": "user", "content": "Answers in French."}"#,
            ),
            answer("Proposed."),
        ]);
        let Ok(report) = review(&propose, &conversation(), Box::new(model), Some(&scratch)) else {
            panic!("the review runs")
        };
        assert_eq!(
            report.records[0],
            json!({"type": "proposal", "tool": "memory",
                "arguments": {"action": "add", "target": "user", "content": "Answers in French."},
                "diff": "--- /dev/null\n+++ b/memories/USER.md\n@@ -0,0 +1 @@\n+Answers in French.\n\\ No newline at end of file\n"})
        );
        assert!(!dir.path().join("memories/USER.md").exists());
        let summary = report.records.last().cloned().unwrap_or_default();
        assert_eq!(summary["writes"], 0);
        assert_eq!(summary["proposals"], 1);
        assert_eq!(
            summary["line"],
            "💡 Self-improvement review (proposed, nothing written): User profile updated"
        );
    }

    #[test]
    fn a_routed_review_has_its_own_prompt_and_only_the_review_tools() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut routed = setup(dir.path());
        routed.routed = true;
        let (report, bodies) = run(&routed, vec![answer("Nothing to save.")]);
        assert_eq!(
            report.records.last().map(|r| r["routed"].clone()),
            Some(json!(true))
        );
        let bodies = bodies.lock().expect("bodies");
        assert_eq!(
            tool_names(&bodies[0]),
            ["memory", "skill_manage", "skill_view", "skills_list"]
        );
    }

    #[test]
    fn a_review_that_keeps_calling_tools_ends_at_its_budget() {
        let dir = tempfile::tempdir().expect("tempdir");
        let script = (0..20)
            .map(|_| tool_call("skills_list", "{}"))
            .collect::<Vec<_>>();
        let (report, bodies) = run(&setup(dir.path()), script);
        let failure = "reached the limit of 16 model calls without an answer";
        assert_eq!(report.failure.as_deref(), Some(failure));
        assert_eq!(report.records.len(), 16 + 1);
        assert_eq!(
            report.records.last().cloned(),
            Some(
                json!({"type": "summary", "line": null, "writes": 0, "proposals": 0,
                "calls": 16, "requests": 17, "bytes_sent": sent_bytes(&bodies),
                "routed": false, "reply": null, "error": failure})
            )
        );
    }

    /// The budget is 16 model calls: a review that answers on its 16th is whole, one that
    /// needs a 17th is reported as having spent it.
    #[test]
    fn a_review_may_use_its_whole_budget_and_not_one_call_more() {
        for (tool_calls, error) in [
            (15, Value::Null),
            (16, json!("the review spent its budget of 16 model calls")),
        ] {
            let dir = tempfile::tempdir().expect("tempdir");
            let mut script = (0..tool_calls)
                .map(|_| tool_call("skills_list", "{}"))
                .collect::<Vec<_>>();
            script.push(answer("Nothing to save."));
            let (report, bodies) = run(&setup(dir.path()), script);
            assert_eq!(
                report.records.last().cloned(),
                Some(
                    json!({"type": "summary", "line": null, "writes": 0, "proposals": 0,
                    "calls": tool_calls, "requests": tool_calls + 1,
                    "bytes_sent": sent_bytes(&bodies), "routed": false,
                    "reply": "Nothing to save.", "error": error})
                )
            );
            assert_eq!(report.failure.as_deref(), error.as_str());
        }
    }

    #[test]
    fn with_memory_off_the_review_asks_about_skills_only_and_offers_no_memory_tool() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut off = setup(dir.path());
        off.config =
            Config::from_yaml("memory:\n  memory_enabled: false\n  user_profile_enabled: false\n");
        let (report, bodies) = run(&off, vec![answer("Nothing to save.")]);
        assert_eq!(report.failure, None);
        let bodies = bodies.lock().expect("bodies");
        assert_eq!(
            tool_names(&bodies[0]),
            ["skill_manage", "skill_view", "skills_list"]
        );
        let Some(request) = bodies[0]["messages"]
            .as_array()
            .and_then(|m| m.last())
            .and_then(|m| m["content"].as_str())
        else {
            panic!("a request")
        };
        assert!(request.starts_with(
            "Review the conversation above and decide whether the skill library should learn from it."
        ));
        assert!(request.contains(
            "\nWhat is already saved (check it before any add or create):\nSkills: (none)\n"
        ));
    }

    #[test]
    fn a_dry_runs_end_is_told_from_a_failure() {
        assert!(is_dry_run_end(&format!(
            "model call failed: {}",
            transport::DRY_RUN
        )));
        assert!(!is_dry_run_end("model call failed: connection refused"));
    }

    #[test]
    fn a_cassette_hides_the_home_and_the_folder() {
        let hidden = placeholders(Path::new("/srv/u/.hermes"), Path::new("/srv/work"))
            .hide("read /srv/u/.hermes/skills/x from /srv/work");
        assert_eq!(hidden, "read {{hermes_home}}/skills/x from {{cwd}}");
    }

    /// A proposal works on a copy of the skills (links kept as links, curator backups left
    /// behind) and of memory; the copy goes when it is dropped.
    #[test]
    fn the_scratch_copy_holds_the_stores_without_backups_and_goes_when_dropped() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        let write = |rel: &str, text: &str| {
            let path = dir.path().join(rel);
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("folders");
            std::fs::write(path, text).expect("written");
        };
        write("skills/a/SKILL.md", "skill a");
        write("skills/a/references/r.md", "ref");
        write("skills/.curator_backups/old.tar.gz", "backup");
        write("memories/USER.md", "user");
        write("sessions/x.jsonl", "not copied");
        std::os::unix::fs::symlink("a", dir.path().join("skills/b")).expect("link");
        let root = {
            let scratch = ScratchHome::copy_of(&home).expect("a copy");
            let mut files: Vec<String> = walkdir::WalkDir::new(scratch.root())
                .into_iter()
                .filter_map(Result::ok)
                .filter(|e| !e.file_type().is_dir())
                .map(|e| {
                    let rel = e.path().strip_prefix(scratch.root()).expect("inside");
                    rel.display().to_string()
                })
                .collect();
            files.sort();
            assert_eq!(
                files,
                [
                    "memories/USER.md",
                    "skills/a/SKILL.md",
                    "skills/a/references/r.md",
                    "skills/b"
                ]
            );
            let link = std::fs::read_link(scratch.root().join("skills/b")).expect("a link");
            assert_eq!(link, Path::new("a"));
            assert_eq!(
                std::fs::read_to_string(scratch.root().join("skills/a/references/r.md"))
                    .expect("copied"),
                "ref"
            );
            scratch.root().to_path_buf()
        };
        assert!(!root.exists());
    }

    /// On the chat's own model the chat's prompt and tools are sent again, byte for byte
    /// (the provider's cache serves the prefix); a prompt that names another model is not.
    #[test]
    fn the_chats_prompt_is_reused_only_on_the_chats_model() {
        let dir = tempfile::tempdir().expect("tempdir");
        let chat_prompt = "You are the chat.\nModel: m1\nProvider: custom";
        let reviewed = |model: &str| {
            let mut on = setup(dir.path());
            on.endpoint.model = model.into();
            let mut talk = conversation();
            talk.system_prompt = Some(chat_prompt.into());
            let scripted = Scripted::new(vec![answer("Nothing to save.")]);
            let bodies = scripted.bodies();
            let Ok(_) = review(&on, &talk, Box::new(scripted), None) else {
                panic!("the review runs")
            };
            bodies.lock().expect("bodies")[0].clone()
        };
        let same = reviewed("m1");
        assert_eq!(same["messages"][0]["content"], chat_prompt);
        assert!(tool_names(&same).contains(&"terminal".to_string()));
        let other = reviewed("m2");
        assert_ne!(other["messages"][0]["content"], chat_prompt);
        assert!(
            other["messages"][0]["content"]
                .as_str()
                .is_some_and(|p| p.ends_with("\nModel: m2\nProvider: custom"))
        );
        assert_eq!(
            tool_names(&other),
            ["memory", "skill_manage", "skill_view", "skills_list"]
        );
    }
}
