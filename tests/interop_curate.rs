//! The curator against Python Hermes 0.19.0 on identical homes at one fixed clock: the same
//! transitions, the same files, the same words; and each side reads and restores what the
//! other wrote.

mod support;

use serde_json::{Value as Json, json};
use support::curate::{NOW, assert_same_tree, curate, curate_at, names, synthetic, tree};
use support::{TempHome, json_diff, peer};

/// What our run leaves in `skills/` that Python's bare transitions do not.
const OURS_ONLY: &[&str] = &[".curator_backups", ".curator_state", ".usage.json.lock"];

fn counts(record: &Json) -> Json {
    json!({
        "marked_stale": record["marked_stale"],
        "archived": record["archived"],
        "reactivated": record["reactivated"],
        "checked": record["checked"],
        "seeded": record["seeded"],
    })
}

fn run_json(home: &TempHome, now: &str) -> Json {
    let (code, out, err) = curate_at(home.path(), now, &["run", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).expect("run record")
}

/// Scenario 39 at 240 skills: `hermes-curate run` and `apply_automatic_transitions` leave
/// byte-identical sidecars, archives and suppression lists, with the same counters; the
/// second pass too.
#[test]
fn transitions_match_python_on_a_synthetic_home() {
    let (python, ours) = (TempHome::new(), TempHome::new());
    synthetic(python.path(), 240);
    synthetic(ours.path(), 240);
    for pass in 0..2 {
        let theirs = peer(python.path(), "curate_transitions", &[NOW], None);
        let record = run_json(&ours, NOW);
        assert_eq!(counts(&record), theirs, "pass {pass}");
        if pass == 0 {
            assert!(theirs["archived"].as_u64().unwrap_or(0) > 20, "{theirs}");
            assert!(theirs["seeded"].as_u64().unwrap_or(0) > 0, "{theirs}");
        }
        let (a, b) = (
            tree(&python.path().join("skills"), OURS_ONLY),
            tree(&ours.path().join("skills"), OURS_ONLY),
        );
        assert_same_tree(&a, &b, &format!("pass {pass}"));
        let na = names(&a);
        assert!(
            na.contains(&".archive/twin-20260601120000/SKILL.md".to_string()),
            "{na:?}"
        );
    }
    // The protected ones really were old enough to go.
    let usage: Json = serde_json::from_str(&ours.read("skills/.usage.json")).expect("usage");
    for name in ["cron-disabled", "cron-slash", "cron-legacy"] {
        assert_eq!(usage[name].get("state"), None, "{name} is cron-referenced");
        assert!(
            ours.path()
                .join(format!("skills/special/{name}/SKILL.md"))
                .exists()
        );
    }
    assert_eq!(usage["archived-live"]["state"], json!("archived"));
    assert!(
        ours.path()
            .join("skills/special/archived-live/SKILL.md")
            .exists()
    );
}

fn strip_ours(run: &mut Json) {
    if let Json::Object(m) = run {
        m.remove("auto_archived");
        m.remove("auto_state_changes");
    }
}

/// Drops our extra REPORT.md sections (the automatic archives and state changes) and names
/// Python's restore command where ours names hermes-curate's.
fn upstream_sections(md: &str) -> String {
    let md = md.replace(
        "`hermes-curate restore <name>`",
        "`hermes curator restore <name>`",
    );
    let mut out = Vec::new();
    let mut skipping = false;
    for line in md.split('\n') {
        if line.starts_with("### Archived by the automatic pass")
            || line.starts_with("### Automatic state changes")
        {
            skipping = true;
            continue;
        }
        if skipping && line.starts_with("## ") {
            skipping = false;
        }
        if !skipping {
            out.push(line);
        }
    }
    out.join("\n")
}

fn scenario_42(home: &TempHome) {
    for name in ["old-used", "mid-used", "young-unused"] {
        home.write(
            &format!("skills/{name}/SKILL.md"),
            support::curate::skill(name),
        );
    }
    home.write(
        "skills/.usage.json",
        json!({
            "old-used": {"created_by": "agent", "use_count": 1, "last_used_at": support::curate::ago(120, 0)},
            "mid-used": {"created_by": "agent", "use_count": 1, "last_used_at": support::curate::ago(45, 0)},
            "young-unused": {"created_by": "agent", "created_at": support::curate::ago(3, 0)},
        })
        .to_string(),
    );
}

/// Scenario 42, the whole `run` side by side: the same lines, the same `.curator_state`,
/// `run.json` and `REPORT.md` (ours with its extra keys and sections removed), the same
/// backup manifest but for the tarball's size.
#[test]
fn a_run_writes_what_python_writes() {
    let (python, ours) = (TempHome::new(), TempHome::new());
    scenario_42(&python);
    scenario_42(&ours);
    let theirs = peer(python.path(), "curate_cli", &[NOW, "run"], None);
    assert_eq!(theirs["code"], json!(0));
    let (code, out, err) = curate(ours.path(), &["run", "--format", "text"]);
    assert_eq!(code, 0, "{err}");
    let py_lines: Vec<&str> = theirs["stdout"].as_str().unwrap_or("").lines().collect();
    assert_eq!(
        py_lines,
        vec![
            "curator: running review pass...",
            "curator: consolidation is off — running prune-only (deterministic stale/archive). Pass --consolidate or set `curator.consolidate: true` to enable the LLM merge pass.",
            "curator: snapshot created (2026-06-01T12-00-00Z)",
            "curator: auto: 1 marked stale, 1 archived; llm: skipped (consolidation off)",
            "auto: checked=3 stale=1 archived=1 reactivated=0",
        ]
    );
    let report_dir = ours.path().join("logs/curator/20260601-120000");
    assert_eq!(
        out,
        format!(
            "curator: running review pass...\n\
             curator: consolidation is off — running prune-only (deterministic stale/archive).\n\
             curator: snapshot created (2026-06-01T12-00-00Z)\n\
             curator: auto: 1 marked stale, 1 archived; llm: skipped (consolidation off)\n\
             auto: checked=3 stale=1 archived=1 reactivated=0\n\
             curator: report written to {}\n",
            report_dir.display()
        )
    );
    let state = |home: &TempHome| {
        home.read("skills/.curator_state")
            .replace(&home.path().display().to_string(), "$HOME")
    };
    assert_eq!(state(&ours), state(&python));
    let dir = "logs/curator/20260601-120000";
    let mut run: Json = serde_json::from_str(&ours.read(&format!("{dir}/run.json"))).expect("run");
    assert_eq!(
        run["auto_archived"],
        json!([{"name": "old-used", "archived_to": ".archive/old-used"}])
    );
    assert_eq!(
        run["auto_state_changes"],
        json!([{"name": "mid-used", "from": "active", "to": "stale"}])
    );
    strip_ours(&mut run);
    let py_run: Json =
        serde_json::from_str(&python.read(&format!("{dir}/run.json"))).expect("python run");
    assert_eq!(json_diff(&run, &py_run), Vec::<String>::new());
    assert_eq!(
        upstream_sections(&ours.read(&format!("{dir}/REPORT.md"))),
        python.read(&format!("{dir}/REPORT.md"))
    );
    assert!(
        ours.read(&format!("{dir}/REPORT.md"))
            .contains("### Archived by the automatic pass (1)\n\n_Unused for `curator.archive_after_days` or longer. Each directory now lives under `~/.hermes/skills/.archive/`; restore any with `hermes-curate restore <name>`._\n\nOver the whole run, agent-created skills went from 3 to 2 (-1); the header counts from after this pass, as Hermes does.\n\n- `old-used` → `.archive/old-used`\n\n### Automatic state changes (1)\n\n- `mid-used`: active → stale\n\n## LLM consolidation pass")
    );
    let manifest = |home: &TempHome| {
        let mut m: Json = serde_json::from_str(
            &home.read("skills/.curator_backups/2026-06-01T12-00-00Z/manifest.json"),
        )
        .expect("manifest");
        m["archive_bytes"] = json!(0);
        m
    };
    assert_eq!(manifest(&ours), manifest(&python));
}

/// Python reads our state, sidecar and backups: its schedule, report and backup list agree
/// with ours, and its rollback restores our snapshot to the tree as it was.
#[test]
fn python_reads_and_restores_what_we_wrote() {
    let home = TempHome::new();
    synthetic(home.path(), 60);
    let skip = [".curator_backups", ".hub", ".usage.json.lock"];
    let before = tree(&home.path().join("skills"), &skip);
    let record = run_json(&home, NOW);
    let id = record["backup"].as_str().expect("backup id").to_string();
    let read = peer(
        home.path(),
        "curate_read",
        &[NOW, "2026-06-08T11:59:59Z"],
        None,
    );
    let ours_state: Json =
        serde_json::from_str(&home.read("skills/.curator_state")).expect("state");
    assert_eq!(read["state"], ours_state);
    assert_eq!(read["due"], json!(false));
    let due = peer(
        home.path(),
        "curate_read",
        &[NOW, "2026-06-08T12:00:00Z"],
        None,
    );
    assert_eq!(due["due"], json!(true));
    let ours_usage: Json = serde_json::from_str(&home.read("skills/.usage.json")).expect("usage");
    assert_eq!(read["usage"], ours_usage);
    let manifest: Json =
        serde_json::from_str(&home.read(&format!("skills/.curator_backups/{id}/manifest.json")))
            .expect("manifest");
    assert_eq!(read["backups"], json!([manifest]));
    let (_, ours_archived, _) = curate(home.path(), &["list-archived", "--format", "json"]);
    let ours_archived: Json = serde_json::from_str(&ours_archived).expect("list");
    assert_eq!(read["archived"], ours_archived);

    let restored = peer(
        home.path(),
        "curate_rollback",
        &["2026-06-01T13:00:00Z", &id],
        None,
    );
    assert_eq!(
        restored,
        json!([
            true,
            format!("restored from snapshot {id}; cron links: 3 already matched")
        ])
    );
    let after = tree(&home.path().join("skills"), &skip);
    assert_same_tree(&after, &before, "after Python's rollback");
}

/// Our rollback restores a snapshot Python took, and puts its cron links back.
#[test]
fn we_restore_a_python_snapshot() {
    let home = TempHome::new();
    synthetic(home.path(), 40);
    let skip = [".curator_backups", ".hub", ".usage.json.lock"];
    let before = tree(&home.path().join("skills"), &skip);
    let id = peer(home.path(), "curate_snapshot", &[NOW, "manual"], None);
    let id = id.as_str().expect("id").to_string();
    let (code, _, err) = curate(home.path(), &["run", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let jobs = home
        .read("cron/jobs.json")
        .replace("\"cron-disabled\"", "\"renamed\"");
    home.write("cron/jobs.json", &jobs);
    let (code, out, err) = curate_at(
        home.path(),
        "2026-06-01T12:30:00Z",
        &["rollback", "--id", &id, "-y", "--format", "json"],
    );
    assert_eq!(code, 0, "{err}");
    let answer: Json = serde_json::from_str(&out).expect("answer");
    assert_eq!(
        answer["message"],
        json!(format!(
            "restored from snapshot {id}; cron links: 1 job(s) had skill links restored, 2 already matched"
        ))
    );
    assert_same_tree(
        &tree(&home.path().join("skills"), &skip),
        &before,
        "after our rollback",
    );
    let refs = peer(home.path(), "curate_cron_refs", &[], None);
    assert_eq!(refs, json!(["cron-disabled", "cron-legacy", "cron-slash"]));
}

/// `status` and `usage` print what `hermes curator status|usage` prints, on one home.
#[test]
fn status_and_usage_read_like_python() {
    let home = TempHome::new();
    synthetic(home.path(), 80);
    run_json(&home, "2026-05-20T08:00:00Z");
    let later = "2026-06-01T12:00:00Z";
    let theirs = peer(home.path(), "curate_cli", &[later, "status"], None);
    let (code, ours, err) = curate_at(home.path(), later, &["status", "--format", "text"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(ours, theirs["stdout"].as_str().unwrap_or(""));
    for sort in ["activity", "recent", "name"] {
        let theirs = peer(
            home.path(),
            "curate_cli",
            &[later, "usage", "--sort", sort],
            None,
        );
        let (_, ours, _) = curate_at(
            home.path(),
            later,
            &["usage", "--sort", sort, "--format", "text"],
        );
        assert_eq!(
            ours,
            theirs["stdout"].as_str().unwrap_or(""),
            "--sort {sort}"
        );
    }
    let theirs = peer(
        home.path(),
        "curate_cli",
        &[later, "usage", "--json", "--provenance", "agent"],
        None,
    );
    let (_, ours, _) = curate_at(
        home.path(),
        later,
        &["usage", "--provenance", "agent", "--format", "json"],
    );
    let ours: Json = serde_json::from_str(&ours).expect("ours");
    let theirs: Json = serde_json::from_str(theirs["stdout"].as_str().unwrap_or("")).expect("py");
    assert_eq!(json_diff(&ours, &theirs), Vec::<String>::new());
}

/// The one-skill verbs and prune answer as Hermes's do, step for step on twin homes.
#[test]
fn verbs_and_prune_answer_like_python() {
    let (python, ours) = (TempHome::new(), TempHome::new());
    for home in [&python, &ours] {
        synthetic(home.path(), 40);
        std::fs::remove_file(home.path().join("cron/jobs.json")).expect("no cron");
    }
    let steps: &[&[&str]] = &[
        &["pin", "skill-00003"],
        &["archive", "skill-00003"],
        &["unpin", "skill-00003"],
        &["archive", "skill-00003"],
        &["archive", "skill-00003"],
        &["restore", "skill-00003"],
        &["restore", "skill-00003"],
        &["pin", "hub-skill"],
        &["unpin", "bundled-a"],
        &["pin", "manual-old"],
        &["archive", "plan"],
        &["restore", "nope"],
        &["prune", "--days", "60", "--dry-run"],
        &["prune", "--days", "60", "-y"],
        &["list-archived"],
    ];
    for step in steps {
        let mut args = vec![NOW];
        args.extend_from_slice(step);
        let theirs = peer(python.path(), "curate_cli", &args, None);
        let mut ours_args = step.to_vec();
        ours_args.extend(["--format", "text"]);
        let (code, out, err) = curate(ours.path(), &ours_args);
        let norm =
            |s: &str, home: &TempHome| s.replace(&home.path().display().to_string(), "$HOME");
        let theirs_out = norm(theirs["stdout"].as_str().unwrap_or(""), &python)
            .replace("hermes curator unpin", "hermes-curate unpin");
        // A refusal says what Python says, on stderr under our name (issue 18: refusals on
        // the same stream in every binary); Python prints it on stdout.
        let said = match code {
            1 if out.is_empty() && err.starts_with("hermes-curate: ") => {
                err.replacen("hermes-curate: ", "curator: ", 1)
            }
            _ => out,
        };
        assert_eq!(norm(&said, &ours), theirs_out, "{step:?}");
        assert_eq!(json!(code), theirs["code"], "{step:?}");
    }
    assert_same_tree(
        &tree(&python.path().join("skills"), &[".usage.json.lock"]),
        &tree(&ours.path().join("skills"), &[".usage.json.lock"]),
        "after the verbs",
    );
}
