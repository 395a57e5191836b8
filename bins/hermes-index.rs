//! hermes-index: the session store ($HERMES_HOME/state.db), compatible with Python Hermes.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};
use hermes_loop::home::Home;
use hermes_loop::io::cli::{CommonArgs, FormatArgs};
use hermes_loop::io::exit::{self, EXIT_CODES_HELP, Exit, Hinted};
use hermes_loop::io::format::Format;
use hermes_loop::io::jsonl::open_input;
use hermes_loop::io::output::Output;
use hermes_loop::io::progress::{self, Units};
use hermes_loop::sessions::{self, Access, Db, check, export, ingest, maintain, render};
use hermes_loop::team;
use indicatif::ProgressBar;
use serde::Serialize;

const BIN: &str = "hermes-index";

const INGEST_HELP: &str = r#"Input: one JSON object a line, either shape (they mix):
  a session with its messages (what `hermes-index export` and `hermes sessions export` write)
    {"id":"s1","source":"cli","started_at":1764590400,"messages":[{"role":"user","content":"hi"}]}
  a message of a session (the session is created when missing, `source` from the line or cli)
    {"session_id":"s1","role":"assistant","content":"hello","timestamp":1764590401}
Ingest is idempotent: a known session is enriched, a message already there is skipped. It ends
with one record: {"sessions":N,"messages":N,"skipped":N,"seconds":F}.

Examples:
  hermes-index ingest sessions.jsonl
  hermes-index export --after-id 0 | hermes-index --home /other/home ingest -
  hermes-index ingest --keep-going big.jsonl 2>bad-lines.txt

Exit codes: 0 done; 2 bad input (nothing of the bad line's batch is kept) or an I/O error;
with --keep-going, 2 at the end when any line was left out."#;

#[derive(Parser)]
#[command(name = BIN, version, after_help = EXIT_CODES_HELP,
    about = "The session store ($HERMES_HOME/state.db): create, fill, export, index, check.")]
struct Cli {
    #[command(flatten)]
    common: CommonArgs,
    #[command(flatten)]
    format: FormatArgs,
    /// The team store for `init` and `push`: a PostgreSQL URL (the password never printed);
    /// with no value, the PG* variables
    #[arg(long, global = true, value_name = "URL", num_args = 0..=1, default_missing_value = "")]
    store: Option<String>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Create or migrate state.db (schema v22) and bring every index up to date; with
    /// --store, create or migrate the team store's schema
    Init {
        /// With --store: give this role (or PUBLIC) what pushing and searching need
        #[arg(long, value_name = "ROLE")]
        grant: Option<String>,
    },
    /// Send this home's new and changed sessions to the team store (--store); safe to
    /// repeat, e.g. from cron every minute
    Push {
        /// The owner name to push as [default: the database role]
        #[arg(long, value_name = "NAME")]
        owner: Option<String>,
        /// New message ids per store transaction (tests and benchmarks)
        #[arg(long, hide = true, default_value_t = team::push::CHUNK)]
        chunk: i64,
        /// Append the push's JSONL record (or its error) to FILE, creating its folder (cron)
        #[arg(long, value_name = "FILE")]
        log: Option<PathBuf>,
    },
    /// Add sessions and messages from JSONL (session objects with `messages`, or message lines)
    #[command(after_help = INGEST_HELP)]
    Ingest {
        /// Input file; `-` or nothing reads stdin
        file: Option<PathBuf>,
        /// Report bad lines on stderr and go on (exit 2 at the end) instead of stopping
        #[arg(long)]
        keep_going: bool,
    },
    /// Write one session per line, in the shape `hermes sessions export` writes
    Export {
        /// Output file (replaced atomically); `-` or nothing writes stdout
        file: Option<PathBuf>,
        /// Only this session (exact id or unique prefix)
        #[arg(long, value_name = "ID")]
        session: Option<String>,
        /// Only the live transcript (upstream's lines exactly); default: every row
        #[arg(long)]
        active_only: bool,
        /// Instead: every message with an id above N, one message object per line, in id
        /// order (what `ingest` accepts)
        #[arg(long, value_name = "N", conflicts_with_all = ["session", "active_only", "file"])]
        after_id: Option<i64>,
    },
    /// Rebuild every full-text index from the messages table
    Rebuild,
    /// Integrity and index consistency; exit 1 when something is wrong
    Check {
        /// Fix what can be fixed, then check again
        #[arg(long)]
        repair: bool,
    },
    /// Sessions, messages, per source, index sizes, file size
    Stats,
    /// FTS optimize + VACUUM
    Optimize,
}

fn main() -> ExitCode {
    let cli = hermes_loop::cli::parse::<Cli>();
    let log = match &cli.command {
        Command::Push { log, .. } => log.clone(),
        _ => None,
    };
    exit::run(BIN, || {
        let result = body(&cli);
        if let (Err(err), Some(path)) = (&result, &log) {
            hermes_loop::io::output::log_error(path, err);
        }
        result
    })
}

fn body(cli: &Cli) -> Result<Exit> {
    {
        hermes_loop::clock::now()?;
        let flag = cli.common.home.as_deref();
        let home = match (&cli.command, &cli.store) {
            (Command::Init { .. } | Command::Ingest { .. }, None) => Home::resolve(flag)?,
            _ => Home::resolve_existing(flag)?,
        };
        let existed = home.root().is_dir();
        if let Some(url) = &cli.store {
            return team(&cli.command, url, &home, cli.format.resolve()).map_err(with_hint);
        }
        let path = home.state_db();
        let exit =
            run(&cli.command, &path, cli.format.resolve(), cli.common.quiet).map_err(with_hint)?;
        exit::note_created_home(BIN, &home, existed, cli.common.quiet);
        Ok(exit)
    }
}

fn run(command: &Command, path: &Path, format: Format, quiet: bool) -> Result<Exit> {
    let mut out = Output::stdout();
    let exit = match command {
        Command::Push { .. } => {
            anyhow::bail!("push needs the team store: hermes-index --store URL push")
        }
        Command::Export {
            after_id: Some(after),
            ..
        } => {
            let db = Db::open(path, Access::ReadOnly)?;
            team::export::export_after(&db, *after, &mut |line| out.raw(line.as_bytes()))?;
            Exit::Success
        }
        Command::Init { grant: Some(_) } => {
            anyhow::bail!(
                "--grant goes with the team store: hermes-index --store URL init --grant ROLE"
            )
        }
        Command::Init { grant: None } => {
            let bar = progress(None, "cjk index", quiet, Units::Count("messages"));
            let (db, schema, cjk) = sessions::open_for_write(path, true, &|n| bar.inc(n))?;
            bar.finish_and_clear();
            #[derive(Serialize)]
            struct Init<'a> {
                path: &'a Path,
                #[serde(flatten)]
                schema: &'a sessions::migrate::SchemaReport,
                cjk: &'a sessions::CatchUp,
            }
            let record = Init {
                path,
                schema: &schema,
                cjk: &cjk,
            };
            emit(&mut out, format, &record, || {
                render::init(path, &schema, &cjk)
            })?;
            db.close();
            Exit::Success
        }
        Command::Ingest { file, keep_going } => {
            let file = file.as_deref().filter(|f| f.as_os_str() != "-");
            hermes_loop::io::jsonl::announce_stdin(BIN, "sessions or messages (JSONL)", file);
            let input = open_input(file)?;
            let (mut db, _, _) = sessions::open_for_write(path, true, &|_| {})?;
            let bar = progress(
                file.and_then(|f| std::fs::metadata(f).ok())
                    .map(|m| m.len()),
                "ingest",
                quiet,
                Units::Bytes,
            );
            let now = hermes_loop::clock::unix_seconds(hermes_loop::clock::now()?);
            let options = ingest::Options {
                keep_going: *keep_going,
                now,
                ..ingest::Options::default()
            };
            let observer = ingest::Observer {
                progress: &|n| bar.set_position(n),
                warn: &|m| {
                    bar.suspend(|| {
                        if !quiet {
                            exit::warn(BIN, m)
                        }
                    })
                },
            };
            let summary = ingest::ingest(&mut db, input, options, &observer)?;
            bar.finish_and_clear();
            emit(&mut out, format, &summary, || render::ingested(&summary))?;
            db.close();
            if summary.bad_lines > 0 {
                Exit::PartialFailure
            } else {
                Exit::Success
            }
        }
        Command::Export {
            file,
            session,
            active_only,
            after_id: None,
        } => {
            let db = Db::open(path, Access::ReadOnly)?;
            let options = export::Options {
                session: session.clone(),
                active_only: *active_only,
            };
            let found = match file.as_deref().filter(|f| f.as_os_str() != "-") {
                // `--format json` asked for one JSON document: the sessions as an array.
                None if format == Format::Json => {
                    let mut sessions = Vec::new();
                    let found = export::export(&db, &options, &mut |line| {
                        let value: serde_json::Value =
                            serde_json::from_str(line.trim_end()).map_err(std::io::Error::other)?;
                        sessions.push(value);
                        Ok(())
                    })?;
                    if matches!(found, export::Found::Exported(_)) {
                        out.json(&sessions)?;
                    }
                    found
                }
                None => export::export(&db, &options, &mut |line| out.raw(line.as_bytes()))?,
                Some(target) => {
                    let found = export::export_to_file(&db, &options, target)?;
                    if let export::Found::Exported(s) = &found {
                        let text = || {
                            format!(
                                "exported {} sessions, {} messages to {}",
                                s.sessions,
                                s.messages,
                                target.display()
                            )
                        };
                        emit(&mut out, format, s, text)?;
                    }
                    found
                }
            };
            if let export::Found::NoSuchSession(id) = found {
                if !quiet {
                    eprintln!("{BIN}: no session {id:?} (no exact id, no unique prefix)");
                }
                Exit::Negative
            } else {
                Exit::Success
            }
        }
        Command::Rebuild => {
            let (mut db, _, _) = sessions::open_for_write(path, false, &|_| {})?;
            let messages = db
                .conn()
                .query_row("SELECT count(*) FROM messages", [], |r| r.get::<_, i64>(0))?;
            // Three indexes, each a pass over every message.
            let bar = progress(
                Some(messages.max(0) as u64 * 3),
                "rebuild",
                quiet,
                Units::Count("index rows"),
            );
            let done = maintain::rebuild(&mut db, &|n| bar.inc(n))?;
            bar.finish_and_clear();
            emit(&mut out, format, &done, || render::rebuilt(&done))?;
            db.close();
            Exit::Success
        }
        Command::Check { repair } => {
            let mut db = Db::open(
                path,
                if *repair {
                    Access::ReadWrite
                } else {
                    Access::ReadOnly
                },
            )?;
            let mut findings = check::check(&db)?;
            let mut repairs = Vec::new();
            if *repair && findings.iter().any(|f| !f.ok) {
                repairs = check::repair(&mut db, &findings)?;
                findings = check::check(&db)?;
            }
            match format {
                Format::Text => out.line(&render::findings(&findings, &repairs))?,
                Format::Json => out.json(&check::document(&findings, &repairs))?,
                Format::Jsonl => check::records(&findings, &repairs)
                    .iter()
                    .try_for_each(|r| out.jsonl(r))?,
            }
            if findings.iter().all(|f| f.ok) {
                Exit::Success
            } else {
                Exit::Negative
            }
        }
        Command::Stats => {
            let stats = sessions::stats::stats(&Db::open(path, Access::ReadOnly)?)?;
            emit(&mut out, format, &stats, || render::stats(&stats))?;
            Exit::Success
        }
        Command::Optimize => {
            let (mut db, _, _) = sessions::open_for_write(path, false, &|_| {})?;
            let done = maintain::optimize(&mut db)?;
            emit(&mut out, format, &done, || render::optimized(&done))?;
            db.close();
            Exit::Success
        }
    };
    out.finish()?;
    Ok(exit)
}

/// The commands that work on the team store.
fn team(command: &Command, url: &str, home: &Home, format: Format) -> Result<Exit> {
    let (mut out, format) = match command {
        Command::Push {
            log: Some(path), ..
        } => (
            Output::append(path)
                .with_context(|| format!("cannot open the log {}", path.display()))?,
            Format::Jsonl,
        ),
        _ => (Output::stdout(), format),
    };
    let mut store = team::connect::connect(url, &team::connect::process_env)?;
    match command {
        Command::Init { grant } => {
            let report = team::schema::init(&mut store.client, grant.as_deref())?;
            emit(&mut out, format, &report, || {
                format!(
                    "team store {}: schema version {} (was {})",
                    store.target, report.version, report.from_version
                )
            })?;
        }
        Command::Push { owner, chunk, .. } => {
            let report = team::push::push(
                &mut store,
                home.root(),
                &home.state_db(),
                owner.as_deref(),
                *chunk,
            )?;
            emit(&mut out, format, &report, || {
                format!(
                    "pushed home {} to {}: {} sessions, {} new messages, {} changed, {} deleted ({:.2}s)",
                    report.home_id,
                    store.target,
                    report.sessions,
                    report.messages,
                    report.messages_changed,
                    report.messages_deleted,
                    report.seconds
                )
            })?;
        }
        _ => anyhow::bail!("--store goes with `init` and `push` only"),
    }
    out.finish()?;
    Ok(Exit::Success)
}

/// A bar for `total` items (a spinner when unknown), only on a terminal and without `-q`.
fn progress(total: Option<u64>, label: &str, quiet: bool, units: Units) -> ProgressBar {
    match total {
        Some(total) => progress::bar_in(total, label, quiet, units),
        None => progress::spinner(label, quiet, units),
    }
}

fn emit<T: Serialize>(
    out: &mut Output,
    format: Format,
    value: &T,
    text: impl FnOnce() -> String,
) -> Result<()> {
    match format {
        Format::Text => out.line(&text())?,
        Format::Json => out.json(value)?,
        Format::Jsonl => out.jsonl(value)?,
    }
    Ok(())
}

/// Attaches the library's hint (how to get past the error) so the exit path prints it.
fn with_hint(err: anyhow::Error) -> anyhow::Error {
    match err
        .downcast_ref::<sessions::Error>()
        .and_then(sessions::Error::hint)
        .or_else(|| {
            err.downcast_ref::<team::Error>()
                .and_then(team::Error::hint)
        }) {
        Some(hint) => anyhow::Error::new(Hinted::new(exit::chain_text(&err), hint)),
        None => err,
    }
}
