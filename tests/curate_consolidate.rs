//! `hermes-curate run --consolidate` against the scripted loopback server: umbrellas,
//! `absorbed_into`, a prune, the classification and the report, the cron rewrite, the backup.

mod support;

use serde_json::{Value, json};
use support::chat_server::{ChatServer, Reply};
use support::curate::{NOW, ago};

fn skill(name: &str, description: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\n# {name}\n\nSteps for {name}.\n")
}

/// Three narrow docker skills, one stale note, one young skill, a job that loads one of the
/// docker skills.
fn home(srv: &ChatServer) -> support::TempHome {
    let home = support::TempHome::new();
    home.write(
        "config.yaml",
        format!(
            "model:\n  provider: custom\n  base_url: {}\n  default: fake-model\nagent:\n  retry_backoff_seconds: 0.01\n",
            srv.base_url()
        ),
    );
    for (name, description) in [
        (
            "docker-build-cache",
            "Speeding up docker builds with the layer cache",
        ),
        ("docker-compose-logs", "Reading docker compose logs"),
        ("docker-image-prune", "Freeing disk used by docker images"),
        ("old-notes", "Notes from an old migration"),
        ("fresh-idea", "A young skill"),
    ] {
        home.write(&format!("skills/{name}/SKILL.md"), skill(name, description));
    }
    home.write(
        "skills/.usage.json",
        json!({
            "docker-build-cache": {"created_by": "agent", "use_count": 2, "last_used_at": ago(5, 0)},
            "docker-compose-logs": {"created_by": "agent", "use_count": 1, "last_used_at": ago(6, 0)},
            "docker-image-prune": {"created_by": "agent", "use_count": 1, "last_used_at": ago(7, 0)},
            "old-notes": {"created_by": "agent", "use_count": 1, "last_used_at": ago(45, 0)},
            "fresh-idea": {"created_by": "agent", "created_at": ago(2, 0)},
        })
        .to_string(),
    );
    home.write(
        "cron/jobs.json",
        json!({"jobs": [{"id": "j1", "name": "weekly prune", "skills": ["docker-image-prune"],
            "skill": "docker-image-prune", "schedule": "0 3 * * 0", "prompt": "prune"}]})
        .to_string(),
    );
    home
}

const UMBRELLA: &str = "---\nname: docker\ndescription: Working with docker - builds, compose logs, disk space.\n---\n# Docker\n\n## Builds\nUse the layer cache (was docker-build-cache).\n\n## Compose logs\nSee references/docker-compose-logs.md.\n\n## Disk\nPrune images older than three days.\n";

const FINAL: &str = "Merged the docker skills into one umbrella and pruned a stale note.\n\n```yaml\nconsolidations:\n  - from: docker-build-cache\n    into: docker\n    reason: one tool, one skill\n  - from: docker-compose-logs\n    into: docker\n    reason: one tool, one skill\n  - from: docker-image-prune\n    into: docker\n    reason: one tool, one skill\nprunings:\n  - name: old-notes\n    reason: stale and covered by nothing\n```";

fn script() -> Vec<Reply> {
    vec![
        Reply::tool_calls(&[
            ("v1", "skill_view", "{\"name\": \"docker-build-cache\"}"),
            ("v2", "skill_view", "{\"name\": \"docker-compose-logs\"}"),
            ("v3", "skill_view", "{\"name\": \"docker-image-prune\"}"),
        ]),
        Reply::tool_calls(&[
            (
                "c1",
                "skill_manage",
                &json!({"action": "create", "name": "docker", "content": UMBRELLA}).to_string(),
            ),
            (
                "c2",
                "skill_manage",
                &json!({"action": "write_file", "name": "docker",
                    "file_path": "references/docker-compose-logs.md",
                    "file_content": "# Compose logs\n\ndocker compose logs -f --since 10m\n"})
                .to_string(),
            ),
        ]),
        Reply::tool_calls(&[
            (
                "d1",
                "skill_manage",
                "{\"action\": \"delete\", \"name\": \"docker-build-cache\", \"absorbed_into\": \"docker\"}",
            ),
            (
                "d2",
                "skill_manage",
                "{\"action\": \"delete\", \"name\": \"docker-compose-logs\", \"absorbed_into\": \"docker\"}",
            ),
            (
                "d3",
                "skill_manage",
                "{\"action\": \"delete\", \"name\": \"docker-image-prune\", \"absorbed_into\": \"docker\"}",
            ),
            (
                "p1",
                "skill_manage",
                "{\"action\": \"delete\", \"name\": \"old-notes\", \"absorbed_into\": \"\"}",
            ),
            (
                "p2",
                "skill_manage",
                "{\"action\": \"delete\", \"name\": \"fresh-idea\", \"absorbed_into\": \"\"}",
            ),
            (
                "t1",
                "terminal",
                "{\"command\": \"rm -rf ~/.hermes/skills\"}",
            ),
        ]),
        Reply::text(FINAL),
    ]
}

fn run_json(home: &std::path::Path) -> Value {
    let logs = home.join("logs/curator");
    let dir = std::fs::read_dir(&logs)
        .unwrap()
        .filter_map(Result::ok)
        .find(|e| e.path().is_dir())
        .unwrap()
        .path();
    serde_json::from_str(&std::fs::read_to_string(dir.join("run.json")).unwrap()).unwrap()
}

fn report_md(home: &std::path::Path) -> String {
    let logs = home.join("logs/curator");
    let dir = std::fs::read_dir(&logs)
        .unwrap()
        .filter_map(Result::ok)
        .find(|e| e.path().is_dir())
        .unwrap()
        .path();
    std::fs::read_to_string(dir.join("REPORT.md")).unwrap()
}

#[test]
fn a_consolidation_absorbs_three_narrow_skills_into_an_umbrella_and_prunes_a_stale_one() {
    let srv = ChatServer::start(script());
    let home = home(&srv);
    let (code, out, err) =
        support::curate::curate(home.path(), &["run", "--consolidate", "--format", "text"]);
    assert_eq!(code, 0, "{err}");
    let skills = home.path().join("skills");
    assert!(skills.join("docker/SKILL.md").is_file(), "{out}{err}");
    assert!(
        skills
            .join("docker/references/docker-compose-logs.md")
            .is_file()
    );
    for gone in [
        "docker-build-cache",
        "docker-compose-logs",
        "docker-image-prune",
        "old-notes",
    ] {
        assert!(!skills.join(gone).exists(), "{gone} still live");
        assert!(
            skills
                .join(".archive")
                .join(gone)
                .join("SKILL.md")
                .is_file(),
            "{gone} not archived"
        );
    }
    // An active skill cannot be pruned, and the terminal is not a curator tool.
    assert!(skills.join("fresh-idea/SKILL.md").is_file());
    let bodies = srv.bodies();
    let results: Vec<String> = bodies[3]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap().to_string())
        .collect();
    assert!(results.iter().any(|r| r.contains(
        "Refusing to prune 'fresh-idea': it is not stale. An active skill leaves the library only by being absorbed into an umbrella"
    )), "{results:?}");
    assert!(
        results
            .iter()
            .any(|r| r.contains("Curator denied non-whitelisted tool: terminal."))
    );
    let tool_names: Vec<&str> = bodies[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(tool_names, ["skill_manage", "skill_view", "skills_list"]);
    let request = bodies[0]["messages"][1]["content"].as_str().unwrap();
    assert!(request.contains(
        "Candidate clusters (shared name prefix or similar descriptions):\n- docker-build-cache, docker-compose-logs, docker-image-prune"
    ), "{request}");
    assert!(request.contains(&format!(
        "- old-notes  state=stale  pinned=no  cron=no  activity=1  use=1  view=0  patches=0  last_activity={}",
        ago(45, 0)
    )), "{request}");
    assert!(request.contains("- docker-image-prune  state=active  pinned=no  cron=yes"));

    let run = run_json(home.path());
    let consolidated: Vec<(&str, &str, &str, &str)> = run["consolidated"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["name"].as_str().unwrap(),
                c["into"].as_str().unwrap(),
                c["source"].as_str().unwrap(),
                c["reason"].as_str().unwrap(),
            )
        })
        .collect();
    let declared = "absorbed_into (model-declared at delete)";
    assert_eq!(
        consolidated,
        [
            (
                "docker-build-cache",
                "docker",
                declared,
                "one tool, one skill"
            ),
            (
                "docker-compose-logs",
                "docker",
                declared,
                "one tool, one skill"
            ),
            (
                "docker-image-prune",
                "docker",
                declared,
                "one tool, one skill"
            ),
        ]
    );
    assert_eq!(
        run["pruned"],
        json!([{"name": "old-notes", "source": "absorbed_into=\"\" (model-declared prune)",
            "reason": "stale and covered by nothing"}])
    );
    assert_eq!(run["pruned_names"], json!(["old-notes"]));
    assert_eq!(run["added"], json!(["docker"]));
    assert_eq!(run["counts"]["consolidated_this_run"], 3);
    assert_eq!(run["counts"]["pruned_this_run"], 1);
    assert_eq!(run["counts"]["cron_jobs_rewritten"], 1);
    assert_eq!(run["counts"]["before"], 5);
    assert_eq!(run["counts"]["after"], 2);
    assert_eq!(run["model"], "fake-model");
    assert_eq!(run["auto_transitions"]["marked_stale"], 1);
    assert_eq!(
        run["cron_rewrites"]["rewrites"],
        json!([{"job_id": "j1", "job_name": "weekly prune", "before": ["docker-image-prune"],
            "after": ["docker"], "mapped": {"docker-image-prune": "docker"}, "dropped": []}])
    );
    // Full arguments, no 400-character cut.
    let create = run["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["arguments"].as_str().unwrap().contains("\"create\""))
        .unwrap();
    let args: Value = serde_json::from_str(create["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(args["content"], UMBRELLA);

    let jobs: Value =
        serde_json::from_str(&std::fs::read_to_string(home.path().join("cron/jobs.json")).unwrap())
            .unwrap();
    assert_eq!(jobs["jobs"][0]["skills"], json!(["docker"]));
    assert_eq!(jobs["jobs"][0]["skill"], "docker");

    let md = report_md(home.path());
    assert!(
        md.contains("### Consolidated into umbrella skills (3)\n"),
        "{md}"
    );
    assert!(md.contains("- `docker-image-prune` → merged into `docker` — one tool, one skill"));
    assert!(md.contains("### Pruned — archived for staleness (1)\n"));
    assert!(md.contains("- `old-notes` — stale and covered by nothing"));
    assert!(md.contains("### Cron job skill references rewritten (1)\n"));
    assert!(md.contains("    - `docker-image-prune` → `docker` (consolidated)"));
    assert!(md.contains("## LLM final summary\n\nMerged the docker skills"));

    // A backup before, as the deterministic pass does.
    let backups = std::fs::read_dir(home.path().join("skills/.curator_backups"))
        .unwrap()
        .count();
    assert!(backups >= 1);
    assert!(
        out.contains("archived 4 skill(s):\n  • docker-build-cache → docker\n"),
        "{out}"
    );
    assert!(out.contains("  • old-notes — pruned (stale)\n"), "{out}");
    assert!(
        out.contains("keep an umbrella stable: hermes-curate pin docker"),
        "{out}"
    );
    let _ = NOW;
}

#[test]
fn a_dry_run_consolidation_changes_nothing_and_reports_the_intent() {
    let srv = ChatServer::start(script());
    let home = home(&srv);
    let before = support::curate::tree(home.path(), &[]);
    let (code, out, err) = support::curate::curate(
        home.path(),
        &["run", "--dry-run", "--consolidate", "--format", "text"],
    );
    assert_eq!(code, 0, "{err}");
    let after = support::curate::tree(home.path(), &["logs"]);
    let before: Vec<_> = before
        .into_iter()
        .filter(|(p, _)| !p.starts_with("logs"))
        .collect();
    assert_eq!(after, before);
    let bodies = srv.bodies();
    assert!(
        bodies[0]["messages"][1]["content"]
            .as_str()
            .unwrap()
            .starts_with("DRY RUN")
    );
    let refused = bodies[2]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .filter(|m| {
            m["content"]
                .as_str()
                .unwrap()
                .contains("Dry run: skill_manage create was not applied")
        })
        .count();
    assert_eq!(refused, 1);
    let run = run_json(home.path());
    assert_eq!(run["consolidated"], json!([]));
    assert_eq!(run["counts"]["before"], run["counts"]["after"]);
    assert!(
        report_md(home.path()).contains("```yaml\nconsolidations:\n  - from: docker-build-cache")
    );
    assert!(out.contains("curator: report written to "), "{out}");
}
