//! `skill_manage` — create, edit, patch, delete, write_file, remove_file — with Hermes's
//! validation, limits, messages and result objects, plus our guards and the scan of agent
//! writes. A [`Session`] is one writer (a person, the review, the curator): it carries the
//! write origin explicitly and remembers which files it has viewed, for the
//! read-before-write guard.
//!
//! Every file write is atomic (temp file, fsync, rename); a write the scan refuses, or one
//! that fails half-way, is rolled back so the skill is as it was.

use std::path::{Path, PathBuf};

use jiff::Timestamp;
use serde_json::{Map, Value as Json, json};

use super::approval;
use super::archive::archive_skill;
use super::catalog::{Catalog, SkillFile};
use super::discover::{self, SKILL_FILE};
use super::frontmatter::{fences, validate_for_write};
use super::guards::{
    Origin, ReadMarks, WriteKind, autonomous_refusal, delete_target_refusal, pinned_delete_refusal,
    unabsorbed_delete_refusal, unread_refusal,
};
use super::library::{Index, Library};
use super::limits::{
    HERMES_NAME, MAX_NAME_CHARS, MAX_SKILL_CHARS, MAX_SUPPORT_FILE_BYTES, SUPPORT_DIRS,
};
use super::provenance::Provenance;
use super::roots::RootKind;
use super::usage::{self, Event};
use super::view::{self, Viewed, has_traversal, within_dir};
use super::write_scan::{WriteScanner, refusal_message, scan_enabled};
use crate::clock;
use crate::io::atomic::{FileMode, write_atomic};
use crate::pytext::{self, thousands};
use crate::yaml::{self, Value};

/// The six actions, in the order Hermes lists them.
pub const ACTIONS: [&str; 6] = [
    "create",
    "edit",
    "patch",
    "delete",
    "write_file",
    "remove_file",
];

/// The arguments of one `skill_manage` call, as the tool receives them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ManageArgs {
    pub action: String,
    pub name: String,
    pub content: Option<String>,
    /// Any JSON: Hermes answers "Category must be a string." for a non-string.
    pub category: Option<Json>,
    pub file_path: Option<String>,
    pub file_content: Option<String>,
    pub old_string: Option<String>,
    pub new_string: Option<String>,
    pub replace_all: bool,
    /// `patch` only: accept nothing but an exact match (ours; the tool always matches
    /// fuzzily).
    pub exact: bool,
    /// Any JSON: only a non-blank string declares an umbrella.
    pub absorbed_into: Option<Json>,
}

impl ManageArgs {
    /// Reads a tool-call argument object. Text fields must be strings (or null).
    pub fn from_json(value: &Json) -> Result<ManageArgs, String> {
        let Json::Object(obj) = value else {
            return Err("skill_manage arguments must be a JSON object.".into());
        };
        let text = |key: &str| -> Result<Option<String>, String> {
            match obj.get(key) {
                None | Some(Json::Null) => Ok(None),
                Some(Json::String(s)) => Ok(Some(s.clone())),
                Some(_) => Err(format!("{key} must be a string.")),
            }
        };
        let action = match obj.get("action") {
            None | Some(Json::Null) => String::new(),
            Some(Json::String(s)) => s.clone(),
            Some(other) => other.to_string(),
        };
        Ok(ManageArgs {
            action,
            name: text("name")?.unwrap_or_default(),
            content: text("content")?,
            category: obj.get("category").filter(|v| !v.is_null()).cloned(),
            file_path: text("file_path")?,
            file_content: text("file_content")?,
            old_string: text("old_string")?,
            new_string: text("new_string")?,
            replace_all: obj.get("replace_all").is_some_and(crate::pytext::truthy),
            exact: obj.get("exact").is_some_and(crate::pytext::truthy),
            absorbed_into: obj.get("absorbed_into").filter(|v| !v.is_null()).cloned(),
        })
    }

    /// The staged payload: action, name, then every argument that is not null.
    fn payload(&self) -> Map<String, Json> {
        let mut p = Map::new();
        p.insert("action".into(), json!(self.action));
        p.insert("name".into(), json!(self.name));
        let mut put = |key: &str, value: Option<Json>| {
            if let Some(v) = value {
                p.insert(key.into(), v);
            }
        };
        put("content", self.content.clone().map(Json::String));
        put("category", self.category.clone());
        put("file_path", self.file_path.clone().map(Json::String));
        put("file_content", self.file_content.clone().map(Json::String));
        put("old_string", self.old_string.clone().map(Json::String));
        put("new_string", self.new_string.clone().map(Json::String));
        put("replace_all", Some(Json::Bool(self.replace_all)));
        put("absorbed_into", self.absorbed_into.clone());
        put("exact", self.exact.then_some(Json::Bool(true)));
        p
    }
}

type Outcome = Result<Json, Json>;

fn fail(message: impl Into<String>) -> Json {
    json!({"success": false, "error": message.into()})
}

/// Every failure to read or write the file system starts its error with this (and no
/// refusal does), so a person's command can exit 2 for an I/O error and 1 for a refusal
/// without a key the tool's answer does not have.
pub const IO_ERROR_PREFIX: &str = "could not ";

/// Whether a failed answer is an I/O error rather than a refusal.
pub fn is_io_failure(result: &Json) -> bool {
    result.get("success") == Some(&Json::Bool(false))
        && result
            .get("error")
            .and_then(Json::as_str)
            .is_some_and(|e| e.starts_with(IO_ERROR_PREFIX))
}

/// `tool_error(message, success=False)`: Hermes's argument errors put `error` first.
fn tool_error(message: &str) -> Json {
    json!({"error": message, "success": false})
}

fn now() -> Timestamp {
    clock::now().unwrap_or_else(|_| Timestamp::now())
}

/// One writer's session with the library.
pub struct Session<'a> {
    pub lib: &'a Library,
    pub origin: Origin,
    scanner: &'a dyn WriteScanner,
    marks: ReadMarks,
    /// Bump view and use counters on a successful view (as the tool does).
    pub count_views: bool,
    /// Replaying an approved staged write: the approval gate is skipped.
    pub approved_replay: bool,
    /// Sidecar updates that failed (best effort, as in Hermes); for the caller to report.
    pub warnings: Vec<String>,
    /// How the last successful patch found its text (for a person's `patch`, which says
    /// when the match was approximate; the tool's answer stays Hermes's).
    pub last_match: Option<PatchMatch>,
}

/// How a patch found the old text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatchMatch {
    /// `exact`, or the fuzzy strategy that matched (`line_trimmed`, `block_anchor`, …).
    pub strategy: &'static str,
    /// Each match: its first line in the file and the text it replaced.
    pub matched: Vec<(usize, String)>,
}

impl<'a> Session<'a> {
    pub fn new(lib: &'a Library, origin: Origin, scanner: &'a dyn WriteScanner) -> Session<'a> {
        Session {
            lib,
            origin,
            scanner,
            marks: ReadMarks::default(),
            count_views: true,
            approved_replay: false,
            warnings: Vec::new(),
            last_match: None,
        }
    }

    /// The files this session has viewed, to carry into the next session of the same writer
    /// (a review makes one session per call but must remember its reads across them).
    pub fn take_marks(&mut self) -> ReadMarks {
        std::mem::take(&mut self.marks)
    }

    pub fn set_marks(&mut self, marks: ReadMarks) {
        self.marks = marks;
    }

    /// `skill_view` as the tool runs it: resolve and read, then bump the skill's view and
    /// use counters and remember the file for the read-before-write guard.
    pub fn view(&mut self, name: &str, file_path: Option<&str>) -> Json {
        let catalog = self.lib.catalog();
        let Viewed {
            result,
            bump_name,
            read_path,
        } = view::skill_view(self.lib, &catalog, name, file_path);
        if let Some(path) = read_path {
            self.marks.mark(&path);
        }
        if self.count_views
            && let Some(bumped) = bump_name
            && let Err(e) = usage::bump(&self.lib.home, &bumped, &[Event::View, Event::Use], now())
        {
            self.warnings.push(format!("usage not recorded: {e}"));
        }
        result
    }

    /// One `skill_manage` call; the tool's result object.
    pub fn manage(&mut self, args: &ManageArgs) -> Json {
        let action = args.action.as_str();
        if self.origin.is_autonomous()
            && ["edit", "patch", "delete", "write_file", "remove_file"].contains(&action)
        {
            let catalog = self.lib.catalog();
            if let Some(file) = catalog.find_dir(&args.name)
                && let Some(refusal) = self.autonomous_guard(action, &args.name, file.dir())
            {
                return refusal;
            }
        }
        if ACTIONS.contains(&action)
            && self.lib.config.skills.write_approval
            && !self.approved_replay
        {
            return self.stage(args);
        }
        let outcome: Outcome = match action {
            "create" => match args.content.as_deref().filter(|c| !c.is_empty()) {
                None => {
                    return tool_error(
                        "content is required for 'create'. Provide the full SKILL.md text (frontmatter + body).",
                    );
                }
                Some(content) => self.create(&args.name, content, args.category.as_ref()),
            },
            "edit" => match args.content.as_deref().filter(|c| !c.is_empty()) {
                None => {
                    return tool_error(
                        "content is required for 'edit'. Provide the full updated SKILL.md text.",
                    );
                }
                Some(content) => self.edit(&args.name, content),
            },
            "patch" => {
                let Some(old) = args.old_string.as_deref().filter(|s| !s.is_empty()) else {
                    return tool_error(
                        "old_string is required for 'patch'. Provide the text to find.",
                    );
                };
                let Some(new) = args.new_string.as_deref() else {
                    return tool_error(
                        "new_string is required for 'patch'. Use empty string to delete matched text.",
                    );
                };
                self.patch(
                    &args.name,
                    old,
                    new,
                    args.file_path.as_deref(),
                    (args.replace_all, args.exact),
                )
            }
            "delete" => self.delete(&args.name, args.absorbed_into.as_ref()),
            "write_file" => {
                let Some(fp) = args.file_path.as_deref().filter(|s| !s.is_empty()) else {
                    return tool_error(
                        "file_path is required for 'write_file'. Example: 'references/api-guide.md'",
                    );
                };
                let Some(body) = args.file_content.as_deref() else {
                    return tool_error("file_content is required for 'write_file'.");
                };
                self.write_file(&args.name, fp, body)
            }
            "remove_file" => {
                let Some(fp) = args.file_path.as_deref().filter(|s| !s.is_empty()) else {
                    return tool_error("file_path is required for 'remove_file'.");
                };
                self.remove_file(&args.name, fp)
            }
            other => Err(fail(format!(
                "Unknown action '{other}'. Use: create, edit, patch, delete, write_file, remove_file"
            ))),
        };
        let result = match outcome {
            Ok(result) | Err(result) => result,
        };
        if result.get("success") == Some(&Json::Bool(true)) {
            self.after_success(action, &args.name, &result);
        }
        result
    }

    fn after_success(&mut self, action: &str, name: &str, result: &Json) {
        self.lib.invalidate_prompt_snapshot();
        let home = &self.lib.home;
        let outcome = match action {
            "create" if self.origin.is_autonomous() => {
                let index = Index::build(self.lib);
                if index.is_curation_eligible(self.lib, name, None) {
                    usage::mark_agent_created(home, name, now()).map(|_| ())
                } else {
                    Ok(())
                }
            }
            "patch" | "edit" | "write_file" | "remove_file" => {
                usage::bump(home, name, &[Event::Patch], now()).map(|_| ())
            }
            "delete" if result.get("_archived").is_none() => usage::forget(home, name),
            _ => Ok(()),
        };
        if let Err(e) = outcome {
            self.warnings.push(format!("usage not recorded: {e}"));
        }
    }

    fn stage(&mut self, args: &ManageArgs) -> Json {
        let summary = approval::gist(
            &args.action,
            &args.name,
            args.content.as_deref().unwrap_or(""),
            args.file_path.as_deref().unwrap_or(""),
            args.old_string.as_deref().unwrap_or(""),
            args.new_string.as_deref().unwrap_or(""),
        );
        match approval::stage(
            &self.lib.home,
            args.payload(),
            &summary,
            self.origin.as_str(),
            now(),
        ) {
            Ok(answer) => answer,
            Err(e) => fail(format!("could not stage the write for approval: {e}")),
        }
    }

    fn autonomous_guard(&self, action: &str, name: &str, skill_dir: &Path) -> Option<Json> {
        if !self.origin.is_autonomous() {
            return None;
        }
        let kind = if action == "delete" {
            WriteKind::Remove
        } else {
            WriteKind::Content
        };
        let usage = usage::load(&self.lib.home);
        let provenance = Provenance::load(&self.lib.home, &self.lib.config);
        autonomous_refusal(
            action,
            kind,
            name,
            skill_dir,
            &usage,
            &provenance,
            &self.lib.roots,
        )
    }

    fn unread_guard(
        &self,
        action: &str,
        name: &str,
        label: &str,
        target: &Path,
    ) -> Result<(), Json> {
        if !self.origin.is_autonomous() {
            return Ok(());
        }
        match unread_refusal(action, name, label, target, &self.marks) {
            Some(refusal) => Err(refusal),
            None => Ok(()),
        }
    }

    /// Runs the scan of agent writes when it is on; the refusal message when refused.
    fn scan(&self, skill_dir: &Path) -> Option<String> {
        if !scan_enabled(&self.lib.config) {
            return None;
        }
        refusal_message(&self.scanner.scan_skill_dir(skill_dir))
    }

    fn find(&self, catalog: &'_ Catalog, name: &str, suffix: &str) -> Result<SkillFile, Json> {
        catalog
            .find_dir(name)
            .cloned()
            .ok_or_else(|| fail(self.not_found(name, suffix)))
    }

    /// `_skill_not_found_error`, naming other profiles that have the skill.
    fn not_found(&self, name: &str, suffix: &str) -> String {
        let mut message = format!(
            "Skill '{name}' not found in active profile '{}'.",
            self.lib.profile_name()
        );
        let others = other_profiles_with(self.lib, name);
        match others.as_slice() {
            [] => message.push_str(" Use skills_list() to see available skills."),
            [(profile, path)] => message.push_str(&format!(
                " A skill by that name exists in profile '{profile}' ({}). To edit a skill in another profile, switch profiles (`hermes -p {profile}`) or operate via explicit file tools with ``cross_profile=True``.",
                path.display()
            )),
            many => {
                let names: Vec<String> = many.iter().map(|(p, _)| format!("'{p}'")).collect();
                message.push_str(&format!(
                    " Skills by that name exist in other profiles: {}. Switch profiles (`hermes -p <name>`) to edit there, or operate via explicit file tools with ``cross_profile=True``.",
                    names.join(", ")
                ));
            }
        }
        message.push_str(suffix);
        message
    }

    // ── actions ─────────────────────────────────────────────────────────────────────────

    fn create(&mut self, name: &str, content: &str, category: Option<&Json>) -> Outcome {
        validate_name(name).map_err(fail)?;
        let category = validate_category(category).map_err(fail)?;
        validate_for_write(content).map_err(fail)?;
        content_size(content, "SKILL.md").map_err(fail)?;
        let catalog = self.lib.catalog();
        if let Some(existing) = catalog.find_dir(name) {
            return Err(fail(format!(
                "A skill named '{name}' already exists at {}.",
                existing.dir().display()
            )));
        }
        let local = &self.lib.roots.local;
        let skill_dir = match &category {
            Some(c) => local.join(c).join(name),
            None => local.join(name),
        };
        let created = create_dirs(&skill_dir).map_err(fail)?;
        let skill_md = skill_dir.join(SKILL_FILE);
        if let Err(e) = write_atomic(&skill_md, content.as_bytes(), FileMode::Private) {
            remove_created(&skill_md, None, created.as_deref());
            return Err(fail(format!(
                "could not write {}: {}",
                skill_md.display(),
                e.source
            )));
        }
        if let Some(refusal) = self.scan(&skill_dir) {
            remove_created(&skill_md, None, created.as_deref());
            return Err(fail(refusal));
        }
        let mut result = Map::new();
        result.insert("success".into(), json!(true));
        result.insert("message".into(), json!(format!("Skill '{name}' created.")));
        result.insert(
            "path".into(),
            json!(
                skill_dir
                    .strip_prefix(local)
                    .unwrap_or(&skill_dir)
                    .display()
                    .to_string()
            ),
        );
        result.insert("skill_md".into(), json!(skill_md.display().to_string()));
        result.insert(
            "_change".into(),
            json!({"description": change_description(content)}),
        );
        if let Some(c) = &category {
            result.insert("category".into(), json!(c));
        }
        result.insert(
            "hint".into(),
            json!(format!(
                "To add reference files, templates, or scripts, use skill_manage(action='write_file', name='{name}', file_path='references/example.md', file_content='...')"
            )),
        );
        Ok(Json::Object(result))
    }

    fn edit(&mut self, name: &str, content: &str) -> Outcome {
        validate_for_write(content).map_err(fail)?;
        content_size(content, "SKILL.md").map_err(fail)?;
        let catalog = self.lib.catalog();
        let existing = self.find(&catalog, name, "")?;
        if let Some(refusal) = self.autonomous_guard("edit", name, existing.dir()) {
            return Err(refusal);
        }
        let skill_md = existing.dir().join(SKILL_FILE);
        self.unread_guard("edit", name, "SKILL.md", &skill_md)?;
        let original = std::fs::read(&skill_md).ok();
        write_atomic(&skill_md, content.as_bytes(), FileMode::Private).map_err(|e| {
            fail(format!(
                "could not write {}: {}",
                skill_md.display(),
                e.source
            ))
        })?;
        if let Some(refusal) = self.scan(existing.dir()) {
            restore(&skill_md, original.as_deref(), None);
            return Err(fail(refusal));
        }
        Ok(json!({
            "success": true,
            "message": format!("Skill '{name}' updated (full rewrite)."),
            "path": existing.dir().display().to_string(),
            "_change": {"description": change_description(content)},
        }))
    }

    fn patch(
        &mut self,
        name: &str,
        old: &str,
        new: &str,
        file_path: Option<&str>,
        (replace_all, exact): (bool, bool),
    ) -> Outcome {
        self.last_match = None;
        let catalog = self.lib.catalog();
        let existing = self.find(&catalog, name, "")?;
        let skill_dir = existing.dir();
        if let Some(refusal) = self.autonomous_guard("patch", name, skill_dir) {
            return Err(refusal);
        }
        let file_path = file_path.filter(|f| !f.is_empty());
        let target = match file_path {
            Some(fp) => {
                validate_file_path(fp).map_err(fail)?;
                resolve_target(skill_dir, fp).map_err(fail)?
            }
            None => skill_dir.join(SKILL_FILE),
        };
        if !target.exists() {
            return Err(fail(format!(
                "File not found: {}",
                target.strip_prefix(skill_dir).unwrap_or(&target).display()
            )));
        }
        let label = file_path.unwrap_or("SKILL.md");
        self.unread_guard("patch", name, label, &target)?;
        let content = pytext::read_utf8(&target).map_err(fail)?;
        let found = super::fuzzy::find_and_replace_with(&content, old, new, replace_all, exact);
        let replaced = match found {
            Ok(r) => r,
            Err(e) if exact && e.message.starts_with("Could not find") => {
                let approximate = super::fuzzy::find_and_replace(&content, old, new, replace_all)
                    .ok()
                    .and_then(|r| r.matched.into_iter().next());
                let error = match approximate {
                    Some((line, text)) => format!(
                        "No exact match for old_string in {label}; an approximate match starts at line {line}: {:?}. Nothing was changed (drop --exact to accept it).",
                        text.lines().next().unwrap_or("")
                    ),
                    None => {
                        format!("No exact match for old_string in {label}. Nothing was changed.")
                    }
                };
                return Err(fail(error));
            }
            Err(e) => {
                let hint = super::fuzzy::no_match_hint(&e.message, old, &content);
                let preview = if pytext::char_len(&content) > 500 {
                    format!("{}...", pytext::take_chars(&content, 500))
                } else {
                    content.clone()
                };
                return Err(json!({
                    "success": false,
                    "error": format!("{}{hint}", e.message),
                    "file_preview": preview,
                }));
            }
        };
        content_size(&replaced.content, label).map_err(fail)?;
        if file_path.is_none()
            && let Err(e) = validate_for_write(&replaced.content)
        {
            return Err(fail(format!("Patch would break SKILL.md structure: {e}")));
        }
        write_atomic(&target, replaced.content.as_bytes(), FileMode::Private).map_err(|e| {
            fail(format!(
                "could not write {}: {}",
                target.display(),
                e.source
            ))
        })?;
        if let Some(refusal) = self.scan(skill_dir) {
            restore(&target, Some(content.as_bytes()), None);
            return Err(fail(refusal));
        }
        let n = replaced.count;
        self.last_match = Some(PatchMatch {
            strategy: replaced.strategy,
            matched: replaced.matched,
        });
        Ok(json!({
            "success": true,
            "message": format!(
                "Patched {label} in skill '{name}' ({n} replacement{}).",
                if n > 1 { "s" } else { "" }
            ),
            "_change": {"old": preview_change(old), "new": preview_change(new)},
        }))
    }

    fn delete(&mut self, name: &str, absorbed_into: Option<&Json>) -> Outcome {
        let catalog = self.lib.catalog();
        let existing = self.find(&catalog, name, "")?;
        let skill_dir = existing.dir().to_path_buf();
        if let Some(refusal) = self.autonomous_guard("delete", name, &skill_dir) {
            return Err(refusal);
        }
        if self.origin.is_autonomous()
            && let Some(refusal) = unabsorbed_delete_refusal(name, absorbed_into)
        {
            return Err(refusal);
        }
        if let Some(refusal) = pinned_delete_refusal(name, &usage::load(&self.lib.home)) {
            return Err(fail(refusal));
        }
        let umbrella = match absorbed_into {
            Some(Json::String(s)) => s.trim().to_string(),
            _ => String::new(),
        };
        if !umbrella.is_empty() {
            if umbrella == name {
                return Err(fail(format!(
                    "absorbed_into='{umbrella}' cannot equal the skill being deleted."
                )));
            }
            if catalog.find_dir(&umbrella).is_none() {
                return Err(fail(format!(
                    "absorbed_into='{umbrella}' does not exist. Create or patch the umbrella skill first, then retry the delete."
                )));
            }
        }
        if let Some(refusal) = delete_target_refusal(&skill_dir, &self.lib.roots) {
            return Err(fail(refusal));
        }
        let absorbed = if umbrella.is_empty() {
            String::new()
        } else {
            format!(" Content absorbed into '{umbrella}'.")
        };
        if self.origin.is_autonomous() {
            let mut index = Index::build(self.lib);
            return match archive_skill(self.lib, &mut index, name, now()) {
                Ok(message) => Ok(json!({
                    "success": true,
                    "message": format!("Skill '{name}' archived ({message}).{absorbed}"),
                    "_archived": true,
                })),
                Err(message) => Err(fail(message)),
            };
        }
        // Unlinking SKILL.md first makes the skill vanish from every walk in one step, so a
        // removal that fails half-way never leaves a half-deleted skill behind.
        let skill_md = skill_dir.join(SKILL_FILE);
        std::fs::remove_file(&skill_md)
            .map_err(|e| fail(format!("could not delete {}: {e}", skill_md.display())))?;
        if let Err(e) = std::fs::remove_dir_all(&skill_dir) {
            return Err(fail(format!(
                "Skill '{name}' is no longer a skill (its SKILL.md was removed), but {} could not be removed completely: {e}",
                skill_dir.display()
            )));
        }
        let root = match existing.root {
            RootKind::Local => self.lib.roots.local.clone(),
            RootKind::External(i) => self.lib.roots.external[i].clone(),
        };
        // `remove_dir` refuses a directory that is not empty: only an emptied category goes.
        if let Some(parent) = skill_dir.parent()
            && parent != root
        {
            let _ = std::fs::remove_dir(parent);
        }
        Ok(json!({"success": true, "message": format!("Skill '{name}' deleted.{absorbed}")}))
    }

    fn write_file(&mut self, name: &str, file_path: &str, body: &str) -> Outcome {
        validate_file_path(file_path).map_err(fail)?;
        let bytes = body.len();
        if bytes > MAX_SUPPORT_FILE_BYTES {
            return Err(fail(format!(
                "File content is {} bytes (limit: {} bytes / 1 MiB). Consider splitting into smaller files.",
                thousands(bytes),
                thousands(MAX_SUPPORT_FILE_BYTES)
            )));
        }
        content_size(body, file_path).map_err(fail)?;
        let catalog = self.lib.catalog();
        let existing = self.find(&catalog, name, " Create it first with action='create'.")?;
        let skill_dir = existing.dir();
        if let Some(refusal) = self.autonomous_guard("write_file", name, skill_dir) {
            return Err(refusal);
        }
        let target = resolve_target(skill_dir, file_path).map_err(fail)?;
        if target.exists() {
            self.unread_guard("write_file", name, file_path, &target)?;
        }
        let parent = target.parent().unwrap_or(skill_dir).to_path_buf();
        let created = create_dirs(&parent).map_err(fail)?;
        let original = std::fs::read(&target).ok();
        if let Err(e) = write_atomic(&target, body.as_bytes(), FileMode::Private) {
            restore(&target, original.as_deref(), created.as_deref());
            return Err(fail(format!(
                "could not write {}: {}",
                target.display(),
                e.source
            )));
        }
        if let Some(refusal) = self.scan(skill_dir) {
            restore(&target, original.as_deref(), created.as_deref());
            return Err(fail(refusal));
        }
        Ok(json!({
            "success": true,
            "message": format!("File '{file_path}' written to skill '{name}'."),
            "path": target.display().to_string(),
        }))
    }

    fn remove_file(&mut self, name: &str, file_path: &str) -> Outcome {
        validate_file_path(file_path).map_err(fail)?;
        let catalog = self.lib.catalog();
        let existing = self.find(&catalog, name, "")?;
        let skill_dir = existing.dir();
        if let Some(refusal) = self.autonomous_guard("remove_file", name, skill_dir) {
            return Err(refusal);
        }
        let target = resolve_target(skill_dir, file_path).map_err(fail)?;
        if !target.exists() {
            let mut available = Vec::new();
            for sub in SUPPORT_DIRS {
                let dir = skill_dir.join(sub);
                for entry in walkdir::WalkDir::new(&dir)
                    .min_depth(1)
                    .sort_by_file_name()
                    .into_iter()
                    .flatten()
                {
                    if entry.path().is_file() {
                        available.push(
                            entry
                                .path()
                                .strip_prefix(skill_dir)
                                .unwrap_or(entry.path())
                                .display()
                                .to_string(),
                        );
                    }
                }
            }
            return Err(json!({
                "success": false,
                "error": format!("File '{file_path}' not found in skill '{name}'."),
                "available_files": if available.is_empty() { Json::Null } else { json!(available) },
            }));
        }
        self.unread_guard("remove_file", name, file_path, &target)?;
        std::fs::remove_file(&target)
            .map_err(|e| fail(format!("could not remove {}: {e}", target.display())))?;
        // `remove_dir` refuses a directory that is not empty: only an emptied one goes.
        if let Some(parent) = target.parent()
            && parent != skill_dir
        {
            let _ = std::fs::remove_dir(parent);
        }
        Ok(json!({
            "success": true,
            "message": format!("File '{file_path}' removed from skill '{name}'."),
        }))
    }
}

// ── validation ──────────────────────────────────────────────────────────────────────────

/// `_validate_name`.
pub fn validate_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("Skill name is required.".into());
    }
    if pytext::char_len(name) > MAX_NAME_CHARS {
        return Err(format!("Skill name exceeds {MAX_NAME_CHARS} characters."));
    }
    if !HERMES_NAME.is_match(name) {
        return Err(format!(
            "Invalid skill name '{name}'. Use lowercase letters, numbers, hyphens, dots, and underscores. Must start with a letter or digit."
        ));
    }
    Ok(())
}

/// `_validate_category`; the category to use (stripped, `None` when blank).
pub fn validate_category(category: Option<&Json>) -> Result<Option<String>, String> {
    let Some(value) = category else {
        return Ok(None);
    };
    let Json::String(raw) = value else {
        return Err("Category must be a string.".into());
    };
    let category = pytext::strip(raw);
    if category.is_empty() {
        return Ok(None);
    }
    let invalid = || {
        format!(
            "Invalid category '{category}'. Use lowercase letters, numbers, hyphens, dots, and underscores. Categories must be a single directory name."
        )
    };
    if category.contains('/') || category.contains('\\') {
        return Err(invalid());
    }
    if pytext::char_len(category) > MAX_NAME_CHARS {
        return Err(format!("Category exceeds {MAX_NAME_CHARS} characters."));
    }
    if !HERMES_NAME.is_match(category) {
        return Err(invalid());
    }
    Ok(Some(category.to_string()))
}

/// `_validate_content_size`: at most 100,000 characters.
pub fn content_size(content: &str, label: &str) -> Result<(), String> {
    let n = pytext::char_len(content);
    if n > MAX_SKILL_CHARS {
        return Err(format!(
            "{label} content is {} characters (limit: {}). Consider splitting into a smaller SKILL.md with supporting files in references/ or templates/.",
            thousands(n),
            thousands(MAX_SKILL_CHARS)
        ));
    }
    Ok(())
}

/// The components of a relative path as `pathlib` parses it (empty and `.` parts dropped;
/// a leading `/` is its own part).
fn path_parts(p: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    if p.starts_with('/') {
        parts.push("/");
    }
    parts.extend(p.split('/').filter(|s| !s.is_empty() && *s != "."));
    parts
}

/// `_validate_file_path`: under `assets/`, `references/`, `scripts/` or `templates/` (or
/// `SKILL.md` itself), with a file name, without `..`.
pub fn validate_file_path(file_path: &str) -> Result<(), String> {
    if file_path.is_empty() {
        return Err("file_path is required.".into());
    }
    if has_traversal(file_path) {
        return Err("Path traversal ('..') is not allowed.".into());
    }
    let parts = path_parts(file_path);
    if parts.last() == Some(&SKILL_FILE) && (1..=2).contains(&parts.len()) {
        return Ok(());
    }
    if parts.is_empty() || !SUPPORT_DIRS.contains(&parts[0]) {
        return Err(format!(
            "File must be under one of: {}. Got: '{file_path}'",
            SUPPORT_DIRS.join(", ")
        ));
    }
    if parts.len() < 2 {
        return Err(format!(
            "Provide a file path, not just a directory. Example: '{}/myfile.md'",
            parts[0]
        ));
    }
    Ok(())
}

/// `_resolve_skill_target`: the file inside the skill directory, or why not.
pub fn resolve_target(skill_dir: &Path, file_path: &str) -> Result<PathBuf, String> {
    if file_path.contains('\0') {
        return Err("Path escapes allowed directory: embedded null byte".into());
    }
    let target = skill_dir.join(file_path);
    within_dir(&target, skill_dir)?;
    Ok(target)
}

/// The `description` of new content for the change preview: the YAML after the opening
/// fence, `str(description)[:120]`, empty when anything is off.
fn change_description(content: &str) -> String {
    let after: String = content.chars().skip(3).collect();
    let padded = format!("---{after}");
    let Some(found) = fences(&padded) else {
        return String::new();
    };
    match yaml::load(found.yaml, "<unicode string>") {
        Ok(Value::Map(map)) => {
            let text = map.get("description").map_or(String::new(), Value::py_str);
            pytext::take_chars(&text, 120).to_string()
        }
        _ => String::new(),
    }
}

/// `old[:200]` plus `…` when cut.
fn preview_change(text: &str) -> String {
    if pytext::char_len(text) > 200 {
        format!("{}…", pytext::take_chars(text, 200))
    } else {
        text.to_string()
    }
}

// ── file helpers ────────────────────────────────────────────────────────────────────────

/// `mkdir -p`, returning the topmost directory it created (for rollback).
fn create_dirs(dir: &Path) -> Result<Option<PathBuf>, String> {
    let mut missing = Vec::new();
    let mut cursor = Some(dir);
    while let Some(d) = cursor {
        if d.exists() {
            break;
        }
        missing.push(d.to_path_buf());
        cursor = d.parent();
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("could not create {}: {e}", dir.display()))?;
    Ok(missing.pop())
}

/// Removes a file written by a failed create, and the directories created for it.
fn remove_created(file: &Path, _original: Option<&[u8]>, created: Option<&Path>) {
    let _ = std::fs::remove_file(file);
    if let Some(top) = created {
        let _ = std::fs::remove_dir_all(top);
    }
}

/// Puts a file back as it was: the original bytes, or gone (with any directories created
/// for it) when it did not exist.
fn restore(file: &Path, original: Option<&[u8]>, created: Option<&Path>) {
    match original {
        Some(bytes) => {
            let _ = write_atomic(file, bytes, FileMode::Private);
        }
        None => remove_created(file, None, created),
    }
}

/// Other profiles of the same Hermes root holding a skill directory named `name`.
fn other_profiles_with(lib: &Library, name: &str) -> Vec<(String, PathBuf)> {
    let home = lib.home.root();
    let root = match home.parent() {
        Some(parent) if parent.file_name().is_some_and(|n| n == "profiles") => {
            parent.parent().unwrap_or(home).to_path_buf()
        }
        _ => home.to_path_buf(),
    };
    let active = crate::home::resolve_lenient(&lib.roots.local);
    let mut candidates: Vec<(String, PathBuf)> = Vec::new();
    let default_skills = root.join("skills");
    if crate::home::resolve_lenient(&default_skills) != active {
        candidates.push(("default".into(), default_skills));
    }
    if let Ok(entries) = std::fs::read_dir(root.join("profiles")) {
        let mut profiles: Vec<PathBuf> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
        profiles.sort();
        for profile in profiles.into_iter().filter(|p| p.is_dir()) {
            let skills = profile.join("skills");
            if crate::home::resolve_lenient(&skills) == active {
                continue;
            }
            let label = profile
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            candidates.push((label, skills));
        }
    }
    let mut found = Vec::new();
    for (profile, skills) in candidates {
        if !skills.is_dir() {
            continue;
        }
        if let Some(md) = discover::skill_files(&skills).files.into_iter().find(|md| {
            md.parent()
                .and_then(Path::file_name)
                .is_some_and(|n| n == name)
        }) {
            found.push((
                profile,
                md.parent().map(Path::to_path_buf).unwrap_or_default(),
            ));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_categories() {
        assert_eq!(validate_name(""), Err("Skill name is required.".into()));
        assert_eq!(
            validate_name(&"a".repeat(65)),
            Err("Skill name exceeds 64 characters.".into())
        );
        assert!(
            validate_name("Bad")
                .expect_err("bad")
                .starts_with("Invalid skill name 'Bad'.")
        );
        assert_eq!(validate_category(None), Ok(None));
        assert_eq!(validate_category(Some(&json!("  "))), Ok(None));
        assert_eq!(
            validate_category(Some(&json!(" dev "))),
            Ok(Some("dev".into()))
        );
        assert_eq!(
            validate_category(Some(&json!(3))),
            Err("Category must be a string.".into())
        );
        assert!(
            validate_category(Some(&json!("a/b")))
                .expect_err("bad")
                .starts_with("Invalid category 'a/b'.")
        );
    }

    #[test]
    fn file_paths() {
        assert_eq!(validate_file_path("references/a.md"), Ok(()));
        assert_eq!(validate_file_path("SKILL.md"), Ok(()));
        assert_eq!(validate_file_path("x/SKILL.md"), Ok(()));
        assert_eq!(
            validate_file_path("references/../../x"),
            Err("Path traversal ('..') is not allowed.".into())
        );
        assert_eq!(
            validate_file_path("/etc/passwd"),
            Err("File must be under one of: assets, references, scripts, templates. Got: '/etc/passwd'".into())
        );
        assert_eq!(
            validate_file_path("scripts"),
            Err("Provide a file path, not just a directory. Example: 'scripts/myfile.md'".into())
        );
    }

    #[test]
    fn sizes_and_previews() {
        let big = "x".repeat(100_001);
        assert_eq!(
            content_size(&big, "SKILL.md"),
            Err("SKILL.md content is 100,001 characters (limit: 100,000). Consider splitting into a smaller SKILL.md with supporting files in references/ or templates/.".into())
        );
        assert_eq!(
            preview_change(&"y".repeat(201)),
            format!("{}…", "y".repeat(200))
        );
        assert_eq!(
            change_description("---\nname: a\ndescription: Does a thing.\n---\nbody"),
            "Does a thing."
        );
    }

    #[test]
    fn args_from_json() {
        let args = ManageArgs::from_json(&json!({
            "action": "patch", "name": "a", "old_string": "x", "new_string": "",
            "replace_all": 1, "category": 5
        }))
        .expect("args");
        assert!(args.replace_all);
        assert_eq!(args.new_string.as_deref(), Some(""));
        assert_eq!(args.category, Some(json!(5)));
        assert_eq!(
            ManageArgs::from_json(&json!({"action": "create", "content": 3})),
            Err("content must be a string.".into())
        );
    }

    // ── sessions over a temporary home ─────────────────────────────────────────────────

    use crate::home::{Config, Home};
    use crate::skills::runtime::Runtime;
    use crate::skills::write_scan::ScanVerdict;

    /// A scanner with a fixed verdict: `None` allows, `Some(rule)` refuses naming the rule.
    struct Verdict(Option<&'static str>);

    impl WriteScanner for Verdict {
        fn scan_skill_dir(
            &self,
            _skill_dir: &Path,
        ) -> Result<ScanVerdict, super::super::write_scan::ScanError> {
            Ok(match self.0 {
                None => ScanVerdict::Allowed,
                Some(rule) => ScanVerdict::Refused {
                    rules: vec![rule.to_string()],
                },
            })
        }
    }

    const ALLOW: Verdict = Verdict(None);
    const REFUSE: Verdict = Verdict(Some("reverse_shell"));
    const REFUSED: &str = "Security scan blocked this skill: it matches rule reverse_shell. The change was rolled back. Remove what those rules flag and retry; the matched text is not shown.";

    fn write_files(root: &Path, files: &[(&str, &str)]) {
        for (rel, text) in files {
            let p = root.join(rel);
            std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
            std::fs::write(p, text).expect("write");
        }
    }

    /// A library at `<tempdir>/<home_rel>` (files relative to the tempdir).
    fn lib_at(
        home_rel: &str,
        files: &[(&str, &str)],
        config: &str,
    ) -> (tempfile::TempDir, PathBuf, Library) {
        let dir = tempfile::tempdir().expect("tempdir");
        write_files(dir.path(), files);
        let home = dir.path().join(home_rel);
        std::fs::create_dir_all(&home).expect("home");
        let config = Config::from_bytes(config.as_bytes(), Path::new("c")).expect("config");
        let lib = Library::new(Home::at(&home), config, Runtime::plain_linux());
        (dir, home, lib)
    }

    /// A library whose home is the tempdir itself.
    fn lib_with(files: &[(&str, &str)], config: &str) -> (tempfile::TempDir, PathBuf, Library) {
        let dir = tempfile::tempdir().expect("tempdir");
        write_files(dir.path(), files);
        let config = Config::from_bytes(config.as_bytes(), Path::new("c")).expect("config");
        let home = dir.path().to_path_buf();
        let lib = Library::new(Home::at(&home), config, Runtime::plain_linux());
        (dir, home, lib)
    }

    fn md(name: &str, description: &str) -> String {
        format!("---\nname: {name}\ndescription: {description}\n---\n# {name}\n\nStep one.\n")
    }

    const TOOL_MD: &str = "---\nname: tool\ndescription: Does tool.\n---\n# tool\n\nStep one.\n";

    fn call(session: &mut Session, args: Json) -> Json {
        session.manage(&ManageArgs::from_json(&args).expect("args"))
    }

    fn read(path: &Path) -> String {
        std::fs::read_to_string(path).expect("read")
    }

    fn record(home: &Path, name: &str) -> Option<Json> {
        usage::load(&Home::at(home))
            .get(name)
            .cloned()
            .map(Json::Object)
    }

    #[test]
    fn args_from_json_keep_every_field_and_drop_nulls() {
        let args = ManageArgs::from_json(&json!({
            "action": "delete", "name": "a", "content": "c", "category": "dev",
            "file_path": "references/x.md", "file_content": "f", "old_string": "o",
            "new_string": "n", "replace_all": false, "exact": "yes", "absorbed_into": "umb"
        }))
        .expect("args");
        assert_eq!(
            args,
            ManageArgs {
                action: "delete".into(),
                name: "a".into(),
                content: Some("c".into()),
                category: Some(json!("dev")),
                file_path: Some("references/x.md".into()),
                file_content: Some("f".into()),
                old_string: Some("o".into()),
                new_string: Some("n".into()),
                replace_all: false,
                exact: true,
                absorbed_into: Some(json!("umb")),
            }
        );
        let nulls = ManageArgs::from_json(&json!({
            "action": 7, "name": null, "category": null, "absorbed_into": null
        }))
        .expect("args");
        assert_eq!(
            nulls,
            ManageArgs {
                action: "7".into(),
                ..ManageArgs::default()
            }
        );
        assert_eq!(
            ManageArgs::from_json(&json!(["create"])),
            Err("skill_manage arguments must be a JSON object.".into())
        );
    }

    #[test]
    fn failures_and_io_failures() {
        assert_eq!(fail("no"), json!({"success": false, "error": "no"}));
        assert_eq!(tool_error("no"), json!({"error": "no", "success": false}));
        assert!(is_io_failure(
            &json!({"success": false, "error": "could not write /x: denied"})
        ));
        assert!(!is_io_failure(
            &json!({"success": false, "error": "Skill 'a' is pinned"})
        ));
        assert!(!is_io_failure(
            &json!({"success": true, "error": "could not be said"})
        ));
        assert!(!is_io_failure(&json!({"success": false})));
    }

    #[test]
    fn validators_at_their_limits() {
        assert_eq!(validate_name(&"a".repeat(64)), Ok(()));
        assert_eq!(validate_name("a.b_c-1"), Ok(()));
        assert_eq!(
            validate_category(Some(&json!("a\\b"))),
            Err("Invalid category 'a\\b'. Use lowercase letters, numbers, hyphens, dots, and underscores. Categories must be a single directory name.".into())
        );
        assert_eq!(
            validate_category(Some(&json!("Dev"))),
            Err("Invalid category 'Dev'. Use lowercase letters, numbers, hyphens, dots, and underscores. Categories must be a single directory name.".into())
        );
        assert_eq!(
            validate_category(Some(&json!("c".repeat(64)))),
            Ok(Some("c".repeat(64)))
        );
        assert_eq!(
            validate_category(Some(&json!("c".repeat(65)))),
            Err("Category exceeds 64 characters.".into())
        );
        // A separator is refused as such before the length is looked at.
        let long = format!("a/{}", "c".repeat(64));
        assert_eq!(
            validate_category(Some(&json!(long))),
            Err(format!(
                "Invalid category '{long}'. Use lowercase letters, numbers, hyphens, dots, and underscores. Categories must be a single directory name."
            ))
        );
        assert_eq!(content_size(&"é".repeat(100_000), "SKILL.md"), Ok(()));
        assert_eq!(path_parts("./references//a.md"), vec!["references", "a.md"]);
        assert_eq!(path_parts("/x/./y"), vec!["/", "x", "y"]);
        assert_eq!(validate_file_path("scripts/a"), Ok(()));
        assert_eq!(
            validate_file_path("a/b/SKILL.md"),
            Err("File must be under one of: assets, references, scripts, templates. Got: 'a/b/SKILL.md'".into())
        );
        assert_eq!(
            validate_file_path("notes/a.md"),
            Err("File must be under one of: assets, references, scripts, templates. Got: 'notes/a.md'".into())
        );
        assert_eq!(validate_file_path(""), Err("file_path is required.".into()));
        let dir = Path::new("/skills/tool");
        assert_eq!(
            resolve_target(dir, "references/a.md"),
            Ok(PathBuf::from("/skills/tool/references/a.md"))
        );
        assert_eq!(
            resolve_target(dir, "references/a\0.md"),
            Err("Path escapes allowed directory: embedded null byte".into())
        );
        assert_eq!(preview_change(&"y".repeat(200)), "y".repeat(200));
        assert_eq!(preview_change("short"), "short");
        assert_eq!(change_description("---\n- a list\n---\nbody"), "");
        assert_eq!(change_description("no frontmatter"), "");
    }

    #[test]
    fn create_writes_the_skill_and_answers_like_hermes() {
        let (_dir, home, lib) = lib_with(&[], "");
        let mut s = Session::new(&lib, Origin::Foreground, &ALLOW);
        let out = call(
            &mut s,
            json!({"action": "create", "name": "tool", "content": TOOL_MD, "category": " dev "}),
        );
        let skill_md = home.join("skills/dev/tool/SKILL.md");
        assert_eq!(
            out,
            json!({
                "success": true,
                "message": "Skill 'tool' created.",
                "path": "dev/tool",
                "skill_md": skill_md.display().to_string(),
                "_change": {"description": "Does tool."},
                "category": "dev",
                "hint": "To add reference files, templates, or scripts, use skill_manage(action='write_file', name='tool', file_path='references/example.md', file_content='...')",
            })
        );
        assert_eq!(read(&skill_md), TOOL_MD);
        // A person's skill is not the agent's: no record, so the curator leaves it alone.
        assert_eq!(record(&home, "tool"), None);

        let again = call(
            &mut s,
            json!({"action": "create", "name": "tool", "content": TOOL_MD}),
        );
        assert_eq!(
            again,
            json!({"success": false, "error": format!("A skill named 'tool' already exists at {}.", home.join("skills/dev/tool").display())})
        );
        assert_eq!(
            call(
                &mut s,
                json!({"action": "create", "name": "x", "content": ""})
            ),
            json!({"error": "content is required for 'create'. Provide the full SKILL.md text (frontmatter + body).", "success": false})
        );
        assert_eq!(
            call(
                &mut s,
                json!({"action": "create", "name": "Bad", "content": TOOL_MD})
            ),
            json!({"success": false, "error": "Invalid skill name 'Bad'. Use lowercase letters, numbers, hyphens, dots, and underscores. Must start with a letter or digit."})
        );
        assert_eq!(
            call(
                &mut s,
                json!({"action": "create", "name": "x", "content": "no fence"})
            ),
            json!({"success": false, "error": "SKILL.md must start with YAML frontmatter (---). See existing skills for format."})
        );
        assert_eq!(
            call(&mut s, json!({"action": "frob", "name": "x"})),
            json!({"success": false, "error": "Unknown action 'frob'. Use: create, edit, patch, delete, write_file, remove_file"})
        );
    }

    #[test]
    fn an_agent_created_skill_is_marked_for_the_curator() {
        let (_dir, home, lib) = lib_with(&[], "");
        let before = clock::now().expect("clock");
        let mut s = Session::new(&lib, Origin::BackgroundReview, &ALLOW);
        let out = call(
            &mut s,
            json!({"action": "create", "name": "tool", "content": TOOL_MD}),
        );
        assert_eq!(out["message"], json!("Skill 'tool' created."));
        assert_eq!(out["path"], json!("tool"));
        assert_eq!(out.get("category"), None);
        let rec = record(&home, "tool").expect("record");
        assert_eq!(rec["created_by"], json!("agent"));
        let created = usage::parse_iso(rec["created_at"].as_str().expect("stamp")).expect("iso");
        assert!(created >= before, "{rec}");
        assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    }

    #[test]
    fn a_review_cannot_create_over_an_existing_skill() {
        let (_dir, home, lib) = lib_with(
            &[
                ("skills/tool/SKILL.md", TOOL_MD),
                (
                    "skills/.usage.json",
                    r#"{"tool": {"pinned": true, "created_by": "agent"}}"#,
                ),
            ],
            "",
        );
        let mut s = Session::new(&lib, Origin::BackgroundReview, &ALLOW);
        assert_eq!(
            call(
                &mut s,
                json!({"action": "create", "name": "tool", "content": TOOL_MD})
            ),
            json!({"success": false, "error": format!("A skill named 'tool' already exists at {}.", home.join("skills/tool").display())})
        );
    }

    #[test]
    fn a_refused_create_leaves_nothing_behind() {
        let (_dir, home, lib) = lib_with(&[("skills/other/SKILL.md", &md("other", "O."))], "");
        let mut s = Session::new(&lib, Origin::Foreground, &REFUSE);
        let out = call(
            &mut s,
            json!({"action": "create", "name": "tool", "content": TOOL_MD, "category": "dev"}),
        );
        assert_eq!(out, json!({"success": false, "error": REFUSED}));
        assert!(!home.join("skills/dev").exists());
        assert!(home.join("skills/other/SKILL.md").exists());
        let out = call(
            &mut s,
            json!({"action": "create", "name": "tool", "content": TOOL_MD}),
        );
        assert_eq!(out, json!({"success": false, "error": REFUSED}));
        assert!(!home.join("skills/tool").exists());
    }

    #[test]
    fn the_scan_can_be_turned_off() {
        let (_dir, home, lib) = lib_with(&[], "skills:\n  guard_agent_created: false\n");
        let mut s = Session::new(&lib, Origin::Foreground, &REFUSE);
        let out = call(
            &mut s,
            json!({"action": "create", "name": "tool", "content": TOOL_MD}),
        );
        assert_eq!(out["success"], json!(true), "{out}");
        assert_eq!(read(&home.join("skills/tool/SKILL.md")), TOOL_MD);
    }

    #[test]
    fn edit_rewrites_and_a_refused_edit_is_rolled_back() {
        let (_dir, home, lib) = lib_with(&[("skills/tool/SKILL.md", TOOL_MD)], "");
        std::fs::write(lib.home.skills_prompt_snapshot(), "{}").expect("snapshot");
        let new = md("tool", "Does more.");
        let mut refused = Session::new(&lib, Origin::Foreground, &REFUSE);
        assert_eq!(
            call(
                &mut refused,
                json!({"action": "edit", "name": "tool", "content": new})
            ),
            json!({"success": false, "error": REFUSED})
        );
        assert_eq!(read(&home.join("skills/tool/SKILL.md")), TOOL_MD);
        assert!(lib.home.skills_prompt_snapshot().exists());
        assert_eq!(record(&home, "tool"), None);

        let before = clock::now().expect("clock");
        let mut s = Session::new(&lib, Origin::Foreground, &ALLOW);
        assert_eq!(
            call(
                &mut s,
                json!({"action": "edit", "name": "tool", "content": new})
            ),
            json!({
                "success": true,
                "message": "Skill 'tool' updated (full rewrite).",
                "path": home.join("skills/tool").display().to_string(),
                "_change": {"description": "Does more."},
            })
        );
        assert_eq!(read(&home.join("skills/tool/SKILL.md")), new);
        assert!(!lib.home.skills_prompt_snapshot().exists());
        let rec = record(&home, "tool").expect("record");
        assert_eq!(rec["patch_count"], json!(1));
        let stamp = usage::parse_iso(rec["last_patched_at"].as_str().expect("stamp")).expect("iso");
        assert!(stamp >= before, "{rec}");

        assert_eq!(
            call(
                &mut s,
                json!({"action": "edit", "name": "tool", "content": ""})
            ),
            json!({"error": "content is required for 'edit'. Provide the full updated SKILL.md text.", "success": false})
        );
        assert_eq!(
            call(
                &mut s,
                json!({"action": "edit", "name": "ghost", "content": new})
            ),
            json!({"success": false, "error": "Skill 'ghost' not found in active profile 'default'. Use skills_list() to see available skills."})
        );
    }

    #[test]
    fn patch_exact_fuzzy_and_replace_all() {
        let body = "---\nname: tool\ndescription: Does tool.\n---\nstep a\nalpha beta\nstep a\n";
        let (_dir, home, lib) = lib_with(
            &[
                ("skills/tool/SKILL.md", body),
                ("skills/tool/references/a.md", "plain text\n"),
            ],
            "",
        );
        let skill_md = home.join("skills/tool/SKILL.md");
        let mut s = Session::new(&lib, Origin::Foreground, &ALLOW);
        let several = call(
            &mut s,
            json!({"action": "patch", "name": "tool", "old_string": "step a", "new_string": "step b"}),
        );
        assert_eq!(
            several,
            json!({
                "success": false,
                "error": "Found 2 matches for old_string. Provide more context to make it unique, or use replace_all=True.",
                "file_preview": body,
            })
        );
        assert_eq!(record(&home, "tool"), None);
        let several_exact = call(
            &mut s,
            json!({"action": "patch", "name": "tool", "old_string": "step a", "new_string": "step b", "exact": true}),
        );
        assert_eq!(several_exact, several);

        let all = call(
            &mut s,
            json!({"action": "patch", "name": "tool", "old_string": "step a", "new_string": "step b", "replace_all": true, "file_path": ""}),
        );
        assert_eq!(
            all,
            json!({
                "success": true,
                "message": "Patched SKILL.md in skill 'tool' (2 replacements).",
                "_change": {"old": "step a", "new": "step b"},
            })
        );
        assert_eq!(
            s.last_match,
            Some(PatchMatch {
                strategy: "exact",
                matched: vec![(5, "step a".into()), (7, "step a".into())],
            })
        );
        assert_eq!(
            read(&skill_md),
            "---\nname: tool\ndescription: Does tool.\n---\nstep b\nalpha beta\nstep b\n"
        );
        assert_eq!(
            record(&home, "tool").expect("record")["patch_count"],
            json!(1)
        );

        let fuzzy = call(
            &mut s,
            json!({"action": "patch", "name": "tool", "old_string": "alpha   beta", "new_string": "gamma"}),
        );
        assert_eq!(
            fuzzy,
            json!({
                "success": true,
                "message": "Patched SKILL.md in skill 'tool' (1 replacement).",
                "_change": {"old": "alpha   beta", "new": "gamma"},
            })
        );
        assert_eq!(
            s.last_match,
            Some(PatchMatch {
                strategy: "whitespace_normalized",
                matched: vec![(6, "alpha beta".into())],
            })
        );
        assert_eq!(
            read(&skill_md),
            "---\nname: tool\ndescription: Does tool.\n---\nstep b\ngamma\nstep b\n"
        );

        let file = call(
            &mut s,
            json!({"action": "patch", "name": "tool", "file_path": "references/a.md", "old_string": "plain", "new_string": "---\nplainer"}),
        );
        assert_eq!(
            file,
            json!({
                "success": true,
                "message": "Patched references/a.md in skill 'tool' (1 replacement).",
                "_change": {"old": "plain", "new": "---\nplainer"},
            })
        );
        assert_eq!(
            read(&home.join("skills/tool/references/a.md")),
            "---\nplainer text\n"
        );
        assert_eq!(
            record(&home, "tool").expect("record")["patch_count"],
            json!(3)
        );
    }

    #[test]
    fn patch_refusals() {
        let (_dir, home, lib) = lib_with(&[("skills/tool/SKILL.md", TOOL_MD)], "");
        let skill_md = home.join("skills/tool/SKILL.md");
        let mut s = Session::new(&lib, Origin::Foreground, &ALLOW);
        let patch = |s: &mut Session, extra: Json| {
            let mut args = json!({"action": "patch", "name": "tool"});
            for (k, v) in extra.as_object().expect("object") {
                args[k] = v.clone();
            }
            call(s, args)
        };
        assert_eq!(
            patch(&mut s, json!({"old_string": "", "new_string": "x"})),
            json!({"error": "old_string is required for 'patch'. Provide the text to find.", "success": false})
        );
        assert_eq!(
            patch(&mut s, json!({"old_string": "x"})),
            json!({"error": "new_string is required for 'patch'. Use empty string to delete matched text.", "success": false})
        );
        assert_eq!(
            patch(
                &mut s,
                json!({"old_string": "x", "new_string": "y", "file_path": "references/none.md"})
            ),
            json!({"success": false, "error": "File not found: references/none.md"})
        );
        assert_eq!(
            patch(
                &mut s,
                json!({"old_string": "x", "new_string": "y", "file_path": "notes/a.md"})
            ),
            json!({"success": false, "error": "File must be under one of: assets, references, scripts, templates. Got: 'notes/a.md'"})
        );
        assert_eq!(
            patch(
                &mut s,
                json!({"old_string": "name: tool\n", "new_string": ""})
            ),
            json!({"success": false, "error": "Patch would break SKILL.md structure: Frontmatter must include 'name' field."})
        );
        assert_eq!(
            patch(
                &mut s,
                json!({"old_string": "Step  one.", "new_string": "Step two.", "exact": true})
            ),
            json!({"success": false, "error": "No exact match for old_string in SKILL.md; an approximate match starts at line 7: \"Step one.\". Nothing was changed (drop --exact to accept it)."})
        );
        assert_eq!(
            patch(
                &mut s,
                json!({"old_string": "qqqqqqqq", "new_string": "y", "exact": true})
            ),
            json!({"success": false, "error": "No exact match for old_string in SKILL.md. Nothing was changed."})
        );
        assert_eq!(
            patch(&mut s, json!({"old_string": "qqqqqqqq", "new_string": "y"})),
            json!({"success": false, "error": "Could not find a match for old_string in the file", "file_preview": TOOL_MD})
        );
        assert_eq!(
            patch(
                &mut s,
                json!({"old_string": "ghost", "new_string": "y", "file_path": "SKILL.md"})
            ),
            json!({"success": false, "error": "Could not find a match for old_string in the file", "file_preview": TOOL_MD})
        );
        assert_eq!(read(&skill_md), TOOL_MD);
        assert_eq!(s.last_match, None);
        assert_eq!(record(&home, "tool"), None);

        let mut refused = Session::new(&lib, Origin::Foreground, &REFUSE);
        assert_eq!(
            patch(
                &mut refused,
                json!({"old_string": "Step one.", "new_string": "Step two."})
            ),
            json!({"success": false, "error": REFUSED})
        );
        assert_eq!(read(&skill_md), TOOL_MD);
        assert_eq!(refused.last_match, None);
    }

    #[test]
    fn a_failed_patch_previews_at_most_500_characters() {
        let long = format!("{TOOL_MD}{}", "z".repeat(501 - TOOL_MD.len()));
        let exact = &long[..500];
        for (content, preview) in [
            (long.clone(), format!("{}...", &long[..500])),
            (exact.to_string(), exact.to_string()),
        ] {
            let (_dir, _home, lib) = lib_with(&[("skills/tool/SKILL.md", &content)], "");
            let mut s = Session::new(&lib, Origin::Foreground, &ALLOW);
            assert_eq!(
                call(
                    &mut s,
                    json!({"action": "patch", "name": "tool", "old_string": "qqqqqqqq", "new_string": "y"})
                ),
                json!({"success": false, "error": "Could not find a match for old_string in the file", "file_preview": preview})
            );
        }
    }

    #[test]
    fn delete_by_a_person() {
        let (_dir, home, lib) = lib_with(
            &[
                ("skills/cat/tool/SKILL.md", TOOL_MD),
                ("skills/cat/tool/references/a.md", "a"),
                ("skills/umb/SKILL.md", &md("umb", "U.")),
                ("skills/keep/one/SKILL.md", &md("one", "1.")),
                ("skills/keep/two/SKILL.md", &md("two", "2.")),
                (
                    "skills/.usage.json",
                    r#"{"tool": {"use_count": 3}, "pinned-one": {"pinned": true}}"#,
                ),
            ],
            "",
        );
        let mut s = Session::new(&lib, Origin::Foreground, &ALLOW);
        assert_eq!(
            call(
                &mut s,
                json!({"action": "delete", "name": "tool", "absorbed_into": "tool"})
            ),
            json!({"success": false, "error": "absorbed_into='tool' cannot equal the skill being deleted."})
        );
        assert_eq!(
            call(
                &mut s,
                json!({"action": "delete", "name": "tool", "absorbed_into": " nowhere "})
            ),
            json!({"success": false, "error": "absorbed_into='nowhere' does not exist. Create or patch the umbrella skill first, then retry the delete."})
        );
        assert!(home.join("skills/cat/tool/SKILL.md").exists());
        assert_eq!(
            call(
                &mut s,
                json!({"action": "delete", "name": "tool", "absorbed_into": "umb"})
            ),
            json!({"success": true, "message": "Skill 'tool' deleted. Content absorbed into 'umb'."})
        );
        assert!(!home.join("skills/cat").exists());
        assert_eq!(record(&home, "tool"), None);
        assert_eq!(
            call(&mut s, json!({"action": "delete", "name": "one"})),
            json!({"success": true, "message": "Skill 'one' deleted."})
        );
        assert!(!home.join("skills/keep/one").exists());
        assert!(home.join("skills/keep/two/SKILL.md").exists());
        assert_eq!(
            call(
                &mut s,
                json!({"action": "delete", "name": "umb", "absorbed_into": 5})
            ),
            json!({"success": true, "message": "Skill 'umb' deleted."})
        );
        assert!(home.join("skills").is_dir());
    }

    #[test]
    fn a_pinned_skill_is_never_deleted_but_a_person_may_edit_it() {
        let (_dir, home, lib) = lib_with(
            &[
                ("skills/tool/SKILL.md", TOOL_MD),
                ("skills/.usage.json", r#"{"tool": {"pinned": true}}"#),
            ],
            "",
        );
        let mut s = Session::new(&lib, Origin::Foreground, &ALLOW);
        assert_eq!(
            call(&mut s, json!({"action": "delete", "name": "tool"})),
            json!({"success": false, "error": "Skill 'tool' is pinned and cannot be deleted by skill_manage. Ask the user to run `hermes curator unpin tool` if they want to delete it. Patches and edits are allowed on pinned skills; only deletion is blocked."})
        );
        assert_eq!(read(&home.join("skills/tool/SKILL.md")), TOOL_MD);
        let new = md("tool", "Pinned but better.");
        let out = call(
            &mut s,
            json!({"action": "edit", "name": "tool", "content": new}),
        );
        assert_eq!(out["success"], json!(true), "{out}");
        assert_eq!(read(&home.join("skills/tool/SKILL.md")), new);
    }

    #[test]
    fn the_review_guards() {
        let (_dir, home, lib) = lib_with(
            &[
                ("skills/tool/SKILL.md", TOOL_MD),
                ("skills/tool/references/a.md", "ref\n"),
                ("skills/mine/SKILL.md", &md("mine", "M.")),
                ("skills/umb/SKILL.md", &md("umb", "U.")),
                ("skills/pin/SKILL.md", &md("pin", "P.")),
                (
                    "skills/.usage.json",
                    r#"{"mine": {"created_by": "agent"}, "pin": {"pinned": true}}"#,
                ),
            ],
            "",
        );
        let mut s = Session::new(&lib, Origin::BackgroundReview, &ALLOW);
        let unread = |label: &str| {
            json!({
                "success": false,
                "error": format!("Refusing background curator patch for skill 'tool': the current {label} content has not been loaded in this review turn. Call skill_view(name) for SKILL.md, or skill_view(name, file_path=...) for a supporting file, then retry the write using the content just returned."),
                "_read_before_write_required": true,
            })
        };
        let patch = json!({"action": "patch", "name": "tool", "old_string": "Step one.", "new_string": "Step two."});
        assert_eq!(call(&mut s, patch.clone()), unread("SKILL.md"));
        let viewed = s.view("tool", None);
        assert_eq!(viewed["success"], json!(true));
        assert_eq!(viewed["content"], json!(TOOL_MD));
        // The review may improve a person's skill once it has read it.
        assert_eq!(
            call(&mut s, patch),
            json!({"success": true, "message": "Patched SKILL.md in skill 'tool' (1 replacement).", "_change": {"old": "Step one.", "new": "Step two."}})
        );
        let ref_patch = json!({"action": "patch", "name": "tool", "file_path": "references/a.md", "old_string": "ref", "new_string": "reference"});
        assert_eq!(call(&mut s, ref_patch.clone()), unread("references/a.md"));

        // What one session read, the next session of the same writer carries.
        let marks = s.take_marks();
        let mut forgetful = Session::new(&lib, Origin::BackgroundReview, &ALLOW);
        assert_eq!(
            call(
                &mut s,
                json!({"action": "edit", "name": "tool", "content": TOOL_MD})
            )["_read_before_write_required"],
            json!(true)
        );
        let mut next = Session::new(&lib, Origin::BackgroundReview, &ALLOW);
        next.set_marks(marks);
        assert_eq!(
            call(
                &mut next,
                json!({"action": "edit", "name": "tool", "content": TOOL_MD})
            )["success"],
            json!(true)
        );
        assert_eq!(
            call(
                &mut forgetful,
                json!({"action": "edit", "name": "tool", "content": TOOL_MD})
            )["_read_before_write_required"],
            json!(true)
        );

        assert_eq!(
            call(
                &mut s,
                json!({"action": "edit", "name": "pin", "content": md("pin", "P2.")})
            ),
            json!({"success": false, "error": "Refusing background curator edit for pinned skill 'pin': pinned skills are off-limits to autonomous maintenance. Ask the user to run `hermes curator unpin pin` if they want it changed."})
        );
        assert_eq!(
            call(
                &mut s,
                json!({"action": "delete", "name": "tool", "absorbed_into": "umb"})
            ),
            json!({"success": false, "error": "Refusing background curator delete for skill 'tool': the skill records show it is not agent-created (created_by=None). Manually authored skills are off-limits to autonomous curation."})
        );
        assert_eq!(
            call(&mut s, json!({"action": "delete", "name": "mine"})),
            json!({
                "success": false,
                "error": "Refusing background curator delete of skill 'mine': the consolidation pass may only archive a skill it has absorbed into an umbrella. Pass absorbed_into=<umbrella> (the umbrella must already exist) to record a verified consolidation. Pruning a skill with no forwarding target is not permitted here — the deterministic inactivity prune handles staleness archival separately. Keeping 'mine' active.",
                "_fail_closed": true,
            })
        );
        assert_eq!(
            call(
                &mut s,
                json!({"action": "delete", "name": "mine", "absorbed_into": "umb"})
            ),
            json!({
                "success": true,
                "message": format!("Skill 'mine' archived (archived to {}). Content absorbed into 'umb'.", home.join("skills/.archive/mine").display()),
                "_archived": true,
            })
        );
        assert_eq!(
            read(&home.join("skills/.archive/mine/SKILL.md")),
            md("mine", "M.")
        );
        let rec = record(&home, "mine").expect("the archived skill keeps its record");
        assert_eq!(rec["state"], json!("archived"));
        assert_eq!(rec["created_by"], json!("agent"));
    }

    #[test]
    fn views_are_counted_unless_told_not_to() {
        let (_dir, home, lib) = lib_with(
            &[
                ("skills/tool/SKILL.md", TOOL_MD),
                ("skills/other/SKILL.md", &md("other", "O.")),
            ],
            "",
        );
        let mut s = Session::new(&lib, Origin::Foreground, &ALLOW);
        s.view("tool", None);
        let rec = record(&home, "tool").expect("record");
        assert_eq!(
            (&rec["view_count"], &rec["use_count"]),
            (&json!(1), &json!(1))
        );
        s.count_views = false;
        let viewed = s.view("other", None);
        assert_eq!(viewed["content"], json!(md("other", "O.")));
        assert_eq!(record(&home, "other"), None);
        assert_eq!(
            s.view("ghost", None)["error"],
            json!("Skill 'ghost' not found.")
        );
    }

    #[test]
    fn write_file_and_remove_file() {
        let (_dir, home, lib) = lib_with(
            &[
                ("skills/tool/SKILL.md", TOOL_MD),
                ("skills/tool/scripts/x/run.sh", "echo\n"),
                ("skills/tool/references/keep.md", "keep\n"),
            ],
            "",
        );
        let dir = home.join("skills/tool");
        let mut s = Session::new(&lib, Origin::Foreground, &ALLOW);
        assert_eq!(
            call(
                &mut s,
                json!({"action": "write_file", "name": "tool", "file_path": "templates/t/a.md", "file_content": "A\n"})
            ),
            json!({
                "success": true,
                "message": "File 'templates/t/a.md' written to skill 'tool'.",
                "path": dir.join("templates/t/a.md").display().to_string(),
            })
        );
        assert_eq!(read(&dir.join("templates/t/a.md")), "A\n");
        assert_eq!(
            record(&home, "tool").expect("record")["patch_count"],
            json!(1)
        );
        assert_eq!(
            call(
                &mut s,
                json!({"action": "write_file", "name": "tool", "file_path": "", "file_content": "A"})
            ),
            json!({"error": "file_path is required for 'write_file'. Example: 'references/api-guide.md'", "success": false})
        );
        assert_eq!(
            call(
                &mut s,
                json!({"action": "write_file", "name": "tool", "file_path": "references/b.md"})
            ),
            json!({"error": "file_content is required for 'write_file'.", "success": false})
        );
        assert_eq!(
            call(
                &mut s,
                json!({"action": "write_file", "name": "ghost", "file_path": "references/b.md", "file_content": "b"})
            ),
            json!({"success": false, "error": "Skill 'ghost' not found in active profile 'default'. Use skills_list() to see available skills. Create it first with action='create'."})
        );

        assert_eq!(
            call(
                &mut s,
                json!({"action": "remove_file", "name": "tool", "file_path": ""})
            ),
            json!({"error": "file_path is required for 'remove_file'.", "success": false})
        );
        assert_eq!(
            call(
                &mut s,
                json!({"action": "remove_file", "name": "tool", "file_path": "references/none.md"})
            ),
            json!({
                "success": false,
                "error": "File 'references/none.md' not found in skill 'tool'.",
                "available_files": ["references/keep.md", "scripts/x/run.sh", "templates/t/a.md"],
            })
        );
        assert_eq!(
            call(
                &mut s,
                json!({"action": "remove_file", "name": "tool", "file_path": "templates/t/a.md"})
            ),
            json!({"success": true, "message": "File 'templates/t/a.md' removed from skill 'tool'."})
        );
        assert!(!dir.join("templates/t").exists());
        assert!(dir.join("templates").is_dir());
        assert_eq!(
            record(&home, "tool").expect("record")["patch_count"],
            json!(2)
        );
        assert_eq!(
            call(
                &mut s,
                json!({"action": "remove_file", "name": "tool", "file_path": "references/keep.md"})
            )["success"],
            json!(true)
        );
        assert!(!dir.join("references").exists());
        assert_eq!(
            call(
                &mut s,
                json!({"action": "remove_file", "name": "tool", "file_path": "scripts/x/run.sh"})
            )["success"],
            json!(true)
        );
        assert_eq!(
            call(
                &mut s,
                json!({"action": "remove_file", "name": "tool", "file_path": "scripts/none"})
            ),
            json!({
                "success": false,
                "error": "File 'scripts/none' not found in skill 'tool'.",
                "available_files": null,
            })
        );
        assert!(dir.join("SKILL.md").exists());
    }

    #[test]
    fn a_refused_write_file_is_rolled_back() {
        let (_dir, home, lib) = lib_with(
            &[
                ("skills/tool/SKILL.md", TOOL_MD),
                ("skills/tool/references/a.md", "old\n"),
            ],
            "",
        );
        let dir = home.join("skills/tool");
        let mut s = Session::new(&lib, Origin::Foreground, &REFUSE);
        assert_eq!(
            call(
                &mut s,
                json!({"action": "write_file", "name": "tool", "file_path": "references/a.md", "file_content": "new\n"})
            ),
            json!({"success": false, "error": REFUSED})
        );
        assert_eq!(read(&dir.join("references/a.md")), "old\n");
        assert_eq!(
            call(
                &mut s,
                json!({"action": "write_file", "name": "tool", "file_path": "assets/deep/b.txt", "file_content": "b"})
            ),
            json!({"success": false, "error": REFUSED})
        );
        assert!(!dir.join("assets").exists());
        assert_eq!(record(&home, "tool"), None);
    }

    #[test]
    fn a_review_writes_only_files_it_has_read() {
        let (_dir, home, lib) = lib_with(
            &[
                ("skills/tool/SKILL.md", TOOL_MD),
                ("skills/tool/references/a.md", "old\n"),
            ],
            "",
        );
        let dir = home.join("skills/tool");
        let mut s = Session::new(&lib, Origin::BackgroundReview, &ALLOW);
        let overwrite = json!({"action": "write_file", "name": "tool", "file_path": "references/a.md", "file_content": "new\n"});
        assert_eq!(
            call(&mut s, overwrite.clone())["error"],
            json!(
                "Refusing background curator write_file for skill 'tool': the current references/a.md content has not been loaded in this review turn. Call skill_view(name) for SKILL.md, or skill_view(name, file_path=...) for a supporting file, then retry the write using the content just returned."
            )
        );
        assert_eq!(
            call(
                &mut s,
                json!({"action": "remove_file", "name": "tool", "file_path": "references/a.md"})
            )["_read_before_write_required"],
            json!(true)
        );
        assert_eq!(read(&dir.join("references/a.md")), "old\n");
        // A new file has nothing to read first.
        assert_eq!(
            call(
                &mut s,
                json!({"action": "write_file", "name": "tool", "file_path": "references/b.md", "file_content": "b"})
            )["success"],
            json!(true)
        );
        s.view("tool", Some("references/a.md"));
        assert_eq!(call(&mut s, overwrite)["success"], json!(true));
        assert_eq!(read(&dir.join("references/a.md")), "new\n");
    }

    #[test]
    fn support_files_are_limited_to_one_mebibyte() {
        let (_dir, _home, lib) = lib_with(&[("skills/tool/SKILL.md", TOOL_MD)], "");
        let mut s = Session::new(&lib, Origin::Foreground, &ALLOW);
        let write = |s: &mut Session, n: usize| {
            call(
                s,
                json!({"action": "write_file", "name": "tool", "file_path": "assets/big.txt", "file_content": "x".repeat(n)}),
            )
        };
        assert_eq!(
            write(&mut s, 1_048_577),
            json!({"success": false, "error": "File content is 1,048,577 bytes (limit: 1,048,576 bytes / 1 MiB). Consider splitting into smaller files."})
        );
        assert_eq!(
            write(&mut s, 1_048_576),
            json!({"success": false, "error": "assets/big.txt content is 1,048,576 characters (limit: 100,000). Consider splitting into a smaller SKILL.md with supporting files in references/ or templates/."})
        );
        assert_eq!(write(&mut s, 100_000)["success"], json!(true));
    }

    #[test]
    fn writes_are_staged_when_approval_is_on() {
        let (_dir, home, lib) = lib_with(
            &[("skills/tool/SKILL.md", TOOL_MD)],
            "skills:\n  write_approval: true\n",
        );
        let mut s = Session::new(&lib, Origin::BackgroundReview, &ALLOW);
        let out = call(
            &mut s,
            json!({"action": "patch", "name": "tool", "old_string": "Step one.", "new_string": "Step two.", "file_path": "SKILL.md", "absorbed_into": "u"}),
        );
        let id = out["pending_id"].as_str().expect("id").to_string();
        assert_eq!(
            out,
            json!({
                "success": true,
                "staged": true,
                "pending_id": id,
                "gist": "patch 'tool' SKILL.md (+1/-1 lines)",
                "message": "Staged for approval (skills.write_approval is on). Not yet saved — review with /skills pending.",
            })
        );
        let staged: Json = serde_json::from_str(&read(
            &home.join("pending/skills").join(format!("{id}.json")),
        ))
        .expect("json");
        assert_eq!(staged["origin"], json!("background_review"));
        assert_eq!(
            staged["payload"],
            json!({
                "action": "patch", "name": "tool", "file_path": "SKILL.md",
                "old_string": "Step one.", "new_string": "Step two.", "replace_all": false,
                "absorbed_into": "u",
            })
        );
        assert_eq!(read(&home.join("skills/tool/SKILL.md")), TOOL_MD);

        let mut person = Session::new(&lib, Origin::Foreground, &ALLOW);
        let out = call(
            &mut person,
            json!({"action": "create", "name": "new", "content": md("new", "N."), "category": "dev", "exact": true, "file_content": "f"}),
        );
        let id = out["pending_id"].as_str().expect("id");
        let staged: Json = serde_json::from_str(&read(
            &home.join("pending/skills").join(format!("{id}.json")),
        ))
        .expect("json");
        assert_eq!(
            staged["payload"],
            json!({
                "action": "create", "name": "new", "content": md("new", "N."),
                "category": "dev", "file_content": "f", "replace_all": false, "exact": true,
            })
        );
        assert!(!home.join("skills/dev").exists());
        assert_eq!(
            call(&mut person, json!({"action": "frob", "name": "x"})),
            json!({"success": false, "error": "Unknown action 'frob'. Use: create, edit, patch, delete, write_file, remove_file"})
        );

        // Replaying an approved write makes it.
        person.approved_replay = true;
        let out = call(
            &mut person,
            json!({"action": "create", "name": "new", "content": md("new", "N.")}),
        );
        assert_eq!(out["message"], json!("Skill 'new' created."));
        assert_eq!(read(&home.join("skills/new/SKILL.md")), md("new", "N."));
    }

    #[test]
    fn a_missing_skill_names_the_profiles_that_have_it() {
        let (dir, _home, lib) = lib_at(
            "profiles/work",
            &[
                ("skills/aaa/SKILL.md", &md("aaa", "A.")),
                ("skills/ghost/SKILL.md", &md("ghost", "G.")),
                ("profiles/work/skills/mine/SKILL.md", &md("mine", "M.")),
                ("profiles/zed/notes.txt", "not a profile with skills"),
            ],
            "",
        );
        let mut s = Session::new(&lib, Origin::Foreground, &ALLOW);
        assert_eq!(
            call(&mut s, json!({"action": "delete", "name": "ghost"})),
            json!({"success": false, "error": format!(
                "Skill 'ghost' not found in active profile 'work'. A skill by that name exists in profile 'default' ({}). To edit a skill in another profile, switch profiles (`hermes -p default`) or operate via explicit file tools with ``cross_profile=True``.",
                dir.path().join("skills/ghost").display()
            )})
        );
        write_files(
            dir.path(),
            &[
                (
                    "profiles/other/skills/cat/ghost/SKILL.md",
                    &md("ghost", "G."),
                ),
                (
                    "profiles/work/skills/x/ghostly/SKILL.md",
                    &md("ghostly", "G."),
                ),
            ],
        );
        assert_eq!(
            call(
                &mut s,
                json!({"action": "remove_file", "name": "ghost", "file_path": "references/a.md"})
            ),
            json!({"success": false, "error": "Skill 'ghost' not found in active profile 'work'. Skills by that name exist in other profiles: 'default', 'other'. Switch profiles (`hermes -p <name>`) to edit there, or operate via explicit file tools with ``cross_profile=True``."})
        );
    }

    #[test]
    fn a_home_outside_a_profiles_dir_looks_only_below_itself() {
        let (dir, home, lib) = lib_at(
            "a/h",
            &[
                ("skills/ghost/SKILL.md", &md("ghost", "G.")),
                ("a/skills/ghost/SKILL.md", &md("ghost", "G.")),
                ("a/h/profiles/p/skills/ghost/SKILL.md", &md("ghost", "G.")),
            ],
            "",
        );
        let mut s = Session::new(&lib, Origin::Foreground, &ALLOW);
        assert_eq!(
            call(
                &mut s,
                json!({"action": "edit", "name": "ghost", "content": md("ghost", "G2.")})
            ),
            json!({"success": false, "error": format!(
                "Skill 'ghost' not found in active profile 'default'. A skill by that name exists in profile 'p' ({}). To edit a skill in another profile, switch profiles (`hermes -p p`) or operate via explicit file tools with ``cross_profile=True``.",
                home.join("profiles/p/skills/ghost").display()
            )})
        );
        assert!(dir.path().join("skills/ghost/SKILL.md").exists());
    }
}
