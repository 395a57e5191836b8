//! hermes-recall on a small home (`testdata/recall/home.jsonl`, ingested by hermes-index):
//! exact answers of every mode, the text rendering, exit codes, batch mode and bad input.

mod support;

use std::io::{BufRead, BufReader};
use std::process::Stdio;

use serde_json::Value;
use support::TempHome;
use support::recall::{fixture_home, recall, stderr, stdout};

const NGINX: &str = r#"{"success": true, "mode": "discover", "query": "nginx", "results": [{"session_id": "20261120_090000_aaaaaa", "when": "November 20, 2026 at 09:00 AM", "source": "cli", "model": "anthropic/claude-sonnet-4", "title": "nginx cert renewal", "matched_role": "assistant", "match_message_id": 4, "snippet": "Renewed with certbot and reloaded >>>nginx<<<. The cron job was missing the -->>>nginx<<< flag; I added it.  ", "bookend_start": [], "messages": [{"id": 1, "role": "user", "content": "The TLS certificate on the staging nginx expired again. Can you renew it?", "timestamp": 1795165201.0}, {"id": 2, "role": "assistant", "content": "", "timestamp": 1795165231.0, "tool_calls": [{"id": "call_cert", "type": "function", "function": {"name": "terminal", "arguments": "{\"command\": \"sudo certbot renew --nginx\"}"}}]}, {"id": 4, "role": "assistant", "content": "Renewed with certbot and reloaded nginx. The cron job was missing the --nginx flag; I added it.", "timestamp": 1795165291.0, "anchor": true}], "bookend_end": [], "messages_before": 3, "messages_after": 0}, {"session_id": "20261124_090000_dddddd", "when": "November 24, 2026 at 08:00 AM", "source": "cli", "model": "anthropic/claude-sonnet-4", "title": "Deploy pipeline", "matched_role": "user", "match_message_id": 13, "snippet": "The deploy pipeline fails at the >>>nginx<<< stage.  ", "bookend_start": [], "messages": [{"id": 13, "role": "user", "content": "The deploy pipeline fails at the nginx stage.", "timestamp": 1795510801.0, "anchor": true}, {"id": 14, "role": "assistant", "content": "Fixed: the nginx config test now runs before reload.", "timestamp": 1795510831.0}], "bookend_end": [], "messages_before": 0, "messages_after": 1, "parent_session_id": "20261124_080000_cccccc"}, {"session_id": "cron_daily_20261123_060000", "when": "November 23, 2026 at 06:00 AM", "source": "cron", "model": "unknown", "title": null, "matched_role": "user", "match_message_id": 9, "snippet": "Daily summary: >>>nginx<<< >>>nginx<<< >>>nginx<<< cert checks passed.  ", "bookend_start": [], "messages": [{"id": 9, "role": "user", "content": "Daily summary: nginx nginx nginx cert checks passed.", "timestamp": 1795413601.0, "anchor": true}, {"id": 10, "role": "assistant", "content": "All nginx certs valid for 60+ days.", "timestamp": 1795413631.0}], "bookend_end": [], "messages_before": 0, "messages_after": 1}], "count": 3, "sessions_searched": 3}
"#;

#[test]
fn discover_prints_the_tools_answer_byte_for_byte() {
    let home = fixture_home();
    // The cron session has the densest match but comes last (demoted); the continuation's
    // hit carries its root's title and names the root.
    let out = recall(home.path())
        .args(["nginx", "--format", "jsonl"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), NGINX);
    assert_eq!(stderr(&out), "");
}

#[test]
fn discover_renders_for_a_person() {
    let home = fixture_home();
    let out = recall(home.path())
        .args(["nginx", "--limit", "2", "--format", "text"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        stdout(&out),
        "2 sessions for \"nginx\":

1. nginx cert renewal  ·  November 20, 2026 at 09:00 AM  ·  cli  ·  20261120_090000_aaaaaa
   matched in assistant #4
   Renewed with certbot and reloaded >>>nginx<<<. The cron job was missing the -->>>nginx<<< flag; I added it.
   around the hit (3 before, 0 after):
     #1 user: The TLS certificate on the staging nginx expired again. Can you renew it?
     #2 assistant: → terminal({\"command\": \"sudo certbot renew --nginx\"})
   ▶ #4 assistant: Renewed with certbot and reloaded nginx. The cron job was missing the --nginx flag; I added it.

2. Deploy pipeline  ·  November 24, 2026 at 08:00 AM  ·  cli  ·  20261124_090000_dddddd (conversation 20261124_080000_cccccc)
   matched in user #13
   The deploy pipeline fails at the >>>nginx<<< stage.
   around the hit (0 before, 1 after):
   ▶ #13 user: The deploy pipeline fails at the nginx stage.
     #14 assistant: Fixed: the nginx config test now runs before reload.
"
    );
}

#[test]
fn the_current_lineage_is_left_out_and_tool_rows_come_on_request() {
    let home = fixture_home();
    let out = recall(home.path())
        .args(["nginx", "--current-session", "20261124_080000_cccccc"])
        .output()
        .expect("run");
    let answer: Value = serde_json::from_slice(&out.stdout).expect("json");
    let sessions: Vec<&str> = answer["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| r["session_id"].as_str().expect("id"))
        .collect();
    assert_eq!(
        sessions,
        ["20261120_090000_aaaaaa", "cron_daily_20261123_060000"]
    );

    let out = recall(home.path())
        .arg("Congratulations")
        .output()
        .expect("run");
    assert_eq!(
        out.status.code(),
        Some(1),
        "tool output is not searched by default"
    );
    let out = recall(home.path())
        .args(["Congratulations", "--role", "user,assistant,tool"])
        .output()
        .expect("run");
    let answer: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(answer["results"][0]["matched_role"], "tool");
    assert_eq!(
        answer["results"][0]["snippet"],
        ">>>Congratulations<<<, all renewals succeeded terminal "
    );
}

#[test]
fn two_character_cjk_words_are_found_and_ranked() {
    let home = fixture_home();
    let out = recall(home.path())
        .args(["广西", "--format", "text"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        stdout(&out),
        "1 session for \"广西\":

1. (untitled)  ·  November 22, 2026 at 10:00 AM  ·  telegram  ·  20261122_100000_bbbbbb
   matched in user #5
   下周去>>>广西<<<桂林，帮我安排三天的行程
   around the hit (0 before, 3 after):
   ▶ #5 user: 下周去广西桂林，帮我安排三天的行程
     #6 assistant: 第一天漓江游船，第二天阳朔骑行，第三天龙脊梯田。
     #7 user: Also: is the kubernetes ingress on the new cluster ready?
     #8 assistant: Yes, the ingress controller is deployed; the cert comes from cert-manager.
"
    );
}

#[test]
fn scroll_read_and_browse() {
    let home = fixture_home();
    let out = recall(home.path())
        .args([
            "--session",
            "20261120_090000_aaaaaa",
            "--around",
            "3",
            "--window",
            "1",
        ])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        stdout(&out),
        r#"{"success": true, "mode": "scroll", "session_id": "20261120_090000_aaaaaa", "around_message_id": 3, "session_meta": {"when": "November 20, 2026 at 09:00 AM", "source": "cli", "model": "anthropic/claude-sonnet-4", "title": "nginx cert renewal"}, "window": 1, "messages": [{"id": 2, "role": "assistant", "content": "", "timestamp": 1795165231.0, "tool_calls": [{"id": "call_cert", "type": "function", "function": {"name": "terminal", "arguments": "{\"command\": \"sudo certbot renew --nginx\"}"}}]}, {"id": 3, "role": "tool", "content": "Congratulations, all renewals succeeded", "timestamp": 1795165261.0, "tool_name": "terminal", "tool_call_id": "call_cert", "anchor": true}, {"id": 4, "role": "assistant", "content": "Renewed with certbot and reloaded nginx. The cron job was missing the --nginx flag; I added it.", "timestamp": 1795165291.0}], "messages_before": 1, "messages_after": 1}
"#
    );

    // A negative window is clamped to 1, as the tool clamps it.
    let out = recall(home.path())
        .args([
            "--session",
            "20261120_090000_aaaaaa",
            "--around",
            "3",
            "--window",
            "-4",
        ])
        .args(["--format", "text"])
        .output()
        .expect("run");
    assert_eq!(
        stdout(&out),
        "nginx cert renewal  ·  November 20, 2026 at 09:00 AM  ·  cli  ·  20261120_090000_aaaaaa
around #3 (window 1; 1 before, 1 after):
  #2 assistant: → terminal({\"command\": \"sudo certbot renew --nginx\"})
▶ #3 tool terminal: Congratulations, all renewals succeeded
  #4 assistant: Renewed with certbot and reloaded nginx. The cron job was missing the --nginx flag; I added it.
"
    );

    // A message of the continuation, asked for through its root: rebound with a warning.
    let out = recall(home.path())
        .args([
            "--session",
            "20261124_080000_cccccc",
            "--around",
            "14",
            "--window",
            "1",
        ])
        .output()
        .expect("run");
    let answer: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(answer["session_id"], "20261124_090000_dddddd");
    assert_eq!(
        answer["warning"],
        "around_message_id 14 lives in 20261124_090000_dddddd (child of 20261124_080000_cccccc); rebound transparently"
    );

    let out = recall(home.path())
        .args(["--session", "20261124_090000_dddddd"])
        .output()
        .expect("run");
    assert_eq!(
        stdout(&out),
        r#"{"success": true, "mode": "read", "session_id": "20261124_090000_dddddd", "session_meta": {"when": "November 24, 2026 at 09:00 AM", "source": "cli", "model": "anthropic/claude-sonnet-4", "title": "Deploy pipeline #2"}, "message_count": 2, "truncated": false, "messages": [{"id": 13, "role": "user", "content": "The deploy pipeline fails at the nginx stage.", "timestamp": 1795510801.0}, {"id": 14, "role": "assistant", "content": "Fixed: the nginx config test now runs before reload.", "timestamp": 1795510831.0}]}
"#
    );

    let out = recall(home.path())
        .args(["--limit", "2"])
        .output()
        .expect("run");
    assert_eq!(
        stdout(&out),
        r#"{"success": true, "mode": "browse", "results": [{"session_id": "20261124_090000_dddddd", "title": "Deploy pipeline #2", "source": "cli", "started_at": 1795507200.0, "last_active": 1795510831.0, "message_count": 2, "preview": "The deploy pipeline fails at the nginx stage."}, {"session_id": "cron_daily_20261123_060000", "title": null, "source": "cron", "started_at": 1795413600.0, "last_active": 1795413631.0, "message_count": 2, "preview": "Daily summary: nginx nginx nginx cert checks passed."}], "count": 2, "message": "Showing 2 most recent sessions. Pass a query= to search, or session_id+around_message_id to scroll."}
"#
    );
    let out = recall(home.path())
        .args(["--limit", "1", "--format", "text"])
        .output()
        .expect("run");
    assert_eq!(
        stdout(&out),
        "20261124_090000_dddddd  Deploy pipeline #2
    cli · 2 messages · last active November 24, 2026 at 09:00 AM
"
    );
}

#[test]
fn negative_answers_exit_1() {
    let home = fixture_home();
    let out = recall(home.path()).arg("qwertyuiop").output().expect("run");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stdout(&out),
        "{\"success\": true, \"mode\": \"discover\", \"query\": \"qwertyuiop\", \"results\": [], \"count\": 0, \"message\": \"No matching sessions found.\"}\n"
    );
    let out = recall(home.path())
        .args(["qwertyuiop", "--format", "text"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stdout(&out),
        "No matching sessions found for \"qwertyuiop\".\n"
    );

    let out = recall(home.path())
        .args(["--session", "nosuch"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stdout(&out),
        "{\"error\": \"session_id not found: nosuch\", \"success\": false}\n"
    );
    let out = recall(home.path())
        .args(["--session", "nosuch", "--around", "1", "--format", "text"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), "");
    assert_eq!(
        stderr(&out),
        "hermes-recall: session_id not found: nosuch\n"
    );

    let out = recall(home.path())
        .args(["--session", "20261120_090000_aaaaaa", "--around", "999"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stdout(&out),
        "{\"error\": \"around_message_id 999 not in session_id 20261120_090000_aaaaaa\", \"success\": false}\n"
    );
    let out = recall(home.path())
        .args(["--session", "nosuch/x"])
        .output()
        .expect("run");
    assert_eq!(
        stdout(&out),
        "{\"error\": \"profile 'nosuch': profile 'nosuch' does not exist\", \"success\": false}\n"
    );
}

#[test]
fn bad_queries_get_answers_never_a_crash() {
    let home = fixture_home();
    let huge = "nginx ".repeat(180_000);
    let lines = [
        r#"{"query": ""}"#.to_string(),
        r#"{"query": "\"unbalanced nginx"}"#.to_string(),
        r#"{"query": "AND"}"#.to_string(),
        r#"{"query": "OR NOT AND"}"#.to_string(),
        r#"{"query": "nginx OR"}"#.to_string(),
        r#"{"query": "\u0000\u0001\u001b[2J nginx \ufffd"}"#.to_string(),
        r#"{"query": "it's a/b 100% #tag"}"#.to_string(),
        r#"{"query": "*", "limit": -5}"#.to_string(),
        format!(r#"{{"query": "{huge}"}}"#),
        r#"{"session_id": "20261120_090000_aaaaaa", "around_message_id": 3, "window": -20}"#
            .to_string(),
        r#"{"session_id": "20261120_090000_aaaaaa", "around_message_id": "three"}"#.to_string(),
        r#"{"session_id": "nosuch", "around_message_id": 1}"#.to_string(),
        r#"{"query": 12, "limit": "x"}"#.to_string(),
    ];
    assert!(huge.len() > 1_000_000);
    let out = recall(home.path())
        .arg("--batch")
        .write_stdin(lines.join("\n"))
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let answers: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON answer"))
        .collect();
    assert_eq!(answers.len(), lines.len());
    let summary: Vec<String> = answers
        .iter()
        .map(|a| {
            if let Some(e) = a["error"].as_str() {
                format!("error: {e}")
            } else {
                format!("{} {}", a["mode"].as_str().unwrap_or("?"), a["count"])
            }
        })
        .collect();
    assert_eq!(
        summary,
        [
            "browse 3",
            "discover 0", // `unbalanced nginx`: both words must match
            "discover 0", // nothing left to search for
            "discover 0",
            "discover 3", // the dangling OR is dropped
            "discover 0", // `[` is FTS5 syntax: no rows, as upstream
            "discover 0",
            "discover 0",
            "discover 0", // cut to 2,048 characters, ending in the word `ng`
            "scroll null",
            "error: scroll requires integer around_message_id",
            "error: session_id not found: nosuch",
            "browse 3",
        ]
    );
    assert_eq!(answers[9]["window"], 1);
    assert_eq!(answers[2]["message"], "No matching sessions found.");

    // Bytes that are not UTF-8 on the command line are a query, not a usage error.
    use std::os::unix::ffi::OsStrExt;
    let out = recall(home.path())
        .arg(std::ffi::OsStr::from_bytes(b"nginx \xff"))
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0));
    let answer: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(answer["query"], "nginx \u{fffd}");
    assert_eq!(answer["count"], 3);
}

#[test]
fn batch_reports_bad_lines() {
    let home = fixture_home();
    let input = "{\"query\": \"nginx\", \"limit\": 1}\nnot json\n[1, 2]\n{\"session_id\": \"20261124_090000_dddddd\"}\n";
    let out = recall(home.path())
        .arg("--batch")
        .write_stdin(input)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stdout(&out).lines().count(),
        1,
        "the answer before the bad line"
    );
    assert!(
        stderr(&out).starts_with("hermes-recall: error: line 2: invalid JSON"),
        "{}",
        stderr(&out)
    );

    let out = recall(home.path())
        .args(["--batch", "--keep-going"])
        .write_stdin(input)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let modes: Vec<String> = stdout(&out)
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("json");
            v["mode"].as_str().unwrap_or("").to_string()
        })
        .collect();
    assert_eq!(modes, ["discover", "read"]);
    let err = stderr(&out);
    assert!(err.contains("warning: line 2: invalid JSON"), "{err}");
    assert!(
        err.contains("warning: line 3: expected an object of session_search arguments"),
        "{err}"
    );
}

#[test]
fn a_missing_store_is_an_error_with_a_hint() {
    let home = TempHome::new();
    let out = recall(home.path()).arg("nginx").output().expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stdout(&out), "");
    let err = stderr(&out);
    assert!(
        err.starts_with(&format!(
            "hermes-recall: error: no session store at {}",
            home.path().join("state.db").display()
        )),
        "{err}"
    );
    assert!(
        err.contains("hint: create it with `hermes-index init`"),
        "{err}"
    );
    assert!(!home.path().join("state.db").exists(), "never created");
}

#[test]
fn bad_flags_are_usage_errors() {
    let home = fixture_home();
    let out = recall(home.path())
        .args(["--sort", "sideways", "x"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let out = recall(home.path())
        .args(["--around", "3"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2), "--around needs --session");
    let out = recall(home.path())
        .args(["--batch", "nginx"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    // A query that starts with a dash goes after `--`.
    let out = recall(home.path())
        .args(["--", "-nginx"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn a_closed_pipe_ends_quietly() {
    let home = fixture_home();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("hermes-recall"))
        .env("HERMES_HOME", home.path())
        .args(["--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    // Feed stdin from a thread: once we stop reading, the binary's writes fail, it exits and
    // this writer's pipe breaks too.
    let mut stdin = child.stdin.take().expect("stdin");
    let feeder = std::thread::spawn(move || {
        use std::io::Write;
        for _ in 0..3000 {
            if stdin
                .write_all(b"{\"query\": \"nginx\", \"limit\": 10}\n")
                .is_err()
            {
                break;
            }
        }
    });
    let mut first = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut first)
        .expect("one line");
    assert!(first.starts_with("{\"success\": true"));
    let out = child.wait_with_output().expect("wait");
    feeder.join().expect("feeder");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

#[test]
fn the_digest_pipeline_writes_markdown() {
    let home = fixture_home();
    let bins = assert_cmd::cargo::cargo_bin("hermes-recall");
    let bins = bins.parent().expect("target dir");
    let path = format!(
        "{}:{}",
        bins.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let digest = |days: &str| {
        std::process::Command::new("bash")
            .arg(support::repo_root().join("pipelines/recall-digest.sh"))
            .args(["nginx", days])
            .env("PATH", &path)
            .env("HERMES_HOME", home.path())
            .env("HERMES_NOW", "2026-11-25T00:00:00Z")
            .env("TZ", "UTC")
            .output()
            .expect("run the pipeline")
    };
    let out = digest("3");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "# What I learned about \"nginx\" (last 3 days)

## Deploy pipeline — November 24, 2026 at 08:00 AM

_cli session `20261124_090000_dddddd`, continuing `20261124_080000_cccccc`_

> Fixed: the **nginx** config test now runs before reload.

Around the hit:
- **user**: The deploy pipeline fails at the nginx stage.
- **assistant**: Fixed: the nginx config test now runs before reload.  ← the hit

## (untitled) — November 23, 2026 at 06:00 AM

_cron session `cron_daily_20261123_060000`_

> All **nginx** certs valid for 60+ days.

Around the hit:
- **user**: Daily summary: nginx nginx nginx cert checks passed.
- **assistant**: All nginx certs valid for 60+ days.  ← the hit

"
    );
    let out = digest("0");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), "");
    assert_eq!(
        stderr(&out),
        "Nothing about \"nginx\" in the last 0 days.\n"
    );
}

/// When the CJK index refuses a query, the search falls back to the routes without it (as
/// when the index is missing) and still finds the word, instead of asking it again.
#[test]
fn a_cjk_index_that_refuses_the_query_falls_back_to_the_other_routes() {
    let home = fixture_home();
    let db = rusqlite::Connection::open(home.path().join("state.db")).expect("open state.db");
    // Same name, no longer a full-text table: MATCH on it is an error FTS5 would give for a
    // query it cannot read, which the search swallows.
    db.execute_batch(
        "DROP TABLE messages_fts_cjk;
         CREATE TABLE messages_fts_cjk (content TEXT);",
    )
    .expect("replace the index");
    drop(db);
    let out = recall(home.path())
        .args(["广西", "--format", "json"])
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let answer: Value = serde_json::from_str(&stdout(&out)).expect("json");
    let sessions: Vec<&str> = answer["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter_map(|r| r["session_id"].as_str())
        .collect();
    assert_eq!(sessions, ["20261122_100000_bbbbbb"]);
}

/// A query on a home nobody may write (no `-wal`/`-shm` beside a WAL-mode state.db) is
/// answered as on any home, and leaves the home as it was. As root, permission bits stop no
/// write: the query then runs as `nobody` through `setpriv` (it fails, never skips, when
/// `setpriv` is missing).
#[test]
fn a_read_only_home_is_searched() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let home = fixture_home();
    let db = home.path().join("state.db");
    let before = std::fs::read(&db).expect("state.db");
    let chmod = |path: &std::path::Path, mode: u32| {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod")
    };
    chmod(&db, 0o444);
    chmod(home.path(), 0o555);
    let exe = assert_cmd::cargo::cargo_bin("hermes-recall");
    let root = std::fs::metadata("/proc/self").expect("/proc/self").uid() == 0;
    let mut cmd = if root {
        let mut c = std::process::Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(&exe);
        c
    } else {
        std::process::Command::new(&exe)
    };
    let out = cmd
        .env("HERMES_HOME", home.path())
        .env_remove("HERMES_NOW")
        .env("TZ", "UTC")
        .args(["nginx", "--format", "jsonl"])
        .output()
        .expect("run (setpriv is needed when the tests run as root)");
    chmod(home.path(), 0o755);
    assert_eq!(stderr(&out), "");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), NGINX);
    assert_eq!(std::fs::read(&db).expect("state.db"), before);
    let mut names: Vec<String> = std::fs::read_dir(home.path())
        .expect("home")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["state.db"]);
}
