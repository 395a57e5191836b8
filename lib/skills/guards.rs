//! The guards on `skill_manage` writes, and who they apply to.
//!
//! * **pinned** — a pinned skill is never deleted, whoever asks.
//! * **autonomous write guard** — the background review and the curator (no user present)
//!   never touch a pinned, external, protected built-in, hub-installed or bundled skill. They
//!   may improve (edit, patch, write or remove files in) any other local skill, which is what
//!   the review prompt asks of them; they may remove (archive) only a skill the agent itself
//!   created (`created_by: "agent"`). Hermes refuses every write to a skill whose record says
//!   it is not agent-created — and viewing a skill, which the review must do first, creates
//!   exactly such a record, so its review can never patch the user's skills. See
//!   `docs/decisions.md`.
//! * **read before write** — an autonomous writer must have viewed the exact file in the
//!   same session before changing it.
//! * **consolidation delete guard** — an autonomous delete must name the umbrella skill the
//!   content went into (`absorbed_into`), or it is refused and the skill stays.
//!
//! The scan of agent-written skills is in `write_scan`.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde_json::{Value as Json, json};

use super::provenance::{Provenance, is_protected};
use super::roots::Roots;
use super::usage::{self, UsageMap};
use crate::home::resolve_lenient;

/// Who is writing. Passed explicitly with every write, never taken from global state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Origin {
    /// A person, or the agent doing what the person asked in the conversation.
    #[default]
    Foreground,
    /// The self-improvement review that runs after a turn, with no user present.
    BackgroundReview,
    /// The curator's consolidation pass, with no user present.
    Curator,
}

impl Origin {
    pub fn parse(text: &str) -> Option<Origin> {
        match text {
            "foreground" => Some(Origin::Foreground),
            "background_review" => Some(Origin::BackgroundReview),
            "curator" => Some(Origin::Curator),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Origin::Foreground => "foreground",
            Origin::BackgroundReview => "background_review",
            Origin::Curator => "curator",
        }
    }

    /// No user in the loop: the autonomous guards apply.
    pub fn is_autonomous(self) -> bool {
        self != Origin::Foreground
    }
}

/// The pinned guard (any origin, delete only).
pub fn pinned_delete_refusal(name: &str, usage: &UsageMap) -> Option<String> {
    usage::is_pinned(usage.get(name)).then(|| {
        format!(
            "Skill '{name}' is pinned and cannot be deleted by skill_manage. Ask the user to run `hermes curator unpin {name}` if they want to delete it. Patches and edits are allowed on pinned skills; only deletion is blocked."
        )
    })
}

/// What an autonomous writer wants to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteKind {
    /// edit, patch, write_file, remove_file: improve the skill's content.
    Content,
    /// delete: remove the skill (archived, recoverable).
    Remove,
}

/// The autonomous write guard, for a skill found at `skill_dir`. `None` when allowed.
pub fn autonomous_refusal(
    action: &str,
    kind: WriteKind,
    name: &str,
    skill_dir: &Path,
    usage: &UsageMap,
    provenance: &Provenance,
    roots: &Roots,
) -> Option<Json> {
    let refuse = |message: String| Some(json!({"success": false, "error": message}));
    let record = usage.get(name);
    if usage::is_pinned(record) {
        return refuse(format!(
            "Refusing background curator {action} for pinned skill '{name}': pinned skills are off-limits to autonomous maintenance. Ask the user to run `hermes curator unpin {name}` if they want it changed."
        ));
    }
    if roots.is_external(skill_dir) {
        return refuse(format!(
            "Refusing background curator {action} for skill '{name}': the skill lives in skills.external_dirs, which are externally owned and read-only to autonomous curation."
        ));
    }
    if is_protected(name) {
        return refuse(format!(
            "Refusing background curator {action} for protected built-in skill '{name}'."
        ));
    }
    if provenance.is_hub(name) {
        return refuse(format!(
            "Refusing background curator {action} for hub-installed skill '{name}'."
        ));
    }
    if provenance.is_bundled(name) {
        return refuse(format!(
            "Refusing background curator {action} for bundled skill '{name}'."
        ));
    }
    if kind == WriteKind::Remove && !usage::is_curator_managed(record) {
        let created_by = record
            .and_then(|r| r.get("created_by"))
            .map_or("None".to_string(), py_repr);
        return refuse(format!(
            "Refusing background curator {action} for skill '{name}': the skill records show it is not agent-created (created_by={created_by}). Manually authored skills are off-limits to autonomous curation."
        ));
    }
    None
}

/// Python's `repr` of a JSON value from the sidecar.
fn py_repr(value: &Json) -> String {
    match value {
        Json::Null => "None".into(),
        Json::Bool(true) => "True".into(),
        Json::Bool(false) => "False".into(),
        Json::String(s) => crate::yaml::Value::Str(s.clone()).py_repr(),
        other => other.to_string(),
    }
}

/// The files an autonomous session has viewed, by resolved path.
#[derive(Debug, Clone, Default)]
pub struct ReadMarks {
    paths: HashSet<PathBuf>,
}

impl ReadMarks {
    pub fn mark(&mut self, path: &Path) {
        self.paths.insert(resolve_lenient(path));
    }

    pub fn has_read(&self, path: &Path) -> bool {
        self.paths.contains(&resolve_lenient(path))
    }
}

/// The read-before-write guard for an autonomous write to `target`.
pub fn unread_refusal(
    action: &str,
    name: &str,
    label: &str,
    target: &Path,
    marks: &ReadMarks,
) -> Option<Json> {
    (!marks.has_read(target)).then(|| {
        json!({
            "success": false,
            "error": format!(
                "Refusing background curator {action} for skill '{name}': the current {label} content has not been loaded in this review turn. Call skill_view(name) for SKILL.md, or skill_view(name, file_path=...) for a supporting file, then retry the write using the content just returned."
            ),
            "_read_before_write_required": true,
        })
    })
}

/// The consolidation delete guard: an autonomous delete must name its umbrella.
pub fn unabsorbed_delete_refusal(name: &str, absorbed_into: Option<&Json>) -> Option<Json> {
    let declared = matches!(absorbed_into, Some(Json::String(s)) if !s.trim().is_empty());
    (!declared).then(|| {
        json!({
            "success": false,
            "error": format!(
                "Refusing background curator delete of skill '{name}': the consolidation pass may only archive a skill it has absorbed into an umbrella. Pass absorbed_into=<umbrella> (the umbrella must already exist) to record a verified consolidation. Pruning a skill with no forwarding target is not permitted here — the deterministic inactivity prune handles staleness archival separately. Keeping '{name}' active."
            ),
            "_fail_closed": true,
        })
    })
}

/// `_validate_delete_target`: never delete through a symlink, a root itself, or anything
/// not strictly inside a root.
pub fn delete_target_refusal(skill_dir: &Path, roots: &Roots) -> Option<String> {
    let shown = skill_dir.display();
    if skill_dir.is_symlink() {
        return Some(format!(
            "Refusing to delete '{shown}': the skill directory is a symlink/junction. Remove the link target manually if intended."
        ));
    }
    let resolved = resolve_lenient(skill_dir);
    let mut all = vec![roots.local.clone()];
    all.extend(roots.external.iter().cloned());
    for root in all.iter().map(|r| resolve_lenient(r)) {
        if resolved == root {
            return Some(format!(
                "Refusing to delete '{shown}': resolves to the skills root itself, which would remove every installed skill."
            ));
        }
        if resolved.starts_with(&root) {
            return None;
        }
    }
    Some(format!(
        "Refusing to delete '{shown}': path does not resolve inside any known skills root."
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage_with(record: Json) -> UsageMap {
        let mut map = UsageMap::default();
        map.records.insert("s".into(), record);
        map
    }

    #[test]
    fn review_may_improve_a_user_skill_but_not_remove_it() {
        let roots = Roots {
            local: PathBuf::from("/h/skills"),
            external: vec![],
        };
        let dir = Path::new("/h/skills/s");
        let usage = usage_with(json!({"created_by": null, "view_count": 1}));
        let p = Provenance::default();
        assert_eq!(
            autonomous_refusal("patch", WriteKind::Content, "s", dir, &usage, &p, &roots),
            None
        );
        let refused = autonomous_refusal("delete", WriteKind::Remove, "s", dir, &usage, &p, &roots)
            .expect("refused");
        assert_eq!(
            refused["error"],
            "Refusing background curator delete for skill 's': the skill records show it is not agent-created (created_by=None). Manually authored skills are off-limits to autonomous curation."
        );
        let agent = usage_with(json!({"created_by": "agent"}));
        assert_eq!(
            autonomous_refusal("delete", WriteKind::Remove, "s", dir, &agent, &p, &roots),
            None
        );
        let pinned = usage_with(json!({"created_by": "agent", "pinned": true}));
        assert!(
            autonomous_refusal("patch", WriteKind::Content, "s", dir, &pinned, &p, &roots)
                .is_some()
        );
        let bundled = Provenance {
            bundled: ["s".to_string()].into(),
            ..Provenance::default()
        };
        assert!(
            autonomous_refusal(
                "edit",
                WriteKind::Content,
                "s",
                dir,
                &agent,
                &bundled,
                &roots
            )
            .is_some()
        );
    }

    #[test]
    fn delete_targets() {
        let dir = tempfile::tempdir().expect("tempdir");
        let local = dir.path().join("skills");
        std::fs::create_dir_all(local.join("a")).expect("mkdir");
        std::os::unix::fs::symlink(dir.path(), local.join("link")).expect("link");
        let roots = Roots {
            local: local.clone(),
            external: vec![],
        };
        assert_eq!(delete_target_refusal(&local.join("a"), &roots), None);
        assert!(
            delete_target_refusal(&local.join("link"), &roots)
                .expect("refused")
                .contains("symlink/junction")
        );
        assert!(
            delete_target_refusal(&local, &roots)
                .expect("refused")
                .contains("skills root itself")
        );
        assert!(
            delete_target_refusal(dir.path(), &roots)
                .expect("refused")
                .contains("does not resolve inside")
        );
    }
}
