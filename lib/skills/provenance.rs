//! Who owns a skill: bundled with Hermes (`.bundled_manifest`), installed from the hub
//! (`.hub/lock.json`), in an external dir, or local (hand-written or agent-created). The
//! curator may only manage what no one upstream owns, and the background review may only
//! touch local skills; both ask this module.
//!
//! Identity here is the name Hermes's curator keys a skill by: `_read_skill_name`'s line
//! parse of `name:` (the directory name as fallback), not the YAML frontmatter.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use serde_json::Value as Json;

use super::catalog::Catalog;
use super::frontmatter::identity_name;
use super::limits::LIST_PREFIX_CHARS;
use super::roots::Roots;
use crate::home::{Config, Home, resolve_lenient};

/// Built-ins the curator never archives or consolidates, whatever the flags say.
pub const PROTECTED_BUILTINS: [&str; 1] = ["plan"];

pub fn is_protected(name: &str) -> bool {
    PROTECTED_BUILTINS.contains(&name)
}

/// Where a skill came from, as `hermes curator usage` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    Hub,
    Bundled,
    /// Everything else: agent-created and hand-written local skills.
    Agent,
}

impl Origin {
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::Hub => "hub",
            Origin::Bundled => "bundled",
            Origin::Agent => "agent",
        }
    }
}

/// The bundled and hub-installed names, and whether built-ins may be curated.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Provenance {
    pub bundled: BTreeSet<String>,
    pub hub: BTreeSet<String>,
    /// `curator.prune_builtins`: bundled skills are curation candidates.
    pub prune_builtins: bool,
}

impl Provenance {
    pub fn load(home: &Home, config: &Config) -> Provenance {
        Provenance {
            bundled: bundled_names(home),
            hub: hub_names(home),
            prune_builtins: config.curator.prune_builtins,
        }
    }

    pub fn is_bundled(&self, name: &str) -> bool {
        self.bundled.contains(name)
    }

    pub fn is_hub(&self, name: &str) -> bool {
        self.hub.contains(name)
    }

    /// `provenance(name)`.
    pub fn origin(&self, name: &str) -> Origin {
        if self.is_hub(name) {
            Origin::Hub
        } else if self.is_bundled(name) {
            Origin::Bundled
        } else {
            Origin::Agent
        }
    }
}

/// `.bundled_manifest`: the text before the first `:` of each non-blank line.
pub fn bundled_names(home: &Home) -> BTreeSet<String> {
    let Ok(text) = std::fs::read_to_string(home.bundled_manifest()) else {
        return BTreeSet::new();
    };
    text.lines()
        .filter_map(|line| {
            let line = line.trim();
            let name = line.split(':').next().unwrap_or("").trim();
            (!line.is_empty() && !name.is_empty()).then(|| name.to_string())
        })
        .collect()
}

/// `.hub/lock.json`: the `installed` keys, plus the identity name of each installed skill
/// whose `install_path` resolves inside the skills root and holds a `SKILL.md`.
pub fn hub_names(home: &Home) -> BTreeSet<String> {
    let Ok(bytes) = std::fs::read(home.hub_lock_json()) else {
        return BTreeSet::new();
    };
    let Ok(Json::Object(data)) = serde_json::from_slice::<Json>(&bytes) else {
        return BTreeSet::new();
    };
    let Some(Json::Object(installed)) = data.get("installed") else {
        return BTreeSet::new();
    };
    let skills = home.skills_dir();
    let skills_resolved = resolve_lenient(&skills);
    let mut names: BTreeSet<String> = installed.keys().cloned().collect();
    for entry in installed.values() {
        let Some(install_path) = entry.get("install_path").and_then(Json::as_str) else {
            continue;
        };
        if install_path.trim().is_empty() {
            continue;
        }
        let dir = skills.join(install_path);
        let resolved = resolve_lenient(&dir);
        if !resolved.starts_with(&skills_resolved) {
            continue;
        }
        let skill_md = resolved.join("SKILL.md");
        if skill_md.exists() {
            let fallback = resolved
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            names.insert(read_identity(&skill_md, &fallback));
        }
    }
    names
}

/// `_read_skill_name` of a file: decoded with replacement, first 4000 characters.
pub fn read_identity(skill_md: &Path, fallback: &str) -> String {
    match std::fs::read(skill_md) {
        Ok(bytes) => {
            let text = String::from_utf8_lossy(&bytes);
            let prefix = crate::pytext::take_chars(&text, LIST_PREFIX_CHARS);
            identity_name(prefix, fallback)
        }
        Err(_) => fallback.to_string(),
    }
}

/// Skill directories by identity name: the first local one (external dirs mounted inside
/// the local tree excluded) and the first external one, as `_find_skill_dir` and
/// `_find_external_skill_dir` find them — built once per run.
#[derive(Debug, Clone, Default)]
pub struct Identities {
    pub local: HashMap<String, PathBuf>,
    pub external: HashMap<String, PathBuf>,
    /// Each local skill's identity, in catalog order (for reports that walk every skill);
    /// read it through [`Identities::local_entries`], which skips removed names.
    pub local_order: Vec<(String, PathBuf)>,
    /// Names removed since the build (filtered lazily, so a pass that archives thousands of
    /// skills stays linear).
    removed: std::collections::HashSet<String>,
}

impl Identities {
    pub fn build(catalog: &Catalog, roots: &Roots) -> Identities {
        use rayon::prelude::*;
        // Reading every SKILL.md is most of the cost on a large tree: read in parallel,
        // keep catalog order.
        let names: Vec<String> = catalog
            .files
            .par_iter()
            .with_min_len(256)
            .map(|file| read_identity(&file.skill_md, &file.dir_name()))
            .collect();
        let mut ids = Identities::default();
        for (file, name) in catalog.files.iter().zip(names) {
            let dir = file.dir().to_path_buf();
            if file.is_local() {
                if roots.is_external(&file.skill_md) {
                    continue;
                }
                ids.local_order.push((name.clone(), dir.clone()));
                ids.local.entry(name).or_insert(dir);
            } else {
                ids.external.entry(name).or_insert(dir);
            }
        }
        ids
    }

    /// The local skills in catalog order, without the removed ones.
    pub fn local_entries(&self) -> impl Iterator<Item = &(String, PathBuf)> {
        self.local_order
            .iter()
            .filter(|(n, _)| self.removed.is_empty() || !self.removed.contains(n))
    }

    /// Forgets a local skill that was moved away (archived).
    pub fn remove_local(&mut self, name: &str) {
        self.local.remove(name);
        self.removed.insert(name.to_string());
    }

    /// Records a local skill that appeared (restored).
    pub fn insert_local(&mut self, name: &str, dir: PathBuf) {
        if self.removed.remove(name) {
            self.local_order.retain(|(n, _)| n != name);
        }
        self.local_order.push((name.to_string(), dir.clone()));
        self.local.entry(name.to_string()).or_insert(dir);
    }
}

/// `is_curation_eligible(name, path)`: may the curator track and archive this skill?
pub fn is_curation_eligible(
    name: &str,
    path: Option<&Path>,
    provenance: &Provenance,
    ids: &Identities,
    roots: &Roots,
) -> bool {
    if path.is_some_and(|p| roots.is_external(p)) {
        return false;
    }
    if is_protected(name) || provenance.is_hub(name) {
        return false;
    }
    if provenance.is_bundled(name) {
        return provenance.prune_builtins;
    }
    if let Some(dir) = ids.local.get(name) {
        return !roots.is_external(dir);
    }
    !ids.external.contains_key(name)
}

/// `is_agent_created(name)`: not bundled, not from the hub, and not only in an external dir.
pub fn is_agent_created(name: &str, provenance: &Provenance, ids: &Identities) -> bool {
    if provenance.is_bundled(name) || provenance.is_hub(name) {
        return false;
    }
    ids.local.contains_key(name) || !ids.external.contains_key(name)
}

/// `list_agent_created_skill_names`: the local skills the curator manages — bundled ones
/// when `prune_builtins` is on, and the rest only when their record says the agent created
/// them; hub-installed and protected skills never. Sorted, unique.
pub fn curator_managed_names(
    provenance: &Provenance,
    ids: &Identities,
    usage: &super::usage::UsageMap,
) -> Vec<String> {
    let mut names: BTreeSet<String> = BTreeSet::new();
    for (name, _) in ids.local_entries() {
        if provenance.is_hub(name) || is_protected(name) {
            continue;
        }
        if provenance.is_bundled(name) {
            if provenance.prune_builtins {
                names.insert(name.clone());
            }
            continue;
        }
        if super::usage::is_curator_managed(usage.get(name)) {
            names.insert(name.clone());
        }
    }
    names.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifest_and_lock_names() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = Home::at(dir.path());
        let skills = home.skills_dir();
        std::fs::create_dir_all(skills.join(".hub")).expect("mkdir");
        std::fs::write(home.bundled_manifest(), "plan:abc\nv1-entry\n\n x : y\n").expect("w");
        std::fs::create_dir_all(skills.join("tools/hubbed")).expect("mkdir");
        std::fs::write(
            skills.join("tools/hubbed/SKILL.md"),
            "---\nname: hub-real-name\n---\n",
        )
        .expect("w");
        std::fs::write(
            home.hub_lock_json(),
            r#"{"version": 1, "installed": {"hubbed": {"install_path": "tools/hubbed"},
                "escape": {"install_path": "../../etc"}}}"#,
        )
        .expect("w");
        let p = Provenance::load(&home, &Config::defaults());
        assert_eq!(
            p.bundled,
            BTreeSet::from(["plan".into(), "v1-entry".into(), "x".into()])
        );
        assert_eq!(
            p.hub,
            BTreeSet::from(["escape".into(), "hub-real-name".into(), "hubbed".into()])
        );
        assert_eq!(p.origin("hubbed").as_str(), "hub");
        assert_eq!(p.origin("plan").as_str(), "bundled");
        assert_eq!(p.origin("mine").as_str(), "agent");
    }

    #[test]
    fn curator_manages_agent_created_and_prunable_builtins() {
        let mut ids = Identities::default();
        for name in ["mine", "agents", "plan", "bundled", "hubbed", "legacy"] {
            ids.insert_local(name, PathBuf::from(format!("/s/{name}")));
        }
        let provenance = Provenance {
            bundled: ["bundled".into(), "plan".into()].into(),
            hub: ["hubbed".into()].into(),
            prune_builtins: true,
        };
        let mut usage = super::super::usage::UsageMap::default();
        usage
            .records
            .insert("agents".into(), serde_json::json!({"created_by": "agent"}));
        usage
            .records
            .insert("legacy".into(), serde_json::json!({"agent_created": true}));
        usage
            .records
            .insert("mine".into(), serde_json::json!({"created_by": null}));
        assert_eq!(
            curator_managed_names(&provenance, &ids, &usage),
            vec!["agents", "bundled", "legacy"]
        );
    }
}
