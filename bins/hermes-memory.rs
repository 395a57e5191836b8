//! hermes-memory: MEMORY.md and USER.md of a Hermes home — list, add, replace, remove, apply
//! memory tool calls, budgets, and the system-prompt block.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand};
use hermes_loop::home::{Config, Home};
use hermes_loop::io::cli::{CommonArgs, FormatArgs};
use hermes_loop::io::exit::{self, EXIT_CODES_HELP, Exit, Hinted};
use hermes_loop::io::format::Format;
use hermes_loop::io::jsonl::{open_input, read_batch};
use hermes_loop::io::output::Output;
use hermes_loop::memory::view;
use hermes_loop::memory::{self, Limits, MemoryError, MemoryStore, Target, tool};
use serde_json::{Value, json};

const BIN: &str = "hermes-memory";

const APPLY_HELP: &str = r#"Input: one memory tool argument object a line (the tool's own names):
  {"action":"add","target":"memory","content":"The project uses uv, not pip"}
  {"action":"replace","target":"user","old_text":"vim","content":"Editor is helix"}
  {"action":"remove","target":"memory","old_text":"uv"}
Output: the tool's result object for each line, one a line. The lines are one turn: budgets
and the threat scan apply as they would to the agent's calls.

Example:
  echo '{"action":"add","target":"user","content":"Prefers short answers"}' | hermes-memory apply
  hermes-memory apply --keep-going calls.jsonl

Exit codes: 0 every call succeeded; 1 a call was refused (its result says why); 2 bad input
or an I/O error (with --keep-going: at the end, when a line was left out)."#;

/// MEMORY.md (the agent's notes) and USER.md (who the user is): entries, budgets, threat
/// scan, duplicates, and the block the system prompt gets.
#[derive(Parser)]
#[command(name = BIN, version, after_help = EXIT_CODES_HELP)]
struct Cli {
    #[command(flatten)]
    common: CommonArgs,
    #[command(flatten)]
    format: FormatArgs,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List the entries with what the threat scan and the duplicate check say about them, or
    /// print the system-prompt block (--snapshot)
    #[command(visible_alias = "list")]
    Show {
        /// Only this store: memory (MEMORY.md) or user (USER.md) [default: both]
        #[arg(long, value_enum)]
        target: Option<Target>,
        /// The frozen system-prompt block(s), as a new session would render them
        #[arg(long)]
        snapshot: bool,
    },
    /// Add an entry
    Add {
        /// The store: memory (MEMORY.md, the agent's notes) or user (USER.md)
        #[arg(long, value_enum)]
        target: Target,
        /// The new entry
        text: String,
    },
    /// Replace the one entry that contains SUBSTRING
    Replace {
        /// The store: memory (MEMORY.md) or user (USER.md)
        #[arg(long, value_enum)]
        target: Target,
        /// Text the one entry to replace contains
        #[arg(long, value_name = "SUBSTRING")]
        old: String,
        /// The entry's new text
        text: String,
    },
    /// Remove the one entry that contains SUBSTRING
    Remove {
        /// The store: memory (MEMORY.md) or user (USER.md)
        #[arg(long, value_enum)]
        target: Target,
        /// Text the one entry to remove contains
        #[arg(long, value_name = "SUBSTRING")]
        old: String,
    },
    /// Apply memory tool calls: one argument object per JSONL line (stdin or FILE), one
    /// result per line, as one turn
    #[command(after_help = APPLY_HELP)]
    Apply {
        /// Report a bad line on stderr and go on (exit 2 at the end)
        #[arg(long)]
        keep_going: bool,
        /// JSONL of memory tool arguments [default: stdin]
        #[arg(value_name = "FILE")]
        input: Option<PathBuf>,
    },
    /// Characters used and budget per target
    Usage {
        /// Only this store: memory or user [default: both]
        #[arg(long, value_enum)]
        target: Option<Target>,
    },
}

fn main() -> ExitCode {
    exit::run(BIN, || {
        let cli = hermes_loop::cli::parse::<Cli>();
        hermes_loop::clock::now()?;
        let flag = cli.common.home.as_deref();
        let home = match cli.command {
            Command::Show { .. } | Command::Usage { .. } => Home::resolve_existing(flag)?,
            _ => Home::resolve(flag)?,
        };
        let existed = home.root().is_dir();
        let config = Config::load(&home)?;
        if !cli.common.quiet {
            config.warnings().iter().for_each(|w| exit::warn(BIN, w));
        }
        let store = MemoryStore::load(&home, Limits::from_config(&config.memory)).map_err(hint)?;
        let mut out = Output::stdout();
        let format = cli.format.resolve();
        let code = match cli.command {
            Command::Show {
                target,
                snapshot: true,
            } => snapshot(&mut out, format, &store, &config, target, cli.common.quiet)?,
            Command::Show { target, .. } => {
                view::print_show(&mut out, format, &store, &targets(target))?;
                Exit::Success
            }
            Command::Usage { target } => {
                view::print_usage(&mut out, format, &store, &targets(target))?;
                Exit::Success
            }
            Command::Add { target, text } => {
                let args = json!({"action": "add", "target": target.name(), "content": text});
                single(&mut out, format, store, &config, &args)?
            }
            Command::Replace { target, old, text } => {
                let args = json!({"action": "replace", "target": target.name(),
                    "old_text": old, "content": text});
                single(&mut out, format, store, &config, &args)?
            }
            Command::Remove { target, old } => {
                let args = json!({"action": "remove", "target": target.name(), "old_text": old});
                single(&mut out, format, store, &config, &args)?
            }
            Command::Apply { keep_going, input } => {
                apply(&mut out, format, store, &config, input, keep_going)?
            }
        };
        out.finish()?;
        exit::note_created_home(BIN, &home, existed, cli.common.quiet);
        Ok(code)
    })
}

fn targets(target: Option<Target>) -> Vec<Target> {
    target.map_or_else(|| Target::ALL.to_vec(), |t| vec![t])
}

fn snapshot(
    out: &mut Output,
    format: Format,
    store: &MemoryStore,
    config: &Config,
    target: Option<Target>,
    quiet: bool,
) -> anyhow::Result<Exit> {
    let enabled = |t: Target| t.enabled(&config.memory);
    if let Some(t) = target.filter(|t| !enabled(*t) && !quiet) {
        let (file, key) = (t.file_name(), t.enabled_key());
        exit::warn(
            BIN,
            format!("{file} is left out of the system prompt: {key} is off"),
        );
    }
    view::print_snapshot(out, format, store, &targets(target), enabled)?;
    Ok(Exit::Success)
}

/// One tool call from the command line.
fn single(
    out: &mut Output,
    format: Format,
    mut store: MemoryStore,
    config: &Config,
    args: &Value,
) -> anyhow::Result<Exit> {
    let result = call(&mut store, config, args)?;
    view::print_results(out, format, std::slice::from_ref(&result))?;
    Ok(outcome(&result))
}

fn apply(
    out: &mut Output,
    format: Format,
    mut store: MemoryStore,
    config: &Config,
    input: Option<PathBuf>,
    keep_going: bool,
) -> anyhow::Result<Exit> {
    hermes_loop::io::jsonl::announce_stdin(BIN, "memory tool calls (JSONL)", input.as_deref());
    let reader = open_input(input.as_deref())?;
    // Every line is read and checked before the first call: a bad line writes nothing.
    let batch = read_batch(reader, "memory tool arguments", keep_going, |e| {
        exit::warn(BIN, e)
    })?;
    let mut results = Vec::new();
    let mut refused = false;
    for (done, record) in batch.records.iter().enumerate() {
        let result = call(&mut store, config, &record.value)
            .with_context(|| stopped_at(record.line, done))?;
        refused |= outcome(&result) == Exit::Negative;
        if format == Format::Json {
            results.push(result);
        } else {
            view::print_results(out, format, std::slice::from_ref(&result))?;
        }
    }
    if format == Format::Json {
        view::print_results(out, format, &results)?;
    }
    Ok(if batch.bad_lines > 0 {
        Exit::PartialFailure
    } else if refused {
        Exit::Negative
    } else {
        Exit::Success
    })
}

/// Where a batch stopped when a call failed to write: the lines before stay written (each
/// call is its own atomic write, as the agent's are).
fn stopped_at(line: usize, done: usize) -> String {
    format!("line {line}: stopped; the {done} call(s) before it were applied")
}

fn call(store: &mut MemoryStore, config: &Config, args: &Value) -> anyhow::Result<Value> {
    if !memory::available(&config.memory) {
        return Ok(tool::unavailable());
    }
    tool::call(store, args).map_err(hint)
}

fn outcome(result: &Value) -> Exit {
    if view::succeeded(result) {
        Exit::Success
    } else {
        Exit::Negative
    }
}

/// Attaches the fix to errors a person can fix.
fn hint(err: MemoryError) -> anyhow::Error {
    match &err {
        MemoryError::InvalidUtf8 { path, .. } => anyhow::Error::new(Hinted::new(
            err.to_string(),
            format!(
                "memory files are UTF-8 text: fix or restore {} (nothing was written)",
                path.display()
            ),
        )),
        _ => anyhow::Error::new(err),
    }
}
