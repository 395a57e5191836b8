//! The skills guard next to Python Hermes's Skills Guard: the same `.skillignore` matching,
//! trust resolution and install decisions, and the upstream bugs we fix pinned on both
//! sides.

mod support;

use std::fs;

use hermes_loop::guard::ignore::Ignore;
use hermes_loop::guard::policy::{Trust, Verdict, decide};
use support::{TempHome, peer, testdata};

#[test]
fn skillignore_matches_like_hermes() {
    let ignore = "# dev\n\ndocs/\n/build\n*.log\nnotes-*.md\n[abc]*.txt\n/release-notes.md\nSKILL.md\nsub/deep/\n*\\x\n";
    let paths = [
        "docs/plans/x.md",
        "sub/docs/x.md",
        "docs",
        "build",
        "build/out.txt",
        "sub/build",
        "a.log",
        "deep/nested/a.log",
        "references/notes-1.md",
        "notes-1.md/inner.md",
        "a.txt",
        "d.txt",
        "x/b.txt",
        "release-notes.md",
        "sub/release-notes.md",
        "SKILL.md",
        "sub/SKILL.md",
        ".skillignore",
        "x/.clawhubignore",
        "sub/deep/file.md",
        "other/sub/deep/file.md",
        "scripts/run.sh",
        "[abc]/z",
    ];
    let home = TempHome::new();
    let input = serde_json::json!({ "ignore": ignore, "paths": paths });
    let theirs = peer(
        home.path(),
        "guard-ignore",
        &[],
        Some(input.to_string().as_bytes()),
    );
    let ours = Ignore::parse(ignore);
    for (path, theirs) in paths.iter().zip(theirs.as_array().expect("answers")) {
        assert_eq!(
            ours.ignores(path),
            theirs.as_bool().expect("bool"),
            "{path}"
        );
    }
}

#[test]
fn trust_levels_match_except_repository_case() {
    let sources = [
        "openai/skills",
        "openai/skills/pdf",
        "openai/skills-evil/x",
        "anthropics/skills",
        "huggingface/skills/a/b",
        "NVIDIA/skills/x",
        "skills-sh/anthropics/skills/pdf",
        "skills.sh/openai/skills",
        "skils-sh/huggingface/skills",
        "official",
        "official/x",
        "agent-created",
        "skills-sh/agent-created",
        "github:someone/repo",
        "",
    ];
    let home = TempHome::new();
    let input = serde_json::to_vec(&sources).expect("json");
    let theirs = peer(home.path(), "guard-trust", &[], Some(&input));
    for (source, theirs) in sources.iter().zip(theirs.as_array().expect("answers")) {
        assert_eq!(Trust::from_source(source).as_str(), theirs, "{source}");
    }
    // The one deliberate difference: GitHub repository names are case-insensitive.
    let theirs = peer(
        home.path(),
        "guard-trust",
        &[],
        Some(br#"["nvidia/skills/x"]"#),
    );
    assert_eq!(theirs[0], "community");
    assert_eq!(Trust::from_source("nvidia/skills/x"), Trust::Trusted);
}

#[test]
fn install_decisions_match_word_for_word() {
    let home = TempHome::new();
    let theirs = peer(home.path(), "guard-decide", &[], None);
    let mut checked = 0;
    for case in theirs.as_array().expect("cases") {
        let trust = match case["trust"].as_str().expect("trust") {
            "builtin" => Trust::Builtin,
            "trusted" => Trust::Trusted,
            "community" => Trust::Community,
            _ => Trust::AgentCreated,
        };
        let verdict = match case["verdict"].as_str().expect("verdict") {
            "safe" => Verdict::Safe,
            "caution" => Verdict::Caution,
            _ => Verdict::Dangerous,
        };
        let force = case["force"].as_bool().expect("force");
        let (allowed, reason) = decide(trust, verdict, 2, force);
        assert_eq!(serde_json::json!(allowed), case["allowed"], "{case}");
        assert_eq!(reason, case["reason"].as_str().expect("reason"), "{case}");
        checked += 1;
    }
    assert_eq!(checked, 24);
}

#[test]
fn a_symlink_loop_crashes_hermes_and_is_a_finding_here() {
    let home = TempHome::new();
    let skill = home.path().join("looping");
    fs::create_dir_all(&skill).expect("mkdir");
    fs::write(
        skill.join("SKILL.md"),
        "---\nname: looping\ndescription: d\n---\nbody\n",
    )
    .expect("write");
    std::os::unix::fs::symlink("b", skill.join("a")).expect("symlink");
    std::os::unix::fs::symlink("a", skill.join("b")).expect("symlink");
    let theirs = peer(
        home.path(),
        "guard-scan",
        &[skill.to_str().expect("utf-8")],
        None,
    );
    assert_eq!(theirs[0]["error"], "RuntimeError");
    let ours = hermes_loop::guard::scan_skill(&skill, &Default::default());
    let rules: Vec<_> = ours
        .findings
        .iter()
        .map(|f| (f.rule, f.file.as_str()))
        .collect();
    assert_eq!(rules, vec![("symlink-loop", "a"), ("symlink-loop", "b")]);
}

#[test]
fn a_leading_bom_is_high_for_hermes_and_nothing_here() {
    let home = TempHome::new();
    let skill = home.path().join("bom");
    fs::create_dir_all(&skill).expect("mkdir");
    fs::write(
        skill.join("SKILL.md"),
        "\u{feff}---\nname: bom\ndescription: Saved by an editor that writes a BOM.\n---\nHello.\n",
    )
    .expect("write");
    let theirs = peer(
        home.path(),
        "guard-scan",
        &[skill.to_str().expect("utf-8")],
        None,
    );
    assert_eq!(theirs[0]["verdict"], "caution");
    assert_eq!(theirs[0]["findings"][0]["id"], "invisible_unicode");
    let ours = hermes_loop::guard::scan_skill(&skill, &Default::default());
    assert!(ours.findings.is_empty());
    assert_eq!(ours.verdict, Verdict::Safe);
}

#[test]
fn every_malicious_sample_is_at_least_as_severe_here() {
    // Hermes must never call a labelled sample worse than we do in its own category; the
    // benchmark reports the full comparison.
    let labels: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(testdata("guard/labels.json")).expect("labels"))
            .expect("json");
    let samples: Vec<String> = labels
        .as_array()
        .expect("list")
        .iter()
        .filter(|l| {
            l["sample"]
                .as_str()
                .is_some_and(|s| s.starts_with("malicious/"))
        })
        .map(|l| {
            testdata(&format!("guard/{}", l["sample"].as_str().expect("sample")))
                .display()
                .to_string()
        })
        .collect();
    let args: Vec<&str> = samples.iter().map(String::as_str).collect();
    let home = TempHome::new();
    let theirs = peer(home.path(), "guard-scan", &args, None);
    let rank = |v: &str| {
        ["safe", "caution", "dangerous"]
            .iter()
            .position(|x| *x == v)
    };
    for (path, theirs) in samples.iter().zip(theirs.as_array().expect("answers")) {
        let ours = hermes_loop::guard::scan_skill(std::path::Path::new(path), &Default::default());
        // A crash in Hermes's scanner is a failure here, never a "safe" to compare against.
        let Some(theirs) = theirs["verdict"].as_str() else {
            panic!("{path}: Hermes gave no verdict: {theirs}");
        };
        assert!(
            rank(ours.verdict.as_str()) >= rank(theirs),
            "{path}: ours {} < hermes {theirs}",
            ours.verdict
        );
    }
}

#[test]
fn the_linter_and_the_loader_agree_on_what_hermes_lists() {
    // The linter's claims about what skills_list does, checked against skills_list.
    let home = TempHome::new();
    let long = format!(
        "---\nname: long-front\ndescription: d\nnotes: {}\n---\nFirst line of the body.\n",
        "x".repeat(4100)
    );
    let skills: [(&str, String); 6] = [
        (
            "good",
            "---\nname: good\ndescription: Works.\n---\nbody\n".into(),
        ),
        (
            "yes-desc",
            "---\nname: yes-desc\ndescription: yes\n---\nbody\n".into(),
        ),
        (
            "no-desc",
            "---\nname: no-desc\ndescription: no\n---\nFallback line.\n".into(),
        ),
        (
            "year-name",
            "---\nname: 2024\ndescription: d\n---\nbody\n".into(),
        ),
        (
            "date-desc",
            "---\nname: date-desc\ndescription: 2024-01-01\n---\nbody\n".into(),
        ),
        ("long-front", long),
    ];
    for (dir, text) in &skills {
        home.write(&format!("skills/{dir}/SKILL.md"), text);
    }
    let listed = peer(home.path(), "skills-listed", &[], None);
    let listed: Vec<(String, String)> = listed
        .as_array()
        .expect("list")
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap_or("").to_string(),
                s["description"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    let lint = |dir: &str| -> Vec<(&'static str, String)> {
        hermes_loop::skills::lint::lint_skill(
            &home.path().join("skills").join(dir),
            hermes_loop::skills::lint::Profile::Hermes,
        )
        .into_iter()
        .map(|i| (i.rule, i.message))
        .collect()
    };
    let find = |name: &str| {
        listed
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, d)| d.clone())
    };
    assert_eq!(find("good").as_deref(), Some("Works."));
    assert!(lint("good").is_empty());
    // Dropped by Hermes, and the linter says so.
    for dir in ["yes-desc", "date-desc"] {
        assert_eq!(find(dir), None, "{dir} is listed");
        assert!(
            lint(dir)
                .iter()
                .any(|(rule, message)| *rule == "description-not-string"
                    && message
                        .ends_with("Hermes drops the skill from skills_list (it has no length)")),
            "{dir}: {:?}",
            lint(dir)
        );
    }
    assert!(!listed.iter().any(|(n, _)| n == "2024" || n == "year-name"));
    assert!(
        lint("year-name")
            .iter()
            .any(|(rule, message)| *rule == "name-not-string"
                && message.ends_with("Hermes drops the skill from skills_list"))
    );
    // Listed with the body's first line instead.
    assert_eq!(find("no-desc").as_deref(), Some("Fallback line."));
    assert!(
        lint("no-desc")
            .iter()
            .any(|(rule, message)| *rule == "description-not-string"
                && message.ends_with("Hermes lists the skill with its first body line instead"))
    );
    // Past the 4,000-character window the frontmatter is not seen at all.
    assert_eq!(find("long-front").as_deref(), Some("---"));
    assert!(
        lint("long-front")
            .iter()
            .any(|(rule, _)| *rule == "frontmatter-past-list-window")
    );
}
