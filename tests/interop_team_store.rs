//! Python Hermes writing a home whose sessions were pushed to the team store: its own
//! compaction, appends and title changes (through SessionDB, with our change-log triggers in
//! the file) reach the store on the next push, and Python's writes still work.

mod support;

use serde_json::{Value, json};
use support::pg::{ADMIN, Cluster};
use support::recall::{fixture_home, stderr, stdout};
use support::{bin, peer_python};

const PYTHON_WRITES: &str = r#"
import json, os, pathlib, hermes_state
db = hermes_state.SessionDB(db_path=pathlib.Path(os.environ["HERMES_HOME"]) / "state.db")
sid = "20261120_090000_aaaaaa"
flipped = db.archive_and_compact(sid, [
    {"role": "user", "content": "Summary: the staging certificate was renewed."},
])
appended = db.append_message("20261124_090000_dddddd", "user", "And the nginx reload hook?")
db.set_session_title("20261124_090000_dddddd", "Deploy pipeline, part two")
db.close()
print(json.dumps({"flipped": flipped, "appended": appended}))
"#;

fn push(home: &std::path::Path, url: &str) -> Value {
    let out = bin("hermes-index", home)
        .args(["--store", url, "--format", "json", "push"])
        .output()
        .expect("push");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    serde_json::from_str(&stdout(&out)).expect("report")
}

#[test]
fn python_writes_after_a_push_reach_the_store() {
    let cluster = Cluster::start();
    let url = cluster.url(ADMIN);
    let home = fixture_home();
    bin("hermes-index", home.path())
        .args(["--store", &url, "init"])
        .assert()
        .success();
    push(home.path(), &url);

    let out = std::process::Command::new(peer_python())
        .args(["-c", PYTHON_WRITES])
        .env("HERMES_HOME", home.path())
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("python");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let wrote: Value = serde_json::from_slice(&out.stdout).expect("python's answer");
    assert_eq!(wrote["appended"], json!(16));

    let report = push(home.path(), &url);
    assert_eq!(
        (
            &report["messages"],
            &report["messages_changed"],
            &report["sessions"]
        ),
        (&json!(2), &json!(4), &json!(2))
    );
    let mut admin = cluster.admin();
    let rows: Vec<(i64, i64, i64)> = admin
        .query(
            "SELECT id, active, compacted FROM hermes.messages
             WHERE session_id = '20261120_090000_aaaaaa' ORDER BY id",
            &[],
        )
        .expect("rows")
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect();
    assert_eq!(
        rows,
        vec![(1, 0, 1), (2, 0, 1), (3, 0, 1), (4, 0, 1), (15, 1, 0)]
    );
    let title: String = admin
        .query_one(
            "SELECT title FROM hermes.sessions WHERE id = '20261124_090000_dddddd'",
            &[],
        )
        .expect("title")
        .get(0);
    assert_eq!(title, "Deploy pipeline, part two");

    // The same sessions and hits as the local store; their order is the rankers' (BM25
    // against ts_rank_cd: docs/decisions.md), and here it differs.
    let hits = |args: &[&str]| -> Vec<(String, i64)> {
        let out = bin("hermes-recall", home.path())
            .args(args)
            .args(["nginx", "--format", "jsonl"])
            .output()
            .expect("recall");
        let answer: Value = serde_json::from_str(&stdout(&out)).expect("answer");
        let mut hits: Vec<(String, i64)> = answer["results"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|r| {
                (
                    r["session_id"].as_str().unwrap_or("").to_string(),
                    r["match_message_id"].as_i64().unwrap_or(-1),
                )
            })
            .collect();
        hits.sort();
        hits
    };
    assert_eq!(
        hits(&["--store", &url]),
        vec![
            ("20261120_090000_aaaaaa".to_string(), 4),
            ("20261124_090000_dddddd".to_string(), 16),
            ("cron_daily_20261123_060000".to_string(), 9)
        ]
    );
    assert_eq!(hits(&[]), hits(&["--store", &url]));
}
