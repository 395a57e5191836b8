//! The terminal session: line editing and history (rustyline, history in
//! `$HERMES_HOME/.hermes-chat-history`), streamed answers with a spinner while the model
//! thinks, one dimmed line per tool, Ctrl-C to cancel a turn (twice at the prompt to leave),
//! Ctrl-D to leave, and the slash commands. Answers are shown as the plain text the model
//! wrote (no markdown renderer).

use std::io::{BufRead, IsTerminal, Write};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rustyline::ExternalPrinter;
use rustyline::error::ReadlineError;
use serde_json::Value;

use super::cli::{ChatOptions, EXIT_OK, finish_turn, loaded_line, session_line};
use super::events::{ApprovalRequest, Decision, Item, Observer};
use super::session::Agent;
use super::turn::TurnOutcome;
use super::{invoke, learn, secrets};
use crate::llm::{Delta, LlmError};

/// The built-in commands (a skill never shadows one).
pub const COMMANDS: [(&str, &str); 12] = [
    ("help", "this list"),
    ("new", "start a new session (the current one is ended)"),
    (
        "retry",
        "send the last message again (the old answer is taken back)",
    ),
    (
        "undo",
        "take the last turn back, from the model and from the store",
    ),
    ("skills", "list the skills; /<skill> [instruction] runs one"),
    (
        "memory",
        "what the agent remembers about you and your setup",
    ),
    ("model", "show the model, or switch: /model NAME"),
    ("usage", "tokens used in this session"),
    (
        "compact",
        "summarise the older part of the conversation now",
    ),
    (
        "learn",
        "turn what was just done (or a folder, a file, text) into a skill",
    ),
    ("quit", "leave (also /exit, Ctrl-D)"),
    ("exit", "leave"),
];

/// Prints to the terminal from other threads without breaking the line being typed.
type Printer = Arc<Mutex<Box<dyn ExternalPrinter + Send>>>;

struct Terminal {
    color: bool,
    spinner: Option<indicatif::ProgressBar>,
    at_line_start: bool,
    /// The message whose text was shown as it streamed; an answer that came whole (the
    /// budget's summary is asked without streaming) is shown when it completes.
    streamed: Option<String>,
    /// What the user typed for each message that was expanded before it was sent (a skill,
    /// a bundle, /learn): `/undo` and `/retry` speak of that, not of the expansion.
    typed: std::collections::HashMap<String, String>,
}

impl Terminal {
    fn new() -> Terminal {
        Terminal {
            color: crate::io::format::stderr_color(),
            spinner: None,
            at_line_start: true,
            streamed: None,
            typed: std::collections::HashMap::new(),
        }
    }

    /// Every caller stops the spinner before (a replaced one would clear itself when
    /// dropped anyway); where stderr is no terminal there is none, and no thread ticking it.
    fn spin(&mut self) {
        if !std::io::stderr().is_terminal() {
            return;
        }
        let bar = indicatif::ProgressBar::new_spinner();
        bar.set_message("thinking");
        bar.enable_steady_tick(Duration::from_millis(100));
        self.spinner = Some(bar);
    }

    fn stop(&mut self) {
        if let Some(bar) = self.spinner.take() {
            bar.finish_and_clear();
        }
    }

    fn dim(&self, text: &str) -> String {
        if self.color {
            format!("\x1b[2m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    fn end_line(&mut self) {
        if !self.at_line_start {
            println!();
            self.at_line_start = true;
        }
    }
}

impl Observer for Terminal {
    fn delta(&mut self, item_id: &str, delta: &Delta<'_>) {
        if let Delta::Text(t) = delta {
            self.stop();
            if self.streamed.as_deref() != Some(item_id) {
                self.streamed = Some(item_id.to_string());
            }
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(crate::io::sanitize::for_terminal(t).as_bytes());
            let _ = out.flush();
            self.at_line_start = t.ends_with('\n');
        }
    }

    fn item_completed(&mut self, item: &Item) {
        let text = |k: &str| {
            item.fields
                .get(k)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        let line = match item.kind {
            "command_execution" => format!("  ┊ $ {}  [{}]", text("command"), text("status")),
            "tool_call" => format!("  ┊ {}  [{}]", text("name"), text("status")),
            "file_change" => format!("  ┊ file change  [{}]", text("status")),
            "approval" => format!("  ┊ approval: {} ({})", text("decision"), text("rule")),
            "compaction" => "  ┊ compacted the conversation".to_string(),
            "agent_message" if self.streamed.as_deref() != Some(item.id.as_str()) => {
                self.stop();
                self.end_line();
                println!("{}", crate::io::sanitize::for_terminal(&text("text")));
                return;
            }
            _ => return,
        };
        self.stop();
        self.end_line();
        eprintln!("{}", self.dim(&crate::io::sanitize::for_terminal(&line)));
        self.spin();
    }

    fn retrying(&mut self, attempt: u32, of: u32, error: &LlmError, wait: Duration) {
        self.stop();
        eprintln!(
            "{}",
            self.dim(&format!(
                "  ┊ {error} (attempt {attempt}/{of}; retrying in {:.1} s)",
                wait.as_secs_f64()
            ))
        );
        self.spin();
    }

    fn notice(&mut self, text: &str) {
        // A notice during a turn (the model keeps us waiting) leaves the spinner going.
        let spinning = self.spinner.is_some();
        self.stop();
        self.end_line();
        eprintln!("{}", self.dim(text));
        if spinning {
            self.spin();
        }
    }

    fn approve(&mut self, request: &ApprovalRequest) -> Decision {
        self.stop();
        self.end_line();
        let decision = super::cli::ask_on_terminal(request);
        self.spin();
        decision
    }
}

/// Runs the session until /quit, Ctrl-D or a second Ctrl-C at the prompt.
pub fn run(agent: &mut Agent, options: &ChatOptions) -> anyhow::Result<u8> {
    eprintln!("{}", session_line(agent));
    let mut editor = rustyline::DefaultEditor::new()?;
    let history = agent.home.root().join(".hermes-chat-history");
    let _ = editor.load_history(&history);
    let printer: Option<Printer> = editor
        .create_external_printer()
        .ok()
        .map(|p| Arc::new(Mutex::new(Box::new(p) as Box<dyn ExternalPrinter + Send>)));
    // The prompt is ready before the skills index is: what was loaded is said when it is.
    match (agent.take_prompt_watch(), &printer) {
        (Some(watch), Some(printer)) => {
            let printer = printer.clone();
            std::thread::spawn(move || {
                if let (Ok(loaded), Ok(mut p)) = (watch.recv(), printer.lock()) {
                    let _ = p.print(format!("{}\n", loaded_line(&loaded)));
                }
            });
        }
        _ => eprintln!("{}", loaded_line(agent.prompt_ready())),
    }
    let mut term = Terminal::new();
    let mut prefill = String::new();
    let mut ctrl_c = false;
    loop {
        let read = editor.readline_with_initial("› ", (&prefill, ""));
        prefill.clear();
        let line = match read {
            Ok(line) => line,
            Err(ReadlineError::Interrupted) => {
                if ctrl_c {
                    break;
                }
                ctrl_c = true;
                eprintln!("{}", term.dim("(Ctrl-C again or Ctrl-D to leave)"));
                continue;
            }
            Err(ReadlineError::Eof) => break,
            Err(e) => return Err(e.into()),
        };
        ctrl_c = false;
        let text = line.trim();
        if text.is_empty() {
            continue;
        }
        let _ = editor.add_history_entry(text);
        let _ = editor.save_history(&history);
        if let Some(command) = text.strip_prefix('/') {
            match command_turn(agent, options, &mut term, command, &printer, &mut prefill)? {
                Flow::Quit => break,
                Flow::Continue => continue,
            }
        }
        turn(agent, options, &mut term, text, text, &printer)?;
    }
    agent.end("cli_close")?;
    Ok(EXIT_OK)
}

enum Flow {
    Continue,
    Quit,
}

/// One turn of `message` (what the model gets) for `typed` (what the user typed).
fn turn(
    agent: &mut Agent,
    options: &ChatOptions,
    term: &mut Terminal,
    message: &str,
    typed: &str,
    printer: &Option<Printer>,
) -> anyhow::Result<TurnOutcome> {
    agent.interrupt.store(false, Ordering::SeqCst);
    term.spin();
    let outcome = agent.run_turn(message, term)?;
    term.stop();
    term.end_line();
    if outcome.interrupted {
        eprintln!(
            "{}",
            term.dim("⚡ interrupted; what was said so far is kept")
        );
    }
    if let Some(error) = &outcome.error {
        eprintln!("error: {error}");
        if let Some(hint) = outcome.hint {
            eprintln!("{}", term.dim(&format!("hint: {hint}")));
        }
    }
    finish_turn(agent, options, typed, &outcome, term, None, printer.clone())?;
    agent.interrupt.store(false, Ordering::SeqCst);
    Ok(outcome)
}

fn command_turn(
    agent: &mut Agent,
    options: &ChatOptions,
    term: &mut Terminal,
    command: &str,
    printer: &Option<Printer>,
    prefill: &mut String,
) -> anyhow::Result<Flow> {
    let (word, rest) = command
        .split_once(char::is_whitespace)
        .unwrap_or((command, ""));
    let rest = rest.trim();
    let word = word.to_lowercase();
    // Bundles, then skills, then a unique prefix of a built-in command.
    let bundle_dir = std::env::var_os("HERMES_BUNDLES_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| agent.home.skill_bundles_dir());
    let builtins: Vec<&str> = COMMANDS.iter().map(|(c, _)| *c).collect();
    let resolved = if builtins.contains(&word.as_str()) {
        Some(word.clone())
    } else {
        let matches: Vec<&str> = builtins
            .iter()
            .copied()
            .filter(|c| c.starts_with(&word))
            .collect();
        match matches.as_slice() {
            [one] if invoke::bundles(&bundle_dir).iter().all(|b| b.slug != word) => {
                Some(one.to_string())
            }
            _ => None,
        }
    };
    match resolved.as_deref() {
        Some("help") => {
            println!("Commands:");
            for (c, what) in COMMANDS.iter().filter(|(c, _)| *c != "exit") {
                println!("  /{c:<9} {what}");
            }
            let skills = invoke::skill_commands(agent.library(), &builtins);
            if !skills.is_empty() {
                println!(
                    "Skills: {}",
                    skills
                        .keys()
                        .map(|s| format!("/{s}"))
                        .collect::<Vec<_>>()
                        .join(" ")
                );
            }
            let bundles = invoke::bundles(&bundle_dir);
            if !bundles.is_empty() {
                println!(
                    "Bundles: {}",
                    bundles
                        .iter()
                        .map(|b| format!("/{}", b.slug))
                        .collect::<Vec<_>>()
                        .join(" ")
                );
            }
        }
        Some("quit") | Some("exit") => return Ok(Flow::Quit),
        Some("new") => {
            agent.start_new_session()?;
            eprintln!("{}", term.dim(&format!("new session {}", agent.session_id)));
        }
        Some("retry") => match agent.rewind_last_turn()? {
            Some((text, _)) => {
                let typed = typed_for(term, &text);
                eprintln!("{}", term.dim(&format!("retrying: {}", first_line(&typed))));
                turn(agent, options, term, &text, &typed, printer)?;
            }
            None => eprintln!("nothing to retry"),
        },
        Some("undo") => match agent.rewind_last_turn()? {
            Some((text, n)) => {
                eprintln!(
                    "{}",
                    term.dim(&format!(
                        "undid 1 turn ({n} message(s)); the text is back at the prompt"
                    ))
                );
                *prefill = typed_for(term, &text);
            }
            None => eprintln!("nothing to undo"),
        },
        Some("skills") => {
            let listing = crate::skills::list::skills_list_tool(agent.library(), None);
            let skills = listing
                .get("skills")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            if skills.is_empty() {
                println!("no skills yet (/learn makes one)");
            }
            for s in skills {
                let name = s.get("name").and_then(Value::as_str).unwrap_or("");
                let desc = s.get("description").and_then(Value::as_str).unwrap_or("");
                println!(
                    "  /{:<28} {}",
                    invoke::slug(name),
                    crate::io::sanitize::for_terminal(desc)
                );
            }
        }
        Some("memory") => match agent.memory_store() {
            Some(store) => {
                for target in [crate::memory::Target::User, crate::memory::Target::Memory] {
                    println!("{}:", crate::memory::snapshot::header_title(target));
                    for entry in store.entries(target) {
                        println!("  - {}", crate::io::sanitize::for_terminal(entry));
                    }
                }
            }
            None => {
                println!("memory is off (memory.memory_enabled and memory.user_profile_enabled)")
            }
        },
        Some("model") => {
            if rest.is_empty() {
                println!("{} on {}", agent.endpoint.model, agent.endpoint.provider);
            } else {
                agent.switch_model(rest)?;
                eprintln!("{}", term.dim(&format!("model: {rest}")));
            }
        }
        Some("usage") => println!(
            "{}",
            usage_line(
                agent.usage_totals()?,
                agent.calls_without_usage,
                &agent.endpoint.model
            )
        ),
        Some("compact") => {
            let mut outcome = TurnOutcome::default();
            if !agent.compact_now(term, &mut outcome, 0)? {
                println!("nothing to compact yet");
            }
        }
        Some("learn") => learn_turn(agent, options, term, rest, printer)?,
        Some(_) => {}
        None => return skill_turn(agent, options, term, &word, rest, &bundle_dir, printer),
    }
    Ok(Flow::Continue)
}

fn skill_turn(
    agent: &mut Agent,
    options: &ChatOptions,
    term: &mut Terminal,
    word: &str,
    instruction: &str,
    bundle_dir: &std::path::Path,
    printer: &Option<Printer>,
) -> anyhow::Result<Flow> {
    let typed = format!("/{word} {instruction}").trim_end().to_string();
    if let Some(bundle) = invoke::bundles(bundle_dir)
        .into_iter()
        .find(|b| b.slug == word)
    {
        let (message, loaded) = invoke::bundle_message(agent.library(), &bundle, instruction);
        ask_missing(
            agent,
            term,
            loaded.iter().flat_map(|l| l.missing_env.iter()),
        )?;
        eprintln!(
            "{}",
            term.dim(&format!(
                "loading bundle {} ({} skills)",
                bundle.name,
                loaded.len()
            ))
        );
        term.typed.insert(message.clone(), typed.clone());
        turn(agent, options, term, &message, &typed, printer)?;
        return Ok(Flow::Continue);
    }
    let skills = invoke::skill_commands(agent.library(), &COMMANDS.map(|(c, _)| c));
    let key = word.replace('_', "-");
    let Some(name) = skills.get(&key).cloned() else {
        eprintln!("Unknown command: /{word} (/help lists the commands and skills)");
        return Ok(Flow::Continue);
    };
    match invoke::skill_message(agent.library(), &name, instruction) {
        Ok((message, loaded)) => {
            ask_missing(agent, term, loaded.missing_env.iter())?;
            eprintln!("{}", term.dim(&format!("loading skill {}", loaded.name)));
            term.typed.insert(message.clone(), typed.clone());
            turn(agent, options, term, &message, &typed, printer)?;
        }
        Err(e) => eprintln!("/{word}: {e}"),
    }
    Ok(Flow::Continue)
}

/// Asks for each missing variable without echo and keeps it in `$HERMES_HOME/.env`.
fn ask_missing<'a>(
    agent: &mut Agent,
    term: &mut Terminal,
    names: impl Iterator<Item = &'a String>,
) -> anyhow::Result<()> {
    let env_file = agent.home.env_file();
    for name in names {
        let value = read_hidden(&format!(
            "{name} is needed by this skill (input hidden, Enter to skip): "
        ))?;
        if value.is_empty() {
            eprintln!(
                "{}",
                term.dim(&format!(
                    "skipped {name}; the skill may not work without it"
                ))
            );
            continue;
        }
        secrets::save_env_var(&env_file, name, &value)?;
        agent.add_tool_env(name, &value);
        eprintln!(
            "{}",
            term.dim(&format!("saved {name} in {}", env_file.display()))
        );
    }
    Ok(())
}

fn learn_turn(
    agent: &mut Agent,
    options: &ChatOptions,
    term: &mut Terminal,
    request: &str,
    printer: &Option<Printer>,
) -> anyhow::Result<()> {
    let before = agent.skills_created.len();
    let turn_starts = agent.messages.len();
    let typed = format!("/learn {request}").trim_end().to_string();
    let message = learn::prompt(request);
    term.typed.insert(message.clone(), typed.clone());
    turn(agent, options, term, &message, &typed, printer)?;
    let Some((name, dir)) = agent.skills_created[before..].last().cloned() else {
        let this_turn = agent.messages.get(turn_starts..).unwrap_or_default();
        eprintln!(
            "/learn: no skill was saved: {}",
            learn::why_nothing_was_saved(this_turn)
        );
        return Ok(());
    };
    let mut problems = learn::check(&dir);
    if !problems.is_empty() {
        eprintln!(
            "{}",
            term.dim(&format!(
                "/learn: {name} needs fixing ({} problem(s)); asking once more",
                problems.len()
            ))
        );
        turn(
            agent,
            options,
            term,
            &learn::retry_message(&name, &problems),
            "/learn (retry)",
            printer,
        )?;
        problems = learn::check(&dir);
    }
    if problems.is_empty() {
        eprintln!(
            "learned: {name} ({}); it is in the next session's skill index",
            dir.display()
        );
    } else {
        eprintln!("/learn: {name} was saved but still fails the standard:");
        for p in problems {
            eprintln!("  - {p}");
        }
    }
    Ok(())
}

/// `/usage`: the session row's totals (`[input, output, cache read, cache write, reasoning,
/// calls]`) and the calls whose answer said nothing of tokens, which the row does not count.
fn usage_line(totals: [i64; 6], without_usage: i64, model: &str) -> String {
    let [input, output, cache_read, cache_write, reasoning, calls] = totals;
    let unreported = if without_usage > 0 {
        format!(" ({without_usage} without a usage report: the token counts leave them out)")
    } else {
        String::new()
    };
    format!(
        "{} model call(s){unreported}: {} input tokens ({cache_read} cached, {cache_write} written to the cache), {output} output ({reasoning} reasoning); cost: unknown (no price list for {model})",
        calls + without_usage,
        input + cache_read + cache_write,
    )
}

/// What the user typed for a message taken back: remembered from this session, else read
/// back from a stored skill or bundle invocation, else the message itself.
fn typed_for(term: &Terminal, message: &str) -> String {
    term.typed
        .get(message)
        .cloned()
        .or_else(|| invoke::typed_form(message))
        .unwrap_or_else(|| message.to_string())
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or("").chars().take(80).collect()
}

/// Reads one line from stdin with the terminal's echo off (restored afterwards, also when the
/// read fails).
pub fn read_hidden(prompt: &str) -> std::io::Result<String> {
    let fd = libc::STDIN_FILENO;
    // SAFETY: tcgetattr/tcsetattr on our own stdin with a zeroed, then filled, termios.
    let mut original: libc::termios = unsafe { std::mem::zeroed() };
    let is_tty = unsafe { libc::tcgetattr(fd, &mut original) } == 0;
    if is_tty {
        let mut quiet = original;
        quiet.c_lflag &= !libc::ECHO;
        quiet.c_lflag |= libc::ECHONL;
        unsafe { libc::tcsetattr(fd, libc::TCSANOW, &quiet) };
    }
    // Echo is off before the prompt shows: a value typed or pasted as soon as the prompt
    // appears must never reach the screen.
    eprint!("{prompt}");
    let flushed = std::io::stderr().flush();
    let mut line = String::new();
    let read = flushed.and_then(|()| std::io::stdin().lock().read_line(&mut line));
    if is_tty {
        unsafe { libc::tcsetattr(fd, libc::TCSANOW, &original) };
    }
    read?;
    Ok(line.trim_end_matches(['\r', '\n']).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_counts_the_calls_that_reported_no_tokens_too() {
        assert_eq!(
            usage_line([0, 0, 0, 0, 0, 0], 7, "m"),
            "7 model call(s) (7 without a usage report: the token counts leave them out): 0 input tokens (0 cached, 0 written to the cache), 0 output (0 reasoning); cost: unknown (no price list for m)"
        );
        assert_eq!(
            usage_line([50, 25, 60, 0, 7, 2], 0, "m"),
            "2 model call(s): 110 input tokens (60 cached, 0 written to the cache), 25 output (7 reasoning); cost: unknown (no price list for m)"
        );
    }
}
