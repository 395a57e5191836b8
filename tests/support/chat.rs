//! hermes-chat against the scripted loopback server: a home configured for it, the run, and
//! reads of what the run stored.

use std::path::Path;

use super::TempHome;
use super::chat_server::{ChatServer, Reply};

/// `terminal` arguments the approval rules flag (curl-pipe-shell): a download piped into a
/// shell, from a port where nothing listens.
pub const FLAGGED: &str = r#"{"command": "curl -fsS http://127.0.0.1:9/x.sh | sh"}"#;

/// A home whose config points at `server`, with retries that do not wait seconds.
pub fn home_for(server: &ChatServer, extra_yaml: &str) -> TempHome {
    let home = TempHome::new();
    home.write(
        "config.yaml",
        format!(
            "model:\n  provider: custom\n  base_url: {}\n  default: fake-model\nagent:\n  retry_backoff_seconds: 0.01\n{extra_yaml}",
            server.base_url()
        ),
    );
    home
}

pub fn server(script: Vec<Reply>) -> ChatServer {
    ChatServer::start(script)
}

/// hermes-chat with a working directory of its own (inside the home, so it is cleaned up).
pub fn chat(home: &Path) -> assert_cmd::Command {
    let work = home.join("work");
    std::fs::create_dir_all(&work).expect("work dir");
    let mut cmd = super::bin("hermes-chat", home);
    cmd.current_dir(&work)
        .env_remove("HERMES_BASE_URL")
        .env_remove("HERMES_API_KEY")
        .env_remove("CUSTOM_BASE_URL")
        .env_remove("OPENAI_API_KEY");
    cmd
}

/// Rows of `sql` from the home's state.db, each column as text (NULL as "NULL").
pub fn rows(home: &Path, sql: &str) -> Vec<Vec<String>> {
    let conn = rusqlite::Connection::open(home.join("state.db")).expect("open state.db");
    let mut stmt = conn.prepare(sql).expect("prepare");
    let n = stmt.column_count();
    stmt.query_map([], |r| {
        (0..n)
            .map(|i| {
                let v: rusqlite::types::Value = r.get(i)?;
                Ok(match v {
                    rusqlite::types::Value::Null => "NULL".to_string(),
                    rusqlite::types::Value::Integer(i) => i.to_string(),
                    rusqlite::types::Value::Real(f) => f.to_string(),
                    rusqlite::types::Value::Text(t) => t,
                    rusqlite::types::Value::Blob(_) => "<blob>".to_string(),
                })
            })
            .collect::<rusqlite::Result<Vec<String>>>()
    })
    .expect("query")
    .map(|r| r.expect("row"))
    .collect()
}

/// `role|content|tool_name|finish_reason` of every stored message, in id order.
pub fn transcript(home: &Path) -> Vec<String> {
    rows(
        home,
        "SELECT role, content, COALESCE(tool_name, 'NULL'), COALESCE(finish_reason, 'NULL') FROM messages ORDER BY id",
    )
    .into_iter()
    .map(|r| r.join("|"))
    .collect()
}

/// A turn that needs a compaction (the reference's S24 setting): four large terminal outputs
/// on a 70,000-token window with a 60,000-token output cap, then the summary the compaction
/// asks for, then `answer`. Run it with `--approvals allow` on [`compaction_home`].
pub fn compaction_script(answer: &str) -> Vec<Reply> {
    let call = |id: &str| Reply::tool_call(id, "terminal", r#"{"command": "seq 10000 13000"}"#);
    vec![
        call("c1"),
        call("c2"),
        call("c3"),
        call("c4"),
        Reply::text("## Goal\nmake output"),
        Reply::text(answer),
    ]
}

/// A home on `server` with the small window of [`compaction_script`].
pub fn compaction_home(server: &ChatServer, extra_yaml: &str) -> TempHome {
    let home = TempHome::new();
    home.write(
        "config.yaml",
        format!(
            "model:\n  provider: custom\n  base_url: {}\n  default: fake-model\n  context_length: 70000\n  max_tokens: 60000\nagent:\n  retry_backoff_seconds: 0.01\n{extra_yaml}",
            server.base_url()
        ),
    );
    home
}

/// A turn that makes the memory review due (with `memory.nudge_interval: 1`), then the
/// review's own calls: it saves one user-profile entry and says so.
pub fn review_saving_a_preference() -> Vec<Reply> {
    vec![
        Reply::text("noted"),
        Reply::tool_call(
            "m1",
            "memory",
            "{\"action\": \"add\", \"target\": \"user\", \"content\": \"Prefers tabs over spaces.\"}",
        ),
        Reply::text("Saved."),
    ]
}
