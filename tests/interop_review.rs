//! What hermes-review and `hermes-curate run --consolidate` write, read by Python Hermes
//! 0.19.0: its prompt index lists the skill the review created, its memory snapshot holds the
//! entry, its curator manages the skill, and it accepts the consolidated library (umbrella
//! live, absorbed skills archived).

mod support;

use serde_json::{Value, json};
use support::chat_server::{ChatServer, Reply};
use support::{TempHome, peer};

fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

#[test]
fn python_reads_the_skill_and_the_memory_the_review_wrote() {
    let home = TempHome::new();
    copy_dir(&support::testdata("home"), home.path());
    // Recorded with the home as the working directory (pipelines/record-review-demo.sh).
    let out = support::review::review(home.path())
        .current_dir(home.path())
        .env("HERMES_NOW", "2026-11-29T12:00:00Z")
        .arg("--replay")
        .arg(support::testdata("review/demo.cassette.jsonl"))
        .arg(support::testdata("review/demo-conversation.jsonl"))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let index = peer(home.path(), "prompt-index", &[], None);
    let text = index["text"].as_str().unwrap();
    assert!(
        text.contains(
            "    - tls-certificate-checks: Checking when a host's TLS certificate expires"
        ),
        "{text}"
    );
    let ours = support::bin("hermes-skills", home.path())
        .args(["prompt-index", "--format", "text"])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&ours.stdout).trim_end(),
        text.trim_end()
    );

    let memory = peer(home.path(), "memory-load", &[], None);
    let wanted = "Wants short answers: the result and the one command, no explanation.";
    assert!(memory["user"].as_array().unwrap().contains(&json!(wanted)));
    assert!(
        memory["snapshot"]["user"]
            .as_str()
            .unwrap()
            .contains(wanted)
    );

    let read = peer(home.path(), "curate_read", &["2026-11-29T12:00:00Z"], None);
    let managed: Vec<&str> = read["report"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(managed, ["tls-certificate-checks"]);
    assert_eq!(
        read["usage"]["tls-certificate-checks"]["created_by"],
        "agent"
    );
}

#[test]
fn python_accepts_the_consolidated_library() {
    let umbrella = "---\nname: docker\ndescription: Working with docker - builds and disk space.\n---\n# Docker\n\n## Builds\nUse the layer cache.\n\n## Disk\nPrune old images.\n";
    let srv = ChatServer::start(vec![
        Reply::tool_calls(&[
            ("v1", "skill_view", "{\"name\": \"docker-build\"}"),
            ("v2", "skill_view", "{\"name\": \"docker-disk\"}"),
        ]),
        Reply::tool_call(
            "c1",
            "skill_manage",
            &json!({"action": "create", "name": "docker", "content": umbrella}).to_string(),
        ),
        Reply::tool_calls(&[
            (
                "d1",
                "skill_manage",
                "{\"action\": \"delete\", \"name\": \"docker-build\", \"absorbed_into\": \"docker\"}",
            ),
            (
                "d2",
                "skill_manage",
                "{\"action\": \"delete\", \"name\": \"docker-disk\", \"absorbed_into\": \"docker\"}",
            ),
        ]),
        Reply::text(
            "Merged.\n```yaml\nconsolidations:\n  - from: docker-build\n    into: docker\n    reason: same tool\n  - from: docker-disk\n    into: docker\n    reason: same tool\nprunings: []\n```",
        ),
    ]);
    let home = TempHome::new();
    home.write(
        "config.yaml",
        format!(
            "model:\n  provider: custom\n  base_url: {}\n  default: fake-model\n",
            srv.base_url()
        ),
    );
    for name in ["docker-build", "docker-disk"] {
        home.write(
            &format!("skills/{name}/SKILL.md"),
            format!("---\nname: {name}\ndescription: Narrow skill {name}.\n---\n# {name}\n"),
        );
    }
    home.write(
        "skills/.usage.json",
        json!({"docker-build": {"created_by": "agent", "use_count": 1, "last_used_at": "2026-05-30T12:00:00+00:00"},
               "docker-disk": {"created_by": "agent", "use_count": 1, "last_used_at": "2026-05-30T12:00:00+00:00"}})
        .to_string(),
    );
    let (code, _, err) = support::curate::curate(home.path(), &["run", "--consolidate"]);
    assert_eq!(code, 0, "{err}");

    let read = peer(home.path(), "curate_read", &[support::curate::NOW], None);
    let managed: Vec<&str> = read["report"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(managed, ["docker"]);
    let mut archived: Vec<&str> = read["archived"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    archived.sort();
    assert_eq!(archived, ["docker-build", "docker-disk"]);
    assert_eq!(read["usage"]["docker-build"]["state"], "archived");
    assert_eq!(read["state"]["run_count"], 1);
    // Python's own curator runs on the result (prune-only dry run) without complaint.
    let run = peer(
        home.path(),
        "curate_cli",
        &[support::curate::NOW, "run", "--dry-run"],
        None,
    );
    assert!(
        matches!(run["code"], Value::Null) || run["code"] == 0,
        "{run}"
    );
    assert!(
        run["stdout"]
            .as_str()
            .unwrap()
            .contains("1 candidate skill(s)"),
        "{run}"
    );
    // And it restores an absorbed skill from our archive.
    let restored = peer(
        home.path(),
        "curate_cli",
        &[support::curate::NOW, "restore", "docker-disk"],
        None,
    );
    assert!(
        home.path().join("skills/docker-disk/SKILL.md").is_file(),
        "{restored}"
    );
}
