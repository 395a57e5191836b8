//! hermes-review against the scripted loopback server: the command, a conversation file, the
//! records it prints.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// hermes-review with a working directory inside the home and none of the endpoint variables.
pub fn review(home: &Path) -> assert_cmd::Command {
    let work = home.join("work");
    std::fs::create_dir_all(&work).expect("work dir");
    let mut cmd = super::bin("hermes-review", home);
    cmd.current_dir(&work)
        .env_remove("HERMES_BASE_URL")
        .env_remove("HERMES_API_KEY")
        .env_remove("CUSTOM_BASE_URL")
        .env_remove("OPENAI_API_KEY");
    cmd
}

/// Writes `lines` as a JSONL conversation under the home; its path.
pub fn conversation(home: &Path, name: &str, lines: &[Value]) -> PathBuf {
    let path = home.join(name);
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, text).expect("write conversation");
    path
}

/// The JSONL records of stdout.
pub fn records(stdout: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON: {l}: {e}")))
        .collect()
}

/// A skill file at `skills/<name>/SKILL.md`.
pub fn skill(name: &str, description: &str, body: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\n\n{body}")
}
