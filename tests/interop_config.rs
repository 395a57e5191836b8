//! The same config.yaml files read by Python Hermes's config code and by ours: every key we
//! read must have the same value.

mod support;

use hermes_loop::home::{Config, Home};
use support::{TempHome, json_diff, peer, testdata};

fn our_view(home: &Home) -> serde_json::Value {
    let config = Config::load(home).expect("our loader reads it");
    let mut view = serde_json::to_value(&config).expect("serialises");
    let skills = view["skills"].as_object_mut().expect("skills section");
    skills.remove("guard_agent_created_set");
    let dirs: Vec<String> = config
        .skills
        .external_dir_paths(home)
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    skills.insert("external_dirs".into(), serde_json::json!(dirs));
    // Python answers per platform with the union of the global and platform lists.
    let unions: serde_json::Map<String, serde_json::Value> = config
        .skills
        .platform_disabled
        .keys()
        .map(|p| {
            (
                p.clone(),
                serde_json::json!(config.skills.disabled_for(Some(p))),
            )
        })
        .collect();
    skills.insert(
        "platform_disabled".into(),
        serde_json::Value::Object(unions),
    );
    view
}

#[test]
fn every_config_in_testdata_reads_the_same_in_python_and_rust() {
    let dir = testdata("config");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("testdata/config")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 10,
        "expected at least 10 configs, found {}",
        files.len()
    );
    let mut failures = Vec::new();
    for file in &files {
        let temp = TempHome::new();
        std::fs::copy(file, temp.path().join("config.yaml")).expect("copy config");
        std::fs::create_dir_all(temp.path().join("ext-skills")).expect("external dir");
        // Canonical home path: Python resolves external dirs through symlinks (/tmp on macOS).
        let home = Home::at(temp.path().canonicalize().expect("canonical"));
        let ours = our_view(&home);
        let theirs = peer(home.root(), "config", &[], None);
        for diff in json_diff(&ours, &theirs) {
            failures.push(format!(
                "{}: {diff}",
                file.file_name().unwrap_or_default().to_string_lossy()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "config values differ:\n{}",
        failures.join("\n")
    );
}

#[test]
fn broken_config_is_our_error_where_python_falls_back_to_defaults() {
    let temp = TempHome::new();
    temp.write(
        "config.yaml",
        "curator:\n  enabled: false\n  interval_hours: [24\n",
    );
    let err = Config::load(&Home::at(temp.path())).expect_err("we refuse it");
    let message = err.to_string();
    assert!(message.contains("config.yaml:4:1"), "{message}");
    // Python warns and carries on with every default, curator enabled included.
    let theirs = peer(temp.path(), "config", &[], None);
    assert_eq!(theirs["curator"]["enabled"], serde_json::json!(true));
}
