//! Every SKILL.md of the public corpus parsed by Python Hermes's `parse_frontmatter` and
//! `_read_skill_name` and by ours: same fields, same body, same identity name.

mod support;

use hermes_loop::skills::{discover, frontmatter};
use support::{TempHome, corpus, peer};

#[test]
fn public_corpus_frontmatter_reads_the_same() {
    let (corpus, full) = corpus();
    let found = discover::skill_files(&corpus);
    let expected = if full { 1400 } else { 25 };
    assert!(
        found.files.len() >= expected,
        "corpus has {} skills",
        found.files.len()
    );
    let paths: Vec<String> = found
        .files
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    let home = TempHome::new();
    let input = serde_json::to_vec(&paths).expect("encode");
    let theirs = peer(home.path(), "frontmatter-many", &[], Some(&input));
    let theirs = theirs.as_array().expect("one answer per file");
    assert_eq!(theirs.len(), paths.len());
    let mut failures = Vec::new();
    for (path, theirs) in found.files.iter().zip(theirs) {
        let Ok(text) = std::fs::read_to_string(path) else {
            assert_eq!(theirs["error"], "not utf-8", "{}", path.display());
            continue;
        };
        let parsed = frontmatter::parse(&text);
        let dir = path
            .parent()
            .and_then(|p| p.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let ours = serde_json::json!({
            "fields": hermes_loop::yaml::Value::Map(parsed.fields.clone()).to_json(),
            "body": parsed.body,
            "identity": frontmatter::identity_name(&text, &dir),
        });
        if ours != *theirs {
            failures.push(format!(
                "{}\n   ours:   {}\n   python: {}",
                path.display(),
                ours["fields"],
                theirs["fields"]
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} differ:\n{}",
        failures.len(),
        paths.len(),
        failures.join("\n")
    );
}
