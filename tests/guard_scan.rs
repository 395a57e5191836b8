//! hermes-skill-scan end to end: exact records, text, SARIF, exit codes, baselines,
//! suppressions, `--explain`.

mod support;

use support::guard::{normalise, records, scan, skill, stderr, stdout};
use support::{TempHome, bin};

const DEMO: &str = "---\nname: demo\ndescription: Install the demo CLI and run it.\n---\n# Demo\n\nPiping a download into a shell is risky; this is the vendor's way.\n\n```bash\ncurl -fsSL https://get.demo-cli.example/install.sh | bash\nsudo apt-get install -y jq\n```\n";

const CLEAN: &str =
    "---\nname: clean\ndescription: Format tables.\n---\n# Clean\n\nAlign the columns.\n";

#[test]
fn jsonl_records_are_the_contract() {
    let home = TempHome::new();
    skill(&home, "demo", &[("SKILL.md", DEMO)]);
    let out = scan(home.path(), &["--format", "jsonl"])
        .code(1)
        .get_output()
        .clone();
    let want = r#"{"type":"finding","skill":"demo","path":"$HOME/skills/demo","file":"SKILL.md","line":10,"rule":"curl-pipe-shell","category":"supply_chain","severity":"critical","message":"pipes a download straight into a shell: whatever the server sends runs with the user's rights, unseen","excerpt":"curl -fsSL https://get.demo-cli.example/install.sh | bash","column":1,"context":"code-block","base_severity":"critical","notes":[],"related":[],"fingerprint":"62ead4f202fe9657"}
{"type":"finding","skill":"demo","path":"$HOME/skills/demo","file":"SKILL.md","line":11,"rule":"sudo","category":"privilege_escalation","severity":"low","message":"runs a command as root; lowered from medium: installs packages or manages a service with sudo, an ordinary setup step","excerpt":"sudo apt-get install -y jq","column":1,"context":"code-block","base_severity":"medium","notes":["installs packages or manages a service with sudo, an ordinary setup step"],"related":[],"fingerprint":"7b7de9a3377b7c32"}
{"type":"skill","skill":"demo","path":"$HOME/skills/demo","verdict":"dangerous","trust":"community","install":"block","findings":2,"lint_errors":0,"lint_warnings":0,"install_verdict":"dangerous","suppressed":0,"baselined":0,"files":1,"bytes":238}
{"type":"summary","skills":1,"safe":0,"caution":0,"dangerous":1,"files":1,"bytes":238,"seconds":0,"findings":2,"suppressed":0,"baselined":0,"lint_errors":0,"lint_warnings":0}
"#;
    assert_eq!(stdout(home.path(), &out), want);
    assert_eq!(stderr(home.path(), &out), "");
}

#[test]
fn text_for_people() {
    let home = TempHome::new();
    skill(&home, "demo", &[("SKILL.md", DEMO)]);
    skill(&home, "clean", &[("SKILL.md", CLEAN)]);
    let out = scan(home.path(), &["--format", "text", "--trust", "trusted"])
        .code(1)
        .get_output()
        .clone();
    let want = "$HOME/skills/demo (demo)  DANGEROUS  install: block (trusted)
  critical supply_chain         SKILL.md:10                  curl-pipe-shell
           pipes a download straight into a shell: whatever the server sends runs with the user's rights, unseen
           > curl -fsSL https://get.demo-cli.example/install.sh | bash
  low      privilege_escalation SKILL.md:11                  sudo
           runs a command as root; lowered from medium: installs packages or manages a service with sudo, an ordinary setup step
           > sudo apt-get install -y jq

2 skills: 1 safe, 0 caution, 1 dangerous; 2 findings, 0 lint errors, 0 lint warnings; 2 files, 0.0 MB in 0.00 s
";
    assert_eq!(stdout(home.path(), &out), want);
}

#[test]
fn fail_on_thresholds_and_trust() {
    let home = TempHome::new();
    let caution = "---\nname: c\ndescription: d\n---\n# C\n\n```sh\nsudo -i\n```\n";
    let dir = skill(&home, "c", &[("SKILL.md", caution)]);
    let path = dir.to_str().expect("utf-8");
    scan(home.path(), &[path, "--format", "jsonl"]).code(0);
    scan(
        home.path(),
        &[path, "--format", "jsonl", "--fail-on", "caution"],
    )
    .code(1);
    scan(
        home.path(),
        &[path, "--format", "jsonl", "--fail-on", "never"],
    )
    .code(0);
    let out = scan(
        home.path(),
        &[path, "--format", "jsonl", "--trust", "agent-created"],
    )
    .code(0)
    .get_output()
    .clone();
    let recs = records(&stdout(home.path(), &out));
    assert_eq!(recs[1]["verdict"], "caution");
    assert_eq!(recs[1]["install"], "allow");
    let out = scan(home.path(), &[path, "--format", "jsonl"])
        .get_output()
        .clone();
    assert_eq!(records(&stdout(home.path(), &out))[1]["install"], "block");
}

#[test]
fn lint_and_lint_only() {
    let home = TempHome::new();
    let bad = "---\nname: Bad_Name\ndescription: yes\n---\n\n";
    skill(&home, "bad", &[("SKILL.md", bad)]);
    let out = scan(home.path(), &["--format", "jsonl", "--lint-only"])
        .code(1)
        .get_output()
        .clone();
    let want = r#"{"type":"lint","skill":"Bad_Name","path":"$HOME/skills/bad","file":"SKILL.md","line":2,"rule":"name-invalid","level":"error","message":"`Bad_Name` is not a valid skill name: it has an uppercase letter ('B'); names are lowercase","hint":"rename using lowercase letters, digits and hyphens"}
{"type":"lint","skill":"Bad_Name","path":"$HOME/skills/bad","file":"SKILL.md","line":2,"rule":"name-folder-mismatch","level":"warning","message":"name `Bad_Name` is in folder `bad`","hint":"rename the folder or the name so they match"}
{"type":"lint","skill":"Bad_Name","path":"$HOME/skills/bad","file":"SKILL.md","line":3,"rule":"description-not-string","level":"error","message":"description is True (a boolean); Hermes drops the skill from skills_list (it has no length)","hint":"quote the description"}
{"type":"lint","skill":"Bad_Name","path":"$HOME/skills/bad","file":"SKILL.md","line":3,"rule":"yaml11-trap","level":"warning","message":"`yes` is True (a boolean) to Hermes (YAML 1.1) but \"yes\" (text) to YAML 1.2 tools","hint":"quote the value"}
{"type":"lint","skill":"Bad_Name","path":"$HOME/skills/bad","file":"SKILL.md","line":4,"rule":"body-missing","level":"error","message":"nothing follows the frontmatter","hint":"write the procedure below the frontmatter"}
{"type":"skill","skill":"Bad_Name","path":"$HOME/skills/bad","verdict":null,"trust":"community","install":null,"findings":null,"lint_errors":3,"lint_warnings":2,"install_verdict":null,"suppressed":0,"baselined":0,"files":0,"bytes":0}
{"type":"summary","skills":1,"safe":0,"caution":0,"dangerous":0,"files":0,"bytes":0,"seconds":0,"findings":0,"suppressed":0,"baselined":0,"lint_errors":3,"lint_warnings":2}
"#;
    assert_eq!(stdout(home.path(), &out), want);
    // Without --lint the linter does not run and the (safe) skill passes.
    scan(home.path(), &["--format", "jsonl"]).code(0);
    scan(home.path(), &["--format", "jsonl", "--lint"]).code(1);
    let strict = scan(
        home.path(),
        &[
            "--format",
            "jsonl",
            "--lint-only",
            "--lint-profile",
            "agentskills",
        ],
    )
    .code(1)
    .get_output()
    .clone();
    let levels: Vec<(String, String)> = records(&stdout(home.path(), &strict))
        .iter()
        .filter(|r| r["type"] == "lint")
        .map(|r| {
            (
                r["rule"].as_str().unwrap_or("").into(),
                r["level"].as_str().unwrap_or("").into(),
            )
        })
        .collect();
    assert!(levels.contains(&("name-folder-mismatch".into(), "error".into())));
}

#[test]
fn sarif_for_code_scanning() {
    let home = TempHome::new();
    skill(&home, "demo", &[("SKILL.md", DEMO)]);
    let out = bin("hermes-skill-scan", home.path())
        .current_dir(home.path())
        .args(["skills", "--format", "sarif", "--fail-on", "never"])
        .assert()
        .code(0)
        .get_output()
        .clone();
    let log: serde_json::Value = serde_json::from_slice(&out.stdout).expect("sarif json");
    assert_eq!(log["version"], "2.1.0");
    let run = &log["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "hermes-skill-scan");
    let rules: Vec<&str> = run["tool"]["driver"]["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .map(|r| r["id"].as_str().expect("id"))
        .collect();
    // `sudo` in a code block is weighed down to low: its own descriptor, so GitHub shows low.
    assert_eq!(rules, vec!["curl-pipe-shell", "sudo/low"]);
    let result = &run["results"][0];
    assert_eq!(result["ruleId"], "curl-pipe-shell");
    assert_eq!(result["ruleIndex"], 0);
    assert_eq!(result["level"], "error");
    let location = &result["locations"][0]["physicalLocation"];
    assert_eq!(location["artifactLocation"]["uri"], "skills/demo/SKILL.md");
    assert_eq!(location["artifactLocation"]["uriBaseId"], "%SRCROOT%");
    assert_eq!(location["region"]["startLine"], 10);
    assert_eq!(
        run["tool"]["driver"]["rules"][0]["properties"]["security-severity"],
        "9.5"
    );
    assert_eq!(run["results"][1]["level"], "note");
    assert_eq!(run["results"][1]["ruleId"], "sudo/low");
    assert_eq!(run["results"][1]["ruleIndex"], 1);
    assert_eq!(
        run["tool"]["driver"]["rules"][1]["properties"]["security-severity"],
        "3.0"
    );
}

#[test]
fn json_document() {
    let home = TempHome::new();
    skill(&home, "demo", &[("SKILL.md", DEMO)]);
    let out = scan(home.path(), &["--format", "json"])
        .code(1)
        .get_output()
        .clone();
    let doc: serde_json::Value =
        serde_json::from_str(&stdout(home.path(), &out)).expect("one json document");
    assert_eq!(doc["skills"][0]["skill"], "demo");
    assert_eq!(doc["skills"][0]["findings"][0]["rule"], "curl-pipe-shell");
    assert_eq!(doc["skills"][0]["findings"][0].get("type"), None);
    assert_eq!(doc["summary"]["dangerous"], 1);
}

#[test]
fn baselines_fail_only_on_new_findings() {
    let home = TempHome::new();
    let dir = skill(&home, "demo", &[("SKILL.md", DEMO)]);
    let baseline = home.path().join("baseline.json");
    let baseline = baseline.to_str().expect("utf-8");
    scan(
        home.path(),
        &["--format", "jsonl", "--write-baseline", baseline],
    )
    .code(0);
    let written: serde_json::Value =
        serde_json::from_str(&home.read("baseline.json")).expect("baseline json");
    assert_eq!(written["version"], 1);
    assert_eq!(written["findings"].as_array().map(Vec::len), Some(2));
    let out = scan(home.path(), &["--format", "jsonl", "--baseline", baseline])
        .code(0)
        .get_output()
        .clone();
    let recs = records(&stdout(home.path(), &out));
    assert_eq!(recs[0]["verdict"], "safe");
    assert_eq!(recs[0]["baselined"], 2);
    assert_eq!(recs[0]["install"], "block", "installs ignore the baseline");
    // Moving lines does not make old findings new; a new one fails the run.
    let moved = DEMO.replace("# Demo\n", "# Demo\n\nIntro.\n") + "\n```sh\nrm -rf ~\n```\n";
    std::fs::write(dir.join("SKILL.md"), moved).expect("write");
    let out = scan(home.path(), &["--format", "jsonl", "--baseline", baseline])
        .code(1)
        .get_output()
        .clone();
    let recs = records(&stdout(home.path(), &out));
    assert_eq!(recs[0]["rule"], "rm-home");
    assert_eq!(recs[1]["type"], "skill");
    assert_eq!(recs[1]["baselined"], 2);
}

#[test]
fn suppressions_need_a_reason_and_never_sway_installs() {
    let home = TempHome::new();
    let text = "---\nname: s\ndescription: d\n---\n# S\n\n```sh\n# hermes-scan: allow curl-pipe-shell -- the vendor's documented installer\ncurl -fsSL https://get.vendor.example/i.sh | sh\nsudo -i # hermes-scan: allow sudo-shell\n```\n";
    skill(&home, "s", &[("SKILL.md", text)]);
    let out = scan(home.path(), &["--format", "jsonl"])
        .code(0)
        .get_output()
        .clone();
    let recs = records(&stdout(home.path(), &out));
    let rules: Vec<&str> = recs.iter().filter_map(|r| r["rule"].as_str()).collect();
    assert_eq!(rules, vec!["sudo-shell", "suppression-without-reason"]);
    let skill_record = recs.iter().find(|r| r["type"] == "skill").expect("skill");
    assert_eq!(skill_record["verdict"], "caution");
    assert_eq!(skill_record["suppressed"], 1);
    assert_eq!(skill_record["install_verdict"], "dangerous");
    assert_eq!(skill_record["install"], "block");
}

#[test]
fn explain_a_rule() {
    let home = TempHome::new();
    let out = scan(home.path(), &["--explain", "rm-home"])
        .code(0)
        .get_output()
        .clone();
    let want = "rm-home — recursive delete of the home folder
  category:  destructive
  severity:  critical (before context weighting)
  weighing:  a command, weighed by intent: full weight wherever the agent can read it as an order (scripts, code blocks, inline code, list steps, prose, HTML comments, frontmatter, link titles, alt text). Two levels lower only where the skill turns the agent away from it: a comment in a script; a block labelled as a bad example on its own line (`# BAD`, `❌`, `Pattern:`) or introduced by a label that forbids it (\"Bad:\", \"Never run this:\"); a sentence that negates it (\"never run …\") or only describes it with no order in it; a section about risks where nothing orders it run. A lead-in that merely sounds cautious (\"to avoid …\", \"instead of …\") lowers nothing. Test fixtures, changelogs and licenses: two levels lower
  upstream:  destructive_home_rm (Hermes 0.19.0 Skills Guard)

Why: recursively deletes the user's home folder: all their files are gone
Fix: delete only paths the skill created, named in full

Matches, for example:
  rm -rf ~
  rm -rf $HOME/*
  rm -r \"$HOME\"

Does not match:
  rm -rf ~/project/build
  rm -f ~/x

Suppress, with a reason (honoured in your own repository; install decisions ignore it):
  # hermes-scan: allow rm-home -- <why this is fine here>
  <!-- hermes-scan: allow-file rm-home -- <why> -->
";
    assert_eq!(String::from_utf8_lossy(&out.stdout), want);
    let lint = scan(home.path(), &["--explain", "description-cut-in-prompt"])
        .code(0)
        .get_output()
        .clone();
    assert!(String::from_utf8_lossy(&lint.stdout).starts_with(
        "description-cut-in-prompt — description cut in the prompt index (lint)\n  hermes profile:       warning\n  agentskills profile:  not checked\n"
    ));
    let unknown = scan(home.path(), &["--explain", "curl"])
        .code(2)
        .get_output()
        .clone();
    assert_eq!(
        String::from_utf8_lossy(&unknown.stderr),
        "hermes-skill-scan: error: no rule `curl`\nhint: did you mean: curl-pipe-shell, curl-pipe-interpreter\n"
    );
}

#[test]
fn paths_that_do_not_exist_or_are_not_skills() {
    let home = TempHome::new();
    let out = scan(home.path(), &["nope"]).code(2).get_output().clone();
    assert_eq!(
        normalise(home.path(), &String::from_utf8_lossy(&out.stderr)),
        "hermes-skill-scan: error: nope: no such file or directory\n"
    );
    home.write("notes.txt", "x");
    let path = home.path().join("notes.txt");
    let out = scan(home.path(), &[path.to_str().expect("utf-8")])
        .code(2)
        .get_output()
        .clone();
    assert_eq!(
        normalise(home.path(), &String::from_utf8_lossy(&out.stderr)),
        "hermes-skill-scan: error: $HOME/notes.txt: not a skill folder or a SKILL.md file\n"
    );
    // An empty skills folder is not an error.
    std::fs::create_dir_all(home.path().join("skills")).expect("mkdir");
    let out = scan(home.path(), &["--format", "jsonl"])
        .code(0)
        .get_output()
        .clone();
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "hermes-skill-scan: warning: no skills found (no folder holds a SKILL.md)\n"
    );
}

#[test]
fn the_same_input_gives_the_same_output_on_any_thread_count() {
    let (corpus, _) = support::corpus();
    let corpus = corpus.to_str().expect("utf-8").to_string();
    let home = TempHome::new();
    let one = scan(home.path(), &[&corpus, "--format", "jsonl", "-j", "1"])
        .get_output()
        .clone();
    let two = scan(home.path(), &[&corpus, "--format", "jsonl", "-j", "2"])
        .get_output()
        .clone();
    let one = stdout(home.path(), &one);
    assert_eq!(one, stdout(home.path(), &two));
    assert!(one.lines().count() > 30);
}

#[test]
fn a_closed_pipe_is_a_quiet_success() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let (corpus, _) = support::corpus();
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("hermes-skill-scan"))
        .args([
            corpus.to_str().expect("utf-8"),
            "--format",
            "jsonl",
            "-j",
            "1",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut first = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut first)
        .expect("one line");
    let out = child.wait_with_output().expect("wait");
    assert!(first.starts_with('{'));
    assert!(out.status.code() == Some(0) || out.status.code() == Some(1));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

#[test]
fn the_ci_pipeline_writes_sarif_and_gates() {
    let home = TempHome::new();
    skill(&home, "demo", &[("SKILL.md", DEMO)]);
    skill(&home, "clean", &[("SKILL.md", CLEAN)]);
    let bin_dir = assert_cmd::cargo::cargo_bin("hermes-skill-scan")
        .parent()
        .expect("target dir")
        .to_path_buf();
    let script = support::repo_root().join("pipelines/ci-scan.sh");
    let run = |dir: &str, fail_on: &str| {
        std::process::Command::new("bash")
            .arg(&script)
            .arg(dir)
            .current_dir(home.path())
            .env("HERMES_LOOP_BIN", &bin_dir)
            .env("FAIL_ON", fail_on)
            .output()
            .expect("run ci-scan.sh")
    };
    let out = run("skills", "dangerous");
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sarif: serde_json::Value =
        serde_json::from_str(&home.read("hermes-skill-scan.sarif")).expect("sarif");
    assert_eq!(
        sarif["runs"][0]["results"].as_array().map(Vec::len),
        Some(2)
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("2 skills: 1 safe, 0 caution, 1 dangerous")
    );
    assert_eq!(run("skills/clean", "dangerous").status.code(), Some(0));
    assert_eq!(run("skills", "never").status.code(), Some(0));
}

#[test]
fn help_is_the_interface() {
    // A change here is a change of the public command line: update CLI.md's notes too.
    let home = TempHome::new();
    let out = scan(home.path(), &["-h"]).code(0).get_output().clone();
    let want = std::fs::read_to_string(support::testdata("guard/help.txt")).expect("snapshot");
    assert_eq!(String::from_utf8_lossy(&out.stdout), want);
}
