//! The skills block of the system prompt, byte for byte as Hermes's
//! `build_skills_system_prompt` renders it: skills grouped by category (the folder path
//! below the root), each with its description cut to 60 characters, category descriptions
//! from `DESCRIPTION.md`, local skills before external ones, disabled and incompatible skills
//! left out.
//!
//! Hermes may serve the local part from `.skills_prompt_snapshot.json`; that cache skips the
//! environment filter (upstream quirk), so we always build from the tree and never read or
//! write the snapshot — we only delete it when a skill changes (see `docs/decisions.md`).

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::Path;

use super::discover;
use super::frontmatter;
use super::library::Library;
use super::runtime::Runtime;
use crate::pytext::{self, read_utf8};
use crate::yaml::{Mapping, Value};

/// The optional inputs of `build_skills_system_prompt`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PromptOptions {
    /// The agent's tool names; `None` (with `toolsets` also `None`) shows every skill.
    pub tools: Option<BTreeSet<String>>,
    /// The agent's toolsets.
    pub toolsets: Option<BTreeSet<String>>,
    /// Top-level categories shown as names only (the coding posture's "focus mode").
    pub compact_categories: BTreeSet<String>,
}

/// The fixed instructions between the heading and the index (Hermes 0.19.0's wording; the
/// model is steered by it, so it must not drift).
const INSTRUCTIONS: &str = "## Skills (mandatory)\n\
Before replying, scan the skills below. If a skill matches or is even partially relevant \
to your task, you MUST load it with skill_view(name) and follow its instructions. \
Err on the side of loading — it is always better to have context you don't need \
than to miss critical steps, pitfalls, or established workflows. \
Skills contain specialized knowledge — API endpoints, tool-specific commands, \
and proven workflows that outperform general-purpose approaches. Load the skill \
even if you think you could handle the task with basic tools like web_search or terminal. \
Skills also encode the user's preferred approach, conventions, and quality standards \
for tasks like code review, planning, and testing — load them even for tasks you \
already know how to do, because the skill defines how it should be done here.\n\
Whenever the user asks you to configure, set up, install, enable, disable, modify, \
or troubleshoot Hermes Agent itself — its CLI, config, models, providers, tools, \
skills, voice, gateway, plugins, or any feature — load the `hermes-agent` skill \
first. It has the actual commands (e.g. `hermes config set …`, `hermes tools`, \
`hermes setup`) so you don't have to guess or invent workarounds.\n\
If a skill has issues, fix it with skill_manage(action='patch').\n\
After difficult/iterative tasks, offer to save as a skill. \
If a skill you loaded was missing steps, had wrong commands, or needed \
pitfalls you discovered, update it before finishing.\n\
\n\
<available_skills>\n";

const FOOTER: &str = "</available_skills>\n\
\n\
Only proceed without loading a skill if genuinely none are relevant to the task.";

const DEMOTION_NOTE: &str = "\n(Categories marked [names only] are outside the current coding \
context, so their descriptions are omitted — the skills work \
normally and load with skill_view(name) as usual.)";

/// One skill as the index shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexedSkill {
    pub category: String,
    pub name: String,
    pub description: String,
}

/// The skills the index shows, in the order they were collected (local, then external),
/// and the category descriptions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SkillIndex {
    pub skills: Vec<IndexedSkill>,
    pub category_descriptions: BTreeMap<String, String>,
}

/// Collects what the index shows.
pub fn collect(lib: &Library, options: &PromptOptions) -> SkillIndex {
    let mut index = SkillIndex::default();
    let disabled = lib.disabled();
    let local = &lib.roots.local;
    for skill_md in discover::skill_files(local).files {
        if let Some(skill) = index_entry(local, &skill_md, &lib.runtime, &disabled, options) {
            index.skills.push(skill);
        }
    }
    for (category, text) in category_descriptions(local) {
        index.category_descriptions.insert(category, text);
    }
    let mut seen: HashSet<String> = index.skills.iter().map(|s| s.name.clone()).collect();
    for root in &lib.roots.external {
        if !root.exists() {
            continue;
        }
        for skill_md in discover::skill_files(root).files {
            let Some(skill) = index_entry(root, &skill_md, &lib.runtime, &disabled, options) else {
                continue;
            };
            if seen.insert(skill.name.clone()) {
                index.skills.push(skill);
            }
        }
        for (category, text) in category_descriptions(root) {
            index.category_descriptions.entry(category).or_insert(text);
        }
    }
    index
}

/// `build_skills_system_prompt`: the block, or `""` when no skill is shown.
pub fn build(lib: &Library, options: &PromptOptions) -> String {
    if !lib.roots.local.exists() && lib.roots.external.is_empty() {
        return String::new();
    }
    render(&collect(lib, options), &options.compact_categories)
}

/// Renders a collected index.
pub fn render(index: &SkillIndex, compact: &BTreeSet<String>) -> String {
    let mut by_category: BTreeMap<&str, Vec<(&str, &str)>> = BTreeMap::new();
    for skill in &index.skills {
        by_category
            .entry(skill.category.as_str())
            .or_default()
            .push((skill.name.as_str(), skill.description.as_str()));
    }
    if by_category.is_empty() {
        return String::new();
    }
    let demoted = |category: &str| compact.contains(category.split('/').next().unwrap_or(""));
    let mut lines: Vec<String> = Vec::new();
    let mut any_demoted = false;
    for (category, skills) in &mut by_category {
        if demoted(category) {
            any_demoted = true;
            let names: BTreeSet<&str> = skills.iter().map(|(n, _)| *n).collect();
            lines.push(format!(
                "  {category} [names only]: {}",
                names.into_iter().collect::<Vec<_>>().join(", ")
            ));
            continue;
        }
        match index.category_descriptions.get(*category) {
            Some(desc) if !desc.is_empty() => lines.push(format!("  {category}: {desc}")),
            _ => lines.push(format!("  {category}:")),
        }
        // A stable sort by name keeps the first-collected skill first among equal names.
        skills.sort_by(|a, b| a.0.cmp(b.0));
        let mut seen = HashSet::new();
        for (name, desc) in skills.iter() {
            if !seen.insert(*name) {
                continue;
            }
            if desc.is_empty() {
                lines.push(format!("    - {name}"));
            } else {
                lines.push(format!("    - {name}: {desc}"));
            }
        }
    }
    let mut out = String::from(INSTRUCTIONS);
    out.push_str(&lines.join("\n"));
    out.push('\n');
    out.push_str(FOOTER);
    if any_demoted {
        out.push_str(DEMOTION_NOTE);
    }
    out
}

/// One SKILL.md as the index sees it (`_parse_skill_file` + `_build_snapshot_entry`), or
/// `None` when it is not shown.
fn index_entry(
    root: &Path,
    skill_md: &Path,
    runtime: &Runtime,
    disabled: &BTreeSet<String>,
    options: &PromptOptions,
) -> Option<IndexedSkill> {
    let rel: Vec<String> = skill_md
        .strip_prefix(root)
        .ok()?
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let (dir_name, category) = if rel.len() >= 2 {
        let category = if rel.len() > 2 {
            rel[..rel.len() - 2].join("/")
        } else {
            rel[0].clone()
        };
        (rel[rel.len() - 2].clone(), category)
    } else {
        let parent = skill_md
            .parent()
            .and_then(Path::file_name)
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        (parent, "general".to_string())
    };
    // An unreadable file is shown, with no description, under its directory name.
    let (fields, description) = match read_utf8(skill_md) {
        Ok(text) => {
            let parsed = frontmatter::parse(&text);
            let fields = parsed.fields;
            if !runtime.matches_platforms(fields.get("platforms"))
                || !runtime.matches_environments(fields.get("environments"))
            {
                return None;
            }
            let description = prompt_description(fields.get("description"));
            (fields, description)
        }
        Err(_) => (Mapping::new(), String::new()),
    };
    let name = match fields.get("name") {
        Some(v) => v.py_str(),
        None => dir_name.clone(),
    };
    if disabled.contains(&name) || disabled.contains(&dir_name) {
        return None;
    }
    if !conditions_allow(&fields, options) {
        return None;
    }
    Some(IndexedSkill {
        category,
        name,
        description,
    })
}

/// `extract_skill_description`: `str()`, stripped, quotes stripped, over 60 characters cut
/// to 57 + `...`.
fn prompt_description(value: Option<&Value>) -> String {
    let Some(value) = value.filter(|v| v.is_truthy()) else {
        return String::new();
    };
    let text = value.py_str();
    let text = pytext::strip(&text).trim_matches(['\'', '"']);
    if pytext::char_len(text) > 60 {
        format!("{}...", pytext::take_chars(text, 57))
    } else {
        text.to_string()
    }
}

/// `DESCRIPTION.md` files: category path (`general` at the root) → description.
fn category_descriptions(root: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for file in discover::index_files(root, "DESCRIPTION.md").files {
        let Ok(text) = read_utf8(&file) else {
            continue;
        };
        let parsed = frontmatter::parse(&text);
        let Some(desc) = parsed.fields.get("description").filter(|v| v.is_truthy()) else {
            continue;
        };
        let Ok(rel) = file.strip_prefix(root) else {
            continue;
        };
        let parts: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let category = if parts.len() > 1 {
            parts[..parts.len() - 1].join("/")
        } else {
            "general".to_string()
        };
        let text = desc.py_str();
        out.push((
            category,
            pytext::strip(&text).trim_matches(['\'', '"']).to_string(),
        ));
    }
    out
}

/// `_skill_should_show` over `metadata.hermes.{fallback_for,requires}_{tools,toolsets}`.
fn conditions_allow(fields: &Mapping, options: &PromptOptions) -> bool {
    if options.tools.is_none() && options.toolsets.is_none() {
        return true;
    }
    let empty = BTreeSet::new();
    let tools = options.tools.as_ref().unwrap_or(&empty);
    let toolsets = options.toolsets.as_ref().unwrap_or(&empty);
    let hermes = fields
        .get("metadata")
        .and_then(Value::as_map)
        .and_then(|m| m.get("hermes"))
        .and_then(Value::as_map);
    let items = |key: &str| -> Vec<Option<String>> {
        match hermes.and_then(|h| h.get(key)) {
            Some(Value::Seq(items)) => items.iter().map(|v| v.as_str().map(String::from)).collect(),
            // Python iterates a string character by character.
            Some(Value::Str(s)) => s.chars().map(|c| Some(c.to_string())).collect(),
            Some(Value::Map(m)) => m
                .iter()
                .map(|(k, _)| k.as_str().map(String::from))
                .collect(),
            _ => Vec::new(),
        }
    };
    let has = |set: &BTreeSet<String>, item: &Option<String>| {
        item.as_ref().is_some_and(|s| set.contains(s))
    };
    if items("fallback_for_toolsets")
        .iter()
        .any(|t| has(toolsets, t))
        || items("fallback_for_tools").iter().any(|t| has(tools, t))
    {
        return false;
    }
    items("requires_toolsets").iter().all(|t| has(toolsets, t))
        && items("requires_tools").iter().all(|t| has(tools, t))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::home::{Config, Home};

    fn lib_with(files: &[(&str, &str)], config: &str) -> (tempfile::TempDir, Library) {
        let dir = tempfile::tempdir().expect("tempdir");
        for (rel, text) in files {
            let p = dir.path().join(rel);
            std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
            std::fs::write(p, text).expect("write");
        }
        let home = Home::at(dir.path());
        let config = Config::from_bytes(config.as_bytes(), Path::new("c")).expect("config");
        (dir, Library::new(home, config, Runtime::plain_linux()))
    }

    #[test]
    fn renders_categories_like_hermes() {
        let long = "d".repeat(61);
        let (_dir, lib) = lib_with(
            &[
                (
                    "skills/dev/DESCRIPTION.md",
                    "---\ndescription: 'Dev tools'\n---\n",
                ),
                (
                    "skills/dev/git/SKILL.md",
                    "---\nname: git\ndescription: Git help.\n---\nx",
                ),
                (
                    "skills/dev/a/b/SKILL.md",
                    &format!("---\nname: deep\ndescription: {long}\n---\nx"),
                ),
                ("skills/solo/SKILL.md", "---\nname: solo\n---\nx"),
                (
                    "skills/dev/off/SKILL.md",
                    "---\nname: gone\ndescription: x\n---\nx",
                ),
            ],
            "skills:\n  disabled: [\"off\"]\n",
        );
        let out = build(&lib, &PromptOptions::default());
        let index_part = out
            .split("<available_skills>\n")
            .nth(1)
            .and_then(|s| s.split("</available_skills>").next())
            .expect("index");
        assert_eq!(
            index_part,
            format!(
                "  dev: Dev tools\n    - git: Git help.\n  dev/a:\n    - deep: {}...\n  solo:\n    - solo\n",
                "d".repeat(57)
            )
        );
        assert!(out.starts_with("## Skills (mandatory)\nBefore replying"));
        assert!(out.ends_with("genuinely none are relevant to the task."));
        let compact = PromptOptions {
            compact_categories: BTreeSet::from(["dev".to_string()]),
            ..PromptOptions::default()
        };
        let out = build(&lib, &compact);
        assert!(out.contains("  dev [names only]: git\n  dev/a [names only]: deep\n"));
        assert!(out.ends_with("load with skill_view(name) as usual.)"));
    }

    #[test]
    fn conditions_hide_fallbacks_and_unmet_requirements() {
        let (_dir, lib) = lib_with(
            &[
                (
                    "skills/a/SKILL.md",
                    "---\nname: a\nmetadata:\n  hermes:\n    fallback_for_tools: [web_search]\n---\nx",
                ),
                (
                    "skills/b/SKILL.md",
                    "---\nname: b\nmetadata:\n  hermes:\n    requires_toolsets: [browser]\n---\nx",
                ),
            ],
            "",
        );
        let options = PromptOptions {
            tools: Some(BTreeSet::from(["web_search".to_string()])),
            toolsets: Some(BTreeSet::new()),
            ..PromptOptions::default()
        };
        assert_eq!(build(&lib, &options), "");
        assert!(build(&lib, &PromptOptions::default()).contains("    - b\n"));
    }
}
