//! Our YAML loader against PyYAML's CSafeLoader (what Hermes parses config.yaml and SKILL.md
//! frontmatter with): the same values, and the same errors, for a set of tricky documents.

mod support;

use support::{TempHome, peer, testdata};

fn ours(text: &str) -> serde_json::Value {
    match hermes_loop::yaml::load(text, "<unicode string>") {
        Ok(value) => serde_json::json!({ "ok": value.to_json() }),
        Err(err) => serde_json::json!({ "error": err.to_string() }),
    }
}

#[test]
fn tricky_documents_load_as_pyyaml_loads_them() {
    let cases: Vec<String> =
        serde_json::from_slice(&std::fs::read(testdata("yaml/cases.json")).expect("cases"))
            .expect("cases are a JSON list");
    let home = TempHome::new();
    let input = serde_json::to_vec(&cases).expect("encode");
    let theirs = peer(home.path(), "yaml-many", &[], Some(&input));
    let theirs = theirs.as_array().expect("one answer per case");
    assert_eq!(theirs.len(), cases.len());
    let mut failures = Vec::new();
    for (case, theirs) in cases.iter().zip(theirs) {
        let ours = ours(case);
        let same = match (ours.get("error"), theirs.get("error")) {
            // Errors: both must refuse; messages are compared where PyYAML's come from libyaml
            // (same parser), not for constructor-level errors worded by Python itself.
            (Some(a), Some(b)) => {
                a == b
                    || !b
                        .as_str()
                        .is_some_and(|s| s.contains("\n  in \"<unicode string>\""))
            }
            _ => ours == *theirs,
        };
        if !same {
            failures.push(format!("{case:?}\n   ours:   {ours}\n   python: {theirs}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
