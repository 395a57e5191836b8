//! The scan of agent-written skills through the library, with a test double for the scanner:
//! a refused write is rolled back byte for byte, the answer names rule ids and never the
//! matched text, and the scan runs by default.

mod support;

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use hermes_loop::home::{Config, Home};
use hermes_loop::skills::guards::Origin;
use hermes_loop::skills::library::Library;
use hermes_loop::skills::manage::{ManageArgs, Session};
use hermes_loop::skills::runtime::Runtime;
use hermes_loop::skills::write_scan::{ScanError, ScanVerdict, WriteScanner};
use serde_json::json;
use support::TempHome;
use support::skills::{files_under, skill_md};

/// Refuses any skill whose files contain `EVIL`, naming two rules; counts its calls.
#[derive(Default)]
struct Double {
    calls: AtomicUsize,
}

impl WriteScanner for Double {
    fn scan_skill_dir(&self, dir: &Path) -> Result<ScanVerdict, ScanError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let evil = walkdir::WalkDir::new(dir)
            .into_iter()
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_file())
            .any(|e| std::fs::read_to_string(e.path()).is_ok_and(|t| t.contains("EVIL")));
        Ok(if evil {
            ScanVerdict::Refused {
                rules: vec!["curl_pipe_shell".into(), "reverse_shell".into()],
            }
        } else {
            ScanVerdict::Allowed
        })
    }
}

fn library(home: &TempHome, config: &str) -> Library {
    let config = Config::from_bytes(config.as_bytes(), Path::new("config.yaml")).expect("config");
    Library::new(Home::at(home.path()), config, Runtime::plain_linux())
}

fn call(session: &mut Session, args: serde_json::Value) -> serde_json::Value {
    session.manage(&ManageArgs::from_json(&args).expect("args"))
}

const REFUSAL: &str = "Security scan blocked this skill: it matches rules curl_pipe_shell, reverse_shell. The change was rolled back. Remove what those rules flag and retry; the matched text is not shown.";

#[test]
fn refused_writes_are_rolled_back() {
    let home = TempHome::new();
    let lib = library(&home, "");
    let scanner = Double::default();
    let mut s = Session::new(&lib, Origin::Foreground, &scanner);
    let good = skill_md("tool", "A tool.");
    assert_eq!(
        call(
            &mut s,
            json!({"action": "create", "name": "tool", "category": "new-cat", "content": good})
        )["success"],
        json!(true)
    );
    let before = files_under(&home.path().join("skills"));

    let evil = skill_md("evil", "EVIL payload.");
    let refused = call(
        &mut s,
        json!({"action": "create", "name": "evil", "category": "fresh", "content": evil}),
    );
    assert_eq!(refused, json!({"success": false, "error": REFUSAL}));
    assert!(
        !home.path().join("skills/fresh").exists(),
        "created category removed too"
    );

    let edits = [
        json!({"action": "edit", "name": "tool", "content": skill_md("tool", "EVIL now.")}),
        json!({"action": "patch", "name": "tool", "old_string": "A tool.", "new_string": "EVIL tool."}),
        json!({"action": "write_file", "name": "tool", "file_path": "scripts/deep/x.sh", "file_content": "EVIL\n"}),
    ];
    for args in edits {
        let answer = call(&mut s, args.clone());
        assert_eq!(
            answer,
            json!({"success": false, "error": REFUSAL}),
            "{args}"
        );
        assert!(
            !answer.to_string().contains("EVIL"),
            "never the matched text"
        );
        assert_eq!(files_under(&home.path().join("skills")), before, "{args}");
    }
    assert!(!home.path().join("skills/new-cat/tool/scripts").exists());

    assert_eq!(
        call(
            &mut s,
            json!({"action": "write_file", "name": "tool", "file_path": "references/a.md", "file_content": "fine\n"})
        )["success"],
        json!(true)
    );
    let with_file = files_under(&home.path().join("skills"));
    let overwrite = call(
        &mut s,
        json!({"action": "write_file", "name": "tool", "file_path": "references/a.md", "file_content": "EVIL\n"}),
    );
    assert_eq!(overwrite["error"], REFUSAL);
    assert_eq!(files_under(&home.path().join("skills")), with_file);
}

#[test]
fn scan_runs_by_default_and_can_be_turned_off() {
    let home = TempHome::new();
    let scanner = Double::default();
    {
        let lib = library(&home, "");
        let mut s = Session::new(&lib, Origin::Foreground, &scanner);
        call(
            &mut s,
            json!({"action": "create", "name": "a", "content": skill_md("a", "A.")}),
        );
    }
    assert_eq!(scanner.calls.load(Ordering::SeqCst), 1);
    let lib = library(&home, "skills:\n  guard_agent_created: false\n");
    let mut s = Session::new(&lib, Origin::Foreground, &scanner);
    let answer = call(
        &mut s,
        json!({"action": "create", "name": "b", "content": skill_md("b", "EVIL but unscanned.")}),
    );
    assert_eq!(answer["success"], json!(true));
    assert_eq!(
        scanner.calls.load(Ordering::SeqCst),
        1,
        "not called when off"
    );
}
