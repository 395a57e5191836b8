//! hermes-chat: the agent. One turn with the answer alone on stdout (`-z`), JSON events
//! (`--json`), JSONL turns on stdin, or a session at the terminal; every message stored in
//! state.db as Python Hermes stores it.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, ValueEnum};
use hermes_loop::agent::ApprovalMode;
use hermes_loop::agent::cli::{self, ChatOptions};
use hermes_loop::agent::sandboxing::SandboxChoice;
use hermes_loop::io::exit;
use hermes_loop::io::format::Format;
use hermes_loop::llm::Overrides;
use hermes_loop::sandbox::{Mode, Network};

const BIN: &str = "hermes-chat";

const AFTER_HELP: &str = "\
Examples:
  hermes-chat -z 'what changed in this repo today?'
  git diff | hermes-chat -z -                  # the prompt from stdin
  hermes-chat --json -z 'list my skills' | jq -c 'select(.type==\"item.completed\")'
  hermes-chat -c -z 'and the other one?'       # go on with the newest session
  hermes-chat --replay testdata/agent/demo.cassette.jsonl -z 'What skills do I have?'

Model: --model/--provider/--base-url, else config.yaml model.*; HERMES_BASE_URL and
HERMES_API_KEY override everything. --record FILE writes a cassette of the run; --replay FILE
answers from one (offline, deterministic with HERMES_NOW).

Exit codes: 0 the turn(s) ended with an answer; 1 a turn failed (model or API error, budget
spent without an answer, replay divergence); 2 a usage or setup error (flags, no model
configured, unreadable home); 130 interrupted.

Sandbox: every command runs contained (Landlock + seccomp): by default it may write the
working directory and a private temp dir, read everything but credentials (~/.ssh, cloud
and registry tokens, HERMES_HOME/.env), reach no network, and sees no API key or token
variable. --sandbox full turns containment off; docs/sandbox.md has the details.

Environment: HERMES_HOME (default ~/.hermes; --home overrides it), HERMES_NOW, HERMES_BASE_URL,
HERMES_API_KEY, HERMES_STREAM_READ_TIMEOUT (seconds).";

#[derive(Clone, Copy, ValueEnum)]
enum Approvals {
    /// Ask on the terminal, or with control_request in JSONL mode
    Ask,
    /// Refuse flagged commands, naming the rule
    Deny,
    /// Run flagged commands (the hard floor still refuses)
    Allow,
    /// Run flagged commands in the sandbox; ask only when the sandbox refused something,
    /// whether to run the command again outside it
    OnFailure,
    /// Ask for every command not on the known-safe list of read-only commands
    Untrusted,
}

#[derive(Clone, Copy, ValueEnum)]
enum SandboxMode {
    /// Read everything but credentials; write only a private temp dir
    ReadOnly,
    /// Also write the working directory (never HERMES_HOME, .git/hooks, .git/config)
    WorkspaceWrite,
    /// No containment: the explicit escape hatch
    Full,
}

#[derive(Clone, Copy, ValueEnum)]
enum NetworkMode {
    /// No internet sockets (Unix sockets stay)
    Off,
    /// A network namespace of the command's own: loopback only
    Loopback,
    /// The machine's network
    On,
}

#[derive(Clone, Copy, ValueEnum, PartialEq)]
enum InputFormat {
    Text,
    Jsonl,
}

/// The agent: converses with a model, runs tools, stores every message in state.db.
#[derive(Parser)]
#[command(name = BIN, version, after_help = AFTER_HELP)]
struct Cli {
    /// The Hermes home directory [default: $HERMES_HOME, else ~/.hermes]
    #[arg(long, value_name = "DIR")]
    home: Option<PathBuf>,
    /// One turn: print the final answer alone on stdout ('-' reads the prompt from stdin)
    #[arg(short = 'z', long = "oneshot", value_name = "PROMPT")]
    oneshot: Option<String>,
    /// JSONL events on stdout (Codex exec --json envelope)
    #[arg(long)]
    json: bool,
    /// Output: json or jsonl is --json (the events are a stream: JSONL either way); text is
    /// the default (the answer alone, or the session at a terminal)
    #[arg(long, value_enum, value_name = "FORMAT")]
    format: Option<Format>,
    /// Read turns (and approval answers) as JSONL on stdin; implies --json
    #[arg(long, value_enum, default_value = "text")]
    input_format: InputFormat,
    /// With --json: also item.delta events for streamed text
    #[arg(long)]
    stream_deltas: bool,
    /// Model for this run (overrides model.default)
    #[arg(short, long)]
    model: Option<String>,
    /// Provider for this run (custom, openrouter, …)
    #[arg(long)]
    provider: Option<String>,
    /// Endpoint for this run (…/v1)
    #[arg(long, value_name = "URL")]
    base_url: Option<String>,
    /// Go on with a stored session (id, id prefix or title)
    #[arg(short, long, value_name = "ID|TITLE", conflicts_with_all = ["continue_last", "fork"])]
    resume: Option<String>,
    /// Go on with the newest session of this source
    #[arg(short = 'c', long = "continue", conflicts_with = "fork")]
    continue_last: bool,
    /// Go on in a copy of a stored session (the copy's parent is the original)
    #[arg(long, value_name = "ID")]
    fork: Option<String>,
    /// Preload skills into the session (comma-separated)
    #[arg(short, long, value_delimiter = ',')]
    skills: Vec<String>,
    /// Model calls per turn [default: agent.max_turns, 90]
    #[arg(long, value_name = "N")]
    max_turns: Option<u32>,
    /// Flagged terminal commands [default: ask at a terminal (not with --json alone) or with
    /// --input-format jsonl; deny otherwise]
    #[arg(long, value_enum)]
    approvals: Option<Approvals>,
    /// What commands may touch [default: config sandbox.mode, else workspace-write]
    #[arg(long, value_enum, value_name = "MODE")]
    sandbox: Option<SandboxMode>,
    /// Network for commands [default: config sandbox.network, else off]
    #[arg(long, value_enum, value_name = "NET")]
    network: Option<NetworkMode>,
    /// Never start the background review
    #[arg(long, conflicts_with = "review_wait")]
    no_review: bool,
    /// Wait for the background review before exiting, and print its summary
    #[arg(long)]
    review_wait: bool,
    /// Write every request and answer to a cassette
    #[arg(long, value_name = "FILE", conflicts_with = "replay")]
    record: Option<PathBuf>,
    /// Answer from a cassette instead of a model (the replay provider)
    #[arg(long, value_name = "FILE")]
    replay: Option<PathBuf>,
    /// Also write the final answer to FILE
    #[arg(short = 'o', long, value_name = "FILE")]
    output_last_message: Option<PathBuf>,
    /// sessions.source of a new session
    #[arg(long, value_name = "TAG", default_value = "cli")]
    source: String,
    /// No notes on stderr (errors still)
    #[arg(short, long)]
    quiet: bool,
}

fn main() -> ExitCode {
    let cli = hermes_loop::cli::parse::<Cli>();
    let events = cli.json || cli.input_format == InputFormat::Jsonl;
    if cli.format == Some(Format::Text) && events {
        eprintln!("{BIN}: error: --format text contradicts --json (or --input-format jsonl)");
        return ExitCode::from(2);
    }
    let options = ChatOptions {
        home: cli.home,
        oneshot: cli.oneshot,
        json: events || matches!(cli.format, Some(Format::Json | Format::Jsonl)),
        input_jsonl: cli.input_format == InputFormat::Jsonl,
        stream_deltas: cli.stream_deltas,
        overrides: Overrides {
            model: cli.model,
            provider: cli.provider,
            base_url: cli.base_url,
        },
        resume: cli.resume,
        continue_last: cli.continue_last,
        fork: cli.fork,
        skills: cli.skills,
        max_turns: cli.max_turns,
        approvals: cli.approvals.map(|a| match a {
            Approvals::Ask => ApprovalMode::Ask,
            Approvals::Deny => ApprovalMode::Deny,
            Approvals::Allow => ApprovalMode::Allow,
            Approvals::OnFailure => ApprovalMode::OnFailure,
            Approvals::Untrusted => ApprovalMode::Untrusted,
        }),
        sandbox: SandboxChoice {
            mode: cli.sandbox.map(|m| match m {
                SandboxMode::ReadOnly => Mode::ReadOnly,
                SandboxMode::WorkspaceWrite => Mode::WorkspaceWrite,
                SandboxMode::Full => Mode::FullAccess,
            }),
            network: cli.network.map(|n| match n {
                NetworkMode::Off => Network::Off,
                NetworkMode::Loopback => Network::Loopback,
                NetworkMode::On => Network::On,
            }),
        },
        no_review: cli.no_review,
        review_wait: cli.review_wait,
        record: cli.record,
        replay: cli.replay,
        output_last_message: cli.output_last_message,
        source: cli.source,
        quiet: cli.quiet,
    };
    match cli::run(options) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            exit::report(BIN, &e);
            ExitCode::from(exit::ERROR_CODE)
        }
    }
}
