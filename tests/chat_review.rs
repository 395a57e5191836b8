//! The review hermes-chat starts: on the chat's own model and endpoint (also when they came
//! from the command line), its outcome said on stderr, in the `review` item and in
//! `logs/review.log`, and its hand-off file gone once it is logged.

mod support;

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::chat::{chat, server};
use support::chat_server::Reply;

const NOW: &str = "2026-12-07T22:50:01Z";

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn review_item(out: &std::process::Output) -> Value {
    let items: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["item"]["type"] == "review")
        .map(|e| e["item"].clone())
        .collect();
    assert_eq!(items.len(), 1, "{}", String::from_utf8_lossy(&out.stdout));
    items[0].clone()
}

/// A home with no `model.default`: the model only ever comes from `-m`. Its config points
/// at `elsewhere`, which must never be asked.
fn home_without_a_model(elsewhere: &str) -> support::TempHome {
    let home = support::TempHome::new();
    home.write(
        "config.yaml",
        format!(
            "model:\n  provider: custom\n  base_url: {elsewhere}\nagent:\n  retry_backoff_seconds: 0.01\nmemory:\n  nudge_interval: 1\n"
        ),
    );
    home
}

fn pending_files(home: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(home.join("pending/review"))
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

fn session_id(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|e| e["type"] == "thread.started")
        .and_then(|e| e["thread_id"].as_str().map(str::to_string))
        .unwrap_or_default()
}

#[test]
fn a_review_runs_on_the_model_and_endpoint_the_chat_was_given_on_the_command_line() {
    let srv = server(support::chat::review_saving_a_preference());
    let unused = server(vec![]);
    let home = home_without_a_model(&unused.base_url());
    let out = chat(home.path())
        .env("HERMES_NOW", NOW)
        .args(["-m", "cli-model", "--base-url", &srv.base_url()])
        .args(["--json", "--review-wait", "-z", "I prefer tabs"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
    let requests = srv.requests();
    assert_eq!(requests.len(), 3);
    for r in &requests {
        assert_eq!(
            (r.method.as_str(), r.path.as_str()),
            ("POST", "/v1/chat/completions")
        );
        assert_eq!(r.body["model"], "cli-model");
    }
    assert!(unused.requests().is_empty());
    // The chat's prompt and tools, reused byte for byte: the review is on the chat's model.
    assert_eq!(
        requests[1].body["messages"][0],
        requests[0].body["messages"][0]
    );
    assert_eq!(requests[1].body["tools"], requests[0].body["tools"]);
    assert_eq!(home.read("memories/USER.md"), "Prefers tabs over spaces.");
    let item = review_item(&out);
    assert_eq!(
        item["summary"],
        "💾 Self-improvement review: User profile updated"
    );
    assert_eq!(item["error"], Value::Null);
    assert_eq!(
        item["actions"][0]["arguments"],
        json!({"action": "add", "target": "user", "content": "Prefers tabs over spaces."})
    );
    assert_eq!(
        home.read("logs/review.log"),
        format!(
            "{NOW} {} ok: User profile updated (1 write(s), 2 request(s))\n",
            session_id(&out)
        )
    );
    // Logged, so the hand-off file is gone.
    assert_eq!(pending_files(home.path()), Vec::<String>::new());
}

#[test]
fn a_failing_review_is_said_on_stderr_in_the_item_and_in_the_log() {
    // One answer for the chat; the review's calls find the script spent (HTTP 500).
    let srv = server(vec![Reply::text("noted")]);
    let home = home_without_a_model("http://127.0.0.1:9/v1");
    let out = chat(home.path())
        .env("HERMES_NOW", NOW)
        .env("HERMES_BASE_URL", srv.base_url())
        .args([
            "-m",
            "cli-model",
            "--json",
            "--review-wait",
            "-z",
            "I prefer tabs",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let requests = srv.requests();
    assert!(requests.len() > 1, "the review asked the chat's endpoint");
    assert!(requests.iter().all(|r| r.body["model"] == "cli-model"));
    let item = review_item(&out);
    let Some(error) = item["error"].as_str() else {
        panic!("no error in {item}")
    };
    assert_eq!(
        error,
        "API call failed after 3 retries: HTTP 500: chat_server: script exhausted"
    );
    assert_eq!(item["summary"], Value::Null);
    assert_eq!(
        stderr(&out),
        format!(
            "hermes-chat: review failed: {error} (every review's outcome: $HERMES_HOME/logs/review.log)\n"
        )
    );
    assert_eq!(
        home.read("logs/review.log"),
        format!("{NOW} {} failed: {error}\n", session_id(&out))
    );
    assert_eq!(pending_files(home.path()), Vec::<String>::new());
}

/// A review that cannot even start (here: its cassette is missing) is reported with the
/// reason hermes-review gave.
#[test]
fn a_review_that_cannot_start_is_reported_with_its_reason() {
    let srv = server(vec![Reply::text("noted")]);
    let home = home_without_a_model("http://127.0.0.1:9/v1");
    let missing = home.path().join("missing.cassette.jsonl");
    let out = chat(home.path())
        .env("HERMES_NOW", NOW)
        .env("HERMES_REVIEW_REPLAY", &missing)
        .args(["-m", "cli-model", "--base-url", &srv.base_url()])
        .args(["--json", "--review-wait", "-z", "I prefer tabs"])
        .output()
        .unwrap();
    let item = review_item(&out);
    let error = format!(
        "cannot read cassette {}: No such file or directory (os error 2)",
        missing.display()
    );
    assert_eq!(item["error"], json!(error), "{}", stderr(&out));
    assert_eq!(
        home.read("logs/review.log"),
        format!("{NOW} {} failed: {error}\n", session_id(&out))
    );
    assert_eq!(srv.requests().len(), 1);
}

#[test]
fn a_detached_review_leaves_its_outcome_in_the_log_and_removes_its_input() {
    let srv = server(support::chat::review_saving_a_preference());
    let home = home_without_a_model("http://127.0.0.1:9/v1");
    let out = chat(home.path())
        .env("HERMES_NOW", NOW)
        .args(["-m", "cli-model", "--base-url", &srv.base_url()])
        .args(["-z", "I prefer tabs"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "noted\n");
    // The review ends after the chat: its line is written, then its input removed.
    let log = home.path().join("logs/review.log");
    let deadline = Instant::now() + Duration::from_secs(30);
    let finished = || {
        std::fs::read_to_string(&log).is_ok_and(|t| t.ends_with('\n'))
            && pending_files(home.path()).is_empty()
    };
    while !finished() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let session = rows_session(home.path());
    assert_eq!(
        home.read("logs/review.log"),
        format!("{NOW} {session} ok: User profile updated (1 write(s), 2 request(s))\n")
    );
    assert_eq!(pending_files(home.path()), Vec::<String>::new());
    assert_eq!(home.read("memories/USER.md"), "Prefers tabs over spaces.");
}

fn rows_session(home: &std::path::Path) -> String {
    support::chat::rows(home, "SELECT id FROM sessions")
        .first()
        .and_then(|r| r.first().cloned())
        .unwrap_or_default()
}
