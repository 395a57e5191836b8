//! The skills hub and Python Hermes on one home: Python lists a skill we installed as
//! hub-installed (from our lock.json), hashes it as we recorded, and uninstalls it; we read,
//! check, audit and uninstall a skill Python installed, leaving the same lock.json bytes
//! Python's own uninstall leaves.

mod support;

use serde_json::{Value, json};
use support::hub_server::HubServer;
use support::{TempHome, copy_tree, peer};

const NOW: &str = "2026-11-29T19:09:05.304857+00:00";
const SKILL: &str = "---\nname: md-tables\ndescription: Formats markdown tables.\n---\n# Markdown tables\n\nAlign the pipes; see references/guide.md.\n";

fn hub(home: &TempHome, server: &HubServer, args: &[&str]) -> assert_cmd::Command {
    let mut cmd = support::bin("hermes-skills", home.path());
    cmd.env("HERMES_HUB_ALLOW_PRIVATE", server.authority())
        .env("HERMES_HUB_GITHUB_API", server.url(""))
        .env("HERMES_NOW", NOW)
        .env_remove("GITHUB_TOKEN")
        .env_remove("GH_TOKEN")
        .arg("hub")
        .args(args);
    cmd
}

fn lock(home: &TempHome) -> Value {
    serde_json::from_str(&home.read("skills/.hub/lock.json")).expect("lock.json")
}

#[test]
fn python_lists_our_install_as_hub_installed_and_can_uninstall_it() {
    let server = HubServer::start();
    server.well_known(
        "",
        &[(
            "md-tables",
            "Formats markdown tables.",
            &[("SKILL.md", SKILL), ("references/guide.md", "# Guide\n")],
        )],
    );
    let home = TempHome::new();
    let id = format!("well-known:{}/.well-known/skills/md-tables", server.url(""));
    hub(&home, &server, &["install", &id, "--category", "docs"])
        .assert()
        .success();

    let answer = peer(home.path(), "hub_list", &["hub"], None);
    let text = answer["text"].as_str().unwrap_or_default();
    let row = text
        .lines()
        .find(|l| l.contains("md-tables"))
        .unwrap_or_else(|| panic!("Python does not list md-tables:\n{text}"));
    let cells: Vec<&str> = row
        .split(['│', '|'])
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect();
    assert_eq!(
        cells,
        ["md-tables", "docs", "well-known", "community", "enabled"],
        "{text}"
    );
    assert!(
        text.contains("1 hub-installed, 0 builtin, 0 local — 1 enabled, 0 disabled"),
        "{text}"
    );
    // Python reads every field of our entry as we wrote it.
    let mut ours = lock(&home)["installed"]["md-tables"].clone();
    if let Value::Object(m) = &mut ours {
        m.insert("name".into(), json!("md-tables"));
    }
    let theirs = &answer["installed"][0];
    assert_eq!(support::json_diff(&ours, theirs), Vec::<String>::new());
    // Python hashes the installed folder to the content_hash we recorded.
    let dir = home.path().join("skills/docs/md-tables");
    let hash = peer(
        home.path(),
        "hub_content_hash",
        &[dir.to_str().unwrap_or_default()],
        None,
    );
    assert_eq!(hash, ours["content_hash"]);

    let gone = peer(home.path(), "hub_uninstall", &["md-tables"], None);
    assert_eq!(
        gone,
        json!({"ok": true, "message": "Uninstalled 'md-tables' from docs/md-tables"})
    );
    assert!(!dir.exists());
    assert_eq!(lock(&home)["installed"], json!({}));
    let audit = home.read("skills/.hub/audit.log");
    let last = audit.lines().last().unwrap_or_default();
    assert!(
        last.ends_with(" UNINSTALL md-tables well-known:community n/a user_request"),
        "{audit}"
    );
}

#[test]
fn we_read_check_audit_and_uninstall_a_lock_python_wrote() {
    let server = HubServer::start();
    let files = [("SKILL.md", SKILL), ("references/guide.md", "# Guide\n")];
    server.github_skill("someone/tools", "skills/md-tables", &files);
    let home = TempHome::new();
    let spec = json!({
        "name": "md-tables",
        "files": {"SKILL.md": SKILL, "references/guide.md": "# Guide\n"},
        "source": "github",
        "identifier": "someone/tools/skills/md-tables",
        "trust_level": "community",
        "category": "docs",
        "metadata": {"source_url": "https://github.com/someone/tools/tree/abc/skills/md-tables"},
    });
    let done = peer(
        home.path(),
        "hub_install_bundle",
        &[],
        Some(spec.to_string().as_bytes()),
    );
    assert_eq!(done["installed"], true, "{done}");

    // Our list sees it as hub-installed.
    let out = support::bin("hermes-skills", home.path())
        .args(["list", "--source", "hub", "--format", "json"])
        .output()
        .expect("list");
    let listed: Value = serde_json::from_slice(&out.stdout).expect("list JSON");
    let rows = listed.as_array().cloned().unwrap_or_default();
    assert_eq!(rows.len(), 1, "{listed}");
    assert_eq!(rows[0]["name"], "md-tables");
    assert_eq!(rows[0]["source"], "hub");

    // check: our hash of Python's install and of the upstream copy equal its content_hash.
    let python_hash = lock(&home)["installed"]["md-tables"]["content_hash"].clone();
    let out = hub(&home, &server, &["check", "--format", "jsonl"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let row: Value = serde_json::from_slice(&out).expect("check JSON");
    assert_eq!(
        row,
        json!({"type": "check", "name": "md-tables", "identifier": "someone/tools/skills/md-tables",
               "source": "github", "status": "up_to_date", "current_hash": python_hash,
               "latest_hash": python_hash, "locally_modified": false})
    );
    let out = hub(&home, &server, &["audit", "--format", "jsonl"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let row: Value = serde_json::from_slice(&out).expect("audit JSON");
    assert_eq!(
        row,
        json!({"type": "audit", "name": "md-tables", "identifier": "someone/tools/skills/md-tables",
               "trust_level": "community", "verdict": "safe", "install": "allow", "findings": 0})
    );

    // Our uninstall and Python's leave the same lock.json bytes.
    let twin = TempHome::new();
    copy_tree(home.path(), twin.path());
    hub(&home, &server, &["uninstall", "md-tables"])
        .assert()
        .success();
    let theirs = peer(twin.path(), "hub_uninstall", &["md-tables"], None);
    assert_eq!(theirs["ok"], true);
    assert_eq!(
        home.read("skills/.hub/lock.json"),
        twin.read("skills/.hub/lock.json")
    );
    let tail = |h: &TempHome| {
        h.read("skills/.hub/audit.log")
            .lines()
            .last()
            .map(|l| l[20..].to_string())
            .unwrap_or_default()
    };
    assert_eq!(tail(&home), tail(&twin));
    assert!(!home.path().join("skills/docs/md-tables").exists());
}
