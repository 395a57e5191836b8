//! Test helpers for the guard area: skill folders on a temp home, runs of the scanner with
//! temp paths replaced so outputs compare exactly.

use std::path::Path;

use super::TempHome;

/// Writes a skill folder `skills/<name>/` with the given files (`(relative path, text)`).
pub fn skill(home: &TempHome, name: &str, files: &[(&str, &str)]) -> std::path::PathBuf {
    for (rel, text) in files {
        home.write(&format!("skills/{name}/{rel}"), text);
    }
    home.path().join("skills").join(name)
}

/// The scanner on `home` with `args`.
pub fn scan(home: &Path, args: &[&str]) -> assert_cmd::assert::Assert {
    super::bin("hermes-skill-scan", home).args(args).assert()
}

/// Stdout of a run as text, the home's path replaced by `$HOME` and timings zeroed.
pub fn stdout(home: &Path, output: &std::process::Output) -> String {
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    normalise(home, &text)
}

pub fn stderr(home: &Path, output: &std::process::Output) -> String {
    let text = String::from_utf8_lossy(&output.stderr).into_owned();
    normalise(home, &text)
}

pub fn normalise(home: &Path, text: &str) -> String {
    let home = home.display().to_string();
    let text = text.replace(&home, "$HOME");
    let seconds = regex::Regex::new(r#""seconds":\s?[0-9.e-]+"#).expect("regex");
    let text = seconds.replace_all(&text, "\"seconds\":0").into_owned();
    let text_seconds = regex::Regex::new(r"in [0-9.]+ s").expect("regex");
    text_seconds.replace_all(&text, "in 0.00 s").into_owned()
}

/// Parses JSONL output.
pub fn records(text: &str) -> Vec<serde_json::Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad JSONL {l:?}: {e}")))
        .collect()
}
