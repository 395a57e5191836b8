//! hermes-review: learn from one conversation — memory entries and skill changes made by the
//! model through the review's four tools, under the background-review write guards.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use hermes_loop::io::exit;
use hermes_loop::io::format::Format;
use hermes_loop::llm::Overrides;
use hermes_loop::review::cli::{self, ReviewOptions};

const BIN: &str = "hermes-review";

const AFTER_HELP: &str = "\
Input: message lines (role, content, tool_calls, tool_call_id; a leading system message is the
chat's prompt), a JSON array of them, or one session object with `messages` (hermes-index
export). Output (jsonl): one {\"type\":\"action\",\"tool\",\"arguments\",\"result\"} per tool call,
then {\"type\":\"summary\",\"line\":\"💾 Self-improvement review: …\",…}.

Examples:
  hermes-review ~/.hermes/pending/review/20261201_101500_ab12cd-1.jsonl
  hermes-index export --session ID | hermes-review --memory
  hermes-review eval testdata/review-eval/cases.jsonl --model my-model   # rank models
  hermes-review --propose conv.jsonl | jq -c 'select(.tool==\"skill_manage\" or .tool==\"skill_view\").arguments' \\
      | hermes-skills apply --origin background_review
  hermes-index export | hermes-review --batch -j 8     # learn from every stored session

Environment: HERMES_HOME, HERMES_NOW, HERMES_BASE_URL, HERMES_API_KEY; HERMES_REVIEW_REPLAY and
HERMES_REVIEW_RECORD stand for --replay/--record when neither flag is given (hermes-chat starts
the review with --home and the file only).

Exit codes: 0 the review ran (including \"Nothing to save.\"); 1 it failed (model or API error,
budget of 16 model calls spent, replay divergence) — writes made before stay; 2 bad usage,
bad input or a setup error.";

/// Reviews a conversation and saves what is worth keeping to memory and skills.
#[derive(Parser)]
#[command(name = BIN, version, after_help = AFTER_HELP, args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// The conversation ('-' or nothing reads stdin)
    input: Option<PathBuf>,
    /// The Hermes home directory [default: $HERMES_HOME, else ~/.hermes]
    #[arg(long, value_name = "DIR")]
    home: Option<PathBuf>,
    /// Review for memory (with --skills too: both; neither: both)
    #[arg(long)]
    memory: bool,
    /// Review for skills
    #[arg(long)]
    skills: bool,
    /// Review on another model: the conversation is sent as a digest
    #[arg(short, long)]
    model: Option<String>,
    /// Provider of that model
    #[arg(long)]
    provider: Option<String>,
    /// Endpoint of that model (…/v1)
    #[arg(long, value_name = "URL")]
    base_url: Option<String>,
    /// The summary line's detail [default: display.memory_notifications, else on]
    #[arg(long, value_parser = ["off", "on", "verbose"])]
    notify: Option<String>,
    /// Run the review but write nothing: print each change as a proposal with its diff
    #[arg(long)]
    propose: bool,
    /// Print the request that would be sent; send nothing
    #[arg(long, conflicts_with = "batch")]
    dry_run: bool,
    /// Write every request and answer to a cassette
    #[arg(long, value_name = "FILE", conflicts_with = "replay")]
    record: Option<PathBuf>,
    /// Answer from a cassette instead of a model
    #[arg(long, value_name = "FILE")]
    replay: Option<PathBuf>,
    /// Review many sessions: the input is one session object per line (hermes-index export)
    #[arg(long)]
    batch: bool,
    /// With --batch: reviews at a time
    #[arg(short = 'j', long = "jobs", value_name = "N", default_value_t = 4)]
    jobs: usize,
    /// With --batch: also review sessions an earlier batch reviewed
    #[arg(long, requires = "batch")]
    again: bool,
    /// Output format [default: text on a terminal, jsonl otherwise]
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// No notes on stderr (errors still)
    #[arg(short, long)]
    quiet: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Score the configured model's review decisions on labelled cases (one JSON object per
    /// line; see testdata/review-eval/): precision and recall per class, duplicates
    /// proposed, forbidden saves. Takes --model/--provider/--record/--replay.
    Eval {
        /// The cases
        cases: PathBuf,
        /// The model to score (overrides model.default)
        #[arg(short, long)]
        model: Option<String>,
        /// Provider of that model
        #[arg(long)]
        provider: Option<String>,
        /// Endpoint of that model (…/v1)
        #[arg(long, value_name = "URL")]
        base_url: Option<String>,
        /// Write every request and answer to a cassette
        #[arg(long, value_name = "FILE", conflicts_with = "replay")]
        record: Option<PathBuf>,
        /// Answer from a cassette instead of a model
        #[arg(long, value_name = "FILE")]
        replay: Option<PathBuf>,
        /// The Hermes home directory [default: $HERMES_HOME, else ~/.hermes]
        #[arg(long, value_name = "DIR")]
        home: Option<PathBuf>,
        /// Output format [default: text on a terminal, jsonl otherwise]
        #[arg(long, value_enum)]
        format: Option<Format>,
    },
}

fn main() -> ExitCode {
    let mut cli = hermes_loop::cli::parse::<Cli>();
    let mut eval = None;
    if let Some(Command::Eval {
        cases,
        model,
        provider,
        base_url,
        record,
        replay,
        home,
        format,
    }) = cli.command.take()
    {
        eval = Some(cases);
        cli.model = model.or(cli.model);
        cli.provider = provider.or(cli.provider);
        cli.base_url = base_url.or(cli.base_url);
        cli.record = record.or(cli.record);
        cli.replay = replay.or(cli.replay);
        cli.home = home.or(cli.home);
        cli.format = format.or(cli.format);
    }
    let options = ReviewOptions {
        home: cli.home,
        input: cli.input,
        memory: cli.memory,
        skills: cli.skills,
        overrides: Overrides {
            model: cli.model,
            provider: cli.provider,
            base_url: cli.base_url,
        },
        notify: cli.notify,
        propose: cli.propose,
        dry_run: cli.dry_run,
        record: cli.record,
        replay: cli.replay,
        format: cli.format,
        quiet: cli.quiet,
        batch: cli.batch,
        jobs: cli.jobs,
        again: cli.again,
        eval,
    };
    // Malformed HERMES_NOW is an error before anything is read.
    let checked = hermes_loop::clock::now()
        .map_err(anyhow::Error::from)
        .and_then(|_| cli::run(options));
    match checked {
        Ok(code) => ExitCode::from(code),
        Err(e) if exit::is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            exit::report(BIN, &e);
            ExitCode::from(exit::ERROR_CODE)
        }
    }
}
