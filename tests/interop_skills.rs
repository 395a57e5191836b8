//! hermes-skills and Python Hermes on one home: the same skills listed, the same answers to
//! skill_view and skill_manage, the same system-prompt index, the same usage sidecar bytes,
//! and exact counters when both bump at once.

mod support;

use std::path::Path;

use serde_json::{Value as Json, json};
use support::skills::{NO_SCAN, files_under, normalize, skill_md, skills_json, tree};
use support::{TempHome, bin, json_diff, peer};

/// A home exercising discovery: categories, nesting, external dirs and their precedence,
/// disabled, platform- and environment-gated skills, broken frontmatter, excluded folders.
fn discovery_home() -> TempHome {
    let home = TempHome::new();
    let long_frontmatter = format!(
        "---\nname: long-front\ndescription: Long.\nnotes: \"{}\"\n---\nbody\n",
        "n".repeat(4100)
    );
    tree(
        &home,
        &[
            (
                "config.yaml",
                "skills:\n  guard_agent_created: false\n  disabled: [disabled-one]\n  external_dirs: [ext, missing-dir]\n",
            ),
            (
                "skills/dev/DESCRIPTION.md",
                "---\ndescription: Developer tools\n---\n",
            ),
            (
                "skills/dev/git-helper/SKILL.md",
                &skill_md("git-helper", "Git, the easy way."),
            ),
            ("skills/dev/git-helper/references/cheats.md", "# Cheats\n"),
            ("skills/dev/git-helper/scripts/run.sh", "echo hi\n"),
            ("skills/dev/git-helper/assets/logo.txt", "logo\n"),
            ("skills/dev/git-helper/templates/t.yaml", "a: 1\n"),
            ("skills/flat/SKILL.md", &skill_md("flat", "A flat skill.")),
            (
                "skills/mac-only/SKILL.md",
                "---\nname: mac-only\ndescription: Mac.\nplatforms: [macos]\n---\nbody\n",
            ),
            (
                "skills/linux-ok/SKILL.md",
                "---\nname: linux-ok\ndescription: Linux or Windows.\nplatforms: [linux, windows]\n---\nbody\n",
            ),
            (
                "skills/kanban-only/SKILL.md",
                "---\nname: kanban-only\ndescription: Kanban.\nenvironments: [kanban]\n---\nbody\n",
            ),
            (
                "skills/mars-env/SKILL.md",
                "---\nname: mars-env\ndescription: Unknown env tag.\nenvironments: [mars]\n---\nbody\n",
            ),
            (
                "skills/disabled-one/SKILL.md",
                &skill_md("disabled-one", "Off."),
            ),
            (
                "skills/cat/deep/nested/SKILL.md",
                &skill_md("nested", "Deeply nested."),
            ),
            (
                "skills/no-front/SKILL.md",
                "# Title\n\nFirst real line.\nSecond.\n",
            ),
            (
                "skills/bool-desc/SKILL.md",
                "---\nname: bool-desc\ndescription: yes\n---\nbody\n",
            ),
            (
                "skills/int-name/SKILL.md",
                "---\nname: 42\ndescription: Int name.\n---\nbody\n",
            ),
            ("skills/long-front/SKILL.md", &long_frontmatter),
            (
                "skills/bad-yaml/SKILL.md",
                "---\nname: bad-yaml\ndescription: Colon: inside: here\n  - broken\n---\nbody\n",
            ),
            (
                "skills/.archive/old/SKILL.md",
                &skill_md("old", "Archived."),
            ),
            (
                "skills/flat/references/inner/SKILL.md",
                &skill_md("inner", "Support data."),
            ),
            (
                "skills/legacy.md",
                "---\nname: legacy\n---\nA legacy flat skill.\n",
            ),
            (
                "ext/shared/SKILL.md",
                &skill_md("flat", "External flat (shadowed)."),
            ),
            (
                "ext/extcat/ext-skill/SKILL.md",
                &skill_md("ext-skill", "From outside."),
            ),
            (
                "ext/extcat/DESCRIPTION.md",
                "---\ndescription: 'External category'\n---\n",
            ),
            (
                "ext/mac-twin/SKILL.md",
                &skill_md("mac-only", "The portable twin."),
            ),
        ],
    );
    home.write(
        "skills/nonutf8/SKILL.md",
        b"---\nname: nonutf8\n---\n\xff\xfe\n",
    );
    home
}

fn our_list(home: &Path, extra: &[&str]) -> Vec<Json> {
    let mut args = vec!["list"];
    args.extend_from_slice(extra);
    let (rows, code) = skills_json(home, &args);
    assert_eq!(code, 0);
    rows.as_array()
        .expect("rows")
        .iter()
        .map(|r| json!({"name": r["name"], "description": r["description"], "category": r["category"]}))
        .collect()
}

#[test]
fn list_agrees_with_python_skills_list() {
    let home = discovery_home();
    let theirs = peer(home.path(), "skills-list", &[], None);
    let ours = our_list(home.path(), &[]);
    assert_eq!(
        Json::Array(ours.clone()),
        theirs["skills"],
        "{:#?}",
        json_diff(&Json::Array(ours), &theirs["skills"])
    );
    let names: Vec<&str> = theirs["skills"]
        .as_array()
        .expect("skills")
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    // The fixture means something: hidden ones are hidden, the external twin stands in.
    assert!(names.contains(&"ext-skill") && names.contains(&"mars-env"));
    assert!(!names.contains(&"disabled-one") && !names.contains(&"kanban-only"));
    assert_eq!(names.iter().filter(|n| **n == "mac-only").count(), 1);

    let theirs = peer(home.path(), "skills-list", &["dev"], None);
    let ours = our_list(home.path(), &["--category", "dev"]);
    assert_eq!(Json::Array(ours), theirs["skills"]);

    // The library's answer for the agent's `skills_list` tool, whole.
    use hermes_loop::skills::{library::Library, list};
    let lib = Library::open(hermes_loop::home::Home::at(home.path())).expect("library");
    for category in [None, Some("dev")] {
        let ours = list::skills_list_tool(&lib, category);
        let theirs = peer(home.path(), "skills-list", category.as_slice(), None);
        assert_eq!(ours, theirs, "{:#?}", json_diff(&ours, &theirs));
    }
    let empty = TempHome::new();
    let lib = Library::open(hermes_loop::home::Home::at(empty.path())).expect("library");
    let ours = list::skills_list_tool(&lib, None);
    assert!(empty.path().join("skills").is_dir());
    std::fs::remove_dir(empty.path().join("skills")).expect("rmdir");
    let theirs = peer(empty.path(), "skills-list", &[], None);
    assert_eq!(ours, theirs);
}

#[test]
fn list_all_explains_every_hidden_skill() {
    let home = discovery_home();
    let (rows, _) = skills_json(home.path(), &["list", "--all"]);
    let hidden: Vec<(String, String)> = rows
        .as_array()
        .expect("rows")
        .iter()
        .filter(|r| !r["hidden"].is_null())
        .map(|r| {
            (
                r["name"].as_str().expect("name").to_string(),
                r["hidden"].as_str().expect("code").to_string(),
            )
        })
        .collect();
    let mut hidden = hidden;
    hidden.sort();
    assert_eq!(
        hidden,
        vec![
            ("bool-desc".to_string(), "invalid".to_string()),
            ("disabled-one".into(), "disabled".into()),
            ("flat".into(), "shadowed".into()),
            ("int-name".into(), "invalid".into()),
            ("kanban-only".into(), "environment".into()),
            ("mac-only".into(), "platform".into()),
            ("nonutf8".into(), "unreadable".into()),
        ]
    );
    let warned: Vec<(&str, &str)> = rows
        .as_array()
        .expect("rows")
        .iter()
        .filter(|r| r["hidden"].is_null() && !r["reason"].is_null())
        .map(|r| {
            (
                r["name"].as_str().expect("name"),
                r["reason"].as_str().expect("reason"),
            )
        })
        .collect();
    assert_eq!(
        warned,
        vec![
            (
                "bad-yaml",
                "frontmatter is not valid YAML (mapping values are not allowed in this context); Hermes reads its `key: value` lines one by one"
            ),
            (
                "long-front",
                "frontmatter runs past the first 4000 characters, the part Hermes lists from; it is listed under its folder name with no description from it"
            ),
        ]
    );
}

#[test]
fn view_agrees_with_python_skill_view() {
    let home = discovery_home();
    let cases: Vec<(&str, Option<&str>)> = vec![
        ("git-helper", None),
        ("dev/git-helper", None),
        ("ext-skill", None),
        ("flat", None),
        ("mac-only", None),
        ("linux-ok", None),
        ("no-front", None),
        ("legacy", None),
        ("disabled-one", None),
        ("nonutf8", None),
        ("does-not-exist", None),
        ("../etc", None),
        ("/etc/passwd", None),
        ("C:\\skills", None),
        ("dev:git-helper", None),
        ("bad ns:x", None),
        ("git-helper", Some("references/cheats.md")),
        ("git-helper", Some("references/missing.md")),
        ("git-helper", Some("../../config.yaml")),
        ("git-helper", Some("/etc/hostname")),
    ];
    let input = serde_json::to_vec(&cases).expect("encode");
    let theirs = peer(home.path(), "skill-view-many", &[], Some(&input));
    for ((name, file), theirs) in cases.iter().zip(theirs.as_array().expect("answers")) {
        let mut args = vec!["view", name];
        if let Some(f) = file {
            args.push(f);
        }
        args.push("--no-count");
        let (ours, _) = skills_json(home.path(), &args);
        assert_eq!(
            &ours,
            theirs,
            "view {name} {file:?}: {:#?}",
            json_diff(&ours, theirs)
        );
    }
    assert!(
        !home.path().join("skills/.usage.json").exists(),
        "--no-count bumps nothing"
    );
}

/// The same skill_manage calls against two homes, one through Python and one through
/// `hermes-skills apply`: the same answers and the same files.
#[test]
fn manage_answers_and_files_match_python() {
    let calls = json!([
        {"action": "create", "name": "demo", "category": "dev", "content": skill_md("demo", "Demo skill.")},
        {"action": "create", "name": "demo", "content": skill_md("demo", "Again.")},
        {"action": "create", "name": "Bad_Name", "content": skill_md("x", "x")},
        {"action": "create", "name": "nofront", "content": "just text"},
        {"action": "create", "name": "nodesc", "content": "---\nname: nodesc\n---\nbody"},
        {"action": "create", "name": "badyaml", "content": "---\nname: [\n---\nbody"},
        {"action": "create", "name": "toolong", "content": format!("---\nname: t\ndescription: d\n---\n{}", "x".repeat(100_001))},
        {"action": "create", "name": "x", "category": "a/b", "content": skill_md("x", "x")},
        {"action": "create", "name": "nocontent"},
        {"action": "write_file", "name": "demo", "file_path": "references/api.md", "file_content": "# API\nline one\nline two\n"},
        {"action": "write_file", "name": "demo", "file_path": "references/../../../escape.md", "file_content": "x"},
        {"action": "write_file", "name": "demo", "file_path": "notes/x.md", "file_content": "x"},
        {"action": "write_file", "name": "demo", "file_path": "scripts", "file_content": "x"},
        {"action": "write_file", "name": "ghost", "file_path": "references/a.md", "file_content": "x"},
        {"action": "patch", "name": "demo", "old_string": "Use it well.", "new_string": "Use it very well."},
        {"action": "patch", "name": "demo", "old_string": "line", "new_string": "row"},
        {"action": "patch", "name": "demo", "old_string": "line", "new_string": "row", "replace_all": true, "file_path": "references/api.md"},
        {"action": "patch", "name": "demo", "old_string": "Use it quite badly indeed", "new_string": "y"},
        {"action": "patch", "name": "demo", "old_string": "---\nname: demo", "new_string": "name: demo"},
        {"action": "patch", "name": "demo", "old_string": "x", "new_string": "x"},
        {"action": "patch", "name": "demo", "old_string": "a"},
        {"action": "edit", "name": "demo", "content": skill_md("demo", "Rewritten.")},
        {"action": "edit", "name": "demo", "content": "---\nname: demo\n---\n"},
        {"action": "remove_file", "name": "demo", "file_path": "references/nope.md"},
        {"action": "remove_file", "name": "demo", "file_path": "references/api.md"},
        {"action": "create", "name": "umbrella", "content": skill_md("umbrella", "Holds all.")},
        {"action": "delete", "name": "demo", "absorbed_into": "nowhere"},
        {"action": "delete", "name": "demo", "absorbed_into": "demo"},
        {"action": "delete", "name": "demo", "absorbed_into": "umbrella"},
        {"action": "delete", "name": "demo"},
        {"action": "frobnicate", "name": "demo"},
    ]);
    let python_home = TempHome::new();
    let our_home = TempHome::new();
    for home in [&python_home, &our_home] {
        home.write("config.yaml", NO_SCAN);
    }
    let theirs = peer(
        python_home.path(),
        "skill-manage",
        &["foreground"],
        Some(&serde_json::to_vec(&calls).expect("encode")),
    );
    let stdin: String = calls
        .as_array()
        .expect("calls")
        .iter()
        .map(|c| format!("{c}\n"))
        .collect();
    let out = bin("hermes-skills", our_home.path())
        .args(["apply", "--format", "jsonl"])
        .write_stdin(stdin)
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1), "some calls fail: exit 1");
    let ours: Vec<Json> = String::from_utf8(out.stdout)
        .expect("utf8")
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect();
    let theirs = theirs.as_array().expect("answers");
    assert_eq!(ours.len(), theirs.len());
    for (i, (a, b)) in ours.iter().zip(theirs).enumerate() {
        let a = yaml_error_prefix(&normalize(a, our_home.path()));
        let b = yaml_error_prefix(&normalize(b, python_home.path()));
        assert_eq!(
            a,
            b,
            "call {i} ({}): {:#?}",
            calls[i]["action"],
            json_diff(&a, &b)
        );
    }
    assert_eq!(
        files_under(&our_home.path().join("skills")),
        files_under(&python_home.path().join("skills")),
        "same files, same bytes"
    );
}

/// skill_manage validates with PyYAML's pure-Python loader, whose error wording differs
/// from libyaml's (ours); the verdict and the prefix are the same (docs/decisions.md).
fn yaml_error_prefix(answer: &Json) -> Json {
    let mut answer = answer.clone();
    if let Some(error) = answer.get("error").and_then(Json::as_str)
        && let Some(rest) = error.strip_prefix("YAML frontmatter parse error: ")
    {
        assert!(!rest.is_empty());
        answer["error"] = json!("YAML frontmatter parse error: …");
    }
    answer
}

/// Skills written by hermes-skills are listed, viewed and counted by Python; the sidecar
/// each side writes reads back identically on the other.
#[test]
fn skills_and_usage_cross_over() {
    let home = TempHome::new();
    home.write("config.yaml", NO_SCAN);
    let create = |name: &str, desc: &str| {
        bin("hermes-skills", home.path())
            .args(["create", name, "--category", "ops", "-"])
            .write_stdin(skill_md(name, desc))
            .assert()
            .success();
    };
    create("deploy", "Ship it. Ünïcode too.");
    create("rollback", "Undo it.");
    bin("hermes-skills", home.path())
        .args([
            "patch",
            "deploy",
            "--old",
            "Use it well.",
            "--new",
            "Use it carefully.",
        ])
        .assert()
        .success();

    let listed = peer(home.path(), "skills-list", &[], None);
    assert_eq!(
        listed["skills"],
        json!([
            {"name": "deploy", "description": "Ship it. Ünïcode too.", "category": "ops"},
            {"name": "rollback", "description": "Undo it.", "category": "ops"},
        ])
    );
    let viewed = peer(home.path(), "skill-view-tool", &["deploy"], None);
    assert!(
        viewed["content"]
            .as_str()
            .expect("content")
            .contains("Use it carefully.")
    );

    // Python wrote the sidecar last: we read it back to the same bytes.
    let bytes = home.read("skills/.usage.json");
    let ours = hermes_loop::skills::usage::load(&hermes_loop::home::Home::at(home.path()));
    assert_eq!(ours.to_python_json(), bytes);
    let (rows, _) = skills_json(home.path(), &["list"]);
    let deploy = &rows[0];
    assert_eq!(
        (&deploy["use_count"], &deploy["view_count"]),
        (&json!(1), &json!(1))
    );

    // Now we write it: Python loads the same records and would write the same bytes.
    bin("hermes-skills", home.path())
        .args(["view", "rollback", "--count"])
        .assert()
        .success();
    let theirs = peer(home.path(), "usage", &[], None);
    assert_eq!(
        theirs["redump"].as_str(),
        Some(home.read("skills/.usage.json").as_str())
    );
    assert_eq!(theirs["records"]["rollback"]["view_count"], json!(1));
    assert_eq!(theirs["records"]["deploy"]["patch_count"], json!(1));
    assert_eq!(theirs["records"]["deploy"]["view_count"], json!(1));
}

#[test]
fn prompt_index_is_byte_identical() {
    let home = discovery_home();
    home.write(
        "skills/general-desc/DESCRIPTION.md",
        "---\ndescription: \"Quoted 'desc'\"\n---\n",
    );
    home.write(
        "skills/dev/long/SKILL.md",
        skill_md("long", &"word ".repeat(20)),
    );
    home.write("skills/SKILL.md", skill_md("root-skill", "At the root."));
    let out = bin("hermes-skills", home.path())
        .args(["prompt-index", "--format", "text"])
        .output()
        .expect("run");
    assert!(out.status.success());
    let ours = String::from_utf8(out.stdout).expect("utf8");
    let theirs = peer(home.path(), "prompt-index", &[], None);
    let theirs = theirs["text"].as_str().expect("text");
    assert!(theirs.contains("<available_skills>"));
    assert_eq!(ours, format!("{theirs}\n"));
}

/// Python and hermes-skills bump counters on the same skills at once: nothing is lost.
#[test]
fn concurrent_counter_bumps_are_exact() {
    const EACH: usize = 500;
    let home = TempHome::new();
    home.write("config.yaml", NO_SCAN);
    tree(
        &home,
        &[
            ("skills/alpha/SKILL.md", &skill_md("alpha", "A.")),
            ("skills/beta/SKILL.md", &skill_md("beta", "B.")),
        ],
    );
    let stdin: String = (0..EACH)
        .map(|i| {
            let name = if i % 2 == 0 { "alpha" } else { "beta" };
            format!("{{\"tool\": \"skill_view\", \"name\": \"{name}\"}}\n")
        })
        .collect();
    let path = home.path().to_path_buf();
    let python = std::thread::spawn(move || {
        peer(&path, "bump-many", &["alpha,beta", &EACH.to_string()], None)
    });
    let ours = bin("hermes-skills", home.path())
        .args(["apply", "--format", "jsonl"])
        .write_stdin(stdin)
        .output()
        .expect("run");
    assert!(
        ours.status.success(),
        "{}",
        String::from_utf8_lossy(&ours.stderr)
    );
    assert_eq!(python.join().expect("python thread")["done"], json!(EACH));
    let usage = peer(home.path(), "usage", &[], None);
    for name in ["alpha", "beta"] {
        let record = &usage["records"][name];
        assert_eq!(record["view_count"], json!(EACH), "{name}: {record}");
        assert_eq!(record["use_count"], json!(EACH), "{name}: {record}");
    }
}

/// The background review under both programs: the same guards answer the same way, except
/// for the one rule we changed on purpose — the review may improve a user's skill it has
/// read (Hermes refuses every skill the agent did not create; docs/decisions.md).
#[test]
fn background_review_guards_match_python_but_for_the_coherent_rule() {
    let setup = json!([
        {"action": "create", "name": "user-skill", "content": skill_md("user-skill", "Mine.")},
        {"action": "create", "name": "umbrella", "content": skill_md("umbrella", "Holds all.")},
    ]);
    let review = json!([
        {"action": "create", "name": "agent-skill", "content": skill_md("agent-skill", "Learned.")},
        {"action": "patch", "name": "agent-skill", "old_string": "Use it well.", "new_string": "Use it better."},
        {"tool": "skill_view", "name": "agent-skill"},
        {"action": "patch", "name": "agent-skill", "old_string": "Use it well.", "new_string": "Use it better."},
        {"action": "write_file", "name": "agent-skill", "file_path": "references/x.md", "file_content": "one\n"},
        {"action": "patch", "name": "agent-skill", "file_path": "references/x.md", "old_string": "one", "new_string": "two"},
        {"action": "delete", "name": "agent-skill"},
        {"tool": "skill_view", "name": "user-skill"},
        {"action": "patch", "name": "user-skill", "old_string": "Use it well.", "new_string": "Use it wisely."},
        {"action": "delete", "name": "user-skill", "absorbed_into": "umbrella"},
        {"action": "delete", "name": "agent-skill", "absorbed_into": "umbrella"},
    ]);
    let python_home = TempHome::new();
    let our_home = TempHome::new();
    for home in [&python_home, &our_home] {
        home.write("config.yaml", NO_SCAN);
    }
    let lines = |calls: &Json| -> String {
        calls
            .as_array()
            .expect("calls")
            .iter()
            .map(|c| format!("{c}\n"))
            .collect()
    };
    peer(
        python_home.path(),
        "skill-manage",
        &["foreground"],
        Some(&serde_json::to_vec(&setup).expect("e")),
    );
    let theirs = peer(
        python_home.path(),
        "skill-manage",
        &["background_review"],
        Some(&serde_json::to_vec(&review).expect("encode")),
    );
    bin("hermes-skills", our_home.path())
        .args(["apply"])
        .write_stdin(lines(&setup))
        .assert()
        .success();
    let out = bin("hermes-skills", our_home.path())
        .args([
            "apply",
            "--origin",
            "background_review",
            "--format",
            "jsonl",
        ])
        .write_stdin(lines(&review))
        .output()
        .expect("run");
    let ours: Vec<Json> = String::from_utf8(out.stdout)
        .expect("utf8")
        .lines()
        .map(|l| normalize(&serde_json::from_str(l).expect("json"), our_home.path()))
        .collect();
    let theirs: Vec<Json> = theirs
        .as_array()
        .expect("answers")
        .iter()
        .map(|a| normalize(a, python_home.path()))
        .collect();
    const COHERENT_RULE: usize = 8;
    for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
        if i != COHERENT_RULE {
            assert_eq!(a, b, "call {i}: {:#?}", json_diff(a, b));
        }
    }
    assert_eq!(
        theirs[COHERENT_RULE]["error"],
        "Refusing background curator patch for skill 'user-skill': the skill records show it is not agent-created (created_by=None). Manually authored skills are off-limits to autonomous curation."
    );
    assert_eq!(
        ours[COHERENT_RULE],
        json!({"success": true, "message": "Patched SKILL.md in skill 'user-skill' (1 replacement).", "_change": {"old": "Use it well.", "new": "Use it wisely."}})
    );
    assert_eq!(
        ours[10]["message"],
        "Skill 'agent-skill' archived (archived to $HOME/skills/.archive/agent-skill). Content absorbed into 'umbrella'."
    );
    let usage = peer(our_home.path(), "usage", &[], None);
    assert_eq!(usage["records"]["agent-skill"]["created_by"], "agent");
    assert_eq!(usage["records"]["agent-skill"]["state"], "archived");
}

/// With `skills.write_approval` on, both stage the same record for `/skills pending`.
#[test]
fn staged_writes_match_python() {
    let call = json!({"action": "patch", "name": "x", "old_string": "a\nb", "new_string": "c", "file_path": "references/r.md"});
    let mut records = Vec::new();
    for python in [true, false] {
        let home = TempHome::new();
        home.write("config.yaml", "skills:\n  write_approval: yes\n");
        let answer = if python {
            peer(
                home.path(),
                "skill-manage",
                &["foreground"],
                Some(&serde_json::to_vec(&json!([call])).expect("e")),
            )[0]
            .clone()
        } else {
            let out = bin("hermes-skills", home.path())
                .args(["apply", "--format", "jsonl"])
                .write_stdin(format!("{call}\n"))
                .output()
                .expect("run");
            serde_json::from_slice(&out.stdout).expect("json")
        };
        let id = answer["pending_id"].as_str().expect("id").to_string();
        let mut record: Json =
            serde_json::from_str(&home.read(&format!("pending/skills/{id}.json"))).expect("record");
        record["id"] = json!("<id>");
        record["created_at"] = json!(0);
        let mut answer = answer;
        answer["pending_id"] = json!("<id>");
        records.push((answer, record));
    }
    assert_eq!(records[0], records[1]);
}

/// The public corpus (or its committed sample) as an external skills dir: both list the
/// same skills, resolve the same names and render the same prompt index.
#[test]
fn corpus_as_external_dir_agrees() {
    let (corpus, _) = support::corpus();
    let home = TempHome::new();
    home.write(
        "config.yaml",
        format!(
            "skills:\n  guard_agent_created: false\n  external_dirs: ['{}']\n",
            corpus.display()
        ),
    );
    home.write(
        "skills/local-first/SKILL.md",
        skill_md("local-first", "Local."),
    );
    let theirs = peer(home.path(), "skills-list", &[], None);
    let ours = our_list(home.path(), &[]);
    assert!(ours.len() > 20, "{} skills", ours.len());
    assert_eq!(
        Json::Array(ours.clone()),
        theirs["skills"],
        "{:#?}",
        json_diff(&Json::Array(ours.clone()), &theirs["skills"])
    );

    let names: Vec<String> = ours
        .iter()
        .step_by(ours.len() / 8)
        .filter_map(|r| r["name"].as_str().map(String::from))
        .collect();
    let cases: Vec<(&str, Option<&str>)> = names.iter().map(|n| (n.as_str(), None)).collect();
    let views = peer(
        home.path(),
        "skill-view-many",
        &[],
        Some(&serde_json::to_vec(&cases).expect("encode")),
    );
    for ((name, _), theirs) in cases.iter().zip(views.as_array().expect("answers")) {
        let (mut ours, _) = skills_json(home.path(), &["view", name, "--no-count"]);
        let mut theirs = theirs.clone();
        // Hermes lists linked files in directory order; we sort them.
        for answer in [&mut ours, &mut theirs] {
            if let Some(Json::Object(groups)) = answer.get_mut("linked_files") {
                for files in groups.values_mut() {
                    if let Json::Array(list) = files {
                        list.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
                    }
                }
            }
        }
        assert_eq!(
            ours,
            theirs,
            "view {name}: {:#?}",
            json_diff(&ours, &theirs)
        );
    }

    let out = bin("hermes-skills", home.path())
        .args(["prompt-index", "--format", "text"])
        .output()
        .expect("run");
    let theirs = peer(home.path(), "prompt-index", &[], None);
    assert_eq!(
        String::from_utf8(out.stdout).expect("utf8"),
        format!("{}\n", theirs["text"].as_str().expect("text"))
    );
}

/// Archive and restore on two homes, Python's `archive_skill`/`restore_skill` and ours: the
/// same moves, messages, suppression list and lifecycle records.
#[test]
fn archive_and_restore_match_python() {
    use hermes_loop::home::Home;
    use hermes_loop::skills::archive::{archive_skill, restore_skill};
    use hermes_loop::skills::library::{Index, Library};

    let setup = |home: &TempHome| {
        home.write("config.yaml", NO_SCAN);
        tree(
            home,
            &[
                ("skills/tools/demo/SKILL.md", &skill_md("demo", "Demo.")),
                ("skills/tools/demo/references/r.md", "ref\n"),
                (
                    "skills/.archive/demo/SKILL.md",
                    &skill_md("demo", "Older copy."),
                ),
                ("skills/builtin/SKILL.md", &skill_md("builtin", "Bundled.")),
                ("skills/.bundled_manifest", "builtin:0123\n"),
                ("skills/plan/SKILL.md", &skill_md("plan", "Protected.")),
            ],
        );
    };
    let calls: Vec<(&str, &str)> = vec![
        ("archive_skill", "demo"),
        ("archive_skill", "builtin"),
        ("archive_skill", "plan"),
        ("archive_skill", "ghost"),
        ("restore_skill", "demo"),
        ("restore_skill", "builtin"),
        ("restore_skill", "ghost"),
    ];
    let python_home = TempHome::new();
    let our_home = TempHome::new();
    setup(&python_home);
    setup(&our_home);
    let input = serde_json::to_vec(&calls).expect("encode");
    let theirs = peer(python_home.path(), "usage-calls", &[], Some(&input));
    let lib = Library::open(Home::at(our_home.path())).expect("library");
    let mut index = Index::build(&lib);
    let now = hermes_loop::clock::now().expect("now");
    let ours: Vec<Json> = calls
        .iter()
        .map(|(f, name)| {
            let r = if *f == "archive_skill" {
                archive_skill(&lib, &mut index, name, now)
            } else {
                restore_skill(&lib, &mut index, name, now)
            };
            match r {
                Ok(m) => json!([true, m]),
                Err(m) => json!([false, m]),
            }
        })
        .collect();
    let stamp = |v: &Json, home: &Path| -> Json {
        // The suffix of a second archive copy is the current UTC time on each side.
        let text = normalize(v, home).to_string();
        let re = regex::Regex::new(r"demo-\d{14}").expect("re");
        serde_json::from_str(&re.replace_all(&text, "demo-<stamp>")).expect("json")
    };
    for (i, (a, b)) in ours
        .iter()
        .zip(theirs.as_array().expect("answers"))
        .enumerate()
    {
        assert_eq!(
            stamp(a, our_home.path()),
            stamp(b, python_home.path()),
            "call {i} {:?}",
            calls[i]
        );
    }
    let tree_of = |home: &TempHome| -> Vec<String> {
        files_under(&home.path().join("skills"))
            .into_iter()
            .map(|(rel, _)| {
                regex::Regex::new(r"demo-\d{14}")
                    .expect("re")
                    .replace(&rel, "demo-<stamp>")
                    .into_owned()
            })
            .collect()
    };
    assert_eq!(tree_of(&our_home), tree_of(&python_home));
    let records = |home: &TempHome| -> Json {
        let usage = peer(home.path(), "usage", &[], None);
        let mut records = usage["records"].clone();
        for record in records.as_object_mut().expect("records").values_mut() {
            for key in ["created_at", "archived_at"] {
                if record[key].is_string() {
                    record[key] = json!("<time>");
                }
            }
        }
        records
    };
    assert_eq!(records(&our_home), records(&python_home));
    assert_eq!(
        our_home.read("skills/.curator_suppressed"),
        python_home.read("skills/.curator_suppressed")
    );
}
