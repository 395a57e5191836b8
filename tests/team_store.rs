//! The team store on a throwaway PostgreSQL cluster: init, push (new rows, repeats,
//! changes after a push, copied homes), who sees what, a store that is down, and
//! hermes-recall --store answering as the local store does.

mod support;

use std::path::Path;

use serde_json::{Value, json};
use support::pg::{ADMIN, Cluster};
use support::recall::{fixture_home, ingest, stderr, stdout};
use support::{TempHome, bin, testdata};

/// A second home: two sessions, one of them about nginx too.
const OTHER_HOME: &str = r#"{"id": "20261125_100000_eeeeee", "source": "cli", "model": "openai/gpt-5", "title": "Load balancer", "started_at": 1795600000.0, "messages": [{"id": 1, "role": "user", "content": "Our nginx load balancer drops websockets.", "timestamp": 1795600001.0}, {"id": 2, "role": "assistant", "content": "Set proxy_http_version 1.1 and the Upgrade headers in nginx.", "timestamp": 1795600031.0}]}
{"id": "20261126_100000_ffffff", "source": "telegram", "started_at": 1795700000.0, "messages": [{"id": 3, "role": "user", "content": "Book a table for four on Friday.", "timestamp": 1795700001.0}]}
"#;

fn other_home() -> TempHome {
    let home = TempHome::new();
    let file = home.path().join("other.jsonl");
    std::fs::write(&file, OTHER_HOME).expect("write");
    ingest(home.path(), &file);
    std::fs::remove_file(&file).expect("rm");
    home
}

fn index(home: &Path, url: &str) -> assert_cmd::Command {
    let mut cmd = bin("hermes-index", home);
    cmd.arg("--store").arg(url).args(["--format", "json"]);
    cmd
}

fn recall_store(home: &Path, url: &str) -> assert_cmd::Command {
    let mut cmd = bin("hermes-recall", home);
    cmd.arg("--store").arg(url).args(["--format", "jsonl"]);
    cmd
}

fn json_out(out: &std::process::Output) -> Value {
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(out));
    serde_json::from_str(&stdout(out)).expect("JSON on stdout")
}

fn init(cluster: &Cluster, grant: Option<&str>) {
    let home = TempHome::new();
    let mut cmd = index(home.path(), &cluster.url(ADMIN));
    cmd.arg("init");
    if let Some(role) = grant {
        cmd.args(["--grant", role]);
    }
    let report = json_out(&cmd.output().expect("init"));
    assert_eq!(report["version"], json!(2));
}

fn push(home: &Path, url: &str) -> Value {
    json_out(&index(home, url).arg("push").output().expect("push"))
}

/// `(home_id, messages, sessions)` per home, as the store holds them.
fn counts(cluster: &Cluster) -> Vec<(String, i64, i64)> {
    cluster
        .admin()
        .query(
            "SELECT h.home_id::text,
                (SELECT count(*) FROM hermes.messages m WHERE m.home_id = h.home_id),
                (SELECT count(*) FROM hermes.sessions s WHERE s.home_id = h.home_id)
             FROM hermes.homes h ORDER BY 2, 1",
            &[],
        )
        .expect("counts")
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect()
}

/// An answer without its `home_id` keys, to compare with the local store's.
fn without_home(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| k.as_str() != "home_id")
                .map(|(k, v)| (k.clone(), without_home(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_home).collect()),
        other => other.clone(),
    }
}

#[test]
fn two_homes_are_pushed_and_a_repeat_push_adds_nothing() {
    let cluster = Cluster::start();
    init(&cluster, None);
    let url = cluster.url(ADMIN);
    let (a, b) = (fixture_home(), other_home());

    let first = push(a.path(), &url);
    assert_eq!(
        (
            &first["identity"],
            &first["sessions"],
            &first["messages"],
            &first["watermark"]
        ),
        (&json!("minted"), &json!(5), &json!(14), &json!(14))
    );
    let second = push(b.path(), &url);
    assert_eq!(
        (&second["sessions"], &second["messages"]),
        (&json!(2), &json!(3))
    );
    assert_ne!(first["home_id"], second["home_id"]);

    let again = push(a.path(), &url);
    assert_eq!(
        (
            &again["identity"],
            &again["home_id"],
            &again["sessions"],
            &again["messages"],
            &again["messages_changed"],
            &again["watermark"]
        ),
        (
            &json!("kept"),
            &first["home_id"],
            &json!(0),
            &json!(0),
            &json!(0),
            &json!(14)
        )
    );
    let ids = |v: &Value| v["home_id"].as_str().expect("id").to_string();
    assert_eq!(
        counts(&cluster),
        vec![(ids(&second), 3, 2), (ids(&first), 14, 5)]
    );

    // Both homes' nginx sessions, one search: the admin owns both homes.
    let out = recall_store(a.path(), &url)
        .args(["nginx", "--limit", "10"])
        .output()
        .expect("recall");
    let answer = json_out(&out);
    let mut found: Vec<(String, String)> = answer["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| {
            (
                r["home_id"].as_str().unwrap_or("").to_string(),
                r["session_id"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    found.sort();
    let mut expected = vec![
        (ids(&first), "20261120_090000_aaaaaa".to_string()),
        (ids(&first), "20261124_090000_dddddd".to_string()),
        (ids(&first), "cron_daily_20261123_060000".to_string()),
        (ids(&second), "20261125_100000_eeeeee".to_string()),
    ];
    expected.sort();
    assert_eq!(found, expected);
}

#[test]
fn a_compaction_after_a_push_reaches_the_store() {
    let cluster = Cluster::start();
    init(&cluster, None);
    let url = cluster.url(ADMIN);
    let home = fixture_home();
    let first = push(home.path(), &url);

    // What archive_and_compact does, plus a new title and a removed message.
    let db = rusqlite::Connection::open(home.path().join("state.db")).expect("open");
    db.execute_batch(
        "BEGIN;
         UPDATE messages SET active = 0, compacted = 1
             WHERE session_id = '20261120_090000_aaaaaa' AND active = 1;
         INSERT INTO messages (session_id, role, content, timestamp, active)
             VALUES ('20261120_090000_aaaaaa', 'user', 'Summary: certificate renewed, nginx reloaded.', 1795165900.0, 1);
         UPDATE sessions SET message_count = 1, title = 'nginx cert renewal (compacted)'
             WHERE id = '20261120_090000_aaaaaa';
         DELETE FROM messages WHERE id = 10;
         COMMIT;",
    )
    .expect("compact");
    drop(db);

    let second = push(home.path(), &url);
    assert_eq!(
        (
            &second["messages"],
            &second["messages_changed"],
            &second["messages_deleted"],
            &second["sessions"],
            &second["watermark"]
        ),
        (&json!(1), &json!(4), &json!(1), &json!(1), &json!(15))
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
            "SELECT title FROM hermes.sessions WHERE id = '20261120_090000_aaaaaa'",
            &[],
        )
        .expect("title")
        .get(0);
    assert_eq!(title, "nginx cert renewal (compacted)");
    let gone: i64 = admin
        .query_one("SELECT count(*) FROM hermes.messages WHERE id = 10", &[])
        .expect("count")
        .get(0);
    assert_eq!(gone, 0);

    // The log was emptied by the push; a third push sends nothing.
    let third = push(home.path(), &url);
    assert_eq!(
        (
            &third["messages"],
            &third["messages_changed"],
            &third["sessions"]
        ),
        (&json!(0), &json!(0), &json!(0))
    );
    assert_eq!(third["home_id"], first["home_id"]);

    // Compacted rows stay searchable, and the store and the local store agree.
    let local = bin("hermes-recall", home.path())
        .args(["certbot", "--format", "jsonl"])
        .output()
        .expect("local");
    let remote = recall_store(home.path(), &url)
        .arg("certbot")
        .output()
        .expect("store");
    assert_eq!(without_home(&json_out(&remote)), json_out(&local));
}

#[test]
fn a_copied_home_gets_its_own_identity() {
    let cluster = Cluster::start();
    init(&cluster, None);
    let url = cluster.url(ADMIN);
    let home = fixture_home();
    let first = push(home.path(), &url);

    let copy = TempHome::new();
    for file in ["state.db", "team_store.json"] {
        std::fs::copy(home.path().join(file), copy.path().join(file)).expect("copy");
    }
    let pushed = push(copy.path(), &url);
    assert_eq!(
        pushed["identity"],
        json!({"copied": {"from": first["home_id"].clone()}})
    );
    assert_ne!(pushed["home_id"], first["home_id"]);
    assert_eq!(
        (&pushed["sessions"], &pushed["messages"]),
        (&json!(5), &json!(14))
    );
    let again = push(copy.path(), &url);
    assert_eq!(
        (&again["identity"], &again["home_id"], &again["messages"]),
        (&json!("kept"), &pushed["home_id"], &json!(0))
    );
    assert_eq!(counts(&cluster).len(), 2);
}

#[test]
fn one_user_cannot_see_another_teams_sessions() {
    let cluster = Cluster::start();
    let mut admin = cluster.admin();
    admin
        .batch_execute("CREATE ROLE alice LOGIN; CREATE ROLE bob LOGIN; CREATE ROLE carol LOGIN;")
        .expect("roles");
    init(&cluster, Some("PUBLIC"));
    admin
        .batch_execute(
            "INSERT INTO hermes.team_members VALUES ('red', 'alice'), ('red', 'bob'), ('blue', 'carol');",
        )
        .expect("teams");
    let (a, b, c) = (fixture_home(), other_home(), other_home());
    let pa = push(a.path(), &cluster.url("alice"));
    push(b.path(), &cluster.url("bob"));
    push(c.path(), &cluster.url("carol"));
    assert_eq!(pa["owner"], json!("alice"));

    let homes_seen = |home: &Path, user: &str, args: &[&str]| -> Vec<String> {
        let out = recall_store(home, &cluster.url(user))
            .args(args)
            .output()
            .expect("recall");
        let answer: Value = serde_json::from_str(&stdout(&out)).expect("JSON");
        let mut seen: Vec<String> = answer["results"]
            .as_array()
            .map(|r| {
                r.iter()
                    .map(|x| x["session_id"].as_str().unwrap_or("").to_string())
                    .collect()
            })
            .unwrap_or_default();
        seen.sort();
        seen
    };
    // Discover: alice's team sees alice and bob; carol's team only carol.
    assert_eq!(
        homes_seen(
            a.path(),
            "alice",
            &["nginx", "--limit", "10", "--scope", "team"]
        ),
        vec![
            "20261120_090000_aaaaaa",
            "20261124_090000_dddddd",
            "20261125_100000_eeeeee",
            "cron_daily_20261123_060000"
        ]
    );
    assert_eq!(
        homes_seen(a.path(), "alice", &["nginx", "--limit", "10"]),
        vec![
            "20261120_090000_aaaaaa",
            "20261124_090000_dddddd",
            "cron_daily_20261123_060000"
        ]
    );
    assert_eq!(
        homes_seen(
            c.path(),
            "carol",
            &["nginx", "--limit", "10", "--scope", "team"]
        ),
        vec!["20261125_100000_eeeeee"]
    );
    // Title match, browse, CJK words: nothing of alice's reaches carol.
    assert_eq!(
        homes_seen(c.path(), "carol", &["Deploy pipeline", "--scope", "team"]),
        Vec::<String>::new()
    );
    assert_eq!(
        homes_seen(c.path(), "carol", &["桂林", "--scope", "team"]),
        Vec::<String>::new()
    );
    assert_eq!(
        homes_seen(c.path(), "carol", &["--limit", "10", "--scope", "team"]),
        vec!["20261125_100000_eeeeee", "20261126_100000_ffffff"]
    );
    // Read and scroll of alice's session by id.
    let alice_home = pa["home_id"].as_str().expect("home id").to_string();
    let qualified = format!("{alice_home}/20261120_090000_aaaaaa");
    for args in [
        vec!["--session", "20261120_090000_aaaaaa"],
        vec!["--session", "20261120_090000_aaaaaa", "--around", "1"],
        vec!["--session", qualified.as_str()],
        vec!["--session", qualified.as_str(), "--around", "1"],
    ] {
        let out = recall_store(c.path(), &cluster.url("carol"))
            .args(&args)
            .args(["--scope", "team"])
            .output()
            .expect("recall");
        assert_eq!(out.status.code(), Some(1));
        assert_eq!(
            stdout(&out),
            format!(
                "{{\"error\": \"session_id not found: {}\", \"success\": false}}\n",
                args[1]
            )
        );
    }
    // Alice reads her own session by the same qualified id; bob, her teammate, too.
    for user in ["alice", "bob"] {
        let out = recall_store(a.path(), &cluster.url(user))
            .args(["--session", &qualified, "--scope", "team"])
            .output()
            .expect("read");
        let answer = json_out(&out);
        assert_eq!(
            (
                &answer["mode"],
                &answer["home_id"],
                &answer["message_count"]
            ),
            (&json!("read"), &json!(alice_home), &json!(4))
        );
    }
    // Straight SQL as carol: the tables show her rows only, the search function too.
    let mut carol =
        postgres::Client::connect(&cluster.url("carol"), postgres::NoTls).expect("carol");
    carol
        .batch_execute("SET hermes.scope = 'team'")
        .expect("scope");
    let visible: i64 = carol
        .query_one("SELECT count(*) FROM hermes.messages", &[])
        .expect("count")
        .get(0);
    assert_eq!(visible, 3);
    let sessions: i64 = carol
        .query_one("SELECT count(*) FROM hermes.sessions", &[])
        .expect("count")
        .get(0);
    assert_eq!(sessions, 2);
    let searched: i64 = carol
        .query_one(
            "SELECT count(*) FROM hermes.search('''nginx''', NULL, 'words', 'team', '{}', '{}', '', 300)",
            &[],
        )
        .expect("search")
        .get(0);
    assert_eq!(searched, 2);
    // The session rows the search returns: carol's own, shown; the title match finds her
    // session's title, never alice's.
    let shown: Vec<(String, Option<String>, bool)> = carol
        .query(
            "SELECT DISTINCT session_id, title, shown FROM hermes.search('''nginx''', NULL, 'words', 'team', '{}', '{}', '', 300)",
            &[],
        )
        .expect("search")
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect();
    assert_eq!(
        shown,
        vec![(
            "20261125_100000_eeeeee".to_string(),
            Some("Load balancer".to_string()),
            true
        )]
    );
    let mut titles = |exact: &str| -> i64 {
        carol
            .query_one(
                "SELECT count(*) FROM hermes.title_match(lower($1) || ' #%', $1, '', 'team')",
                &[&exact],
            )
            .expect("title match")
            .get(0)
    };
    assert_eq!((titles("Load balancer"), titles("Deploy pipeline")), (1, 0));
    // Carol can neither change alice's rows nor push as alice.
    let changed = carol
        .execute("UPDATE hermes.messages SET content = 'x'", &[])
        .expect("update");
    assert_eq!(changed, 3);
    let alice_rows: i64 = admin
        .query_one(
            "SELECT count(*) FROM hermes.messages WHERE owner = 'alice' AND content = 'x'",
            &[],
        )
        .expect("count")
        .get(0);
    assert_eq!(alice_rows, 0);
    let out = index(c.path(), &cluster.url("carol"))
        .args(["push", "--owner", "alice"])
        .output()
        .expect("push");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).starts_with(
            "hermes-index: error: team store: this role may not push as owner \"alice\""
        ),
        "{}",
        stderr(&out)
    );
    // A copy of alice's identity file does not let carol push into alice's home.
    let stolen = TempHome::new();
    std::fs::copy(a.path().join("state.db"), stolen.path().join("state.db")).expect("copy");
    let pushed = push(stolen.path(), &cluster.url("carol"));
    assert_ne!(pushed["home_id"], pa["home_id"]);
}

#[test]
fn a_store_that_is_down_gives_one_line_and_exit_2() {
    let home = fixture_home();
    let dir = tempfile::tempdir().expect("tmp");
    let url = format!(
        "postgresql://dave:hunter2@{}:5432/team",
        dir.path().display().to_string().replace('/', "%2F")
    );
    for mut cmd in [
        {
            let mut c = bin("hermes-index", home.path());
            c.args(["--store", &url, "push"]);
            c
        },
        {
            let mut c = bin("hermes-recall", home.path());
            c.args(["--store", &url, "nginx"]);
            c
        },
    ] {
        let out = cmd.output().expect("run");
        assert_eq!(out.status.code(), Some(2));
        assert_eq!(stdout(&out), "");
        let err = stderr(&out);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(!err.contains("hunter2"), "{err}");
        let target = format!("dave@{}:5432/team unreachable: ", dir.path().display());
        assert!(err.contains(&target), "{err}");
    }
}

#[test]
fn the_store_answers_as_the_local_store_on_the_reference_scenarios() {
    let cluster = Cluster::start();
    init(&cluster, None);
    let url = cluster.url(ADMIN);
    let home = fixture_home();
    push(home.path(), &url);

    // The reference calls without a profile (the store holds homes, not profiles), and
    // this fixture's own words: English, CJK, mixed scripts, titles, scroll, read, browse.
    let mut calls: Vec<String> = std::fs::read_to_string(testdata("recall/interop_calls.jsonl"))
        .expect("calls")
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|c| c["current"].is_null())
        .map(|c| c["args"].clone())
        .filter(|a| {
            a.get("profile").is_none() && !a["session_id"].as_str().unwrap_or("").contains('/')
        })
        .map(|a| a.to_string())
        .collect();
    for extra in [
        json!({"query": "nginx"}),
        json!({"query": "广西桂林"}),
        json!({"query": "桂林"}),
        json!({"query": "nginx OR 桂林"}),
        json!({"query": "\"staging nginx\""}),
        json!({"query": "Deploy pipeline"}),
        json!({"query": "deploy", "sort": "oldest"}),
        json!({"session_id": "20261120_090000_aaaaaa", "around_message_id": 2, "window": 1}),
        json!({"session_id": "20261124_090000_dddddd"}),
        json!({"limit": 10}),
    ] {
        calls.push(extra.to_string());
    }
    assert!(calls.len() > 150, "{} calls", calls.len());
    let input = calls.join("\n") + "\n";
    let answers = |cmd: &mut assert_cmd::Command| -> Vec<Value> {
        let out = cmd
            .arg("--batch")
            .write_stdin(input.clone())
            .output()
            .expect("batch");
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        stdout(&out)
            .lines()
            .map(|l| serde_json::from_str(l).expect("answer"))
            .collect()
    };
    let local = answers(bin("hermes-recall", home.path()).args(["--format", "jsonl"]));
    let remote = answers(&mut recall_store(home.path(), &url));
    assert_eq!(local.len(), calls.len());
    assert_eq!(remote.len(), calls.len());
    for ((call, l), r) in calls.iter().zip(&local).zip(&remote) {
        assert_eq!(&without_home(r), l, "call {call}");
    }

    // For a person, the store's answer reads as the local one.
    let text = |store: bool| {
        let mut cmd = bin("hermes-recall", home.path());
        if store {
            cmd.args(["--store", &url]);
        }
        let out = cmd
            .args(["nginx", "--limit", "2", "--format", "text"])
            .output()
            .expect("text");
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        stdout(&out)
    };
    let local_text = text(false);
    assert!(
        local_text.starts_with("2 sessions for \"nginx\":"),
        "{local_text}"
    );
    assert_eq!(text(true), local_text);
}

#[test]
fn init_is_repeatable_and_export_after_id_lists_new_messages() {
    let cluster = Cluster::start();
    init(&cluster, None);
    let home = TempHome::new();
    let again = json_out(
        &index(home.path(), &cluster.url(ADMIN))
            .arg("init")
            .output()
            .expect("init"),
    );
    assert_eq!(
        again,
        json!({"from_version": 2, "version": 2, "granted": null})
    );

    let home = fixture_home();
    let out = bin("hermes-index", home.path())
        .args(["export", "--after-id", "12"])
        .output()
        .expect("export");
    assert_eq!(out.status.code(), Some(0));
    let ids: Vec<(i64, String)> = stdout(&out)
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("line");
            (
                v["id"].as_i64().unwrap_or(-1),
                v["session_id"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    assert_eq!(
        ids,
        vec![
            (13, "20261124_090000_dddddd".to_string()),
            (14, "20261124_090000_dddddd".to_string())
        ]
    );
}

#[test]
fn init_migrates_a_version_1_store_and_keeps_who_may_search() {
    let cluster = Cluster::start();
    let mut admin = cluster.admin();
    admin.batch_execute("CREATE ROLE dave LOGIN").expect("role");
    let old = hermes_loop::team::schema::init_to(&mut admin, Some("dave"), 1).expect("v1");
    assert_eq!((old.from_version, old.version), (0, 1));
    let home = fixture_home();
    let url = cluster.url("dave");
    let refused = recall_store(home.path(), &url)
        .arg("nginx")
        .output()
        .expect("recall");
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));

    let migrated = json_out(
        &index(home.path(), &cluster.url(ADMIN))
            .arg("init")
            .output()
            .expect("init"),
    );
    assert_eq!(
        migrated,
        json!({"from_version": 1, "version": 2, "granted": null})
    );
    push(home.path(), &url);
    // The push merged its index entries: no search reads a pending list.
    admin
        .batch_execute("CREATE EXTENSION IF NOT EXISTS pgstattuple")
        .expect("pgstattuple");
    let pending: i64 = admin
        .query_one(
            "SELECT pending_tuples FROM pgstatginindex('hermes.messages_fts')",
            &[],
        )
        .expect("pending")
        .get(0);
    assert_eq!(pending, 0);
    // Dave was granted the search at version 1: he may still search, titles included.
    let answer = json_out(
        &recall_store(home.path(), &url)
            .args(["Deploy pipeline", "--limit", "10"])
            .output()
            .expect("recall"),
    );
    assert_eq!(answer["results"][0]["matched_role"], json!("session_title"));
    let answer = json_out(
        &recall_store(home.path(), &url)
            .args(["nginx", "--limit", "10"])
            .output()
            .expect("recall"),
    );
    assert_eq!(answer["count"], json!(3), "{answer}");
}

#[test]
fn pushes_from_cron_at_once_send_each_row_once() {
    let cluster = Cluster::start();
    init(&cluster, None);
    let url = cluster.url(ADMIN);
    let home = fixture_home();
    let runs: Vec<std::process::Child> = (0..3)
        .map(|_| {
            std::process::Command::new(env!("CARGO_BIN_EXE_hermes-index"))
                .env("HERMES_HOME", home.path())
                .args(["--store", &url, "--format", "json", "push"])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("spawn")
        })
        .collect();
    let mut sent = 0;
    for run in runs {
        let out = run.wait_with_output().expect("wait");
        let report = json_out(&out);
        sent += report["messages"].as_i64().unwrap_or(-1);
    }
    // One identity, minted by whichever run came first; the rows went in once.
    let homes = counts(&cluster);
    assert_eq!(sent, 14);
    assert_eq!(homes.len(), 1);
    assert_eq!((homes[0].1, homes[0].2), (14, 5));
    let again = push(home.path(), &url);
    assert_eq!(
        (&again["messages"], &again["sessions"]),
        (&json!(0), &json!(0))
    );
}

#[test]
fn an_interrupted_push_keeps_its_committed_chunks_and_the_next_one_resumes() {
    let cluster = Cluster::start();
    init(&cluster, None);
    let url = cluster.url(ADMIN);
    let home = fixture_home();
    // The store refuses message 12, as a server going away half way would.
    cluster
        .admin()
        .batch_execute(
            "CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS
                 $$ BEGIN IF NEW.id = 12 THEN RAISE EXCEPTION 'refused'; END IF; RETURN NEW; END $$;
             CREATE TRIGGER refuse BEFORE INSERT ON hermes.messages FOR EACH ROW EXECUTE FUNCTION refuse();",
        )
        .expect("trigger");
    let out = index(home.path(), &url)
        .args(["push", "--chunk", "5"])
        .output()
        .expect("push");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(counts(&cluster)[0].1, 10);
    let watermark: i64 = cluster
        .admin()
        .query_one("SELECT watermark FROM hermes.homes", &[])
        .expect("watermark")
        .get(0);
    assert_eq!(watermark, 10);

    cluster
        .admin()
        .batch_execute("DROP TRIGGER refuse ON hermes.messages")
        .expect("drop");
    let report = json_out(
        &index(home.path(), &url)
            .args(["push", "--chunk", "5"])
            .output()
            .expect("push"),
    );
    assert_eq!(
        (
            &report["messages"],
            &report["sessions"],
            &report["watermark"]
        ),
        (&json!(4), &json!(0), &json!(14))
    );
    let homes = counts(&cluster);
    assert_eq!((homes[0].1, homes[0].2), (14, 5));
}
