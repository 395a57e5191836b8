//! Test helpers for the skills area.

use std::path::Path;

use serde_json::Value as Json;

use super::TempHome;

/// Writes each `(relative path, text)` under the home.
pub fn tree(home: &TempHome, files: &[(&str, &str)]) {
    for (rel, text) in files {
        home.write(rel, text);
    }
}

/// A SKILL.md with a name, a description and a body.
pub fn skill_md(name: &str, description: &str) -> String {
    format!("---\nname: {name}\ndescription: {description}\n---\n# {name}\n\nUse it well.\n")
}

/// A config.yaml that turns the scan of agent writes off (for tests about something else).
pub const NO_SCAN: &str = "skills:\n  guard_agent_created: false\n";

/// Replaces every occurrence of the home path in strings with `$HOME`, so answers from two
/// homes compare equal.
pub fn normalize(value: &Json, home: &Path) -> Json {
    let home = home.display().to_string();
    match value {
        Json::String(s) => Json::String(s.replace(&home, "$HOME")),
        Json::Array(items) => Json::Array(
            items
                .iter()
                .map(|v| normalize(v, Path::new(&home)))
                .collect(),
        ),
        Json::Object(map) => Json::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), normalize(v, Path::new(&home))))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Runs `hermes-skills ARGS` and parses its stdout as JSON (`--format json` is added).
pub fn skills_json(home: &Path, args: &[&str]) -> (Json, i32) {
    let out = super::bin("hermes-skills", home)
        .args(args)
        .args(["--format", "json"])
        .output()
        .expect("run hermes-skills");
    let code = out.status.code().unwrap_or(-1);
    let value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "hermes-skills {args:?} printed no JSON ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (value, code)
}

/// Every file under `dir` (relative path → bytes), skipping the usage sidecar and its lock.
pub fn files_under(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e
                .path()
                .strip_prefix(dir)
                .expect("under dir")
                .display()
                .to_string();
            (rel, std::fs::read(e.path()).expect("read"))
        })
        .filter(|(rel, _)| !rel.starts_with(".usage.json"))
        .collect();
    out.sort();
    out
}
