//! One curator run: the schedule check (`--if-due`), the cron references and the sidecar
//! checked before anything changes, the backup, the automatic transitions over one index
//! with one sidecar write, the state, the report.
//!
//! A run is refused before it touches anything when the sidecar or `cron/jobs.json` cannot
//! be read (Hermes reads both as empty and goes on: it would then seed and overwrite the
//! sidecar, and archive skills a job needs), when the backup fails (Hermes runs without
//! one), or while another run holds `logs/curator/.run.lock`.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::Instant;

use jiff::Timestamp;
use serde_json::Value as Json;

use super::backup::{self, BackupError};
use super::classify::{self, Classification};
use super::consolidate;
use super::cron::{self, CronError};
use super::report::{LlmMeta, RunReport};
use super::rows::{self, Row};
use super::state::{CuratorState, Loaded, Schedule, schedule};
use super::transitions::{self, Applied, ArchivedSkill, Change, Counts, Cutoffs, Plan, Planned};
use crate::io::FileError;
use crate::io::lock::FileLock;
use crate::skills::archive;
use crate::skills::library::{Index, Library};
use crate::skills::usage::{self, SidecarError};

/// Why a curator command could not do its work. Nothing was changed on disk unless the
/// variant says so.
#[derive(Debug, thiserror::Error)]
pub enum CurateError {
    #[error("curator: disabled via config; enable with `curator.enabled: true`")]
    Disabled,
    #[error("another hermes-curate run holds {}", .0.display())]
    Busy(PathBuf),
    #[error(transparent)]
    Sidecar(#[from] SidecarError),
    #[error("cannot read the cron jobs, so the skills they need are unknown: {0}")]
    Cron(#[from] CronError),
    #[error("the backup before the run failed, so nothing was changed: {0}")]
    Backup(#[from] BackupError),
    #[error(transparent)]
    File(#[from] FileError),
    /// Folders were moved but their new state could not be recorded.
    #[error("moved {moved} skill(s) into .archive but could not record it: {source}")]
    Unrecorded {
        moved: usize,
        backup: Option<String>,
        source: FileError,
    },
}

impl CurateError {
    /// What the person should do about it.
    pub fn hint(&self) -> Option<String> {
        Some(match self {
            CurateError::Disabled => return None,
            CurateError::Busy(_) => {
                "wait for it to finish; a stale lock is released when its process ends".into()
            }
            CurateError::Sidecar(SidecarError::Corrupt { .. }) => "restore skills/.usage.json from the latest snapshot (`hermes-curate rollback --list`), or fix it by hand or move it away to start counting afresh".into(),
            CurateError::Sidecar(_) | CurateError::File(_) => {
                "check the permissions and free space of the skills directory".into()
            }
            CurateError::Cron(_) => "fix cron/jobs.json (or move it away if no job needs a skill), then run again".into(),
            CurateError::Backup(_) => "free some space or fix the permissions of skills/.curator_backups; to run without a backup set `curator.backup.enabled: false`".into(),
            CurateError::Unrecorded { backup, .. } => match backup {
                Some(id) => format!("the snapshot taken before the run holds the tree as it was: `hermes-curate rollback --id {id}`"),
                None => "the archived folders are under skills/.archive; `hermes-curate restore NAME` brings one back".into(),
            },
        })
    }
}

/// How to run.
#[derive(Debug, Clone, Copy)]
pub struct RunOptions {
    /// Plan and report what would change; change nothing on disk.
    pub dry_run: bool,
    /// Only when the schedule says so (for cron).
    pub if_due: bool,
    /// The run's clock.
    pub now: Timestamp,
    /// `HERMES_NOW` is set: durations are 0 so reports are reproducible.
    pub frozen_clock: bool,
}

/// A run that did not happen, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Skipped {
    pub schedule: Schedule,
    /// A first-run seed was written (never in a dry run).
    pub seeded_written: bool,
}

/// A run that happened (or was previewed).
#[derive(Debug, Clone, PartialEq)]
pub struct Ran {
    pub dry_run: bool,
    pub counts: Counts,
    /// What was planned (the preview of a dry run; the plan of a live one).
    pub planned: Vec<Planned>,
    pub changes: Vec<Change>,
    pub archived: Vec<ArchivedSkill>,
    /// Skills whose step failed, with the reason.
    pub failures: Vec<(String, String)>,
    /// Skills left alone because their record is unreadable.
    pub unreadable: Vec<(String, String)>,
    pub backup: Option<String>,
    pub report: Option<PathBuf>,
    /// Report writing failed (the run itself succeeded).
    pub report_error: Option<String>,
    pub summary: String,
    /// The `.curator_state` file could not be read and was kept aside.
    pub state_was_corrupt: Option<String>,
    pub paused: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Skipped(Skipped),
    Ran(Box<Ran>),
}

/// The LLM pass never runs here: why, for the summary and the report.
fn llm_skip_reason(lib: &Library) -> &'static str {
    if lib.config.curator.consolidate {
        "consolidation not available"
    } else {
        "consolidation off"
    }
}

/// Runs the curator once (the deterministic pass alone).
pub fn run(lib: &Library, options: RunOptions) -> Result<Outcome, CurateError> {
    run_consolidating(lib, options, None)
}

/// The consolidation pass of a run: its model, and the directory the agent runs in.
pub struct Consolidation {
    pub model: consolidate::Model,
    pub cwd: PathBuf,
}

/// The LLM pass over the managed skills as they are now; its classification and report
/// parts. `live`: cron jobs are rewritten after it.
fn consolidation_pass(
    lib: &Library,
    c: Consolidation,
    before: &[Row],
    cron_refs: &BTreeSet<String>,
    options: RunOptions,
) -> (LlmMeta, Classification, Vec<Row>, Option<Json>) {
    let outcome = consolidate::run(
        lib,
        c.model,
        before,
        cron_refs,
        options.dry_run,
        options.now,
        options.frozen_clock,
        &c.cwd,
    );
    let after = managed_rows(lib, options.now);
    let names =
        |rows: &[Row]| -> BTreeSet<String> { rows.iter().map(|r| r.name.clone()).collect() };
    let meta = outcome
        .meta
        .unwrap_or_else(|| LlmMeta::skipped("no candidates"));
    let classified = classify::classify(
        &names(before),
        &names(&after),
        &outcome.calls,
        &meta.final_text,
    );
    let rewrites = (!options.dry_run).then(|| {
        cron::rewrite_skill_refs(
            &lib.home,
            &classified.rename_map(),
            &classified.pruned_names(),
            options.now,
        )
    });
    (meta, classified, after, rewrites)
}

/// Runs the curator once, with the LLM consolidation pass when `consolidation` is given.
pub fn run_consolidating(
    lib: &Library,
    options: RunOptions,
    consolidation: Option<Consolidation>,
) -> Result<Outcome, CurateError> {
    let home = &lib.home;
    let config = &lib.config.curator;
    let now = options.now;
    let started = Instant::now();
    let (mut state, state_was_corrupt) = match CuratorState::load(home) {
        Loaded::Ok(s) => (s, None),
        // A dry run writes nothing, so it may look with the defaults; a run would have to
        // overwrite the file it could not read, and refuses before changing anything.
        Loaded::Corrupt(s, why) if options.dry_run => (s, Some(why)),
        Loaded::Corrupt(_, why) => return Err(super::state::refuse_corrupt(home, &why).into()),
    };
    if options.if_due {
        match schedule(&state, config, now) {
            Schedule::Due { .. } => {}
            Schedule::Seed(seeded) => {
                if !options.dry_run {
                    seeded.save(home)?;
                }
                return Ok(Outcome::Skipped(Skipped {
                    schedule: Schedule::Seed(seeded),
                    seeded_written: !options.dry_run,
                }));
            }
            other => {
                return Ok(Outcome::Skipped(Skipped {
                    schedule: other,
                    seeded_written: false,
                }));
            }
        }
    } else if !config.enabled {
        return Err(CurateError::Disabled);
    }
    let cron_refs = cron::referenced_skill_names(home)?;
    let checked = usage::load_checked(home)?;
    let _run_lock = if options.dry_run {
        None
    } else {
        let path = home.curator_logs_dir().join(".run.lock");
        Some(
            FileLock::acquire_within(&path, std::time::Duration::ZERO)?
                .ok_or_else(|| CurateError::Busy(path.clone()))?,
        )
    };
    let paused = state.paused();
    let cutoffs = Cutoffs::new(config, now);

    if options.dry_run {
        let index = Index::with_usage(lib, checked);
        let rows = rows::agent_created(&index, now);
        let plan = transitions::plan(&rows, &cron_refs, cutoffs);
        let mut summary = format!(
            "dry-run auto: {}; llm: skipped ({})",
            plan.counts.summary(),
            llm_skip_reason(lib)
        );
        let (mut report_dir, mut report_error) = (None, None);
        if let Some(c) = consolidation {
            drop(index);
            let (meta, classified, after, _) =
                consolidation_pass(lib, c, &rows, &cron_refs, options);
            summary = format!(
                "dry-run auto: {}; llm: {}",
                plan.counts.summary(),
                meta.summary
            );
            let report = RunReport {
                started_at: now,
                elapsed_seconds: if options.frozen_clock {
                    0.0
                } else {
                    started.elapsed().as_secs_f64()
                },
                auto_counts: plan.counts,
                before: &rows,
                after: &after,
                llm: meta,
                auto_archived: &[],
                auto_changes: &[],
                skills_dir: &home.skills_dir(),
                classified: Some(&classified),
                cron_rewrites: None,
            };
            match report.write(&home.curator_logs_dir()) {
                Ok(dir) => report_dir = Some(dir),
                Err(e) => report_error = Some(e.to_string()),
            }
        }
        return Ok(Outcome::Ran(Box::new(Ran {
            dry_run: true,
            counts: plan.counts,
            planned: plan.steps,
            changes: Vec::new(),
            archived: Vec::new(),
            failures: Vec::new(),
            unreadable: plan.skipped,
            backup: None,
            report: report_dir,
            report_error,
            summary,
            state_was_corrupt,
            paused,
        })));
    }
    drop(checked);

    // The sidecar is locked first, so the snapshot and the pass see the same file. The
    // snapshot is written while the tree is read and the pass planned (both only read);
    // nothing moves until it is complete.
    let pass = Pass::open(lib)?;
    let (backup, pass, plan) = std::thread::scope(|scope| {
        let snapshot = config.backup_enabled.then(|| {
            scope.spawn(|| backup::snapshot(home, "pre-curator-run", config.backup_keep, &[], now))
        });
        let (pass, plan) = pass.run(|index| {
            let rows = rows::agent_created(index, now);
            transitions::plan(&rows, &cron_refs, cutoffs)
        });
        let backup = match snapshot.map(|handle| handle.join()) {
            None => Ok(None),
            Some(Ok(result)) => result.map(|s| s.map(|s| s.id)),
            Some(Err(_)) => Err(BackupError::Refused("the backup thread panicked".into())),
        };
        (backup, pass, plan)
    });
    let backup = backup?;
    let (pass, (applied, after)) = pass.run(|index| {
        let applied = transitions::apply(lib, index, &plan, now);
        let after = rows::agent_created(index, now);
        (applied, after)
    });
    pass.commit(lib, &applied)
        .map_err(|source| CurateError::Unrecorded {
            moved: applied.archived.len(),
            backup: backup.clone(),
            source,
        })?;

    let auto = applied.counts.summary();
    let mut summary = format!("auto: {auto}; llm: skipped ({})", llm_skip_reason(lib));
    let (llm, classified, after_llm, rewrites) = match consolidation {
        Some(c) => {
            let (meta, classified, after_llm, rewrites) =
                consolidation_pass(lib, c, &after, &cron_refs, options);
            summary = format!("auto: {auto}; llm: {}", meta.summary);
            let renames = classify::rename_summary(&classified);
            if !renames.is_empty() {
                summary = format!("{summary}\n{renames}");
            }
            (meta, Some(classified), after_llm, rewrites)
        }
        None => (
            LlmMeta::skipped(llm_skip_reason(lib)),
            None,
            after.clone(),
            None,
        ),
    };
    let elapsed = if options.frozen_clock {
        0.0
    } else {
        started.elapsed().as_secs_f64()
    };
    let report = RunReport {
        started_at: now,
        elapsed_seconds: elapsed,
        auto_counts: applied.counts,
        before: &after,
        after: &after_llm,
        llm,
        auto_archived: &applied.archived,
        auto_changes: &applied.changes,
        skills_dir: &home.skills_dir(),
        classified: classified.as_ref(),
        cron_rewrites: rewrites,
    };
    let (report_dir, report_error) = match report.write(&home.curator_logs_dir()) {
        Ok(dir) => (Some(dir), None),
        Err(e) => (None, Some(e.to_string())),
    };
    state.record_run(now);
    state.set("last_run_summary", Json::String(summary.clone()));
    state.set(
        "last_run_duration_seconds",
        serde_json::Number::from_f64(elapsed).map_or(Json::Null, Json::Number),
    );
    if let Some(dir) = &report_dir {
        state.set("last_report_path", Json::String(dir.display().to_string()));
    }
    state.save(home)?;
    Ok(Outcome::Ran(Box::new(Ran {
        dry_run: false,
        counts: applied.counts,
        planned: plan.steps,
        changes: applied.changes,
        archived: applied.archived,
        failures: applied.failures,
        unreadable: plan.skipped,
        backup,
        report: report_dir,
        report_error,
        summary,
        state_was_corrupt,
        paused,
    })))
}

/// The sidecar under its lock and the index over it, for one pass that writes once.
pub struct Pass {
    locked: usage::Locked,
    index: Index,
}

impl Pass {
    pub fn open(lib: &Library) -> Result<Pass, CurateError> {
        let mut locked = usage::lock_checked(&lib.home)?;
        let map = std::mem::take(&mut locked.map);
        let index = Index::with_usage(lib, map);
        Ok(Pass { locked, index })
    }

    /// Runs `work` on the index.
    pub fn run<T>(mut self, work: impl FnOnce(&mut Index) -> T) -> (Pass, T) {
        let out = work(&mut self.index);
        (self, out)
    }

    /// Writes what the pass changed: the sidecar (once), `.curator_suppressed` (once), and
    /// drops the prompt snapshot when folders moved.
    pub fn commit(mut self, lib: &Library, applied: &Applied) -> Result<(), FileError> {
        if !applied.suppressed.is_empty() {
            let mut names = archive::read_suppressed(&lib.home);
            names.extend(applied.suppressed.iter().cloned());
            archive::write_suppressed(&lib.home, &names)?;
        }
        if !applied.archived.is_empty() {
            lib.invalidate_prompt_snapshot();
        }
        if applied.sidecar_changed {
            self.locked.map = std::mem::take(&mut self.index.usage);
            self.locked.save()?;
        }
        Ok(())
    }
}

/// Archives the named skills in one pass (`prune`): one sidecar write.
pub fn archive_many(
    lib: &Library,
    names: &[String],
    now: Timestamp,
) -> Result<Applied, CurateError> {
    let pass = Pass::open(lib)?;
    let (pass, applied) = pass.run(|index| {
        let steps = names
            .iter()
            .map(|n| Planned {
                name: n.clone(),
                action: transitions::Action::Archive,
                from: usage::state(index.usage.get(n)),
            })
            .collect();
        let plan = Plan {
            steps,
            ..Plan::default()
        };
        transitions::apply(lib, index, &plan, now)
    });
    pass.commit(lib, &applied)
        .map_err(|source| CurateError::Unrecorded {
            moved: applied.archived.len(),
            backup: None,
            source,
        })?;
    Ok(applied)
}

/// The rows the curator manages, read once (for `status` and `prune`).
pub fn managed_rows(lib: &Library, now: Timestamp) -> Vec<Row> {
    rows::agent_created(&Index::build(lib), now)
}

/// The cron references, for commands that must not archive what a job needs.
pub fn cron_refs(lib: &Library) -> Result<BTreeSet<String>, CurateError> {
    Ok(cron::referenced_skill_names(&lib.home)?)
}
