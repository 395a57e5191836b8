//! The modes of `hermes-chat` (CLI.md § hermes-chat): one-shot (`-z`: the answer alone on
//! stdout), JSON events (`--json`, Codex's `exec --json` envelope), JSONL turns on stdin
//! (`--input-format jsonl`, with approvals as Claude Code's `control_request`), and a plain
//! line-by-line session at a terminal. The binary parses flags and calls [`run`].

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::Context;
use serde_json::{Value, json};

use super::events::{Answer, ApprovalRequest, Decision, Item, Observer, SessionRule};
use super::registry::Registry;
use super::review::{self, Due};
use super::session::{Agent, AgentParts, ApprovalMode, Clock, SetupError};
use super::settings::AgentSettings;
use super::turn::{TurnOutcome, title_from};
use crate::home::{Config, Home};
use crate::io::exit::Hinted;
use crate::io::jsonl;
use crate::llm::connect::{self, ConnectOptions};
use crate::llm::endpoint::Overrides;
use crate::llm::{Client, Delta, LlmError, RetryPolicy, Transport};
use crate::sessions::live;

/// Prints from another thread without breaking the line being typed.
pub(super) type Printer = Arc<std::sync::Mutex<Box<dyn rustyline::ExternalPrinter + Send>>>;

/// What the flags asked for.
#[derive(Debug, Clone, Default)]
pub struct ChatOptions {
    pub home: Option<PathBuf>,
    /// `-z PROMPT` (`-` reads stdin).
    pub oneshot: Option<String>,
    pub json: bool,
    pub input_jsonl: bool,
    pub stream_deltas: bool,
    pub overrides: Overrides,
    pub resume: Option<String>,
    pub continue_last: bool,
    pub fork: Option<String>,
    pub skills: Vec<String>,
    pub max_turns: Option<u32>,
    pub approvals: Option<ApprovalMode>,
    /// `--sandbox` and `--network`.
    pub sandbox: super::sandboxing::SandboxChoice,
    pub no_review: bool,
    pub review_wait: bool,
    pub record: Option<PathBuf>,
    pub replay: Option<PathBuf>,
    pub output_last_message: Option<PathBuf>,
    pub source: String,
    pub quiet: bool,
}

/// Exit codes of CLI.md.
pub const EXIT_OK: u8 = 0;
pub const EXIT_TURN_FAILED: u8 = 1;
pub const EXIT_INTERRUPTED: u8 = 130;
/// A bad line of `--input-format jsonl` (what comes before it has run).
pub const EXIT_BAD_INPUT: u8 = 2;

const BIN: &str = "hermes-chat";

/// Runs hermes-chat; returns the exit code. Setup errors come back as `Err` (exit 2).
pub fn run(options: ChatOptions) -> anyhow::Result<u8> {
    let interrupt = Arc::new(AtomicBool::new(false));
    let stdin_is_terminal = std::io::stdin().is_terminal();
    let interactive =
        options.oneshot.is_none() && !options.json && !options.input_jsonl && stdin_is_terminal;
    // At the terminal Ctrl-C cancels the turn and the session goes on; elsewhere a run that
    // does not stop soon after the signal is ended.
    install_interrupt(interrupt.clone(), !interactive);
    let (home, home_existed) = Home::resolve_for_write(options.home.as_deref())?;
    let config = Config::load(&home)?;
    let now = crate::clock::now()?;
    let fixed = crate::clock::fixed_seconds(now, std::env::var(crate::clock::NOW_VAR).ok());
    let clock = Clock::new(fixed);
    let mut settings = AgentSettings::from_config(&config);
    if let Some(n) = options.max_turns {
        settings.max_turns = n.max(1);
    }
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let connect = ConnectOptions {
        overrides: options.overrides.clone(),
        record: options.record.clone(),
        replay: options.replay.clone(),
        quiet: options.quiet,
    };
    let (transport, endpoint) = connect::open(BIN, &home, &config, &connect, interrupt.clone())?;
    let client = Client::new(
        transport,
        RetryPolicy {
            attempts: settings.api_max_retries,
            backoff_base: settings.retry_backoff,
        },
        interrupt.clone(),
    );
    let (db, _, _) = crate::sessions::open_for_write(&home.state_db(), true, &|_| {})?;
    // A typo in HERMES_HOME would otherwise start an empty home without a word.
    crate::io::exit::note_created_home(BIN, &home, home_existed, options.quiet);
    // A conversation commits a few rows per model call. In WAL mode, NORMAL keeps every commit
    // through a crash of this process or any other (the WAL is in the page cache); only a
    // power cut may lose the last commits. FULL would fsync each of them: about 4 ms apiece
    // here, twice the whole budget of a model call (docs/decisions.md).
    db.conn()
        .execute_batch("PRAGMA synchronous=NORMAL")
        .context("cannot configure state.db")?;
    // Flagged commands are asked for where someone can answer: at the terminal (the session,
    // or a one-shot run started there) or over JSONL. `--json` alone has no one to ask.
    let someone_can_answer = options.input_jsonl || (stdin_is_terminal && !options.json);
    let approvals = options.approvals.unwrap_or(if someone_can_answer {
        ApprovalMode::Ask
    } else {
        ApprovalMode::Deny
    });
    let ephemeral = preload_skills(&home, &config, &options.skills)?;
    let parts = AgentParts {
        home: home.clone(),
        config,
        settings,
        endpoint,
        client,
        db,
        cwd,
        source: options.source.clone(),
        approvals,
        registry: Registry::new(None),
        interrupt: interrupt.clone(),
        clock,
        ignore_rules: false,
        ephemeral,
        provider_use: super::session::ProviderUse::Full,
    };
    let agent = match (&options.resume, options.continue_last, &options.fork) {
        (Some(id), _, _) => Agent::resume(parts, id),
        (None, true, _) => Agent::continue_newest(parts),
        (None, false, Some(id)) => Agent::fork(parts, id),
        (None, false, None) => Agent::new(parts),
    };
    let mut agent = match agent {
        Ok(a) => a,
        Err(SetupError::SessionNotFound(what)) => {
            return Err(anyhow::Error::new(Hinted::new(
                format!("Session not found: {what}"),
                "use a session id or title from hermes-recall (no query lists recent sessions)",
            )));
        }
        Err(e) => return Err(e.into()),
    };
    // Built when the session was; again with what the flags chose. Without a sandbox the
    // session does not start: a command never runs uncontained unless `--sandbox full`.
    if options.sandbox != super::sandboxing::SandboxChoice::default() || agent.sandbox().is_none() {
        agent
            .configure_sandbox(options.sandbox)
            .map_err(anyhow::Error::new)?;
    }
    if !options.quiet {
        for notice in agent.take_notices() {
            eprintln!("{BIN}: {notice}");
        }
    }
    let session_id = agent.session_id.clone();
    agent
        .client_transport()
        .set_placeholder("session_id", &session_id);

    if options.json || options.input_jsonl {
        run_json(&mut agent, &options)
    } else if let Some(prompt) = &options.oneshot {
        let prompt = read_prompt(prompt)?;
        run_oneshot(&mut agent, &options, &prompt)
    } else if interactive {
        super::repl::run(&mut agent, &options)
    } else {
        Err(anyhow::Error::new(Hinted::new(
            "no prompt given",
            "pass -z PROMPT (or -z - to read it from stdin), --input-format jsonl, or run hermes-chat at a terminal",
        )))
    }
}

fn read_prompt(prompt: &str) -> anyhow::Result<String> {
    if prompt != "-" {
        jsonl::check_message(prompt, "the prompt").map_err(anyhow::Error::msg)?;
        return Ok(prompt.to_string());
    }
    crate::io::jsonl::announce_stdin(BIN, "the prompt", None);
    // No message of MAX_MESSAGE_CHARS takes more than four bytes a character.
    let most = 4 * jsonl::MAX_MESSAGE_CHARS;
    let text = jsonl::read_text(std::io::stdin().lock(), jsonl::MAX_LINE_BYTES, most)
        .context("cannot read the prompt from stdin")?;
    jsonl::check_message(&text, "the prompt").map_err(anyhow::Error::msg)?;
    Ok(text)
}

/// `--skills a,b`: each skill's SKILL.md, sent after the system prompt but never stored.
fn preload_skills(home: &Home, config: &Config, names: &[String]) -> anyhow::Result<String> {
    if names.is_empty() {
        return Ok(String::new());
    }
    let lib = crate::skills::library::Library::new(
        home.clone(),
        config.clone(),
        crate::skills::runtime::Runtime::detect(config),
    );
    let scanner = crate::skills::write_scan::Unavailable;
    let mut parts = Vec::new();
    let mut unknown = Vec::new();
    for name in names {
        let mut session = crate::skills::manage::Session::new(
            &lib,
            crate::skills::guards::Origin::Foreground,
            &scanner,
        );
        let viewed = session.view(name, None);
        match (
            viewed.get("content").and_then(Value::as_str),
            viewed.get("skill_dir").and_then(Value::as_str),
        ) {
            (Some(content), dir) => {
                let missing: Vec<&str> = viewed
                    .get("missing_required_environment_variables")
                    .and_then(Value::as_array)
                    .map(|a| a.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                if !missing.is_empty() {
                    // Only the terminal session asks; a script is told and goes on.
                    eprintln!(
                        "{BIN}: skill {name} needs {} (not set); add it to {} or the environment",
                        missing.join(", "),
                        home.env_file().display()
                    );
                }
                parts.push(format!(
                "[IMPORTANT: The user started this session with the \"{name}\" skill preloaded. Treat its instructions as active guidance for the session unless the user overrides them.]\n\n{}\n\n[Skill directory: {}]",
                content.trim(),
                dir.unwrap_or("")
            ));
            }
            (None, _) => unknown.push(name.clone()),
        }
    }
    if !unknown.is_empty() {
        return Err(anyhow::Error::new(Hinted::new(
            format!("Unknown skill(s): {}", unknown.join(", ")),
            "hermes-skills list shows the installed skills",
        )));
    }
    Ok(parts.join("\n\n"))
}

/// SIGINT and SIGTERM ask the loop to stop; a run that does not stop within two seconds
/// (a blocked read) exits with 130 anyway, after what was stored stays stored.
fn install_interrupt(flag: Arc<AtomicBool>, force_exit: bool) {
    static FLAG: std::sync::OnceLock<Arc<AtomicBool>> = std::sync::OnceLock::new();
    if FLAG.set(flag).is_err() {
        return;
    }
    extern "C" fn on_signal(_: libc::c_int) {
        if let Some(flag) = FLAG.get() {
            flag.store(true, Ordering::SeqCst);
        }
    }
    // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
    unsafe {
        libc::signal(libc::SIGINT, on_signal as *const () as libc::sighandler_t);
        libc::signal(libc::SIGTERM, on_signal as *const () as libc::sighandler_t);
    }
    if !force_exit {
        return;
    }
    std::thread::spawn(|| {
        loop {
            std::thread::sleep(Duration::from_millis(50));
            if FLAG.get().is_some_and(|f| f.load(Ordering::SeqCst)) {
                std::thread::sleep(Duration::from_secs(2));
                std::process::exit(i32::from(EXIT_INTERRUPTED));
            }
        }
    });
}

impl Agent {
    pub fn client_transport(&mut self) -> &mut dyn Transport {
        self.client.transport_mut()
    }
}

/// Stderr notes for one-shot runs: retries and refusals, nothing else.
struct OneShot {
    quiet: bool,
    terminal: bool,
}

impl Observer for OneShot {
    fn retrying(&mut self, attempt: u32, of: u32, error: &LlmError, wait: Duration) {
        if !self.quiet {
            eprintln!(
                "{BIN}: {error} (attempt {attempt}/{of}; retrying in {:.1} s)",
                wait.as_secs_f64()
            );
        }
    }

    fn item_completed(&mut self, item: &Item) {
        if self.quiet || !self.terminal {
            return;
        }
        let f = &item.fields;
        let text = |k: &str| f.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        match item.kind {
            "command_execution" => eprintln!("  ┊ $ {}  [{}]", text("command"), text("status")),
            "tool_call" => eprintln!("  ┊ {}  [{}]", text("name"), text("status")),
            "file_change" => eprintln!("  ┊ file change  [{}]", text("status")),
            "approval" => eprintln!("  ┊ approval: {} ({})", text("decision"), text("rule")),
            "compaction" => eprintln!("  ┊ compacted the conversation"),
            _ => {}
        }
    }

    fn notice(&mut self, text: &str) {
        if !self.quiet {
            eprintln!("{BIN}: {text}");
        }
    }

    fn approve(&mut self, request: &ApprovalRequest) -> Decision {
        if std::io::stdin().is_terminal() {
            ask_on_terminal(request)
        } else {
            Decision::Deny
        }
    }
}

fn run_oneshot(agent: &mut Agent, options: &ChatOptions, prompt: &str) -> anyhow::Result<u8> {
    let mut observer = OneShot {
        quiet: options.quiet,
        terminal: std::io::stderr().is_terminal(),
    };
    let outcome = agent.run_turn(prompt, &mut observer)?;
    finish_turn(agent, options, prompt, &outcome, &mut observer, None, None)?;
    let code = match (&outcome.answer, &outcome.error) {
        _ if outcome.interrupted => EXIT_INTERRUPTED,
        (Some(answer), _) => {
            let mut out = std::io::stdout().lock();
            if writeln!(out, "{answer}").and_then(|_| out.flush()).is_err() {
                // A closed pipe is a reader that has what it wanted.
            }
            EXIT_OK
        }
        (None, Some(error)) => {
            eprintln!("{BIN}: error: {error}");
            if let Some(hint) = outcome.hint {
                eprintln!("hint: {hint}");
            }
            if let Some(line) = resume_hint(agent) {
                eprintln!("{line}");
            }
            EXIT_TURN_FAILED
        }
        (None, None) => EXIT_TURN_FAILED,
    };
    agent.end("agent_close")?;
    Ok(code)
}

/// After a failed turn whose message was stored: how to go on from it.
fn resume_hint(agent: &Agent) -> Option<String> {
    agent.session_created.then(|| {
        format!(
            "{BIN}: the session {} is kept; go on with `hermes-chat -c` (or `-r {}`)",
            agent.session_id, agent.session_id
        )
    })
}

/// After a turn: the answer file, the title, and the review hand-off.
pub(super) fn finish_turn(
    agent: &mut Agent,
    options: &ChatOptions,
    prompt: &str,
    outcome: &TurnOutcome,
    observer: &mut dyn Observer,
    json: Option<&mut JsonEvents>,
    printer: Option<Printer>,
) -> anyhow::Result<()> {
    if let (Some(path), Some(answer)) = (&options.output_last_message, &outcome.answer) {
        std::fs::write(path, format!("{answer}\n"))
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    if outcome.answer.is_some() && agent.settings.titles {
        let user_turns = agent
            .messages
            .iter()
            .filter(|m| m.is(crate::llm::Role::User))
            .count();
        if user_turns <= 2 {
            let title = title_from(prompt);
            let sid = agent.session_id.clone();
            live::set_title_if_empty(agent.db(), &sid, &title)?;
        }
    }
    let due = outcome.review;
    if options.no_review || outcome.interrupted || outcome.answer.is_none() || !due.any() {
        return Ok(());
    }
    hand_off_review(agent, options, due, observer, json, printer)
}

/// `hermes-review` beside this binary, else on PATH.
fn reviewer() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok();
    let exe_dir = exe.as_deref().and_then(Path::parent);
    review::reviewer_in(exe_dir, std::env::var_os("PATH").as_deref())
}

fn hand_off_review(
    agent: &mut Agent,
    options: &ChatOptions,
    due: Due,
    observer: &mut dyn Observer,
    json: Option<&mut JsonEvents>,
    printer: Option<Printer>,
) -> anyhow::Result<()> {
    let lines = agent.transcript_lines();
    let pending = agent.home.pending_dir("review");
    let handoff = review::hand_off(
        &pending,
        &agent.session_id,
        &lines,
        due,
        agent.home.root(),
        reviewer().as_deref(),
        &crate::review::handoff::chat_env(&agent.endpoint.model, &options.overrides),
        options.review_wait || printer.is_some(),
    )
    .with_context(|| format!("cannot write the review input under {}", pending.display()))?;
    if let Some(reason) = &handoff.queued_reason {
        observer.notice(&format!(
            "review queued at {}: {reason}",
            handoff.input.display()
        ));
        return Ok(());
    }
    let Some(child) = handoff.child else {
        return Ok(());
    };
    if !options.review_wait {
        match printer {
            // The summary line appears between turns when the review ends.
            Some(printer) => {
                std::thread::spawn(move || {
                    let Ok(output) = child.wait_with_output() else {
                        return;
                    };
                    let done = review::finished(
                        &String::from_utf8_lossy(&output.stdout),
                        &String::from_utf8_lossy(&output.stderr),
                        output.status.success(),
                    );
                    let said = match (done.error, done.summary) {
                        (Some(error), _) => Some(failed_review(&error)),
                        (None, summary) => summary,
                    };
                    if let (Some(line), Ok(mut p)) = (said, printer.lock()) {
                        let _ = p.print(format!("{line}\n"));
                    }
                });
            }
            None => observer.notice(&format!(
                "review started in the background on {}",
                handoff.input.display()
            )),
        }
        return Ok(());
    }
    let output = child
        .wait_with_output()
        .context("waiting for hermes-review")?;
    let done = review::finished(
        &String::from_utf8_lossy(&output.stdout),
        &String::from_utf8_lossy(&output.stderr),
        output.status.success(),
    );
    if let Some(line) = &done.summary {
        observer.notice(line);
    }
    // A failure is said even where notices are not (--json): a review that did not run
    // must never pass unseen.
    if let Some(error) = &done.error {
        eprintln!("{BIN}: {}", failed_review(error));
    }
    if let Some(events) = json {
        let id = agent.next_item_id();
        events.item(&Item::new(
            id,
            "review",
            json!({"actions": done.actions, "summary": done.summary, "error": done.error}),
        ));
    }
    Ok(())
}

/// The words for a review that failed, and where to read about the others.
fn failed_review(error: &str) -> String {
    format!("review failed: {error} (every review's outcome: $HERMES_HOME/logs/review.log)")
}

/// `--json`: events on stdout.
pub(super) struct JsonEvents {
    deltas: bool,
    /// Approvals are asked over stdin (`--input-format jsonl`).
    ask_on_stdin: bool,
    stdin_lines: Option<jsonl::Lines<std::io::StdinLock<'static>>>,
    pending_turns: Vec<String>,
}

impl JsonEvents {
    fn emit(&self, value: &Value) {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{value}").and_then(|_| out.flush());
    }

    fn item(&self, item: &Item) {
        self.emit(&json!({"type": "item.completed", "item": item.to_json()}));
    }
}

impl Observer for JsonEvents {
    fn delta(&mut self, item_id: &str, delta: &Delta<'_>) {
        if let (true, Delta::Text(t)) = (self.deltas, delta) {
            self.emit(&json!({"type": "item.delta", "item_id": item_id, "delta": t}));
        }
    }

    fn item_started(&mut self, item: &Item) {
        self.emit(&json!({"type": "item.started", "item": item.to_json()}));
    }

    fn item_completed(&mut self, item: &Item) {
        self.item(item);
    }

    fn retrying(&mut self, attempt: u32, of: u32, error: &LlmError, wait: Duration) {
        eprintln!(
            "{BIN}: {error} (attempt {attempt}/{of}; retrying in {:.1} s)",
            wait.as_secs_f64()
        );
    }

    fn notice(&mut self, text: &str) {
        eprintln!("{BIN}: {text}");
    }

    fn approve(&mut self, request: &ApprovalRequest) -> Decision {
        self.answer(request).decision
    }

    fn answer(&mut self, request: &ApprovalRequest) -> Answer {
        if !self.ask_on_stdin {
            return Decision::Deny.into();
        }
        let request_id = format!("req_{}", request.tool_use_id);
        self.emit(
            &json!({"type": "control_request", "request_id": request_id, "request": {
            "subtype": "can_use_tool", "tool_name": "terminal", "input": request.input,
            "tool_use_id": request.tool_use_id,
            "decision_reason": format!("{} ({})", request.description, request.rule)}}),
        );
        let Some(lines) = self.stdin_lines.as_mut() else {
            return Decision::Deny.into();
        };
        for line in lines.by_ref() {
            let Ok((_, line)) = line else {
                return Decision::Deny.into();
            };
            let Ok(value) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            if value.get("type").and_then(Value::as_str) == Some("control_response") {
                let response = value.get("response");
                if response
                    .and_then(|r| r.get("request_id"))
                    .and_then(Value::as_str)
                    != Some(request_id.as_str())
                {
                    continue;
                }
                return host_answer(response.and_then(|r| r.get("response")));
            }
            // A turn sent while the approval waits runs after this one.
            if let Some(text) = turn_text(&value) {
                self.pending_turns.push(text);
            }
        }
        Decision::Deny.into()
    }
}

/// Claude's `control_response` `response` object, read in full: `behavior`, `updatedInput`,
/// `updatedPermissions`, `message`, `interrupt`. Anything but an explicit allow is a deny.
fn host_answer(response: Option<&Value>) -> Answer {
    let field = |name: &str| response.and_then(|r| r.get(name));
    if field("behavior").and_then(Value::as_str) != Some("allow") {
        let mut answer = Answer::from(Decision::Deny);
        answer.message = field("message")
            .and_then(Value::as_str)
            .filter(|m| !m.trim().is_empty())
            .map(str::to_string);
        answer.interrupt = field("interrupt").and_then(Value::as_bool) == Some(true);
        return answer;
    }
    let session_rules = field("updatedPermissions")
        .and_then(Value::as_array)
        .map(|updates| updates.iter().flat_map(session_rules_of).collect())
        .unwrap_or_default();
    let mut answer = Answer::from(Decision::Once);
    answer.command = field("updatedInput")
        .and_then(|i| i.get("command"))
        .and_then(Value::as_str)
        .map(str::to_string);
    answer.session_rules = session_rules;
    if !answer.session_rules.is_empty() {
        answer.decision = Decision::Session;
    }
    answer
}

/// The allows one permission update keeps for the session: `addRules`/`replaceRules` with
/// `behavior: allow` on the terminal (Claude calls it `Bash`), or `setMode` to
/// `bypassPermissions`. Whatever the `destination`, nothing is written to a settings file:
/// the allow lasts for this session.
fn session_rules_of(update: &Value) -> Vec<SessionRule> {
    let kind = update.get("type").and_then(Value::as_str);
    match kind {
        Some("addRules" | "replaceRules")
            if update.get("behavior").and_then(Value::as_str) == Some("allow") =>
        {
            update
                .get("rules")
                .and_then(Value::as_array)
                .map(|rules| {
                    rules
                        .iter()
                        .filter(|r| {
                            matches!(
                                r.get("toolName").and_then(Value::as_str),
                                Some("terminal" | "Bash")
                            )
                        })
                        .map(|r| match r.get("ruleContent").and_then(Value::as_str) {
                            Some(content) if !content.trim().is_empty() => {
                                SessionRule::Content(content.to_string())
                            }
                            _ => SessionRule::Everything,
                        })
                        .collect()
                })
                .unwrap_or_default()
        }
        Some("setMode")
            if update.get("mode").and_then(Value::as_str) == Some("bypassPermissions") =>
        {
            vec![SessionRule::Everything]
        }
        _ => Vec::new(),
    }
}

/// The text of a turn line: `{"type":"user","message":{…}}` or `{"role":"user","content":…}`.
fn turn_text(value: &Value) -> Option<String> {
    let message = if value.get("type").and_then(Value::as_str) == Some("user") {
        value.get("message")?
    } else {
        value
    };
    if message.get("role").and_then(Value::as_str) != Some("user") {
        return None;
    }
    Some(crate::llm::message::flatten_content(
        message.get("content")?,
    ))
}

/// The turn on stdin line `number` of `--input-format jsonl`: its text, `None` for an
/// object that is not a user turn (skipped, as other stream-json messages are), or what is
/// wrong with the line (not JSON, not an object, a message above the limit).
fn stdin_turn(number: usize, line: &str) -> Result<Option<String>, String> {
    let value: Value = serde_json::from_str(line.trim())
        .map_err(|e| format!("line {number}: {}", jsonl::json_error(&e)))?;
    if !value.is_object() {
        return Err(format!(
            "line {number}: expected a JSON object (a user turn or a control_response)"
        ));
    }
    let Some(text) = turn_text(&value) else {
        return Ok(None);
    };
    jsonl::check_message(&text, &format!("line {number}"))?;
    Ok(Some(text))
}

/// A bad line of `--input-format jsonl` ends the input: an `error` event and a note on
/// stderr name it, nothing of it is stored, and the exit code is 2 (bad input); the turns
/// before it stay as they ran.
fn bad_input_line(events: &JsonEvents, what: &str) -> u8 {
    let message = format!("stdin {what}; the lines after it were not read");
    events.emit(&json!({"type": "error", "message": message}));
    eprintln!("{BIN}: error: {message}");
    EXIT_BAD_INPUT
}

fn run_json(agent: &mut Agent, options: &ChatOptions) -> anyhow::Result<u8> {
    let mut events = JsonEvents {
        deltas: options.stream_deltas,
        ask_on_stdin: options.input_jsonl,
        stdin_lines: None,
        pending_turns: Vec::new(),
    };
    let loaded = agent.prompt_ready().clone();
    events.emit(&json!({"type": "thread.started", "thread_id": agent.session_id, "schema_version": 1,
        "model": agent.endpoint.model, "provider": agent.endpoint.provider, "resumed": agent.resumed,
        "sandbox": agent.sandbox().map(super::sandboxing::describe_json),
        "loaded": {"memory_chars": loaded.memory_chars, "user_chars": loaded.user_chars,
            "skills": loaded.skills, "context_files": loaded.context_files}}));
    let mut code = EXIT_OK;
    if let Some(prompt) = &options.oneshot {
        let prompt = read_prompt(prompt)?;
        code = json_turn(agent, options, &mut events, &prompt, 1)?;
    } else if options.input_jsonl {
        crate::io::jsonl::announce_stdin(BIN, "turns and approvals (JSONL)", None);
        events.stdin_lines = Some(jsonl::Lines::new(std::io::stdin().lock()));
        let mut n = 0;
        loop {
            let next = if events.pending_turns.is_empty() {
                let Some(lines) = events.stdin_lines.as_mut() else {
                    break;
                };
                match lines.next() {
                    None => break,
                    Some(Err(jsonl::JsonlError::Io(e))) => {
                        return Err(anyhow::Error::new(e).context("cannot read stdin"));
                    }
                    Some(Err(bad)) => {
                        code = bad_input_line(&events, &bad.to_string());
                        break;
                    }
                    Some(Ok((_, line))) if line.trim().is_empty() => continue,
                    Some(Ok((number, line))) => match stdin_turn(number, &line) {
                        Ok(Some(text)) => text,
                        Ok(None) => continue,
                        Err(bad) => {
                            code = bad_input_line(&events, &bad);
                            break;
                        }
                    },
                }
            } else {
                events.pending_turns.remove(0)
            };
            n += 1;
            let turn_code = json_turn(agent, options, &mut events, &next, n)?;
            // A turn an approval answer ended (`interrupt: true`) leaves the session open.
            if turn_code == EXIT_INTERRUPTED && agent.interrupt.load(Ordering::Relaxed) {
                code = turn_code;
                break;
            }
            code = code.max(turn_code);
        }
    } else {
        return Err(anyhow::Error::new(Hinted::new(
            "--json needs a prompt",
            "pass -z PROMPT (or -z - for stdin), or --input-format jsonl to read turns from stdin",
        )));
    }
    agent.end("agent_close")?;
    Ok(code)
}

fn json_turn(
    agent: &mut Agent,
    options: &ChatOptions,
    events: &mut JsonEvents,
    prompt: &str,
    n: u32,
) -> anyhow::Result<u8> {
    let turn_id = format!("turn_{n}");
    events.emit(&json!({"type": "turn.started", "turn_id": turn_id}));
    let outcome = agent.run_turn(prompt, events)?;
    agent.take_answer_interrupt();
    let usage = json!({"input_tokens": outcome.usage.input + outcome.usage.cache_read + outcome.usage.cache_write,
        "cached_input_tokens": outcome.usage.cache_read, "output_tokens": outcome.usage.output});
    let code = if outcome.interrupted {
        events.emit(&json!({"type": "turn.failed", "turn_id": turn_id, "error": {"message": "interrupted"}}));
        EXIT_INTERRUPTED
    } else if let Some(error) = &outcome.error {
        events.emit(&json!({"type": "turn.failed", "turn_id": turn_id, "error": {"message": error}, "usage": usage}));
        if let (false, Some(line)) = (options.quiet, resume_hint(agent)) {
            eprintln!("{line}");
        }
        EXIT_TURN_FAILED
    } else {
        EXIT_OK
    };
    let mut silent = super::events::Silent;
    finish_turn(
        agent,
        options,
        prompt,
        &outcome,
        &mut silent,
        Some(events),
        None,
    )?;
    if code == EXIT_OK {
        events.emit(&json!({"type": "turn.completed", "turn_id": turn_id, "usage": usage}));
    }
    Ok(code)
}

/// Asks at the terminal (stderr for the question, stdin for the answer).
pub(super) fn ask_on_terminal(request: &ApprovalRequest) -> Decision {
    eprintln!(
        "⚠ {BIN} wants to run: {}\n  flagged by {}: {}",
        request.command, request.rule, request.description
    );
    eprint!("  run it? [o]nce / [a]lways this session / [d]eny: ");
    let mut answer = String::new();
    if std::io::stdin().read_line(&mut answer).is_err() {
        return Decision::Deny;
    }
    match answer.trim().to_lowercase().as_str() {
        "o" | "once" | "y" | "yes" => Decision::Once,
        "a" | "always" => Decision::Session,
        _ => Decision::Deny,
    }
}

/// The line that says what a session loaded.
pub(super) fn loaded_line(loaded: &super::prompt::Loaded) -> String {
    let truncated = loaded.context_files.iter().filter(|c| c.truncated).count();
    let mut line = format!(
        "loaded: memory {} chars, user profile {} chars · {} skills in the index · {} context file(s)",
        loaded.memory_chars,
        loaded.user_chars,
        loaded.skills,
        loaded.context_files.len()
    );
    if truncated > 0 {
        line.push_str(&format!(" ({truncated} truncated)"));
    }
    line
}

/// The first line of a terminal session: which session, model and endpoint.
pub(super) fn session_line(agent: &Agent) -> String {
    let mut line = format!(
        "{BIN}: session {} · {} on {}",
        agent.session_id, agent.endpoint.model, agent.endpoint.provider
    );
    if agent.resumed {
        line.push_str(&format!(
            " · resumed with {} messages",
            agent.messages.len()
        ));
    }
    if let Some(sandbox) = agent.sandbox() {
        line.push_str(" · ");
        line.push_str(&super::sandboxing::describe_line(sandbox));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_host_answer_is_read_in_full() {
        let allow = host_answer(Some(&json!({"behavior": "allow",
            "updatedInput": {"command": "echo hi"},
            "updatedPermissions": [
                {"type": "addRules", "behavior": "allow", "destination": "session",
                 "rules": [{"toolName": "Bash", "ruleContent": "npm test:*"}, {"toolName": "Edit"}]},
                {"type": "replaceRules", "behavior": "allow", "destination": "localSettings",
                 "rules": [{"toolName": "terminal"}]},
                {"type": "addRules", "behavior": "deny", "destination": "session",
                 "rules": [{"toolName": "Bash", "ruleContent": "rm:*"}]},
                {"type": "setMode", "mode": "acceptEdits", "destination": "session"}]})));
        assert_eq!(
            allow,
            Answer {
                decision: Decision::Session,
                command: Some("echo hi".into()),
                interrupt: false,
                message: None,
                session_rules: vec![
                    SessionRule::Content("npm test:*".into()),
                    SessionRule::Everything
                ],
            }
        );
        let deny = host_answer(Some(
            &json!({"behavior": "deny", "message": "no", "interrupt": true}),
        ));
        assert_eq!(
            (deny.decision, deny.message.as_deref(), deny.interrupt),
            (Decision::Deny, Some("no"), true)
        );
        assert_eq!(
            host_answer(Some(&json!({"behavior": "maybe"}))),
            Decision::Deny.into()
        );
        assert_eq!(host_answer(None), Decision::Deny.into());
        assert_eq!(
            host_answer(Some(&json!({"behavior": "allow"}))),
            Decision::Once.into()
        );
    }
}
