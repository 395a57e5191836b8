//! The commands of `hermes-curate`, between the parsed flags and the library: each calls
//! the library and prints its answer — Hermes's text in `text`, one record per line in
//! `jsonl`, one value in `json`. Messages for a person go to stderr in the JSON formats.

use std::io::{BufRead, IsTerminal};

use jiff::Timestamp;
use serde_json::{Value as Json, json};

use super::backup;
use super::manage::{self, Answer};
use super::prune;
use super::run::{self, CurateError, Outcome, RunOptions};
use super::state::{CuratorState, Schedule};
use super::status::Status;
use super::usage_report::{self, Sort};
use crate::clock;
use crate::io::exit::Exit;
use crate::io::format::Format;
use crate::io::output::Output;
use crate::io::sanitize::for_terminal;
use crate::skills::archive;
use crate::skills::library::Library;

/// Where and how a command prints.
pub struct Ui<'a> {
    pub out: &'a mut Output,
    pub format: Format,
    pub quiet: bool,
}

impl Ui<'_> {
    /// A line of the text answer (escaped on a terminal).
    fn text(&mut self, line: &str) -> std::io::Result<()> {
        if std::io::stdout().is_terminal() {
            self.out.line(&for_terminal(line))
        } else {
            self.out.line(line)
        }
    }

    /// A message: the answer itself in text, a note on stderr otherwise.
    fn say(&mut self, line: &str) -> std::io::Result<()> {
        if self.format == Format::Text {
            self.text(line)
        } else {
            if !self.quiet {
                eprintln!("{}", for_terminal(line));
            }
            Ok(())
        }
    }

    fn record(&mut self, value: &Json) -> std::io::Result<()> {
        match self.format {
            Format::Json => self.out.json(value),
            _ => self.out.jsonl(value),
        }
    }
}

/// Asks `question` on stderr and reads the answer from stdin: yes only for `y`/`yes`. Not at
/// a terminal nobody can answer: the question is not asked, and the message says how to
/// confirm from a script.
fn confirm(question: &str) -> bool {
    if !std::io::stdin().is_terminal() {
        eprintln!(
            "hermes-curate: not confirmed: stdin is not a terminal; pass -y to confirm without asking"
        );
        return false;
    }
    eprint!("{question} [y/N] ");
    let mut line = String::new();
    match std::io::stdin().lock().read_line(&mut line) {
        Ok(0) | Err(_) => {
            eprintln!();
            false
        }
        Ok(_) => matches!(line.trim().to_lowercase().as_str(), "y" | "yes"),
    }
}

pub fn status(lib: &Library, now: Timestamp, ui: &mut Ui) -> anyhow::Result<Exit> {
    let state = CuratorState::load_lenient(&lib.home);
    let rows = run::managed_rows(lib, now);
    let status = Status {
        state: &state,
        config: &lib.config.curator,
        rows: &rows,
        now,
    };
    match ui.format {
        Format::Text => ui.text(&status.text())?,
        _ => ui.record(&status.to_json())?,
    }
    Ok(Exit::Success)
}

pub fn run(lib: &Library, options: RunOptions, ui: &mut Ui) -> anyhow::Result<Exit> {
    run_with(lib, options, None, ui)
}

/// `run`, with the LLM consolidation pass when `consolidation` is given.
pub fn run_with(
    lib: &Library,
    options: RunOptions,
    consolidation: Option<run::Consolidation>,
    ui: &mut Ui,
) -> anyhow::Result<Exit> {
    let consolidate_notice = if consolidation.is_some() {
        "curator: consolidation on — the LLM merge pass runs after the automatic transitions."
    } else {
        "curator: consolidation is off — running prune-only (deterministic stale/archive)."
    };
    let outcome = match run::run_consolidating(lib, options, consolidation) {
        Ok(o) => o,
        Err(CurateError::Disabled) => {
            ui.say(&CurateError::Disabled.to_string())?;
            if ui.format != Format::Text {
                ui.record(&json!({"ran": false, "reason": "disabled"}))?;
            }
            return Ok(Exit::Negative);
        }
        Err(e) => return Err(hinted(e)),
    };
    let ran = match outcome {
        Outcome::Skipped(skipped) => return print_skipped(&skipped.schedule, options, ui),
        Outcome::Ran(ran) => ran,
    };
    if let Some(why) = &ran.state_was_corrupt {
        eprintln!(
            "hermes-curate: warning: skills/.curator_state could not be read ({why}); this dry run used the defaults (a run refuses until it is fixed or moved away)"
        );
    }
    note_paused(&ran, options, ui.quiet);
    ui.say(if ran.dry_run {
        "curator: running DRY-RUN (report only, no mutations)..."
    } else {
        "curator: running review pass..."
    })?;
    ui.say(consolidate_notice)?;
    if let Some(id) = &ran.backup {
        ui.say(&format!("curator: snapshot created ({id})"))?;
    }
    if ran.dry_run && ui.format == Format::Text {
        for step in &ran.planned {
            let verb = match step.action {
                super::transitions::Action::Seed => "would seed (clock starts now)",
                super::transitions::Action::MarkStale => "would mark stale",
                super::transitions::Action::Reactivate => "would reactivate",
                super::transitions::Action::Archive => "would archive",
            };
            ui.text(&format!("  {verb}: {}", step.name))?;
        }
    }
    for (name, why) in &ran.unreadable {
        crate::io::exit::warn(
            "hermes-curate",
            format!("{name}: left alone, its usage record is unreadable: {why}"),
        );
    }
    for (name, why) in &ran.failures {
        crate::io::exit::warn("hermes-curate", format!("{name}: {why}"));
    }
    if let Some(e) = &ran.report_error {
        crate::io::exit::warn(
            "hermes-curate",
            format!("the report could not be written: {e}"),
        );
    }
    let c = &ran.counts;
    if !ran.dry_run {
        ui.say(&format!("curator: {}", ran.summary))?;
    }
    let auto = format!(
        "checked={} stale={} archived={} reactivated={}",
        c.checked, c.marked_stale, c.archived, c.reactivated
    );
    if ran.dry_run {
        ui.say(&format!(
            "auto (preview): {auto} — no transitions applied in dry-run"
        ))?;
        ui.say("dry-run: no changes applied. Run `hermes-curate run` (no flag) to apply.")?;
        if let Some(dir) = &ran.report {
            ui.say(&format!("curator: {}", ran.summary))?;
            ui.say(&format!("curator: report written to {}", dir.display()))?;
        }
    } else {
        ui.say(&format!("auto: {auto}"))?;
        if let Some(dir) = &ran.report {
            ui.say(&format!("curator: report written to {}", dir.display()))?;
        }
    }
    if ui.format != Format::Text {
        ui.record(&json!({
            "checked": c.checked,
            "marked_stale": c.marked_stale,
            "archived": c.archived,
            "reactivated": c.reactivated,
            "seeded": c.seeded,
            "report": ran.report.as_ref().map(|p| p.display().to_string()),
            "dry_run": ran.dry_run,
            "backup": ran.backup,
            "failed": ran.failures.len() + ran.unreadable.len(),
        }))?;
    }
    Ok(if ran.failures.is_empty() && ran.unreadable.is_empty() {
        Exit::Success
    } else {
        Exit::PartialFailure
    })
}

fn print_skipped(schedule: &Schedule, options: RunOptions, ui: &mut Ui) -> anyhow::Result<Exit> {
    let iso = |t: &Timestamp| clock::isoformat(*t);
    let (message, last, next) = match schedule {
        Schedule::NotDue {
            last_run_at,
            next_run_at,
        } => (
            format!(
                "curator: not due — last run {}; next run due at {}",
                super::ago(Some(&iso(last_run_at)), options.now),
                iso(next_run_at)
            ),
            Some(iso(last_run_at)),
            Some(iso(next_run_at)),
        ),
        Schedule::Seed(seeded) => (
            if options.dry_run {
                "curator: first look at this home — a real run would seed the schedule and wait one interval (dry-run: nothing written)".to_string()
            } else {
                "curator: first look at this home — seeded the schedule; the first pass runs after one interval (`hermes-curate run --dry-run` previews it now)".to_string()
            },
            seeded.str_field("last_run_at").map(String::from),
            None,
        ),
        Schedule::Paused => (
            "curator: paused — skipped (`hermes-curate resume` to resume)".to_string(),
            None,
            None,
        ),
        Schedule::Disabled => (
            "curator: disabled via config — skipped".to_string(),
            None,
            None,
        ),
        Schedule::Due { .. } => (String::new(), None, None),
    };
    ui.say(&message)?;
    if ui.format != Format::Text {
        ui.record(&json!({
            "ran": false,
            "reason": schedule.reason(),
            "last_run_at": last,
            "next_run_at": next,
        }))?;
    }
    Ok(Exit::Success)
}

/// A note on stderr: an explicit run goes ahead while the curator is paused.
fn note_paused(ran: &run::Ran, options: RunOptions, quiet: bool) {
    if ran.paused && !options.if_due && !quiet {
        eprintln!(
            "hermes-curate: note: the curator is paused; `run` runs anyway when asked (cron's `run --if-due` skips)"
        );
    }
}

/// Notes on stderr: the skills `prune` leaves alone because a cron job needs them.
fn note_spared(spared: &[prune::Candidate], quiet: bool) {
    if quiet {
        return;
    }
    for s in spared {
        eprintln!(
            "curator: keeping {} (idle {}d): a cron job names it",
            s.name, s.idle_days
        );
    }
}

/// The error with its hint attached, for the exit path.
fn hinted(e: CurateError) -> anyhow::Error {
    match e.hint() {
        Some(hint) => anyhow::Error::new(crate::io::exit::Hinted::new(e.to_string(), hint)),
        None => anyhow::Error::new(e),
    }
}

pub fn set_paused(lib: &Library, paused: bool, ui: &mut Ui) -> anyhow::Result<Exit> {
    manage::set_paused(lib, paused)?;
    let word = if paused { "paused" } else { "resumed" };
    match ui.format {
        Format::Text => ui.text(&format!("curator: {word}"))?,
        _ => ui.record(&json!({"paused": paused}))?,
    }
    Ok(Exit::Success)
}

/// Prints a one-skill verb's answer.
pub fn answer(skill: &str, result: Answer, ui: &mut Ui) -> anyhow::Result<Exit> {
    let (ok, message) = match &result {
        Ok(m) => (true, m.as_str()),
        Err(m) => (false, m.as_str()),
    };
    match ui.format {
        Format::Text if ok => ui.text(&format!("curator: {message}"))?,
        // Refusals on stderr, as in every binary.
        Format::Text => eprintln!("hermes-curate: {}", for_terminal(message)),
        _ => ui.record(&json!({"ok": ok, "skill": skill, "message": message}))?,
    }
    Ok(if ok { Exit::Success } else { Exit::Negative })
}

/// `archive`: Hermes's, plus a warning when a cron job still names the skill.
pub fn archive(lib: &Library, skill: &str, now: Timestamp, ui: &mut Ui) -> anyhow::Result<Exit> {
    if let Ok(refs) = run::cron_refs(lib)
        && refs.contains(skill)
        && !ui.quiet
    {
        crate::io::exit::warn(
            "hermes-curate",
            format!("a cron job names '{skill}'; it will not find the skill until it is restored"),
        );
    }
    answer(skill, manage::archive_one(lib, skill, now), ui)
}

pub fn list_archived(lib: &Library, ui: &mut Ui) -> anyhow::Result<Exit> {
    let names = archive::list_archived(&lib.home);
    match ui.format {
        Format::Text if names.is_empty() => {
            if !ui.quiet {
                eprintln!("curator: no archived skills");
            }
        }
        Format::Text => {
            for n in &names {
                ui.text(n)?;
            }
        }
        Format::Json => ui.out.json(&names)?,
        Format::Jsonl => {
            for n in &names {
                ui.out.jsonl(&json!({"name": n}))?;
            }
        }
    }
    Ok(Exit::Success)
}

pub fn prune(
    lib: &Library,
    days: i64,
    dry_run: bool,
    yes: bool,
    now: Timestamp,
    ui: &mut Ui,
) -> anyhow::Result<Exit> {
    let refs = run::cron_refs(lib).map_err(hinted)?;
    let rows = run::managed_rows(lib, now);
    let (picked, spared) = prune::candidates(&rows, &refs, days, now);
    note_spared(&spared, ui.quiet);
    let json_rows = |ui: &mut Ui, archived: &[String], failed: &[(String, String)]| {
        let mut records: Vec<Json> = picked
            .iter()
            .map(|c| {
                let failure = failed.iter().find(|(n, _)| *n == c.name);
                json!({
                    "type": "candidate",
                    "name": c.name,
                    "idle_days": c.idle_days,
                    "archived": archived.contains(&c.name),
                    "error": failure.map(|(_, e)| e.clone()),
                })
            })
            .collect();
        records.extend(spared.iter().map(|c| {
            json!({"type": "spared", "name": c.name, "idle_days": c.idle_days, "reason": "cron"})
        }));
        records.push(json!({
            "type": "summary",
            "candidates": picked.len(),
            "archived": archived.len(),
            "failed": failed.len(),
            "spared": spared.len(),
            "dry_run": dry_run,
        }));
        match ui.format {
            Format::Json => ui.out.json(&records),
            _ => records.iter().try_for_each(|r| ui.out.jsonl(r)),
        }
    };
    if picked.is_empty() {
        ui.say(&format!(
            "curator: nothing to prune (no unpinned skills idle >= {days}d)"
        ))?;
        if ui.format != Format::Text {
            json_rows(ui, &[], &[])?;
        }
        return Ok(Exit::Success);
    }
    ui.say(&format!(
        "curator: {} skill(s) idle >= {days}d:",
        picked.len()
    ))?;
    for c in &picked {
        ui.say(&format!("  {:<40} idle {}d", c.name, c.idle_days))?;
    }
    if dry_run {
        ui.say("\n(dry run — no changes made)")?;
        if ui.format != Format::Text {
            json_rows(ui, &[], &[])?;
        }
        return Ok(Exit::Success);
    }
    if !yes && !confirm(&format!("\nArchive {} skill(s)?", picked.len())) {
        ui.say("curator: aborted")?;
        return Ok(Exit::Negative);
    }
    let names: Vec<String> = picked.iter().map(|c| c.name.clone()).collect();
    let applied = run::archive_many(lib, &names, now).map_err(hinted)?;
    let archived: Vec<String> = applied.archived.iter().map(|a| a.name.clone()).collect();
    ui.say(&format!(
        "\ncurator: archived {}/{}",
        archived.len(),
        picked.len()
    ))?;
    if !applied.failures.is_empty() {
        ui.say("failures:")?;
        for (name, msg) in &applied.failures {
            ui.say(&format!("  {name}: {msg}"))?;
        }
    }
    if ui.format != Format::Text {
        json_rows(ui, &archived, &applied.failures)?;
    }
    Ok(if applied.failures.is_empty() {
        Exit::Success
    } else {
        Exit::Negative
    })
}

pub fn backup(lib: &Library, reason: &str, now: Timestamp, ui: &mut Ui) -> anyhow::Result<Exit> {
    if !lib.config.curator.backup_enabled {
        ui.say("curator: backups are disabled via config (`curator.backup.enabled: false`); re-enable to snapshot")?;
        return Ok(Exit::Negative);
    }
    let keep = lib.config.curator.backup_keep;
    match backup::snapshot(&lib.home, reason, keep, &[], now) {
        Ok(Some(snap)) => {
            match ui.format {
                Format::Text => ui.text(&format!(
                    "curator: snapshot created at {}",
                    snap.dir.display()
                ))?,
                _ => {
                    let mut m = snap.manifest.clone();
                    if let Json::Object(map) = &mut m {
                        map.insert("path".into(), json!(snap.dir.display().to_string()));
                    }
                    ui.record(&m)?;
                }
            }
            Ok(Exit::Success)
        }
        Ok(None) => {
            ui.say("curator: snapshot failed — there is no skills/ directory to back up")?;
            Ok(Exit::Negative)
        }
        Err(e) => Err(anyhow::Error::new(e).context("snapshot failed")),
    }
}

pub fn rollback(
    lib: &Library,
    list: bool,
    id: Option<&str>,
    yes: bool,
    now: Timestamp,
    ui: &mut Ui,
) -> anyhow::Result<Exit> {
    let rows = backup::list(&lib.home);
    if list {
        match ui.format {
            Format::Text => ui.text(&backup::summarize(&rows))?,
            Format::Json => ui.out.json(&rows)?,
            Format::Jsonl => rows.iter().try_for_each(|r| ui.out.jsonl(r))?,
        }
        return Ok(Exit::Success);
    }
    let Some(target) = backup::resolve(&lib.home, id) else {
        if rows.is_empty() {
            ui.say("curator: no snapshots exist yet. Take one with `hermes-curate backup` or wait for the next curator run.")?;
        } else {
            ui.say(&format!(
                "curator: no snapshot matching {}.",
                id.map_or("your query".to_string(), |i| format!("id '{i}'"))
            ))?;
            ui.say("Available:")?;
            ui.say(&backup::summarize(&rows))?;
        }
        return Ok(Exit::Negative);
    };
    let manifest = backup::read_manifest(&target);
    let field = |k: &str| match manifest.get(k) {
        Some(Json::String(s)) => s.clone(),
        Some(Json::Null) | None => "?".into(),
        Some(v) => v.to_string(),
    };
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    ui.say(&format!("Rollback target: {name}"))?;
    if manifest.as_object().is_some_and(|m| !m.is_empty()) {
        ui.say(&format!("  reason:      {}", field("reason")))?;
        ui.say(&format!("  created_at:  {}", field("created_at")))?;
        ui.say(&format!("  skill files: {}", field("skill_files")))?;
        if let Some(cron) = manifest.get("cron_jobs").and_then(Json::as_object) {
            if cron.get("backed_up") == Some(&Json::Bool(true)) {
                ui.say(&format!(
                    "  cron jobs:   {} (will be restored for skill-link fields only)",
                    cron.get("jobs_count").and_then(Json::as_i64).unwrap_or(0)
                ))?;
            } else {
                let reason = cron
                    .get("reason")
                    .and_then(Json::as_str)
                    .unwrap_or("not captured");
                ui.say(&format!("  cron jobs:   not in snapshot ({reason})"))?;
            }
        }
    }
    ui.say("\nThis will replace the current skills/ tree (a safety snapshot of the current state is taken first so this is undoable). Cron jobs that still exist will have their skills/skill fields restored from the snapshot; all other cron fields are left alone.")?;
    if !yes && !confirm("Proceed?") {
        ui.say("cancelled")?;
        return Ok(Exit::Negative);
    }
    match backup::rollback(&lib.home, Some(&name), lib.config.curator.backup_keep, now) {
        Ok(done) => {
            match ui.format {
                Format::Text => ui.text(&format!("curator: {}", done.message))?,
                _ => ui.record(&json!({
                    "ok": true,
                    "id": done.id,
                    "safety_snapshot": done.safety_snapshot,
                    "message": done.message,
                }))?,
            }
            Ok(Exit::Success)
        }
        Err(message) => {
            match ui.format {
                Format::Text => ui.text(&format!("curator: rollback failed — {message}"))?,
                _ => ui.record(&json!({"ok": false, "id": name, "message": message}))?,
            }
            Ok(Exit::Negative)
        }
    }
}

pub fn usage(
    lib: &Library,
    sort: Sort,
    provenance: Option<&str>,
    now: Timestamp,
    ui: &mut Ui,
) -> anyhow::Result<Exit> {
    let index = crate::skills::library::Index::build(lib);
    let rows = usage_report::select(super::rows::usage(&index, now), provenance, sort);
    match ui.format {
        Format::Text => ui.text(&usage_report::text(&rows, now))?,
        Format::Json => ui.out.json(
            &rows
                .iter()
                .map(super::rows::Row::to_json)
                .collect::<Vec<_>>(),
        )?,
        Format::Jsonl => rows.iter().try_for_each(|r| ui.out.jsonl(&r.to_json()))?,
    }
    Ok(Exit::Success)
}

#[cfg(test)]
mod tests {

    use super::*;
    use crate::curator::rows::fixture::{cron_jobs, library, small_home, ts};
    use crate::home::Config;

    const NOW: &str = "2026-06-01T12:00:00Z";
    const OLD: &str = "  old-used                                 idle 120d";
    const MID: &str = "  mid-used                                 idle 45d";

    /// Runs a command against a captured stdout; its exit (or error) and what it printed.
    fn call(
        format: Format,
        command: impl FnOnce(&mut Ui) -> anyhow::Result<Exit>,
    ) -> (anyhow::Result<Exit>, String) {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("stdout");
        let mut out = Output::append(&path).expect("output");
        let result = command(&mut Ui {
            out: &mut out,
            format,
            quiet: false,
        });
        out.finish().expect("flush");
        (result, std::fs::read_to_string(&path).expect("read"))
    }

    fn exit_and_out(
        format: Format,
        command: impl FnOnce(&mut Ui) -> anyhow::Result<Exit>,
    ) -> (Exit, String) {
        let (result, out) = call(format, command);
        (result.expect("command"), out)
    }

    fn options(dry_run: bool, if_due: bool) -> RunOptions {
        RunOptions {
            dry_run,
            if_due,
            now: ts(NOW),
            frozen_clock: true,
        }
    }

    /// Text for a person, one pretty value in `json`, one line in `jsonl`.
    #[test]
    fn status_in_each_format() {
        let dir = tempfile::tempdir().expect("tempdir");
        let lib = small_home(dir.path(), Config::defaults());
        let (exit, out) = exit_and_out(Format::Text, |ui| status(&lib, ts(NOW), ui));
        assert_eq!(exit, Exit::Success);
        assert!(
            out.starts_with("curator: ENABLED\n  runs:           0\n  last run:       never\n"),
            "{out}"
        );
        assert!(out.ends_with("last_activity=45d ago\n"), "{out}");
        let (_, out) = exit_and_out(Format::Json, |ui| status(&lib, ts(NOW), ui));
        assert!(
            out.starts_with("{\n  \"status\": \"ENABLED\",\n  \"enabled\": true,\n"),
            "{out}"
        );
        let (_, out) = exit_and_out(Format::Jsonl, |ui| status(&lib, ts(NOW), ui));
        assert!(
            out.starts_with("{\"status\":\"ENABLED\",\"enabled\":true,"),
            "{out}"
        );
        assert_eq!(out.lines().count(), 1);
    }

    /// A live run in text prints its messages on stdout; in `jsonl` only the record (the
    /// messages go to stderr).
    #[test]
    fn a_live_run_in_text_and_in_jsonl() {
        let dir = tempfile::tempdir().expect("tempdir");
        let lib = small_home(dir.path(), Config::defaults());
        let (exit, out) = exit_and_out(Format::Text, |ui| run(&lib, options(false, false), ui));
        assert_eq!(exit, Exit::Success);
        assert_eq!(
            out,
            format!(
                "curator: running review pass...\n\
                 curator: consolidation is off — running prune-only (deterministic stale/archive).\n\
                 curator: snapshot created (2026-06-01T12-00-00Z)\n\
                 curator: auto: 1 marked stale, 1 archived; llm: skipped (consolidation off)\n\
                 auto: checked=3 stale=1 archived=1 reactivated=0\n\
                 curator: report written to {}\n",
                dir.path().join("logs/curator/20260601-120000").display()
            )
        );
        let other = tempfile::tempdir().expect("tempdir");
        let lib = small_home(other.path(), Config::defaults());
        let (exit, out) = exit_and_out(Format::Jsonl, |ui| run(&lib, options(false, false), ui));
        assert_eq!(exit, Exit::Success);
        assert_eq!(
            out,
            format!(
                "{{\"checked\":3,\"marked_stale\":1,\"archived\":1,\"reactivated\":0,\"seeded\":0,\"report\":\"{}\",\"dry_run\":false,\"backup\":\"2026-06-01T12-00-00Z\",\"failed\":0}}\n",
                other.path().join("logs/curator/20260601-120000").display()
            )
        );
    }

    /// A dry run lists what it would do, in text only.
    #[test]
    fn a_dry_run_lists_its_plan_in_text() {
        let dir = tempfile::tempdir().expect("tempdir");
        let lib = small_home(dir.path(), Config::defaults());
        let (exit, out) = exit_and_out(Format::Text, |ui| run(&lib, options(true, false), ui));
        assert_eq!(exit, Exit::Success);
        assert_eq!(
            out,
            "curator: running DRY-RUN (report only, no mutations)...\n\
             curator: consolidation is off — running prune-only (deterministic stale/archive).\n\
             \x20 would mark stale: mid-used\n\
             \x20 would archive: old-used\n\
             auto (preview): checked=3 stale=1 archived=1 reactivated=0 — no transitions applied in dry-run\n\
             dry-run: no changes applied. Run `hermes-curate run` (no flag) to apply.\n"
        );
        let (_, out) = exit_and_out(Format::Jsonl, |ui| run(&lib, options(true, false), ui));
        assert_eq!(
            out,
            "{\"checked\":3,\"marked_stale\":1,\"archived\":1,\"reactivated\":0,\"seeded\":0,\"report\":null,\"dry_run\":true,\"backup\":null,\"failed\":0}\n"
        );
    }

    /// A skill whose record cannot be judged is left alone, and the run says so by its exit.
    #[test]
    fn an_unreadable_record_is_a_partial_failure() {
        let dir = tempfile::tempdir().expect("tempdir");
        let lib = library(
            dir.path(),
            &["odd"],
            json!({"odd": {"created_by": "agent", "use_count": "lots"}}),
            Config::defaults(),
        );
        let (exit, out) = exit_and_out(Format::Jsonl, |ui| run(&lib, options(true, false), ui));
        assert_eq!(exit, Exit::PartialFailure);
        assert_eq!(
            out,
            "{\"checked\":1,\"marked_stale\":0,\"archived\":0,\"reactivated\":0,\"seeded\":0,\"report\":null,\"dry_run\":true,\"backup\":null,\"failed\":1}\n"
        );
    }

    /// Disabled: refused with exit 1 (a record in the JSON formats); a run cron skips says
    /// why, with a record in the JSON formats.
    #[test]
    fn disabled_and_skipped_runs() {
        let dir = tempfile::tempdir().expect("tempdir");
        let lib = small_home(
            dir.path(),
            Config::from_yaml("curator:\n  enabled: false\n"),
        );
        let (exit, out) = exit_and_out(Format::Text, |ui| run(&lib, options(false, false), ui));
        assert_eq!(
            (exit, out.as_str()),
            (
                Exit::Negative,
                "curator: disabled via config; enable with `curator.enabled: true`\n"
            )
        );
        let (exit, out) = exit_and_out(Format::Jsonl, |ui| run(&lib, options(false, false), ui));
        assert_eq!(
            (exit, out.as_str()),
            (Exit::Negative, "{\"ran\":false,\"reason\":\"disabled\"}\n")
        );
        let lib = small_home(dir.path(), Config::defaults());
        let (exit, out) = exit_and_out(Format::Text, |ui| run(&lib, options(true, true), ui));
        assert_eq!(
            (exit, out.as_str()),
            (
                Exit::Success,
                "curator: first look at this home — a real run would seed the schedule and wait one interval (dry-run: nothing written)\n"
            )
        );
        let (_, out) = exit_and_out(Format::Jsonl, |ui| run(&lib, options(false, true), ui));
        assert_eq!(
            out,
            "{\"ran\":false,\"reason\":\"seeded\",\"last_run_at\":\"2026-06-01T12:00:00+00:00\",\"next_run_at\":null}\n"
        );
        let (_, out) = exit_and_out(Format::Text, |ui| run(&lib, options(false, true), ui));
        assert_eq!(
            out,
            "curator: not due — last run 0s ago; next run due at 2026-06-08T12:00:00+00:00\n"
        );
        // A refusal that is an error carries its hint.
        cron_jobs(dir.path(), "{\"jobs\": [ oops");
        let (result, out) = call(Format::Text, |ui| run(&lib, options(false, false), ui));
        let err = result.expect_err("bad jobs");
        assert_eq!(out, "");
        let hinted = err
            .downcast_ref::<crate::io::exit::Hinted>()
            .expect("hinted");
        assert_eq!(
            hinted.hint,
            "fix cron/jobs.json (or move it away if no job needs a skill), then run again"
        );
    }

    #[test]
    fn pause_resume_and_one_skill_answers() {
        let dir = tempfile::tempdir().expect("tempdir");
        let lib = small_home(dir.path(), Config::defaults());
        let (exit, out) = exit_and_out(Format::Text, |ui| set_paused(&lib, true, ui));
        assert_eq!((exit, out.as_str()), (Exit::Success, "curator: paused\n"));
        let (_, out) = exit_and_out(Format::Json, |ui| set_paused(&lib, false, ui));
        assert_eq!(out, "{\n  \"paused\": false\n}\n");
        let (_, out) = exit_and_out(Format::Text, |ui| set_paused(&lib, false, ui));
        assert_eq!(out, "curator: resumed\n");

        let (exit, out) = exit_and_out(Format::Text, |ui| answer("s", Ok("pinned 's'".into()), ui));
        assert_eq!(
            (exit, out.as_str()),
            (Exit::Success, "curator: pinned 's'\n")
        );
        // A refusal in text goes to stderr.
        let (exit, out) = exit_and_out(Format::Text, |ui| answer("s", Err("no".into()), ui));
        assert_eq!((exit, out.as_str()), (Exit::Negative, ""));
        let (exit, out) = exit_and_out(Format::Jsonl, |ui| answer("s", Err("no".into()), ui));
        assert_eq!(
            (exit, out.as_str()),
            (
                Exit::Negative,
                "{\"ok\":false,\"skill\":\"s\",\"message\":\"no\"}\n"
            )
        );

        let (exit, out) = exit_and_out(Format::Jsonl, |ui| archive(&lib, "old-used", ts(NOW), ui));
        assert_eq!(exit, Exit::Success);
        assert_eq!(
            out,
            format!(
                "{{\"ok\":true,\"skill\":\"old-used\",\"message\":\"archived to {}\"}}\n",
                dir.path().join("skills/.archive/old-used").display()
            )
        );
        std::fs::create_dir_all(dir.path().join("skills/.archive/b-gone")).expect("mkdir");
        let (_, out) = exit_and_out(Format::Text, |ui| list_archived(&lib, ui));
        assert_eq!(out, "b-gone\nold-used\n");
        let (_, out) = exit_and_out(Format::Json, |ui| list_archived(&lib, ui));
        assert_eq!(out, "[\n  \"b-gone\",\n  \"old-used\"\n]\n");
        let (_, out) = exit_and_out(Format::Jsonl, |ui| list_archived(&lib, ui));
        assert_eq!(out, "{\"name\":\"b-gone\"}\n{\"name\":\"old-used\"}\n");
    }

    fn prune_with(
        lib: &Library,
        days: i64,
        dry_run: bool,
        yes: bool,
        format: Format,
    ) -> (Exit, String) {
        exit_and_out(format, |ui| prune(lib, days, dry_run, yes, ts(NOW), ui))
    }

    /// Nothing idle enough; a dry run; no `-y` where nobody can answer; `-y`.
    #[test]
    fn prune_lists_confirms_and_archives() {
        let dir = tempfile::tempdir().expect("tempdir");
        let lib = small_home(dir.path(), Config::defaults());
        assert_eq!(
            prune_with(&lib, 400, false, true, Format::Text),
            (
                Exit::Success,
                "curator: nothing to prune (no unpinned skills idle >= 400d)\n".into()
            )
        );
        assert_eq!(
            prune_with(&lib, 400, false, true, Format::Jsonl).1,
            "{\"type\":\"summary\",\"candidates\":0,\"archived\":0,\"failed\":0,\"spared\":0,\"dry_run\":false}\n"
        );
        let listed = format!("curator: 2 skill(s) idle >= 30d:\n{OLD}\n{MID}\n");
        assert_eq!(
            prune_with(&lib, 30, true, false, Format::Text),
            (
                Exit::Success,
                format!("{listed}\n(dry run — no changes made)\n")
            )
        );
        assert_eq!(
            prune_with(&lib, 30, true, false, Format::Jsonl).1,
            "{\"type\":\"candidate\",\"name\":\"old-used\",\"idle_days\":120,\"archived\":false,\"error\":null}\n\
             {\"type\":\"candidate\",\"name\":\"mid-used\",\"idle_days\":45,\"archived\":false,\"error\":null}\n\
             {\"type\":\"summary\",\"candidates\":2,\"archived\":0,\"failed\":0,\"spared\":0,\"dry_run\":true}\n"
        );
        // The test's stdin is no terminal: without -y nothing is archived.
        assert_eq!(
            prune_with(&lib, 30, false, false, Format::Text),
            (Exit::Negative, format!("{listed}curator: aborted\n"))
        );
        assert!(dir.path().join("skills/old-used/SKILL.md").is_file());
        assert_eq!(
            prune_with(&lib, 30, false, true, Format::Text),
            (Exit::Success, format!("{listed}\ncurator: archived 2/2\n"))
        );
        assert!(
            dir.path()
                .join("skills/.archive/old-used/SKILL.md")
                .is_file()
        );
        assert!(
            dir.path()
                .join("skills/.archive/mid-used/SKILL.md")
                .is_file()
        );
    }

    /// A skill a cron job names is spared; every record in `json`; a skill that cannot be
    /// archived is reported with its error and the exit says so.
    #[test]
    fn prune_records_spared_and_failed_skills() {
        let dir = tempfile::tempdir().expect("tempdir");
        let lib = small_home(dir.path(), Config::defaults());
        cron_jobs(
            dir.path(),
            r#"{"jobs": [{"id": "j", "skills": ["mid-used"]}]}"#,
        );
        // `.archive` is a file: the archive fails.
        std::fs::write(dir.path().join("skills/.archive"), "").expect("blocker");
        let (exit, out) = prune_with(&lib, 30, false, true, Format::Json);
        assert_eq!(exit, Exit::Negative);
        let error = "failed to create archive dir: File exists (os error 17)";
        assert_eq!(
            serde_json::from_str::<Json>(&out).expect("json"),
            json!([
                {"type": "candidate", "name": "old-used", "idle_days": 120, "archived": false,
                 "error": error},
                {"type": "spared", "name": "mid-used", "idle_days": 45, "reason": "cron"},
                {"type": "summary", "candidates": 1, "archived": 0, "failed": 1, "spared": 1,
                 "dry_run": false},
            ])
        );
        assert!(out.starts_with("[\n  {\n"), "{out}");
        let (exit, out) = prune_with(&lib, 30, false, true, Format::Text);
        assert_eq!(exit, Exit::Negative);
        assert_eq!(
            out,
            format!(
                "curator: 1 skill(s) idle >= 30d:\n{OLD}\n\ncurator: archived 0/1\nfailures:\n  old-used: {error}\n"
            )
        );
    }

    /// A snapshot by hand, then rolled back to: the target's details, the cron jobs it holds,
    /// a refusal without -y, the restore; a snapshot that cannot be read fails.
    #[test]
    fn backup_and_rollback() {
        let dir = tempfile::tempdir().expect("tempdir");
        let lib = small_home(dir.path(), Config::defaults());
        cron_jobs(
            dir.path(),
            r#"{"jobs": [{"id": "j", "skills": ["mid-used"]}]}"#,
        );
        let snap = dir
            .path()
            .join("skills/.curator_backups/2026-06-01T12-00-00Z");
        let (exit, out) = exit_and_out(Format::Text, |ui| backup(&lib, "by hand", ts(NOW), ui));
        assert_eq!(
            (exit, out),
            (
                Exit::Success,
                format!("curator: snapshot created at {}\n", snap.display())
            )
        );
        let (_, out) = exit_and_out(Format::Jsonl, |ui| {
            backup(&lib, "again", ts("2026-06-01T12:30:00Z"), ui)
        });
        let record: Json = serde_json::from_str(&out).expect("record");
        assert_eq!(record["reason"], json!("again"));
        assert_eq!(
            record["path"],
            json!(
                dir.path()
                    .join("skills/.curator_backups/2026-06-01T12-30-00Z")
                    .display()
                    .to_string()
            )
        );
        let details = "Rollback target: 2026-06-01T12-00-00Z\n  reason:      by hand\n  created_at:  2026-06-01T12:00:00+00:00\n  skill files: 3\n  cron jobs:   1 (will be restored for skill-link fields only)\n\nThis will replace the current skills/ tree (a safety snapshot of the current state is taken first so this is undoable). Cron jobs that still exist will have their skills/skill fields restored from the snapshot; all other cron fields are left alone.\n";
        let id = Some("2026-06-01T12-00-00Z");
        let later = ts("2026-06-01T13:00:00Z");
        let (exit, out) = exit_and_out(Format::Text, |ui| {
            rollback(&lib, false, id, false, later, ui)
        });
        assert_eq!(
            (exit, out),
            (Exit::Negative, format!("{details}cancelled\n"))
        );
        let (exit, out) = exit_and_out(Format::Text, |ui| {
            rollback(&lib, false, id, true, later, ui)
        });
        assert_eq!(
            (exit, out),
            (
                Exit::Success,
                format!(
                    "{details}curator: restored from snapshot 2026-06-01T12-00-00Z; cron links: 1 already matched\n"
                )
            )
        );
        let (exit, out) = exit_and_out(Format::Jsonl, |ui| {
            rollback(&lib, false, id, true, ts("2026-06-01T14:00:00Z"), ui)
        });
        assert_eq!(exit, Exit::Success);
        assert_eq!(
            out,
            "{\"ok\":true,\"id\":\"2026-06-01T12-00-00Z\",\"safety_snapshot\":\"2026-06-01T14-00-00Z\",\"message\":\"restored from snapshot 2026-06-01T12-00-00Z; cron links: 1 already matched\"}\n"
        );
        std::fs::write(snap.join("skills.tar.gz"), "not a tarball").expect("damage");
        let (exit, out) = exit_and_out(Format::Text, |ui| {
            rollback(&lib, false, id, true, later, ui)
        });
        assert_eq!(exit, Exit::Negative);
        assert!(
            out.starts_with(&format!("{details}curator: rollback failed — snapshot 2026-06-01T12-00-00Z cannot be restored: ")),
            "{out}"
        );
        let (exit, out) = exit_and_out(Format::Jsonl, |ui| {
            rollback(&lib, false, id, true, later, ui)
        });
        assert_eq!(exit, Exit::Negative);
        let record: Json = serde_json::from_str(&out).expect("record");
        assert_eq!(record["ok"], json!(false));
        assert_eq!(record["id"], json!("2026-06-01T12-00-00Z"));

        let disabled = small_home(
            dir.path(),
            Config::from_yaml("curator:\n  backup:\n    enabled: false\n"),
        );
        let (exit, out) = exit_and_out(Format::Text, |ui| backup(&disabled, "x", ts(NOW), ui));
        assert_eq!(
            (exit, out.as_str()),
            (
                Exit::Negative,
                "curator: backups are disabled via config (`curator.backup.enabled: false`); re-enable to snapshot\n"
            )
        );
    }

    /// A snapshot without a manifest shows its name only.
    #[test]
    fn a_rollback_target_without_a_manifest_shows_its_name_only() {
        let dir = tempfile::tempdir().expect("tempdir");
        let lib = small_home(dir.path(), Config::defaults());
        let (exit, _) = exit_and_out(Format::Text, |ui| backup(&lib, "by hand", ts(NOW), ui));
        assert_eq!(exit, Exit::Success);
        std::fs::remove_file(
            dir.path()
                .join("skills/.curator_backups/2026-06-01T12-00-00Z/manifest.json"),
        )
        .expect("rm");
        let (exit, out) = exit_and_out(Format::Text, |ui| {
            rollback(&lib, false, None, false, ts(NOW), ui)
        });
        assert_eq!(exit, Exit::Negative);
        assert!(
            out.starts_with("Rollback target: 2026-06-01T12-00-00Z\n\nThis will replace"),
            "{out}"
        );
    }
}
