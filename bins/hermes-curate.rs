//! hermes-curate: keeps the skill library lean — marks unused agent-created skills stale,
//! archives them later, brings them back when used; backups, reports, pins. Run it from cron.

use std::process::ExitCode;

use anyhow::Context;

use clap::{Parser, Subcommand};
use hermes_loop::curator::command::{self, Ui};
use hermes_loop::curator::manage;
use hermes_loop::curator::run::RunOptions;
use hermes_loop::curator::usage_report::Sort;
use hermes_loop::home::Home;
use hermes_loop::io::cli::{CommonArgs, FormatArgs};
use hermes_loop::io::exit::{self, EXIT_CODES_HELP, Exit};
use hermes_loop::io::output::Output;
use hermes_loop::skills::library::Library;
use std::path::PathBuf;

const BIN: &str = "hermes-curate";

const AFTER_HELP: &str = "A typical crontab line:
  */30 * * * * $HOME/.cargo/bin/hermes-curate run --if-due --log $HOME/.hermes/logs/curate.log

`run` ignores `pause` when asked directly; `run --if-due` (cron) honours it.";

#[derive(Parser)]
#[command(name = BIN, version, about = "The skill curator: stale → archive, pins, restore, backups, reports (run it from cron)", after_help = format!("{AFTER_HELP}\n\n{EXIT_CODES_HELP}"))]
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
    /// The schedule, the last run, and the skills the curator manages
    Status,
    /// One curation pass: backup, automatic transitions, report
    Run {
        /// Show what would change; change nothing on disk
        #[arg(long)]
        dry_run: bool,
        /// The LLM consolidation pass (also when curator.consolidate is on in config.yaml)
        #[arg(long)]
        consolidate: bool,
        /// Write the consolidation pass's model calls to a cassette
        #[arg(long, value_name = "FILE", conflicts_with = "replay")]
        record: Option<PathBuf>,
        /// Answer the consolidation pass from a cassette (offline)
        #[arg(long, value_name = "FILE")]
        replay: Option<PathBuf>,
        /// Only when the schedule says so (seeds it on first use; honours pause)
        #[arg(long)]
        if_due: bool,
        /// Append the run's JSONL record (or its error) to FILE, creating its folder; only errors
        /// reach stderr (cron)
        #[arg(long, value_name = "FILE")]
        log: Option<PathBuf>,
    },
    /// Pause scheduled runs (`run --if-due` skips)
    Pause,
    /// Resume scheduled runs
    Resume,
    /// Exempt a skill from the automatic transitions
    Pin {
        /// The skill's name
        skill: String,
    },
    /// Undo pin
    Unpin {
        /// The skill's name
        skill: String,
    },
    /// Archive a skill now (into skills/.archive/)
    Archive {
        /// The skill's name
        skill: String,
    },
    /// Bring an archived skill back
    Restore {
        /// The archived skill's name
        skill: String,
    },
    /// The archived skills, one per line
    ListArchived,
    /// Archive now every managed skill idle for N days or more (cron-referenced ones kept)
    Prune {
        /// Idle days (no use, view or patch) that make a skill a candidate
        #[arg(long, default_value_t = 90, allow_negative_numbers = true)]
        days: i64,
        /// List the candidates; change nothing
        #[arg(long)]
        dry_run: bool,
        /// Do not ask for confirmation
        #[arg(short = 'y', long)]
        yes: bool,
    },
    /// Take a snapshot of skills/ now
    Backup {
        /// Why the snapshot was taken (shown by `rollback --list`)
        #[arg(long, default_value = "manual")]
        reason: String,
    },
    /// Restore skills/ from a snapshot (a safety snapshot is taken first)
    Rollback {
        /// List the snapshots
        #[arg(long)]
        list: bool,
        /// The snapshot to restore (default: the newest)
        #[arg(long = "id", value_name = "ID")]
        id: Option<String>,
        /// Do not ask for confirmation
        #[arg(short = 'y', long)]
        yes: bool,
    },
    /// Usage telemetry for every skill, with provenance
    Usage {
        /// Order: activity (uses + views + patches), recent (last activity), name
        #[arg(long, default_value = "activity", value_parser = ["activity", "recent", "name"])]
        sort: String,
        /// Only skills of this provenance: agent-created, bundled, or from the hub
        #[arg(long, value_parser = ["agent", "bundled", "hub"])]
        provenance: Option<String>,
    },
}

hermes_loop::without_huge_pages_from_the_start!();

fn main() -> ExitCode {
    let cli = hermes_loop::cli::parse::<Cli>();
    let log = match &cli.command {
        Command::Run { log, .. } => log.clone(),
        _ => None,
    };
    exit::run(BIN, || {
        let result = body(cli, log.as_deref());
        if let (Err(err), Some(path)) = (&result, &log) {
            hermes_loop::io::output::log_error(path, err);
        }
        result
    })
}

fn body(cli: Cli, log: Option<&std::path::Path>) -> anyhow::Result<Exit> {
    {
        let now = hermes_loop::clock::now()?;
        let frozen_clock =
            std::env::var(hermes_loop::clock::NOW_VAR).is_ok_and(|v| !v.trim().is_empty());
        // The curator looks after a home; it never creates one.
        let lib = Library::open(Home::resolve_existing(cli.common.home.as_deref())?)?;
        let mut out = match log {
            Some(path) => Output::append(path)
                .with_context(|| format!("cannot open the log {}", path.display()))?,
            None => Output::stdout(),
        };
        let mut ui = Ui {
            out: &mut out,
            format: match log {
                Some(_) => hermes_loop::io::format::Format::Jsonl,
                None => cli.format.resolve(),
            },
            // With --log the record carries what a note would say; stderr is for errors,
            // which cron mails.
            quiet: cli.common.quiet || log.is_some(),
        };
        let exit = match cli.command {
            Command::Status => command::status(&lib, now, &mut ui)?,
            Command::Run {
                dry_run,
                consolidate,
                if_due,
                record,
                replay,
                log: _,
            } => {
                let options = RunOptions {
                    dry_run,
                    if_due,
                    now,
                    frozen_clock,
                };
                let consolidation = if consolidate || lib.config.curator.consolidate {
                    let cwd = std::env::current_dir()?;
                    let model = hermes_loop::curator::model::resolve(
                        &lib.home,
                        &lib.config,
                        &cwd,
                        record.as_deref(),
                        replay.as_deref(),
                    )?;
                    Some(hermes_loop::curator::run::Consolidation { model, cwd })
                } else {
                    None
                };
                command::run_with(&lib, options, consolidation, &mut ui)?
            }
            Command::Pause => command::set_paused(&lib, true, &mut ui)?,
            Command::Resume => command::set_paused(&lib, false, &mut ui)?,
            Command::Pin { skill } => {
                command::answer(&skill, manage::pin(&lib, &skill, true, now), &mut ui)?
            }
            Command::Unpin { skill } => {
                command::answer(&skill, manage::pin(&lib, &skill, false, now), &mut ui)?
            }
            Command::Archive { skill } => command::archive(&lib, &skill, now, &mut ui)?,
            Command::Restore { skill } => {
                command::answer(&skill, manage::restore(&lib, &skill, now), &mut ui)?
            }
            Command::ListArchived => command::list_archived(&lib, &mut ui)?,
            Command::Prune { days, dry_run, yes } => {
                if days < 1 {
                    eprintln!("curator: --days must be >= 1 (got {days})");
                    return Ok(Exit::PartialFailure);
                }
                command::prune(&lib, days, dry_run, yes, now, &mut ui)?
            }
            Command::Backup { reason } => command::backup(&lib, &reason, now, &mut ui)?,
            Command::Rollback { list, id, yes } => {
                command::rollback(&lib, list, id.as_deref(), yes, now, &mut ui)?
            }
            Command::Usage { sort, provenance } => {
                let sort = Sort::parse(&sort).unwrap_or_default();
                command::usage(&lib, sort, provenance.as_deref(), now, &mut ui)?
            }
        };
        out.finish()?;
        Ok(exit)
    }
}
