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
        Value::String(s) if s.contains(&from) => Value::String(s.replace(&from, &to)),
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
