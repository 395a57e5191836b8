//! `hermes-skill-scan --judge`: the model's second opinion on skills the rules leave at
//! caution or at safe with findings, recorded beside the rules' verdict and never changing it.

mod support;

use serde_json::Value;
use support::chat::{home_for, server};
use support::chat_server::Reply;

fn records(out: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn the_judge_is_asked_about_candidates_only_and_never_changes_a_verdict() {
    let answer = |v: &str| {
        Reply::text(&format!(
            "{{\"verdict\": \"{v}\", \"reason\": \"because {v}\"}}"
        ))
    };
    let srv = server(vec![answer("safe"), answer("dangerous"), answer("caution")]);
    let home = home_for(&srv, "");
    let cassette = home.path().join("judge.jsonl");
    let benign = support::testdata("guard/benign");
    let out = support::bin("hermes-skill-scan", home.path())
        .args(["--judge", "--format", "jsonl", "--record"])
        .arg(&cassette)
        .arg(&benign)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let recs = records(&out.stdout);
    assert_eq!(recs.last().unwrap()["type"], "summary");
    let judged: Vec<&Value> = recs.iter().filter(|r| r["type"] == "judge").collect();
    // The three benign skills with findings left at safe; the clean one is not asked about.
    let names: Vec<&str> = judged
        .iter()
        .map(|r| r["skill"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["api-client", "detector-with-fixtures", "security-guide"]
    );
    assert_eq!(judged[1]["verdict"], "dangerous");
    assert_eq!(judged[1]["rule_verdict"], "safe");
    assert_eq!(judged[1]["reason"], "because dangerous");
    // The rules' verdicts and the exit code stay the rules'.
    for r in recs.iter().filter(|r| r["type"] == "skill") {
        assert_eq!(r["verdict"], "safe", "{r}");
    }
    let body = &srv.bodies()[0];
    assert!(body.get("tools").is_none() && body.get("stream").is_none());
    assert_eq!(body["model"], "fake-model");
    let system = body["messages"][0]["content"].as_str().unwrap();
    assert!(system.starts_with("You review AI-agent skills"), "{system}");
    let user = body["messages"][1]["content"].as_str().unwrap();
    assert!(
        user.starts_with("Skill: api-client\nThe rules' verdict: safe\n\nFindings:\n- "),
        "{user}"
    );

    // The same run answers offline from the cassette.
    let replayed = support::bin("hermes-skill-scan", support::TempHome::new().path())
        .args(["--judge", "--format", "jsonl", "--replay"])
        .arg(&cassette)
        .arg(&benign)
        .output()
        .unwrap();
    assert_eq!(
        replayed.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&replayed.stderr)
    );
    let again: Vec<Value> = records(&replayed.stdout)
        .into_iter()
        .filter(|r| r["type"] == "judge")
        .collect();
    assert_eq!(again.len(), 3);
    assert_eq!(again[1]["verdict"], "dangerous");
}

#[test]
fn without_judge_nothing_is_sent_and_record_needs_judge() {
    let home = support::TempHome::new();
    let out = support::bin("hermes-skill-scan", home.path())
        .args(["--record", "x.jsonl"])
        .arg(support::testdata("guard/benign"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--judge"));
}
