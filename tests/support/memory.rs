//! Test helpers for the memory area: homes with budgets, running `hermes-memory apply` and
//! the Python memory tool on the same calls, reading the memory files byte for byte.

use std::path::Path;

use super::{TempHome, bin, peer, testdata};

/// A home whose config.yaml sets the two budgets.
pub fn home_with_limits(memory: i64, user: i64) -> TempHome {
    let home = TempHome::new();
    home.write(
        "config.yaml",
        format!("memory:\n  memory_char_limit: {memory}\n  user_char_limit: {user}\n"),
    );
    home
}

/// Writes MEMORY.md and/or USER.md as raw bytes.
pub fn write_files(home: &TempHome, memory: Option<&[u8]>, user: Option<&[u8]>) {
    if let Some(bytes) = memory {
        home.write("memories/MEMORY.md", bytes);
    }
    if let Some(bytes) = user {
        home.write("memories/USER.md", bytes);
    }
}

/// The two files as text (`None` when missing), the way the peer reports them.
pub fn files(home: &Path) -> serde_json::Value {
    let read = |name: &str| {
        std::fs::read(home.join("memories").join(name))
            .ok()
            .map(|b| String::from_utf8(b).expect("memory files are UTF-8"))
    };
    serde_json::json!({"memory": read("MEMORY.md"), "user": read("USER.md")})
}

/// Runs `hermes-memory apply` on JSONL tool calls; the result lines and the exit code.
pub fn apply_ours(home: &Path, jsonl: &str) -> (Vec<String>, i32) {
    let out = bin("hermes-memory", home)
        .args(["apply", "--format", "jsonl"])
        .write_stdin(jsonl.as_bytes().to_vec())
        .output()
        .expect("hermes-memory runs");
    let stdout = String::from_utf8(out.stdout).expect("UTF-8 output");
    let code = out.status.code().unwrap_or(-1);
    (stdout.lines().map(str::to_owned).collect(), code)
}

/// The same calls through Python's memory tool (one store, one turn): result strings and
/// the files afterwards.
pub fn apply_python(home: &Path, jsonl: &str) -> (Vec<String>, serde_json::Value) {
    let answer = peer(home, "memory-apply", &[], Some(jsonl.as_bytes()));
    let results = answer["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| r.as_str().expect("result string").to_owned())
        .collect();
    (results, answer["files"].clone())
}

/// Lines of a JSONL file under `testdata/memory/`, parsed.
pub fn testdata_jsonl(name: &str) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(testdata(&format!("memory/{name}"))).expect("testdata");
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("testdata line is JSON"))
        .collect()
}

/// One JSONL line per call.
pub fn to_jsonl(calls: &[serde_json::Value]) -> String {
    calls.iter().map(|c| format!("{c}\n")).collect()
}
