//! hermes-review end to end against the scripted loopback server: what it sends (exact
//! request bodies), what it writes, what it prints.

mod support;

use serde_json::{Value, json};
use support::chat::{home_for, server};
use support::chat_server::Reply;
use support::review::{conversation, records, review, skill};

use hermes_loop::agent::registry::Registry;
use hermes_loop::review::prompts::{self, Kind};

const BOTH: Kind = Kind {
    memory: true,
    skills: true,
};
const MEMORY: Kind = Kind {
    memory: true,
    skills: false,
};

const GIT_SKILL: &str =
    "# Git workflow\n\n1. Rebase on main.\n2. Run `git push --force` to update the branch.\n";

fn git_conversation() -> Vec<Value> {
    vec![
        json!({"role": "system", "content": "You are the chat's agent."}),
        json!({"role": "user", "content": "update my PR branch"}),
        json!({"role": "assistant", "content": "", "tool_calls": [{"id": "v1", "type": "function",
            "function": {"name": "skill_view", "arguments": "{\"name\": \"git-workflow\"}"}}]}),
        json!({"role": "tool", "tool_call_id": "v1", "tool_name": "skill_view", "content": "{\"success\": true}"}),
        json!({"role": "assistant", "content": "Done: git push --force."}),
        json!({"role": "user", "content": "No! Never plain --force on shared branches, always --force-with-lease."}),
        json!({"role": "assistant", "content": "Understood, --force-with-lease from now on."}),
    ]
}

fn patch_script() -> Vec<Reply> {
    vec![
        Reply::tool_call("r1", "skill_view", "{\"name\": \"git-workflow\"}"),
        Reply::tool_call(
            "r2",
            "skill_manage",
            "{\"action\": \"patch\", \"name\": \"git-workflow\", \"old_string\": \"git push --force`\", \"new_string\": \"git push --force-with-lease` (never plain --force on shared branches)\"}",
        ),
        Reply::text("Patched the git-workflow skill."),
    ]
}

fn git_home(srv: &support::chat_server::ChatServer) -> support::TempHome {
    let home = home_for(srv, "");
    home.write(
        "skills/git-workflow/SKILL.md",
        skill("git-workflow", "How to update and push branches", GIT_SKILL),
    );
    home
}

const PATCHED: &str = "# Git workflow\n\n1. Rebase on main.\n2. Run `git push --force-with-lease` (never plain --force on shared branches) to update the branch.\n";

#[test]
fn a_correction_becomes_a_patch_of_the_loaded_skill() {
    let srv = server(patch_script());
    let home = git_home(&srv);
    let input = conversation(home.path(), "conv.jsonl", &git_conversation());
    let out = review(home.path())
        .env("HERMES_NOW", "2026-12-01T10:00:00Z")
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        home.read("skills/git-workflow/SKILL.md"),
        skill("git-workflow", "How to update and push branches", PATCHED)
    );

    // Same model as the chat: the chat's system prompt and tools, the whole conversation,
    // then the review's request.
    let bodies = srv.bodies();
    assert_eq!(bodies.len(), 3);
    let holdings = "What is already saved (check it before any add or create):\nUSER.md: (empty)\nMEMORY.md: (empty)\nSkills (1):\n- git-workflow: How to update and push branches";
    let expected = json!({
        "messages": [
            {"role": "system", "content": "You are the chat's agent."},
            {"role": "user", "content": "update my PR branch"},
            {"role": "assistant", "content": "", "tool_calls": [{"id": "v1", "type": "function",
                "function": {"name": "skill_view", "arguments": "{\"name\":\"git-workflow\"}"}}]},
            {"role": "tool", "name": "skill_view", "content": "{\"success\": true}", "tool_call_id": "v1"},
            {"role": "assistant", "content": "Done: git push --force."},
            {"role": "user", "content": "No! Never plain --force on shared branches, always --force-with-lease."},
            {"role": "assistant", "content": "Understood, --force-with-lease from now on."},
            {"role": "user", "content": prompts::request(BOTH, holdings)},
        ],
        "model": "fake-model",
        "max_tokens": 65536,
        "stream": true,
        "stream_options": {"include_usage": true},
        "tools": Registry::new(None).schemas(),
    });
    assert_eq!(
        support::json_diff(&bodies[0], &expected),
        Vec::<String>::new()
    );

    let recs = records(&out.stdout);
    assert_eq!(recs.len(), 3);
    assert_eq!(recs[0]["type"], "action");
    assert_eq!(recs[0]["tool"], "skill_view");
    assert_eq!(recs[1]["tool"], "skill_manage");
    assert_eq!(
        recs[1]["result"],
        json!({"success": true, "message": "Patched SKILL.md in skill 'git-workflow' (1 replacement).",
            "_change": {"old": "git push --force`",
                "new": "git push --force-with-lease` (never plain --force on shared branches)"}})
    );
    assert_eq!(
        recs[2],
        json!({"type": "summary",
            "line": "💾 Self-improvement review: Patched SKILL.md in skill 'git-workflow' (1 replacement).",
            "writes": 1, "proposals": 0, "calls": 2, "requests": 3,
            "bytes_sent": recs[2]["bytes_sent"], "routed": false,
            "reply": "Patched the git-workflow skill.", "error": null})
    );
    let sent: u64 = bodies.iter().map(|b| b.to_string().len() as u64).sum();
    assert_eq!(recs[2]["bytes_sent"], json!(sent));
    // The review's own conversation is never stored.
    assert!(!home.path().join("state.db").exists());
}

#[test]
fn a_preference_becomes_a_user_profile_entry() {
    let srv = server(vec![
        Reply::tool_call(
            "m1",
            "memory",
            "{\"action\": \"add\", \"target\": \"user\", \"content\": \"Prefers tabs over spaces in every language.\"}",
        ),
        Reply::text("Saved."),
    ]);
    let home = home_for(&srv, "");
    let input = conversation(
        home.path(),
        "conv.jsonl",
        &[
            json!({"role": "user", "content": "Reformat this file. And remember: I always use tabs, never spaces."}),
            json!({"role": "assistant", "content": "Reformatted with tabs."}),
        ],
    );
    let out = review(home.path())
        .args(["--memory", "--notify", "verbose"])
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        home.read("memories/USER.md"),
        "Prefers tabs over spaces in every language."
    );
    let recs = records(&out.stdout);
    assert_eq!(
        recs.last().unwrap()["line"],
        "💾 Self-improvement review: User profile ➕ Prefers tabs over spaces in every language."
    );
    // Without the chat's system prompt the review uses its own and only its four tools.
    let body = &srv.bodies()[0];
    let names: Vec<&str> = body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["memory", "skill_manage", "skill_view", "skills_list"]
    );
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages[0]["role"], "system");
    assert_eq!(
        messages.last().unwrap()["content"],
        prompts::request(
            MEMORY,
            "What is already saved (check it before any add or create):\nUSER.md: (empty)\nMEMORY.md: (empty)\nSkills: (none)"
        )
    );
}

#[test]
fn a_fact_already_in_memory_is_shown_and_not_added_again() {
    let srv = server(vec![
        // A model that tries anyway gets the store's "already there" answer.
        Reply::tool_call(
            "m1",
            "memory",
            "{\"action\": \"add\", \"target\": \"memory\", \"content\": \"Project uses PostgreSQL 16.\"}",
        ),
        Reply::text("Nothing to save."),
    ]);
    let home = home_for(&srv, "");
    home.write("memories/MEMORY.md", "Project uses PostgreSQL 16.");
    let input = conversation(
        home.path(),
        "conv.jsonl",
        &[
            json!({"role": "user", "content": "Which database do we use again? PostgreSQL 16, right?"}),
            json!({"role": "assistant", "content": "Yes, PostgreSQL 16."}),
        ],
    );
    let out = review(home.path())
        .arg("--memory")
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let request = srv.bodies()[0]["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        request.contains("\nMEMORY.md:\n- Project uses PostgreSQL 16.\n"),
        "{request}"
    );
    assert_eq!(
        home.read("memories/MEMORY.md"),
        "Project uses PostgreSQL 16."
    );
    let recs = records(&out.stdout);
    let summary = recs.last().unwrap();
    assert_eq!(summary["line"], Value::Null);
    assert_eq!(summary["writes"], 0);
    assert_eq!(summary["reply"], "Nothing to save.");
}

#[test]
fn a_transient_error_is_not_saved() {
    let srv = server(vec![Reply::text("Nothing to save.")]);
    let home = home_for(&srv, "");
    let input = conversation(
        home.path(),
        "conv.jsonl",
        &[
            json!({"role": "user", "content": "fetch the release notes"}),
            json!({"role": "assistant", "content": "", "tool_calls": [{"id": "t1", "type": "function",
                "function": {"name": "terminal", "arguments": "{\"command\": \"curl -s https://example.com/notes\"}"}}]}),
            json!({"role": "tool", "tool_call_id": "t1", "tool_name": "terminal", "content": "{\"output\": \"curl: (56) Connection reset by peer\", \"exit_code\": 56}"}),
            json!({"role": "assistant", "content": "", "tool_calls": [{"id": "t2", "type": "function",
                "function": {"name": "terminal", "arguments": "{\"command\": \"curl -s https://example.com/notes\"}"}}]}),
            json!({"role": "tool", "tool_call_id": "t2", "tool_name": "terminal", "content": "{\"output\": \"v2.1: faster sync\", \"exit_code\": 0}"}),
            json!({"role": "assistant", "content": "v2.1: faster sync"}),
        ],
    );
    let out = review(home.path()).arg(&input).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let request = srv.bodies()[0]["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(request.contains(
        "- transient errors that went away when retried (the lesson, if any, is the retry);"
    ));
    assert!(!home.path().join("memories/MEMORY.md").exists());
    assert!(
        !home
            .path()
            .join("skills")
            .read_dir()
            .is_ok_and(|mut d| d.next().is_some())
    );
    assert_eq!(
        records(&out.stdout),
        [
            json!({"type": "summary", "line": null, "writes": 0, "proposals": 0, "calls": 0,
            "requests": 1, "bytes_sent": srv.bodies()[0].to_string().len(), "routed": false,
            "reply": "Nothing to save.", "error": null})
        ]
    );
}

#[test]
fn a_tool_outside_the_whitelist_is_refused_at_dispatch() {
    let srv = server(vec![
        Reply::tool_call("x1", "terminal", "{\"command\": \"touch pwned\"}"),
        Reply::text("Nothing to save."),
    ]);
    let home = git_home(&srv);
    let input = conversation(home.path(), "conv.jsonl", &git_conversation());
    let out = review(home.path()).arg(&input).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(!home.path().join("work/pwned").exists());
    let refusal = "{\"error\": \"Background review denied non-whitelisted tool: terminal. Only memory/skill tools are allowed.\"}";
    let second = &srv.bodies()[1];
    assert_eq!(
        second["messages"].as_array().unwrap().last().unwrap(),
        &json!({"role": "tool", "name": "terminal", "content": refusal, "tool_call_id": "x1"})
    );
    let recs = records(&out.stdout);
    assert_eq!(
        recs[0],
        json!({"type": "action", "tool": "terminal", "arguments": {"command": "touch pwned"},
            "result": {"error": "Background review denied non-whitelisted tool: terminal. Only memory/skill tools are allowed."}})
    );
    assert_eq!(recs[1]["line"], Value::Null);
}

#[test]
fn a_routed_review_sends_the_digest_on_its_own_prompt() {
    let srv = server(vec![Reply::text("Nothing to save.")]);
    let home = home_for(
        &srv,
        &format!(
            "auxiliary:\n  background_review:\n    provider: custom\n    model: small-model\n    base_url: {}\n",
            srv.base_url()
        ),
    );
    let mut lines = vec![json!({"role": "system", "content": "The chat's prompt."})];
    for i in 0..15 {
        lines.push(json!({"role": "user", "content": format!("question {i}")}));
        lines.push(json!({"role": "assistant", "content": format!("answer {i}")}));
    }
    let input = conversation(home.path(), "conv.jsonl", &lines);
    let out = review(home.path()).arg(&input).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let body = &srv.bodies()[0];
    assert_eq!(body["model"], "small-model");
    assert_eq!(body["tools"].as_array().unwrap().len(), 4);
    let messages = body["messages"].as_array().unwrap();
    // system, one user message holding the digest and question 3, 23 verbatim, the request.
    assert_eq!(messages.len(), 1 + 24 + 1);
    assert_ne!(messages[0]["content"], "The chat's prompt.");
    assert_eq!(
        messages[1]["content"],
        format!(
            "{}\nUSER: question 0\nASSISTANT: answer 0\nUSER: question 1\nASSISTANT: answer 1\nUSER: question 2\nASSISTANT: answer 2\n\nquestion 3",
            hermes_loop::review::digest::HEADER
        )
    );
    let roles: Vec<&str> = messages[1..]
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert!(roles.windows(2).all(|w| w[0] != w[1]), "{roles:?}");
    assert_eq!(records(&out.stdout).last().unwrap()["routed"], true);
}

#[test]
fn dry_run_prints_the_request_and_sends_nothing() {
    let srv = server(vec![]);
    let home = git_home(&srv);
    let input = conversation(home.path(), "conv.jsonl", &git_conversation());
    let out = review(home.path())
        .args(["--dry-run", "--skills"])
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(srv.requests().is_empty());
    let body: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(body["model"], "fake-model");
    assert_eq!(body["messages"].as_array().unwrap().len(), 8);
}

/// Python-compatible: the proposals, applied later through hermes-skills and hermes-memory,
/// leave the same files as the direct run.
#[test]
fn proposals_write_nothing_and_apply_to_the_same_files() {
    let script = || {
        let mut s = patch_script();
        s.insert(
            2,
            Reply::tool_call(
                "m1",
                "memory",
                "{\"action\": \"add\", \"target\": \"user\", \"content\": \"Wants --force-with-lease, never plain --force.\"}",
            ),
        );
        s
    };
    let now = "2026-12-01T10:00:00Z";
    let direct_srv = server(script());
    let direct = git_home(&direct_srv);
    let input = conversation(direct.path(), "conv.jsonl", &git_conversation());
    let out = review(direct.path())
        .env("HERMES_NOW", now)
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));

    let srv = server(script());
    let home = git_home(&srv);
    let input = conversation(home.path(), "conv.jsonl", &git_conversation());
    let before = home.read("skills/git-workflow/SKILL.md");
    let out = review(home.path())
        .env("HERMES_NOW", now)
        .arg("--propose")
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(home.read("skills/git-workflow/SKILL.md"), before);
    assert!(!home.path().join("memories/USER.md").exists());
    assert!(!home.path().join("skills/.usage.json").exists());
    // The model saw the same answers as in the direct run.
    let portable = |bodies: Vec<Value>, home: &std::path::Path| -> Vec<String> {
        let root = home.display().to_string();
        bodies
            .iter()
            .map(|b| b.to_string().replace(&root, "{{home}}"))
            .collect()
    };
    assert_eq!(
        portable(srv.bodies(), home.path()),
        portable(direct_srv.bodies(), direct.path())
    );

    let recs = records(&out.stdout);
    let kinds: Vec<(&str, &str)> = recs
        .iter()
        .map(|r| {
            (
                r["type"].as_str().unwrap(),
                r["tool"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("read", "skill_view"),
            ("proposal", "skill_manage"),
            ("proposal", "memory"),
            ("summary", "")
        ]
    );
    assert_eq!(
        recs[1]["diff"],
        "--- a/skills/git-workflow/SKILL.md\n+++ b/skills/git-workflow/SKILL.md\n@@ -6,4 +6,4 @@\n # Git workflow\n \n 1. Rebase on main.\n-2. Run `git push --force` to update the branch.\n+2. Run `git push --force-with-lease` (never plain --force on shared branches) to update the branch.\n"
    );
    assert_eq!(
        recs[3]["line"],
        "💡 Self-improvement review (proposed, nothing written): Patched SKILL.md in skill 'git-workflow' (1 replacement). · User profile updated"
    );

    let skill_lines: String = recs
        .iter()
        .filter(|r| r["tool"] == "skill_view" || r["tool"] == "skill_manage")
        .map(|r| format!("{}\n", r["arguments"]))
        .collect();
    let applied = support::bin("hermes-skills", home.path())
        .env("HERMES_NOW", now)
        .args(["apply", "--origin", "background_review"])
        .write_stdin(skill_lines)
        .output()
        .unwrap();
    assert_eq!(
        applied.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&applied.stderr)
    );
    let memory_lines: String = recs
        .iter()
        .filter(|r| r["tool"] == "memory")
        .map(|r| format!("{}\n", r["arguments"]))
        .collect();
    let applied = support::bin("hermes-memory", home.path())
        .arg("apply")
        .write_stdin(memory_lines)
        .output()
        .unwrap();
    assert_eq!(applied.status.code(), Some(0));
    for file in [
        "skills/git-workflow/SKILL.md",
        "memories/USER.md",
        "skills/.usage.json",
    ] {
        assert_eq!(home.read(file), direct.read(file), "{file}");
    }
}

#[test]
fn a_failed_review_keeps_what_it_wrote_and_says_why_in_one_line() {
    let srv = server(vec![
        Reply::tool_call(
            "m1",
            "memory",
            "{\"action\": \"add\", \"target\": \"user\", \"content\": \"Works in UTC.\"}",
        ),
        Reply::Http {
            status: 400,
            headers: Vec::new(),
            body: "context length exceeded".into(),
        },
    ]);
    let home = home_for(&srv, "");
    let input = conversation(
        home.path(),
        "conv.jsonl",
        &[
            json!({"role": "user", "content": "All my times are UTC."}),
            json!({"role": "assistant", "content": "Noted."}),
        ],
    );
    let out = review(home.path()).arg(&input).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("hermes-review: review failed: ")
            && stderr.contains("context length exceeded"),
        "{stderr}"
    );
    assert_eq!(home.read("memories/USER.md"), "Works in UTC.");
    let recs = records(&out.stdout);
    assert_eq!(recs.len(), 2);
    let summary = &recs[1];
    assert_eq!(
        summary["line"],
        "💾 Self-improvement review: User profile updated"
    );
    assert_eq!(summary["writes"], 1);
    assert!(
        summary["error"]
            .as_str()
            .unwrap()
            .contains("context length exceeded")
    );
}

#[test]
fn a_recorded_review_replays_offline_to_the_same_files() {
    let srv = server(patch_script());
    let recorded = git_home(&srv);
    let input = conversation(recorded.path(), "conv.jsonl", &git_conversation());
    let cassette = recorded.path().join("review.cassette.jsonl");
    let out = review(recorded.path())
        .env("HERMES_NOW", "2026-12-01T10:00:00Z")
        .arg("--record")
        .arg(&cassette)
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));

    let offline = support::TempHome::new();
    offline.write(
        "skills/git-workflow/SKILL.md",
        skill("git-workflow", "How to update and push branches", GIT_SKILL),
    );
    let input = conversation(offline.path(), "conv.jsonl", &git_conversation());
    let replayed = review(offline.path())
        .env("HERMES_NOW", "2026-12-01T10:00:00Z")
        .arg("--replay")
        .arg(&cassette)
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(
        replayed.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&replayed.stderr)
    );
    for file in ["skills/git-workflow/SKILL.md", "skills/.usage.json"] {
        assert_eq!(offline.read(file), recorded.read(file), "{file}");
    }
    let (a, b) = (records(&out.stdout), records(&replayed.stdout));
    // Only the homes' paths differ (in skill_view's skill_dir).
    assert_eq!(a[0]["arguments"], b[0]["arguments"]);
    assert_eq!(a[1], b[1]);
}

fn exported_sessions(n: usize) -> String {
    (0..n)
        .map(|i| {
            format!(
                "{}\n",
                json!({"id": format!("s{i:02}"), "source": "cli", "system_prompt": null,
                    "messages": [
                        {"role": "user", "content": format!("question {i}"), "tool_calls": null},
                        {"role": "assistant", "content": format!("answer {i}"), "tool_calls": null}]})
            )
        })
        .collect()
}

fn batch(home: &std::path::Path, input: String, extra: &[&str]) -> (Vec<Value>, Value) {
    let out = review(home)
        .args(["--batch", "-j", "4"])
        .args(extra)
        .write_stdin(input)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut recs = records(&out.stdout);
    let totals = recs.pop().unwrap();
    (recs, totals)
}

#[test]
fn a_batch_over_fifty_exported_sessions_is_resumable() {
    let srv = server(vec![Reply::text("Nothing to save."); 100]);
    let home = home_for(&srv, "");

    // A first run that got through twenty sessions.
    let (recs, totals) = batch(home.path(), exported_sessions(20), &[]);
    let order: Vec<String> = recs
        .iter()
        .map(|r| r["session"].as_str().unwrap().to_string())
        .collect();
    let expected: Vec<String> = (0..20).map(|i| format!("s{i:02}")).collect();
    assert_eq!(order, expected);
    assert_eq!(
        totals,
        json!({"type": "batch", "sessions": 20, "reviewed": 20, "skipped": 0, "failed": 0,
            "writes": 0, "requests": 20, "bytes_sent": totals["bytes_sent"]})
    );
    assert_eq!(srv.requests().len(), 20);

    // The whole export: only the thirty new sessions are reviewed.
    let (recs, totals) = batch(home.path(), exported_sessions(50), &[]);
    assert_eq!(recs.len(), 30);
    assert_eq!(recs[0]["session"], "s20");
    assert_eq!(totals["skipped"], 20);
    assert_eq!(totals["reviewed"], 30);
    assert_eq!(srv.requests().len(), 50);

    // Nothing left to do, unless asked to do it again.
    let (recs, totals) = batch(home.path(), exported_sessions(50), &[]);
    assert!(recs.is_empty());
    assert_eq!(totals["skipped"], 50);
    assert_eq!(srv.requests().len(), 50);
    let (recs, totals) = batch(home.path(), exported_sessions(50), &["--again"]);
    assert_eq!(recs.len(), 50);
    assert_eq!(totals["reviewed"], 50);
    assert_eq!(srv.requests().len(), 100);
    // Each review is its own request with its own conversation.
    let firsts: std::collections::BTreeSet<String> = srv.bodies()[50..]
        .iter()
        .map(|b| b["messages"][1]["content"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(firsts.len(), 50);
    assert_eq!(home.read("review/reviewed.jsonl").lines().count(), 100);
}

/// `make test` scores the labelled cases offline from the recorded cassette (re-record with
/// pipelines/record-review-eval.sh after changing prompts, tools or cases).
#[test]
fn eval_scores_the_labelled_cases_from_the_cassette() {
    let home = support::TempHome::new();
    let out = review(home.path())
        .env("HERMES_NOW", "2026-12-01T09:00:00Z")
        .arg("eval")
        .arg("--replay")
        .arg(support::testdata("review-eval/cassette.jsonl"))
        .arg(support::testdata("review-eval/cases.jsonl"))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let recs = records(&out.stdout);
    assert_eq!(recs.len(), 34);
    let wrong: Vec<&str> = recs[..33]
        .iter()
        .filter(|r| r["ok"] == false)
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(wrong, ["pref-no-emoji", "smooth-greeting", "negative-curl"]);
    assert_eq!(
        recs[33],
        json!({"type": "eval", "model": "eval-model", "cases": 33, "correct": 30,
            "accuracy": 0.909, "classes": {
                "memory": {"precision": 0.875, "recall": 0.875, "tp": 7, "fp": 1, "fn": 1},
                "nothing": {"precision": 0.917, "recall": 0.846, "tp": 11, "fp": 1, "fn": 2},
                "skill_create": {"precision": 0.833, "recall": 1.0, "tp": 5, "fp": 1, "fn": 0},
                "skill_patch": {"precision": 1.0, "recall": 1.0, "tp": 7, "fp": 0, "fn": 0}},
            "duplicates_proposed": 1, "forbidden_saves": 1, "failed": 0})
    );
}

/// A chat run with `-m big-model` hands over a prompt built for that model: the review on the
/// configured model does not reuse it (its prefix would not be cached anyway, and it describes
/// another model).
#[test]
fn a_prompt_built_for_another_model_is_not_reused() {
    let srv = server(vec![Reply::text("Nothing to save.")]);
    let home = home_for(&srv, "");
    let prompt = "You are the chat's agent.\n\nConversation started: Tuesday\nModel: big-model\nProvider: custom";
    let input = conversation(
        home.path(),
        "conv.jsonl",
        &[
            json!({"role": "system", "content": prompt}),
            json!({"role": "user", "content": "hi"}),
            json!({"role": "assistant", "content": "hello"}),
        ],
    );
    let out = review(home.path()).arg(&input).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let body = &srv.bodies()[0];
    assert_ne!(body["messages"][0]["content"], prompt);
    assert_eq!(body["tools"].as_array().unwrap().len(), 4);

    // The same prompt naming the configured model is reused byte for byte.
    let srv = server(vec![Reply::text("Nothing to save.")]);
    let home = home_for(&srv, "");
    let prompt = prompt.replace("big-model", "fake-model");
    let input = conversation(
        home.path(),
        "conv.jsonl",
        &[
            json!({"role": "system", "content": prompt}),
            json!({"role": "user", "content": "hi"}),
            json!({"role": "assistant", "content": "hello"}),
        ],
    );
    let out = review(home.path()).arg(&input).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(srv.bodies()[0]["messages"][0]["content"], prompt);
}

#[test]
fn with_memory_write_approval_a_memory_write_is_staged_not_made() {
    let srv = server(vec![
        Reply::tool_call(
            "m1",
            "memory",
            "{\"action\": \"add\", \"target\": \"user\", \"content\": \"Prefers tea.\"}",
        ),
        Reply::text("Staged."),
    ]);
    let home = home_for(&srv, "memory:\n  write_approval: true\n");
    let input = conversation(
        home.path(),
        "conv.jsonl",
        &[
            json!({"role": "user", "content": "I only drink tea."}),
            json!({"role": "assistant", "content": "Noted."}),
        ],
    );
    let out = review(home.path())
        .env("HERMES_NOW", "2026-12-01T10:00:00Z")
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(!home.path().join("memories/USER.md").exists());
    let pending: Vec<_> = std::fs::read_dir(home.path().join("pending/memory"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(pending.len(), 1);
    let mut record: Value =
        serde_json::from_str(&std::fs::read_to_string(&pending[0]).unwrap()).unwrap();
    let id = record["id"].as_str().unwrap().to_string();
    assert_eq!(id.len(), 8);
    record["id"] = json!("<id>");
    assert_eq!(
        record,
        json!({"id": "<id>", "subsystem": "memory", "action": "add",
            "summary": "add to user profile: Prefers tea.", "origin": "background_review",
            "created_at": 1796119200.0,
            "payload": {"action": "add", "target": "user", "content": "Prefers tea.", "old_text": ""}})
    );
    let recs = records(&out.stdout);
    assert_eq!(recs[0]["result"]["staged"], true);
    assert_eq!(recs[0]["result"]["pending_id"], id);
    // A staged write is not a write: nothing to announce in "on" mode.
    assert_eq!(recs[1]["line"], Value::Null);
    assert_eq!(recs[1]["writes"], 0);
}

/// `make demo`'s loop, offline: a chat turn makes both reviews due, hermes-chat starts
/// hermes-review (which replays its own cassette), the review creates a skill and a memory
/// entry, and the chat prints the review's line. Re-record the cassettes with
/// pipelines/record-review-demo.sh after changing the prompts or the tools.
#[test]
fn the_demo_chat_to_review_loop_replays_offline() {
    let home = support::TempHome::new();
    copy_tree(&support::testdata("home"), home.path());
    let config = home.read("config.yaml");
    home.write(
        "config.yaml",
        format!("{config}memory:\n  nudge_interval: 1\nskills:\n  creation_nudge_interval: 1\n"),
    );
    let prompt = std::fs::read_to_string(support::testdata("review/demo-chat-prompt.txt")).unwrap();
    let out = support::bin("hermes-chat", home.path())
        .current_dir(home.path())
        .env("HERMES_NOW", "2026-11-29T12:00:00Z")
        .env(
            "HERMES_REVIEW_REPLAY",
            support::testdata("review/demo-chat-review.cassette.jsonl"),
        )
        .arg("--replay")
        .arg(support::testdata("review/demo-chat.cassette.jsonl"))
        .args(["--approvals", "deny", "--review-wait", "-z", &prompt])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains(
            "💾 Self-improvement review: Skill 'tls-certificate-checks' created. · User profile updated"
        ),
        "{stderr}"
    );
    assert!(
        home.path()
            .join("skills/devops/tls-certificate-checks/SKILL.md")
            .is_file()
    );
    assert!(
        home.read("memories/USER.md")
            .ends_with("Wants short answers: the result and the one command, no explanation.")
    );
}

fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

#[test]
fn text_output_is_one_line_per_call_then_the_summary() {
    let srv = server(patch_script());
    let home = git_home(&srv);
    let input = conversation(home.path(), "conv.jsonl", &git_conversation());
    let out = review(home.path())
        .args(["--format", "text"])
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "skill_view git-workflow: \n\
         skill_manage patch git-workflow: Patched SKILL.md in skill 'git-workflow' (1 replacement).\n\
         💾 Self-improvement review: Patched SKILL.md in skill 'git-workflow' (1 replacement).\n"
    );
}

/// A conversation that is not JSON, or not UTF-8, is named by the input's line, and the
/// model is never asked.
#[test]
fn bad_input_is_named_by_its_line() {
    let srv = server(vec![]);
    let home = git_home(&srv);
    let cases: [(&[u8], &str); 3] = [
        (
            b"{\"role\":\"user\",\"content\":\"hi\"}\n{oops}\n",
            "hermes-review: error: bad input: line 2: invalid JSON at column 2: key must be a string\n",
        ),
        (
            b"{\"role\":\"user\",\"content\":\"hi\"}\n\n{\"role\":\"user\",\"content\":\"\xff\"}\n",
            "hermes-review: error: bad input: stdin: line 3: invalid UTF-8 at byte 26\n",
        ),
        (
            b"{\"role\":\"user\",\"content\":\"hi\"}\n[1]\n",
            "hermes-review: error: bad input: line 2: a message must be a JSON object\n",
        ),
    ];
    for (input, message) in cases {
        let out = review(home.path())
            .arg("--skills")
            .write_stdin(input)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        assert_eq!(String::from_utf8_lossy(&out.stderr), message);
        assert!(out.stdout.is_empty());
    }
    assert!(srv.requests().is_empty());
}

/// `--batch` reads every session before the first review: a bad line reviews nothing.
#[test]
fn a_batch_with_a_bad_line_reviews_nothing() {
    let srv = server(vec![]);
    let home = git_home(&srv);
    let out = review(home.path())
        .arg("--batch")
        .write_stdin("{\"id\":\"a\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}\n[1]\n")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "hermes-review: error: bad input: line 2: a session needs a \"messages\" array\n"
    );
    assert!(out.stdout.is_empty());
    assert!(srv.requests().is_empty());
}

/// `--format` is honoured by `--batch` and by `eval`, not only by a single review.
#[test]
fn batch_and_eval_print_in_the_format_asked_for() {
    let srv = server(vec![Reply::text("Nothing to save."); 2]);
    let home = home_for(&srv, "");
    let out = review(home.path())
        .args(["--batch", "-j", "1", "--format", "text"])
        .write_stdin(exported_sessions(2))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "s00: 💾 Self-improvement review: nothing saved\n\
         s01: 💾 Self-improvement review: nothing saved\n\
         2 session(s): 2 reviewed, 0 skipped, 0 failed; 0 write(s), 2 request(s)\n"
    );

    let eval = |format: &str| {
        let home = support::TempHome::new();
        let out = review(home.path())
            .env("HERMES_NOW", "2026-12-01T09:00:00Z")
            .args(["eval", "--format", format, "--replay"])
            .arg(support::testdata("review-eval/cassette.jsonl"))
            .arg(support::testdata("review-eval/cases.jsonl"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        String::from_utf8(out.stdout).unwrap()
    };
    let text = eval("text");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 33 + 5);
    assert_eq!(
        lines[33..],
        [
            "eval-model: 30 of 33 right (accuracy 0.909), 0 failed, 1 duplicate(s), 1 forbidden save(s)",
            "  memory: precision 0.875, recall 0.875",
            "  nothing: precision 0.917, recall 0.846",
            "  skill_create: precision 0.833, recall 1.000",
            "  skill_patch: precision 1.000, recall 1.000"
        ]
    );
    assert_eq!(lines.iter().filter(|l| l.contains(": wrong: ")).count(), 3);
    let json: Value = serde_json::from_str(&eval("json")).unwrap();
    assert_eq!(json.as_array().map(Vec::len), Some(34));
    assert_eq!(json[33]["accuracy"], 0.909);
}
