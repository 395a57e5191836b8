//! hermes-index and the real Python Hermes 0.19.0 on one state.db: the same schema, the
//! same export lines, the same search answers, and Python's later writes caught up by the
//! CJK index without loss or duplication.

mod support;

use std::path::Path;

use serde_json::{Value, json};
use support::sessions::{cjk_ids, conn, int, json_lines, state_db};
use support::{TempHome, bin, json_diff, peer, repo_root};

fn index(home: &Path) -> assert_cmd::Command {
    let mut cmd = bin("hermes-index", home);
    cmd.arg("--format").arg("jsonl");
    cmd
}

/// Our export lines, split on `\n` only (content may hold U+2028).
fn our_export(home: &Path, args: &[&str]) -> Vec<String> {
    let out = index(home).arg("export").args(args).assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).expect("UTF-8");
    text.split_terminator('\n').map(str::to_string).collect()
}

fn python_export(home: &Path, args: &[&str]) -> Vec<String> {
    let answer = peer(home, "sessions-export", args, None);
    answer["lines"]
        .as_array()
        .expect("lines")
        .iter()
        .map(|l| l.as_str().expect("line").to_string())
        .collect()
}

/// Upstream objects of sqlite_master as Python reads them (ours, `messages_fts_cjk*`, left out).
fn upstream_master(home: &Path) -> (Vec<Value>, Value) {
    let answer = peer(home, "sessions-master", &[], None);
    let objects = answer["objects"]
        .as_array()
        .expect("objects")
        .iter()
        .filter(|o| {
            !o[1].as_str().expect("name").starts_with("messages_fts_cjk")
                && !o[2]
                    .as_str()
                    .expect("table")
                    .starts_with("messages_fts_cjk")
        })
        .cloned()
        .collect();
    (
        objects,
        json!([answer["schema_version"], answer["journal_mode"]]),
    )
}

#[test]
fn a_store_we_create_is_the_store_python_creates() {
    let ours = TempHome::new();
    index(ours.path()).arg("init").assert().success();
    let theirs = TempHome::new();
    peer(theirs.path(), "sessions-open", &[], None);

    let (our_objects, our_meta) = upstream_master(ours.path());
    let (their_objects, their_meta) = upstream_master(theirs.path());
    assert_eq!(our_meta, json!([[22], "wal"]));
    assert_eq!(our_meta, their_meta);
    assert_eq!(our_objects.len(), their_objects.len());
    for (a, b) in our_objects.iter().zip(&their_objects) {
        assert_eq!(a, b, "sqlite_master differs");
    }

    // Python opening our store finds nothing to change and leaves our index alone.
    let before = peer(ours.path(), "sessions-master", &[], None);
    peer(ours.path(), "sessions-open", &[], None);
    assert_eq!(peer(ours.path(), "sessions-master", &[], None), before);
    index(ours.path()).arg("check").assert().success();
}

#[test]
fn export_equals_python_export_line_for_line() {
    let home = TempHome::new();
    let written = peer(home.path(), "sessions-write", &[], None);
    let sessions: Vec<&str> = written["sessions"]
        .as_array()
        .expect("ids")
        .iter()
        .map(|s| s.as_str().expect("id"))
        .collect();

    let python = python_export(home.path(), &[]);
    assert_eq!(python.len(), 5);
    // Byte for byte: same order, same keys, same float and string rendering.
    assert_eq!(our_export(home.path(), &["--active-only"]), python);
    for id in &sessions {
        assert_eq!(
            our_export(home.path(), &["--active-only", "--session", id]),
            python_export(home.path(), &["--session-id", id]),
            "{id}"
        );
    }

    // By default every row is exported: Python's lines plus the inactive rows, in id order.
    let all = our_export(home.path(), &[]);
    assert_eq!(all.len(), python.len());
    let mut inactive = 0;
    for (ours, theirs) in all.iter().zip(&python) {
        let mut ours: Value = serde_json::from_str(ours).expect("ours");
        let theirs: Value = serde_json::from_str(theirs).expect("theirs");
        let messages = ours["messages"].as_array_mut().expect("messages");
        inactive += messages.iter().filter(|m| m["active"] == json!(0)).count();
        messages.retain(|m| m["active"] == json!(1));
        assert_eq!(json_diff(&ours, &theirs), Vec::<String>::new());
    }
    assert_eq!(inactive, 4, "two compacted and two rewound rows");

    // Our export ingested into an empty home gives both programs the same export again.
    let restored = TempHome::new();
    index(restored.path())
        .arg("ingest")
        .write_stdin(all.join("\n") + "\n")
        .assert()
        .success();
    assert_eq!(our_export(restored.path(), &[]), all);
    assert_eq!(python_export(restored.path(), &[]), python);
}

fn corpus(dir: &Path, sessions: u32, messages: u32) -> std::path::PathBuf {
    let path = dir.join("corpus.jsonl");
    let status = std::process::Command::new(support::peer_python())
        .arg(repo_root().join("benches/corpus.py"))
        .args([
            "--sessions",
            &sessions.to_string(),
            "--messages",
            &messages.to_string(),
        ])
        .arg("--out")
        .arg(&path)
        .status()
        .expect("corpus.py");
    assert!(status.success());
    path
}

#[test]
fn python_search_answers_the_same_on_a_store_we_filled() {
    let work = TempHome::new();
    let corpus = corpus(work.path(), 60, 30);
    let python = TempHome::new();
    let imported = peer(
        python.path(),
        "sessions-import-corpus",
        &[corpus.to_str().expect("path")],
        None,
    );
    assert_eq!(imported["imported"], json!(60));
    let ours = TempHome::new();
    index(ours.path())
        .arg("ingest")
        .arg(&corpus)
        .assert()
        .success();
    assert_eq!(
        int(ours.path(), "SELECT count(*) FROM messages"),
        int(python.path(), "SELECT count(*) FROM messages")
    );

    let queries: Vec<Value> = [
        "kubernetes",
        "terraform",
        "postgres",
        "webhook",
        "the",
        "deadlock",
        "quasar",
        "\"reverse proxy\"",
        "\"connection refused\"",
        "kubernetes ingress",
        "python asyncio",
        "docker OR podman",
        "python NOT java",
        "deploy*",
        "(redis OR memcached) cache",
        "chat-send",
        "my-app.config.ts",
        "node.js",
        "TODO: fix",
        "P2.2",
        "read_file",
        "it's",
        "数据",
        "部署",
        "天気",
        "검색",
        "数据库",
        "大别山项目",
        "机器学习",
        "数据库 设计",
        "广西 OR 桂林",
        "東京の天気",
        "데이터베이스",
        "kubernetes 部署",
        "qwertyuiop",
    ]
    .iter()
    .map(|q| json!({"query": q}))
    .chain([
        json!({"query": "kubernetes", "sort": "newest"}),
        json!({"query": "terraform", "sort": "oldest"}),
        json!({"query": "数据库", "sort": "newest"}),
        json!({"query": "terminal", "role_filter": "tool"}),
        json!({"query": "pods", "role_filter": "user,tool", "limit": 5}),
    ])
    .collect();
    let stdin = serde_json::to_vec(&queries).expect("queries");
    let theirs = peer(python.path(), "sessions-search", &[], Some(&stdin));
    let ours_answer = peer(ours.path(), "sessions-search", &[], Some(&stdin));
    let found: usize = theirs
        .as_array()
        .expect("answers")
        .iter()
        .map(|a| a["search_messages"].as_array().map_or(0, Vec::len))
        .sum();
    assert!(found > 200, "the queries find things ({found} rows)");
    for (i, (a, b)) in ours_answer
        .as_array()
        .expect("ours")
        .iter()
        .zip(theirs.as_array().expect("theirs"))
        .enumerate()
    {
        assert_eq!(
            json_diff(a, b),
            Vec::<String>::new(),
            "query {}",
            queries[i]
        );
    }
}

#[test]
fn python_writes_after_we_indexed_are_caught_up() {
    let work = TempHome::new();
    let corpus = corpus(work.path(), 12, 20);
    let home = TempHome::new();
    index(home.path())
        .arg("ingest")
        .arg(&corpus)
        .assert()
        .success();
    let ids: Vec<String> = support::sessions::texts(
        home.path(),
        "SELECT id FROM sessions WHERE source != 'subagent' ORDER BY started_at",
    );
    let before = int(home.path(), "SELECT max(id) FROM messages");

    let answer = peer(
        home.path(),
        "sessions-append",
        &[&ids[0], &ids[1], &ids[2], &ids[3]],
        None,
    );
    let appended: Vec<i64> = answer["appended"]
        .as_array()
        .expect("ids")
        .iter()
        .map(|v| v.as_i64().expect("id"))
        .collect();
    assert_eq!(appended.len(), 4);

    let stats = json_lines(
        &index(home.path())
            .arg("stats")
            .assert()
            .success()
            .get_output()
            .stdout,
    )
    .remove(0);
    let lag = &stats["cjk"];
    assert_eq!(lag["watermark"], json!(before));
    assert!(lag["behind"].as_u64().expect("behind") >= 7, "{lag}");
    assert!(lag["pending"].as_u64().expect("pending") >= 20, "{lag}");
    index(home.path()).arg("check").assert().code(1);

    // The next hermes-index run catches up.
    let out = index(home.path()).arg("init").assert().success();
    let init = json_lines(&out.get_output().stdout).remove(0);
    assert_eq!(init["cjk"]["rebuilt"], json!(false));
    assert_eq!(
        init["cjk"]["watermark"],
        json!(int(home.path(), "SELECT max(id) FROM messages"))
    );
    index(home.path()).arg("check").assert().success();

    assert!(cjk_ids(home.path(), "广西").contains(&appended[0]));
    assert!(cjk_ids(home.path(), "東京").contains(&appended[3]));
    let rewritten = int(
        home.path(),
        &format!(
            "SELECT min(id) FROM messages WHERE session_id = '{}'",
            ids[1]
        ),
    );
    assert_eq!(cjk_ids(home.path(), "重写"), [rewritten]);
    // Nothing lost, nothing twice: one document per message with CJK letters, no more.
    let c = conn(home.path());
    let mut stmt = c
        .prepare("SELECT id, content, tool_name, tool_calls FROM messages ORDER BY id")
        .expect("prepare");
    let expected: Vec<i64> = stmt
        .query_map([], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, Option<String>>(1)?,
                r.get::<_, Option<String>>(2)?,
                r.get::<_, Option<String>>(3)?,
            ))
        })
        .expect("query")
        .map(|r| r.expect("row"))
        .filter(|(_, a, b, c)| {
            hermes_loop::sessions::cjk_index::text_document(
                a.as_deref(),
                b.as_deref(),
                c.as_deref(),
            )
            .is_some()
        })
        .map(|(id, ..)| id)
        .collect();
    let indexed: Vec<i64> = {
        let mut stmt = c
            .prepare("SELECT rowid FROM messages_fts_cjk ORDER BY rowid")
            .expect("prepare");
        stmt.query_map([], |r| r.get(0))
            .expect("query")
            .map(|r| r.expect("row"))
            .collect()
    };
    assert_eq!(indexed, expected);
    assert_eq!(
        int(home.path(), "SELECT count(*) FROM messages_fts_cjk_pending"),
        0
    );
}

#[test]
fn our_migration_of_an_old_store_matches_pythons() {
    let theirs = TempHome::new();
    peer(theirs.path(), "sessions-write", &[], None);
    {
        // An older store: version 10, columns the reconciler adds later, and the FTS
        // tables of before v11 gone (their triggers with them).
        let c = rusqlite::Connection::open(state_db(theirs.path())).expect("open");
        c.execute_batch(
            "DROP TRIGGER messages_fts_insert; DROP TRIGGER messages_fts_delete; DROP TRIGGER messages_fts_update;
             DROP TRIGGER messages_fts_trigram_insert; DROP TRIGGER messages_fts_trigram_delete;
             DROP TRIGGER messages_fts_trigram_update;
             DROP TABLE messages_fts; DROP TABLE messages_fts_trigram;
             ALTER TABLE sessions DROP COLUMN archived; ALTER TABLE sessions DROP COLUMN rewind_count;
             ALTER TABLE messages DROP COLUMN api_content;
             UPDATE schema_version SET version = 10;
             PRAGMA wal_checkpoint(TRUNCATE);",
        )
        .expect("make it old");
    }
    let ours = TempHome::new();
    std::fs::copy(state_db(theirs.path()), state_db(ours.path())).expect("copy");

    peer(theirs.path(), "sessions-open", &[], None);
    let out = index(ours.path()).arg("init").assert().success();
    let init = json_lines(&out.get_output().stdout).remove(0);
    assert_eq!(init["from_version"], json!(10));
    assert_eq!(init["version"], json!(22));
    assert_eq!(init["fts_repopulated"], json!(true));
    assert_eq!(
        init["columns_added"],
        json!([
            "messages.api_content",
            "sessions.rewind_count",
            "sessions.archived"
        ])
    );

    assert_eq!(upstream_master(ours.path()), upstream_master(theirs.path()));
    for sql in [
        "SELECT * FROM sessions ORDER BY id",
        "SELECT * FROM messages ORDER BY id",
        "SELECT rowid, content FROM messages_fts ORDER BY rowid",
        "SELECT rowid, content FROM messages_fts_trigram ORDER BY rowid",
        "SELECT * FROM session_model_usage",
    ] {
        let dump = |home: &Path| -> Vec<String> {
            let c = conn(home);
            let mut stmt = c.prepare(sql).expect(sql);
            let n = stmt.column_count();
            stmt.query_map([], |r| {
                Ok((0..n)
                    .map(|i| format!("{:?}", r.get_ref(i).expect("cell")))
                    .collect::<Vec<_>>()
                    .join("|"))
            })
            .expect(sql)
            .map(|r| r.expect("row"))
            .collect()
        };
        assert_eq!(dump(ours.path()), dump(theirs.path()), "{sql}");
    }
}

#[test]
fn python_keeps_working_after_our_rebuild_and_optimize() {
    let work = TempHome::new();
    let corpus = corpus(work.path(), 10, 20);
    let home = TempHome::new();
    index(home.path())
        .arg("ingest")
        .arg(&corpus)
        .assert()
        .success();
    index(home.path()).arg("rebuild").assert().success();
    index(home.path()).arg("optimize").assert().success();
    // The FTS5 format version stays the one Python's SQLite reads.
    for table in ["messages_fts", "messages_fts_trigram", "messages_fts_cjk"] {
        assert_eq!(
            support::sessions::texts(
                home.path(),
                &format!("SELECT k || '=' || v FROM {table}_config")
            ),
            ["version=4"],
            "{table}"
        );
    }
    let ids = support::sessions::texts(home.path(), "SELECT id FROM sessions ORDER BY started_at");
    peer(home.path(), "sessions-append", &[&ids[0], &ids[1]], None);
    let stdin =
        serde_json::to_vec(&json!([{"query": "广西"}, {"query": "kubernetes"}])).expect("q");
    let answers = peer(home.path(), "sessions-search", &[], Some(&stdin));
    assert!(
        !answers[0]["search_messages"]
            .as_array()
            .expect("rows")
            .is_empty()
    );
    assert_eq!(answers[1]["session_search"]["success"], json!(true));
    index(home.path()).arg("check").assert().code(1);
    index(home.path()).arg("optimize").assert().success();
    index(home.path()).arg("check").assert().success();
}
