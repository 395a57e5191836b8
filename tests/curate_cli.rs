//! hermes-curate end to end on temporary homes: exact records, exact files, the schedule,
//! dry runs that touch nothing, and bad input that loses nothing.

mod support;

use serde_json::{Value as Json, json};
use support::TempHome;
use support::curate::{NOW, ago, assert_same_tree, curate, curate_at, skill, tree};

/// Three skills: one ancient (archived by a run), one 45 days idle (stale), one young.
fn small_home() -> TempHome {
    let home = TempHome::new();
    for name in ["old-used", "mid-used", "young-unused"] {
        home.write(&format!("skills/{name}/SKILL.md"), skill(name));
    }
    home.write(
        "skills/.usage.json",
        json!({
            "old-used": {"created_by": "agent", "use_count": 1, "last_used_at": ago(120, 0)},
            "mid-used": {"created_by": "agent", "use_count": 1, "last_used_at": ago(45, 0)},
            "young-unused": {"created_by": "agent", "created_at": ago(3, 0)},
        })
        .to_string(),
    );
    home
}

fn whole(home: &TempHome) -> Vec<(String, Option<String>)> {
    tree(home.path(), &[])
}

#[test]
fn run_prints_one_record_and_writes_state_report_and_backup() {
    let home = small_home();
    let (code, out, err) = curate(home.path(), &["run", "--format", "jsonl"]);
    assert_eq!(code, 0, "{err}");
    let report = home.path().join("logs/curator/20260601-120000");
    assert_eq!(
        out,
        format!(
            "{{\"checked\":3,\"marked_stale\":1,\"archived\":1,\"reactivated\":0,\"seeded\":0,\"report\":\"{}\",\"dry_run\":false,\"backup\":\"2026-06-01T12-00-00Z\",\"failed\":0}}\n",
            report.display()
        )
    );
    assert_eq!(
        err,
        "curator: running review pass...\ncurator: consolidation is off — running prune-only (deterministic stale/archive).\ncurator: snapshot created (2026-06-01T12-00-00Z)\ncurator: auto: 1 marked stale, 1 archived; llm: skipped (consolidation off)\nauto: checked=3 stale=1 archived=1 reactivated=0\n"
            .to_string()
            + &format!("curator: report written to {}\n", report.display())
    );
    assert_eq!(
        home.read("skills/.curator_state"),
        format!(
            "{{\n  \"last_report_path\": \"{}\",\n  \"last_run_at\": \"2026-06-01T12:00:00+00:00\",\n  \"last_run_duration_seconds\": 0.0,\n  \"last_run_summary\": \"auto: 1 marked stale, 1 archived; llm: skipped (consolidation off)\",\n  \"last_run_summary_shown_at\": null,\n  \"paused\": false,\n  \"run_count\": 1\n}}",
            report.display()
        )
    );
    let usage: Json = serde_json::from_str(&home.read("skills/.usage.json")).expect("usage");
    assert_eq!(
        usage["old-used"],
        json!({"archived_at": "2026-06-01T12:00:00+00:00", "created_by": "agent",
               "last_used_at": ago(120, 0), "state": "archived", "use_count": 1})
    );
    assert_eq!(usage["mid-used"]["state"], json!("stale"));
    assert!(
        home.path()
            .join("skills/.archive/old-used/SKILL.md")
            .exists()
    );
    let manifest: Json = serde_json::from_str(
        &home.read("skills/.curator_backups/2026-06-01T12-00-00Z/manifest.json"),
    )
    .expect("manifest");
    assert_eq!(manifest["skill_files"], json!(3));
    assert_eq!(manifest["reason"], json!("pre-curator-run"));
    assert_eq!(
        manifest["cron_jobs"],
        json!({"backed_up": false, "jobs_count": 0, "reason": "no cron/jobs.json present"})
    );
    let run: Json =
        serde_json::from_str(&std::fs::read_to_string(report.join("run.json")).expect("run"))
            .expect("json");
    assert_eq!(
        run["auto_transitions"],
        json!({"marked_stale": 1, "archived": 1, "reactivated": 0, "checked": 3, "seeded": 0})
    );
    assert_eq!(run["counts"]["before"], json!(2));
}

#[test]
fn if_due_seeds_first_then_waits_one_interval() {
    let home = small_home();
    let before = whole(&home);
    let (code, out, _) = curate(
        home.path(),
        &["run", "--if-due", "--dry-run", "--format", "jsonl"],
    );
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "{\"ran\":false,\"reason\":\"seeded\",\"last_run_at\":\"2026-06-01T12:00:00+00:00\",\"next_run_at\":null}\n"
        )
    );
    assert_same_tree(&whole(&home), &before, "a dry run seeds nothing");
    let (code, out, _) = curate(home.path(), &["run", "--if-due", "--format", "jsonl"]);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "{\"ran\":false,\"reason\":\"seeded\",\"last_run_at\":\"2026-06-01T12:00:00+00:00\",\"next_run_at\":null}\n"
    );
    assert!(
        home.read("skills/.curator_state")
            .contains("deferred first run — curator seeded")
    );
    let (_, out, _) = curate_at(
        home.path(),
        "2026-06-08T11:00:00Z",
        &["run", "--if-due", "--format", "jsonl"],
    );
    assert_eq!(
        out,
        "{\"ran\":false,\"reason\":\"not_due\",\"last_run_at\":\"2026-06-01T12:00:00+00:00\",\"next_run_at\":\"2026-06-08T12:00:00+00:00\"}\n"
    );
    let (_, out, err) = curate_at(
        home.path(),
        "2026-06-08T11:00:00Z",
        &["run", "--if-due", "--format", "text"],
    );
    assert_eq!(
        out,
        "curator: not due — last run 6d ago; next run due at 2026-06-08T12:00:00+00:00\n"
    );
    assert_eq!(err, "");
    let (code, out, _) = curate_at(
        home.path(),
        "2026-06-08T12:00:00Z",
        &["run", "--if-due", "--format", "json"],
    );
    assert_eq!(code, 0);
    let record: Json = serde_json::from_str(&out).expect("record");
    assert_eq!(record["checked"], json!(3));
    assert_eq!(record["archived"], json!(1));
}

#[test]
fn pause_stops_if_due_but_not_an_explicit_run() {
    let home = small_home();
    let (code, out, _) = curate(home.path(), &["pause", "--format", "text"]);
    assert_eq!((code, out.as_str()), (0, "curator: paused\n"));
    let (_, out, _) = curate(home.path(), &["run", "--if-due", "--format", "jsonl"]);
    assert_eq!(
        out,
        "{\"ran\":false,\"reason\":\"paused\",\"last_run_at\":null,\"next_run_at\":null}\n"
    );
    assert!(!home.path().join("skills/.archive").exists());
    let (code, _, err) = curate(home.path(), &["run", "--format", "jsonl"]);
    assert_eq!(code, 0);
    assert!(err.starts_with("hermes-curate: note: the curator is paused; `run` runs anyway when asked (cron's `run --if-due` skips)\n"), "{err}");
    assert!(home.path().join("skills/.archive/old-used").exists());
    let (_, out, _) = curate(home.path(), &["resume", "--format", "jsonl"]);
    assert_eq!(out, "{\"paused\":false}\n");
    assert!(
        home.read("skills/.curator_state")
            .contains("\"paused\": false")
    );
}

#[test]
fn disabled_refuses_run_and_skips_if_due() {
    let home = small_home();
    home.write("config.yaml", "curator:\n  enabled: off\n");
    let (code, out, _) = curate(home.path(), &["run", "--format", "text"]);
    assert_eq!(
        (code, out.as_str()),
        (
            1,
            "curator: disabled via config; enable with `curator.enabled: true`\n"
        )
    );
    let (code, out, _) = curate(home.path(), &["run", "--if-due", "--format", "jsonl"]);
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "{\"ran\":false,\"reason\":\"disabled\",\"last_run_at\":null,\"next_run_at\":null}\n"
        )
    );
    assert!(!home.path().join("skills/.curator_state").exists());
}

/// A dry run previews the transitions a future date would bring, and writes nothing.
#[test]
fn dry_run_previews_and_changes_nothing() {
    let home = small_home();
    home.write(
        "cron/jobs.json",
        r#"{"jobs": [{"id": "j", "skills": ["young-unused"]}]}"#,
    );
    let before = whole(&home);
    let (code, out, err) = curate_at(
        home.path(),
        "2026-09-01T00:00:00Z",
        &["run", "--dry-run", "--format", "text"],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "curator: running DRY-RUN (report only, no mutations)...\n\
         curator: consolidation is off — running prune-only (deterministic stale/archive).\n\
         \x20 would archive: mid-used\n\
         \x20 would archive: old-used\n\
         auto (preview): checked=3 stale=0 archived=2 reactivated=0 — no transitions applied in dry-run\n\
         dry-run: no changes applied. Run `hermes-curate run` (no flag) to apply.\n"
    );
    assert_same_tree(&whole(&home), &before, "after a dry run");
}

#[test]
fn consolidate_without_a_model_is_refused_before_anything_happens() {
    let home = small_home();
    let before = whole(&home);
    let (code, out, err) = curate(home.path(), &["run", "--consolidate"]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(err.starts_with("hermes-curate: error: "), "{err}");
    assert!(err.contains("\nhint: "), "{err}");
    assert_same_tree(&whole(&home), &before, "after --consolidate");
}

#[test]
fn a_corrupt_sidecar_stops_the_run_and_loses_nothing() {
    let home = small_home();
    home.write(
        "skills/.usage.json",
        "{\"old-used\": {\"created_by\": \"agent\",",
    );
    let before = whole(&home);
    let (code, out, err) = curate(home.path(), &["run", "--format", "jsonl"]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert_eq!(
        err,
        format!(
            "hermes-curate: error: {}/skills/.usage.json does not parse (EOF while parsing a value at line 1 column 36); left as it is\nhint: restore skills/.usage.json from the latest snapshot (`hermes-curate rollback --list`), or fix it by hand or move it away to start counting afresh\n",
            home.path().display()
        )
    );
    assert_same_tree(&whole(&home), &before, "after a corrupt sidecar");
}

#[test]
fn cron_jobs_that_are_not_json_stop_the_run() {
    let home = small_home();
    home.write("cron/jobs.json", "{\"jobs\": [ oops");
    let before = whole(&home);
    let (code, _, err) = curate(home.path(), &["run"]);
    assert_eq!(code, 2);
    assert_eq!(
        err,
        format!(
            "hermes-curate: error: cannot read the cron jobs, so the skills they need are unknown: {}/cron/jobs.json is not valid JSON (expected value at line 1 column 12)\nhint: fix cron/jobs.json (or move it away if no job needs a skill), then run again\n",
            home.path().display()
        )
    );
    assert_same_tree(&whole(&home), &before, "after bad jobs.json");
    let (code, _, _) = curate(home.path(), &["prune", "--days", "1", "-y"]);
    assert_eq!(code, 2, "prune needs the cron references too");
}

#[test]
fn a_corrupt_state_file_is_never_overwritten() {
    let home = small_home();
    home.write("skills/.curator_state", "{\"paused\": tru");
    // A dry run looks with the defaults and says so.
    let (code, _, err) = curate(home.path(), &["run", "--dry-run", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.starts_with("hermes-curate: warning: skills/.curator_state could not be read (EOF while parsing a value at line 1 column 14); this dry run used the defaults (a run refuses until it is fixed or moved away)\n"), "{err}");
    // A run refuses before changing anything (issue 18: never overwrite what we could not
    // parse), keeping a copy.
    let (code, _, err) = curate(home.path(), &["run", "--format", "json"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(".curator_state: it does not parse (EOF while parsing a value at line 1 column 14); left as it is"), "{err}");
    assert_eq!(
        home.read("skills/.curator_state.corrupt"),
        "{\"paused\": tru"
    );
    assert_eq!(home.read("skills/.curator_state"), "{\"paused\": tru");
    let (code, _, _) = curate(home.path(), &["pause"]);
    assert_eq!(code, 2);
    assert_eq!(home.read("skills/.curator_state"), "{\"paused\": tru");
}

/// Odd trees: a folder without SKILL.md is left alone, a taken archive name gets a stamp,
/// and an unreadable counter skips that skill (Hermes's whole pass would crash).
#[test]
fn odd_trees_are_handled_one_skill_at_a_time() {
    let home = small_home();
    home.write("skills/.archive/old-used/SKILL.md", "an older copy");
    home.write("skills/empty-folder/notes.md", "not a skill");
    home.write("skills/counted/SKILL.md", skill("counted"));
    let mut usage: Json = serde_json::from_str(&home.read("skills/.usage.json")).expect("usage");
    usage["counted"] =
        json!({"created_by": "agent", "use_count": "many", "created_at": ago(300, 0)});
    usage["empty-folder"] = json!({"created_by": "agent", "created_at": ago(300, 0)});
    home.write("skills/.usage.json", usage.to_string());
    let (code, out, err) = curate(home.path(), &["run", "--format", "jsonl"]);
    assert_eq!(code, 2, "one skill could not be judged: {err}");
    assert!(
        out.contains("\"checked\":4,\"marked_stale\":1,\"archived\":1,"),
        "{out}"
    );
    assert!(out.ends_with("\"failed\":1}\n"), "{out}");
    assert!(err.contains("hermes-curate: warning: counted: left alone, its usage record is unreadable: counted: use_count is \"many\", not a number; the record was left as it is\n"), "{err}");
    assert_eq!(
        home.read("skills/.archive/old-used/SKILL.md"),
        "an older copy"
    );
    assert!(
        home.path()
            .join("skills/.archive/old-used-20260601120000/SKILL.md")
            .exists()
    );
    assert_eq!(home.read("skills/empty-folder/notes.md"), "not a skill");
    assert!(home.path().join("skills/counted/SKILL.md").exists());
}

/// The disk refuses the moves half-way (the archive folder is not writable): the backup was
/// taken first, the other transitions are recorded, each refusal is reported.
#[test]
fn a_read_only_archive_fails_per_skill_after_the_backup() {
    use std::os::unix::fs::PermissionsExt;
    let home = small_home();
    home.write("skills/b-old/SKILL.md", skill("b-old"));
    let mut usage: Json = serde_json::from_str(&home.read("skills/.usage.json")).expect("usage");
    usage["b-old"] = json!({"created_by": "agent", "use_count": 2, "last_used_at": ago(200, 0)});
    home.write("skills/.usage.json", usage.to_string());
    std::fs::create_dir_all(home.path().join("skills/.archive")).expect("mkdir");
    // Everything belongs to `nobody` but the archive folder, which stays root's.
    let status = std::process::Command::new("chown")
        .args(["-R", "65534:65534"])
        .arg(home.path())
        .status()
        .expect("chown");
    assert!(status.success());
    let archive = home.path().join("skills/.archive");
    std::process::Command::new("chown")
        .args(["0:0"])
        .arg(&archive)
        .status()
        .expect("chown");
    std::fs::set_permissions(&archive, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let out = std::process::Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(assert_cmd::cargo::cargo_bin("hermes-curate"))
        .args(["run", "--format", "jsonl"])
        .env("HERMES_HOME", home.path())
        .env("HERMES_NOW", NOW)
        .output()
        .expect("run as nobody");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(
            "hermes-curate: warning: b-old: failed to archive: Permission denied (os error 13)\n"
        ),
        "{err}"
    );
    assert!(
        err.contains(
            "hermes-curate: warning: old-used: failed to archive: Permission denied (os error 13)\n"
        ),
        "{err}"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.starts_with("{\"checked\":4,\"marked_stale\":1,\"archived\":0,"),
        "{stdout}"
    );
    assert!(
        home.path()
            .join("skills/.curator_backups/2026-06-01T12-00-00Z/skills.tar.gz")
            .exists()
    );
    assert!(home.path().join("skills/old-used/SKILL.md").exists());
    let usage: Json = serde_json::from_str(&home.read("skills/.usage.json")).expect("usage");
    assert_eq!(usage["mid-used"]["state"], json!("stale"));
    assert_eq!(usage["old-used"].get("state"), None);
}

#[test]
fn backups_keep_the_newest_and_never_their_own() {
    let home = small_home();
    home.write("config.yaml", "curator:\n  backup:\n    keep: 2\n");
    for _ in 0..4 {
        let (code, _, err) = curate(
            home.path(),
            &["backup", "--reason", "by hand", "--format", "jsonl"],
        );
        assert_eq!(code, 0, "{err}");
    }
    let (_, out, _) = curate(home.path(), &["rollback", "--list", "--format", "text"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        "id                        reason                                    skills      size"
    );
    assert_eq!(lines[1], "─".repeat(84));
    assert!(
        lines[2].starts_with(
            "2026-06-01T12-00-00Z-03   by hand                                        3  "
        ),
        "{out}"
    );
    assert!(
        lines[3].starts_with("2026-06-01T12-00-00Z-02   by hand "),
        "{out}"
    );
    assert_eq!(lines.len(), 4);
    let (code, out, _) = curate(
        home.path(),
        &[
            "rollback",
            "--id",
            "2000-01-01T00-00-00Z",
            "-y",
            "--format",
            "text",
        ],
    );
    assert_eq!(code, 1);
    assert!(
        out.starts_with("curator: no snapshot matching id '2000-01-01T00-00-00Z'.\nAvailable:\n"),
        "{out}"
    );
}

#[test]
fn rollback_takes_a_safety_snapshot_and_restores_the_tree() {
    let home = small_home();
    let skip = [".curator_backups", ".usage.json.lock"];
    let before = tree(&home.path().join("skills"), &skip);
    let (code, _, _) = curate(home.path(), &["run", "--format", "jsonl"]);
    assert_eq!(code, 0);
    let (code, out, err) = curate_at(
        home.path(),
        "2026-06-01T13:00:00Z",
        &["rollback", "-y", "--format", "text"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("Rollback target: 2026-06-01T12-00-00Z\n  reason:      pre-curator-run\n  created_at:  2026-06-01T12:00:00+00:00\n  skill files: 3\n  cron jobs:   not in snapshot (no cron/jobs.json present)\n"), "{out}");
    assert!(
        out.ends_with("curator: restored from snapshot 2026-06-01T12-00-00Z\n"),
        "{out}"
    );
    let after = tree(&home.path().join("skills"), &skip);
    // The run's state file is gone with the rest: the snapshot predates it.
    assert_same_tree(&after, &before, "after rollback");
    let manifest = home.read("skills/.curator_backups/2026-06-01T13-00-00Z/manifest.json");
    assert!(
        manifest.contains("\"reason\": \"pre-rollback to 2026-06-01T12-00-00Z\""),
        "{manifest}"
    );
}

#[test]
fn prune_spares_cron_skills_and_checks_days() {
    let home = small_home();
    home.write(
        "cron/jobs.json",
        r#"{"jobs": [{"id": "j", "skill": "/old-used", "enabled": false}]}"#,
    );
    let (code, out, err) = curate(home.path(), &["prune", "--days", "0"]);
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (2, "", "curator: --days must be >= 1 (got 0)\n")
    );
    let (code, out, err) = curate(
        home.path(),
        &["prune", "--days", "30", "-y", "--format", "text"],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        err,
        "curator: keeping old-used (idle 120d): a cron job names it\n"
    );
    assert_eq!(
        out,
        "curator: 1 skill(s) idle >= 30d:\n  mid-used                                 idle 45d\n\ncurator: archived 1/1\n"
    );
    let (_, out, _) = curate(home.path(), &["list-archived", "--format", "text"]);
    assert_eq!(out, "mid-used\n");
    let (code, out, _) = curate(home.path(), &["prune", "--days", "30", "--format", "jsonl"]);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "{\"type\":\"spared\",\"name\":\"old-used\",\"idle_days\":120,\"reason\":\"cron\"}\n{\"type\":\"summary\",\"candidates\":0,\"archived\":0,\"failed\":0,\"spared\":1,\"dry_run\":false}\n"
    );
}

#[test]
fn verbs_answer_in_json_and_refuse_with_exit_1() {
    let home = small_home();
    home.write("skills/.bundled_manifest", "builtin:abc\n");
    home.write("skills/builtin/SKILL.md", skill("builtin"));
    let (code, out, _) = curate(home.path(), &["pin", "builtin", "--format", "jsonl"]);
    assert_eq!(code, 1);
    assert_eq!(
        out,
        "{\"ok\":false,\"skill\":\"builtin\",\"message\":\"'builtin' is bundled or hub-installed — cannot pin (only agent-created skills participate in curation)\"}\n"
    );
    let (code, out, _) = curate(home.path(), &["pin", "mid-used", "--format", "jsonl"]);
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "{\"ok\":true,\"skill\":\"mid-used\",\"message\":\"pinned 'mid-used' (will bypass auto-transitions)\"}\n"
        )
    );
    let (code, out, err) = curate(home.path(), &["archive", "mid-used", "--format", "text"]);
    // Refusals go to stderr in text, as in every binary (issue 18).
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (
            1,
            "",
            "hermes-curate: 'mid-used' is pinned — unpin first with `hermes-curate unpin mid-used`\n"
        )
    );
    let (code, out, err) = curate(home.path(), &["list-archived", "--format", "text"]);
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (0, "", "curator: no archived skills\n")
    );
}

#[test]
fn status_json_has_the_schedule_and_the_counts() {
    let home = small_home();
    curate(home.path(), &["run", "--format", "jsonl"]);
    let (code, out, _) = curate_at(
        home.path(),
        "2026-06-02T12:00:00Z",
        &["status", "--format", "json"],
    );
    assert_eq!(code, 0);
    let status: Json = serde_json::from_str(&out).expect("json");
    assert_eq!(status["status"], json!("ENABLED"));
    assert_eq!(status["run_count"], json!(1));
    assert_eq!(status["next_run_at"], json!("2026-06-08T12:00:00+00:00"));
    assert_eq!(
        status["skills"],
        json!({"total": 2, "active": 1, "stale": 1, "archived": 0})
    );
    assert_eq!(
        status["least_recently_active"][0]["name"],
        json!("young-unused")
    );
}
