//! hermes-chat and Python Hermes 0.19.0 on one home: a session our agent wrote is exported by
//! `hermes sessions export` with the same messages, and a session Python's `SessionDB` wrote
//! is resumed by hermes-chat with its messages in the request.

mod support;

use std::process::Command;

use serde_json::{Value, json};
use support::chat::{chat, home_for, rows, server};
use support::chat_server::Reply;

fn python_hermes(home: &std::path::Path, args: &[&str]) -> String {
    let hermes = support::peer_python().with_file_name("hermes");
    let out = Command::new(hermes)
        .args(args)
        .env("HERMES_HOME", home)
        .env("TZ", "UTC")
        .output()
        .expect("run Python hermes");
    assert!(
        out.status.success(),
        "hermes {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn python_exports_our_session_with_the_same_messages() {
    let srv = server(vec![
        Reply::tool_call("call_1", "terminal", "{\"command\": \"echo hi\"}"),
        Reply::text("Done"),
    ]);
    let home = home_for(&srv, "");
    chat(home.path())
        .args(["-z", "run echo"])
        .assert()
        .success();
    let sid = rows(home.path(), "SELECT id FROM sessions")[0][0].clone();
    let exported = python_hermes(
        home.path(),
        &["sessions", "export", "-", "--session-id", &sid],
    );
    let session: Value = serde_json::from_str(exported.lines().next().expect("one line")).unwrap();
    assert_eq!(session["id"], sid);
    assert_eq!(session["source"], "cli");
    assert_eq!(session["end_reason"], "agent_close");
    let got: Vec<Value> = session["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            json!({"role": m["role"], "content": m["content"], "tool_name": m["tool_name"],
                "tool_call_id": m["tool_call_id"],
                "calls": m["tool_calls"].as_array().map(|c| c.iter().map(|c| json!([c["id"], c["function"]["name"], c["function"]["arguments"]])).collect::<Vec<_>>())})
        })
        .collect();
    assert_eq!(
        got,
        [
            json!({"role": "user", "content": "run echo", "tool_name": null, "tool_call_id": null, "calls": null}),
            json!({"role": "assistant", "content": "", "tool_name": null, "tool_call_id": null,
                "calls": [["call_1", "terminal", "{\"command\": \"echo hi\"}"]]}),
            json!({"role": "tool", "content": "{\"output\": \"hi\", \"exit_code\": 0, \"error\": null}",
                "tool_name": "terminal", "tool_call_id": "call_1", "calls": null}),
            json!({"role": "assistant", "content": "Done", "tool_name": null, "tool_call_id": null, "calls": null}),
        ]
    );
    // And Python's list shows it.
    let listed = python_hermes(home.path(), &["sessions", "list"]);
    assert!(
        listed.contains(&sid[..15]) || listed.contains("run echo"),
        "{listed}"
    );
}

#[test]
fn we_resume_a_session_python_wrote() {
    let srv = server(vec![Reply::text("continued")]);
    let home = home_for(&srv, "");
    let script = r#"
import hermes_state, json
db = hermes_state.SessionDB()
sid = "20261130_090000_abcdef"
db.create_session(sid, source="cli", model="fake-model", system_prompt="You are a test.\nModel: fake-model\nProvider: custom")
db.append_message(sid, "user", content="What is 2+2?")
db.append_message(sid, "assistant", content="", tool_calls=[{"id": "call_9", "type": "function", "function": {"name": "terminal", "arguments": "{\"command\": \"echo 4\"}"}}])
db.append_message(sid, "tool", content="{\"output\": \"4\", \"exit_code\": 0, \"error\": null}", tool_name="terminal", tool_call_id="call_9")
db.append_message(sid, "assistant", content="4")
db.close()
print(sid)
"#;
    let out = Command::new(support::peer_python())
        .arg("-c")
        .arg(script)
        .env("HERMES_HOME", home.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sid = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let run = chat(home.path())
        .args(["--resume", &sid, "-z", "and 3+3?"])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&run.stdout),
        "continued\n",
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let body = &srv.bodies()[0];
    assert_eq!(
        body["messages"],
        json!([
            {"role": "system", "content": "You are a test.\nModel: fake-model\nProvider: custom"},
            {"role": "user", "content": "What is 2+2?"},
            {"role": "assistant", "content": "", "tool_calls": [{"id": "call_9", "type": "function",
                "function": {"name": "terminal", "arguments": "{\"command\":\"echo 4\"}"}}]},
            {"role": "tool", "name": "terminal", "content": "{\"output\": \"4\", \"exit_code\": 0, \"error\": null}", "tool_call_id": "call_9"},
            {"role": "assistant", "content": "4"},
            {"role": "user", "content": "and 3+3?"}
        ])
    );
    assert_eq!(
        rows(home.path(), "SELECT message_count FROM sessions"),
        [["6"]]
    );
}

#[test]
fn python_resumes_our_session_with_our_prompt_and_messages() {
    let srv = server(vec![
        Reply::tool_call("call_1", "terminal", "{\"command\": \"echo hi\"}"),
        Reply::text("Done"),
        Reply::text("from python"),
    ]);
    let home = home_for(&srv, "security:\n  tirith_enabled: false\n");
    chat(home.path())
        .args(["-z", "run echo"])
        .assert()
        .success();
    let sid = rows(home.path(), "SELECT id FROM sessions")[0][0].clone();
    let stored_prompt = rows(home.path(), "SELECT system_prompt FROM sessions")[0][0].clone();
    let hermes = support::peer_python().with_file_name("hermes");
    let out = Command::new(hermes)
        .args(["chat", "--resume", &sid, "-q", "and again", "-Q"])
        .env("HERMES_HOME", home.path())
        .env("TZ", "UTC")
        .current_dir(home.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Python's quiet mode also prints "↪ restored workspace dir: …" on stdout (quirk Q1).
    let printed = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(printed.lines().last(), Some("from python"), "{printed}");
    let body = srv.bodies().last().unwrap().clone();
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(
        messages[0]["content"].as_str().unwrap(),
        stored_prompt,
        "Python reused our stored prompt"
    );
    let shape: Vec<Value> = messages[1..]
        .iter()
        .map(|m| {
            json!([
                m["role"],
                m["content"],
                m.get("tool_call_id"),
                m.get("tool_calls")
                    .map(|c| c[0]["function"]["arguments"].clone())
            ])
        })
        .collect();
    assert_eq!(
        shape,
        [
            json!(["user", "run echo", null, null]),
            json!(["assistant", "", null, "{\"command\":\"echo hi\"}"]),
            json!([
                "tool",
                "{\"output\": \"hi\", \"exit_code\": 0, \"error\": null}",
                "call_1",
                null
            ]),
            json!(["assistant", "Done", null, null]),
            json!(["user", "and again", null, null]),
        ]
    );
    // Python appended to the same session.
    assert_eq!(rows(home.path(), "SELECT COUNT(*) FROM sessions"), [["1"]]);
    assert_eq!(
        rows(home.path(), "SELECT message_count FROM sessions"),
        [["6"]]
    );
}
