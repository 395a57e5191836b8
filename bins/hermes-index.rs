//! hermes-index: the session store ($HERMES_HOME/state.db), compatible with Python Hermes.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;
use clap::{Parser, Subcommand};
use hermes_loop::home::Home;
use hermes_loop::io::cli::{CommonArgs, FormatArgs};
use hermes_loop::io::exit::{self, EXIT_CODES_HELP, Exit, Hinted};
use hermes_loop::io::format::Format;
use hermes_loop::io::jsonl::open_input;
use hermes_loop::io::output::Output;
use hermes_loop::sessions::{
    self, Access, Db, RetryPolicy, check, cjk_index, export, ingest, maintain, migrate, render,
};
use indicatif::ProgressBar;
use serde::Serialize;

const BIN: &str = "hermes-index";

#[derive(Parser)]
#[command(name = BIN, version, about = "The session store ($HERMES_HOME/state.db): create, fill, export, index, check.",
    after_help = EXIT_CODES_HELP)]
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
    /// Create or migrate state.db (schema v22) and bring every index up to date
    Init,
    /// Add sessions and messages from JSONL (session objects with `messages`, or message lines)
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
    exit::run(BIN, || {
        let cli = Cli::parse();
        let home = Home::resolve(cli.common.home.as_deref())?;
        let path = home.state_db();
        let format = cli.format.resolve();
        let quiet = cli.common.quiet;
        run(&cli.command, &path, format, quiet).map_err(with_hint)
    })
}

fn run(command: &Command, path: &Path, format: Format, quiet: bool) -> Result<Exit> {
    let mut out = Output::stdout();
    let exit = match command {
        Command::Init => {
            let (mut db, schema) = open_store(path, true)?;
            let cjk = catch_up(&mut db, quiet)?;
            #[derive(Serialize)]
            struct Init<'a> {
                path: &'a Path,
                #[serde(flatten)]
                schema: &'a migrate::SchemaReport,
                cjk: &'a cjk_index::CatchUp,
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
            let input = open_input(file.as_deref())?;
            let total = file
                .as_deref()
                .filter(|f| f.as_os_str() != "-")
                .and_then(|f| std::fs::metadata(f).ok())
                .map(|m| m.len());
            let (mut db, _) = open_store(path, true)?;
            catch_up(&mut db, quiet)?;
            let bar = progress(total, "ingest", quiet);
            let options = ingest::Options {
                keep_going: *keep_going,
                now: now()?,
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
        } => {
            let db = Db::open(path, Access::ReadOnly)?;
            let options = export::Options {
                session: session.clone(),
                active_only: *active_only,
            };
            let found = match file.as_deref().filter(|f| f.as_os_str() != "-") {
                None => export::export(&db, &options, &mut |line| out.raw(line.as_bytes()))?,
                Some(target) => {
                    let mut buf = Vec::new();
                    let found = export::export(&db, &options, &mut |line| {
                        buf.extend_from_slice(line.as_bytes());
                        Ok(())
                    })?;
                    if let export::Found::Exported(summary) = &found {
                        hermes_loop::io::atomic::write_atomic(
                            target,
                            &buf,
                            hermes_loop::io::atomic::FileMode::Umask,
                        )?;
                        emit(&mut out, format, summary, || {
                            format!(
                                "exported {} sessions, {} messages to {}",
                                summary.sessions,
                                summary.messages,
                                target.display()
                            )
                        })?;
                    }
                    found
                }
            };
            match found {
                export::Found::Exported(_) => Exit::Success,
                export::Found::NoSuchSession(id) => {
                    if !quiet {
                        eprintln!("{BIN}: no session {id:?} (no exact id, no unique prefix)");
                    }
                    Exit::Negative
                }
            }
        }
        Command::Rebuild => {
            let (mut db, _) = open_store(path, false)?;
            let messages: u64 = db
                .conn()
                .query_row("SELECT count(*) FROM messages", [], |r| r.get::<_, i64>(0))
                .map(|n| n as u64)?;
            let bar = progress(Some(messages * 3), "rebuild", quiet);
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
            let problems = findings.iter().filter(|f| !f.ok).count();
            let ok = problems == 0;
            match format {
                Format::Text => out.line(&render::findings(&findings, &repairs))?,
                Format::Json => out
                    .json(&serde_json::json!({"checks": findings, "repairs": repairs, "ok": ok}))?,
                Format::Jsonl => {
                    for f in &findings {
                        out.jsonl(&serde_json::json!({"type": "check", "check": f.check, "ok": f.ok, "detail": f.detail}))?;
                    }
                    for r in &repairs {
                        out.jsonl(&serde_json::json!({"type": "repair", "action": r.action, "detail": r.detail}))?;
                    }
                    out.jsonl(&serde_json::json!({"type": "summary", "ok": ok, "problems": problems, "repaired": repairs.len()}))?;
                }
            }
            if ok { Exit::Success } else { Exit::Negative }
        }
        Command::Stats => {
            let db = Db::open(path, Access::ReadOnly)?;
            let stats = sessions::stats::stats(&db)?;
            emit(&mut out, format, &stats, || render::stats(&stats))?;
            Exit::Success
        }
        Command::Optimize => {
            let (mut db, _) = open_store(path, false)?;
            catch_up(&mut db, quiet)?;
            let done = maintain::optimize(&mut db)?;
            emit(&mut out, format, &done, || render::optimized(&done))?;
            db.close();
            Exit::Success
        }
    };
    out.finish()?;
    Ok(exit)
}

/// Opens the store read-write and brings its schema to v22 (creating it when `create`).
fn open_store(path: &Path, create: bool) -> Result<(Db, migrate::SchemaReport)> {
    let mut db = if create {
        Db::create(path, RetryPolicy::default())?
    } else {
        Db::open(path, Access::ReadWrite)?
    };
    let schema = migrate::ensure_schema(&mut db)?;
    Ok((db, schema))
}

fn catch_up(db: &mut Db, quiet: bool) -> Result<cjk_index::CatchUp> {
    let lag = cjk_index::lag(db.conn())?;
    let bar = progress(
        (lag.behind > 100_000).then_some(lag.behind),
        "cjk index",
        quiet,
    );
    let done = cjk_index::catch_up(db, &|n| bar.inc(n))?;
    bar.finish_and_clear();
    Ok(done)
}

fn now() -> Result<f64> {
    Ok(hermes_loop::clock::unix_seconds(hermes_loop::clock::now()?))
}

fn progress(total: Option<u64>, label: &str, quiet: bool) -> ProgressBar {
    match total {
        Some(total) => hermes_loop::io::progress::bar(total, label, quiet),
        None if !quiet && std::io::stderr().is_terminal() => {
            ProgressBar::new_spinner().with_prefix(label.to_string())
        }
        None => ProgressBar::hidden(),
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
    {
        Some(hint) => anyhow::Error::new(Hinted::new(format!("{err:#}"), hint)),
        None => err,
    }
}
