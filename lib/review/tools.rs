//! The review's tools (reference `loop` §1.3, §1.6): `memory`, `skills_list`, `skill_view` and
//! `skill_manage`, answered with the `background_review` write origin, so every guard of the
//! skill library applies. Any other tool is refused at dispatch, whatever schemas the model
//! was shown (a review on the chat's own model is shown the chat's tools, for the prompt
//! cache). Every call is logged as an [`Action`]; in propose mode the stores are a scratch
//! copy and each successful write becomes a proposal with its diff.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use serde_json::{Value, json};

use super::diff;
use super::summary::Action;
use crate::agent::ToolHook;
use crate::memory::{self, MemoryStore};
use crate::skills::guards::{Origin, ReadMarks};
use crate::skills::library::Library;
use crate::skills::manage::{ManageArgs, Session};
use crate::skills::write_scan::WriteScanner;

/// The tools a review may call, sorted.
pub const WHITELIST: [&str; 4] = ["memory", "skill_manage", "skill_view", "skills_list"];

/// The result a refused tool gets (upstream's words, so a model tuned on them reads them).
pub fn refusal(name: &str) -> Value {
    json!({"error": format!(
        "Background review denied non-whitelisted tool: {name}. Only memory/skill tools are allowed."
    )})
}

/// What the review did, shared between the hook (inside the agent) and the caller.
#[derive(Debug, Default)]
pub struct Log {
    pub actions: Vec<Action>,
    /// Propose mode: one record per successful write (`proposal`) or view (`read`).
    pub proposals: Vec<Value>,
}

/// Where a proposal run writes instead of the home (its diffs are relative to it), and the
/// home it stands for.
pub struct Scratch {
    pub root: PathBuf,
    pub home: PathBuf,
}

/// The result with every mention of the scratch copy turned back into the home, so the
/// model sees what a direct run shows it.
fn unscratch(value: Value, scratch: &Scratch) -> Value {
    let from = scratch.root.display().to_string();
    let to = scratch.home.display().to_string();
    match value {
        Value::String(s) => Value::String(s.replace(&from, &to)),
        Value::Array(items) => {
            Value::Array(items.into_iter().map(|v| unscratch(v, scratch)).collect())
        }
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(k, v)| (k, unscratch(v, scratch)))
                .collect(),
        ),
        other => other,
    }
}

pub struct ReviewTools {
    library: Library,
    memory: Option<MemoryStore>,
    /// `memory.write_approval` is on: memory writes are staged, never made.
    stage_memory: Option<(crate::home::Home, f64)>,
    marks: ReadMarks,
    scanner: &'static dyn WriteScanner,
    log: Rc<RefCell<Log>>,
    scratch: Option<Scratch>,
}

impl ReviewTools {
    pub fn new(
        library: Library,
        memory: Option<MemoryStore>,
        log: Rc<RefCell<Log>>,
        scratch: Option<Scratch>,
    ) -> ReviewTools {
        ReviewTools {
            library,
            memory,
            stage_memory: None,
            marks: ReadMarks::default(),
            scanner: crate::guard::write_guard::agent_write_scanner(),
            log,
            scratch,
        }
    }

    /// Stages memory writes in `home` instead of making them (the approval gate).
    pub fn stage_memory_in(&mut self, home: crate::home::Home, now: f64) {
        self.stage_memory = Some((home, now));
    }

    fn session(&mut self) -> Session<'_> {
        let mut s = Session::new(&self.library, Origin::BackgroundReview, self.scanner);
        s.set_marks(std::mem::take(&mut self.marks));
        s
    }

    fn answer(&mut self, name: &str, args: &Value) -> Value {
        match name {
            "memory" => match (self.memory.as_mut(), &self.stage_memory) {
                (None, _) => memory::tool::unavailable(),
                (Some(_), Some((home, now))) => super::approval::stage(home, args, *now)
                    .unwrap_or_else(|e| json!({"success": false, "error": e.to_string()})),
                (Some(store), None) => memory::tool::answer(store, args),
            },
            "skills_list" => {
                let category = args.get("category").and_then(Value::as_str);
                crate::skills::list::skills_list_tool(&self.library, category)
            }
            "skill_view" => {
                let skill = args.get("name").and_then(Value::as_str).unwrap_or("");
                let file = args.get("file_path").and_then(Value::as_str);
                let mut s = self.session();
                let result = s.view(skill, file);
                let marks = s.take_marks();
                self.marks = marks;
                result
            }
            "skill_manage" => match ManageArgs::from_json(args) {
                Ok(manage) => {
                    let mut s = self.session();
                    let result = s.manage(&manage);
                    let marks = s.take_marks();
                    self.marks = marks;
                    result
                }
                Err(message) => json!({"success": false, "error": message}),
            },
            other => refusal(other),
        }
    }

    /// The files a write may touch, as text, keyed by their path under the scratch root.
    fn snapshot(&self, name: &str, args: &Value) -> BTreeMap<String, String> {
        let Some(scratch) = &self.scratch else {
            return BTreeMap::new();
        };
        let mut files = BTreeMap::new();
        match name {
            "memory" => {
                if let Some(store) = &self.memory {
                    for target in [memory::Target::Memory, memory::Target::User] {
                        read_into(&mut files, &scratch.root, store.path(target));
                    }
                }
            }
            "skill_manage" => {
                let skill = args.get("name").and_then(Value::as_str).unwrap_or("");
                if let Some(file) = self.library.catalog().find_dir(skill) {
                    for entry in walkdir::WalkDir::new(file.dir())
                        .into_iter()
                        .filter_map(Result::ok)
                        .filter(|e| e.file_type().is_file())
                    {
                        read_into(&mut files, &scratch.root, entry.path());
                    }
                }
            }
            _ => {}
        }
        files
    }
}

fn read_into(files: &mut BTreeMap<String, String>, root: &Path, path: &Path) {
    let Ok(bytes) = std::fs::read(path) else {
        return;
    };
    let rel = path
        .strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .into_owned();
    files.insert(rel, String::from_utf8_lossy(&bytes).into_owned());
}

impl ToolHook for ReviewTools {
    fn call(&mut self, name: &str, args: &Value) -> Value {
        let writes = name == "memory" || name == "skill_manage";
        let before = if writes {
            self.snapshot(name, args)
        } else {
            BTreeMap::new()
        };
        let mut result = self.answer(name, args);
        if let Some(scratch) = &self.scratch {
            result = unscratch(result, scratch);
        }
        let action = Action {
            tool: name.to_string(),
            arguments: args.clone(),
            result: result.clone(),
        };
        let proposed = if writes {
            super::summary::is_write(&action)
        } else {
            result.get("success").is_some_and(crate::pytext::truthy)
        };
        if self.scratch.is_some() && proposed {
            let record = if writes {
                let mut after = self.snapshot(name, args);
                // A write that moved the skill (an archive) leaves its old files behind in
                // `before` only; one that created it appears in `after` only.
                for key in before.keys() {
                    after.entry(key.clone()).or_default();
                }
                let text = diff::files(&before, &after);
                json!({"type": "proposal", "tool": name, "arguments": args, "diff": text})
            } else if name == "skill_view" {
                let mut view = serde_json::Map::new();
                view.insert("tool".into(), json!("skill_view"));
                if let Some(map) = args.as_object() {
                    for key in ["name", "file_path"] {
                        if let Some(v) = map.get(key) {
                            view.insert(key.into(), v.clone());
                        }
                    }
                }
                json!({"type": "read", "tool": "skill_view", "arguments": view})
            } else {
                Value::Null
            };
            if !record.is_null() {
                self.log.borrow_mut().proposals.push(record);
            }
        }
        self.log.borrow_mut().actions.push(action);
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::home::{Config, Home};
    use crate::memory::Limits;

    /// Review tools on the home in `dir` (or, with `home`, on `dir` as a scratch copy of
    /// it), with memory on, and their log.
    fn tools(dir: &Path, home: Option<&str>) -> (ReviewTools, Rc<RefCell<Log>>) {
        let config = Config::defaults();
        let at = Home::at(dir);
        let library = Library::new(
            at.clone(),
            config.clone(),
            crate::skills::runtime::Runtime::detect(&config),
        );
        let store =
            MemoryStore::load(&at, Limits::from_config(&config.memory)).expect("memory loads");
        let log = Rc::new(RefCell::new(Log::default()));
        let scratch = home.map(|home| Scratch {
            root: dir.to_path_buf(),
            home: PathBuf::from(home),
        });
        (
            ReviewTools::new(library, Some(store), log.clone(), scratch),
            log,
        )
    }

    const SKILL: &str = "---\nname: tidy-notes\ndescription: Tidy meeting notes into a list.\n---\n\n# Tidy notes\n\n1. List the decisions.\n";

    #[test]
    fn a_tool_off_the_whitelist_is_refused_and_logged() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (mut tools, log) = tools(dir.path(), None);
        let args = json!({"command": "rm -rf ~"});
        let result = tools.call("terminal", &args);
        let expected = json!({"error": "Background review denied non-whitelisted tool: terminal. Only memory/skill tools are allowed."});
        assert_eq!(result, expected);
        let log = log.borrow();
        assert_eq!(
            log.actions,
            vec![Action {
                tool: "terminal".into(),
                arguments: args,
                result: expected,
            }]
        );
        assert!(log.proposals.is_empty());
    }

    #[test]
    fn bad_skill_manage_arguments_are_an_error_result() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (mut tools, _) = tools(dir.path(), None);
        let result = tools.call("skill_manage", &json!({"action": "create", "name": 7}));
        assert_eq!(
            result,
            json!({"success": false, "error": "name must be a string."})
        );
    }

    #[test]
    fn in_propose_mode_a_created_skill_is_a_proposal_with_its_diff_and_paths_of_the_home() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (mut tools, log) = tools(dir.path(), Some("/home/u/.hermes"));
        let args = json!({"action": "create", "name": "tidy-notes", "content": SKILL});
        let result = tools.call("skill_manage", &args);
        assert_eq!(result["success"], true);
        // The model is shown the home, never the scratch copy it works in.
        assert_eq!(
            result["skill_md"],
            "/home/u/.hermes/skills/tidy-notes/SKILL.md"
        );
        let viewed = tools.call("skill_view", &json!({"name": "tidy-notes", "extra": 1}));
        assert_eq!(viewed["success"], true);
        // A write that fails proposes nothing.
        let again = tools.call("skill_manage", &args);
        assert_eq!(again["success"], false);
        let log = log.borrow();
        assert_eq!(log.actions.len(), 3);
        assert_eq!(
            log.proposals,
            vec![
                json!({
                    "type": "proposal",
                    "tool": "skill_manage",
                    "arguments": args,
                    "diff": "--- /dev/null\n+++ b/skills/tidy-notes/SKILL.md\n@@ -0,0 +1,8 @@\n+---\n+name: tidy-notes\n+description: Tidy meeting notes into a list.\n+---\n+\n+# Tidy notes\n+\n+1. List the decisions.\n",
                }),
                json!({
                    "type": "read",
                    "tool": "skill_view",
                    "arguments": {"tool": "skill_view", "name": "tidy-notes"},
                }),
            ]
        );
    }

    #[test]
    fn without_a_scratch_copy_nothing_is_proposed_and_results_are_left_as_they_are() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (mut tools, log) = tools(dir.path(), None);
        let args = json!({"action": "create", "name": "tidy-notes", "content": SKILL});
        let result = tools.call("skill_manage", &args);
        let written = dir.path().join("skills/tidy-notes/SKILL.md");
        assert_eq!(result["skill_md"], written.display().to_string());
        assert_eq!(std::fs::read_to_string(&written).expect("written"), SKILL);
        assert!(log.borrow().proposals.is_empty());
    }

    #[test]
    fn unscratch_rewrites_every_string_that_names_the_scratch_copy() {
        let scratch = Scratch {
            root: PathBuf::from("/tmp/scratch-1"),
            home: PathBuf::from("/home/u/.hermes"),
        };
        let value = json!({
            "path": "/tmp/scratch-1/skills/a",
            "list": ["/tmp/scratch-1/x", "/elsewhere", 3],
            "nested": {"at": "see /tmp/scratch-1/y and /tmp/scratch-1/z"},
            "flag": true,
        });
        assert_eq!(
            unscratch(value, &scratch),
            json!({
                "path": "/home/u/.hermes/skills/a",
                "list": ["/home/u/.hermes/x", "/elsewhere", 3],
                "nested": {"at": "see /home/u/.hermes/y and /home/u/.hermes/z"},
                "flag": true,
            })
        );
    }

    #[test]
    fn in_propose_mode_a_memory_entry_and_an_archive_are_proposals_with_their_diffs() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (mut tools, log) = tools(dir.path(), Some("/home/u/.hermes"));
        let umbrella = SKILL
            .replace("tidy-notes", "notes")
            .replace("Tidy meeting", "Meeting");
        for (name, content) in [("tidy-notes", SKILL), ("notes", umbrella.as_str())] {
            let created = tools.call(
                "skill_manage",
                &json!({"action": "create", "name": name, "content": content}),
            );
            assert_eq!(created["success"], true, "{created}");
        }
        tools.call("skill_view", &json!({"name": "tidy-notes"}));
        let archived = tools.call(
            "skill_manage",
            &json!({"action": "delete", "name": "tidy-notes", "absorbed_into": "notes"}),
        );
        assert_eq!(archived["success"], true, "{archived}");
        let added = tools.call(
            "memory",
            &json!({"action": "add", "target": "user", "content": "Likes tea."}),
        );
        assert_eq!(added["success"], true);
        let log = log.borrow();
        let diffs: Vec<&str> = log
            .proposals
            .iter()
            .filter_map(|p| p["diff"].as_str())
            .collect();
        assert_eq!(diffs.len(), 4);
        // The archived skill's files are gone from where they were.
        assert_eq!(
            diffs[2],
            "--- a/skills/tidy-notes/SKILL.md\n+++ /dev/null\n@@ -1,8 +0,0 @@\n----\n-name: tidy-notes\n-description: Tidy meeting notes into a list.\n----\n-\n-# Tidy notes\n-\n-1. List the decisions.\n"
        );
        assert_eq!(
            diffs[3],
            // Memory files end without a newline; the marker keeps the diff applicable.
            "--- /dev/null\n+++ b/memories/USER.md\n@@ -0,0 +1 @@\n+Likes tea.\n\\ No newline at end of file\n"
        );
    }
}
