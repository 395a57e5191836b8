//! hermes-recall: search every past session; the `session_search` tool's answers as a command.

use std::ffi::OsString;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Result;
use clap::{Parser, ValueEnum};
use hermes_loop::home::Home;
use hermes_loop::io::cli::{CommonArgs, FormatArgs};
use hermes_loop::io::exit::{self, EXIT_CODES_HELP, Exit, Hinted};
use hermes_loop::io::format::{Format, stdout_color};
use hermes_loop::io::jsonl::Records;
use hermes_loop::io::output::Output;
use hermes_loop::io::pyjson::{self, Dumps};
use hermes_loop::recall::{self, Args, Recall, render};
use hermes_loop::sessions;
use hermes_loop::team;
use hermes_loop::team::recall::Scope;
use serde_json::Value;

const BIN: &str = "hermes-recall";

/// One session_search call, against the local store or the team store.
type Answerer = dyn FnMut(&Args, Option<&str>) -> Value;

const MODES: &str = "\
Modes (as the session_search tool picks them):
  hermes-recall QUERY…                      discover: sessions matching QUERY, best first
  hermes-recall --session ID --around MSG   scroll: messages around MSG in session ID
  hermes-recall --session ID                read: the whole session (first 20 + last 10)
  hermes-recall                             browse: the most recent sessions
  hermes-recall --batch                     JSONL tool arguments on stdin, one answer per line

QUERY is FTS5 syntax: words (all must match), \"exact phrases\", OR, NOT, prefix*. A query
starting with `-` goes after `--`.

--batch input: one session_search argument object a line (the tool's own names: query, limit,
sort, role_filter, session_id, around_message_id, window, profile); one answer a line:
  {\"query\": \"docker compose\", \"limit\": 5}
  {\"session_id\": \"20261129_120000_ab12cd\", \"around_message_id\": 812, \"window\": 3}
  {}                                          browse

Examples:
  hermes-recall 'docker compose' --limit 5
  hermes-recall '\"connection refused\" OR timeout' --sort newest --format json
  hermes-recall --session 20261129_120000_ab12cd --around 812 --window 3
  hermes-recall --batch < questions.jsonl > answers.jsonl";

#[derive(Parser)]
#[command(name = BIN, version,
    after_help = format!("{MODES}\n\n{EXIT_CODES_HELP}"),
    about = "Search past sessions: the session_search tool's answers (discover, scroll, read, browse) as a command.")]
struct Cli {
    #[command(flatten)]
    common: CommonArgs,
    #[command(flatten)]
    format: FormatArgs,
    /// What to look for (its words are joined by spaces); none: browse recent sessions
    #[arg(value_parser = clap::value_parser!(OsString))]
    query: Vec<OsString>,
    /// Sessions to return: discover 1-10 (default 3), browse likewise
    #[arg(long, allow_negative_numbers = true)]
    limit: Option<i64>,
    /// Order by time instead of relevance
    #[arg(long, value_enum)]
    sort: Option<SortOrder>,
    /// Roles to search, comma-separated [default: user,assistant]
    #[arg(long, value_name = "ROLES")]
    role: Option<String>,
    /// The caller's live session: its lineage is left out (and scroll refuses it)
    #[arg(long, value_name = "ID")]
    current_session: Option<String>,
    /// Scroll in (with --around) or read this session; `PROFILE/ID` reads another profile
    #[arg(long, value_name = "ID")]
    session: Option<String>,
    /// The message id to centre a scroll on
    #[arg(
        long,
        value_name = "MSG_ID",
        allow_negative_numbers = true,
        requires = "session"
    )]
    around: Option<i64>,
    /// Messages each side of the anchor, 1-20 (default 5)
    #[arg(long, allow_negative_numbers = true, requires = "around")]
    window: Option<i64>,
    /// Read another profile's sessions
    #[arg(long, value_name = "NAME")]
    profile: Option<String>,
    /// Read JSONL tool-argument objects on stdin and write one answer per line
    #[arg(long, conflicts_with_all = ["query", "limit", "sort", "role", "session", "around", "window", "profile"])]
    batch: bool,
    /// With --batch: report a bad line on stderr and go on (exit 2 at the end)
    #[arg(long, requires = "batch")]
    keep_going: bool,
    /// Answer from the team store (a PostgreSQL URL; with no value, the PG* variables)
    /// instead of this home's state.db
    #[arg(long, value_name = "URL", num_args = 0..=1, default_missing_value = "", conflicts_with = "profile")]
    store: Option<String>,
    /// With --store: whose sessions to search
    #[arg(long, value_enum, requires = "store", default_value = "me")]
    scope: Scope,
    /// With --batch: report each answer's time on stderr (benchmarks)
    #[arg(long, requires = "batch", hide = true)]
    timings: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum SortOrder {
    Newest,
    Oldest,
}

fn main() -> ExitCode {
    exit::run(BIN, || {
        let cli = hermes_loop::cli::parse::<Cli>();
        hermes_loop::clock::now()?;
        let home = Home::resolve_existing(cli.common.home.as_deref())?;
        let format = cli.format.resolve();
        let mut answer: Box<Answerer> = match &cli.store {
            Some(url) => {
                let mut store =
                    team::recall::open(url, cli.scope, home.root()).map_err(team_hint)?;
                Box::new(move |args, current| store.answer(args, current))
            }
            None => {
                let recall = Recall::open(home.clone()).map_err(with_hint)?;
                Box::new(move |args, current| recall.answer(args, current))
            }
        };
        if cli.batch {
            batch(&mut *answer, &cli, format)
        } else {
            single(&mut *answer, &cli, format, &home)
        }
    })
}

/// The roles a message can have (`--role`).
const ROLES: &[&str] = &["user", "assistant", "tool", "system"];

/// The keys of a `session_search` call (`--batch` lines).
const KEYS: &[&str] = &[
    "query",
    "limit",
    "sort",
    "session_id",
    "around_message_id",
    "window",
    "role_filter",
    "profile",
];

/// A person's flags that the tool would silently ignore: an unknown role, or roles with no
/// query (a browse, which does not filter by role).
fn check_flags(cli: &Cli) -> Result<()> {
    let Some(roles) = &cli.role else {
        return Ok(());
    };
    for role in roles.split(',').map(str::trim).filter(|r| !r.is_empty()) {
        if !ROLES.contains(&role) {
            return Err(Hinted::new(
                format!("--role {role:?} is not a role"),
                format!("roles: {}", ROLES.join(", ")),
            )
            .into());
        }
    }
    if cli.query.is_empty() || cli.session.is_some() {
        return Err(Hinted::new(
            "--role filters a search, and there is no QUERY to search for",
            "give a QUERY, or drop --role",
        )
        .into());
    }
    Ok(())
}

/// `--session` takes an exact id or a unique prefix, as `hermes-index export --session`
/// does (the tool itself wants the exact id).
fn full_session_id(home: &Home, wanted: &str) -> String {
    if wanted.contains('/') {
        return wanted.to_string();
    }
    sessions::Db::open(&home.state_db(), sessions::Access::ReadOnly)
        .ok()
        .and_then(|db| {
            sessions::export::resolve_session_id(&db, wanted)
                .ok()
                .flatten()
        })
        .unwrap_or_else(|| wanted.to_string())
}

fn single(recall: &mut Answerer, cli: &Cli, format: Format, home: &Home) -> Result<Exit> {
    check_flags(cli)?;
    let session = match (&cli.session, &cli.store) {
        (Some(id), None) => Some(full_session_id(home, id)),
        (id, _) => id.clone(),
    };
    let args = Args {
        // Bytes that are not UTF-8 become U+FFFD rather than a usage error.
        query: Value::from(
            cli.query
                .iter()
                .map(|q| q.to_string_lossy())
                .collect::<Vec<_>>()
                .join(" "),
        ),
        limit: cli.limit.map_or(Value::Null, Value::from),
        sort: cli.sort.map_or(Value::Null, |s| {
            Value::from(match s {
                SortOrder::Newest => "newest",
                SortOrder::Oldest => "oldest",
            })
        }),
        session_id: session.map_or(Value::Null, Value::from),
        around_message_id: cli.around.map_or(Value::Null, Value::from),
        window: cli.window.map_or(Value::Null, Value::from),
        role_filter: cli.role.clone().map_or(Value::Null, Value::from),
        profile: cli.profile.clone().map_or(Value::Null, Value::from),
    };
    let answer = recall(&args, cli.current_session.as_deref());
    let mut out = Output::stdout();
    emit(&mut out, &answer, format, None)?;
    out.finish()?;
    Ok(if recall::is_negative(&answer) {
        Exit::Negative
    } else {
        Exit::Success
    })
}

fn batch(recall: &mut Answerer, cli: &Cli, format: Format) -> Result<Exit> {
    let mut out = Output::stdout();
    let mut bad = 0usize;
    hermes_loop::io::jsonl::announce_stdin(BIN, "session_search calls (JSONL)", None);
    let stdin = std::io::stdin().lock();
    for record in Records::new(stdin) {
        let record = match record {
            Ok(r) => r,
            Err(e) if e.is_bad_line() && cli.keep_going => {
                exit::warn(BIN, &e);
                bad += 1;
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        let Value::Object(object) = &record.value else {
            let message = format!(
                "line {}: expected an object of session_search arguments",
                record.line
            );
            if cli.keep_going {
                exit::warn(BIN, &message);
                bad += 1;
                continue;
            }
            anyhow::bail!(message);
        };
        if let Some(key) = object.keys().find(|k| !KEYS.contains(&k.as_str())) {
            // A typo'd key would be ignored and the call answered as a browse.
            let message = format!(
                "line {}: unknown key {key:?} (session_search takes: {})",
                record.line,
                KEYS.join(", ")
            );
            if cli.keep_going {
                exit::warn(BIN, &message);
                bad += 1;
                continue;
            }
            anyhow::bail!(message);
        }
        let started = Instant::now();
        let answer = recall(&Args::from_object(object), cli.current_session.as_deref());
        if cli.timings {
            eprintln!(
                "{{\"line\": {}, \"seconds\": {}}}",
                record.line,
                started.elapsed().as_secs_f64()
            );
        }
        emit(&mut out, &answer, format, Some(record.line))?;
    }
    out.finish()?;
    Ok(if bad > 0 {
        Exit::PartialFailure
    } else {
        Exit::Success
    })
}

/// Prints one answer: `jsonl` is byte for byte the string the tool returns, `json` the same
/// indented, `text` rendered for a person (an error answer goes to stderr then, with its
/// input line in batch mode; batch answers are separated by a blank line).
fn emit(out: &mut Output, answer: &Value, format: Format, line: Option<usize>) -> Result<()> {
    match format {
        Format::Jsonl => out.line(&pyjson::tool_result(answer))?,
        Format::Json => out.line(&pyjson::dumps(
            answer,
            Dumps {
                indent: Some(2),
                ensure_ascii: false,
                sort_keys: false,
            },
        ))?,
        Format::Text => match (render::error_text(answer), line) {
            (Some(message), Some(n)) => eprintln!("{BIN}: line {n}: {message}"),
            (Some(message), None) => eprintln!("{BIN}: {message}"),
            (None, _) => {
                out.raw(render::text(answer, stdout_color()).as_bytes())?;
                if line.is_some() {
                    out.line("")?;
                }
            }
        },
    }
    Ok(())
}

/// Attaches the store's hint (how to get past the error) so the exit path prints it.
fn with_hint(err: sessions::Error) -> anyhow::Error {
    match err.hint() {
        Some(hint) => anyhow::Error::new(Hinted::new(err.to_string(), hint)),
        None => anyhow::Error::new(err).context("opening the session store"),
    }
}

/// The team store's hint, when there is one, for the exit path to print.
fn team_hint(err: team::Error) -> anyhow::Error {
    match err.hint() {
        Some(hint) => anyhow::Error::new(Hinted::new(err.to_string(), hint)),
        None => anyhow::Error::new(err),
    }
}
