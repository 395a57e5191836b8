//! hermes-index end to end on temp homes: init, ingest, export, rebuild, check, stats,
//! optimize, and the bad inputs of the issue.

mod support;

use serde_json::{Value, json};
use support::sessions::{cjk_ids, conn, fixture, int, json_lines, state_db, texts};
use support::{TempHome, bin};

fn index(home: &TempHome) -> assert_cmd::Command {
    let mut cmd = bin("hermes-index", home.path());
    cmd.arg("--format").arg("jsonl");
    cmd
}

fn ingest(home: &TempHome, file: &str) -> Value {
    let out = index(home)
        .args(["ingest"])
        .arg(fixture(file))
        .assert()
        .success();
    let lines = json_lines(&out.get_output().stdout);
    assert_eq!(lines.len(), 1);
    lines[0].clone()
}

fn without_seconds(mut v: Value) -> Value {
    v.as_object_mut().expect("object").remove("seconds");
    v
}

#[test]
fn init_creates_a_v22_store_and_then_has_nothing_to_do() {
    let home = TempHome::new();
    let out = index(&home).arg("init").assert().success();
    let first = &json_lines(&out.get_output().stdout)[0];
    assert_eq!(first["created"], json!(true));
    assert_eq!(first["from_version"], Value::Null);
    assert_eq!(first["version"], json!(22));
    assert_eq!(first["cjk"]["rebuilt"], json!(true));
    assert_eq!(int(home.path(), "SELECT version FROM schema_version"), 22);
    assert_eq!(
        texts(home.path(), "PRAGMA journal_mode"),
        ["wal"],
        "WAL, as Python sets it"
    );

    let out = index(&home).arg("init").assert().success();
    let second = &json_lines(&out.get_output().stdout)[0];
    assert_eq!(second["created"], json!(false));
    assert_eq!(second["from_version"], json!(22));
    assert_eq!(second["objects_created"], json!([]));
    assert_eq!(second["columns_added"], json!([]));
    assert_eq!(second["cjk"]["rebuilt"], json!(false));

    let text = bin("hermes-index", home.path())
        .args(["init", "--format", "text"])
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&text.get_output().stdout).to_string();
    assert_eq!(
        stdout,
        format!(
            "{}: schema v22, up to date\nCJK index: current (watermark 0)\n",
            state_db(home.path()).display()
        )
    );
}

#[test]
fn ingest_stores_rows_as_python_does_and_is_idempotent() {
    let home = TempHome::new();
    let summary = ingest(&home, "export.jsonl");
    assert_eq!(
        without_seconds(summary),
        json!({"sessions": 3, "messages": 11, "skipped": 0})
    );
    let h = home.path();
    // Exported ids are kept; tool_calls is json.dumps text (ASCII-escaped); multimodal
    // content carries the \x00json: prefix; flags as given.
    assert_eq!(int(h, "SELECT count(*) FROM messages"), 11);
    assert_eq!(
        texts(h, "SELECT tool_calls FROM messages WHERE id = 2"),
        [
            r#"[{"id": "call_1", "type": "function", "function": {"name": "terminal", "arguments": "{\"command\": \"kubectl get pods -n \\u6570\\u636e\"}"}}]"#
        ]
    );
    assert_eq!(
        texts(h, "SELECT content FROM messages WHERE id = 6"),
        [
            "\u{0}json:[{\"type\": \"text\", \"text\": \"\\u6211\\u4eec\\u8ba8\\u8bba\\u4e86\\u6570\\u636e\\u5e93\\u7684\\u8bbe\\u8ba1\"}]"
        ]
    );
    assert_eq!(
        texts(
            h,
            "SELECT active || '/' || compacted FROM messages WHERE id IN (5, 7, 9) ORDER BY id"
        ),
        ["0/1", "1/0", "0/0"]
    );
    assert_eq!(
        texts(
            h,
            "SELECT parent_session_id FROM sessions WHERE id = '20231114_222000_bbbbbb'"
        ),
        ["20231114_221320_aaaaaa"]
    );
    assert_eq!(
        int(
            h,
            "SELECT tool_call_count FROM sessions WHERE id = '20231114_221320_aaaaaa'"
        ),
        1
    );
    assert_eq!(int(h, "SELECT count(*) FROM messages_fts"), 11);
    assert_eq!(int(h, "SELECT count(*) FROM messages_fts_trigram"), 11);
    // The CJK index finds two-character words the upstream tables cannot.
    assert_eq!(cjk_ids(h, "广西"), [5]);
    assert_eq!(cjk_ids(h, "天気"), [8]);
    assert_eq!(cjk_ids(h, "검색"), [11]);
    assert_eq!(
        cjk_ids(h, "数据"),
        Vec::<i64>::new(),
        "escaped in tool_calls and multimodal JSON"
    );

    let again = ingest(&home, "export.jsonl");
    assert_eq!(
        without_seconds(again),
        json!({"sessions": 0, "messages": 0, "skipped": 11})
    );
    assert_eq!(int(h, "SELECT count(*) FROM messages"), 11);
    assert_eq!(int(h, "SELECT max(id) FROM messages"), 11);
}

#[test]
fn message_lines_create_their_sessions_and_count_tool_calls() {
    let home = TempHome::new();
    let summary = ingest(&home, "messages.jsonl");
    assert_eq!(
        without_seconds(summary),
        json!({"sessions": 2, "messages": 4, "skipped": 0})
    );
    let h = home.path();
    assert_eq!(
        texts(
            h,
            "SELECT id || ' ' || source || ' ' || message_count || ' ' || tool_call_count || ' ' || started_at FROM sessions ORDER BY id"
        ),
        [
            "sub_1 subagent 1 0 1700100002.0",
            "tg_1 telegram 3 2 1700100000.0"
        ]
    );
    assert_eq!(
        texts(h, "SELECT model_config FROM sessions WHERE id = 'sub_1'"),
        [r#"{"_delegate_from": "tg_1"}"#]
    );
    assert_eq!(
        texts(
            h,
            "SELECT parent_session_id FROM sessions WHERE id = 'sub_1'"
        ),
        ["tg_1"]
    );
    assert_eq!(cjk_ids(h, "部署"), [1]);
}

#[test]
fn export_then_ingest_into_an_empty_home_reproduces_every_row() {
    let first = TempHome::new();
    ingest(&first, "export.jsonl");
    ingest(&first, "messages.jsonl");
    let exported = index(&first).arg("export").assert().success();
    let exported = exported.get_output().stdout.clone();
    assert_eq!(String::from_utf8_lossy(&exported).lines().count(), 5);

    let second = TempHome::new();
    index(&second)
        .arg("ingest")
        .write_stdin(exported.clone())
        .assert()
        .success();
    let again = index(&second).arg("export").assert().success();
    assert_eq!(
        String::from_utf8_lossy(&again.get_output().stdout),
        String::from_utf8_lossy(&exported),
        "byte for byte, ids included"
    );
    for table in ["sessions", "messages"] {
        let dump = |home: &TempHome| {
            let c = conn(home.path());
            let mut stmt = c
                .prepare(&format!("SELECT * FROM {table} ORDER BY id"))
                .expect("prepare");
            let n = stmt.column_count();
            let rows: Vec<Vec<String>> = stmt
                .query_map([], |r| {
                    Ok((0..n)
                        .map(|i| format!("{:?}", r.get_ref(i).expect("cell")))
                        .collect())
                })
                .expect("query")
                .map(|r| r.expect("row"))
                .collect();
            rows
        };
        assert_eq!(dump(&first), dump(&second), "{table}");
    }
}

#[test]
fn export_shape_and_filters() {
    let home = TempHome::new();
    ingest(&home, "export.jsonl");
    let all = index(&home).arg("export").assert().success();
    let lines = json_lines(&all.get_output().stdout);
    // Most recently active first, as `hermes sessions export` orders them.
    let ids: Vec<&str> = lines
        .iter()
        .map(|l| l["id"].as_str().expect("id"))
        .collect();
    assert_eq!(
        ids,
        [
            "cron_deadbeef_20231114_230000",
            "20231114_222000_bbbbbb",
            "20231114_221320_aaaaaa"
        ]
    );
    let keys: Vec<&String> = lines[0].as_object().expect("object").keys().collect();
    assert_eq!(keys.first().map(|k| k.as_str()), Some("id"));
    assert_eq!(
        keys[keys.len() - 2..]
            .iter()
            .map(|k| k.as_str())
            .collect::<Vec<_>>(),
        ["last_active", "messages"]
    );
    assert_eq!(lines[0]["last_active"], json!(1700002802.0));
    let child = &lines[1]["messages"];
    assert_eq!(child.as_array().expect("messages").len(), 5);
    assert_eq!(
        child[1]["content"],
        json!([{"type": "text", "text": "我们讨论了数据库的设计"}])
    );
    let tools = &lines[2]["messages"][1]["tool_calls"];
    assert_eq!(tools[0]["function"]["name"], json!("terminal"));

    let live = index(&home)
        .args(["export", "--active-only"])
        .assert()
        .success();
    let live = json_lines(&live.get_output().stdout);
    let kept: Vec<i64> = live[1]["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .map(|m| m["id"].as_i64().expect("id"))
        .collect();
    assert_eq!(kept, [7, 8]);

    let one = index(&home)
        .args(["export", "--session", "cron_dead"])
        .assert()
        .success();
    let one = json_lines(&one.get_output().stdout);
    assert_eq!(one.len(), 1);
    assert_eq!(one[0]["id"], json!("cron_deadbeef_20231114_230000"));
    assert!(one[0].get("last_active").is_none(), "single-session shape");

    let missing = index(&home)
        .args(["export", "--session", "2023"])
        .assert()
        .code(1);
    assert!(missing.get_output().stdout.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&missing.get_output().stderr),
        "hermes-index: no session \"2023\" (no exact id, no unique prefix)\n"
    );

    let file = home.path().join("out/backup.jsonl");
    std::fs::create_dir_all(file.parent().expect("dir")).expect("dir");
    let summary = index(&home).arg("export").arg(&file).assert().success();
    assert_eq!(
        json_lines(&summary.get_output().stdout),
        [json!({"sessions": 3, "messages": 11})]
    );
    assert_eq!(
        std::fs::read(&file).expect("export file"),
        all.get_output().stdout
    );
}

#[test]
fn a_closed_pipe_ends_export_quietly() {
    let home = TempHome::new();
    let mut input = String::new();
    for i in 0..400 {
        input.push_str(&format!(
            "{{\"session_id\": \"s{i}\", \"role\": \"user\", \"content\": \"{}\", \"timestamp\": {i}}}\n",
            "long text ".repeat(50)
        ));
    }
    index(&home)
        .arg("ingest")
        .write_stdin(input)
        .assert()
        .success();
    let exe = assert_cmd::cargo::cargo_bin("hermes-index");
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(format!(
            "'{}' export --home '{}' | head -c 10 >/dev/null; echo \"${{PIPESTATUS[0]}}\"",
            exe.display(),
            home.path().display()
        ))
        .output()
        .expect("bash");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "0\n");
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_bad_line_stops_the_run_and_leaves_no_partial_batch() {
    let home = TempHome::new();
    let input = concat!(
        "{\"session_id\": \"s1\", \"role\": \"user\", \"content\": \"one\", \"timestamp\": 1}\n",
        "{\"session_id\": \"s1\", \"role\": \"user\", \"content\": \"two\", \"timestamp\": 2}\n",
        "{not json\n",
        "{\"session_id\": \"s1\", \"role\": \"user\", \"content\": \"four\", \"timestamp\": 4}\n",
    );
    let out = index(&home)
        .arg("ingest")
        .write_stdin(input)
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(
        stderr.starts_with(
            "hermes-index: error: line 3: invalid JSON at column 2: key must be a string"
        ),
        "{stderr}"
    );
    assert!(out.get_output().stdout.is_empty());
    assert_eq!(int(home.path(), "SELECT count(*) FROM messages"), 0);
    assert_eq!(int(home.path(), "SELECT count(*) FROM sessions"), 0);

    let out = index(&home)
        .args(["ingest", "--keep-going"])
        .write_stdin(input)
        .assert()
        .code(2);
    assert_eq!(
        json_lines(&out.get_output().stdout)
            .into_iter()
            .map(without_seconds)
            .collect::<Vec<_>>(),
        [json!({"sessions": 1, "messages": 3, "skipped": 0})]
    );
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(
        stderr.starts_with("hermes-index: warning: line 3: invalid JSON"),
        "{stderr}"
    );
    assert!(stderr.ends_with("(skipped)\n"), "{stderr}");
}

#[test]
fn wrong_shapes_are_named() {
    let home = TempHome::new();
    for (input, message) in [
        (
            "[1, 2]\n",
            "line 1: expected a JSON object (a session with `messages`, or a message)",
        ),
        (
            "{\"id\": \"s\", \"messages\": [{\"content\": \"x\"}]}\n",
            "line 1: messages[0]: `role` must be a non-empty string",
        ),
        (
            "{\"session_id\": \"s\", \"role\": \"user\", \"timestamp\": \"soon\"}\n",
            "line 1: message: `timestamp` must be a number",
        ),
    ] {
        let out = index(&home)
            .arg("ingest")
            .write_stdin(input)
            .assert()
            .code(2);
        assert_eq!(
            String::from_utf8_lossy(&out.get_output().stderr),
            format!("hermes-index: error: {message}\n")
        );
    }
}

#[test]
fn children_wait_for_parents_that_come_later_and_missing_parents_are_reported() {
    let home = TempHome::new();
    let input = concat!(
        "{\"id\": \"child\", \"source\": \"cli\", \"parent_session_id\": \"root\", \"started_at\": 20, \"messages\": [{\"role\": \"user\", \"content\": \"c\", \"timestamp\": 21}]}\n",
        "{\"id\": \"orphan\", \"source\": \"cli\", \"parent_session_id\": \"gone\", \"started_at\": 30, \"messages\": []}\n",
        "{\"id\": \"root\", \"source\": \"cli\", \"started_at\": 10, \"end_reason\": \"compression\", \"messages\": [{\"role\": \"user\", \"content\": \"r\", \"timestamp\": 11}]}\n",
    );
    let out = index(&home)
        .arg("ingest")
        .write_stdin(input)
        .assert()
        .success();
    assert_eq!(
        String::from_utf8_lossy(&out.get_output().stderr),
        "hermes-index: warning: line 2: session orphan: parent gone is in neither state.db nor the input; stored without a parent\n"
    );
    assert_eq!(
        texts(
            home.path(),
            "SELECT id || '>' || COALESCE(parent_session_id, '-') FROM sessions ORDER BY id"
        ),
        ["child>root", "orphan>-", "root>-"]
    );
    // Running again attaches nothing twice and keeps every row.
    index(&home)
        .arg("ingest")
        .write_stdin(input)
        .assert()
        .success();
    assert_eq!(int(home.path(), "SELECT count(*) FROM messages"), 2);
}

#[test]
fn a_title_held_by_another_session_is_dropped_with_a_warning() {
    let home = TempHome::new();
    let input = concat!(
        "{\"id\": \"a\", \"source\": \"cli\", \"title\": \"Same\", \"started_at\": 1, \"messages\": []}\n",
        "{\"id\": \"b\", \"source\": \"cli\", \"title\": \"Same\", \"started_at\": 2, \"messages\": []}\n",
    );
    let out = index(&home)
        .arg("ingest")
        .write_stdin(input)
        .assert()
        .success();
    assert_eq!(
        String::from_utf8_lossy(&out.get_output().stderr),
        "hermes-index: warning: line 2: session b: title \"Same\" belongs to another session; stored without it\n"
    );
    assert_eq!(
        texts(
            home.path(),
            "SELECT id || '=' || COALESCE(title, '-') FROM sessions ORDER BY id"
        ),
        ["a=Same", "b=-"]
    );
}

#[test]
fn check_finds_damage_and_repair_fixes_it() {
    let home = TempHome::new();
    ingest(&home, "export.jsonl");
    index(&home).arg("check").assert().success();
    {
        let c = rusqlite::Connection::open(state_db(home.path())).expect("open");
        c.execute_batch(
            "DROP TRIGGER messages_fts_trigram_update;
             DELETE FROM messages_fts WHERE rowid = 3;
             DELETE FROM messages_fts_cjk WHERE rowid = 5;
             UPDATE messages SET content = '新的内容' WHERE id = 1;",
        )
        .expect("damage");
    }
    let out = index(&home).arg("check").assert().code(1);
    let lines = json_lines(&out.get_output().stdout);
    let failed: Vec<(&str, &str)> = lines
        .iter()
        .filter(|l| l["type"] == "check" && l["ok"] == json!(false))
        .map(|l| {
            (
                l["check"].as_str().expect("check"),
                l["detail"].as_str().expect("detail"),
            )
        })
        .collect();
    assert_eq!(
        failed,
        [
            ("schema", "missing messages_fts_trigram_update"),
            // Its update trigger kept row 1 current; the trigram's was gone.
            (
                "messages_fts",
                "10 rows; 1 messages missing, 0 orphaned, 0 stale"
            ),
            (
                "messages_fts_trigram",
                "11 rows; 0 messages missing, 0 orphaned, 1 stale"
            ),
            (
                "cjk",
                "watermark 11 of 11; 0 behind, 1 pending; 1 missing, 0 orphaned, 0 stale"
            ),
        ]
    );
    assert_eq!(
        lines.last().expect("summary"),
        &json!({"type": "summary", "ok": false, "problems": 4, "repaired": 0})
    );

    let out = index(&home).args(["check", "--repair"]).assert().success();
    let lines = json_lines(&out.get_output().stdout);
    assert!(
        lines
            .iter()
            .filter(|l| l["type"] == "check")
            .all(|l| l["ok"] == json!(true))
    );
    let actions: Vec<&str> = lines
        .iter()
        .filter(|l| l["type"] == "repair")
        .map(|l| l["action"].as_str().expect("action"))
        .collect();
    assert_eq!(
        actions,
        [
            "migrate",
            "repopulate messages_fts",
            "repopulate messages_fts_trigram",
            "rebuild messages_fts_cjk"
        ]
    );
    assert_eq!(
        lines.last().expect("summary"),
        &json!({"type": "summary", "ok": true, "problems": 0, "repaired": 4})
    );
    assert_eq!(cjk_ids(home.path(), "内容"), [1]);
    assert_eq!(cjk_ids(home.path(), "广西"), [5]);
}

#[test]
fn rebuild_stats_and_optimize_report_what_they_did() {
    let home = TempHome::new();
    ingest(&home, "export.jsonl");
    ingest(&home, "messages.jsonl");
    let out = index(&home).arg("rebuild").assert().success();
    assert_eq!(
        without_seconds(json_lines(&out.get_output().stdout).remove(0)),
        json!({"messages": 15, "fts_rows": 15, "trigram_rows": 15, "cjk_rows": 4, "repopulated": 0})
    );

    let out = index(&home).arg("stats").assert().success();
    let stats = json_lines(&out.get_output().stdout).remove(0);
    assert_eq!(stats["sessions"], json!(5));
    assert_eq!(stats["messages"], json!(15));
    assert_eq!(stats["inactive_messages"], json!(3));
    assert_eq!(stats["schema_version"], json!(22));
    assert_eq!(stats["journal_mode"], json!("wal"));
    assert_eq!(
        stats["sources"],
        json!([
            {"source": "cli", "sessions": 2, "messages": 9},
            {"source": "cron", "sessions": 1, "messages": 2},
            {"source": "subagent", "sessions": 1, "messages": 1},
            {"source": "telegram", "sessions": 1, "messages": 3},
        ])
    );
    let full_text: Vec<&str> = stats["full_text"]
        .as_array()
        .expect("full_text")
        .iter()
        .map(|o| o["name"].as_str().expect("name"))
        .collect();
    assert_eq!(
        full_text,
        ["messages_fts", "messages_fts_trigram", "messages_fts_cjk"]
    );
    let messages = stats["objects"]
        .as_array()
        .expect("objects")
        .iter()
        .find(|o| o["name"] == "messages")
        .expect("messages object");
    assert_eq!(messages["kind"], json!("table"));
    assert!(messages["bytes"].as_u64().expect("bytes") >= 4096);
    assert_eq!(
        stats["cjk"],
        json!({"present": true, "watermark": 15, "max_id": 15, "behind": 0, "pending": 0})
    );

    let out = index(&home).arg("optimize").assert().success();
    let optimized = json_lines(&out.get_output().stdout).remove(0);
    assert!(optimized["bytes_after"].as_u64().expect("after") > 0);
    assert_eq!(
        optimized
            .as_object()
            .expect("object")
            .keys()
            .collect::<Vec<_>>(),
        ["bytes_before", "bytes_after", "seconds"]
    );
    index(&home).arg("check").assert().success();
}

#[test]
fn a_corrupt_file_is_an_error_with_a_hint_and_is_left_as_it_was() {
    let home = TempHome::new();
    let garbage: Vec<u8> = (0..65536u32).map(|i| (i * 7919 % 251) as u8).collect();
    std::fs::write(state_db(home.path()), &garbage).expect("write");
    for args in [&["stats"][..], &["ingest", "-"][..], &["check"][..]] {
        let out = index(&home).args(args).write_stdin("").assert().code(2);
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
        assert!(
            stderr.starts_with(&format!(
                "hermes-index: error: {} is not a usable SQLite database: file is not a database",
                state_db(home.path()).display()
            )),
            "{args:?}: {stderr}"
        );
        assert!(stderr.contains("\nhint: restore a backup"), "{stderr}");
    }
    assert_eq!(std::fs::read(state_db(home.path())).expect("read"), garbage);
    assert!(!home.path().join("state.db-wal").exists());
}

#[test]
fn a_newer_schema_is_read_but_never_written() {
    let home = TempHome::new();
    ingest(&home, "export.jsonl");
    {
        let c = rusqlite::Connection::open(state_db(home.path())).expect("open");
        c.execute_batch(
            "UPDATE schema_version SET version = 23; ALTER TABLE sessions ADD COLUMN future TEXT;
             PRAGMA wal_checkpoint(TRUNCATE);",
        )
        .expect("newer");
    }
    let before = std::fs::read(state_db(home.path())).expect("read");
    let out = index(&home)
        .arg("ingest")
        .arg(fixture("messages.jsonl"))
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert_eq!(
        stderr,
        format!(
            "hermes-index: error: {} has schema version 23, newer than the v22 this hermes-loop writes\nhint: upgrade hermes-loop; export, stats and check still read this database\n",
            state_db(home.path()).display()
        )
    );
    index(&home).arg("rebuild").assert().code(2);
    assert_eq!(std::fs::read(state_db(home.path())).expect("read"), before);
    let exported = index(&home).arg("export").assert().success();
    let lines = json_lines(&exported.get_output().stdout);
    assert_eq!(lines.len(), 3);
    assert_eq!(
        lines[0]["future"],
        Value::Null,
        "extra columns are exported"
    );
}

#[test]
fn a_read_only_home_is_a_clear_error_and_reads_still_work() {
    use std::os::unix::fs::PermissionsExt;
    let home = TempHome::new();
    ingest(&home, "export.jsonl");
    let dir = home.path().join("ro");
    std::fs::create_dir(&dir).expect("dir");
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o555)).expect("chmod");
    // As root permissions do not bind; a home below a regular file is unwritable for all.
    let root = std::fs::write(dir.join("probe"), "x").is_ok();
    let unwritable = if root {
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let file = home.path().join("a-file");
        std::fs::write(&file, "x").expect("file");
        file.join("home")
    } else {
        dir.clone()
    };
    let out = bin("hermes-index", &unwritable)
        .arg("init")
        .assert()
        .code(2);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(
        stderr.starts_with("hermes-index: error: cannot write"),
        "{stderr}"
    );
    assert!(
        stderr.contains("hint: SQLite needs write access"),
        "{stderr}"
    );
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    // Reading needs no write access to anything.
    index(&home).arg("stats").assert().success();
}

#[test]
fn a_writer_holding_the_lock_is_waited_for() {
    let home = TempHome::new();
    index(&home).arg("init").assert().success();
    let path = state_db(home.path());
    let c = rusqlite::Connection::open(path).expect("open");
    c.execute_batch("BEGIN IMMEDIATE; INSERT INTO state_meta VALUES ('held', 'yes');")
        .expect("lock");
    let mut ingest = std::process::Command::new(assert_cmd::cargo::cargo_bin("hermes-index"))
        .env("HERMES_HOME", home.path())
        .arg("ingest")
        .arg(fixture("export.jsonl"))
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("spawn");
    // It cannot succeed while the lock is held; had it given up on the lock it would have
    // exited by now.
    std::thread::sleep(std::time::Duration::from_millis(1500));
    assert!(ingest.try_wait().expect("poll").is_none(), "ingest gave up");
    c.execute_batch("COMMIT").expect("release");
    assert!(ingest.wait().expect("wait").success());
    assert_eq!(int(home.path(), "SELECT count(*) FROM messages"), 11);
    assert_eq!(int(home.path(), "SELECT count(*) FROM state_meta"), 1);
}

#[test]
fn commands_on_a_missing_store() {
    let home = TempHome::new();
    let out = index(&home).arg("stats").assert().code(2);
    assert_eq!(
        String::from_utf8_lossy(&out.get_output().stderr),
        format!(
            "hermes-index: error: no session store at {}\nhint: create it with `hermes-index init` (or `hermes-index ingest`)\n",
            state_db(home.path()).display()
        )
    );
    assert!(!state_db(home.path()).exists());
}

#[test]
fn help_lists_the_contract() {
    let out = bin("hermes-index", std::path::Path::new("/nonexistent"))
        .arg("--help")
        .assert()
        .success();
    let help = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    for command in [
        "init", "ingest", "export", "rebuild", "check", "stats", "optimize",
    ] {
        assert!(
            help.contains(&format!("\n  {command} ")),
            "{command} in\n{help}"
        );
    }
    assert!(help.contains("Exit codes: 0 done"));
}
