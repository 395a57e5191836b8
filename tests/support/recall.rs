//! Test helpers for the recall area: homes with sessions, our binary, the Python peer with a
//! pinned time zone.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::{TempHome, bin, peer_python, repo_root, testdata};

/// The time zone both sides format `when` in: not UTC, and half an hour off the hour, so a
/// conversion that ignores it shows.
pub const TZ: &str = "Asia/Kolkata";

/// A home whose state.db holds `testdata/recall/home.jsonl`, ingested by hermes-index.
pub fn fixture_home() -> TempHome {
    let home = TempHome::new();
    ingest(home.path(), &testdata("recall/home.jsonl"));
    home
}

/// `hermes-index ingest FILE` into `home`.
pub fn ingest(home: &Path, file: &Path) {
    bin("hermes-index", home)
        .arg("-q")
        .arg("ingest")
        .arg(file)
        .assert()
        .success();
}

/// hermes-recall on `home` (TZ=UTC, as every binary test runs).
pub fn recall(home: &Path) -> assert_cmd::Command {
    bin("hermes-recall", home)
}

/// stdout of a finished command as text.
pub fn stdout(out: &std::process::Output) -> String {
    String::from_utf8(out.stdout.clone()).expect("UTF-8 stdout")
}

/// stderr of a finished command as text.
pub fn stderr(out: &std::process::Output) -> String {
    String::from_utf8(out.stderr.clone()).expect("UTF-8 stderr")
}

/// One `session_search` call for the interop tests: the tool's arguments, the caller's live
/// session, and whether `docs/decisions.md` documents a difference for it.
#[derive(Debug, Clone)]
pub struct Call {
    pub args: serde_json::Value,
    pub current: Option<String>,
    pub differs: bool,
}

/// The calls of `testdata/recall/interop_calls.jsonl`.
pub fn calls_from_fixture() -> Vec<Call> {
    let text = std::fs::read_to_string(testdata("recall/interop_calls.jsonl")).expect("calls");
    text.lines()
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).expect("a call");
            Call {
                args: v["args"].clone(),
                current: v["current"].as_str().map(str::to_string),
                differs: v["differs"].as_bool().unwrap_or(false),
            }
        })
        .collect()
}

/// Our answers, through `hermes-recall --batch` (one run per distinct current session), in
/// call order, each the exact line we print.
pub fn our_answers(home: &Path, calls: &[Call]) -> Vec<String> {
    let mut answers = vec![String::new(); calls.len()];
    let mut currents: Vec<Option<String>> = calls.iter().map(|c| c.current.clone()).collect();
    currents.sort();
    currents.dedup();
    for current in currents {
        let picked: Vec<usize> = (0..calls.len())
            .filter(|&i| calls[i].current == current)
            .collect();
        let mut input = String::new();
        for &i in &picked {
            input.push_str(&serde_json::to_string(&calls[i].args).expect("args"));
            input.push('\n');
        }
        let mut cmd = recall(home);
        cmd.env("TZ", TZ)
            .arg("--batch")
            .arg("--format")
            .arg("jsonl");
        if let Some(c) = &current {
            cmd.arg("--current-session").arg(c);
        }
        let out = cmd
            .write_stdin(input)
            .output()
            .expect("hermes-recall --batch");
        assert!(
            out.status.success(),
            "hermes-recall --batch failed: {}",
            stderr(&out)
        );
        let text = stdout(&out);
        let lines: Vec<&str> = text.split_terminator('\n').collect();
        assert_eq!(lines.len(), picked.len(), "one answer per call");
        for (line, &i) in lines.iter().zip(&picked) {
            answers[i] = line.to_string();
        }
    }
    answers
}

/// Python's answers (`session_search` through the tool registry), each the exact string the
/// tool returns.
pub fn python_answers(home: &Path, calls: &[Call]) -> Vec<String> {
    peer_recall(home, calls, false)
}

/// Python's tool with OUR model of our documented differences swapped in underneath
/// (`model_*` in `tests/interop/peer_recall.py`): Hermes's code above the search, ours in
/// it. Agreement checks the layers above the search only; the search answers of those calls
/// are pinned by hand (`interop_recall.rs`).
pub fn model_answers(home: &Path, calls: &[Call]) -> Vec<String> {
    peer_recall(home, calls, true)
}

fn peer_recall(home: &Path, calls: &[Call], model: bool) -> Vec<String> {
    let request = serde_json::json!({
        "calls": calls.iter().map(|c| serde_json::json!({"args": c.args, "current": c.current})).collect::<Vec<_>>(),
        "model": model,
    });
    let answer = run_peer(
        home,
        "recall",
        &serde_json::to_vec(&request).expect("request"),
    );
    answer
        .as_array()
        .expect("answers")
        .iter()
        .map(|a| a.as_str().expect("a JSON string").to_string())
        .collect()
}

/// `peer.py COMMAND` with HERMES_HOME=`home` and TZ=[`TZ`].
pub fn run_peer(home: &Path, command: &str, stdin: &[u8]) -> serde_json::Value {
    let mut child = Command::new(peer_python())
        .arg(repo_root().join("tests/interop/peer.py"))
        .arg(command)
        .env("HERMES_HOME", home)
        .env("TZ", TZ)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the Python peer");
    {
        use std::io::Write;
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(stdin)
            .expect("feed the peer");
    }
    let out = child.wait_with_output().expect("peer finished");
    assert!(
        out.status.success(),
        "peer.py {command} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("peer JSON")
}

/// A corpus of `sessions` × `messages` from `benches/corpus.py`, written under `dir`.
pub fn corpus(dir: &Path, sessions: u32, messages: u32) -> PathBuf {
    let path = dir.join("corpus.jsonl");
    let status = Command::new(peer_python())
        .arg(repo_root().join("benches/corpus.py"))
        .args(["--sessions", &sessions.to_string()])
        .args(["--messages", &messages.to_string()])
        .arg("--out")
        .arg(&path)
        .status()
        .expect("corpus.py");
    assert!(status.success());
    path
}

/// The first differing call, shown for a person: the call, both answers.
pub fn explain(call: &Call, ours: &str, theirs: &str) -> String {
    let a: serde_json::Value = serde_json::from_str(ours).unwrap_or(serde_json::Value::Null);
    let b: serde_json::Value = serde_json::from_str(theirs).unwrap_or(serde_json::Value::Null);
    format!(
        "call {} (current {:?}):\n  diff: {:?}\n  ours:   {}\n  python: {}",
        call.args,
        call.current,
        super::json_diff(&a, &b),
        ours.chars().take(600).collect::<String>(),
        theirs.chars().take(600).collect::<String>()
    )
}
