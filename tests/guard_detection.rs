//! Detection quality: every labelled sample of `testdata/guard` gets its verdict and rules,
//! and the real-world corpus (all benign) gets no dangerous verdict.

mod support;

use std::collections::BTreeMap;

use support::guard::{records, scan, stdout};
use support::{TempHome, testdata};

fn rank(severity: &str) -> usize {
    ["low", "medium", "high", "critical"]
        .iter()
        .position(|s| *s == severity)
        .unwrap_or(0)
}

#[test]
fn labelled_samples_get_their_verdicts_and_rules() {
    let labels: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(testdata("guard/labels.json")).expect("labels"),
    )
    .expect("json");
    let home = TempHome::new();
    let malicious = testdata("guard/malicious");
    let benign = testdata("guard/benign");
    let out = scan(
        home.path(),
        &[
            malicious.to_str().expect("utf-8"),
            benign.to_str().expect("utf-8"),
            "--format",
            "jsonl",
            "--fail-on",
            "never",
        ],
    )
    .code(0)
    .get_output()
    .clone();
    let recs = records(&stdout(home.path(), &out));
    let mut verdicts = BTreeMap::new();
    let mut findings: BTreeMap<String, Vec<&serde_json::Value>> = BTreeMap::new();
    let base = testdata("guard").display().to_string() + "/";
    for rec in &recs {
        let Some(path) = rec["path"].as_str() else {
            continue;
        };
        let sample = path.trim_start_matches(&base).to_string();
        match rec["type"].as_str() {
            Some("finding") => findings.entry(sample).or_default().push(rec),
            Some("skill") => {
                verdicts.insert(sample, rec["verdict"].as_str().unwrap_or("").to_string());
            }
            _ => {}
        }
    }
    let mut failures = Vec::new();
    for label in labels.as_array().expect("labels") {
        let sample = label["sample"].as_str().expect("sample");
        let want = label["verdict"].as_str().expect("verdict");
        let got = verdicts
            .get(sample)
            .map(String::as_str)
            .unwrap_or("missing");
        if got != want {
            failures.push(format!("{sample}: verdict {got}, expected {want}"));
        }
        let found = findings.get(sample).cloned().unwrap_or_default();
        for rule in label["rules"].as_array().expect("rules") {
            if !found.iter().any(|f| f["rule"] == *rule) {
                failures.push(format!("{sample}: no {rule} finding"));
            }
        }
        let category = label["category"].as_str().expect("category");
        if category != "none" {
            let want = rank(label["severity"].as_str().expect("severity"));
            let at = found.iter().any(|f| {
                f["category"] == category && rank(f["severity"].as_str().unwrap_or("")) >= want
            });
            if !at {
                failures.push(format!("{sample}: nothing in {category} at its severity"));
            }
        }
    }
    assert_eq!(verdicts.len(), labels.as_array().map_or(0, Vec::len));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_public_corpus_has_no_dangerous_skill() {
    let (corpus, full) = support::corpus();
    let home = TempHome::new();
    let out = scan(
        home.path(),
        &[corpus.to_str().expect("utf-8"), "--format", "jsonl"],
    )
    .code(0)
    .get_output()
    .clone();
    let recs = records(&stdout(home.path(), &out));
    let summary = recs.last().expect("summary");
    assert_eq!(summary["type"], "summary");
    assert_eq!(summary["dangerous"], 0, "{summary}");
    let skills = summary["skills"].as_u64().unwrap_or(0);
    let caution = summary["caution"].as_u64().unwrap_or(u64::MAX);
    assert!(skills >= if full { 1400 } else { 25 }, "{summary}");
    assert!(caution * 100 <= skills, "more than 1% caution: {summary}");
}
