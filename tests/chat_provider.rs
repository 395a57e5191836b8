//! External memory providers as programs (docs/memory-providers.md), with the sample provider
//! of pipelines/ and small misbehaving ones: prefetch into the API copy of the user message,
//! sync after the turn, the provider's tools, a tool-name collision, a hang and a crash.

mod support;

use serde_json::{Value, json};
use support::chat::{chat, home_for, rows, server};
use support::chat_server::Reply;

/// Points `home`'s config at `srv` with the memory provider `notes` run as `command`.
fn use_provider(home: &support::TempHome, srv: &support::chat_server::ChatServer, command: &str) {
    home.write(
        "config.yaml",
        format!(
            "model:\n  provider: custom\n  base_url: {}\n  default: fake-model\nagent:\n  retry_backoff_seconds: 0.01\nmemory:\n  provider: notes\n  providers:\n    notes:\n      command: {command}\n      timeout: 2\n",
            srv.base_url()
        ),
    );
}

fn sample(home: &support::TempHome) -> String {
    let script = support::repo_root().join("pipelines/memory-provider-notes.py");
    format!(
        "[python3, '{}', --file, '{}']",
        script.display(),
        home.path().join("notes.jsonl").display()
    )
}

fn notes(home: &support::TempHome) -> Vec<Value> {
    std::fs::read_to_string(home.path().join("notes.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn recalled_notes_go_to_the_api_copy_and_the_turn_is_synced() {
    let srv = server(vec![Reply::text("Tabs, as you prefer.")]);
    let home = home_for(&srv, "");
    use_provider(&home, &srv, &sample(&home));
    home.write(
        "notes.jsonl",
        "{\"kind\": \"tool\", \"text\": \"Indent with tabs, never spaces.\", \"at\": 1}\n",
    );
    let out = chat(home.path())
        .args(["-z", "How should I indent this file?"])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "Tabs, as you prefer.\n",
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let body = &srv.bodies()[0];
    let system = body["messages"][0]["content"].as_str().unwrap();
    assert!(
        system.contains("## Notes\nLong-term notes are recalled"),
        "the provider's block is in the prompt"
    );
    let sent = body["messages"][1]["content"].as_str().unwrap();
    assert_eq!(
        sent,
        format!(
            "How should I indent this file?\n\n<memory-context>\n{}\n\n- Indent with tabs, never spaces.\n</memory-context>",
            hermes_loop::agent::fence::SYSTEM_NOTE
        )
    );
    // Stored as typed, with the bytes sent beside it.
    let stored = rows(
        home.path(),
        "SELECT content, api_content FROM messages WHERE role = 'user'",
    );
    assert_eq!(stored[0][0], "How should I indent this file?");
    assert_eq!(stored[0][1], sent);
    let kept = notes(&home);
    assert_eq!(kept.last().unwrap()["kind"], "turn");
    assert_eq!(
        kept.last().unwrap()["text"],
        "User: How should I indent this file?\nAssistant: Tabs, as you prefer."
    );
    // The provider's tools are offered beside the core ones.
    let names: Vec<&str> = body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"notes_search") && names.contains(&"notes_add"),
        "{names:?}"
    );
}

#[test]
fn provider_tools_are_routed_and_memory_writes_mirrored() {
    let srv = server(vec![
        Reply::tool_calls(&[
            (
                "c1",
                "notes_add",
                "{\"text\": \"Deploys happen on Tuesdays.\"}",
            ),
            (
                "c2",
                "memory",
                "{\"action\": \"add\", \"target\": \"user\", \"content\": \"Prefers short answers.\"}",
            ),
        ]),
        Reply::text("Noted."),
    ]);
    let home = home_for(&srv, "");
    use_provider(&home, &srv, &sample(&home));
    chat(home.path())
        .args(["-z", "remember these"])
        .assert()
        .success();
    let results = &srv.bodies()[1]["messages"];
    assert_eq!(results[3]["content"], "{\"success\": true}");
    let kept = notes(&home);
    assert!(
        kept.iter()
            .any(|n| n["kind"] == "tool" && n["text"] == "Deploys happen on Tuesdays."),
        "{kept:?}"
    );
    let mirrored = kept
        .iter()
        .find(|n| n["kind"] == "memory_write")
        .expect("mirrored write");
    assert_eq!(mirrored["text"], "Prefers short answers.");
    assert_eq!(mirrored["target"], "user");
    assert_eq!(mirrored["origin"], "assistant_tool");
}

fn script(home: &support::TempHome, body: &str) -> String {
    let path = home.path().join("provider.py");
    std::fs::write(&path, body).unwrap();
    format!("[python3, '{}']", path.display())
}

const ANSWERING: &str = r#"
import json, sys, time
TOOLS = json.loads(sys.argv[1]) if len(sys.argv) > 1 else []
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m:
        continue
    method = m["method"]
    if method == "prefetch" and MODE == "hang":
        time.sleep(30)
    if method == "prefetch" and MODE == "crash":
        sys.exit(3)
    result = {"get_tool_schemas": {"tools": TOOLS_DECL}}.get(method, {})
    sys.stdout.write(json.dumps({"id": m["id"], "result": result}) + "\n")
    sys.stdout.flush()
"#;

fn misbehaving(home: &support::TempHome, mode: &str, tools: &str) -> String {
    let body = ANSWERING
        .replace("MODE", &format!("{mode:?}"))
        .replace("TOOLS_DECL", tools);
    script(home, &body)
}

#[test]
fn a_tool_named_like_a_core_tool_is_refused_at_registration() {
    let srv = server(vec![Reply::text("ok")]);
    let home = home_for(&srv, "");
    let tools = r#"[{"type": "function", "function": {"name": "memory", "description": "x", "parameters": {"type": "object"}}}, {"type": "function", "function": {"name": "recall_more", "description": "y", "parameters": {"type": "object"}}}]"#;
    let command = misbehaving(&home, "fine", tools);
    use_provider(&home, &srv, &command);
    let out = chat(home.path()).args(["-z", "hi"]).output().unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("memory provider notes: tool(s) memory refused (the names of core tools)"),
        "{err}"
    );
    let tools: Vec<Value> = srv.bodies()[0]["tools"].as_array().unwrap().clone();
    let memory_schemas = tools
        .iter()
        .filter(|t| t["function"]["name"] == "memory")
        .count();
    assert_eq!(memory_schemas, 1, "only the core memory tool");
    assert!(tools.iter().any(|t| t["function"]["name"] == "recall_more"));
}

#[test]
fn a_provider_that_hangs_is_dropped_after_its_timeout_and_the_turn_goes_on() {
    let srv = server(vec![
        Reply::text("answered anyway"),
        Reply::text("second turn"),
    ]);
    let home = home_for(&srv, "");
    let command = misbehaving(&home, "hang", "[]");
    use_provider(&home, &srv, &command);
    let out = chat(home.path()).args(["-z", "hi"]).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "answered anyway\n");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err.matches(
            "memory provider notes did not answer prefetch within 2 s; going on without it"
        )
        .count(),
        1,
        "{err}"
    );
    assert_eq!(
        srv.bodies()[0]["messages"][1],
        json!({"role": "user", "content": "hi"})
    );
}

#[test]
fn a_provider_that_crashes_is_dropped_once() {
    let srv = server(vec![Reply::text("still here")]);
    let home = home_for(&srv, "");
    let command = misbehaving(&home, "crash", "[]");
    use_provider(&home, &srv, &command);
    let out = chat(home.path()).args(["-z", "hi"]).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "still here\n");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.matches("memory provider notes").count(), 1, "{err}");
    assert!(err.contains("going on without it"), "{err}");
}

#[test]
fn recalled_context_echoed_by_the_model_is_never_shown() {
    let echo = "Sure.\n<memory-context>\nsecret recalled note\n</memory-context>\nUse tabs.";
    let srv = server(vec![Reply::text(echo)]);
    let home = home_for(&srv, "");
    let out = chat(home.path()).args(["-z", "hi"]).output().unwrap();
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(!shown.contains("secret recalled note"), "{shown}");
    assert_eq!(shown, "Sure.\n\nUse tabs.\n");
}

/// hermes-review mirrors its memory writes to the provider with a background-review
/// provenance; it never offers the provider's tools nor recalls into its own conversation.
#[test]
fn the_reviews_memory_writes_are_mirrored_with_their_provenance() {
    let srv = server(vec![
        Reply::tool_call(
            "m1",
            "memory",
            "{\"action\": \"add\", \"target\": \"user\", \"content\": \"Prefers tabs.\"}",
        ),
        Reply::text("Saved."),
    ]);
    let home = home_for(&srv, "");
    use_provider(&home, &srv, &sample(&home));
    let input = home.write(
        "conv.jsonl",
        "{\"role\": \"user\", \"content\": \"Use tabs, always.\"}\n{\"role\": \"assistant\", \"content\": \"Done with tabs.\"}\n",
    );
    let out = support::bin("hermes-review", home.path())
        .args(["--memory"])
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let kept = notes(&home);
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert_eq!(kept[0]["kind"], "memory_write");
    assert_eq!(kept[0]["text"], "Prefers tabs.");
    assert_eq!(kept[0]["origin"], "background_review");
    let body = &srv.bodies()[0];
    let names: Vec<&str> = body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert!(!names.contains(&"notes_search"), "{names:?}");
    assert!(!body.to_string().contains("<memory-context>"));
}

/// `--quiet` silences the notices of a start-up too, not only those of a turn.
#[test]
fn a_quiet_run_prints_no_provider_notice() {
    let srv = server(vec![Reply::text("ok")]);
    let home = home_for(&srv, "");
    let tools = r#"[{"type": "function", "function": {"name": "memory", "description": "x", "parameters": {"type": "object"}}}]"#;
    let command = misbehaving(&home, "fine", tools);
    use_provider(&home, &srv, &command);
    let out = chat(home.path())
        .args(["--quiet", "-z", "hi"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "ok\n");
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}
