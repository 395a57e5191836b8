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

/// The pass's part of the summary line: the model's own summary, unless it claims work that
/// did not happen (every archive refused): then what happened, and the claim as a quote.
fn llm_line(meta: &LlmMeta, classified: &classify::Classification) -> String {
    let changed = !classified.removed.is_empty() || !classified.added.is_empty();
    if changed || meta.error.is_some() || meta.final_text.is_empty() {
        return meta.summary.clone();
    }
    format!(
        "nothing changed in the library; the model said: \"{}\"",
        meta.summary
    )
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
            summary = format!("auto: {auto}; llm: {}", llm_line(&meta, &classified));
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::curator::rows::fixture::{
        answer, cron_jobs, library, model, small_home, tool_call, ts,
    };
    use crate::home::Config;

    /// The summary line repeats the model's claim only when the library changed.
    #[test]
    fn a_claim_with_no_change_behind_it_is_reported_as_no_change() {
        let meta = |text: &str, error: Option<&str>| LlmMeta {
            final_text: text.into(),
            summary: error.map_or(text.to_string(), |e| format!("error: {e}")),
            model: "m".into(),
            provider: "custom".into(),
            tool_calls: Vec::new(),
            error: error.map(str::to_string),
        };
        let nothing = classify::Classification::default();
        let claim = meta("Merged three docker skills into docker-ops.", None);
        assert_eq!(
            llm_line(&claim, &nothing),
            "nothing changed in the library; the model said: \"Merged three docker skills into docker-ops.\""
        );
        let archived = classify::Classification {
            removed: vec!["docker-a".into()],
            ..Default::default()
        };
        assert_eq!(
            llm_line(&claim, &archived),
            "Merged three docker skills into docker-ops."
        );
        assert_eq!(llm_line(&meta("", Some("boom")), &nothing), "error: boom");
        let silent = LlmMeta {
            summary: "no change".into(),
            ..meta("", None)
        };
        assert_eq!(llm_line(&silent, &nothing), "no change");
    }

    const NOW: &str = "2026-06-01T12:00:00Z";

    fn options(dry_run: bool, if_due: bool) -> RunOptions {
        RunOptions {
            dry_run,
            if_due,
            now: ts(NOW),
            frozen_clock: true,
        }
    }

    fn ran(outcome: Outcome) -> Ran {
        match outcome {
            Outcome::Ran(ran) => *ran,
            Outcome::Skipped(s) => panic!("skipped: {s:?}"),
        }
    }

    fn read(dir: &std::path::Path, rel: &str) -> String {
        std::fs::read_to_string(dir.join(rel)).expect(rel)
    }

    fn usage(dir: &std::path::Path) -> Json {
        serde_json::from_str(&read(dir, "skills/.usage.json")).expect("usage")
    }

    /// A live run: the backup, the transitions written once, the prompt snapshot dropped
    /// because folders moved, the report and the state with the summary.
    #[test]
    fn a_live_run_archives_marks_and_records() {
        let dir = tempfile::tempdir().expect("tempdir");
        let lib = small_home(dir.path(), Config::defaults());
        let snapshot = dir.path().join(".skills_prompt_snapshot.json");
        std::fs::write(&snapshot, "{}").expect("snapshot");
        let ran = ran(run(&lib, options(false, false)).expect("run"));
        assert_eq!(
            ran.counts,
            Counts {
                marked_stale: 1,
                archived: 1,
                reactivated: 0,
                checked: 3,
                seeded: 0
            }
        );
        assert_eq!(
            ran.summary,
            "auto: 1 marked stale, 1 archived; llm: skipped (consolidation off)"
        );
        assert_eq!(ran.backup.as_deref(), Some("2026-06-01T12-00-00Z"));
        let report = dir.path().join("logs/curator/20260601-120000");
        assert_eq!(ran.report.as_deref(), Some(report.as_path()));
        assert_eq!((ran.dry_run, ran.paused), (false, false));
        assert!(ran.failures.is_empty() && ran.unreadable.is_empty());
        assert_eq!(ran.state_was_corrupt, None);
        assert_eq!(ran.archived.len(), 1);
        assert_eq!(ran.archived[0].name, "old-used");
        let usage = usage(dir.path());
        assert_eq!(usage["old-used"]["state"], json!("archived"));
        assert_eq!(usage["mid-used"]["state"], json!("stale"));
        assert!(
            dir.path()
                .join("skills/.archive/old-used/SKILL.md")
                .is_file()
        );
        assert!(
            !snapshot.exists(),
            "folders moved: the prompt snapshot is stale"
        );
        assert!(!dir.path().join("skills/.curator_suppressed").exists());
        assert_eq!(
            read(dir.path(), "skills/.curator_state"),
            format!(
                "{{\n  \"last_report_path\": \"{}\",\n  \"last_run_at\": \"2026-06-01T12:00:00+00:00\",\n  \"last_run_duration_seconds\": 0.0,\n  \"last_run_summary\": \"auto: 1 marked stale, 1 archived; llm: skipped (consolidation off)\",\n  \"last_run_summary_shown_at\": null,\n  \"paused\": false,\n  \"run_count\": 1\n}}",
                report.display()
            )
        );
        // Nothing left to move: the snapshot stays; the second report takes a suffix.
        std::fs::write(&snapshot, "{}").expect("snapshot");
        let again = ran_again(&lib);
        assert_eq!(
            again.summary,
            "auto: no changes; llm: skipped (consolidation off)"
        );
        assert!(snapshot.exists());
        assert_eq!(
            again.report.as_deref(),
            Some(dir.path().join("logs/curator/20260601-120000-2").as_path())
        );
        assert_eq!(CuratorState::load_lenient(&lib.home).run_count(), 2);
    }

    fn ran_again(lib: &Library) -> Ran {
        ran(run(lib, options(false, false)).expect("run"))
    }

    /// A bundled skill archived by a run is suppressed, so the re-seeder leaves it archived.
    #[test]
    fn an_archived_bundled_skill_is_suppressed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let lib = library(
            dir.path(),
            &["builtin"],
            json!({"builtin": {"use_count": 1, "last_used_at": "2026-02-01T12:00:00+00:00"}}),
            Config::defaults(),
        );
        std::fs::write(dir.path().join("skills/.bundled_manifest"), "builtin:abc\n")
            .expect("manifest");
        let ran = ran(run(&lib, options(false, false)).expect("run"));
        assert_eq!(ran.counts.archived, 1);
        assert_eq!(read(dir.path(), "skills/.curator_suppressed"), "builtin\n");
    }

    /// A dry run plans, writes nothing, and says why the LLM pass did not run: it is off, or
    /// on in config but not available to this call.
    #[test]
    fn a_dry_run_previews_and_names_the_skipped_pass() {
        let dir = tempfile::tempdir().expect("tempdir");
        let lib = small_home(dir.path(), Config::defaults());
        let before = read(dir.path(), "skills/.usage.json");
        let ran = ran(run(&lib, options(true, false)).expect("run"));
        assert_eq!(
            ran.summary,
            "dry-run auto: 1 marked stale, 1 archived; llm: skipped (consolidation off)"
        );
        let planned: Vec<(&str, transitions::Action)> = ran
            .planned
            .iter()
            .map(|p| (p.name.as_str(), p.action))
            .collect();
        assert_eq!(
            planned,
            [
                ("mid-used", transitions::Action::MarkStale),
                ("old-used", transitions::Action::Archive)
            ]
        );
        assert_eq!((ran.backup, ran.report), (None, None));
        assert_eq!(read(dir.path(), "skills/.usage.json"), before);
        assert!(!dir.path().join("skills/.curator_state").exists());
        assert!(!dir.path().join("logs").exists());

        let on = Config::from_bytes(
            b"curator:\n  consolidate: true\n",
            std::path::Path::new("c"),
        )
        .expect("config");
        let lib = small_home(dir.path(), on);
        let ran = ran_live(&lib);
        assert_eq!(
            ran.summary,
            "auto: 1 marked stale, 1 archived; llm: skipped (consolidation not available)"
        );
    }

    fn ran_live(lib: &Library) -> Ran {
        ran(run(lib, options(false, false)).expect("run"))
    }

    /// `--if-due` on a home never looked at seeds the schedule (a dry run only says so);
    /// a disabled curator is skipped by cron and refused when asked.
    #[test]
    fn if_due_seeds_and_disabled_refuses() {
        let dir = tempfile::tempdir().expect("tempdir");
        let lib = small_home(dir.path(), Config::defaults());
        let Outcome::Skipped(skipped) = run(&lib, options(true, true)).expect("run") else {
            panic!("ran");
        };
        assert!(!skipped.seeded_written);
        assert!(matches!(skipped.schedule, Schedule::Seed(_)));
        assert!(!dir.path().join("skills/.curator_state").exists());
        let Outcome::Skipped(skipped) = run(&lib, options(false, true)).expect("run") else {
            panic!("ran");
        };
        assert!(skipped.seeded_written);
        let state = CuratorState::load_lenient(&lib.home);
        assert_eq!(
            state.str_field("last_run_at"),
            Some("2026-06-01T12:00:00+00:00")
        );
        assert_eq!(
            state.str_field("last_run_summary"),
            Some(super::super::state::SEED_SUMMARY)
        );
        assert_eq!(
            run(&lib, options(false, true)).expect("run"),
            Outcome::Skipped(Skipped {
                schedule: Schedule::NotDue {
                    last_run_at: ts(NOW),
                    next_run_at: ts("2026-06-08T12:00:00Z"),
                },
                seeded_written: false,
            })
        );

        let off = Config::from_bytes(b"curator:\n  enabled: false\n", std::path::Path::new("c"))
            .expect("config");
        let lib = small_home(dir.path(), off);
        let err = run(&lib, options(false, false)).expect_err("disabled");
        assert_eq!(
            err.to_string(),
            "curator: disabled via config; enable with `curator.enabled: true`"
        );
        assert_eq!(err.hint(), None);
        assert_eq!(
            run(&lib, options(false, true)).expect("run"),
            Outcome::Skipped(Skipped {
                schedule: Schedule::Disabled,
                seeded_written: false,
            })
        );
    }

    /// A state file that does not parse: a dry run looks with the defaults and says so; a
    /// run is refused before anything is touched.
    #[test]
    fn a_corrupt_state_lets_a_dry_run_look_and_stops_a_run() {
        let dir = tempfile::tempdir().expect("tempdir");
        let lib = small_home(dir.path(), Config::defaults());
        std::fs::write(dir.path().join("skills/.curator_state"), "{\"paused\": tru")
            .expect("state");
        let usage_before = read(dir.path(), "skills/.usage.json");
        let ran = ran(run(&lib, options(true, false)).expect("dry run"));
        assert_eq!(
            ran.state_was_corrupt.as_deref(),
            Some("EOF while parsing a value at line 1 column 14")
        );
        let err = run(&lib, options(false, false)).expect_err("refused");
        let state = dir.path().join("skills/.curator_state");
        assert_eq!(
            err.to_string(),
            format!(
                "cannot replace {}: it does not parse (EOF while parsing a value at line 1 column 14); left as it is (a copy is in {}.corrupt): fix it, or move it away to start afresh",
                state.display(),
                state.display()
            )
        );
        assert_eq!(
            err.hint().as_deref(),
            Some("check the permissions and free space of the skills directory")
        );
        assert_eq!(read(dir.path(), "skills/.usage.json"), usage_before);
        assert!(!dir.path().join("skills/.curator_backups").exists());
        assert!(!dir.path().join("skills/.archive").exists());
    }

    #[test]
    fn each_refusal_has_its_hint() {
        let path = std::path::PathBuf::from("/h/skills/.usage.json");
        let io = || std::io::Error::other("disk full");
        let hints: Vec<Option<String>> = [
            CurateError::Busy(path.clone()),
            CurateError::Sidecar(SidecarError::Corrupt {
                path: path.clone(),
                reason: "bad".into(),
            }),
            CurateError::Sidecar(SidecarError::File(FileError::new("read", &path, io()))),
            CurateError::File(FileError::new("read", &path, io())),
            CurateError::Cron(CronError::NotJson {
                path: path.clone(),
                reason: "bad".into(),
            }),
            CurateError::Backup(BackupError::Refused("no room".into())),
            CurateError::Unrecorded {
                moved: 2,
                backup: Some("2026-06-01T12-00-00Z".into()),
                source: FileError::new("replace", &path, io()),
            },
            CurateError::Unrecorded {
                moved: 2,
                backup: None,
                source: FileError::new("replace", &path, io()),
            },
        ]
        .iter()
        .map(CurateError::hint)
        .collect();
        let some = |s: &str| Some(s.to_string());
        assert_eq!(
            hints,
            [
                some("wait for it to finish; a stale lock is released when its process ends"),
                some(
                    "restore skills/.usage.json from the latest snapshot (`hermes-curate rollback --list`), or fix it by hand or move it away to start counting afresh"
                ),
                some("check the permissions and free space of the skills directory"),
                some("check the permissions and free space of the skills directory"),
                some(
                    "fix cron/jobs.json (or move it away if no job needs a skill), then run again"
                ),
                some(
                    "free some space or fix the permissions of skills/.curator_backups; to run without a backup set `curator.backup.enabled: false`"
                ),
                some(
                    "the snapshot taken before the run holds the tree as it was: `hermes-curate rollback --id 2026-06-01T12-00-00Z`"
                ),
                some(
                    "the archived folders are under skills/.archive; `hermes-curate restore NAME` brings one back"
                ),
            ]
        );
    }

    /// `prune`'s pass: the named skills archived, the sidecar written once; the rows and
    /// the cron references the commands read.
    #[test]
    fn archive_many_rows_and_cron_refs() {
        let dir = tempfile::tempdir().expect("tempdir");
        let lib = small_home(dir.path(), Config::defaults());
        cron_jobs(
            dir.path(),
            r#"{"jobs": [{"id": "j1", "skills": ["mid-used", "/elsewhere"]}]}"#,
        );
        assert_eq!(
            cron_refs(&lib).expect("refs"),
            BTreeSet::from(["elsewhere".to_string(), "mid-used".to_string()])
        );
        let names: Vec<String> = managed_rows(&lib, ts(NOW))
            .into_iter()
            .map(|r| r.name)
            .collect();
        assert_eq!(names, ["mid-used", "old-used", "young-unused"]);
        let applied = archive_many(
            &lib,
            &["young-unused".to_string(), "old-used".to_string()],
            ts(NOW),
        )
        .expect("archive");
        let moved: Vec<&str> = applied.archived.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(moved, ["young-unused", "old-used"]);
        let usage = usage(dir.path());
        assert_eq!(usage["young-unused"]["state"], json!("archived"));
        assert_eq!(
            usage["old-used"]["archived_at"],
            json!("2026-06-01T12:00:00+00:00")
        );
        assert_eq!(usage["mid-used"].get("state"), None);
        std::fs::write(dir.path().join("cron/jobs.json"), "{\"jobs\": [ oops").expect("jobs");
        assert_eq!(
            cron_refs(&lib).expect_err("bad jobs").to_string(),
            format!(
                "cannot read the cron jobs, so the skills they need are unknown: {} is not valid JSON (expected value at line 1 column 12)",
                dir.path().join("cron/jobs.json").display()
            )
        );
    }

    /// With the LLM pass: what it pruned is in the summary, and (a live run) the cron jobs
    /// were looked at for references to rewrite.
    #[test]
    fn a_live_run_with_the_llm_pass_reports_its_prunings_and_cron_scan() {
        let dir = tempfile::tempdir().expect("tempdir");
        let lib = small_home(dir.path(), Config::defaults());
        cron_jobs(
            dir.path(),
            r#"{"jobs": [{"id": "j1", "skills": ["young-unused"]}]}"#,
        );
        let script = vec![
            tool_call(
                "skill_manage",
                r#"{"action":"delete","name":"mid-used","absorbed_into":""}"#,
            ),
            answer("Pruned mid-used."),
        ];
        let consolidation = Consolidation {
            model: model(script),
            cwd: dir.path().to_path_buf(),
        };
        let ran =
            ran(run_consolidating(&lib, options(false, false), Some(consolidation)).expect("run"));
        assert_eq!(
            ran.summary,
            "auto: 1 marked stale, 1 archived; llm: Pruned mid-used.\narchived 1 skill(s):\n  • mid-used — pruned (stale)\nfull report: hermes-curate status"
        );
        let report: Json =
            serde_json::from_str(&read(dir.path(), "logs/curator/20260601-120000/run.json"))
                .expect("run.json");
        assert_eq!(
            report["cron_rewrites"],
            json!({"jobs_updated": 0, "rewrites": [], "jobs_scanned": 1})
        );
        assert_eq!(report["pruned_names"], json!(["mid-used"]));
        assert!(
            dir.path()
                .join("skills/.archive/mid-used/SKILL.md")
                .is_file()
        );
    }
}
